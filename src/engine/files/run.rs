//! Run files: a level's (or a batch of candidates') keys for a range of
//! partitions, as checked blocks, with an index and a checksummed trailer.
//!
//! Layout, little-endian:
//!
//! ```text
//! header   magic "REACHRUN", format u32 (1 for keys of one word, 2 for
//!          wider ones), kind u32 (the key's words less
//!          one in its high 16 bits), puzzle digest u64,
//!          depth u32, partitions u32, first partition u32, partition count u32
//! blocks   each partition's keys in order, in blocks (codec.rs), each with its crc32
//! index    per partition: keys u64, blocks u32; per block: offset u64, keys u32,
//!          first key (its words, u64 each)
//! trailer  index offset u64, index length u64, keys u64,
//!          crc32 of header + index + the 24 bytes before it u32, "REND"
//! ```
//!
//! A file is written under a temporary name and renamed when complete (and
//! synced first, when the run is durable), so a file under its final name
//! is whole. Reading checks the trailer's checksum before trusting the
//! index, and each block's before trusting its keys.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::codec::{BLOCK_KEYS, Coded};
use super::{Disk, SpillError};

const MAGIC: &[u8; 8] = b"REACHRUN";
const END: &[u8; 4] = b"REND";
/// The newest run-file format this build writes and reads: 1 for keys of
/// one word; 2 for keys of several, whose blocks are coded word by word
/// (see [`codec`](super::codec)); their files of format 1, coded as one
/// number, are refused.
pub(crate) const FORMAT: u32 = 2;

/// The format of a file of keys of `words` words.
fn format_of(words: usize) -> u32 {
    if words == 1 { 1 } else { FORMAT }
}
const HEADER: usize = 8 + 4 + 4 + 8 + 4 * 4;
const TRAILER: usize = 8 + 8 + 8 + 4 + 4;
const PART_ENTRY: usize = 8 + 4;

/// An index entry of a block of keys of `words` words.
fn block_entry(words: usize) -> usize {
    8 + 4 + 8 * words
}

/// The name of level `depth`'s file starting at partition `first` (the
/// dense store's checkpoint: its `first`-th file of the level).
pub(crate) fn level_name(depth: u32, first: usize) -> String {
    format!("L{depth:06}-p{first:05}.run")
}

/// What a run file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A share of a complete level.
    Level = 1,
    /// Candidates for the next level, flushed by a worker whose buffers
    /// were full.
    Candidates = 2,
}

/// What a file must say about itself to belong to a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub kind: Kind,
    /// The puzzle's identity digest.
    pub digest: u64,
    pub depth: u32,
    /// Partitions in the whole run.
    pub partitions: u32,
    /// The partitions this file covers.
    pub first: u32,
    pub count: u32,
}

impl Header {
    /// The header of a file of keys of `words` words.
    fn bytes(&self, words: usize) -> [u8; HEADER] {
        let mut b = [0u8; HEADER];
        b[0..8].copy_from_slice(MAGIC);
        b[8..12].copy_from_slice(&format_of(words).to_le_bytes());
        // One-word keys write the kind alone, as before keys had widths.
        let kind = self.kind as u32 | (words as u32 - 1) << 16;
        b[12..16].copy_from_slice(&kind.to_le_bytes());
        b[16..24].copy_from_slice(&self.digest.to_le_bytes());
        b[24..28].copy_from_slice(&self.depth.to_le_bytes());
        b[28..32].copy_from_slice(&self.partitions.to_le_bytes());
        b[32..36].copy_from_slice(&self.first.to_le_bytes());
        b[36..40].copy_from_slice(&self.count.to_le_bytes());
        b
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

#[derive(Clone, Copy, Debug)]
struct BlockEntry<K> {
    offset: u64,
    keys: u32,
    first: K,
}

/// Where the bytes are: small runs of a run that need not survive a crash
/// stay in memory, so that thin levels cost no file.
enum Store {
    Mem(Vec<u8>),
    File(File),
}

/// A complete run file, open for reading.
pub(crate) struct RunFile<K = u64> {
    path: PathBuf,
    store: Store,
    header: Header,
    /// Per covered partition: its keys and its blocks' range in `blocks`.
    parts: Vec<(u64, std::ops::Range<usize>)>,
    blocks: Vec<BlockEntry<K>>,
    index_offset: u64,
    keys: u64,
    bytes: u64,
}

/// The partitions the run file at `path` says it covers (first, count),
/// read from its header before the file is opened and checked with
/// [`RunFile::open`], which needs them.
pub(crate) fn covered(path: &Path) -> Result<(usize, usize), SpillError> {
    let mut head = [0u8; HEADER];
    let file = super::open_regular(path)?;
    file.read_exact_at(&mut head, 0)
        .map_err(|_| SpillError::Damaged {
            path: path.to_path_buf(),
            what: "too short to be a run file (cut short?)".into(),
        })?;
    Ok((u32_at(&head, 32) as usize, u32_at(&head, 36) as usize))
}

/// Refuses a file at `path`, of `format`, whose keys of `words` words are
/// not this search's, or are coded as this build no longer reads them.
fn check_width<K: Coded>(path: &Path, format: u32, words: usize) -> Result<(), SpillError> {
    if words > 1 && format < format_of(words) {
        return Err(SpillError::Damaged {
            path: path.to_path_buf(),
            what: format!(
                "its keys of {words} words are coded as format {format} coded them, which this build no longer reads: run the search again"
            ),
        });
    }
    if words != K::WORDS {
        return Err(SpillError::Foreign {
            path: path.to_path_buf(),
            what: format!(
                "its keys are {words} words wide, where this search's are {}",
                K::WORDS
            ),
        });
    }
    Ok(())
}

impl<K: Coded> RunFile<K> {
    /// Opens and checks the file at `path`, which must carry `expect`.
    pub(crate) fn open(path: &Path, expect: &Header) -> Result<RunFile<K>, SpillError> {
        let file = super::open_regular(path)?;
        let bytes = file.metadata().map_err(|e| SpillError::io(path, e))?.len();
        RunFile::parse(path, Store::File(file), bytes, expect)
    }

    fn parse(
        path: &Path,
        store: Store,
        bytes: u64,
        expect: &Header,
    ) -> Result<RunFile<K>, SpillError> {
        let damaged = |what: &str| SpillError::Damaged {
            path: path.to_path_buf(),
            what: what.to_string(),
        };
        let mut file = RunFile {
            path: path.to_path_buf(),
            store,
            header: *expect,
            parts: Vec::new(),
            blocks: Vec::new(),
            index_offset: 0,
            keys: 0,
            bytes,
        };
        if bytes < (HEADER + TRAILER) as u64 {
            return Err(damaged("too short to be a run file (cut short?)"));
        }
        let mut head = [0u8; HEADER];
        file.read_at(&mut head, 0)?;
        if &head[0..8] != MAGIC {
            return Err(damaged("not a reach run file (wrong magic number)"));
        }
        let format = u32_at(&head, 8);
        if format > FORMAT {
            return Err(SpillError::Version {
                path: path.to_path_buf(),
                found: format,
                supported: FORMAT,
            });
        }
        let mut tail = [0u8; TRAILER];
        file.read_at(&mut tail, bytes - TRAILER as u64)?;
        if &tail[28..32] != END {
            return Err(damaged(
                "its last bytes are not a run file's end: it was cut short, or bytes were added to it",
            ));
        }
        let index_offset = u64_at(&tail, 0);
        let index_len = u64_at(&tail, 8);
        if index_offset < HEADER as u64
            || index_offset.checked_add(index_len) != Some(bytes - TRAILER as u64)
        {
            return Err(damaged(
                "its index is not where its end says: it was cut short, or bytes were added to it",
            ));
        }
        let mut index = vec![0u8; index_len as usize];
        file.read_at(&mut index, index_offset)?;
        let mut crc = crc32fast::Hasher::new();
        crc.update(&head);
        crc.update(&index);
        crc.update(&tail[..24]);
        if crc.finalize() != u32_at(&tail, 24) {
            return Err(damaged("its header or index fails its checksum"));
        }
        let kind = u32_at(&head, 12);
        let found = Header {
            kind: match kind & 0xffff {
                1 => Kind::Level,
                2 => Kind::Candidates,
                _ => return Err(damaged("unknown kind of run")),
            },
            digest: u64_at(&head, 16),
            depth: u32_at(&head, 24),
            partitions: u32_at(&head, 28),
            first: u32_at(&head, 32),
            count: u32_at(&head, 36),
        };
        if found.digest != expect.digest {
            return Err(SpillError::Foreign {
                path: path.to_path_buf(),
                what: "it belongs to another puzzle or metric".into(),
            });
        }
        check_width::<K>(path, format, (kind >> 16) as usize + 1)?;
        if found != *expect {
            return Err(SpillError::Foreign {
                path: path.to_path_buf(),
                what: format!(
                    "it holds {:?} depth {}, partitions {}..{} of {}, where {:?} depth {}, partitions {}..{} of {} were expected",
                    found.kind,
                    found.depth,
                    found.first,
                    found.first + found.count,
                    found.partitions,
                    expect.kind,
                    expect.depth,
                    expect.first,
                    expect.first + expect.count,
                    expect.partitions
                ),
            });
        }
        // The index parses within its length.
        let mut at = 0usize;
        let mut total = 0u64;
        for _ in 0..found.count {
            let entry = index
                .get(at..at + PART_ENTRY)
                .ok_or_else(|| damaged("its index is short"))?;
            let keys = u64_at(entry, 0);
            let blocks = u32_at(entry, 8) as usize;
            at += PART_ENTRY;
            let start = file.blocks.len();
            let mut sum = 0u64;
            let entry_len = block_entry(K::WORDS);
            for _ in 0..blocks {
                let b = index
                    .get(at..at + entry_len)
                    .ok_or_else(|| damaged("its index is short"))?;
                let block = BlockEntry {
                    offset: u64_at(b, 0),
                    keys: u32_at(b, 8),
                    first: K::from_bytes(&b[12..]),
                };
                if block.offset < HEADER as u64 || block.offset >= index_offset {
                    return Err(damaged("a block lies outside the file"));
                }
                sum += u64::from(block.keys);
                file.blocks.push(block);
                at += entry_len;
            }
            if sum != keys {
                return Err(damaged("its index does not add up"));
            }
            total += keys;
            file.parts.push((keys, start..file.blocks.len()));
        }
        if at != index.len() || total != u64_at(&tail, 16) {
            return Err(damaged("its index does not add up"));
        }
        file.index_offset = index_offset;
        file.keys = total;
        Ok(file)
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<(), SpillError> {
        match &self.store {
            Store::File(f) => f
                .read_exact_at(buf, offset)
                .map_err(|e| SpillError::io(&self.path, e)),
            Store::Mem(bytes) => {
                let src = usize::try_from(offset)
                    .ok()
                    .and_then(|o| bytes.get(o..o.checked_add(buf.len())?))
                    .ok_or_else(|| SpillError::Damaged {
                        path: self.path.clone(),
                        what: "a read past its end".into(),
                    })?;
                buf.copy_from_slice(src);
                Ok(())
            }
        }
    }

    /// The file's path (for a run kept in memory, the name it would have).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Its name in its directory.
    pub(crate) fn name(&self) -> String {
        self.path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }

    /// A handle of the file to sync it with (`None` for a run kept in
    /// memory).
    pub(crate) fn sync_handle(&self) -> Result<Option<File>, SpillError> {
        match &self.store {
            Store::File(f) => f
                .try_clone()
                .map(Some)
                .map_err(|e| SpillError::io(&self.path, e)),
            Store::Mem(_) => Ok(None),
        }
    }

    /// Its size in bytes.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether it lives on disk.
    pub(crate) fn on_disk(&self) -> bool {
        matches!(self.store, Store::File(_))
    }

    /// Keys in the file.
    pub(crate) fn keys(&self) -> u64 {
        self.keys
    }

    /// The first partition covered and how many.
    pub(crate) fn covers(&self) -> std::ops::Range<u32> {
        self.header.first..self.header.first + self.header.count
    }

    /// Keys of partition `p` (one this file covers).
    pub(crate) fn keys_in(&self, p: usize) -> u64 {
        self.parts[p - self.header.first as usize].0
    }

    /// The blocks of partition `p`, as indices for [`RunFile::read_block`].
    pub(crate) fn blocks_of(&self, p: usize) -> std::ops::Range<usize> {
        self.parts[p - self.header.first as usize].1.clone()
    }

    /// Blocks in the file.
    pub(crate) fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// Appends block `b`'s keys to `out`, checking its checksum; `scratch`
    /// holds its bytes.
    pub(crate) fn read_block(
        &self,
        b: usize,
        scratch: &mut Vec<u8>,
        out: &mut Vec<K>,
    ) -> Result<(), SpillError> {
        let block = self.blocks[b];
        let end = self
            .blocks
            .get(b + 1)
            .map_or(self.index_offset, |next| next.offset);
        let len = end
            .checked_sub(block.offset)
            .ok_or_else(|| self.damaged("its blocks are out of order"))?;
        scratch.resize(len as usize, 0);
        self.read_at(scratch, block.offset)?;
        let before = out.len();
        match K::decode_block(scratch, out) {
            Ok(used) if used == scratch.len() && out.len() - before == block.keys as usize => {
                Ok(())
            }
            Ok(_) => Err(self.damaged("a block does not match its index")),
            Err(e) => Err(self.damaged(&e.to_string())),
        }
    }

    fn damaged(&self, what: &str) -> SpillError {
        SpillError::Damaged {
            path: self.path.clone(),
            what: what.to_string(),
        }
    }

    /// Whether partition `p`'s share holds `key`: one block read.
    pub(crate) fn contains(
        &self,
        p: usize,
        key: K,
        scratch: &mut Vec<u8>,
        keys: &mut Vec<K>,
    ) -> Result<bool, SpillError> {
        let blocks = self.blocks_of(p);
        let firsts = &self.blocks[blocks.clone()];
        let i = firsts.partition_point(|b| b.first <= key);
        if i == 0 {
            return Ok(false);
        }
        keys.clear();
        self.read_block(blocks.start + i - 1, scratch, keys)?;
        Ok(keys.binary_search(&key).is_ok())
    }

    /// Reads every block, checking every checksum.
    pub(crate) fn verify(&self) -> Result<(), SpillError> {
        let (mut scratch, mut keys) = (Vec::new(), Vec::new());
        for b in 0..self.blocks.len() {
            keys.clear();
            self.read_block(b, &mut scratch, &mut keys)?;
        }
        Ok(())
    }
}

/// Partition `p`'s keys in a run file, block by block.
pub(crate) struct PartReader<'f, K = u64> {
    file: &'f RunFile<K>,
    blocks: std::ops::Range<usize>,
    keys: Vec<K>,
    at: usize,
    scratch: Vec<u8>,
}

impl<'f, K: Coded> PartReader<'f, K> {
    pub(crate) fn new(file: &'f RunFile<K>, p: usize) -> PartReader<'f, K> {
        PartReader {
            file,
            blocks: file.blocks_of(p),
            keys: Vec::new(),
            at: 0,
            scratch: Vec::new(),
        }
    }

    /// The next key, or `None` at the end.
    #[inline]
    pub(crate) fn next_key(&mut self) -> Result<Option<K>, SpillError> {
        if self.at == self.keys.len() {
            let Some(b) = self.blocks.next() else {
                return Ok(None);
            };
            self.keys.clear();
            self.at = 0;
            self.file.read_block(b, &mut self.scratch, &mut self.keys)?;
        }
        let key = self.keys[self.at];
        self.at += 1;
        Ok(Some(key))
    }
}

/// Counts bytes as they go to a file, and fails them once the injected
/// fault's budget is spent.
struct Metered<'d> {
    file: File,
    disk: &'d Disk,
    /// Bytes charged to the disk so far.
    charged: u64,
}

impl Write for Metered<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.disk.charge(buf.len() as u64)?;
        match self.file.write(buf) {
            Ok(n) => {
                self.disk.refund((buf.len() - n) as u64);
                self.charged += n as u64;
                Ok(n)
            }
            Err(e) => {
                self.disk.refund(buf.len() as u64);
                Err(e)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

enum Sink<'d> {
    Mem(Vec<u8>),
    File(BufWriter<Metered<'d>>),
}

/// Writes a run file, partition by partition, key by key.
pub(crate) struct RunWriter<'d, K = u64> {
    disk: &'d Disk,
    header: Header,
    path: PathBuf,
    tmp: PathBuf,
    sink: Sink<'d>,
    offset: u64,
    index: Vec<(u64, Vec<BlockEntry<K>>)>,
    part: usize,
    pending: Vec<K>,
    encoded: Vec<u8>,
    keys: u64,
    /// Whether `finish` syncs the file (when the run is durable).
    sync: bool,
}

/// Keys a block holds at most: a level's files in full blocks; candidate
/// files in blocks a quarter as long, since a settle merges a partition's
/// share of every candidate file at once and holds a decoded block of each
/// (128 KiB a block of 16384 keys: with 66 candidate files at two threads
/// and a 16 MiB memory limit, 17 MiB of readers; a quarter of that now).
fn block_keys(kind: Kind) -> usize {
    match kind {
        Kind::Level => BLOCK_KEYS,
        Kind::Candidates => BLOCK_KEYS / 4,
    }
}

/// Unique temporary names within a process: a relaxed `fetch_add` is
/// enough, since each call gets a distinct value and nothing else is
/// published through the counter.
static TMP: AtomicU64 = AtomicU64::new(0);

impl<'d, K: Coded> RunWriter<'d, K> {
    /// A writer of the file `name` in `disk`'s directory. Unless the run is
    /// durable, it stays in memory while it is under the disk's memory
    /// threshold.
    pub(crate) fn new(disk: &'d Disk, name: &str, header: Header) -> Result<Self, SpillError> {
        let path = disk.dir().join(name);
        let tmp = disk.dir().join(format!(
            "{name}.{}-{}.tmp",
            std::process::id(),
            TMP.fetch_add(1, Ordering::Relaxed)
        ));
        let mut w = RunWriter {
            disk,
            header,
            path,
            tmp,
            sink: Sink::Mem(Vec::new()),
            offset: 0,
            index: (0..header.count).map(|_| (0, Vec::new())).collect(),
            part: header.first as usize,
            pending: Vec::with_capacity(block_keys(header.kind)),
            encoded: Vec::new(),
            keys: 0,
            sync: disk.durable(),
        };
        // Candidates are written because memory is full: never kept in it
        // (unless every run is).
        if disk.durable() || (header.kind == Kind::Candidates && !disk.in_memory()) {
            w.spill_to_file()?;
        }
        w.write(&header.bytes(K::WORDS))?;
        Ok(w)
    }

    /// Leaves the file unsynced when it is finished: the caller syncs it
    /// ([`RunFile::sync_handle`]) before anything names it.
    pub(crate) fn synced_later(mut self) -> Self {
        self.sync = false;
        self
    }

    fn spill_to_file(&mut self) -> Result<(), SpillError> {
        // Read back after the rename, so opened for both.
        let file = super::create_own(&self.tmp)?;
        let mut out = BufWriter::with_capacity(
            1 << 16,
            Metered {
                file,
                disk: self.disk,
                charged: 0,
            },
        );
        if let Sink::Mem(bytes) = &self.sink {
            out.write_all(bytes)
                .map_err(|e| SpillError::io(&self.tmp, e))?;
        }
        self.sink = Sink::File(out);
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), SpillError> {
        match &mut self.sink {
            Sink::Mem(v) => {
                v.extend_from_slice(bytes);
                if v.len() > self.disk.memory_threshold() {
                    self.spill_to_file()?;
                }
            }
            Sink::File(f) => f
                .write_all(bytes)
                .map_err(|e| SpillError::io(&self.tmp, e))?,
        }
        self.offset += bytes.len() as u64;
        Ok(())
    }

    fn flush_block(&mut self) -> Result<(), SpillError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.encoded.clear();
        K::encode_block(&self.pending, &mut self.encoded);
        let entry = BlockEntry {
            offset: self.offset,
            keys: self.pending.len() as u32,
            first: self.pending[0],
        };
        let slot = &mut self.index[self.part - self.header.first as usize];
        slot.0 += self.pending.len() as u64;
        slot.1.push(entry);
        self.keys += self.pending.len() as u64;
        self.pending.clear();
        let encoded = std::mem::take(&mut self.encoded);
        let written = self.write(&encoded);
        self.encoded = encoded;
        written
    }

    /// Moves on to partition `p` (at or after the current one); the keys
    /// pushed next belong to it.
    pub(crate) fn partition(&mut self, p: usize) -> Result<(), SpillError> {
        debug_assert!(p >= self.part && p < (self.header.first + self.header.count) as usize);
        if p != self.part {
            self.flush_block()?;
            self.part = p;
        }
        Ok(())
    }

    /// Appends `key`, larger than the last key pushed in this partition.
    #[inline]
    pub(crate) fn push(&mut self, key: K) -> Result<(), SpillError> {
        debug_assert!(self.pending.last().is_none_or(|&last| last < key));
        self.pending.push(key);
        if self.pending.len() == block_keys(self.header.kind) {
            self.flush_block()?;
        }
        Ok(())
    }

    /// Appends sorted, distinct keys.
    pub(crate) fn push_all(&mut self, keys: &[K]) -> Result<(), SpillError> {
        keys.iter().try_for_each(|&k| self.push(k))
    }

    /// Writes the index and trailer, and gives the file its name (synced
    /// first when the run is durable).
    pub(crate) fn finish(mut self) -> Result<RunFile<K>, SpillError> {
        self.flush_block()?;
        let mut index = Vec::with_capacity(self.index.len() * PART_ENTRY);
        for (keys, blocks) in &self.index {
            index.extend_from_slice(&keys.to_le_bytes());
            index.extend_from_slice(&(blocks.len() as u32).to_le_bytes());
            for b in blocks {
                index.extend_from_slice(&b.offset.to_le_bytes());
                index.extend_from_slice(&b.keys.to_le_bytes());
                b.first.put_bytes(&mut index);
            }
        }
        let mut tail = Vec::with_capacity(TRAILER);
        tail.extend_from_slice(&(self.offset).to_le_bytes());
        tail.extend_from_slice(&(index.len() as u64).to_le_bytes());
        tail.extend_from_slice(&self.keys.to_le_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(&self.header.bytes(K::WORDS));
        crc.update(&index);
        crc.update(&tail);
        tail.extend_from_slice(&crc.finalize().to_le_bytes());
        tail.extend_from_slice(END);
        self.write(&index)?;
        self.write(&tail)?;
        let bytes = self.offset;
        let header = self.header;
        // `Drop` finds an empty memory sink and leaves the file alone.
        let store = match std::mem::replace(&mut self.sink, Sink::Mem(Vec::new())) {
            Sink::Mem(v) => Store::Mem(v),
            Sink::File(f) => {
                let tmp = &self.tmp;
                let metered = f.into_inner().map_err(|e| {
                    // The temporary file goes, as `Drop` would have done.
                    let (error, writer) = e.into_parts();
                    let (metered, _) = writer.into_parts();
                    drop(metered.file);
                    if std::fs::remove_file(tmp).is_ok() {
                        self.disk.refund(metered.charged);
                    }
                    SpillError::io(tmp, error)
                })?;
                if self.sync {
                    metered
                        .file
                        .sync_all()
                        .map_err(|e| SpillError::io(tmp, e))?;
                }
                std::fs::rename(tmp, &self.path).map_err(|e| SpillError::io(&self.path, e))?;
                Store::File(metered.file)
            }
        };
        RunFile::parse(&self.path, store, bytes, &header)
    }
}

impl<K> Drop for RunWriter<'_, K> {
    fn drop(&mut self) {
        // A writer dropped before `finish` (an error, a level discarded)
        // leaves no temporary file behind; after `finish` the name is gone.
        if let Sink::File(f) = std::mem::replace(&mut self.sink, Sink::Mem(Vec::new())) {
            // Without flushing what is buffered: those bytes were never
            // charged.
            let (metered, _) = f.into_parts();
            drop(metered.file);
            if std::fs::remove_file(&self.tmp).is_ok() {
                self.disk.refund(metered.charged);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Spill, Wide};

    fn header() -> Header {
        Header {
            kind: Kind::Level,
            digest: 7,
            depth: 3,
            partitions: 2,
            first: 0,
            count: 2,
        }
    }

    #[test]
    fn a_wide_run_file_reads_back_and_is_refused_at_another_width_or_damaged() {
        let dir = std::env::temp_dir().join(format!("reach-run-wide-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut disk = Disk::new(&Spill::new(&dir).checkpoint(true)).unwrap();
        let keys: Vec<Vec<Wide<2>>> = (0..2u64)
            .map(|p| (0..40_000u64).map(|i| Wide([i * 3 + p, i << 40])).collect())
            .collect();
        let mut w: RunWriter<'_, Wide<2>> = RunWriter::new(&disk, "L.run", header()).unwrap();
        for (p, keys) in keys.iter().enumerate() {
            w.partition(p).unwrap();
            w.push_all(keys).unwrap();
        }
        let file = w.finish().unwrap();
        let path = file.path().to_path_buf();
        drop(file);
        let file: RunFile<Wide<2>> = RunFile::open(&path, &header()).unwrap();
        assert_eq!(file.keys(), 80_000);
        for (p, keys) in keys.iter().enumerate() {
            let mut reader = PartReader::new(&file, p);
            let mut back = Vec::new();
            while let Some(k) = reader.next_key().unwrap() {
                back.push(k);
            }
            assert_eq!(&back, keys);
            let (mut scratch, mut block) = (Vec::new(), Vec::new());
            assert!(
                file.contains(p, keys[777], &mut scratch, &mut block)
                    .unwrap()
            );
            let absent = Wide([keys[777].0[0], keys[777].0[1] + 1]);
            assert!(!file.contains(p, absent, &mut scratch, &mut block).unwrap());
        }
        // Keys of one word expected: refused by the width its header gives.
        let e = RunFile::<u64>::open(&path, &header())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("2 words wide") && e.contains("are 1"), "{e}");
        let e = RunFile::<Wide<3>>::open(&path, &header())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("2 words wide"), "{e}");
        // A file of wide keys in format 1 (coded as one number, before
        // the blocks were coded word by word) is refused by name, not
        // misread: its header and index made whole again, so that only
        // its format tells.
        let mut old = std::fs::read(&path).unwrap();
        assert_eq!(u32_at(&old, 8), 2, "wide keys' files are format 2");
        old[8..12].copy_from_slice(&1u32.to_le_bytes());
        let tail = old.len() - TRAILER;
        let index = u64_at(&old, tail) as usize;
        let mut crc = crc32fast::Hasher::new();
        crc.update(&old[..HEADER]);
        crc.update(&old[index..tail]);
        crc.update(&old[tail..tail + 24]);
        let sum = crc.finalize();
        old[tail + 24..tail + 28].copy_from_slice(&sum.to_le_bytes());
        let old_path = dir.join("old.run");
        std::fs::write(&old_path, &old).unwrap();
        let e = RunFile::<Wide<2>>::open(&old_path, &header())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("format 1") && e.contains("run the search again"),
            "{e}"
        );
        // A flipped bit in a block's keys is caught by its checksum.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER + 40] ^= 4;
        std::fs::write(&path, &bytes).unwrap();
        let file: RunFile<Wide<2>> = RunFile::open(&path, &header()).unwrap();
        let e = file.verify().err().unwrap().to_string();
        assert!(e.contains("checksum"), "{e}");
        drop(file);
        disk.unlock();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
