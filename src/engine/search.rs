//! The level-synchronous parallel breadth-first search.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crossbeam_utils::CachePadded;
use rayon::prelude::*;

use super::frontier::sort_keys;
use super::memory;
use super::partition::{MAX_PARTITIONS, Partition, Router, Settle};
use super::spill::{Checkpoint, Spill};
use super::visited::{BITMAP_HARD_MAX_KEYS, Visited, resolve};
use super::{Model, Outcome, Progress, Report, StopReason, VisitedKind};

/// Levels with fewer states than this are expanded on one thread: a rayon
/// fork/join costs microseconds, as much as a hundred expansions (pe766 has
/// 1369 levels, 936 of them under 1000 states). pe766 at 2 threads, five
/// runs each, wall seconds: 128: 0.63-0.71, 512: 0.66-0.74, 2048: 0.71-0.75.
pub(crate) const SEQUENTIAL_BELOW: usize = 128;

/// Errors that keep a search from starting.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The worker pool could not be built.
    #[error("could not start {threads} worker threads: {source}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// Why rayon refused.
        source: rayon::ThreadPoolBuildError,
    },
    /// A bitmap visited set was asked for on a key space too large for one.
    #[error(
        "the bitmap visited set needs one bit per possible key, and this puzzle has {key_space} keys (the bitmap takes at most {max})\n  help: leave out --visited (the automatic choice), or use --visited dashmap"
    )]
    BitmapTooLarge {
        /// The model's key space.
        key_space: u64,
        /// The largest key space a bitmap takes.
        max: u64,
    },
    /// The partition count is not a power of two up to [`MAX_PARTITIONS`].
    #[error("the partition count must be a power of two from 1 to {max}, not {partitions}")]
    Partitions {
        /// The count asked for.
        partitions: usize,
        /// The largest count accepted.
        max: usize,
    },
    /// Frontier search was asked for on a model whose moves are not all
    /// reversible.
    #[error(
        "frontier search needs moves that can be undone, and this puzzle's cannot\n  help: leave out --visited (the automatic choice), or use --visited dashmap or bitmap"
    )]
    NotReversible,
    /// `solve` was asked of a model without a goal.
    #[error("this puzzle has no goal to solve for")]
    NoGoal,
    /// A checkpoint was asked for on a model without an identity.
    #[error(
        "this puzzle cannot be checkpointed: its model gives no identity to check a checkpoint against"
    )]
    NoIdentity,
    /// Spilling was asked for where a hash set would hold every key in memory.
    #[error(
        "--spill needs frontier search (moves that can be undone) or a key space small enough for a bitmap; this puzzle needs a hash set that holds every state in memory"
    )]
    SpillNeedsFrontier,
    /// Spilling was asked of a search that does not support it.
    #[error("{0} does not keep its levels on disk; leave out --spill and --checkpoint")]
    SpillUnsupported(&'static str),
    /// The spill directory or a checkpoint failed before the search began.
    #[error(transparent)]
    Spill(#[from] crate::engine::spill::SpillError),
    /// A checkpoint was written by another kind of search.
    #[error("{0}")]
    Checkpoint(String),
}

/// A breadth-first search over a [`Model`], configured by a builder:
///
/// ```
/// use reach::engine::Search;
/// use reach::puzzles::builtin;
///
/// let puzzle = builtin::sliding("pe766-example").unwrap();
/// let report = Search::new(&puzzle).threads(2).count().unwrap();
/// assert_eq!(report.states(), 208);
/// assert_eq!(report.depth(), 22);
/// ```
#[must_use]
pub struct Search<'a, M: Model> {
    pub(crate) model: &'a M,
    threads: usize,
    pub(crate) partitions: usize,
    pub(crate) visited: VisitedKind,
    pub(crate) max_states: Option<u64>,
    pub(crate) max_depth: Option<u32>,
    pub(crate) memory_limit: Option<u64>,
    memory_guard: bool,
    pub(crate) stop: Option<&'a AtomicBool>,
    progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    spill: Option<Spill>,
}

/// What [`Search::hardest`] found.
#[derive(Clone, Debug)]
pub struct Hardest {
    /// States in the start's component.
    pub component: u64,
    /// Goal states in the component (0: no goal can be reached).
    pub goal_states: u64,
    /// The largest distance from a position of the component to its
    /// nearest goal position.
    pub distance: u32,
    /// The positions at that distance, sorted by key.
    pub positions: Vec<u64>,
    /// The start's distance to its nearest goal position.
    pub start_distance: Option<u32>,
    /// The report of the search from the goals (its levels: how many
    /// positions lie at each distance from the goal; its last level moved
    /// into `positions`), or of the count of the component when that was
    /// cut short or found no goal.
    pub report: Report,
}

/// The newest complete level, with what a pass over it needs: the
/// partitions (each one's share of the level is its frontier), the workers'
/// slots, and the threads to use (one for a thin level).
struct LevelView<'v, M: Model> {
    depth: u32,
    parts: &'v [Partition],
    slots: &'v Slots<M::State>,
    router: Router,
    threads: usize,
    model: &'v M,
    /// Which part of the level a pass covers: (b, k) is the b-th of k
    /// equal slices of every partition's share ((0, 1): all of it).
    batch: (usize, usize),
}

impl<M: Model> LevelView<'_, M> {
    /// Whether `key` is in this level.
    fn contains(&self, key: u64) -> bool {
        self.parts[self.router.route(key)].frontier().contains(&key)
    }

    /// The length of a chunk for a parallel pass over the level: about 16
    /// chunks per worker, so that uneven chunks even out, and not so small
    /// that taking a slot dominates.
    ///
    /// At most 2^13 states, under a millisecond of work: a pass ends when
    /// its last chunk does, while the other workers wait. With chunks of
    /// up to 2^16 states, `count eleven` at 2 threads left its workers
    /// idle for 1.2 s of the 22 s of worker time its expanding took (over
    /// its ~170 passes); with 2^13, 0.3-0.4 s (timed per pass and per
    /// chunk, not kept).
    fn chunk_len(&self) -> usize {
        let width: usize = self.parts.iter().map(|p| self.share(p).len()).sum();
        (width / (self.threads * 16)).clamp(64, 1 << 13)
    }

    /// The part of `part`'s share of the level that this pass covers.
    fn share<'p>(&self, part: &'p Partition) -> &'p [u64] {
        let (b, k) = self.batch;
        let all = part.frontier();
        &all[all.len() * b / k..all.len() * (b + 1) / k]
    }

    /// Runs `f` over chunks of the level, on the calling thread when there
    /// is one worker, in parallel otherwise (chunks of all partitions are
    /// stolen freely); the smallest of the results.
    fn min_over_chunks<R: Ord + Send>(
        &self,
        f: impl Fn(&mut Slot<M::State>, &[u64]) -> Option<R> + Sync + Send,
    ) -> Option<R> {
        let slots = self.slots;
        let f = |chunk: &[u64]| f(&mut lock(my_slot(slots)), chunk);
        if self.threads == 1 {
            self.parts.iter().filter_map(|p| f(self.share(p))).min()
        } else {
            let len = self.chunk_len();
            self.parts
                .par_iter()
                .flat_map(|p| self.share(p).par_chunks(len))
                .filter_map(f)
                .min()
        }
    }

    /// Expands the level: each worker decodes keys, generates their
    /// successors and appends each one that `visited` had not seen (all of
    /// them, under frontier search) to its own buffer for the successor's
    /// partition. A raised `stop` flag abandons the level (the caller drops
    /// it).
    fn expand(&self, visited: &Visited, stop: Option<&AtomicBool>) {
        let (model, router) = (self.model, self.router);
        // Frontier search and owned bitmaps take every successor as a
        // candidate and never ask the visited set (whose answer would
        // always be yes).
        let every = matches!(visited, Visited::Frontier | Visited::Owned);
        self.min_over_chunks(|slot, chunk| {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return None::<()>;
            }
            let Slot {
                state,
                successors,
                out,
            } = slot;
            for &key in chunk {
                for &next in successors_of(model, state, successors, key) {
                    if every || visited.insert(next) {
                        out[router.route(next)].push(next);
                    }
                }
            }
            None
        });
    }

    /// Whether some state of the level has a successor the search has not
    /// seen: a look at the next level that keeps none of it.
    fn has_new_successor(&self, visited: &Visited) -> bool {
        let (model, parts, router) = (self.model, self.parts, self.router);
        let partitions_know = matches!(visited, Visited::Frontier | Visited::Owned);
        self.min_over_chunks(|slot, chunk| {
            let Slot {
                state, successors, ..
            } = slot;
            chunk.iter().find_map(|&key| {
                successors_of(model, state, successors, key)
                    .iter()
                    .any(|&next| {
                        if partitions_know {
                            !parts[router.route(next)].has_seen(next)
                        } else {
                            !visited.contains(next)
                        }
                    })
                    .then_some(())
            })
        })
        .is_some()
    }

    /// The goal states of this level.
    fn goals(&self) -> Vec<u64> {
        let (model, slots) = (self.model, self.slots);
        let scan = |chunk: &[u64]| -> Vec<u64> {
            let mut slot = lock(my_slot(slots));
            chunk
                .iter()
                .copied()
                .filter(|&key| {
                    model.decode(key, &mut slot.state);
                    model.is_goal(&slot.state)
                })
                .collect()
        };
        if self.threads == 1 {
            self.parts.iter().flat_map(|p| scan(p.frontier())).collect()
        } else {
            let len = self.chunk_len();
            self.parts
                .par_iter()
                .flat_map(|p| p.frontier().par_chunks(len))
                .flat_map_iter(scan)
                .collect()
        }
    }
}

/// A shortest path found by [`Search::solve`].
#[derive(Clone, Debug)]
pub struct Solution {
    /// The search's report (its outcome is [`Outcome::Goal`] when a path was found).
    pub report: Report,
    /// The keys from the start to a goal, both included; `None` when no goal
    /// was reached.
    pub path: Option<Vec<u64>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Count,
    FindGoal,
    Solve,
}

/// Partitions per worker by default: enough for the partitions' settle
/// tasks to even out between workers. More cost a little: each worker
/// appends to one more buffer, and each partition's settle is a task.
/// `count eleven --max-depth 30` at one thread, three runs each, wall
/// seconds: 1 partition 6.1-7.7, 8: 6.7-7.4, 16: 7.3-8.3.
const PARTITIONS_PER_THREAD: usize = 4;

/// The fewest partitions by default.
const MIN_PARTITIONS: usize = 4;

/// One worker's reusable buffers.
struct Slot<S> {
    state: S,
    successors: Vec<u64>,
    /// Candidates for the next level, one buffer per destination partition.
    out: Vec<Vec<u64>>,
}

type Slots<S> = [CachePadded<Mutex<Slot<S>>>];

/// Decodes `key` into `state` and writes its successors into `out`.
pub(crate) fn successors_of<'o, M: Model>(
    model: &M,
    state: &mut M::State,
    out: &'o mut Vec<u64>,
    key: u64,
) -> &'o [u64] {
    model.decode(key, state);
    out.clear();
    model.successors(state, out);
    out
}

impl<'a, M: Model> Search<'a, M> {
    /// A search of `model` with default settings: all cores, automatic
    /// visited set, no limits but the machine's available memory.
    pub fn new(model: &'a M) -> Self {
        Search {
            model,
            threads: 0,
            partitions: 0,
            visited: VisitedKind::Auto,
            max_states: None,
            max_depth: None,
            memory_limit: None,
            memory_guard: true,
            stop: None,
            progress: None,
            spill: None,
        }
    }

    /// Keeps the levels on disk (see [`Spill`]): memory holds a budget of
    /// candidates, not the levels. Counts, finding and solving support it.
    pub fn spill(mut self, spill: Spill) -> Self {
        self.spill = Some(spill);
        self
    }

    /// Continues the search saved in `checkpoint` (its puzzle must be this
    /// search's model, checked by identity), from its last complete level,
    /// to the report an uninterrupted run would have given; the path too
    /// when the checkpoint is a solve's. Threads and limits are this
    /// search's; the partitions and visited set are the checkpoint's.
    pub fn resume(mut self, checkpoint: &Checkpoint) -> Result<Solution, SearchError> {
        let mode =
            crate::engine::spill::mode_from_name(&checkpoint.manifest.mode).ok_or_else(|| {
                SearchError::Checkpoint(format!(
                    "unknown kind of search {:?}",
                    checkpoint.manifest.mode
                ))
            })?;
        let spill = Spill {
            dir: checkpoint.dir.clone(),
            checkpoint: true,
            ..self
                .spill
                .take()
                .unwrap_or_else(|| Spill::new(checkpoint.dir.clone()))
        };
        let threads = self.thread_count();
        let (report, path) = self.in_pool(threads, || {
            self.run_spilled(mode, threads, &spill, Some(checkpoint))
        })??;
        Ok(Solution { report, path })
    }

    /// Runs `f` in a pool of `threads` workers (on the calling thread when
    /// there is one: then no parallel iterator may reach rayon's global
    /// pool, and every level takes the sequential path).
    fn in_pool<R: Send>(
        &self,
        threads: usize,
        f: impl FnOnce() -> R + Send,
    ) -> Result<R, SearchError> {
        if threads == 1 {
            return Ok(f());
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("reach-worker-{i}"))
            .build()
            .map_err(|source| SearchError::ThreadPool { threads, source })?;
        Ok(pool.install(f))
    }

    /// Worker threads; 0 (the default) means one per available core.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Partitions (a power of two, at most [`MAX_PARTITIONS`]); 0 (the
    /// default) means a few per worker. Every key belongs to one partition,
    /// which settles its share of each level; the results do not depend on
    /// the count.
    pub fn partitions(mut self, partitions: usize) -> Self {
        self.partitions = partitions;
        self
    }

    /// The visited set to use.
    pub fn visited(mut self, kind: VisitedKind) -> Self {
        self.visited = kind;
        self
    }

    /// Stop before a level would take the number of states past `n`.
    pub fn max_states(mut self, n: Option<u64>) -> Self {
        self.max_states = n;
        self
    }

    /// Stop before a level deeper than `d`.
    pub fn max_depth(mut self, d: Option<u32>) -> Self {
        self.max_depth = d;
        self
    }

    /// Stop before a level estimated to take the process's resident memory
    /// past `bytes`.
    pub fn memory_limit(mut self, bytes: Option<u64>) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// Without an explicit memory limit, stop before a level estimated to
    /// need more than the machine has available (on by default).
    pub fn memory_guard(mut self, on: bool) -> Self {
        self.memory_guard = on;
        self
    }

    /// A flag that, once raised, stops the search at the next level boundary.
    pub fn stop_flag(mut self, flag: &'a AtomicBool) -> Self {
        self.stop = Some(flag);
        self
    }

    /// A callback run after every level.
    pub fn progress(mut self, f: &'a (dyn Fn(&Progress) + Sync)) -> Self {
        self.progress = Some(f);
        self
    }

    /// Counts every state reachable from the start, level by level.
    pub fn count(self) -> Result<Report, SearchError> {
        Ok(self.run(Mode::Count)?.0)
    }

    /// Searches until the first level holding a goal; the outcome says at
    /// which depth (no path is kept).
    pub fn find_goal(self) -> Result<Report, SearchError> {
        if !self.model.has_goal() {
            return Err(SearchError::NoGoal);
        }
        Ok(self.run(Mode::FindGoal)?.0)
    }

    /// A shortest path from the start to a goal. Keeps every level's keys
    /// (8 bytes a state, no parent pointers) and rebuilds the path backwards
    /// from the goal, level by level.
    pub fn solve(self) -> Result<Solution, SearchError> {
        if !self.model.has_goal() {
            return Err(SearchError::NoGoal);
        }
        let (report, path) = self.run(Mode::Solve)?;
        Ok(Solution { report, path })
    }

    /// Within the start's component, the positions farthest from every
    /// goal position: every goal state of the component is found (a count
    /// that checks each level), then a breadth-first search from all of
    /// them at once gives each position its distance to the nearest goal.
    /// Needs reversible moves (so that the distance from the goals is the
    /// distance to them); costs about two counts.
    pub fn hardest(self) -> Result<Hardest, SearchError> {
        if !self.model.has_goal() {
            return Err(SearchError::NoGoal);
        }
        if !self.model.reversible() {
            return Err(SearchError::NotReversible);
        }
        if self.spill.is_some() {
            return Err(SearchError::SpillUnsupported("hardest"));
        }
        let model = self.model;
        let mut goals: Vec<u64> = Vec::new();
        let (component, _) = self.run_with(Mode::Count, vec![model.start()], &mut |level| {
            goals.extend(level.goals());
        })?;
        let mut hardest = Hardest {
            component: component.states(),
            goal_states: goals.len() as u64,
            distance: 0,
            positions: Vec::new(),
            start_distance: None,
            report: component,
        };
        if !hardest.report.is_complete() || goals.is_empty() {
            return Ok(hardest);
        }
        let start = model.start();
        let mut start_distance = None;
        let (mut report, _) = self.run_with(Mode::Count, goals, &mut |level| {
            if start_distance.is_none() && level.contains(start) {
                start_distance = Some(level.depth);
            }
        })?;
        hardest.distance = report.depth();
        hardest.positions = std::mem::take(&mut report.last_level);
        hardest.start_distance = start_distance;
        hardest.report = report;
        Ok(hardest)
    }

    fn thread_count(&self) -> usize {
        if self.threads == 0 {
            cores()
        } else {
            self.threads
        }
    }

    fn run(&self, mode: Mode) -> Result<(Report, Option<Vec<u64>>), SearchError> {
        self.run_with(mode, vec![self.model.start()], &mut |_| {})
    }

    /// A search from `sources` (level 0; several for a multi-source
    /// search), calling `visit` after every complete level.
    fn run_with(
        &self,
        mode: Mode,
        sources: Vec<u64>,
        visit: &mut (dyn FnMut(&LevelView<'_, M>) + Send),
    ) -> Result<(Report, Option<Vec<u64>>), SearchError> {
        let threads = self.thread_count();
        let key_space = self.model.key_space();
        if self.visited == VisitedKind::Bitmap && key_space > BITMAP_HARD_MAX_KEYS {
            return Err(SearchError::BitmapTooLarge {
                key_space,
                max: BITMAP_HARD_MAX_KEYS,
            });
        }
        if self.visited == VisitedKind::Frontier && !self.model.reversible() {
            return Err(SearchError::NotReversible);
        }
        if self.partitions > 0
            && (!self.partitions.is_power_of_two() || self.partitions > MAX_PARTITIONS)
        {
            return Err(SearchError::Partitions {
                partitions: self.partitions,
                max: MAX_PARTITIONS,
            });
        }
        if let Some(spill) = &self.spill {
            return self.in_pool(threads, || self.run_spilled(mode, threads, spill, None))?;
        }
        self.in_pool(threads, || self.run_levels(mode, threads, sources, visit))
    }

    /// The partition count: as asked, or a few per worker, so that the
    /// partitions even out between workers and each one's candidates stay
    /// small enough to sort in cache.
    ///
    /// Workers beyond the cores do not run at once, so they do not count:
    /// every worker keeps a buffer for every partition, and `--threads 1000`
    /// on two cores would otherwise keep four million.
    fn partition_count(&self, threads: usize) -> usize {
        partition_count(self.partitions, threads)
    }

    /// The level loop: expand the frontier (workers route successors to
    /// their owners' partitions), settle every partition's share of the
    /// next level, check the limits, report.
    fn run_levels(
        &self,
        mode: Mode,
        threads: usize,
        mut sources: Vec<u64>,
        visit: &mut (dyn FnMut(&LevelView<'_, M>) + Send),
    ) -> (Report, Option<Vec<u64>>) {
        let started = Instant::now();
        let model = self.model;
        let key_space = model.key_space();
        // A bitmap is split between the partitions by ranges of keys, each
        // settling its own bits: no atomics, and a partition's bits stay in
        // cache while it settles.
        let owned = resolve(self.visited, key_space, model.reversible()) == VisitedKind::Bitmap;
        let (visited, router) = if owned {
            let partitions = bitmap_partition_count(self.partitions, threads, key_space);
            (Visited::Owned, Router::by_range(partitions, key_space))
        } else {
            let visited = Visited::new(self.visited, key_space, model.reversible(), threads);
            (visited, Router::new(self.partition_count(threads)))
        };
        let slots: Vec<CachePadded<Mutex<Slot<M::State>>>> = per_worker(threads, || Slot {
            state: model.new_state(),
            successors: Vec::new(),
            out: vec![Vec::new(); router.partitions()],
        });
        // Workers beyond the cores take turns: chunks are sized for those
        // that run at once.
        let running = threads.min(cores());
        let frontier_search = matches!(visited, Visited::Frontier);
        let sorted = mode == Mode::Solve;
        let how = if frontier_search {
            Settle::Frontier
        } else if owned {
            Settle::Bitmap {
                sorted,
                append: false,
            }
        } else {
            Settle::Visited {
                sorted: mode == Mode::Solve,
            }
        };
        // Solving keeps every level (0); frontier search needs the last two.
        let keep = match (mode, frontier_search) {
            (Mode::Solve, _) => 0,
            (_, true) => 2,
            (_, false) => 1,
        };

        sources.sort_unstable();
        sources.dedup();
        let mut shares = vec![Vec::new(); router.partitions()];
        for &key in &sources {
            visited.insert(key);
            shares[router.route(key)].push(key);
        }
        let mut parts: Vec<Partition> = if owned {
            shares
                .into_iter()
                .enumerate()
                .map(|(p, keys)| {
                    let (first, len) = router.range(p, key_space);
                    Partition::with_bitmap(keys, first, len)
                })
                .collect()
        } else {
            shares.into_iter().map(Partition::with_level).collect()
        };
        // incoming[p][w]: worker w's candidates for partition p, moved out
        // of the workers' slots for the settle step and back after it.
        let mut incoming: Vec<Vec<Vec<u64>>> = vec![vec![Vec::new(); threads]; router.partitions()];
        let mut levels = vec![sources.len() as u64];
        let mut total = sources.len() as u64;
        drop(sources);
        let mut outcome = Outcome::Complete;
        // Levels too thin to split run on the calling thread.
        let threads_for = |width: u64| {
            if width < SEQUENTIAL_BELOW as u64 {
                1
            } else {
                running
            }
        };

        loop {
            // The newest level is complete: look at it, then expand it.
            let depth = levels.len() as u32 - 1;
            let width = *levels.last().expect("level 0");
            let threads_now = threads_for(width);
            let view = LevelView {
                depth,
                parts: &parts,
                slots: &slots,
                router,
                threads: threads_now,
                model,
                batch: (0, 1),
            };
            if mode != Mode::Count
                && let Some(key) = view.goals().into_iter().min()
            {
                outcome = Outcome::Goal { depth, key };
            }
            visit(&view);
            self.report_progress(&levels, total, started);
            if outcome != Outcome::Complete {
                break;
            }
            if let Some(reason) =
                self.stop_before_level(depth, width as usize, &levels, &visited, keep)
            {
                // A depth limit at the last level cuts nothing short: the
                // search is complete if no state of the frontier has a new
                // successor.
                if !matches!(reason, StopReason::MaxDepth(_)) || view.has_new_successor(&visited) {
                    outcome = Outcome::Stopped(reason);
                }
                break;
            }
            // With owned bitmaps a wide level is expanded and settled a
            // slice at a time: a slice's candidates are settled against the
            // bits before the next slice is expanded, so the candidates in
            // memory are a slice's, not the level's (eleven: about three
            // successors a state), and their buffers stay warm.
            let batches = match how {
                Settle::Bitmap { .. } => (width as usize).div_ceil(BATCH_STATES).max(1),
                _ => 1,
            };
            let mut width = 0;
            for b in 0..batches {
                LevelView {
                    depth,
                    parts: &parts,
                    slots: &slots,
                    router,
                    threads: threads_now,
                    model,
                    batch: (b, batches),
                }
                .expand(&visited, self.stop);
                let how = match how {
                    Settle::Bitmap { sorted, .. } => Settle::Bitmap {
                        sorted: sorted && b + 1 == batches,
                        append: b > 0,
                    },
                    other => other,
                };
                width = settle_all(&mut parts, &slots, &mut incoming, how, threads_now);
                if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                    break;
                }
            }
            if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                // The level may be cut short by the signal's timing (even to
                // nothing, which must not pass for the end of the search):
                // drop it, so that the counts reported are those of complete
                // levels.
                parts.iter_mut().for_each(Partition::discard);
                outcome = Outcome::Stopped(StopReason::Interrupted);
                break;
            }
            if width == 0 {
                break;
            }
            if let Some(max) = self.max_states
                && total + width as u64 > max
            {
                parts.iter_mut().for_each(Partition::discard);
                outcome = Outcome::Stopped(StopReason::MaxStates(max));
                break;
            }
            parts.iter_mut().for_each(|p| p.commit(keep));
            total += width as u64;
            levels.push(width as u64);
        }
        drop(incoming);
        drop(slots);

        let mut last_level: Vec<u64> = parts.iter().flat_map(|p| p.frontier()).copied().collect();
        let path = match (&outcome, mode) {
            (Outcome::Goal { key, .. }, Mode::Solve) => {
                let kept: Vec<Vec<Vec<u64>>> =
                    parts.into_iter().map(Partition::into_levels).collect();
                Some(rebuild_path(model, &kept, router, *key, threads))
            }
            _ => None,
        };
        // A goal search has no use for its last level in order.
        if mode == Mode::Count {
            sort_keys(&mut last_level, threads);
        }
        let report = Report {
            levels,
            last_level_states: last_level.len() as u64,
            last_level,
            outcome,
            seconds: started.elapsed().as_secs_f64(),
            threads,
            visited: visited.kind(),
            partitions: router.partitions(),
            disk: None,
        };
        (report, path)
    }

    pub(crate) fn report_progress(&self, levels: &[u64], total: u64, started: Instant) {
        if let Some(progress) = self.progress {
            progress(&Progress {
                depth: levels.len() as u32 - 1,
                level_states: *levels.last().unwrap_or(&0),
                total_states: total,
                seconds: started.elapsed().as_secs_f64(),
            });
        }
    }

    /// Whether to stop before expanding the level at `depth`, `width`
    /// states wide; `keep` is how many levels the partitions keep (0: all).
    fn stop_before_level(
        &self,
        depth: u32,
        width: usize,
        levels: &[u64],
        visited: &Visited,
        keep: usize,
    ) -> Option<StopReason> {
        if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Some(StopReason::Interrupted);
        }
        if let Some(max) = self.max_depth
            && depth >= max
        {
            return Some(StopReason::MaxDepth(max));
        }
        if self.memory_limit.is_none() && !self.memory_guard {
            return None;
        }
        // The next level is estimated from the last level's growth (at least
        // as large as this one): its keys, the visited set's share of them,
        // and the kept levels where a path is wanted.
        let last = width as f64;
        let before = levels
            .len()
            .checked_sub(2)
            .map_or(1.0, |i| levels[i] as f64);
        let growth = (last / before.max(1.0)).clamp(1.0, 64.0);
        let next = (last * growth) as u64;
        let per_key = visited.bytes_per_new_key() + 8 + if keep == 0 { 8 } else { 0 };
        let extra = next.saturating_mul(per_key);
        // Reading /proc costs tens of microseconds, a real share of a thin
        // level: levels that add under 1 MiB are not checked one by one.
        if extra < 1 << 20 && !depth.is_multiple_of(64) {
            return None;
        }
        let rss = memory::current_rss_bytes()?;
        let needed = rss.saturating_add(extra);
        if let Some(limit) = self.memory_limit {
            return (needed > limit).then_some(StopReason::MemoryLimit { limit, needed });
        }
        // Whatever bounds the process first: the machine, a cgroup, or
        // `ulimit -v` (which counts address space that the allocator has
        // reserved, not only what is resident).
        let (room, bound) = memory::headroom()?;
        (extra > room / 10 * 9).then_some(StopReason::MemoryAvailable {
            available: room,
            needed: extra,
            bound,
        })
    }
}

/// Settles every partition's share of the next level from the candidates
/// the workers routed to it, one task per partition; the size of the level.
///
/// The workers' per-partition buffers are moved (not copied) into
/// `incoming`, transposed so that each partition's task owns its column,
/// and moved back afterwards with their capacity: the next level reuses
/// them instead of paying for fresh memory in page faults.
fn settle_all<S: Send>(
    parts: &mut [Partition],
    slots: &Slots<S>,
    incoming: &mut [Vec<Vec<u64>>],
    how: Settle,
    threads: usize,
) -> usize {
    for (w, slot) in slots.iter().enumerate() {
        let mut slot = lock(slot);
        for (p, column) in incoming.iter_mut().enumerate() {
            std::mem::swap(&mut column[w], &mut slot.out[p]);
        }
    }
    let width = if threads == 1 {
        parts
            .iter_mut()
            .zip(incoming.iter_mut())
            .map(|(part, runs)| part.settle(runs, how))
            .sum()
    } else {
        parts
            .par_iter_mut()
            .zip(incoming.par_iter_mut())
            .map(|(part, runs)| part.settle(runs, how))
            .sum()
    };
    for (w, slot) in slots.iter().enumerate() {
        let mut slot = lock(slot);
        for (p, column) in incoming.iter_mut().enumerate() {
            std::mem::swap(&mut column[w], &mut slot.out[p]);
        }
    }
    width
}

/// The most states of a level expanded before their candidates are
/// settled, with owned bitmaps: 2^21 states, about 6 million candidates
/// (48 MiB) for a tile puzzle.
const BATCH_STATES: usize = 1 << 21;

/// Keys a partition's share of a bitmap covers at most by default: 2^22
/// bits, 512 KiB, about a core's L2 cache, so that settling, which sets
/// bits at random within the share, runs in cache.
const BITMAP_KEYS_PER_PARTITION: u64 = 1 << 22;

/// The partition count for a bitmap over `key_space` keys: `asked`, or (0)
/// a few per running worker and at least enough that each partition's
/// share of the bitmap stays in cache.
fn bitmap_partition_count(asked: usize, threads: usize, key_space: u64) -> usize {
    if asked > 0 {
        return asked;
    }
    let for_cache = key_space
        .div_ceil(BITMAP_KEYS_PER_PARTITION)
        .next_power_of_two()
        .min(MAX_PARTITIONS as u64) as usize;
    partition_count(0, threads).max(for_cache)
}

/// The partition count: `asked`, or (0) a few per running worker.
pub(crate) fn partition_count(asked: usize, threads: usize) -> usize {
    if asked > 0 {
        asked
    } else {
        (threads.min(cores()) * PARTITIONS_PER_THREAD)
            .next_power_of_two()
            .clamp(MIN_PARTITIONS, MAX_PARTITIONS)
    }
}

/// The cores this process may run on.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One `T` per worker, each made by `make` on the worker that will use it
/// when there is a pool of `threads` (on the calling thread otherwise).
///
/// Made on its own thread, a worker's state comes from that thread's
/// allocator heap: made on one thread, two workers' small buffers (a
/// decoded state's arrays, written at every expansion) would sit side by
/// side in one cache line, which the workers would then pass back and
/// forth: `count eleven` at 2 threads spent half again the CPU time of one
/// thread, and gained 1.3x instead of 2x (see the engine README).
pub(crate) fn per_worker<T: Send>(
    threads: usize,
    make: impl Fn() -> T + Sync,
) -> Vec<CachePadded<Mutex<T>>> {
    if threads > 1 && rayon::current_num_threads() == threads {
        rayon::broadcast(|_| CachePadded::new(Mutex::new(make())))
    } else {
        (0..threads)
            .map(|_| CachePadded::new(Mutex::new(make())))
            .collect()
    }
}

/// Locks `slot`, shrugging off poisoning: a panicking worker's panic reaches
/// the caller through rayon anyway, and the buffers hold no invariant.
pub(crate) fn lock<T>(slot: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

/// The slot of the worker running this code (of any kind of per-worker
/// buffers: the spilled search has its own).
pub(crate) fn my_slot<T>(slots: &[CachePadded<Mutex<T>>]) -> &Mutex<T> {
    // Each pool thread has its own index, so slots are uncontended; any
    // other caller falls back to slot 0, which its mutex keeps correct.
    let i = rayon::current_thread_index()
        .filter(|&i| i < slots.len())
        .unwrap_or(0);
    &slots[i]
}

/// Walks back from `goal`, whose level is every partition's newest, to the
/// start, choosing at each level the smallest key that has the current one
/// as a successor (so that the path depends on neither thread timing nor
/// the partition count). `kept[p][d]` is partition p's share of level d,
/// sorted.
fn rebuild_path<M: Model>(
    model: &M,
    kept: &[Vec<Vec<u64>>],
    router: Router,
    goal: u64,
    threads: usize,
) -> Vec<u64> {
    let depth = kept.first().map_or(0, |levels| levels.len() - 1);
    let mut state = model.new_state();
    let mut successors = Vec::new();
    let mut path = vec![goal];
    let mut current = goal;
    for d in (0..depth).rev() {
        let previous = if model.reversible() {
            successors_of(model, &mut state, &mut successors, current)
                .iter()
                .copied()
                .filter(|&k| kept[router.route(k)][d].binary_search(&k).is_ok())
                .min()
        } else {
            // Each partition's share is sorted, so its first hit is its
            // smallest; the smallest over the partitions is the level's.
            let first_hit = |levels: &Vec<Vec<u64>>| {
                let mut state = model.new_state();
                let mut successors = Vec::new();
                levels[d].iter().copied().find(|&key| {
                    successors_of(model, &mut state, &mut successors, key).contains(&current)
                })
            };
            // With one worker there is no pool, so no parallel iterator may run.
            if threads == 1 {
                kept.iter().filter_map(first_hit).min()
            } else {
                kept.par_iter().filter_map(first_hit).min()
            }
        };
        // Every key of a level was found as the successor of one in the level
        // before, so a predecessor always exists.
        current = previous.expect("a state of level d has a predecessor in level d-1");
        path.push(current);
    }
    path.reverse();
    path
}
