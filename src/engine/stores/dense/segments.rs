//! The dense store's two-bit array on disk, one segment in memory at a
//! time: Korf's out-of-core scheme, for a key space whose two bits a key do
//! not fit in the memory a search may use (the 2x7 tile puzzle's 10.2 GiB
//! under `--memory-limit 4G`).
//!
//! The key space is cut into segments of whole blocks; the array lives in
//! one file (sparse until written), and the segment being worked on is read
//! into memory, every block's checksum checked. A successor whose key lies
//! outside the resident segment goes to its worker's buffer, which is
//! sorted and written as candidate run files, one per segment it reaches.
//! A level takes two passes:
//!
//! - **Forward**, over the segments in key order: load the segment (and
//!   apply what the previous level left for it, below), settle the
//!   candidates that earlier segments of this pass sent it, expand the
//!   newest level's keys in it, write its changed blocks back.
//! - **Backward**, over the segments that later segments sent candidates
//!   to, in reverse key order: load, settle those candidates (counting the
//!   new ones, so that the level's size is exact when the level loop asks),
//!   and keep the result in memory only. The candidate files stay: the next
//!   level's forward pass applies them again when it loads the segment
//!   (they were settled once, so they set the same slots), and only then
//!   are they written into the array. The backward pass thus reads but
//!   never writes the array.
//!
//! The segment last loaded by the backward pass is still in memory, exactly
//! as the next forward pass would load it, so that pass starts there
//! without reading it again.
//!
//! What is written is checked: the array's blocks by a crc32 each (kept in
//! memory, as the file lives only as long as the search), candidate files
//! by their own block and trailer checksums.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Mutex;

use rayon::prelude::*;

use crate::engine::files::run::{Header, Kind, RunFile, RunWriter};
use crate::engine::files::{Disk, DiskUse, Spill, SpillError};

/// The array's file in the spill directory.
const NAME: &str = "dense-bits.bin";

/// Blocks read or written as one task.
const TASK_BLOCKS: usize = 64;

/// The array on disk and the candidate files between segments.
pub(crate) struct Segments {
    disk: Disk,
    file: File,
    path: PathBuf,
    digest: u64,
    /// Segment `i` holds blocks `bounds[i]..bounds[i + 1]`.
    bounds: Vec<usize>,
    /// Bytes in a (full) block.
    block_bytes: usize,
    /// Bytes of the whole array.
    total_bytes: usize,
    /// Per block: the crc32 of what was last written, if it was ever
    /// written (a block never written is zero).
    crcs: Vec<Option<u32>>,
    /// Candidate files made while the forward pass expands a segment, with
    /// the segment each is for.
    made: Mutex<Vec<(usize, RunFile)>>,
    /// Names of candidate files made so far.
    names: std::sync::atomic::AtomicU64,
    /// Per segment: the next level's candidates from earlier segments of
    /// this forward pass.
    pub(crate) ahead: Vec<Vec<RunFile>>,
    /// Per segment: the next level's candidates from later segments, for
    /// the backward pass.
    pub(crate) behind: Vec<Vec<RunFile>>,
    /// Per segment: the newest level's keys counted by the backward pass
    /// but not yet written into the array.
    pub(crate) settled: Vec<Vec<RunFile>>,
    /// The segment in memory: it holds what the file holds with its
    /// `settled` keys applied.
    pub(crate) resident: Option<usize>,
    /// Whether this is one process's share of a cluster's array.
    cluster: bool,
}

impl Segments {
    /// An array of `total_bytes` in blocks of `block_bytes`, of which the
    /// blocks `owned` (this process's) are cut into segments of at most
    /// `max_bytes` (at least a block), in a file under `spill`'s directory
    /// (sparse: only the owned blocks are ever written); in a `cluster`,
    /// that directory is one process's in the cluster's.
    pub(crate) fn create(
        spill: &Spill,
        digest: u64,
        total_bytes: usize,
        block_bytes: usize,
        max_bytes: usize,
        owned: std::ops::Range<usize>,
        cluster: bool,
    ) -> Result<Segments, SpillError> {
        let mut disk = Disk::new(spill)?;
        let path = disk.dir().join(NAME);
        let file = match crate::engine::files::create_own(&path).and_then(|f| {
            f.set_len(total_bytes as u64)
                .map(|()| f)
                .map_err(|e| SpillError::io(&path, e))
        }) {
            Ok(file) => file,
            Err(e) => {
                if !matches!(e, SpillError::Planted { .. }) {
                    let _ = std::fs::remove_file(&path);
                }
                disk.leave(cluster);
                return Err(e);
            }
        };
        let blocks = total_bytes.div_ceil(block_bytes).max(1);
        let mine = owned.len().max(1);
        let per = (max_bytes / block_bytes).clamp(1, mine);
        let count = mine.div_ceil(per);
        // Even segments: the last is not a sliver.
        let per = mine.div_ceil(count);
        let bounds = (0..=count)
            .map(|i| (owned.start + i * per).min(owned.end))
            .collect();
        Ok(Segments {
            disk,
            file,
            path,
            digest,
            bounds,
            block_bytes,
            total_bytes,
            crcs: vec![None; blocks],
            made: Mutex::new(Vec::new()),
            names: std::sync::atomic::AtomicU64::new(0),
            ahead: (0..count).map(|_| Vec::new()).collect(),
            behind: (0..count).map(|_| Vec::new()).collect(),
            settled: (0..count).map(|_| Vec::new()).collect(),
            resident: None,
            cluster,
        })
    }

    /// The number of segments.
    pub(crate) fn count(&self) -> usize {
        self.bounds.len() - 1
    }

    /// The blocks of segment `i`.
    pub(crate) fn blocks(&self, i: usize) -> std::ops::Range<usize> {
        self.bounds[i]..self.bounds[i + 1]
    }

    /// The most bytes a segment holds.
    pub(crate) fn max_bytes(&self) -> usize {
        (0..self.count())
            .map(|i| self.bytes(i).len())
            .max()
            .unwrap_or(0)
    }

    /// The bytes of the array that segment `i` holds.
    pub(crate) fn bytes(&self, i: usize) -> std::ops::Range<usize> {
        let r = self.blocks(i);
        (r.start * self.block_bytes).min(self.total_bytes)
            ..(r.end * self.block_bytes).min(self.total_bytes)
    }

    /// The segment holding block `b` (one of this process's).
    pub(crate) fn segment_of(&self, b: usize) -> usize {
        self.bounds.partition_point(|&start| start <= b) - 1
    }

    /// Reads segment `i` into `buf` (at least its length, private anonymous
    /// memory: the resident bits), checking every block written before
    /// against its checksum; a block never written is zero, its pages
    /// given back rather than written ([`zero`](super::bits::zero)).
    pub(crate) fn load(&mut self, i: usize, buf: &mut [u8]) -> Result<(), SpillError> {
        let range = self.bytes(i);
        let first = self.blocks(i).start;
        let buf = &mut buf[..range.len()];
        let (file, path, crcs, bb) = (&self.file, &self.path, &self.crcs, self.block_bytes);
        buf.par_chunks_mut(TASK_BLOCKS * bb)
            .enumerate()
            .try_for_each(|(t, chunk)| -> Result<(), SpillError> {
                let b0 = first + t * TASK_BLOCKS;
                let n = chunk.len().div_ceil(bb);
                // Runs of blocks written before are read with one call
                // each; the others are zero.
                let mut j = 0;
                while j < n {
                    let written = crcs[b0 + j].is_some();
                    let end = (j..n)
                        .find(|&k| crcs[b0 + k].is_some() != written)
                        .unwrap_or(n);
                    let len = chunk.len();
                    let bytes = &mut chunk[j * bb..(end * bb).min(len)];
                    if written {
                        let at = (range.start + (b0 - first + j) * bb) as u64;
                        file.read_exact_at(bytes, at)
                            .map_err(|e| SpillError::io(path, e))?;
                    } else {
                        super::bits::zero(bytes);
                    }
                    j = end;
                }
                for (j, block) in chunk.chunks(bb).enumerate() {
                    let b = b0 + j;
                    if let Some(crc) = crcs[b]
                        && crc32fast::hash(block) != crc
                    {
                        return Err(SpillError::Damaged {
                            path: path.clone(),
                            what: format!("block {b} of the two-bit array fails its checksum"),
                        });
                    }
                }
                Ok(())
            })?;
        self.resident = Some(i);
        Ok(())
    }

    /// Writes the blocks `dirty` (sorted, all of segment `i`) from `buf`,
    /// segment `i`'s bytes.
    pub(crate) fn store(
        &mut self,
        i: usize,
        buf: &[u8],
        dirty: &[usize],
    ) -> Result<(), SpillError> {
        let range = self.bytes(i);
        let first = self.blocks(i).start;
        let (file, path, bb, disk) = (&self.file, &self.path, self.block_bytes, &self.disk);
        let crcs = &self.crcs;
        let done: Vec<Vec<(usize, u32)>> = dirty
            .par_chunks(TASK_BLOCKS)
            .map(|task| -> Result<Vec<(usize, u32)>, SpillError> {
                let mut out = Vec::with_capacity(task.len());
                for &b in task {
                    let from = (b - first) * bb;
                    let block = &buf[from..(from + bb).min(range.len())];
                    if crcs[b].is_none() {
                        disk.charge(block.len() as u64)
                            .map_err(|e| SpillError::io(path, e))?;
                    }
                    out.push((b, crc32fast::hash(block)));
                }
                // Runs of consecutive blocks are written with one call each.
                let mut j = 0;
                while j < task.len() {
                    let mut end = j + 1;
                    while end < task.len() && task[end] == task[end - 1] + 1 {
                        end += 1;
                    }
                    let from = (task[j] - first) * bb;
                    let to = ((task[end - 1] - first + 1) * bb).min(range.len());
                    file.write_all_at(&buf[from..to], (range.start + from) as u64)
                        .map_err(|e| SpillError::io(path, e))?;
                    j = end;
                }
                Ok(out)
            })
            .collect::<Result<_, _>>()?;
        for (b, crc) in done.into_iter().flatten() {
            self.crcs[b] = Some(crc);
        }
        Ok(())
    }

    /// Writes `keys` (candidates of the level after `depth`, in any order,
    /// with repeats) as one candidate file for each segment they reach,
    /// and empties `keys`. `block_of` gives a key's block.
    pub(crate) fn flush(
        &self,
        keys: &mut Vec<u64>,
        depth: u32,
        block_of: impl Fn(u64) -> usize,
    ) -> Result<(), SpillError> {
        keys.sort_unstable();
        keys.dedup();
        let mut rest = &keys[..];
        while let Some(&first) = rest.first() {
            let s = self.segment_of(block_of(first));
            let end = self.bounds[s + 1];
            let n = rest.partition_point(|&k| block_of(k) < end);
            // A relaxed fetch_add: each call gets a distinct number, and
            // nothing else is published through the counter.
            let name = format!(
                "D{depth:06}-s{s:04}-{}.run",
                self.names
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            );
            let header = Header {
                kind: Kind::Candidates,
                digest: self.digest,
                depth,
                partitions: self.count() as u32,
                first: s as u32,
                count: 1,
            };
            let mut w = RunWriter::new(&self.disk, &name, header)?;
            w.push_all(&rest[..n])?;
            let file = w.finish()?;
            crate::engine::levels::workers::lock(&self.made).push((s, file));
            rest = &rest[n..];
        }
        keys.clear();
        Ok(())
    }

    /// The candidate files made since the last call, with their segments.
    pub(crate) fn take_made(&mut self) -> Vec<(usize, RunFile)> {
        std::mem::take(&mut *crate::engine::levels::workers::lock(&self.made))
    }

    /// Deletes candidate files.
    pub(crate) fn remove(&self, files: Vec<RunFile>) {
        files.into_iter().for_each(|f| self.disk.remove(f));
    }

    /// What the disk held at most and was written in all; every file goes
    /// (and the directory, if the search made it), as when dropped.
    pub(crate) fn finish(self) -> DiskUse {
        self.disk.usage()
    }
}

impl Drop for Segments {
    fn drop(&mut self) {
        for files in [
            std::mem::take(&mut self.ahead),
            std::mem::take(&mut self.behind),
            std::mem::take(&mut self.settled),
        ] {
            files
                .into_iter()
                .flatten()
                .for_each(|f| self.disk.remove(f));
        }
        for (_, f) in self.take_made() {
            self.disk.remove(f);
        }
        let _ = std::fs::remove_file(&self.path);
        self.disk.leave(self.cluster);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_array_reads_back_what_was_written_and_refuses_a_damaged_block() {
        let dir = std::env::temp_dir().join(format!("reach-segments-{}", std::process::id()));
        let spill = Spill::new(&dir);
        // Four blocks of 1 KiB, two a segment.
        let mut s = Segments::create(&spill, 7, 4 << 10, 1 << 10, 2 << 10, 0..4, false).unwrap();
        assert_eq!(s.count(), 2);
        assert_eq!(s.bytes(1), 2048..4096);
        let mut segment = vec![0u8; 2 << 10];
        segment[100] = 0b01;
        segment[1500] = 0b10;
        s.store(1, &segment, &[2, 3]).unwrap();
        let mut back = vec![0xffu8; 2 << 10];
        s.load(1, &mut back).unwrap();
        assert_eq!(back, segment);
        // Never written: zero.
        s.load(0, &mut back).unwrap();
        assert!(back.iter().all(|&b| b == 0));
        // Zeroing a large stretch gives its whole pages back, from any
        // start (a page boundary or not), and writes the ends.
        for offset in [0, 1, 4095, 4096, 5000] {
            let mut big = vec![0xabu8; 1 << 20];
            let stretch = &mut big[offset..offset + (300 << 10) + 7];
            crate::engine::stores::dense::bits::zero(stretch);
            assert!(stretch.iter().all(|&b| b == 0), "offset {offset}");
            assert!(big[..offset].iter().all(|&b| b == 0xab));
            assert!(big[offset + (300 << 10) + 7..].iter().all(|&b| b == 0xab));
        }
        // A flipped byte on disk is found.
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join(NAME))
            .unwrap();
        file.write_all_at(&[0xff], 2048 + 1500).unwrap();
        match s.load(1, &mut back) {
            Err(SpillError::Damaged { what, .. }) => assert!(what.contains("block 3"), "{what}"),
            other => panic!("{other:?}"),
        }
        drop(s);
        assert!(!dir.exists(), "the files and the directory go");
    }
}
