//! Levels on disk: the [`Store`] over run files (see [`spill`](crate::engine::files)
//! for the files, their checksums and the checkpoint's manifest).
//!
//! A level is a list of files, each covering a contiguous range of
//! partitions; expanding reads its blocks in parallel; settling is one task
//! per group of partitions, each writing one file; each partition's
//! candidates (sorted runs in the workers' buffers, and candidate files
//! flushed when the buffers passed their budget) are merged as streams with
//! the partition's shares of the two previous levels.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;
use rayon::prelude::*;

use crate::engine::files::codec::{self, Coded};
use crate::engine::files::manifest::{self, Kept, Manifest};
use crate::engine::files::names::{remove_orphans, remove_own_temporaries};
use crate::engine::files::run::{Header, Kind, PartReader, RunFile, RunWriter, level_name};
use crate::engine::files::{Checkpoint, Disk, Spill, SpillError, digest};
use crate::engine::levels::Fault;
use crate::engine::levels::agree::{Exchange, Mail, Share};
use crate::engine::levels::workers::{
    EXPAND_BATCH, lock, my_slot, partition_count, per_worker, successors_of, successors_of_all,
};
use crate::engine::levels::{Finished, Mode, Start, Store};
use crate::engine::stores::sets::frontier::levels_alternate;
use crate::engine::stores::sets::partition::Router;
use crate::engine::stores::sets::visited::Visited;
use crate::engine::{Key, Model, StopReason, VisitedKind};

/// A report's last level is read back from disk when it has at most this
/// many keys (32 MiB); past that only its size is reported.
const LAST_LEVEL_MAX: u64 = 1 << 22;

/// What a merge holds for each candidate file it reads, a key's word at
/// a time: a decoded block (`BLOCK_KEYS / 4` keys) and at most as many
/// coded bytes.
const SOURCE_BYTES: u64 = (codec::BLOCK_KEYS / 4 * 8 * 2) as u64;

/// Memory a new state of the next level costs while the workers' buffers
/// fill, a key's word at a time: its candidates (about two), eight bytes
/// each, doubled by the buffers' growth, rounded up.
const CANDIDATE_BYTES: u64 = 64;

/// Successors looked up (a block read each) for a new one before a
/// depth limit settles the next level to know whether it cut the search
/// short.
const PROBES: usize = 64;

/// The fewest candidate files merged at once, however small the budget:
/// below it the passes over the candidates multiply for little memory.
const MIN_FAN_IN: usize = 8;

/// One worker's reusable buffers.
struct Worker<S, K> {
    state: S,
    successors: Vec<K>,
    /// Candidates for the next level, one buffer per partition.
    out: Vec<Vec<K>>,
    /// Keys in `out`.
    buffered: usize,
    /// A decoded block of the level being expanded.
    keys: Vec<K>,
    scratch: Vec<u8>,
}

/// A worker of a search of `M`.
type WorkerOf<M> = Worker<<M as Model>::State, <M as Model>::Key>;

/// Run files of a search of `M`.
type Files<M> = Vec<RunFile<<M as Model>::Key>>;

/// One level on disk: its run files in partition order.
struct Level<K> {
    files: Vec<RunFile<K>>,
}

impl<K: Key> Level<K> {
    fn file_of(&self, p: usize) -> &RunFile<K> {
        let i = self.files.partition_point(|f| f.covers().end as usize <= p);
        &self.files[i]
    }

    /// Every block, as (file, block) pairs: the units of a parallel pass.
    fn blocks(&self) -> Vec<(usize, usize)> {
        self.files
            .iter()
            .enumerate()
            .flat_map(|(f, file)| (0..file.block_count()).map(move |b| (f, b)))
            .collect()
    }

    fn names(&self) -> Vec<String> {
        self.files.iter().map(RunFile::name).collect()
    }

    /// Hands `f` the keys of every block in order, one block in memory at
    /// a time.
    fn each_block(&self, mut f: impl FnMut(&[K])) -> Result<(), SpillError> {
        let (mut scratch, mut keys) = (Vec::new(), Vec::new());
        for file in &self.files {
            for b in 0..file.block_count() {
                keys.clear();
                file.read_block(b, &mut scratch, &mut keys)?;
                f(&keys);
            }
        }
        Ok(())
    }
}

/// The first storage failure of a parallel step; once one is recorded the
/// other tasks skip their work. The flag is a hint read with `Relaxed`
/// (a task that misses it only does work that is thrown away); the error
/// itself is handed over under the mutex.
#[derive(Default)]
struct Failure {
    failed: AtomicBool,
    error: Mutex<Option<SpillError>>,
}

impl Failure {
    fn set(&self, e: SpillError) {
        self.failed.store(true, Ordering::Relaxed);
        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(e);
    }

    fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    fn take(self) -> Result<(), SpillError> {
        match self.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

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

/// How a search on disk spends its memory, decided when it starts.
struct Plan {
    /// A worker writes its candidates to disk when it holds this many.
    flush_at: usize,
    /// The most candidate files a merge reads at once.
    fan_in: usize,
    /// Runs under this many bytes stay in memory.
    memory_runs: usize,
    /// The process's memory at its most: what it held when the search
    /// started (with its bitmap), and all the plan may add.
    ceiling: u64,
}

impl Plan {
    /// The plan for keys of `words` words.
    fn new(
        spill: &Spill,
        memory_limit: Option<u64>,
        held: u64,
        (threads, partitions, words): (usize, usize, usize),
        cluster: bool,
    ) -> Plan {
        // Of a memory limit, what the process does not hold already, less
        // the fixed part; half of that is the budget.
        let overhead = crate::engine::levels::memory::disk_overhead(threads);
        let budget = spill
            .candidate_budget
            .or_else(|| memory_limit.map(|limit| limit.saturating_sub(held + overhead) / 2))
            .or_else(|| crate::engine::memory::headroom().map(|(room, _)| room / 4))
            .unwrap_or(1 << 29);
        // Across processes a fifth of it is the exchange's (a round's keys
        // out and in, the transport's copies, the column received).
        let budget = if cluster { budget / 5 * 4 } else { budget };
        // The budget is the workers' buffers: their keys, and room for
        // the buffers' growth by doubling.
        let key_bytes = 8 * words as u64;
        let flush_at = ((budget / key_bytes / 2) as usize / threads).max(1 << 16);
        // The merges of a settle take half as much again: one a group of
        // partitions at once, holding a decoded block and its coded bytes
        // for each source.
        let groups = threads.next_power_of_two().min(partitions) as u64;
        let fan_in = ((budget / 2 / groups / SOURCE_BYTES / words as u64) as usize).max(MIN_FAN_IN);
        // Runs kept in memory (levels under the disk's threshold) take at
        // most an eighth of it: those a search holds at once are each
        // group's file of the kept levels and of the one being settled
        // (all levels to rebuild a path, whose thin ones, growing, sum to
        // a few of the widest).
        let memory_runs = (budget / 8 / groups / 4) as usize;
        // What all that comes to at its most, with the buffers as large as
        // a worker's smallest flush makes them.
        let buffers = (flush_at * threads * 2) as u64 * key_bytes;
        Plan {
            flush_at,
            fan_in,
            memory_runs,
            ceiling: held + overhead + buffers + budget / 2 + budget / 8,
        }
    }
}

/// Where a search on disk begins.
pub(crate) enum Begin<'c, K = u64> {
    /// A new search from these keys (level 0).
    Sources(Vec<K>),
    /// The search saved in this checkpoint, from the last of its first
    /// `levels` levels (all of them alone; across processes, those every
    /// process saved).
    Resume(&'c Checkpoint, usize),
}

/// A search's levels on disk.
pub(crate) struct OnDisk<'a, M: Model> {
    model: &'a M,
    share: Share,
    /// Whether each partition is another process's.
    remote: Vec<bool>,
    spill: Spill,
    disk: Disk,
    /// Whether the directory is this process's in a cluster's (DIR/process-I).
    cluster: bool,
    router: Router,
    visited: Visited<M::Key>,
    frontier: bool,
    /// Frontier search whose levels alternate colours
    /// ([`levels_alternate`]): candidates are checked against the level
    /// before the newest only.
    bipartite: bool,
    digest: u64,
    workers: Vec<CachePadded<Mutex<WorkerOf<M>>>>,
    /// How the store spends its memory.
    plan: Plan,
    stop: Option<&'a AtomicBool>,
    /// Levels kept (0: all).
    keep: usize,
    /// The kept levels, oldest first; the newest is the frontier.
    kept: VecDeque<Level<M::Key>>,
    /// The settled level, until it is committed or discarded.
    pending: Option<Level<M::Key>>,
    /// incoming[p][w]: worker w's candidates for partition p; with other
    /// processes, a last column for the candidates they sent.
    incoming: Vec<Vec<Vec<M::Key>>>,
    manifest: Manifest,
    /// Buffers for looking a key up.
    scratch: (Vec<u8>, Vec<M::Key>),
}

impl<'a, M: Model> OnDisk<'a, M> {
    /// A search of `model` with its levels under `spill`'s directory:
    /// from `begin`'s sources, keeping what `mode` needs, with `kind` of
    /// visited set in `partitions` partitions (0: a few per worker); or
    /// from a checkpoint, whose mode, visited set and partitions it keeps.
    /// The candidates held in memory are bounded by half of
    /// `memory_limit` (or of the memory available).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn open(
        model: &'a M,
        share: Share,
        spill: &Spill,
        mode: Mode,
        kind: VisitedKind,
        threads: usize,
        partitions: usize,
        memory_limit: Option<u64>,
        stop: Option<&'a AtomicBool>,
        begin: Begin<'_, M::Key>,
    ) -> Result<(OnDisk<'a, M>, Start), Fault> {
        let identity = model.identity();
        let digest = digest(&identity);
        let resume = match &begin {
            Begin::Resume(cp, _) => Some(*cp),
            Begin::Sources(_) => None,
        };
        let kind = match resume {
            Some(cp) if cp.manifest.visited == "bitmap" => VisitedKind::Bitmap,
            Some(_) => VisitedKind::Frontier,
            None => kind,
        };
        // The process's memory with its bitmap whole: before the bitmap is
        // made, plus its bytes (resident at once or not: calloc'd, it
        // would be on resume; before, eleven resumed under 80M peaked at
        // 93 MiB), or after, if more.
        let before = crate::engine::memory::current_rss_bytes().unwrap_or(0);
        let visited = Visited::new(kind, model.key_space(), model.reversible(), threads);
        let after = crate::engine::memory::current_rss_bytes().unwrap_or(0);
        let held = before.saturating_add(visited.bytes()).max(after);
        let frontier = matches!(visited, Visited::Frontier);
        // Across processes each keeps its files in a directory of its own
        // (DIR/process-I), and the last to leave DIR empty removes it.
        let cluster = !share.alone();
        // (A resumed checkpoint's directory is already the process's own.)
        let spill = &if resume.is_none() {
            spill.of_process(share.me, share.processes)
        } else {
            spill.clone()
        };
        // A checkpoint is never written over, by a checkpointed run or a
        // spilled one (whose level files would replace its own).
        if resume.is_none() && Checkpoint::exists(&spill.dir) {
            return Err(SpillError::CheckpointExists {
                path: spill.dir.clone(),
            }
            .into());
        }
        let mut disk = Disk::new(spill)?;
        let partitions = match resume {
            Some(cp) => {
                let p = cp.manifest.partitions as usize;
                if !p.is_power_of_two() || p > crate::engine::MAX_PARTITIONS {
                    return Err(SpillError::Damaged {
                        path: cp.dir.join(manifest::NAME),
                        what: format!("{p} partitions is not a power of two up to 65536"),
                    }
                    .into());
                }
                p
            }
            None => partition_count(partitions, threads),
        };
        let router = Router::new(partitions);
        let plan = Plan::new(
            spill,
            memory_limit,
            held,
            (threads, partitions, M::Key::WORDS),
            cluster,
        );
        disk.cap_memory_runs(plan.memory_runs);
        let workers = per_worker(threads, || Worker {
            state: model.new_state(),
            successors: Vec::new(),
            out: vec![Vec::new(); partitions],
            buffered: 0,
            keys: Vec::new(),
            scratch: Vec::new(),
        });
        // Levels kept: all to rebuild a path (and, with a bitmap, to
        // rebuild the bitmap on resume); the last two for frontier search.
        // A checkpointed cluster keeps one level more: processes may be a
        // level apart when one dies, and all resume from the level every
        // one saved.
        let keep = match (mode, frontier, spill.checkpoint) {
            (Mode::Solve, _, _) | (_, false, true) => 0,
            (_, true, true) if cluster => 3,
            (_, true, _) => 2,
            (_, false, false) => 1,
        };
        let mut manifest = Manifest::begin(
            mode.name(),
            visited.kind().name(),
            partitions,
            &identity,
            &spill.record,
        );
        manifest.process = share.me as u32;
        manifest.processes = share.processes as u32;
        let columns = threads + usize::from(cluster);
        let mut store = OnDisk {
            model,
            share,
            remote: (0..partitions).map(|p| !share.owns(p)).collect(),
            spill: spill.clone(),
            disk,
            cluster,
            router,
            visited,
            frontier,
            bipartite: false,
            digest,
            workers,
            plan,
            stop,
            keep,
            kept: VecDeque::new(),
            pending: None,
            incoming: vec![vec![Vec::new(); columns]; partitions],
            manifest,
            scratch: (Vec::new(), Vec::new()),
        };
        let start = match begin {
            Begin::Resume(cp, levels) => store.resume(cp, levels)?,
            Begin::Sources(sources) => match store.level_zero(sources) {
                Ok(start) => start,
                Err(fault) => {
                    store.abandon();
                    return Err(fault);
                }
            },
        };
        // Level 0 is the set of starts (resumed: as it was saved).
        store.bipartite = frontier
            && start
                .levels
                .first()
                .is_some_and(|&n| levels_alternate(model, n));
        Ok((store, start))
    }

    /// Undoes a start that failed before its first level was whole: the
    /// files it wrote go, and so does the directory if the run made it.
    /// Nothing was saved that a resume could use.
    fn abandon(mut self) {
        // The manifest first (a new run's own: it refuses a directory that
        // holds one), as every removal does: a crash between leaves no
        // checkpoint, never one that names removed files.
        if self.spill.checkpoint {
            let _ = manifest::retire(&self.spill.dir);
            let _ = std::fs::remove_file(self.spill.dir.join(format!("{}.tmp", manifest::NAME)));
        }
        for level in std::mem::take(&mut self.kept) {
            level.files.into_iter().for_each(|f| self.disk.remove(f));
        }
        remove_own_temporaries(&self.spill.dir);
        self.disk.unlock();
        if self.disk.created() {
            let _ = std::fs::remove_dir(&self.spill.dir);
        }
    }

    /// Writes `sources` as level 0 (and, checkpointed, its manifest).
    fn level_zero(&mut self, mut sources: Vec<M::Key>) -> Result<Start, Fault> {
        let router = self.router;
        sources.sort_unstable_by_key(|&k| (router.route(k), k));
        sources.dedup();
        let mut writer = RunWriter::new(
            &self.disk,
            &level_name(0, 0),
            self.header(Kind::Level, 0, 0, router.partitions()),
        )?;
        let mut part = None;
        let all = sources.len() as u64;
        for &key in &sources {
            let p = router.route(key);
            if self.remote[p] {
                continue;
            }
            self.visited.insert(key);
            if part != Some(p) {
                writer.partition(p)?;
                part = Some(p);
            }
            writer.push(key)?;
        }
        let file = writer.finish()?;
        self.disk.count_level(&file);
        self.kept.push_back(Level { files: vec![file] });
        let levels = vec![all];
        if self.spill.checkpoint {
            // The run's name, which every process records alike.
            if let Some(run) = self.spill.run {
                self.manifest.run = format!("{run:016x}");
            }
            self.manifest.levels = levels.clone();
            self.manifest.kept = vec![Kept {
                depth: 0,
                files: self.kept[0].names(),
            }];
            self.disk.sync_dir()?;
            self.manifest.write(&self.disk)?;
        }
        Ok(Start {
            levels,
            seconds: 0.0,
        })
    }

    /// Takes up the levels that `cp` names, each file checked against the
    /// manifest and every block against its checksum.
    fn resume(&mut self, cp: &Checkpoint, agreed: usize) -> Result<Start, Fault> {
        let m = &cp.manifest;
        let partitions = self.router.partitions();
        let manifest_path = cp.dir.join(manifest::NAME);
        cp.check_identity(&self.manifest.identity)?;
        let n = self.share.processes;
        let mut levels = m.levels.clone();
        levels.truncate(agreed.max(1));
        // The run's record, with what the resume changes of it.
        self.manifest.record = m.record.clone();
        self.manifest.record.extend(self.spill.record.clone());
        self.manifest.run = m.run.clone();
        let last = levels.len() - 1;
        let mut named = Vec::new();
        for k in &m.kept {
            // A level past the one every process saved is settled again.
            if k.depth as usize > last {
                continue;
            }
            let mut files = Vec::new();
            let mut first = 0usize;
            for name in &k.files {
                let path = cp.dir.join(name);
                // Each file says which partitions it covers; the header
                // must agree with where it sits in the list.
                let count = count_of(name, &path, first, partitions)?;
                let file = RunFile::open(&path, &self.header(Kind::Level, k.depth, first, count))?;
                file.verify()?;
                self.disk.adopt(&file);
                first += count;
                files.push(file);
            }
            let keys: u64 = files.iter().map(RunFile::keys).sum();
            // Alone, a level's files hold the whole level; in a cluster
            // this process's share.
            if first != partitions || (n == 1 && levels.get(k.depth as usize) != Some(&keys)) {
                return Err(SpillError::Damaged {
                    path: manifest_path,
                    what: format!("its level {} does not match its files", k.depth),
                }
                .into());
            }
            named.push(k.clone());
            self.kept.push_back(Level { files });
        }
        remove_orphans(&cp.dir, &named);
        // The levels this search keeps, ending at the last complete one: a
        // frontier search resumed without level d-1 would count its keys
        // again.
        let needed = match self.keep {
            0 => levels.len(),
            keep => keep.min(2).min(levels.len()),
        };
        let depths: Vec<usize> = named.iter().map(|k| k.depth as usize).collect();
        let consecutive = depths.windows(2).all(|w| w[1] == w[0] + 1);
        if depths.last() != Some(&last) || depths.len() < needed || !consecutive {
            return Err(SpillError::Damaged {
                path: manifest_path,
                what: "it does not name the levels a resumed search needs".into(),
            }
            .into());
        }
        // The bitmap again, a block of keys at a time (a whole level read
        // at once would hold its keys beside the bitmap: 197 MiB to resume
        // eleven at depth 30, where the bitmap is 57).
        if !self.frontier {
            for level in &self.kept {
                level.each_block(|keys| {
                    for &key in keys {
                        self.visited.insert(key);
                    }
                })?;
            }
        }
        Ok(Start {
            levels,
            seconds: m.seconds,
        })
    }

    fn newest(&self) -> &Level<M::Key> {
        self.kept.back().expect("the newest level")
    }
}

impl<M: Model> Store<M::Key> for OnDisk<'_, M> {
    fn goals(&mut self, threads: usize) -> Result<Vec<M::Key>, Fault> {
        let failure = Failure::default();
        let found = Mutex::new(Vec::new());
        let model = self.model;
        self.for_each_block(self.newest(), threads, &failure, |w, keys| {
            let mut goals = Vec::new();
            for &key in keys {
                model.decode(key, &mut w.state);
                if model.is_goal(&w.state) {
                    goals.push(key);
                }
            }
            if !goals.is_empty() {
                lock(&found).extend(goals);
            }
            Ok(())
        });
        failure.take()?;
        Ok(found.into_inner().unwrap_or_else(|e| e.into_inner()))
    }

    fn contains(&mut self, key: M::Key) -> Result<bool, Fault> {
        let p = self.router.route(key);
        let (scratch, keys) = &mut self.scratch;
        let level = self.kept.back().expect("the newest level");
        Ok(!self.remote[p] && level.file_of(p).contains(p, key, scratch, keys)?)
    }

    fn settle_next(
        &mut self,
        depth: u32,
        _width: u64,
        threads: usize,
        exchange: &Exchange<'_>,
    ) -> Result<u64, Fault> {
        let mut candidates = self.expand(self.newest(), depth, threads)?;
        let mut incoming = std::mem::take(&mut self.incoming);
        // Transpose the workers' buffers into incoming[p][w].
        for (w, worker) in self.workers.iter().enumerate() {
            let mut worker = lock(worker);
            for (p, column) in incoming.iter_mut().enumerate() {
                std::mem::swap(&mut column[w], &mut worker.out[p]);
            }
            worker.buffered = 0;
        }
        if !self.share.alone()
            && let Err(e) = self.send_away(exchange, &mut incoming, &mut candidates, depth)
        {
            self.incoming = incoming;
            self.return_buffers();
            candidates.into_iter().for_each(|f| self.disk.remove(f));
            return Err(e);
        }
        let candidates = match self.compact(candidates, depth + 1, threads) {
            Ok(c) => c,
            Err(e) => {
                self.incoming = incoming;
                self.return_buffers();
                return Err(e.into());
            }
        };
        let current = self.newest();
        let previous = self.kept.len().checked_sub(2).map(|i| &self.kept[i]);
        let settled = self.settle(
            &mut incoming,
            &candidates,
            current,
            previous,
            depth + 1,
            threads,
        );
        self.incoming = incoming;
        self.return_buffers();
        candidates.into_iter().for_each(|f| self.disk.remove(f));
        let (files, width) = settled?;
        self.pending = Some(Level { files });
        Ok(width)
    }

    fn new_successors(
        &mut self,
        depth: u32,
        width: u64,
        threads: usize,
        exchange: &Exchange<'_>,
    ) -> Result<u64, Fault> {
        // Alone, a few successors looked up in the levels kept usually
        // find a new one at once (the 3x3x3 to depth 6 on disk settled
        // a level of 100 million candidates for this, 12 times the
        // search's own time); else the next level, settled and dropped:
        // at the true depth it is empty. Across processes only a
        // successor's owner knows whether it is new.
        if self.share.alone() && self.probe_new_successor()? {
            return Ok(1);
        }
        let share = self.settle_next(depth, width, threads, exchange)?;
        self.discard();
        Ok(share)
    }

    fn commit(&mut self, levels: &[u64], seconds: f64) -> Result<(), Fault> {
        let level = self.pending.take().expect("a settled level");
        level.files.iter().for_each(|f| self.disk.count_level(f));
        self.kept.push_back(level);
        let mut dropped = Vec::new();
        while self.keep > 0 && self.kept.len() > self.keep {
            dropped.push(self.kept.pop_front().expect("a kept level"));
        }
        if self.spill.checkpoint {
            let first_kept = levels.len() - self.kept.len();
            self.manifest.levels = levels.to_vec();
            self.manifest.seconds = seconds;
            self.manifest.kept = self
                .kept
                .iter()
                .enumerate()
                .map(|(i, l)| Kept {
                    depth: (first_kept + i) as u32,
                    files: l.names(),
                })
                .collect();
            // On failure the old manifest still names the dropped levels:
            // their files stay.
            self.disk.sync_dir()?;
            self.manifest.write(&self.disk)?;
        }
        for level in dropped {
            level.files.into_iter().for_each(|f| self.disk.remove(f));
        }
        Ok(())
    }

    fn discard(&mut self) {
        if let Some(level) = self.pending.take() {
            level.files.into_iter().for_each(|f| self.disk.remove(f));
        }
    }

    fn bytes_per_new_key(&self) -> u64 {
        0
    }

    fn next_level_bytes(&self, next: u64, rss: u64) -> u64 {
        // The workers' buffers grow with the candidates (about two a new
        // state, doubled by a buffer's growth) up to what is left of the
        // plan.
        let left = self.plan.ceiling.saturating_sub(rss);
        next.saturating_mul(CANDIDATE_BYTES).min(left)
    }

    fn last_level(&mut self, width: u64, _threads: usize) -> Result<Option<Vec<M::Key>>, Fault> {
        if width > LAST_LEVEL_MAX {
            return Ok(None);
        }
        Ok(Some(self.read_all(self.newest())?))
    }

    fn predecessor(
        &mut self,
        depth: u32,
        key: M::Key,
        _threads: usize,
    ) -> Result<Option<M::Key>, Fault> {
        let level = &self.kept[depth as usize];
        Ok(self.predecessor_in(level, key)?)
    }

    fn fault(&self, e: Fault) -> StopReason {
        let e = match e {
            Fault::Storage(e) => e,
            Fault::Peer(e) => return StopReason::Cluster(e.to_string()),
        };
        let checkpoint = self.spill.checkpoint.then_some(self.spill.dir.as_path());
        StopReason::Storage(manifest::fault_text(&e, checkpoint))
    }

    fn finish(mut self, stopped: bool) -> Finished {
        self.discard();
        let disk = self.disk.usage();
        let keep_files =
            self.spill.keep || (self.spill.checkpoint && (stopped || self.spill.leave));
        if !keep_files {
            if self.spill.checkpoint {
                let _ = manifest::retire(&self.spill.dir);
            }
            for level in std::mem::take(&mut self.kept) {
                level.files.into_iter().for_each(|f| self.disk.remove(f));
            }
        }
        // The lock goes after the files, so that no other run takes the
        // directory while they are being removed.
        self.disk.unlock();
        if !keep_files {
            // A directory this search made, or a checkpoint's, goes too if
            // nothing else is in it.
            if self.disk.created() || self.spill.checkpoint {
                let _ = std::fs::remove_dir(&self.spill.dir);
            }
            if self.cluster
                && (self.disk.created() || self.spill.checkpoint)
                && let Some(parent) = self.spill.dir.parent()
            {
                let _ = std::fs::remove_dir(parent);
            }
        }
        Finished {
            visited: self.visited.kind(),
            partitions: self.router.partitions(),
            disk: Some(disk),
        }
    }
}

impl<M: Model> OnDisk<'_, M> {
    fn header(&self, kind: Kind, depth: u32, first: usize, count: usize) -> Header {
        Header {
            kind,
            words: M::Key::WORDS as u32,
            digest: self.digest,
            depth,
            partitions: self.router.partitions() as u32,
            first: first as u32,
            count: count as u32,
        }
    }

    /// Whether one of the first [`PROBES`] successors of the newest
    /// level is new: in no level that a frontier search checks, or not
    /// in the visited set. False says nothing.
    fn probe_new_successor(&mut self) -> Result<bool, SpillError> {
        let model = self.model;
        let mut state = model.new_state();
        let (mut successors, mut scratch, mut keys, mut block) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let newest = self.newest();
        let previous = self.kept.len().checked_sub(2).map(|i| &self.kept[i]);
        let checked: Vec<&Level<M::Key>> = Some(newest)
            .filter(|_| !self.bipartite)
            .into_iter()
            .chain(previous)
            .collect();
        let mut probes = 0;
        for file in &newest.files {
            for b in 0..file.block_count() {
                block.clear();
                file.read_block(b, &mut scratch, &mut block)?;
                for &key in &block {
                    for &next in successors_of(model, &mut state, &mut successors, key) {
                        let seen = if self.frontier {
                            let p = self.router.route(next);
                            let mut seen = false;
                            for level in &checked {
                                seen = seen
                                    || level.file_of(p).contains(
                                        p,
                                        next,
                                        &mut scratch,
                                        &mut keys,
                                    )?;
                            }
                            seen
                        } else {
                            self.visited.contains(next)
                        };
                        if !seen {
                            return Ok(true);
                        }
                        probes += 1;
                        if probes == PROBES {
                            return Ok(false);
                        }
                    }
                }
            }
        }
        Ok(false)
    }

    fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Runs `f` on every block of `level` (in parallel unless `threads` is
    /// 1) with the running worker's buffers and the block's keys.
    fn for_each_block(
        &self,
        level: &Level<M::Key>,
        threads: usize,
        failure: &Failure,
        f: impl Fn(&mut Worker<M::State, M::Key>, &[M::Key]) -> Result<(), SpillError> + Sync,
    ) {
        let tasks = level.blocks();
        let body = |&(file, block): &(usize, usize)| {
            if failure.failed() || self.stopped() {
                return;
            }
            let mut w = lock(my_slot(&self.workers));
            let mut keys = std::mem::take(&mut w.keys);
            keys.clear();
            let read = level.files[file].read_block(block, &mut w.scratch, &mut keys);
            let result = read.and_then(|()| f(&mut w, &keys));
            w.keys = keys;
            if let Err(e) = result {
                failure.set(e);
            }
        };
        if threads == 1 {
            tasks.iter().for_each(body);
        } else {
            tasks.par_iter().for_each(body);
        }
    }

    /// Expands `level` (at `depth`) into the workers' buffers, and into the
    /// candidate files returned where the buffers overflowed.
    fn expand(
        &self,
        level: &Level<M::Key>,
        depth: u32,
        threads: usize,
    ) -> Result<Vec<RunFile<M::Key>>, SpillError> {
        let failure = Failure::default();
        let flushed = Mutex::new(Vec::new());
        let (model, router, visited, frontier, remote) = (
            self.model,
            self.router,
            &self.visited,
            self.frontier,
            &self.remote[..],
        );
        self.for_each_block(level, threads, &failure, |w, keys| {
            let Worker {
                state,
                successors,
                out,
                buffered,
                ..
            } = w;
            for batch in keys.chunks(EXPAND_BATCH) {
                for &next in successors_of_all(model, state, successors, batch) {
                    // A bitmap knows only this process's keys: another
                    // process's go to their owner, which filters them.
                    let p = router.route(next);
                    if frontier || remote[p] || visited.insert(next) {
                        out[p].push(next);
                        *buffered += 1;
                    }
                }
            }
            if w.buffered >= self.plan.flush_at {
                let file = self.flush(w, depth + 1)?;
                flushed.lock().unwrap_or_else(|e| e.into_inner()).push(file);
            }
            Ok(())
        });
        let flushed = flushed.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = failure.take() {
            flushed.into_iter().for_each(|f| self.disk.remove(f));
            return Err(e);
        }
        Ok(flushed)
    }

    /// Writes a worker's buffers as one candidate file, each partition's
    /// keys sorted and distinct, and empties them.
    fn flush(
        &self,
        w: &mut Worker<M::State, M::Key>,
        depth: u32,
    ) -> Result<RunFile<M::Key>, SpillError> {
        let file = self.write_candidates(w.out.iter_mut().enumerate(), depth)?;
        w.buffered = 0;
        Ok(file)
    }

    /// Settles the next level (`depth`) from the workers' buffers and the
    /// candidate files, against `current` and `previous` under frontier
    /// search: one task per group of partitions, each writing one file.
    fn settle(
        &self,
        incoming: &mut [Vec<Vec<M::Key>>],
        candidates: &[RunFile<M::Key>],
        current: &Level<M::Key>,
        previous: Option<&Level<M::Key>>,
        depth: u32,
        threads: usize,
    ) -> Result<(Files<M>, u64), SpillError> {
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
                if self.frontier {
                    let current = Some(current).filter(|_| !self.bipartite);
                    for level in current.into_iter().chain(previous) {
                        let file = level.file_of(part);
                        if file.keys_in(part) > 0 {
                            let mut reader = PartReader::new(file, part);
                            let head = reader.next_key()?;
                            prev.push(Previous { reader, head });
                        }
                    }
                }
                merge_into(sources, &mut prev, &mut writer)?;
                for run in runs.iter_mut() {
                    run.clear();
                }
            }
            writer.finish()
        };
        let results: Vec<Result<RunFile<M::Key>, SpillError>> = if threads == 1 {
            incoming
                .chunks_mut(per_group)
                .enumerate()
                .map(settle_group)
                .collect()
        } else {
            incoming
                .par_chunks_mut(per_group)
                .enumerate()
                .map(settle_group)
                .collect()
        };
        let files = self.all_or_none(results)?;
        let width = files.iter().map(RunFile::keys).sum();
        Ok((files, width))
    }

    /// Every key of `level`, in partition order.
    fn read_all(&self, level: &Level<M::Key>) -> Result<Vec<M::Key>, SpillError> {
        let mut all = Vec::new();
        level.each_block(|keys| all.extend_from_slice(keys))?;
        Ok(all)
    }

    /// Sends the candidates for other processes' partitions (in the
    /// workers' buffers, transposed into `incoming`, and in the candidate
    /// files) to their owners, and takes those they sent (that the bitmap,
    /// if any, has not seen) into the last column of this process's
    /// partitions. The exchange runs in rounds of a bounded number of keys,
    /// and the column goes to a candidate file of its own (added to
    /// `candidates`) whenever it holds a worker's worth: a wide level's
    /// keys for others never sit in memory whole, here or at their owner.
    fn send_away(
        &self,
        exchange: &Exchange<'_>,
        incoming: &mut [Vec<Vec<M::Key>>],
        candidates: &mut Vec<RunFile<M::Key>>,
        depth: u32,
    ) -> Result<(), Fault> {
        let n = self.share.processes;
        let mut queue = vec![VecDeque::new(); n];
        for (p, &remote) in self.remote.iter().enumerate() {
            if remote {
                for (c, file) in candidates.iter().enumerate() {
                    if file.keys_in(p) > 0 {
                        queue[self.share.owner(p)].push_back((c, p));
                    }
                }
            }
        }
        let mut post = Post {
            store: self,
            depth,
            incoming,
            files: candidates,
            next_part: vec![0; n],
            queue,
            reading: (0..n).map(|_| None).collect(),
            held: 0,
            hold: (self.plan.flush_at / 8).max(1 << 12),
            received: Vec::new(),
        };
        // A round's keys out and in, the transport's copies of them and
        // the column held come to about half a worker's buffer: the
        // workers' buffers keep their memory through the exchange, and
        // all of it fits the fifth of the budget kept for it. `count
        // eleven --spill D --memory-limit 200M` on 2 ranks x 1 worker,
        // peak RSS a rank: 421 MiB with one exchange a level, 231-235 MiB
        // in rounds of half a buffer, 197-203 MiB in rounds of an eighth,
        // 187-188 MiB with the fifth kept (alone: 118 MiB; an idle MPI
        // rank: 22 MiB).
        let round = (self.plan.flush_at / 8 / (n - 1).max(1)).max(1 << 12);
        let sent = exchange
            .rounds(round, &mut post)
            .and_then(|()| post.write_held().map_err(Fault::from));
        let received = std::mem::take(&mut post.received);
        candidates.extend(received);
        sent
    }

    /// Writes `buffers` (partition, keys: each sorted and made distinct
    /// here, and emptied) as one candidate file of the level at `depth`.
    fn write_candidates<'b>(
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
    fn candidate_writer(&self, depth: u32) -> Result<RunWriter<'_, M::Key>, SpillError> {
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
    fn compact(
        &self,
        mut files: Vec<RunFile<M::Key>>,
        depth: u32,
        threads: usize,
    ) -> Result<Vec<RunFile<M::Key>>, SpillError> {
        while files.len() > self.plan.fan_in {
            let groups: Vec<&[RunFile<M::Key>]> = files.chunks(self.plan.fan_in).collect();
            let merge = |group: &&[RunFile<M::Key>]| self.merge_candidates(group, depth);
            let merged: Vec<Result<RunFile<M::Key>, SpillError>> = if threads == 1 {
                groups.iter().map(merge).collect()
            } else {
                groups.par_iter().map(merge).collect()
            };
            files.into_iter().for_each(|f| self.disk.remove(f));
            files = self.all_or_none(merged)?;
        }
        Ok(files)
    }

    /// The files of parallel writes if every one succeeded; otherwise
    /// the first error, the files written removed.
    fn all_or_none(
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
    fn merge_candidates(
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

    /// Gives the workers their buffers back, empty, with their capacity.
    fn return_buffers(&mut self) {
        for (w, worker) in self.workers.iter().enumerate() {
            let mut worker = lock(worker);
            for (p, column) in self.incoming.iter_mut().enumerate() {
                column[w].clear();
                std::mem::swap(&mut column[w], &mut worker.out[p]);
            }
        }
    }

    /// The smallest key of this process's share of `level` that has
    /// `key` as a successor.
    fn predecessor_in(
        &self,
        level: &Level<M::Key>,
        key: M::Key,
    ) -> Result<Option<M::Key>, SpillError> {
        let model = self.model;
        let mut state = model.new_state();
        let (mut successors, mut scratch, mut keys) = (Vec::new(), Vec::new(), Vec::new());
        let mut found = None;
        if model.reversible() {
            let candidates = successors_of(model, &mut state, &mut successors, key).to_vec();
            for k in candidates {
                let p = self.router.route(k);
                if found.is_none_or(|f| k < f)
                    && !self.remote[p]
                    && level.file_of(p).contains(p, k, &mut scratch, &mut keys)?
                {
                    found = Some(k);
                }
            }
            return Ok(found);
        }
        let mut block = Vec::new();
        for file in &level.files {
            for b in 0..file.block_count() {
                block.clear();
                file.read_block(b, &mut scratch, &mut block)?;
                for &k in &block {
                    if found.is_none_or(|f| k < f)
                        && successors_of(model, &mut state, &mut successors, k).contains(&key)
                    {
                        found = Some(k);
                    }
                }
            }
        }
        Ok(found)
    }
}

/// The disk store's side of an exchange (see [`OnDisk::send_away`]).
struct Post<'s, 'a, M: Model> {
    store: &'s OnDisk<'a, M>,
    depth: u32,
    /// incoming[p][w]: the workers' candidates by partition; the last
    /// column of this process's partitions takes what others send.
    incoming: &'s mut [Vec<Vec<M::Key>>],
    /// The candidate files of the level so far.
    files: &'s [RunFile<M::Key>],
    /// Per process: the next of its partitions whose buffered runs to send.
    next_part: Vec<usize>,
    /// Per process: the (candidate file, partition) shares still to read.
    queue: Vec<VecDeque<(usize, usize)>>,
    /// Per process: the share being read.
    reading: Vec<Option<PartReader<'s, M::Key>>>,
    /// Keys in the last column.
    held: usize,
    /// The most keys the last column holds before it is written.
    hold: usize,
    /// The files the last column was written to.
    received: Vec<RunFile<M::Key>>,
}

impl<M: Model> Post<'_, '_, M> {
    /// Writes the last column, if it holds any keys, as a candidate file.
    fn write_held(&mut self) -> Result<(), SpillError> {
        if self.held == 0 {
            return Ok(());
        }
        let store = self.store;
        let columns = self
            .incoming
            .iter_mut()
            .enumerate()
            .filter(|(p, _)| !store.remote[*p])
            .filter_map(|(p, runs)| runs.last_mut().map(|last| (p, last)));
        let file = store.write_candidates(columns, self.depth)?;
        self.received.push(file);
        self.held = 0;
        Ok(())
    }
}

impl<M: Model> Mail<M::Key> for Post<'_, '_, M> {
    fn next_for(&mut self, to: usize, out: &mut Vec<M::Key>, max: usize) -> Result<bool, Fault> {
        let store = self.store;
        let partitions = store.router.partitions();
        // The buffered runs first, taken from their ends.
        while self.next_part[to] < partitions && out.len() < max {
            let p = self.next_part[to];
            if !store.remote[p] || store.share.owner(p) != to {
                self.next_part[to] += 1;
                continue;
            }
            let Some(run) = self.incoming[p].iter_mut().find(|r| !r.is_empty()) else {
                self.next_part[to] += 1;
                continue;
            };
            let take = run.len().min(max - out.len());
            out.extend(run.drain(run.len() - take..));
        }
        // Then the candidate files' shares, a reader at a time.
        while out.len() < max {
            if self.reading[to].is_none() {
                let Some((c, p)) = self.queue[to].pop_front() else {
                    break;
                };
                self.reading[to] = Some(PartReader::new(&self.files[c], p));
            }
            let reader = self.reading[to].as_mut().expect("a reader");
            match reader.next_key()? {
                Some(key) => out.push(key),
                None => self.reading[to] = None,
            }
        }
        Ok(self.next_part[to] < partitions
            || self.reading[to].is_some()
            || !self.queue[to].is_empty())
    }

    fn arrived(&mut self, keys: Vec<M::Key>) -> Result<(), Fault> {
        let store = self.store;
        for key in keys {
            let p = store.router.route(key);
            if store.visited.insert(key)
                && let Some(last) = self.incoming[p].last_mut()
            {
                last.push(key);
                self.held += 1;
            }
        }
        if self.held >= self.hold {
            self.write_held()?;
        }
        Ok(())
    }
}

/// How many partitions the file `name` of a checkpoint covers: read from
/// its header, and checked against where it sits (starting at `first`).
fn count_of(
    name: &str,
    path: &std::path::Path,
    first: usize,
    partitions: usize,
) -> Result<usize, SpillError> {
    let bad = |what: &str| SpillError::Damaged {
        path: path.to_path_buf(),
        what: what.to_string(),
    };
    if name.contains('/') || name.contains("..") {
        return Err(bad("the manifest names a file outside the checkpoint"));
    }
    let (start, count) = crate::engine::files::run::covered(path)?;
    if start != first || count == 0 || first + count > partitions {
        return Err(bad("it covers other partitions than the manifest says"));
    }
    Ok(count)
}
