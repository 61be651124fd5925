//! Levels on disk: the [`Store`] over run files (see [`spill`](crate::engine::files)
//! for the files, their checksums and the checkpoint's manifest).
//!
//! A level is a list of files, each covering a contiguous range of
//! partitions; expanding reads its blocks in parallel; settling is one task
//! per group of partitions, each writing one file; each partition's
//! candidates (sorted runs in the workers' buffers, and candidate files
//! flushed when the buffers passed their budget) are merged as streams with
//! the partition's shares of the two previous levels.

mod exchange;
mod expand;
mod level;
mod merge;
mod plan;

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
    Route, lock, min_len, my_slot, partition_count, per_worker, successors_of,
};
use crate::engine::levels::{Finished, Mode, Sizes, Start, Store};
use crate::engine::stores::sets::frontier::levels_alternate;
use crate::engine::stores::sets::partition::Router;
use crate::engine::stores::sets::visited::Visited;
use crate::engine::{Key, Model, StopReason, VisitedKind};

use level::{Failure, Files, Level, Worker, WorkerOf};
use plan::{CANDIDATE_BYTES, Plan};

/// A report's last level is read back from disk when it has at most this
/// many keys (32 MiB); past that only its size is reported.
const LAST_LEVEL_MAX: u64 = 1 << 22;

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
        if resume.is_none() && !spill.in_memory && Checkpoint::exists(&spill.dir) {
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
        if !self.spill.in_memory {
            remove_own_temporaries(&self.spill.dir);
        }
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
        Ok(Start::new(all))
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
        // A search of classes weighed every level after the first
        // (level 0 alone is weighed again).
        let positions = match (self.model.classes(), levels.len()) {
            (false, _) | (true, 1) => None,
            (true, n) => match m.positions.get(..n) {
                Some(p) => Some(p.to_vec()),
                None => {
                    return Err(SpillError::Damaged {
                        path: manifest_path,
                        what:
                            "it gives the keys of its levels but not the positions they stand for"
                                .into(),
                    }
                    .into());
                }
            },
        };
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
            positions,
            seconds: m.seconds,
        })
    }

    fn newest(&self) -> &Level<M::Key> {
        self.kept.back().expect("the newest level")
    }

    /// The levels a key of the next level is in none of, under frontier
    /// search: the newest (unless levels alternate colours, when a
    /// successor is never of the newest level's colour) and the one
    /// before. None with a visited set, which knows what was seen.
    fn checked_levels(&self) -> Vec<&Level<M::Key>> {
        if !self.frontier {
            return Vec::new();
        }
        let newest = self.kept.back().filter(|_| !self.bipartite);
        let before = self.kept.len().checked_sub(2).map(|i| &self.kept[i]);
        newest.into_iter().chain(before).collect()
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
        let settled = self.settle(&mut incoming, &candidates, depth + 1, threads);
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

    fn commit(&mut self, sizes: &Sizes, seconds: f64) -> Result<(), Fault> {
        let levels = &sizes.keys;
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
            self.manifest.positions = sizes.positions.clone().unwrap_or_default();
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
        // Levels on disk cost no memory a key. Held in memory, a key costs
        // its coded bytes in the level, and the candidates that settle
        // into it (about one and a half a new state: the 3x3x3's level 7
        // has 137 million successors for 101 million new states) their
        // coded bytes once the workers' buffers pass their budget.
        if self.disk.in_memory() {
            self.coded_bytes_per_key() * 5 / 2
        } else {
            0
        }
    }

    fn classes(&self) -> bool {
        self.model.classes()
    }

    fn positions(&mut self, next: bool, threads: usize) -> Result<u64, Fault> {
        let level = if next {
            self.pending.as_ref().expect("a settled level")
        } else {
            self.newest()
        };
        let failure = Failure::default();
        let sum = AtomicU64::new(0);
        let model = self.model;
        self.for_each_block(level, threads, &failure, |_, keys| {
            let positions = crate::engine::stores::memory::weigh(model, keys);
            // Relaxed: a sum read after the parallel loop has joined.
            sum.fetch_add(positions, Ordering::Relaxed);
            Ok(())
        });
        failure.take()?;
        Ok(sum.into_inner())
    }

    fn next_level_bytes(&self, next: u64, rss: u64) -> u64 {
        // The workers' buffers grow with the candidates (about two a new
        // state, doubled by a buffer's growth) up to what is left of the
        // plan. Levels held in memory add their coded keys and candidates
        // too: the 3x3x3's level 7 added 1.45 GiB, where this says 1.9.
        let left = self.plan.ceiling.saturating_sub(rss);
        if self.disk.in_memory() {
            let buffers = next.saturating_mul(12 * M::Key::WORDS as u64).min(left);
            return next
                .saturating_mul(self.bytes_per_new_key())
                .saturating_add(buffers);
        }
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
        let in_memory = self.disk.in_memory();
        Finished {
            visited: self.visited.kind(),
            partitions: self.router.partitions(),
            coded: in_memory.then_some(disk.bytes_per_key).filter(|&b| b > 0.0),
            disk: (!in_memory).then_some(disk),
        }
    }
}

impl<M: Model> OnDisk<'_, M> {
    /// Bytes a key takes in the level runs written so far (before the
    /// first, an estimate: half its words, and a byte).
    fn coded_bytes_per_key(&self) -> u64 {
        let measured = self.disk.usage().bytes_per_key;
        if measured > 0.0 {
            measured.ceil() as u64
        } else {
            4 * M::Key::WORDS as u64 + 1
        }
    }

    fn header(&self, kind: Kind, depth: u32, first: usize, count: usize) -> Header {
        Header {
            kind,
            digest: self.digest,
            depth,
            partitions: self.router.partitions() as u32,
            first: first as u32,
            count: count as u32,
        }
    }

    /// Every key of `level`, in partition order.
    fn read_all(&self, level: &Level<M::Key>) -> Result<Vec<M::Key>, SpillError> {
        let mut all = Vec::new();
        level.each_block(|keys| all.extend_from_slice(keys))?;
        Ok(all)
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
