//! Sorted streams merged: a level settled from its candidates against the
//! levels before it, and candidate files merged in passes.

use super::*;

/// Unique names for candidate files (a relaxed `fetch_add`: each call
/// gets a distinct value, and nothing else is published through it).
static CANDIDATES: AtomicU64 = AtomicU64::new(0);

/// A sorted stream of candidates.
enum Source<'a, K> {
    Mem(std::slice::Iter<'a, K>),
    Disk(PartReader<'a, K>),
}

impl<K: Key> Source<'_, K> {
    #[inline]
    fn next_key(&mut self) -> Result<Option<K>, SpillError> {
        match self {
            Source::Mem(it) => Ok(it.next().copied()),
            Source::Disk(r) => r.next_key(),
        }
    }
}

/// A previous level's share, as a cursor that a merge advances.
struct Previous<'a, K> {
    reader: PartReader<'a, K>,
    head: Option<K>,
}

impl<K: Key> Previous<'_, K> {
    /// Whether `key` (at least every key asked before) is in the share.
    #[inline]
    fn holds(&mut self, key: K) -> Result<bool, SpillError> {
        while let Some(h) = self.head {
            if h >= key {
                return Ok(h == key);
            }
            self.head = self.reader.next_key()?;
        }
        Ok(false)
    }
}

/// Merges sorted `sources` into `out`, once each, leaving out keys that
/// `previous` hold.
fn merge_into<K: Key>(
    mut sources: Vec<Source<'_, K>>,
    previous: &mut [Previous<'_, K>],
    out: &mut RunWriter<'_, K>,
) -> Result<(), SpillError> {
    let mut last = None;
    let mut emit = |key: K| -> Result<(), SpillError> {
        if last == Some(key) {
            return Ok(());
        }
        last = Some(key);
        for prev in previous.iter_mut() {
            if prev.holds(key)? {
                return Ok(());
            }
        }
        out.push(key)
    };
    if let [only] = &mut sources[..] {
        while let Some(key) = only.next_key()? {
            emit(key)?;
        }
        return Ok(());
    }
    let mut heap = BinaryHeap::with_capacity(sources.len());
    for (i, s) in sources.iter_mut().enumerate() {
        if let Some(key) = s.next_key()? {
            heap.push(Reverse((key, i)));
        }
    }
    while let Some(Reverse((key, i))) = heap.pop() {
        if let Some(next) = sources[i].next_key()? {
            heap.push(Reverse((next, i)));
        }
        emit(key)?;
    }
    Ok(())
}

impl<M: Model> OnDisk<'_, M> {
    /// Settles the next level (`depth`) from the workers' buffers and the
    /// candidate files, against the levels frontier search checks
    /// ([`OnDisk::checked_levels`]): one task per group of partitions,
    /// each writing one file.
    pub(super) fn settle(
        &self,
        incoming: &mut [Vec<Vec<M::Key>>],
        candidates: &[RunFile<M::Key>],
        depth: u32,
        threads: usize,
    ) -> Result<(Files<M>, u64), SpillError> {
        let checked = self.checked_levels();
        let p = self.router.partitions();
        let groups = threads.next_power_of_two().min(p);
        let per_group = p / groups;
        let settle_group = |(g, runs): (usize, &mut [Vec<Vec<M::Key>>])| {
            let first = g * per_group;
            let header = self.header(Kind::Level, depth, first, per_group);
            let mut writer = RunWriter::new(&self.disk, &level_name(depth, first), header)?;
            for (i, runs) in runs.iter_mut().enumerate() {
                let part = first + i;
                if self.remote[part] {
                    // Sent to its owner; nothing of it is settled here.
                    runs.iter_mut().for_each(Vec::clear);
                    continue;
                }
                writer.partition(part)?;
                for run in runs.iter_mut() {
                    run.sort_unstable();
                }
                let mut sources: Vec<Source<'_, M::Key>> = runs
                    .iter()
                    .filter(|r| !r.is_empty())
                    .map(|r| Source::Mem(r.iter()))
                    .collect();
                for c in candidates {
                    if c.keys_in(part) > 0 {
                        sources.push(Source::Disk(PartReader::new(c, part)));
                    }
                }
                let mut prev = Vec::new();
                for level in &checked {
                    let file = level.file_of(part);
                    if file.keys_in(part) > 0 {
                        let mut reader = PartReader::new(file, part);
                        let head = reader.next_key()?;
                        prev.push(Previous { reader, head });
                    }
                }
                merge_into(sources, &mut prev, &mut writer)?;
                for run in runs.iter_mut() {
                    run.clear();
                }
            }
            writer.finish()
        };
        let results: Vec<Result<RunFile<M::Key>, SpillError>> = incoming
            .par_chunks_mut(per_group)
            .with_min_len(min_len(threads))
            .enumerate()
            .map(settle_group)
            .collect();
        let files = self.all_or_none(results)?;
        let width = files.iter().map(RunFile::keys).sum();
        Ok((files, width))
    }

    /// Writes `buffers` (partition, keys: each sorted and made distinct
    /// here, and emptied) as one candidate file of the level at `depth`.
    pub(super) fn write_candidates<'b>(
        &self,
        buffers: impl Iterator<Item = (usize, &'b mut Vec<M::Key>)>,
        depth: u32,
    ) -> Result<RunFile<M::Key>, SpillError> {
        let mut writer = self.candidate_writer(depth)?;
        for (p, buf) in buffers {
            if buf.is_empty() {
                continue;
            }
            buf.sort_unstable();
            buf.dedup();
            writer.partition(p)?;
            writer.push_all(buf)?;
            buf.clear();
        }
        writer.finish()
    }

    /// A new candidate file of the level at `depth`.
    pub(super) fn candidate_writer(&self, depth: u32) -> Result<RunWriter<'_, M::Key>, SpillError> {
        let name = format!(
            "C{depth:06}-{}-{}.run",
            std::process::id(),
            CANDIDATES.fetch_add(1, Ordering::Relaxed)
        );
        let header = self.header(Kind::Candidates, depth, 0, self.router.partitions());
        RunWriter::new(&self.disk, &name, header)
    }

    /// Merges the candidate files of the level at `depth`, `fan_in` at a
    /// time (in parallel unless `threads` is 1), until at most `fan_in`
    /// are left, so that a settle never reads more at once than its share
    /// of the budget holds. A wide level under a small budget writes a
    /// hundred files or more (eleven's widest levels at two threads and
    /// `--memory-limit 24M`: about 190), and a settle that merged them
    /// in one pass held a block of each: 11 MiB over that limit.
    pub(super) fn compact(
        &self,
        mut files: Vec<RunFile<M::Key>>,
        depth: u32,
        threads: usize,
    ) -> Result<Vec<RunFile<M::Key>>, SpillError> {
        while files.len() > self.plan.fan_in {
            let groups: Vec<&[RunFile<M::Key>]> = files.chunks(self.plan.fan_in).collect();
            let merge = |group: &&[RunFile<M::Key>]| self.merge_candidates(group, depth);
            let merged: Vec<Result<RunFile<M::Key>, SpillError>> = groups
                .par_iter()
                .with_min_len(min_len(threads))
                .map(merge)
                .collect();
            files.into_iter().for_each(|f| self.disk.remove(f));
            files = self.all_or_none(merged)?;
        }
        Ok(files)
    }

    /// The files of parallel writes if every one succeeded; otherwise
    /// the first error, the files written removed.
    pub(super) fn all_or_none(
        &self,
        results: Vec<Result<RunFile<M::Key>, SpillError>>,
    ) -> Result<Vec<RunFile<M::Key>>, SpillError> {
        let mut files = Vec::with_capacity(results.len());
        let mut error = None;
        for r in results {
            match r {
                Ok(f) => files.push(f),
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        if let Some(e) = error {
            files.into_iter().for_each(|f| self.disk.remove(f));
            return Err(e);
        }
        Ok(files)
    }

    /// One candidate file with the keys of `group`, partition by
    /// partition, once each.
    pub(super) fn merge_candidates(
        &self,
        group: &[RunFile<M::Key>],
        depth: u32,
    ) -> Result<RunFile<M::Key>, SpillError> {
        let mut writer = self.candidate_writer(depth)?;
        // Another process's partitions were sent to it: none is settled here.
        for p in (0..self.router.partitions()).filter(|&p| !self.remote[p]) {
            let sources: Vec<Source<'_, M::Key>> = group
                .iter()
                .filter(|f| f.keys_in(p) > 0)
                .map(|f| Source::Disk(PartReader::new(f, p)))
                .collect();
            if !sources.is_empty() {
                writer.partition(p)?;
                merge_into(sources, &mut [], &mut writer)?;
            }
        }
        writer.finish()
    }
}
