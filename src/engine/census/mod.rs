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
//!    below. The index keeps four bytes of each key where it can: the
//!    keys are bucketed by their top bits (about four keys a bucket, 4
//!    bytes of bucket start each), and a bucket's keys keep only the bits
//!    below it; a key is found by a binary search within its bucket.
//! 2. **Join** the components: every position's successors are joined to
//!    it in a lock-free union-find over the indices (each root is the
//!    smallest index of its tree, linked by one compare-and-swap; see
//!    [`find`] and [`join`]). The moves must be reversible, so that a
//!    component is the set of positions that reach each other. Once
//!    joined, each word names its position's root, and a root's word
//!    holds its component's size.
//! 3. **Measure** the distance to the goal: a breadth-first search from
//!    every goal position at once, level by level, over two bits a
//!    position (unseen, in the frontier, reached by it, expanded). Its
//!    levels are how many positions lie at each distance from the nearest
//!    goal, and the smallest indices of its last levels are the hardest
//!    starts of all.
//!
//! Everything lives in memory: about 10 bytes a position (4 of key, 4 of
//! parent, a bucket's share and two bits), 14 at the widest while the
//! index is built from the sorted list.
//!
//! Where every key is a position ([`Model::keys_are_states`]), nothing is
//! listed and a position's number is its key ([`EveryKey`]); the
//! distances come first, and from one goal position they reach its
//! component, so the others are searched one by one over the same two
//! bits ([`Walk::flood`]); only with several goal positions, or very many
//! components, is the union-find built (see [`Walk::every_key_in`]). The
//! counts do not depend on the
//! number of workers: the components are those of the graph, and a
//! position's distance is the level that first reaches it.
//!
//! Across the processes of a search (the ranks of an MPI job), a census
//! of every key splits its codes into one range of keys a process, and
//! finds every component by the flood (see [`ranks`]).

mod ranks;
pub(crate) mod saves;

use std::marker::PhantomData;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::engine::files::manifest::fault_text;
use crate::engine::files::{Checkpoint, Spill, SpillError};
use crate::engine::levels::memory;
use crate::engine::levels::{Limits, agree};
use crate::engine::{Model, Progress, Search, SearchError, StopReason};

use saves::{CensusState, Keys, Loaded, Saves, TailLevel, Word};

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

/// Bytes a position takes at the widest: while the index is built, its
/// key (8) and the index's four bytes of it with its bucket's share (up to
/// 2); after, those and its parent (4) and its two bits of distance. With
/// whole keys in the index: 8 + 1 + 4 and the two bits.
const BYTES_PER_POSITION: u64 = 14;

/// A root's parent word: this flag and its component's size (so a root's
/// size needs no array of its own). Indices stay below it.
const ROOT: u32 = 1 << 31;

/// What the index keeps of a key: its low bits, the bucket giving the
/// rest (`u32`, where the buckets are fine enough), or the whole key.
trait Low: Copy + Ord + Send + Sync + Word {
    /// The part of `key` kept, below bit `shift`.
    fn cut(key: u64, shift: u32) -> Self;
    /// The whole key, from its bucket `high`.
    fn whole(self, high: u64, shift: u32) -> u64;
}

impl Low for u32 {
    #[inline]
    fn cut(key: u64, shift: u32) -> u32 {
        // shift <= 32 (see `Index::cut_shift`).
        (key & ((1u64 << shift) - 1)) as u32
    }

    #[inline]
    fn whole(self, high: u64, shift: u32) -> u64 {
        (high << shift) | u64::from(self)
    }
}

impl Low for u64 {
    #[inline]
    fn cut(key: u64, _: u32) -> u64 {
        key
    }

    #[inline]
    fn whole(self, _: u64, _: u32) -> u64 {
        self
    }
}

/// The sorted keys and how to find a key's index among them.
struct Index<L> {
    /// What is kept of each key, sorted.
    low: Vec<L>,
    /// `buckets[h]..buckets[h + 1]`: the indices of the keys whose top bits
    /// (`key >> shift`) are `h`.
    buckets: Vec<u32>,
    shift: u32,
}

/// The bucket shift for about four keys a bucket, over sorted `keys`.
fn natural_shift(keys: &[u64]) -> u32 {
    let max = keys.last().copied().unwrap_or(0);
    let want = (keys.len() / 4).max(1).next_power_of_two() as u64;
    let bits = 64 - max.leading_zeros();
    bits.saturating_sub(want.trailing_zeros()).min(63)
}

/// The shift that lets the index keep four bytes of each key, if it is
/// worth it: the natural one where it is at most 32 bits, else 32 bits
/// where the buckets that takes cost at most two bytes a key.
fn cut_shift(keys: &[u64]) -> Option<u32> {
    let natural = natural_shift(keys);
    if natural <= 32 {
        return Some(natural);
    }
    let max = keys.last().copied().unwrap_or(0);
    ((max >> 32) < keys.len() as u64 / 2).then_some(32)
}

impl<L: Low> Index<L> {
    /// The index of sorted `keys`, bucketed by the bits above `shift`.
    fn new(keys: Vec<u64>, shift: u32, cut: impl Fn(Vec<u64>) -> Vec<L>) -> Index<L> {
        let max = keys.last().copied().unwrap_or(0);
        let count = (max >> shift) as usize + 1;
        // Runs of buckets in parallel: each run's first start by a binary
        // search, the rest by walking the keys.
        const RUN: usize = 1 << 16;
        let sorted = &keys[..];
        let buckets: Vec<u32> = (0..count + 1)
            .into_par_iter()
            .step_by(RUN)
            .flat_map_iter(|first| {
                let mut at = sorted.partition_point(|&k| ((k >> shift) as usize) < first);
                (first..(first + RUN).min(count + 1)).map(move |h| {
                    while at < sorted.len() && ((sorted[at] >> shift) as usize) < h {
                        at += 1;
                    }
                    at as u32
                })
            })
            .collect();
        Index {
            low: cut(keys),
            buckets,
            shift,
        }
    }

    /// The index a checkpoint saved, checked: its buckets must cover its
    /// keys, in order, and a cut key fit below its bucket.
    fn read(low: Vec<L>, buckets: Vec<u32>, shift: u32) -> Result<Index<L>, &'static str> {
        let covers = buckets.len() >= 2
            && buckets[0] == 0
            && buckets[buckets.len() - 1] as usize == low.len()
            && buckets.windows(2).all(|w| w[0] <= w[1]);
        if !covers || shift > 63 || (L::BYTES == 4 && shift > 32) {
            return Err("its index's buckets do not cover its keys");
        }
        Ok(Index {
            low,
            buckets,
            shift,
        })
    }

    /// The bucket that holds index `i`.
    fn bucket_of(&self, i: usize) -> usize {
        // The last bucket that starts at or before `i` (empty buckets
        // start where the next one does).
        self.buckets.partition_point(|&b| b as usize <= i) - 1
    }

    /// Writes the index and the components (`roots`) into `saves`;
    /// `state` says the rest.
    fn save(
        &self,
        saves: &mut Saves,
        state: CensusState,
        roots: &[AtomicU32],
    ) -> Result<(), SpillError> {
        let state = CensusState {
            shift: self.shift,
            whole_keys: L::BYTES == 8,
            ..state
        };
        saves.arrays(state, Some((&self.buckets, &self.low, roots)))
    }
}

/// How a census numbers its positions (0, 1, ... in the order of their
/// keys) and finds a position's number from its key: the sorted keys of
/// an [`Index`], or [`EveryKey`] where every key is a position.
trait Numbering: Sync {
    /// A position's number as lists of positions hold it.
    type Pos: Pos;

    /// How many positions there are.
    fn len(&self) -> usize;

    /// The number of `key`, if it is a position.
    fn of(&self, key: u64) -> Option<usize>;

    /// The key of position `i`.
    fn key_at(&self, i: usize) -> u64;

    /// A reader of the keys at rising numbers from `i`.
    fn cursor(&self, i: usize) -> impl Rising;
}

/// A position's number in a list of positions (a thin level, a
/// component's frontier): four bytes where the numbers fit, eight past
/// 2^32 positions.
trait Pos: Copy + Ord + Send + Sync + 'static {
    /// Number `i`, which fits.
    fn new(i: usize) -> Self;

    /// The number.
    fn at(self) -> usize;
}

impl Pos for u32 {
    #[inline]
    fn new(i: usize) -> u32 {
        debug_assert!(u32::try_from(i).is_ok(), "position {i} in four bytes");
        i as u32
    }

    #[inline]
    fn at(self) -> usize {
        self as usize
    }
}

impl Pos for u64 {
    #[inline]
    fn new(i: usize) -> u64 {
        i as u64
    }

    #[inline]
    fn at(self) -> usize {
        self as usize
    }
}

/// Reads the keys of positions at rising numbers.
trait Rising {
    /// The key of position `i`, no lower than the last one read.
    fn key(&mut self, i: usize) -> u64;
}

impl<L: Low> Numbering for Index<L> {
    type Pos = u32;

    fn len(&self) -> usize {
        self.low.len()
    }

    #[inline]
    fn of(&self, key: u64) -> Option<usize> {
        let h = (key >> self.shift) as usize;
        if h >= self.buckets.len() - 1 {
            return None;
        }
        let (lo, hi) = (self.buckets[h] as usize, self.buckets[h + 1] as usize);
        self.low[lo..hi]
            .binary_search(&L::cut(key, self.shift))
            .ok()
            .map(|i| lo + i)
    }

    fn key_at(&self, i: usize) -> u64 {
        self.low[i].whole(self.bucket_of(i) as u64, self.shift)
    }

    fn cursor(&self, i: usize) -> impl Rising {
        let h = self.bucket_of(i.min(self.len().saturating_sub(1)));
        Cursor {
            index: self,
            h,
            end: self.buckets[h + 1] as usize,
        }
    }
}

/// Every key below the model's key space, each a position
/// ([`Model::keys_are_states`]: a tile board, a twisty puzzle's pattern),
/// numbered by itself: the census lists nothing and keeps no key. Its
/// lists hold `P`: `u32` below 2^32 keys, else `u64`.
struct EveryKey<P>(usize, PhantomData<P>);

impl<P: Pos> EveryKey<P> {
    fn new(n: usize) -> EveryKey<P> {
        EveryKey(n, PhantomData)
    }
}

impl<P: Pos> Numbering for EveryKey<P> {
    type Pos = P;

    fn len(&self) -> usize {
        self.0
    }

    #[inline]
    fn of(&self, key: u64) -> Option<usize> {
        (key < self.0 as u64).then_some(key as usize)
    }

    fn key_at(&self, i: usize) -> u64 {
        i as u64
    }

    fn cursor(&self, _: usize) -> impl Rising {
        Itself
    }
}

/// A position's key is its number.
struct Itself;

impl Rising for Itself {
    #[inline]
    fn key(&mut self, i: usize) -> u64 {
        i as u64
    }
}

/// Reads keys at rising indices, following the buckets along.
struct Cursor<'a, L> {
    index: &'a Index<L>,
    /// The bucket of the last index read, and where it ends.
    h: usize,
    end: usize,
}

impl<L: Low> Rising for Cursor<'_, L> {
    /// A few buckets on are walked to, farther ones found by a galloping
    /// search (the positions of a thin level lie far apart, though not
    /// very far).
    #[inline]
    fn key(&mut self, i: usize) -> u64 {
        let buckets = &self.index.buckets;
        let mut steps = 0;
        while i >= self.end {
            steps += 1;
            if steps > 4 {
                // rest[0] <= i: double until past i, then search between.
                let rest = &buckets[self.h + 1..];
                let mut hi = 1;
                while hi < rest.len() && rest[hi] as usize <= i {
                    hi *= 2;
                }
                let lo = hi / 2;
                let hi = hi.min(rest.len());
                self.h += lo + rest[lo..hi].partition_point(|&b| b as usize <= i);
            } else {
                self.h += 1;
            }
            self.end = buckets[self.h + 1] as usize;
        }
        self.index.low[i].whole(self.h as u64, self.index.shift)
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

/// The components once joined: each word is its position's root, or, at
/// a root, [`ROOT`] and the component's size.
struct Roots(Vec<AtomicU32>);

impl Roots {
    /// Flattens the union-find (every node straight below its root), then
    /// writes each root's size in its own word. Each pass only writes
    /// words no other reads in that pass (a root's own word in the first
    /// two; in the third, roots' words, which non-roots point at and
    /// roots skip), and the passes are rayon joins apart.
    fn new(parent: Vec<AtomicU32>) -> Roots {
        let n = parent.len();
        (0..n).into_par_iter().for_each(|i| {
            let root = find(&parent, i as u32);
            parent[i].store(root, Ordering::Relaxed);
        });
        parent.par_iter().enumerate().for_each(|(i, p)| {
            if p.load(Ordering::Relaxed) == i as u32 {
                p.store(ROOT | 1, Ordering::Relaxed);
            }
        });
        parent.par_iter().for_each(|p| {
            let r = p.load(Ordering::Relaxed);
            if r & ROOT == 0 {
                parent[r as usize].fetch_add(1, Ordering::Relaxed);
            }
        });
        Roots(parent)
    }

    /// Whether every word names a root (a checkpoint's, read back).
    fn whole(&self) -> bool {
        let n = self.0.len();
        self.0.par_iter().all(|p| {
            let p = p.load(Ordering::Relaxed);
            p & ROOT != 0
                || ((p as usize) < n && self.0[p as usize].load(Ordering::Relaxed) & ROOT != 0)
        })
    }

    /// The root of `i`'s component.
    #[inline]
    fn root(&self, i: usize) -> usize {
        let p = self.0[i].load(Ordering::Relaxed);
        if p & ROOT != 0 { i } else { p as usize }
    }

    /// The size of `i`'s component.
    #[inline]
    fn size(&self, i: usize) -> u64 {
        u64::from(self.0[self.root(i)].load(Ordering::Relaxed) & !ROOT)
    }
}

/// Two bits a position: how far the breadth-first search from the goal
/// has taken it.
struct Codes(Vec<AtomicU64>);

/// Not reached yet.
const UNSEEN: u64 = 0;
/// In the level being expanded.
const FRONTIER: u64 = 1;
/// Reached by the level being expanded.
const NEXT: u64 = 2;
// (3: expanded.)

/// The low bit of every two-bit code in a word.
const LOW_BITS: u64 = 0x5555_5555_5555_5555;

/// Positions a word of codes holds.
const PER_WORD: usize = 32;

impl Codes {
    fn new(n: usize) -> Codes {
        Codes(
            (0..n.div_ceil(PER_WORD))
                .into_par_iter()
                .map(|_| AtomicU64::new(0))
                .collect(),
        )
    }

    /// The code of `i`.
    #[inline]
    fn code(&self, i: usize) -> u64 {
        (self.0[i / PER_WORD].load(Ordering::Relaxed) >> (2 * (i % PER_WORD))) & 3
    }

    /// Puts `i` in the frontier (from unseen: the word's other codes are
    /// untouched).
    fn set_frontier(&self, i: usize) {
        self.0[i / PER_WORD].fetch_or(FRONTIER << (2 * (i % PER_WORD)), Ordering::Relaxed);
    }

    /// Marks `i` reached by this level if it was unseen; whether this call
    /// marked it. The compare-and-swap keeps the word's other codes,
    /// whoever writes them meanwhile, and makes exactly one caller the
    /// first. (Relaxed: the word carries no other data, and the level's
    /// end, a rayon join, orders every mark before the pass that reads
    /// them.)
    #[inline]
    fn mark(&self, i: usize) -> bool {
        let word = &self.0[i / PER_WORD];
        let shift = 2 * (i % PER_WORD);
        let mut old = word.load(Ordering::Relaxed);
        loop {
            if (old >> shift) & 3 != UNSEEN {
                return false;
            }
            match word.compare_exchange_weak(
                old,
                old | (NEXT << shift),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(now) => old = now,
            }
        }
    }

    /// Marks frontier position `i` expanded (1 to 3), whatever the word's
    /// other codes do meanwhile (each lane is changed by one caller).
    #[inline]
    fn expanded(&self, i: usize) {
        self.0[i / PER_WORD].fetch_or(NEXT << (2 * (i % PER_WORD)), Ordering::Relaxed);
    }

    /// Puts `i`, reached by this level, in the frontier (2 to 1), as
    /// [`Codes::expanded`] does.
    #[inline]
    fn enter(&self, i: usize) {
        self.0[i / PER_WORD].fetch_xor(3 << (2 * (i % PER_WORD)), Ordering::Relaxed);
    }

    /// The frontier's positions in word `w`, as a mask of the codes' low
    /// bits.
    #[inline]
    fn frontier_in(&self, w: usize) -> u64 {
        let v = self.0[w].load(Ordering::Relaxed);
        v & !(v >> 1) & LOW_BITS
    }

    /// Ends a level in word `w`: the frontier is expanded, and what it
    /// reached becomes the frontier. Returns the new frontier's mask.
    #[inline]
    fn advance(&self, w: usize) -> u64 {
        let v = self.0[w].load(Ordering::Relaxed);
        let lo = v & LOW_BITS;
        let hi = (v >> 1) & LOW_BITS;
        // 1 -> 3, 2 -> 1, 3 -> 3, 0 -> 0.
        self.0[w].store((lo | hi) | (lo << 1), Ordering::Relaxed);
        hi & !lo
    }
}

/// The positions of `mask` (low bits of the codes of word `w`) in rising
/// order.
#[inline]
fn positions_in(w: usize, mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let lane = mask.trailing_zeros() as usize / 2;
            mask &= mask - 1;
            w * PER_WORD + lane
        })
    })
}

/// The smallest `top` indices of a level, which the hardest starts are
/// chosen from.
type Smallest = Vec<u64>;

/// Keeps the first `top` of `a` then `b` (each rising, `a` below `b`).
fn first_of(mut a: Smallest, b: Smallest, top: usize) -> Smallest {
    if a.len() < top {
        a.extend(b.into_iter().take(top - a.len()));
    }
    a
}

/// Adds a level of the distances (`width` positions, the smallest of
/// them `smallest`) to `levels` and `tail`, dropping the oldest of `tail`
/// while the newer ones hold `top`.
fn push_level(
    levels: &mut Vec<u64>,
    tail: &mut Vec<TailLevel>,
    width: u64,
    smallest: Smallest,
    top: usize,
) {
    let depth = levels.len() as u32;
    levels.push(width);
    tail.push(TailLevel { depth, smallest });
    while tail.len() > 1
        && tail[1..]
            .iter()
            .map(|t| levels[t.depth as usize])
            .sum::<u64>()
            >= top as u64
    {
        tail.remove(0);
    }
}

/// The distances measured so far: their levels, the last levels' smallest
/// indices, and what the goal's components hold.
struct Front {
    levels: Vec<u64>,
    tail: Vec<TailLevel>,
    goal_components: u64,
    solvable: u64,
}

impl Front {
    fn distances(self, hardest: Vec<HardStart>) -> Distances {
        Distances {
            goal_positions: self.levels[0],
            goal_components: self.goal_components,
            solvable: self.solvable,
            levels: self.levels,
            hardest,
        }
    }
}

/// The stop a storage fault of the checkpoint makes, saying whether the
/// checkpoint can be resumed.
fn storage_stop(e: &SpillError, saves: &Saves) -> StopReason {
    StopReason::Storage(fault_text(e, Some(saves.dir())))
}

/// The first successor a pass found outside the positions: the model
/// broke [`EveryPosition`]'s promise.
#[derive(Default)]
struct Stray(Mutex<Option<SearchError>>);

impl Stray {
    /// `successor`, of listed position `key`, is not among the positions.
    #[cold]
    fn found(&self, key: u64, successor: u64) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| {
            SearchError::Unsearchable(format!(
                "the census listed position {key}, whose successor {successor} is not among the positions listed: the model's list of positions is incomplete (a bug: please report it)"
            ))
        });
    }

    /// The pass's verdict.
    fn check(self) -> Result<(), SearchError> {
        match self.0.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The refusal of a census of `n` positions, more than its numbers hold.
fn too_many(n: u64) -> SearchError {
    SearchError::Unsearchable(format!(
        "the census holds at most {} positions, and this puzzle has {n}",
        ROOT - 1
    ))
}

/// The refusal of an every-key census of `n` positions that would need
/// its components joined (see [`Walk::every_key_in`]), for `why`.
fn too_many_to_join(n: u64, why: &str) -> SearchError {
    SearchError::Unsearchable(format!(
        "this puzzle has {n} positions, and past {} a census finds its components only by measuring every distance from one goal position, but {why}",
        ROOT - 1
    ))
}

/// The components from their sizes, checked to hold the `n` positions,
/// the start's of size `start`.
fn tally(mut sizes: Vec<u64>, n: u64, start: u64) -> Result<Components, SearchError> {
    sizes.par_sort_unstable();
    let mut size_histogram: Vec<(u64, u64)> = Vec::new();
    for &size in &sizes {
        match size_histogram.last_mut() {
            Some((s, k)) if *s == size => *k += 1,
            _ => size_histogram.push((size, 1)),
        }
    }
    let sum: u64 = sizes.iter().sum();
    if sum != n {
        return Err(SearchError::Unsearchable(format!(
            "the census's components hold {sum} positions of {n} (a bug: please report it)"
        )));
    }
    Ok(Components {
        count: sizes.len() as u64,
        size_histogram,
        start,
    })
}

/// Components an every-key census finds one by one before it joins them
/// all instead (each costs a scan and a search of its own; a join costs
/// four bytes a position and a pass).
const FLOODS: usize = 1 << 12;

/// What a flood found: the sizes of every component, and the start's.
type Flooded = (Vec<u64>, u64);

/// What the join leaves: each position's parent, and the goal positions.
type Joined = (Vec<AtomicU32>, Vec<u32>);

/// Words of codes a worker takes at once.
const WORDS_PER_CHUNK: usize = 256;

impl<M: EveryPosition> Search<'_, M> {
    /// Every position of the model's pieces, split into components, with
    /// each position's distance to the nearest goal position and the `top`
    /// hardest starts (see [`census`](crate::engine::census)). Honours the
    /// threads, the stop flag, `max_depth` (of the distances), the memory
    /// limit and the progress callback; a stop returns what was found so
    /// far. Needs reversible moves.
    pub fn census(self, top: usize) -> Result<Census, SearchError> {
        self.censusable()?;
        if self.peers.is_some_and(|p| p.processes() > 1) {
            return self.census_across(top);
        }
        let saves = match &self.spill {
            Some(spill) if spill.checkpoint => Some(Saves::create(spill, &self.identity()?)?),
            _ => None,
        };
        let walk = self.walk();
        super::search::in_pool(walk.threads, || walk.run(top, saves))?
    }

    /// Continues the census saved in `checkpoint` (a census of this
    /// search's model, checked by identity; see [`Spill::checkpoint`]) from
    /// its last saved level, to what an uninterrupted census would have
    /// found. Threads and limits are this search's.
    pub fn resume_census(self, top: usize, checkpoint: &Checkpoint) -> Result<Census, SearchError> {
        self.censusable()?;
        if self.peers.is_some_and(|p| p.processes() > 1) {
            return self.resume_across(top, checkpoint);
        }
        if checkpoint.process().1 > 1 {
            let (me, n) = checkpoint.process();
            return Err(SearchError::Checkpoint(format!(
                "{} is process {me}'s part of a census on {n} processes: resume the whole run on {n} processes",
                checkpoint.dir.display()
            )));
        }
        let spill = self.resume_spill(checkpoint);
        let (saves, loaded) = Saves::resume(checkpoint, &spill, &self.identity()?)?;
        let walk = self.walk();
        super::search::in_pool(walk.threads, || walk.resume(top, saves, loaded))?
    }

    /// The census across the search's processes (see [`ranks`]): of a
    /// model whose every key is a position, each process's checkpoint (if
    /// asked) in `DIR/process-I`.
    fn census_across(self, top: usize) -> Result<Census, SearchError> {
        self.across_processes()?;
        let peers = self.connect("census")?;
        let saves = match &self.spill {
            Some(spill) if spill.checkpoint => {
                let run = agree::run_name(peers)?;
                let place = (peers.me(), peers.processes());
                let made = self
                    .identity()
                    .and_then(|id| Ok(Saves::create_across(spill, &id, place, run)?));
                Some(ranks::agreed(peers, made, "make its checkpoint")?)
            }
            _ => None,
        };
        let walk = self.walk();
        super::search::in_pool(walk.threads, || walk.across(peers, top, saves, None))?
    }

    /// Goes on with the census across the search's processes that
    /// `checkpoint` (this process's, `DIR/process-I`) is part of: every
    /// process from the last save that all of them have (a process killed
    /// while the others saved may be one save behind them).
    fn resume_across(self, top: usize, checkpoint: &Checkpoint) -> Result<Census, SearchError> {
        self.across_processes()?;
        let peers = self.connect("resume census")?;
        let spill = self.resume_spill(checkpoint);
        let opened = self
            .identity()
            .and_then(|id| Ok(Saves::open(checkpoint, &spill, &id)?));
        let opened = ranks::agreed(peers, opened, "open its checkpoint")?;
        // Every process's manifest is of this run, in its place; the
        // last save of the one furthest behind is one that all have.
        let depth = agree::resume_levels(peers, checkpoint)? as u32 - 1;
        let loaded = opened.load(depth).map_err(SearchError::from);
        let (saves, loaded) = ranks::agreed(peers, loaded, "read its checkpoint")?;
        let walk = self.walk();
        super::search::in_pool(walk.threads, || {
            walk.across(peers, top, Some(saves), Some(loaded))
        })?
    }

    /// The spill a resumed census keeps its checkpoint in: the search's,
    /// in the checkpoint's directory, durable.
    fn resume_spill(&self, checkpoint: &Checkpoint) -> Spill {
        Spill {
            dir: checkpoint.dir.clone(),
            checkpoint: true,
            ..self
                .spill
                .clone()
                .unwrap_or_else(|| Spill::new(checkpoint.dir.clone()))
        }
    }

    /// Refuses a census across processes of a model whose positions are
    /// listed.
    fn across_processes(&self) -> Result<(), SearchError> {
        if self.model.keys_are_states() {
            return Ok(());
        }
        Err(SearchError::Unsearchable(
            "across processes, a census walks a puzzle whose every key is a position (a twisty puzzle without `Illegal` lines); this one's positions are listed, and the list is one process's\n  help: run it as one process".into(),
        ))
    }

    /// Refuses a model a census cannot walk.
    fn censusable(&self) -> Result<(), SearchError> {
        if !self.model.reversible() {
            return Err(SearchError::NotReversible);
        }
        if let Some(why) = self.model.unsearchable() {
            return Err(SearchError::Unsearchable(why));
        }
        Ok(())
    }

    /// The model's identity, which a checkpoint is written for.
    fn identity(&self) -> Result<String, SearchError> {
        let identity = self.model.identity();
        if identity.is_empty() {
            return Err(SearchError::NoIdentity);
        }
        Ok(identity)
    }

    fn walk(&self) -> Walk<'_, M> {
        Walk {
            limits: self.limits(),
            model: self.model,
            threads: self.thread_count(),
            began: Instant::now(),
        }
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

    fn empty(&self) -> Census {
        Census {
            positions: 0,
            all_listed: false,
            components: None,
            goal: None,
            stopped: None,
            seconds: 0.0,
            threads: self.threads,
        }
    }

    /// The census, its checkpoint in `saves` if asked.
    fn run(self, top: usize, mut saves: Option<Saves>) -> Result<Census, SearchError> {
        let mut census = self.empty();
        self.passes(top, &mut census, &mut saves)?;
        self.end(census, saves)
    }

    /// Ends the census: its time, and its checkpoint removed or left.
    fn end(&self, mut census: Census, saves: Option<Saves>) -> Result<Census, SearchError> {
        census.seconds = saves.as_ref().map_or(self.seconds(), Saves::seconds);
        if let Some(saves) = saves {
            saves.finish(census.stopped.is_none())?;
        }
        Ok(census)
    }

    /// Goes on with the census saved in a checkpoint: `loaded`, read back
    /// by `saves`.
    fn resume(self, top: usize, saves: Saves, loaded: Loaded) -> Result<Census, SearchError> {
        let mut census = self.empty();
        census.positions = loaded.state.positions;
        census.all_listed = true;
        let n = loaded.state.positions as usize;
        let dir = saves.dir().to_path_buf();
        let broken = |what: &'static str| {
            SearchError::Checkpoint(format!(
                "{}: {what} (its checksums match: it was written so)",
                dir.display()
            ))
        };
        if !loaded.tail_within(n as u64) {
            return Err(broken("its hardest starts lie outside its levels"));
        }
        let codes = Codes(loaded.codes);
        let mut saves = Some(saves);
        if let Keys::Every = loaded.keys {
            if !self.model.keys_are_states() || self.model.key_space() != n as u64 {
                return Err(broken("its positions are not its model's every key"));
            }
            self.floodable(n as u64)?;
            let front = Front {
                levels: loaded.levels,
                tail: loaded.state.tail.clone(),
                goal_components: 0,
                solvable: 0,
            };
            let wide = u32::try_from(n).is_err();
            self.every_key_on(wide, &codes, Some(front), top, &mut census, &mut saves)?;
            return self.end(census, saves);
        }
        let roots = Roots(loaded.roots);
        if !roots.whole() {
            return Err(broken("its components do not name their roots"));
        }
        let front = Front {
            levels: loaded.levels,
            tail: loaded.state.tail.clone(),
            goal_components: loaded.state.goal_components,
            solvable: loaded.state.solvable,
        };
        let (shift, buckets) = (loaded.state.shift, loaded.buckets);
        let (components, measured) = match loaded.keys {
            Keys::Cut(low) => {
                let index = Index::read(low, buckets, shift).map_err(broken)?;
                self.go_on(&index, &roots, &codes, front, top, &mut saves)?
            }
            Keys::Whole(low) => {
                let index = Index::read(low, buckets, shift).map_err(broken)?;
                self.go_on(&index, &roots, &codes, front, top, &mut saves)?
            }
            Keys::Every => unreachable!("gone on with above"),
        };
        census.components = Some(components);
        (census.goal, census.stopped) = (Some(measured.0), measured.1);
        self.end(census, saves)
    }

    /// The resumed census's components and the rest of its distances.
    fn go_on<N: Numbering>(
        &self,
        index: &N,
        roots: &Roots,
        codes: &Codes,
        front: Front,
        top: usize,
        saves: &mut Option<Saves>,
    ) -> Result<(Components, (Distances, Option<StopReason>)), SearchError> {
        let components = self.components(index, roots)?;
        let (front, stopped) = self.measure(index, codes, top, front, saves)?;
        let measured = Self::ended(index, front, stopped, top, |i| roots.size(i))?;
        Ok((components, measured))
    }

    /// The three passes, filling in `census`.
    fn passes(
        &self,
        top: usize,
        census: &mut Census,
        saves: &mut Option<Saves>,
    ) -> Result<(), SearchError> {
        if self.model.keys_are_states() {
            let wide = u32::try_from(self.model.key_space()).is_err();
            return self.every_key(wide, top, census, saves);
        }
        let keys = match self.list() {
            Ok(keys) => keys,
            Err((why, listed)) => {
                census.positions = listed;
                census.stopped = Some(why);
                return Ok(());
            }
        };
        if keys.len() >= ROOT as usize {
            return Err(too_many(keys.len() as u64));
        }
        census.positions = keys.len() as u64;
        census.all_listed = true;
        if let Some(why) = self.room_for(keys.len() as u64 * (BYTES_PER_POSITION - 8)) {
            census.stopped = Some(why);
            return Ok(());
        }
        match cut_shift(&keys) {
            Some(shift) => {
                let index = Index::new(keys, shift, |keys| {
                    keys.par_iter().map(|&k| u32::cut(k, shift)).collect()
                });
                self.rest(index, top, census, saves)
            }
            None => {
                let shift = natural_shift(&keys);
                let index = Index::new(keys, shift, |keys| keys);
                self.rest(index, top, census, saves)
            }
        }
    }

    /// The census where every key below the key space is a position
    /// (nothing to list): the distances first, over two bits a position;
    /// then the components (see [`Walk::every_key_in`]). Its lists hold
    /// eight bytes a position where `wide`, else four (which must fit).
    fn every_key(
        &self,
        wide: bool,
        top: usize,
        census: &mut Census,
        saves: &mut Option<Saves>,
    ) -> Result<(), SearchError> {
        let n = self.model.key_space();
        self.floodable(n)?;
        census.positions = n;
        census.all_listed = true;
        // The codes, and at most a sixteenth of a byte a position in each
        // of a level's lists: the frontier's, the new level's as marked
        // and as gathered (see `step`).
        if let Some(why) = self.room_for(n.div_ceil(4) + 3 * n.div_ceil(16)) {
            census.stopped = Some(why);
            return Ok(());
        }
        let codes = Codes::new(n as usize);
        let mut front = None;
        if self.model.has_goal() {
            self.goal_frontier(0, n, &codes);
            let (goal_positions, _, smallest) = Self::goals(None, &codes, top);
            if n >= u64::from(ROOT) && goal_positions != 1 {
                let why = format!("its goal has {goal_positions} positions");
                return Err(too_many_to_join(n, &why));
            }
            let first = Front {
                levels: vec![goal_positions],
                tail: vec![TailLevel { depth: 0, smallest }],
                goal_components: 0,
                solvable: 0,
            };
            if let Some(s) = saves {
                let state = CensusState {
                    positions: n,
                    every_key: true,
                    ..CensusState::default()
                };
                let saved = s
                    .arrays::<u32>(state, None)
                    .and_then(|()| s.level(&codes.0, &first.levels, first.tail.clone()));
                if let Err(e) = saved {
                    census.stopped = Some(storage_stop(&e, s));
                    return Ok(());
                }
            }
            front = Some(first);
        }
        self.every_key_on(wide, &codes, front, top, census, saves)
    }

    /// Refuses an every-key census of `n` positions that could not find
    /// its components: past the union-find's numbers, only the flood
    /// from one goal position, after every distance, finds them.
    fn floodable(&self, n: u64) -> Result<(), SearchError> {
        if n < u64::from(ROOT) {
            return Ok(());
        }
        if !self.model.has_goal() {
            return Err(too_many_to_join(n, "the puzzle has no goal"));
        }
        if self.limits.max_depth.is_some() {
            return Err(too_many_to_join(n, "--max-depth stops the distances"));
        }
        Ok(())
    }

    /// Puts every goal position among keys `lo..hi` in the first frontier
    /// (`codes` numbers them from `lo`): the model's goal keys where it
    /// knows them, else every key's position asked.
    fn goal_frontier(&self, lo: u64, hi: u64, codes: &Codes) {
        if let Some(keys) = self.model.goal_keys() {
            for k in keys.into_iter().filter(|k| (lo..hi).contains(k)) {
                codes.set_frontier((k - lo) as usize);
            }
            return;
        }
        let (len, chunk) = ((hi - lo) as usize, WORDS_PER_CHUNK * PER_WORD);
        (0..len).into_par_iter().step_by(chunk).for_each_init(
            || self.model.new_state(),
            |state, first| {
                for i in first..(first + chunk).min(len) {
                    self.model.decode(lo + i as u64, state);
                    if self.model.is_goal(state) {
                        codes.set_frontier(i);
                    }
                }
            },
        );
    }

    /// [`Walk::every_key_in`] over every key, listed in eight bytes a
    /// position where `wide`, else in four.
    fn every_key_on(
        &self,
        wide: bool,
        codes: &Codes,
        front: Option<Front>,
        top: usize,
        census: &mut Census,
        saves: &mut Option<Saves>,
    ) -> Result<(), SearchError> {
        let n = self.model.key_space() as usize;
        if wide {
            self.every_key_in(&EveryKey::<u64>::new(n), codes, front, top, census, saves)
        } else {
            self.every_key_in(&EveryKey::<u32>::new(n), codes, front, top, census, saves)
        }
    }

    /// An every-key census from its distances' `front` on (its first
    /// level, or the last a checkpoint saved; `None`: no goal), then its
    /// components. Stopped while it measures (but for `--max-depth`), it
    /// knows neither yet: a resume goes on.
    fn every_key_in<P: Pos>(
        &self,
        index: &EveryKey<P>,
        codes: &Codes,
        front: Option<Front>,
        top: usize,
        census: &mut Census,
        saves: &mut Option<Saves>,
    ) -> Result<(), SearchError> {
        let measured = match front {
            Some(front) => Some(self.measure(index, codes, top, front, saves)?),
            None => None,
        };
        if let Some((_, Some(why))) = &measured
            && !matches!(why, StopReason::MaxDepth(_))
        {
            census.stopped = Some(why.clone());
            return Ok(());
        }
        let n = index.len() as u64;
        // From one goal position, the distances reached its component:
        // the others are searched one by one, where they are few.
        let one_goal = measured
            .as_ref()
            .filter(|(f, stopped)| stopped.is_none() && f.levels[0] == 1)
            .map(|(f, _)| f.levels.iter().sum::<u64>());
        let mut flooded = None;
        if let Some(reached) = one_goal {
            match self.flood(index, codes, reached)? {
                Some((sizes, start)) => flooded = Some((tally(sizes, n, start)?, reached)),
                None if self.stopped() => {
                    census.stopped = Some(self.stop_reason());
                    return Ok(());
                }
                None => {}
            }
        }
        let sizes: Box<dyn Fn(usize) -> u64 + Sync>;
        let mut goal_roots = Vec::new();
        if let Some((components, reached)) = flooded {
            census.components = Some(components);
            goal_roots.push(0);
            sizes = Box::new(move |_| reached);
        } else {
            if n >= u64::from(ROOT) {
                return Err(too_many_to_join(
                    n,
                    "its distances stopped before their end",
                ));
            }
            if let Some(why) = self.room_for(n * 4) {
                census.stopped = Some(why);
                return Ok(());
            }
            let Some((parent, goals)) = self.join(index)? else {
                census.stopped = Some(self.stop_reason());
                return Ok(());
            };
            let roots = Roots::new(parent);
            census.components = Some(self.components(index, &roots)?);
            goal_roots = goals.iter().map(|&g| roots.root(g as usize)).collect();
            goal_roots.sort_unstable();
            goal_roots.dedup();
            sizes = Box::new(move |i| roots.size(i));
        }
        if let Some((mut front, stopped)) = measured {
            front.goal_components = goal_roots.len() as u64;
            front.solvable = goal_roots.iter().map(|&r| sizes(r)).sum();
            let (distances, stopped) = Self::ended(index, front, stopped, top, sizes)?;
            census.goal = Some(distances);
            census.stopped = stopped;
        }
        Ok(())
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

    /// Passes 2 and 3 over the index, filling in `census`.
    fn rest<L: Low>(
        &self,
        index: Index<L>,
        top: usize,
        census: &mut Census,
        saves: &mut Option<Saves>,
    ) -> Result<(), SearchError> {
        let codes = Codes::new(index.len());
        let Some((parent, goals)) = self.join(&index)? else {
            census.stopped = Some(self.stop_reason());
            return Ok(());
        };
        for &i in &goals {
            codes.set_frontier(i as usize);
        }
        let roots = Roots::new(parent);
        census.components = Some(self.components(&index, &roots)?);
        if self.model.has_goal() {
            let (distances, stopped) = self.distances(&index, &roots, &codes, top, saves)?;
            census.goal = Some(distances);
            census.stopped = stopped;
        }
        Ok(())
    }

    /// Pass 2: the union-find over the moves, and the goal positions
    /// (rising). `None` when stopped.
    fn join<N: Numbering>(&self, index: &N) -> Result<Option<Joined>, SearchError> {
        let n = index.len();
        let parent: Vec<AtomicU32> = (0..n as u32).into_par_iter().map(AtomicU32::new).collect();
        let chunk = WORDS_PER_CHUNK * PER_WORD;
        let batch = (n / 64).max(1 << 16).next_multiple_of(chunk);
        let mut from = 0;
        let mut goals: Vec<u32> = Vec::new();
        while from < n {
            if self.stopped() {
                return Ok(None);
            }
            let to = (from + batch).min(n);
            let stray = Stray::default();
            let found: Vec<Vec<u32>> = (from..to)
                .into_par_iter()
                .step_by(chunk)
                .map_init(
                    || (self.model.new_state(), Vec::new()),
                    |(state, out), first| {
                        let mut goals = Vec::new();
                        let mut cursor = index.cursor(first);
                        for i in first..(first + chunk).min(to) {
                            let key = cursor.key(i);
                            self.model.decode(key, state);
                            out.clear();
                            self.model.successors(state, out);
                            for &next in out.iter() {
                                match index.of(next) {
                                    // Moves are reversible: each edge is
                                    // seen from both ends, and joined from
                                    // one.
                                    Some(j) if j < i => join(&parent, i as u32, j as u32),
                                    Some(_) => {}
                                    None => stray.found(key, next),
                                }
                            }
                            if self.model.is_goal(state) {
                                goals.push(i as u32);
                            }
                        }
                        goals
                    },
                )
                .collect();
            stray.check()?;
            goals.extend(found.into_iter().flatten());
            from = to;
            self.tell("joining components", 0, 0, to as u64, n as u64);
        }
        Ok(Some((parent, goals)))
    }

    fn components<N: Numbering>(
        &self,
        index: &N,
        roots: &Roots,
    ) -> Result<Components, SearchError> {
        let sizes: Vec<u64> = roots
            .0
            .par_iter()
            .filter_map(|p| {
                let p = p.load(Ordering::Relaxed);
                (p & ROOT != 0).then_some(u64::from(p & !ROOT))
            })
            .collect();
        let at = self.start_at(index)?;
        tally(sizes, index.len() as u64, roots.size(at))
    }

    /// The start's number among the positions.
    fn start_at<N: Numbering>(&self, index: &N) -> Result<usize, SearchError> {
        let start = self.model.start();
        index.of(start).ok_or_else(|| {
            SearchError::Unsearchable(format!(
                "the start's key {start} is not among the positions the census listed (a bug: please report it)"
            ))
        })
    }

    /// Every component, once the distances from one goal position have
    /// reached its, of `reached` positions: the others (the codes' unseen
    /// positions) each by a breadth-first search from its smallest
    /// position over the codes, as the distances are measured (lists while
    /// a level is thin, a sweep of the codes while it is wide). Their
    /// sizes, and the start's. `None` past [`FLOODS`] components (a join
    /// is then the cheaper way) or when stopped.
    fn flood<P: Pos>(
        &self,
        index: &EveryKey<P>,
        codes: &Codes,
        reached: u64,
    ) -> Result<Option<Flooded>, SearchError> {
        let n = index.len();
        // Past the union-find's numbers, every component is searched.
        let floods = if n < ROOT as usize {
            FLOODS
        } else {
            usize::MAX
        };
        let start = self.start_at(index)?;
        let mut start_size = (codes.code(start) != UNSEEN).then_some(reached);
        let mut sizes = vec![reached];
        // Positions in the components found so far, for the progress line.
        let mut done = reached;
        let mut w = 0;
        while w < codes.0.len() {
            let v = codes.0[w].load(Ordering::Relaxed);
            let Some(first) = positions_in(w, !(v | (v >> 1)) & LOW_BITS)
                .next()
                .filter(|&i| i < n)
            else {
                w += 1;
                continue;
            };
            if sizes.len() > floods {
                return Ok(None);
            }
            codes.set_frontier(first);
            let mut list = Some(vec![P::new(first)]);
            let mut size = 1;
            loop {
                if self.stopped() {
                    return Ok(None);
                }
                let (width, _) = self.step(index, codes, &mut list, 0)?;
                if width == 0 {
                    break;
                }
                size += width;
                if list.is_none() {
                    self.tell("other components", 0, 0, done + size, n as u64);
                }
            }
            if start_size.is_none() && codes.code(start) != UNSEEN {
                start_size = Some(size);
            }
            sizes.push(size);
            done += size;
            self.tell("other components", 0, 0, done, n as u64);
        }
        let start = start_size.expect("the start lies in a component");
        Ok(Some((sizes, start)))
    }

    /// Pass 3: the breadth-first search from every goal position at once,
    /// over two bits a position; with a checkpoint, the arrays and its
    /// first level saved first.
    fn distances<L: Low>(
        &self,
        index: &Index<L>,
        roots: &Roots,
        codes: &Codes,
        top: usize,
        saves: &mut Option<Saves>,
    ) -> Result<(Distances, Option<StopReason>), SearchError> {
        let (goal_positions, goal_roots, smallest) = Self::goals(Some(roots), codes, top);
        let front = Front {
            levels: vec![goal_positions],
            tail: vec![TailLevel { depth: 0, smallest }],
            goal_components: goal_roots.len() as u64,
            solvable: goal_roots.iter().map(|&r| roots.size(r)).sum(),
        };
        if let Some(s) = saves {
            let state = CensusState {
                positions: index.len() as u64,
                goal_components: front.goal_components,
                solvable: front.solvable,
                ..CensusState::default()
            };
            let saved = index
                .save(s, state, &roots.0)
                .and_then(|()| s.level(&codes.0, &front.levels, front.tail.clone()));
            if let Err(e) = saved {
                return Ok((front.distances(Vec::new()), Some(storage_stop(&e, s))));
            }
        }
        let (front, stopped) = self.measure(index, codes, top, front, saves)?;
        Self::ended(index, front, stopped, top, |i| roots.size(i))
    }

    /// The levels of the distances from `front` on, and why they
    /// stopped short, if they did.
    fn measure<N: Numbering>(
        &self,
        index: &N,
        codes: &Codes,
        top: usize,
        mut front: Front,
        saves: &mut Option<Saves>,
    ) -> Result<(Front, Option<StopReason>), SearchError> {
        let levels = &mut front.levels;
        let tail = &mut front.tail;
        // What the levels will hold: the goal's components, where they are
        // known already; at most every position.
        let solvable = match front.solvable {
            0 => index.len() as u64,
            known => known,
        };
        let mut stopped = None;
        let mut list: Option<Vec<N::Pos>> = None;
        let done: u64 = levels.iter().sum();
        let depth = levels.len() as u32 - 1;
        self.tell(
            "distances from the goal",
            depth,
            levels[depth as usize],
            done,
            solvable,
        );
        while levels.last().is_some_and(|&l| l > 0) {
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
            let (width, smallest) = self.step(index, codes, &mut list, top)?;
            if width == 0 {
                break;
            }
            push_level(levels, tail, width, smallest, top);
            if let Some(s) = saves.as_mut().filter(|s| s.due())
                && let Err(e) = s.level(&codes.0, levels, tail.clone())
            {
                stopped = Some(storage_stop(&e, s));
                break;
            }
            let done = levels.iter().sum();
            self.tell("distances from the goal", depth, width, done, solvable);
        }
        // A stopped census saves its last level, to go on from; one that
        // leaves its checkpoint when complete saves its end.
        // (A complete census whose last save fails is still complete; its
        // checkpoint is the one before.)
        if let Some(s) = saves.as_mut()
            && !matches!(stopped, Some(StopReason::Storage(_)))
            && s.saved() != Some(levels.len() as u32 - 1)
            && (stopped.is_some() || s.leaves())
            && let Err(e) = s.level(&codes.0, levels, tail.clone())
            && stopped.is_some()
        {
            stopped = Some(storage_stop(&e, s));
        }
        Ok((front, stopped))
    }

    /// The distances measured (`front`, stopped for `stopped`) checked
    /// against the goal's components, with the `top` hardest starts, each
    /// with its component's `size`.
    fn ended<N: Numbering>(
        index: &N,
        front: Front,
        stopped: Option<StopReason>,
        top: usize,
        size: impl Fn(usize) -> u64,
    ) -> Result<(Distances, Option<StopReason>), SearchError> {
        let (tail, solvable) = (&front.tail, front.solvable);
        let reached: u64 = front.levels.iter().sum();
        if stopped.is_none() && reached != solvable {
            return Err(SearchError::Unsearchable(format!(
                "the census reached {reached} positions from the goal and its components hold {solvable} (a bug: please report it)"
            )));
        }
        let hardest = if stopped.is_none() {
            // Farthest first; within a level, by index, which is by key.
            tail.iter()
                .rev()
                .flat_map(|t| t.smallest.iter().map(move |&i| (t.depth, i)))
                .take(top)
                .map(|(distance, i)| HardStart {
                    key: index.key_at(i as usize),
                    distance,
                    component: size(i as usize),
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok((front.distances(hardest), stopped))
    }

    /// The goal positions (the first frontier): how many, their
    /// components' roots (where `roots` are known), and their smallest
    /// `top` indices.
    fn goals(roots: Option<&Roots>, codes: &Codes, top: usize) -> (u64, Vec<usize>, Smallest) {
        let (count, mut found, smallest) = (0..codes.0.len())
            .into_par_iter()
            .step_by(WORDS_PER_CHUNK)
            .map(|first| {
                let mut count = 0;
                let mut found: Vec<usize> = Vec::new();
                let mut smallest = Vec::new();
                for w in first..(first + WORDS_PER_CHUNK).min(codes.0.len()) {
                    let mask = codes.frontier_in(w);
                    count += u64::from(mask.count_ones());
                    for i in positions_in(w, mask) {
                        if let Some(root) = roots.map(|r| r.root(i))
                            && found.last() != Some(&root)
                        {
                            found.push(root);
                        }
                        if smallest.len() < top {
                            smallest.push(i as u64);
                        }
                    }
                }
                (count, found, smallest)
            })
            .reduce(
                || (0, Vec::new(), Vec::new()),
                |(c, mut f, s), (c2, f2, s2)| {
                    f.extend(f2);
                    (c + c2, f, first_of(s, s2, top))
                },
            );
        found.par_sort_unstable();
        found.dedup();
        (count, found, smallest)
    }

    /// One level of a breadth-first search over the codes: the frontier
    /// (`list`, or the codes' where `None`) expanded and ended, `list`
    /// left the new frontier's while it is thin (at most a sixteenth of a
    /// byte a position), so that a thin level costs what it holds, not a
    /// sweep of every position's code. The new level's size and smallest
    /// `top` indices.
    fn step<N: Numbering>(
        &self,
        index: &N,
        codes: &Codes,
        list: &mut Option<Vec<N::Pos>>,
        top: usize,
    ) -> Result<(u64, Smallest), SearchError> {
        let cap = codes.0.len() * PER_WORD / 16 / size_of::<N::Pos>();
        let marked = self.expand(index, codes, list.as_deref(), cap)?;
        Ok(match (list.take(), marked) {
            (Some(old), Some(mut new)) => {
                let ended = Self::advance_listed(codes, &old, &mut new, top);
                *list = Some(new);
                ended
            }
            (_, marked) => {
                let ended = Self::advance(codes, top);
                *list = marked.map(|mut new| {
                    new.par_sort_unstable();
                    new
                });
                ended
            }
        })
    }

    /// Expands the frontier (`list`, its positions in rising order, or
    /// else every position whose code says so): marks every unseen
    /// successor of its positions. Returns the positions it marked (in no
    /// order) unless they passed `cap`.
    fn expand<N: Numbering>(
        &self,
        index: &N,
        codes: &Codes,
        list: Option<&[N::Pos]>,
        cap: usize,
    ) -> Result<Option<Vec<N::Pos>>, SearchError> {
        let stray = Stray::default();
        // How many were kept, and whether they passed the cap: counts only
        // (Relaxed); the pass's end, a rayon join, orders them before the
        // last read.
        let kept = AtomicUsize::new(0);
        let over = AtomicBool::new(false);
        let visit = |state: &mut M::State, out: &mut Vec<u64>, marked: &mut Vec<N::Pos>, key| {
            self.model.decode(key, state);
            out.clear();
            self.model.successors(state, out);
            for &succ in out.iter() {
                match index.of(succ) {
                    Some(j) => {
                        if codes.mark(j) {
                            marked.push(N::Pos::new(j));
                        }
                    }
                    None => stray.found(key, succ),
                }
            }
        };
        let keep = |mut marked: Vec<N::Pos>| {
            let n = marked.len();
            if over.load(Ordering::Relaxed) || kept.fetch_add(n, Ordering::Relaxed) + n > cap {
                over.store(true, Ordering::Relaxed);
                marked = Vec::new();
            }
            marked
        };
        let init = || (self.model.new_state(), Vec::new());
        let lists: Vec<Vec<N::Pos>> = match list {
            Some(list) => list
                .par_chunks(WORDS_PER_CHUNK * 4)
                .map_init(init, |(state, out), chunk| {
                    let mut cursor = index.cursor(chunk[0].at());
                    let mut marked = Vec::new();
                    for &i in chunk {
                        visit(state, out, &mut marked, cursor.key(i.at()));
                    }
                    keep(marked)
                })
                .collect(),
            None => (0..codes.0.len())
                .into_par_iter()
                .step_by(WORDS_PER_CHUNK)
                .map_init(init, |(state, out), first| {
                    let mut cursor = None;
                    let mut marked = Vec::new();
                    for w in first..(first + WORDS_PER_CHUNK).min(codes.0.len()) {
                        for i in positions_in(w, codes.frontier_in(w)) {
                            let key = cursor.get_or_insert_with(|| index.cursor(i)).key(i);
                            visit(state, out, &mut marked, key);
                        }
                    }
                    keep(marked)
                })
                .collect(),
        };
        stray.check()?;
        Ok((!over.load(Ordering::Relaxed)).then(|| lists.concat()))
    }

    /// Ends a level whose frontier and new positions are both listed
    /// (`old`, `new`): only their codes change. The new frontier's size
    /// and smallest `top` indices; `new` is left sorted.
    fn advance_listed<P: Pos>(
        codes: &Codes,
        old: &[P],
        new: &mut [P],
        top: usize,
    ) -> (u64, Smallest) {
        old.par_iter().for_each(|&i| codes.expanded(i.at()));
        new.par_sort_unstable();
        new.par_iter().for_each(|&j| codes.enter(j.at()));
        let smallest = new[..top.min(new.len())].iter().map(|&i| i.at() as u64);
        (new.len() as u64, smallest.collect())
    }

    /// Ends a level: the new frontier's size and smallest `top` indices.
    fn advance(codes: &Codes, top: usize) -> (u64, Smallest) {
        (0..codes.0.len())
            .into_par_iter()
            .step_by(WORDS_PER_CHUNK)
            .map(|first| {
                let mut count = 0;
                let mut smallest = Vec::new();
                for w in first..(first + WORDS_PER_CHUNK).min(codes.0.len()) {
                    let mask = codes.advance(w);
                    count += u64::from(mask.count_ones());
                    if smallest.len() < top {
                        smallest.extend(positions_in(w, mask).map(|i| i as u64));
                        smallest.truncate(top);
                    }
                }
                (count, smallest)
            })
            .reduce(
                || (0, Vec::new()),
                |(c, s), (c2, s2)| (c + c2, first_of(s, s2, top)),
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_finds_every_key_and_no_other() {
        let keys: Vec<u64> = (0..5000u64).map(|k| k * k * 7 + 3).collect();
        check_index(&keys);
        check_index(&[0]);
        // Keys too sparse for four bytes each: kept whole.
        let sparse: Vec<u64> = (0..300u64).map(|k| (k << 50) | (k * 977)).collect();
        assert_eq!(cut_shift(&sparse), None);
        check_index(&sparse);
        // Sparse enough for buckets of 32 bits: still four bytes a key.
        let wide: Vec<u64> = (0..3000u64)
            .map(|k| k * ((1400 << 32) / 3000) + k % 7)
            .collect();
        assert!(natural_shift(&wide) > 32);
        assert_eq!(cut_shift(&wide), Some(32));
        check_index(&wide);
    }

    /// Every key found at its index, its neighbours not found, each key
    /// read back at its index and by a cursor, whichever way the index
    /// keeps them.
    fn check_index(keys: &[u64]) {
        fn each<L: Low>(index: Index<L>, keys: &[u64]) {
            for (i, &k) in keys.iter().enumerate() {
                assert_eq!(index.of(k), Some(i), "key {k}");
                if !keys.contains(&(k + 1)) {
                    assert_eq!(index.of(k + 1), None);
                }
                assert_eq!(index.key_at(i), k);
            }
            for from in [0, keys.len() / 3, keys.len() - 1] {
                let mut cursor = index.cursor(from);
                for (i, &k) in keys.iter().enumerate().skip(from) {
                    assert_eq!(cursor.key(i), k);
                }
            }
            if keys[0] > 0 {
                assert_eq!(index.of(0), None);
            }
            assert_eq!(index.of(u64::MAX), None);
        }
        let natural = natural_shift(keys);
        each(Index::new(keys.to_vec(), natural, |k| k), keys);
        if let Some(shift) = cut_shift(keys) {
            let cut = |k: Vec<u64>| k.iter().map(|&k| u32::cut(k, shift)).collect();
            each(Index::new(keys.to_vec(), shift, cut), keys);
        }
    }

    #[test]
    fn a_level_ends_with_its_reached_positions_the_frontier() {
        let codes = Codes::new(70);
        for i in [0, 5, 31, 32, 69] {
            codes.set_frontier(i);
        }
        for i in [5, 6, 33, 33, 40, 69] {
            codes.mark(i);
        }
        let frontier = |w| positions_in(w, codes.frontier_in(w)).collect::<Vec<_>>();
        assert_eq!(frontier(0), [0, 5, 31]);
        assert_eq!(frontier(1), [32]);
        let (width, smallest) = (0..3)
            .map(|w| {
                let m = codes.advance(w);
                (
                    u64::from(m.count_ones()),
                    positions_in(w, m).collect::<Vec<_>>(),
                )
            })
            .fold((0, Vec::new()), |(c, mut s), (c2, s2)| {
                s.extend(s2);
                (c + c2, s)
            });
        assert_eq!((width, smallest), (3, vec![6, 33, 40]));
        // The old frontier is expanded: marks pass it by.
        codes.mark(0);
        codes.mark(7);
        let next: Vec<usize> = (0..3)
            .flat_map(|w| positions_in(w, codes.advance(w)))
            .collect();
        assert_eq!(next, [7]);
        assert_eq!(first_of(vec![1, 2], vec![3, 4], 3), [1, 2, 3]);
        assert_eq!(first_of(vec![1, 2, 3], vec![4], 2), [1, 2, 3]);
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
        // Each root's word holds its component's size.
        let roots = Roots::new(parent);
        let mut size = vec![0u64; n as usize];
        for i in 0..n {
            size[find(&seq, i) as usize] += 1;
        }
        for i in 0..n {
            assert_eq!(roots.root(i as usize), find(&seq, i) as usize);
            assert_eq!(roots.size(i as usize), size[find(&seq, i) as usize]);
        }
    }

    /// Rings of `ring` keys each (`n` keys in all), a move one step
    /// either way around a key's ring: `n / ring` components, the goal
    /// key 0, the start the last key.
    pub(super) struct Rings {
        pub(super) n: u64,
        pub(super) ring: u64,
    }

    impl Model for Rings {
        type State = u64;
        type Key = u64;

        fn start(&self) -> u64 {
            self.n - 1
        }

        fn key_space(&self) -> u64 {
            self.n
        }

        fn new_state(&self) -> u64 {
            0
        }

        fn decode(&self, key: u64, state: &mut u64) {
            *state = key;
        }

        fn successors(&self, state: &mut u64, out: &mut Vec<u64>) {
            let (base, at) = (*state - *state % self.ring, *state % self.ring);
            out.push(base + (at + 1) % self.ring);
            out.push(base + (at + self.ring - 1) % self.ring);
        }

        fn is_goal(&self, state: &u64) -> bool {
            *state == 0
        }

        fn has_goal(&self) -> bool {
            true
        }

        fn reversible(&self) -> bool {
            true
        }

        fn keys_are_states(&self) -> bool {
            true
        }
    }

    impl EveryPosition for Rings {
        fn position_parts(&self) -> usize {
            1
        }

        fn part_positions(&self, _: usize, out: &mut Vec<u64>, _: usize) -> bool {
            out.extend(0..self.n);
            true
        }
    }

    #[test]
    fn lists_of_eight_byte_positions_find_what_four_byte_ones_do() {
        // A few rings (flooded), more than the floods (joined), and one,
        // each searched with both widths of position.
        for (n, ring) in [(20_000, 1000), (6 * FLOODS as u64, 3), (99_999, 99_999)] {
            let rings = Rings { n, ring };
            let joined = AtomicBool::new(false);
            let tell = |p: &Progress| {
                if p.stage == "joining components" {
                    joined.store(true, Ordering::Relaxed);
                }
            };
            let census = |wide: bool| {
                let search = Search::new(&rings).threads(2).progress(&tell);
                let walk = search.walk();
                let mut census = walk.empty();
                walk.every_key(wide, 3, &mut census, &mut None).unwrap();
                census
            };
            let (four, eight) = (census(false), census(true));
            // The goal's ring is measured, the others flooded while they
            // are at most the floods.
            let others = (n / ring - 1) as usize;
            assert_eq!(
                joined.load(Ordering::Relaxed),
                others > FLOODS,
                "{n} / {ring}"
            );
            let components = four.components.clone().unwrap();
            assert_eq!(components.size_histogram, [(ring, n / ring)]);
            assert_eq!(components.start, ring);
            let goal = four.goal.clone().unwrap();
            // Around a ring: one position at 0 and at the far side of an
            // even ring, two at every distance between.
            let mut levels = vec![1];
            levels.resize((ring / 2) as usize + 1, 2);
            if ring % 2 == 0 {
                *levels.last_mut().unwrap() = 1;
            }
            assert_eq!(goal.levels, levels);
            assert_eq!(goal.hardest[0].distance as u64, ring / 2);
            assert_eq!(eight.components, four.components);
            assert_eq!(eight.goal, four.goal);
        }
    }
}
