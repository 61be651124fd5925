//! A census: every position of a puzzle's pieces, not only those a
//! search from its start reaches, split into its components under the
//! moves, with each position's distance to the nearest goal position.
//!
//! A designer's question ("what is the hardest puzzle these pieces make on
//! this board?") is about every start at once. The census answers it in
//! three passes over the positions, each split across the workers:
//!
//! 1. **List** every position ([`EveryPosition`]: the model places its
//!    pieces every way they fit, in parts the workers share) and sort the
//!    keys. A position's index in that list is its number in the arrays
//!    below, found by a bucketed binary search (4 bytes of index for each
//!    8 bytes of key).
//! 2. **Join** the components: every position's successors are joined to
//!    it in a lock-free union-find over the indices (each root is the
//!    smallest index of its tree, linked by one compare-and-swap; see
//!    [`find`] and [`join`]). The moves must be reversible, so that a
//!    component is the set of positions that reach each other.
//! 3. **Measure** the distance to the goal: a breadth-first search from
//!    every goal position at once, level by level, over an array of two
//!    bytes a position. Its levels are how many positions lie at each
//!    distance from the nearest goal, and its last levels hold the
//!    hardest starts of all.
//!
//! Everything lives in memory: about 26 bytes a position at the widest
//! (key, root, size, distance, two frontiers). The counts do not depend on
//! the number of workers: the components are those of the graph, and a
//! position's distance is the level that first reaches it.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::engine::levels::Limits;
use crate::engine::levels::memory;
use crate::engine::{Model, Progress, Search, SearchError, StopReason};

/// A model that can list every position of its pieces, reachable from
/// its start or not: what a census walks.
pub trait EveryPosition: Model<Key = u64> {
    /// How many parts the positions are listed in (the workers share the
    /// parts): at least one.
    fn position_parts(&self) -> usize;

    /// Appends the keys of part `part`'s positions to `out`, and says
    /// whether it listed them all: it may stop, returning `false`, once
    /// `out` holds more than `cap` keys (the census would not fit in
    /// memory). Every position lies in exactly one part, once; each key
    /// decodes to its position, and the successors of a position are
    /// positions.
    fn part_positions(&self, part: usize, out: &mut Vec<u64>, cap: usize) -> bool;
}

/// What a census found (see the module's notes). Fields after `positions`
/// are `None` where the census stopped before it found them.
#[derive(Clone, Debug)]
pub struct Census {
    /// Every position of the pieces (how many were listed, if the census
    /// stopped while it listed them: see `all_listed`).
    pub positions: u64,
    /// Whether every position was listed (`positions` is then exact).
    pub all_listed: bool,
    /// The components, once joined.
    pub components: Option<Components>,
    /// The distances to the goal, for a model with a goal (possibly cut
    /// short: see `stopped`).
    pub goal: Option<Distances>,
    /// Why the census stopped before it finished, if it did.
    pub stopped: Option<StopReason>,
    /// Seconds the census took.
    pub seconds: f64,
    /// Worker threads it ran on.
    pub threads: usize,
}

/// The components of the positions under the moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Components {
    /// How many there are.
    pub count: u64,
    /// Pairs (size, how many components have that size), by size.
    pub size_histogram: Vec<(u64, u64)>,
    /// The size of the start's component (what a count from the start
    /// finds).
    pub start: u64,
}

/// Every position's distance to its nearest goal position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distances {
    /// Positions that meet the goal.
    pub goal_positions: u64,
    /// Components that hold a goal position.
    pub goal_components: u64,
    /// Positions from which a goal position can be reached: those of the
    /// components that hold one.
    pub solvable: u64,
    /// How many positions lie at each distance from the nearest goal
    /// position (level 0: the goal positions).
    pub levels: Vec<u64>,
    /// The starts farthest from every goal position, farthest first (ties
    /// by key), as many as asked for.
    pub hardest: Vec<HardStart>,
}

/// One of the hardest starts of a census.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HardStart {
    /// Its key.
    pub key: u64,
    /// Its distance to the nearest goal position.
    pub distance: u32,
    /// The size of its component.
    pub component: u64,
}

/// No distance yet.
const UNSEEN: u16 = u16::MAX;

/// Bytes a position takes once listed, at the widest: its key (8), root
/// (4) and component size (4), its distance (2), and a frontier entry in
/// each of two levels (4 + 4).
const BYTES_PER_POSITION: u64 = 26;

impl<M: EveryPosition> Search<'_, M> {
    /// Every position of the model's pieces, split into components, with
    /// each position's distance to the nearest goal position and the `top`
    /// hardest starts (see [`census`](crate::engine::census)). Honours the
    /// threads, the stop flag, `max_depth` (of the distances), the memory
    /// limit and the progress callback; a stop returns what was found so
    /// far. Needs reversible moves.
    pub fn census(self, top: usize) -> Result<Census, SearchError> {
        if !self.model.reversible() {
            return Err(SearchError::NotReversible);
        }
        if let Some(why) = self.model.unsearchable() {
            return Err(SearchError::Unsearchable(why));
        }
        let walk = Walk {
            limits: self.limits(),
            model: self.model,
            threads: self.thread_count(),
            began: Instant::now(),
        };
        super::search::in_pool(walk.threads, || walk.run(top))?
    }
}

/// One census under way: the search's limits (its stop flags, depth,
/// memory and progress), as the level loop reads them.
struct Walk<'a, M: EveryPosition> {
    limits: Limits<'a>,
    model: &'a M,
    threads: usize,
    began: Instant,
}

/// The sorted keys and how to find a key's index among them.
struct Index {
    keys: Vec<u64>,
    /// `buckets[h]..buckets[h + 1]`: the indices of the keys whose top bits
    /// (`key >> shift`) are `h`.
    buckets: Vec<u32>,
    shift: u32,
}

impl Index {
    fn new(keys: Vec<u64>) -> Index {
        let max = keys.last().copied().unwrap_or(0);
        // About four keys a bucket.
        let want = (keys.len() / 4).max(1).next_power_of_two() as u64;
        let bits = 64 - max.leading_zeros();
        let shift = bits.saturating_sub(want.trailing_zeros());
        let count = (max >> shift) as usize + 1;
        let mut buckets = vec![0u32; count + 1];
        let mut at = 0usize;
        for (h, b) in buckets.iter_mut().enumerate() {
            while at < keys.len() && ((keys[at] >> shift) as usize) < h {
                at += 1;
            }
            *b = at as u32;
        }
        Index {
            keys,
            buckets,
            shift,
        }
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    /// The index of `key`, if it is a position.
    #[inline]
    fn of(&self, key: u64) -> Option<u32> {
        let h = (key >> self.shift) as usize;
        if h + 1 >= self.buckets.len() {
            return None;
        }
        let (lo, hi) = (self.buckets[h] as usize, self.buckets[h + 1] as usize);
        self.keys[lo..hi]
            .binary_search(&key)
            .ok()
            .map(|i| (lo + i) as u32)
    }
}

/// The root of `x`'s tree, halving the path on the way (each node passed
/// is pointed at its grandparent).
///
/// Orderings: the array's words carry no other data, so each needs only
/// to be read and written whole (Relaxed). A word only ever goes from an
/// index to a smaller index of the same tree (a root is linked below a
/// smaller root by [`join`]; halving points a node at an ancestor), so
/// any value read, however stale, is an ancestor of `x`, and the walk
/// ends at a node that was a root when read. A lost halving race leaves
/// a longer path, never a wrong one.
#[inline]
fn find(parent: &[AtomicU32], mut x: u32) -> u32 {
    loop {
        let p = parent[x as usize].load(Ordering::Relaxed);
        if p == x {
            return x;
        }
        let g = parent[p as usize].load(Ordering::Relaxed);
        if g != p {
            let _ = parent[x as usize].compare_exchange_weak(
                p,
                g,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        }
        x = g;
    }
}

/// Joins the trees of `a` and `b`: the larger root is linked below the
/// smaller by a compare-and-swap that succeeds only while it is still a
/// root (its word still its own index), so two workers never link one
/// root twice, and parents only decrease, so no cycle forms. A failed swap
/// means another worker linked that root: look again. (Orderings: as for
/// [`find`]; the pass's end, a rayon join, orders every link before the
/// reads that follow.)
#[inline]
fn join(parent: &[AtomicU32], a: u32, b: u32) {
    let (mut a, mut b) = (a, b);
    loop {
        a = find(parent, a);
        b = find(parent, b);
        if a == b {
            return;
        }
        let (hi, lo) = if a > b { (a, b) } else { (b, a) };
        if parent[hi as usize]
            .compare_exchange(hi, lo, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
    }
}

/// A successor that is not among the positions: the model broke
/// [`EveryPosition`]'s promise.
fn stray(key: u64, successor: u64) -> SearchError {
    SearchError::Unsearchable(format!(
        "the census listed position {key}, whose successor {successor} is not among the positions listed: the model's list of positions is incomplete (a bug: please report it)"
    ))
}

impl<M: EveryPosition> Walk<'_, M> {
    fn seconds(&self) -> f64 {
        self.began.elapsed().as_secs_f64()
    }

    fn stopped(&self) -> bool {
        self.limits.stopped()
    }

    fn stop_reason(&self) -> StopReason {
        self.limits.interruption()
    }

    /// Tells the caller how a stage goes: `done` of `of` positions (a
    /// level of the distances: its depth and size).
    fn tell(&self, stage: &'static str, depth: u32, level: u64, done: u64, of: u64) {
        if let Some(progress) = self.limits.progress {
            progress(&Progress {
                depth,
                level_states: level,
                total_states: done,
                seconds: self.seconds(),
                expected_states: Some(of),
                stage,
            });
        }
    }

    /// The bytes this process may still take: under the memory limit,
    /// and what the machine has left (unless the guard is off); `None`:
    /// no bound known.
    fn room_left(&self) -> Option<u64> {
        let held = memory::current_rss_bytes().unwrap_or(0);
        let limit = self.limits.memory_limit.map(|l| l.saturating_sub(held));
        let machine = if self.limits.memory_guard {
            memory::headroom().map(|(b, _)| b)
        } else {
            None
        };
        match (limit, machine) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether `bytes` more would pass the memory limit or what the
    /// machine has left: the reason to stop, if so.
    fn room_for(&self, bytes: u64) -> Option<StopReason> {
        let held = memory::current_rss_bytes().unwrap_or(0);
        if let Some(limit) = self.limits.memory_limit
            && held + bytes > limit
        {
            return Some(StopReason::MemoryLimit {
                limit,
                needed: held + bytes,
            });
        }
        if self.limits.memory_guard
            && let Some((available, bound)) = memory::headroom()
            && bytes > available
        {
            return Some(StopReason::MemoryAvailable {
                available,
                needed: bytes,
                bound,
            });
        }
        None
    }

    fn run(self, top: usize) -> Result<Census, SearchError> {
        let mut census = Census {
            positions: 0,
            all_listed: false,
            components: None,
            goal: None,
            stopped: None,
            seconds: 0.0,
            threads: self.threads,
        };
        let keys = match self.list() {
            Ok(keys) => keys,
            Err((why, listed)) => {
                census.positions = listed;
                census.stopped = Some(why);
                census.seconds = self.seconds();
                return Ok(census);
            }
        };
        census.positions = keys.len() as u64;
        census.all_listed = true;
        if keys.len() >= UNSEEN_INDEX as usize {
            return Err(SearchError::Unsearchable(format!(
                "the census holds at most {} positions, and this puzzle has {}",
                UNSEEN_INDEX - 1,
                keys.len()
            )));
        }
        if let Some(why) = self.room_for(keys.len() as u64 * (BYTES_PER_POSITION - 8)) {
            census.stopped = Some(why);
            census.seconds = self.seconds();
            return Ok(census);
        }
        let index = Index::new(keys);
        let joined = self.join(&index)?;
        let Some((parent, goals)) = joined else {
            census.stopped = Some(self.stop_reason());
            census.seconds = self.seconds();
            return Ok(census);
        };
        let sizes = Self::sizes(&parent);
        census.components = Some(self.components(&index, &parent, &sizes)?);
        if self.model.has_goal() {
            let (distances, stopped) = self.distances(&index, &parent, &sizes, goals, top)?;
            census.goal = Some(distances);
            census.stopped = stopped;
        }
        census.seconds = self.seconds();
        Ok(census)
    }

    /// Pass 1: every position's key, sorted. Stops when the keys would
    /// pass the memory limit, or on the stop flag, with the number listed
    /// by then.
    fn list(&self) -> Result<Vec<u64>, (StopReason, u64)> {
        let parts = self.model.position_parts().max(1);
        let mut keys: Vec<u64> = Vec::new();
        // A few rounds of parts, to check the stop flag and the memory
        // between them.
        let round = (rayon::current_num_threads() * 4).max(1);
        self.tell("listing positions", 0, 0, 0, 0);
        let mut part = 0;
        while part < parts {
            if self.stopped() {
                return Err((self.stop_reason(), keys.len() as u64));
            }
            let end = (part + round).min(parts);
            // The positions the census still has room for, at the bytes
            // each will take, shared by this round's parts: a part that
            // passes its share stops there (one part may hold billions).
            let fits = self.room_left().map_or(usize::MAX, |room| {
                (room / BYTES_PER_POSITION).saturating_sub(keys.len() as u64) as usize
            });
            let cap = (fits / (end - part)).max(1);
            let lists: Vec<(Vec<u64>, bool)> = (part..end)
                .into_par_iter()
                .map(|p| {
                    let mut out = Vec::new();
                    let all = self.model.part_positions(p, &mut out, cap);
                    (out, all)
                })
                .collect();
            let more: usize = lists.iter().map(|(l, _)| l.len()).sum();
            let listed = (keys.len() + more) as u64;
            let needed = (listed + 1) * BYTES_PER_POSITION;
            if lists.iter().any(|(_, all)| !all) {
                let why = self.room_for(needed).unwrap_or(StopReason::MemoryLimit {
                    limit: self.room_left().unwrap_or(0),
                    needed,
                });
                return Err((why, listed));
            }
            // The keys, and what sorting and indexing them will take.
            if let Some(why) = self.room_for(more as u64 * 8 * 2) {
                return Err((why, listed));
            }
            keys.reserve(more);
            for (list, _) in lists {
                keys.extend_from_slice(&list);
            }
            part = end;
            self.tell("listing positions", 0, 0, keys.len() as u64, 0);
        }
        keys.par_sort_unstable();
        Ok(keys)
    }

    /// Pass 2: the union-find over the moves, and the goal positions'
    /// indices. `None` when stopped.
    #[allow(clippy::type_complexity)]
    fn join(&self, index: &Index) -> Result<Option<(Vec<AtomicU32>, Vec<u32>)>, SearchError> {
        let n = index.len();
        let parent: Vec<AtomicU32> = (0..n as u32).into_par_iter().map(AtomicU32::new).collect();
        let stray_found: Mutex<Option<SearchError>> = Mutex::new(None);
        let mut goals: Vec<u32> = Vec::new();
        let batch = (n / 64).max(1 << 14);
        let mut from = 0;
        while from < n {
            if self.stopped() {
                return Ok(None);
            }
            let to = (from + batch).min(n);
            let found: Vec<u32> = (from..to)
                .into_par_iter()
                .with_min_len(1024)
                .map_init(
                    || (self.model.new_state(), Vec::new()),
                    |(state, out), i| {
                        let key = index.keys[i];
                        self.model.decode(key, state);
                        out.clear();
                        self.model.successors(state, out);
                        for &next in out.iter() {
                            match index.of(next) {
                                // Moves are reversible: each edge is seen
                                // from both ends, and joined from one.
                                Some(j) if (j as usize) < i => join(&parent, i as u32, j),
                                Some(_) => {}
                                None => {
                                    let mut slot =
                                        stray_found.lock().unwrap_or_else(|e| e.into_inner());
                                    slot.get_or_insert_with(|| stray(key, next));
                                }
                            }
                        }
                        self.model.is_goal(state).then_some(i as u32)
                    },
                )
                .flatten_iter()
                .collect();
            if let Some(e) = stray_found.lock().unwrap_or_else(|e| e.into_inner()).take() {
                return Err(e);
            }
            goals.extend(found);
            from = to;
            self.tell("joining components", 0, 0, to as u64, n as u64);
        }
        // Every node straight below its root.
        (0..n).into_par_iter().for_each(|i| {
            let root = find(&parent, i as u32);
            parent[i].store(root, Ordering::Relaxed);
        });
        Ok(Some((parent, goals)))
    }

    /// Each root's component size (entries of other indices are 0).
    fn sizes(parent: &[AtomicU32]) -> Vec<AtomicU32> {
        let sizes: Vec<AtomicU32> = (0..parent.len())
            .into_par_iter()
            .map(|_| AtomicU32::new(0))
            .collect();
        parent.par_iter().for_each(|p| {
            sizes[p.load(Ordering::Relaxed) as usize].fetch_add(1, Ordering::Relaxed);
        });
        sizes
    }

    fn components(
        &self,
        index: &Index,
        parent: &[AtomicU32],
        sizes: &[AtomicU32],
    ) -> Result<Components, SearchError> {
        let mut roots: Vec<u64> = (0..parent.len())
            .into_par_iter()
            .filter(|&i| parent[i].load(Ordering::Relaxed) == i as u32)
            .map(|i| u64::from(sizes[i].load(Ordering::Relaxed)))
            .collect();
        roots.par_sort_unstable();
        let mut size_histogram: Vec<(u64, u64)> = Vec::new();
        for &size in &roots {
            match size_histogram.last_mut() {
                Some((s, n)) if *s == size => *n += 1,
                _ => size_histogram.push((size, 1)),
            }
        }
        let sum: u64 = roots.iter().sum();
        if sum != index.len() as u64 {
            return Err(SearchError::Unsearchable(format!(
                "the census's components hold {sum} positions of {} (a bug: please report it)",
                index.len()
            )));
        }
        let start = self.model.start();
        let at = index.of(start).ok_or_else(|| {
            SearchError::Unsearchable(format!(
                "the start's key {start} is not among the positions the census listed (a bug: please report it)"
            ))
        })?;
        let root = parent[at as usize].load(Ordering::Relaxed);
        Ok(Components {
            count: roots.len() as u64,
            size_histogram,
            start: u64::from(sizes[root as usize].load(Ordering::Relaxed)),
        })
    }

    /// Pass 3: the breadth-first search from every goal position at once.
    fn distances(
        &self,
        index: &Index,
        parent: &[AtomicU32],
        sizes: &[AtomicU32],
        goals: Vec<u32>,
        top: usize,
    ) -> Result<(Distances, Option<StopReason>), SearchError> {
        let n = index.len();
        let size_of = |i: u32| {
            let root = parent[i as usize].load(Ordering::Relaxed);
            u64::from(sizes[root as usize].load(Ordering::Relaxed))
        };
        let mut goal_roots: Vec<u32> = goals
            .iter()
            .map(|&i| parent[i as usize].load(Ordering::Relaxed))
            .collect();
        goal_roots.par_sort_unstable();
        goal_roots.dedup();
        let solvable: u64 = goal_roots.iter().map(|&r| size_of(r)).sum();
        let dist: Vec<AtomicU16> = (0..n)
            .into_par_iter()
            .map(|_| AtomicU16::new(UNSEEN))
            .collect();
        for &g in &goals {
            dist[g as usize].store(0, Ordering::Relaxed);
        }
        let mut levels = vec![goals.len() as u64];
        let mut stopped = None;
        let mut frontier = goals;
        self.tell("distances from the goal", 0, levels[0], levels[0], solvable);
        while !frontier.is_empty() {
            let depth = levels.len() as u32;
            if self.stopped() {
                stopped = Some(self.stop_reason());
                break;
            }
            if let Some(max) = self.limits.max_depth
                && depth > max
            {
                stopped = Some(StopReason::MaxDepth(max));
                break;
            }
            if depth >= u32::from(UNSEEN) {
                return Err(SearchError::Unsearchable(format!(
                    "the census measures distances up to {}, and this puzzle's pass it",
                    UNSEEN - 1
                )));
            }
            frontier = self.level(index, &dist, &frontier, depth as u16)?;
            if !frontier.is_empty() {
                levels.push(frontier.len() as u64);
                let done = levels.iter().sum();
                let width = frontier.len() as u64;
                self.tell("distances from the goal", depth, width, done, solvable);
            }
        }
        let reached: u64 = levels.iter().sum();
        if stopped.is_none() && reached != solvable {
            return Err(SearchError::Unsearchable(format!(
                "the census reached {reached} positions from the goal and its components hold {solvable} (a bug: please report it)"
            )));
        }
        let hardest = if stopped.is_none() {
            Self::hardest(index, &dist, &levels, top, &size_of)
        } else {
            Vec::new()
        };
        Ok((
            Distances {
                goal_positions: levels[0],
                goal_components: goal_roots.len() as u64,
                solvable,
                levels,
                hardest,
            },
            stopped,
        ))
    }

    /// The positions first reached from `frontier`, given distance `depth`.
    fn level(
        &self,
        index: &Index,
        dist: &[AtomicU16],
        frontier: &[u32],
        depth: u16,
    ) -> Result<Vec<u32>, SearchError> {
        let stray_found: Mutex<Option<SearchError>> = Mutex::new(None);
        let parts: Vec<Vec<u32>> = frontier
            .par_iter()
            .with_min_len(256)
            .fold(
                || (self.model.new_state(), Vec::new(), Vec::new()),
                |(mut state, mut out, mut next), &i| {
                    let key = index.keys[i as usize];
                    self.model.decode(key, &mut state);
                    out.clear();
                    self.model.successors(&mut state, &mut out);
                    for &succ in &out {
                        let Some(j) = index.of(succ) else {
                            let mut slot = stray_found.lock().unwrap_or_else(|e| e.into_inner());
                            slot.get_or_insert_with(|| stray(key, succ));
                            continue;
                        };
                        // The first worker to set a distance owns the
                        // position (Relaxed: the word carries no other
                        // data, and the level's end orders it).
                        let d = &dist[j as usize];
                        if d.load(Ordering::Relaxed) == UNSEEN
                            && d.compare_exchange(
                                UNSEEN,
                                depth,
                                Ordering::Relaxed,
                                Ordering::Relaxed,
                            )
                            .is_ok()
                        {
                            next.push(j);
                        }
                    }
                    (state, out, next)
                },
            )
            .map(|(_, _, next)| next)
            .collect();
        if let Some(e) = stray_found.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return Err(e);
        }
        Ok(parts.concat())
    }

    /// The `top` positions farthest from the goal, farthest first, ties by
    /// key (the same for every number of workers).
    fn hardest(
        index: &Index,
        dist: &[AtomicU16],
        levels: &[u64],
        top: usize,
        size_of: &(dyn Fn(u32) -> u64 + Sync),
    ) -> Vec<HardStart> {
        if top == 0 {
            return Vec::new();
        }
        // The nearest distance that, with those beyond it, holds `top`.
        let mut floor = levels.len();
        let mut held = 0u64;
        while floor > 0 && held < top as u64 {
            floor -= 1;
            held += levels[floor];
        }
        let floor = floor as u16;
        let mut found: Vec<(u16, u32)> = (0..index.len())
            .into_par_iter()
            .filter_map(|i| {
                let d = dist[i].load(Ordering::Relaxed);
                (d != UNSEEN && d >= floor).then_some((d, i as u32))
            })
            .collect();
        // Indices follow the keys' order.
        found.sort_unstable_by_key(|&(d, i)| (std::cmp::Reverse(d), i));
        found
            .into_iter()
            .take(top)
            .map(|(d, i)| HardStart {
                key: index.keys[i as usize],
                distance: u32::from(d),
                component: size_of(i),
            })
            .collect()
    }
}

/// One past the largest index a census gives a position.
const UNSEEN_INDEX: u32 = u32::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_finds_every_key_and_no_other() {
        let keys: Vec<u64> = (0..5000u64).map(|k| k * k * 7 + 3).collect();
        let index = Index::new(keys.clone());
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(index.of(k), Some(i as u32));
            assert_eq!(index.of(k + 1), None);
        }
        assert_eq!(index.of(0), None);
        assert_eq!(index.of(u64::MAX), None);
        let one = Index::new(vec![0]);
        assert_eq!(one.of(0), Some(0));
        assert_eq!(one.of(1), None);
    }

    #[test]
    fn joins_from_many_threads_give_the_components_of_one() {
        // Each i joined to i - 3 unless 7 divides it: chains along each
        // class mod 3, cut at the multiples of 7.
        let n = 100_000u32;
        let linked = |i: u32| i >= 3 && !i.is_multiple_of(7);
        let parent: Vec<AtomicU32> = (0..n).map(AtomicU32::new).collect();
        (0..n)
            .into_par_iter()
            .filter(|&i| linked(i))
            .for_each(|i| join(&parent, i, i - 3));
        let seq: Vec<AtomicU32> = (0..n).map(AtomicU32::new).collect();
        (0..n)
            .filter(|&i| linked(i))
            .for_each(|i| join(&seq, i, i - 3));
        for i in 0..n {
            // A root is the smallest index of its component, whoever
            // linked it.
            assert_eq!(find(&parent, i), find(&seq, i));
            let mut least = i;
            while linked(least) {
                least -= 3;
            }
            assert_eq!(find(&parent, i), least);
        }
    }
}
