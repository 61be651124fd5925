//! The level-synchronous parallel breadth-first search.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crossbeam_utils::CachePadded;
use rayon::prelude::*;

use super::frontier::{Buffers, settle, sort_keys};
use super::memory;
use super::visited::{BITMAP_HARD_MAX_KEYS, Visited};
use super::{Model, Outcome, Progress, Report, StopReason, VisitedKind};

/// Levels with fewer states than this are expanded on one thread: a rayon
/// fork/join costs microseconds, as much as a hundred expansions (pe766 has
/// 1369 levels, 936 of them under 1000 states). pe766 at 2 threads, five
/// runs each, wall seconds: 128: 0.63-0.71, 512: 0.66-0.74, 2048: 0.71-0.75.
const SEQUENTIAL_BELOW: usize = 128;

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
        "the bitmap visited set needs one bit per possible key, and this puzzle has {key_space} keys (the bitmap takes at most {max}); use the dashmap set"
    )]
    BitmapTooLarge {
        /// The model's key space.
        key_space: u64,
        /// The largest key space a bitmap takes.
        max: u64,
    },
    /// `solve` was asked of a model without a goal.
    #[error("this puzzle has no goal to solve for")]
    NoGoal,
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
    model: &'a M,
    threads: usize,
    visited: VisitedKind,
    max_states: Option<u64>,
    max_depth: Option<u32>,
    memory_limit: Option<u64>,
    memory_guard: bool,
    stop: Option<&'a AtomicBool>,
    progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
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
enum Mode {
    Count,
    FindGoal,
    Solve,
}

/// One worker's reusable buffers.
struct Slot<S> {
    state: S,
    successors: Vec<u64>,
    found: Vec<u64>,
}

type Slots<S> = [CachePadded<Mutex<Slot<S>>>];

impl<S> Slot<S> {
    /// The successors of `key`, in this worker's buffer.
    fn successors_of<M: Model<State = S>>(&mut self, model: &M, key: u64) -> &[u64] {
        successors_of(model, &mut self.state, &mut self.successors, key)
    }
}

/// Decodes `key` into `state` and writes its successors into `out`.
fn successors_of<'o, M: Model>(
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
            visited: VisitedKind::Auto,
            max_states: None,
            max_depth: None,
            memory_limit: None,
            memory_guard: true,
            stop: None,
            progress: None,
        }
    }

    /// Worker threads; 0 (the default) means one per available core.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
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

    fn thread_count(&self) -> usize {
        if self.threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            self.threads
        }
    }

    fn run(&self, mode: Mode) -> Result<(Report, Option<Vec<u64>>), SearchError> {
        let threads = self.thread_count();
        let key_space = self.model.key_space();
        if self.visited == VisitedKind::Bitmap && key_space > BITMAP_HARD_MAX_KEYS {
            return Err(SearchError::BitmapTooLarge {
                key_space,
                max: BITMAP_HARD_MAX_KEYS,
            });
        }
        if threads == 1 {
            // No pool: the one worker is the calling thread, and every level
            // takes the sequential path, so no parallel iterator can reach
            // rayon's global pool.
            return Ok(self.run_levels(mode, 1));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("reach-worker-{i}"))
            .build()
            .map_err(|source| SearchError::ThreadPool { threads, source })?;
        Ok(pool.install(|| self.run_levels(mode, threads)))
    }

    fn run_levels(&self, mode: Mode, threads: usize) -> (Report, Option<Vec<u64>>) {
        let started = Instant::now();
        let model = self.model;
        let visited = Visited::new(self.visited, model.key_space(), model.reversible(), threads);
        let slots: Vec<CachePadded<Mutex<Slot<M::State>>>> = (0..threads)
            .map(|_| {
                CachePadded::new(Mutex::new(Slot {
                    state: model.new_state(),
                    successors: Vec::new(),
                    found: Vec::new(),
                }))
            })
            .collect();

        let start = model.start();
        visited.insert(start);
        let mut frontier = vec![start];
        let mut levels = vec![1u64];
        // Solving keeps every level; frontier search needs the one before
        // the frontier, which `kept` holds when solving and `previous`
        // otherwise.
        let mut kept: Vec<Vec<u64>> = Vec::new();
        let mut previous: Vec<u64> = Vec::new();
        let frontier_search = matches!(visited, Visited::Frontier);
        let mut buffers = Buffers::default();
        let mut total = 1u64;
        let mut outcome = Outcome::Complete;

        if mode != Mode::Count
            && let Some(key) = first_goal(model, &frontier, &slots, threads)
        {
            outcome = Outcome::Goal { depth: 0, key };
        }
        self.report_progress(&levels, total, started);

        while outcome == Outcome::Complete {
            let depth = levels.len() as u32 - 1;
            if let Some(reason) = self.stop_before_level(depth, &frontier, &levels, &visited, &kept)
            {
                outcome = Outcome::Stopped(reason);
                break;
            }
            expand(model, &frontier, &slots, &visited, threads, self.stop);
            let mut next = if frontier_search {
                let before = if mode == Mode::Solve {
                    kept.last().map_or(&[][..], Vec::as_slice)
                } else {
                    &previous
                };
                settle_level(&slots, &frontier, before, threads, &mut buffers)
            } else {
                gather(&slots)
            };
            if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                // The level may be cut short by the signal's timing (even to
                // nothing, which must not pass for the end of the search):
                // drop it, so that the counts reported are those of complete
                // levels.
                outcome = Outcome::Stopped(StopReason::Interrupted);
                break;
            }
            if next.is_empty() {
                break;
            }
            if let Some(max) = self.max_states
                && total + next.len() as u64 > max
            {
                outcome = Outcome::Stopped(StopReason::MaxStates(max));
                break;
            }
            total += next.len() as u64;
            levels.push(next.len() as u64);
            if mode == Mode::Solve {
                if !frontier_search {
                    sort_keys(&mut next, threads);
                }
                kept.push(std::mem::replace(&mut frontier, next));
            } else if frontier_search {
                let done = std::mem::replace(&mut previous, std::mem::replace(&mut frontier, next));
                buffers.spare = done;
            } else {
                frontier = next;
            }
            if mode != Mode::Count
                && let Some(key) = first_goal(model, &frontier, &slots, threads)
            {
                outcome = Outcome::Goal {
                    depth: depth + 1,
                    key,
                };
            }
            self.report_progress(&levels, total, started);
        }

        let path = match (&outcome, mode) {
            (Outcome::Goal { key, .. }, Mode::Solve) => {
                Some(rebuild_path(model, &kept, *key, &slots, threads))
            }
            _ => None,
        };
        drop(kept);
        drop(previous);
        // Levels of frontier search and of `solve` are sorted already; a
        // goal search has no use for its last level in order.
        if !frontier_search && mode == Mode::Count {
            sort_keys(&mut frontier, threads);
        }
        let report = Report {
            levels,
            last_level: frontier,
            outcome,
            seconds: started.elapsed().as_secs_f64(),
            threads,
            visited: visited.kind(),
        };
        (report, path)
    }

    fn report_progress(&self, levels: &[u64], total: u64, started: Instant) {
        if let Some(progress) = self.progress {
            progress(&Progress {
                depth: levels.len() as u32 - 1,
                level_states: *levels.last().unwrap_or(&0),
                total_states: total,
                seconds: started.elapsed().as_secs_f64(),
            });
        }
    }

    /// Whether to stop before expanding the level at `depth`.
    fn stop_before_level(
        &self,
        depth: u32,
        frontier: &[u64],
        levels: &[u64],
        visited: &Visited,
        kept: &[Vec<u64>],
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
        let last = frontier.len() as f64;
        let before = levels
            .len()
            .checked_sub(2)
            .map_or(1.0, |i| levels[i] as f64);
        let growth = (last / before.max(1.0)).clamp(1.0, 64.0);
        let next = (last * growth) as u64;
        let per_key = visited.bytes_per_new_key() + 8 + if kept.is_empty() { 0 } else { 8 };
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
        // Guard only against levels big enough to matter (over 64 MiB).
        if extra < 64 << 20 {
            return None;
        }
        let available = memory::available_bytes()?;
        (extra > available / 10 * 9).then_some(StopReason::MemoryAvailable {
            available: available.saturating_add(rss),
            needed,
        })
    }
}

/// The workers' finds as one level, in no particular order: the largest
/// buffer becomes the level and the others are appended to it.
fn gather<S>(slots: &Slots<S>) -> Vec<u64> {
    let mut buffers: Vec<Vec<u64>> = slots
        .iter()
        .map(|s| std::mem::take(&mut lock(s).found))
        .collect();
    buffers.sort_by_key(|b| std::cmp::Reverse(b.len()));
    let mut buffers = buffers.into_iter();
    let mut next = buffers.next().unwrap_or_default();
    for b in buffers {
        next.extend_from_slice(&b);
    }
    next
}

/// Frontier search's next level: each worker sorts its candidates, then the
/// sorted runs are merged and settled against the last two levels. The
/// workers' buffers keep their capacity for the next level: a fresh buffer
/// per level would be paid for again in page faults.
fn settle_level<S: Send>(
    slots: &Slots<S>,
    current: &[u64],
    previous: &[u64],
    threads: usize,
    buffers: &mut Buffers,
) -> Vec<u64> {
    // With one worker there is no pool, so no parallel iterator may run.
    if threads == 1 {
        lock(&slots[0]).found.sort_unstable();
    } else {
        slots.par_iter().for_each(|s| lock(s).found.sort_unstable());
    }
    let mut guards: Vec<_> = slots.iter().map(|s| lock(s)).collect();
    let runs: Vec<&[u64]> = guards.iter().map(|g| g.found.as_slice()).collect();
    let next = settle(&runs, current, previous, threads, buffers);
    for g in &mut guards {
        g.found.clear();
    }
    next
}

/// Locks `slot`, shrugging off poisoning: a panicking worker's panic reaches
/// the caller through rayon anyway, and the buffers hold no invariant.
fn lock<S>(slot: &Mutex<Slot<S>>) -> std::sync::MutexGuard<'_, Slot<S>> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

/// The slot of the worker running this code.
fn my_slot<S>(slots: &Slots<S>) -> &Mutex<Slot<S>> {
    // Each pool thread has its own index, so slots are uncontended; any
    // other caller falls back to slot 0, which its mutex keeps correct.
    let i = rayon::current_thread_index()
        .filter(|&i| i < slots.len())
        .unwrap_or(0);
    &slots[i]
}

/// Chunk length for a parallel pass over `len` keys: about 16 chunks per
/// worker, so that uneven chunks even out, and not so small that taking a
/// slot dominates.
fn chunk_len(len: usize, threads: usize) -> usize {
    (len / (threads * 16)).clamp(64, 1 << 16)
}

/// Expands one level: each worker's `found` buffer receives the keys of
/// its share of `frontier`'s successors that `visited` had not seen (all of
/// them, under frontier search).
fn expand<M: Model>(
    model: &M,
    frontier: &[u64],
    slots: &Slots<M::State>,
    visited: &Visited,
    threads: usize,
    stop: Option<&AtomicBool>,
) {
    let work = |chunk: &[u64]| {
        // A raised stop flag abandons the level: the caller drops it.
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return None::<()>;
        }
        let mut slot = lock(my_slot(slots));
        let Slot {
            state,
            successors,
            found,
        } = &mut *slot;
        for &key in chunk {
            for &next in successors_of(model, state, successors, key) {
                if visited.insert(next) {
                    found.push(next);
                }
            }
        }
        None
    };
    over_chunks(frontier, threads, work);
}

/// Runs `f` over chunks of `keys`, on the calling thread when there is one
/// worker or few keys, in parallel otherwise; the smallest of the results.
fn over_chunks<R: Ord + Send>(
    keys: &[u64],
    threads: usize,
    f: impl Fn(&[u64]) -> Option<R> + Sync + Send,
) -> Option<R> {
    if threads == 1 || keys.len() < SEQUENTIAL_BELOW {
        f(keys)
    } else {
        keys.par_chunks(chunk_len(keys.len(), threads))
            .filter_map(f)
            .min()
    }
}

/// The smallest goal key in `keys`, if any.
fn first_goal<M: Model>(
    model: &M,
    keys: &[u64],
    slots: &Slots<M::State>,
    threads: usize,
) -> Option<u64> {
    let scan = |chunk: &[u64]| {
        let mut slot = lock(my_slot(slots));
        let mut best: Option<u64> = None;
        for &key in chunk {
            model.decode(key, &mut slot.state);
            if model.is_goal(&slot.state) && best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        best
    };
    over_chunks(keys, threads, scan)
}

/// Walks back from `goal`, whose level is the one after `levels`' last, to
/// the start, choosing at each level the smallest key that has the current
/// one as a successor (so that the path does not depend on thread timing).
fn rebuild_path<M: Model>(
    model: &M,
    levels: &[Vec<u64>],
    goal: u64,
    slots: &Slots<M::State>,
    threads: usize,
) -> Vec<u64> {
    let mut path = vec![goal];
    let mut current = goal;
    for level in levels.iter().rev() {
        let previous = if model.reversible() {
            lock(my_slot(slots))
                .successors_of(model, current)
                .iter()
                .copied()
                .filter(|k| level.binary_search(k).is_ok())
                .min()
        } else {
            // Chunks are sorted, so each chunk's first hit is its smallest.
            over_chunks(level, threads, |chunk| {
                let mut slot = lock(my_slot(slots));
                chunk
                    .iter()
                    .copied()
                    .find(|&key| slot.successors_of(model, key).contains(&current))
            })
        };
        // Every key of a level was found as the successor of one in the level
        // before, so a predecessor always exists.
        current = previous.expect("a state of level d has a predecessor in level d-1");
        path.push(current);
    }
    path.reverse();
    path
}
