//! The partition: the unit of work, of ownership and of storage.
//!
//! Every key belongs to exactly one of P partitions (P a power of two),
//! chosen by the high bits of [`mix64`] of the key. Ranks are small,
//! clustered integers; the mixer spreads them evenly, so partitions are
//! about the same size at every level. With a bitmap visited set the
//! partitions own ranges of keys instead, each with its share of the
//! bitmap, which only its settle task reads and writes.
//!
//! A partition owns its share of the levels the search keeps (sorted
//! runs: the last two under frontier search, all of them when a path is
//! wanted) and settles its own share of each new level from the candidates
//! that the workers routed to it. Nothing a partition owns is written by
//! anyone else, so a level's partitions are settled in parallel without a
//! lock or a global merge, and a partition's levels are exactly what a
//! disk-backed or remote partition would hold: sorted runs of keys.

use crate::engine::Key;
use crate::engine::stores::sets::frontier::merge_range;
#[cfg(test)]
use crate::engine::stores::sets::visited::mix64;

/// The largest partition count accepted.
pub const MAX_PARTITIONS: usize = 1 << 16;

/// Sends keys to partitions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Router {
    /// How far a key (or its mix) is shifted right to give its partition.
    shift: u32,
    /// log2(P).
    bits: u32,
    /// Partitions own contiguous ranges of keys (each its share of a
    /// bitmap) rather than the high bits of the mixed key.
    ranged: bool,
}

impl Router {
    /// A router over `partitions` partitions (a power of two), by the high
    /// bits of the mixed key.
    pub(crate) fn new(partitions: usize) -> Router {
        debug_assert!(partitions.is_power_of_two() && partitions <= MAX_PARTITIONS);
        let bits = partitions.trailing_zeros();
        Router {
            shift: 64 - bits,
            bits,
            ranged: false,
        }
    }

    /// A router over `partitions` partitions (a power of two) that each
    /// own a contiguous range of keys below `key_space`: the same number
    /// of keys each, a multiple of 64 (whole bitmap words), so that each
    /// partition owns its words of a bitmap alone. Partitions past the key
    /// space own nothing.
    pub(crate) fn by_range(partitions: usize, key_space: u64) -> Router {
        debug_assert!(partitions.is_power_of_two() && partitions <= MAX_PARTITIONS);
        let bits = partitions.trailing_zeros();
        // Keys are below 2^needed.
        let needed = 64 - key_space.saturating_sub(1).leading_zeros();
        Router {
            shift: needed.saturating_sub(bits).max(6),
            bits,
            ranged: true,
        }
    }

    /// The number of partitions.
    pub(crate) fn partitions(self) -> usize {
        1 << self.bits
    }

    /// The first key of partition `p` and the number of keys it owns below
    /// `key_space` (a ranged router's).
    pub(crate) fn range(self, p: usize, key_space: u64) -> (u64, u64) {
        debug_assert!(self.ranged);
        let first = (p as u64).checked_shl(self.shift).unwrap_or(u64::MAX);
        let len = 1u64 << self.shift;
        let first = first.min(key_space);
        (first, len.min(key_space - first))
    }

    /// The partition that owns `key`.
    #[inline]
    pub(crate) fn route<K: Key>(self, key: K) -> usize {
        if self.ranged {
            (key.index() >> self.shift) as usize
        } else {
            // A shift by 64 (one partition) is out of range for `>>`.
            key.mix().checked_shr(self.shift).unwrap_or(0) as usize
        }
    }
}

/// How a partition turns its candidates into its share of the next level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Settle {
    /// Frontier search: the candidates are every successor; sort, drop
    /// duplicates and keys of the partition's last two levels (of the level
    /// before the newest only, when the search is `bipartite`: a level's
    /// successors are never in it).
    Frontier {
        /// Whether the model is bipartite and the search has one start.
        bipartite: bool,
    },
    /// A visited set let only new keys through: keep them as they are,
    /// sorted if `sorted` (a path rebuild looks keys up by binary search).
    Visited {
        /// Whether levels must be kept sorted.
        sorted: bool,
    },
    /// The partition's own bitmap (see [`Partition::with_bitmap`]): the
    /// candidates are every successor; keep those whose bit was clear, in
    /// the order they came, sorted if `sorted`.
    Bitmap {
        /// Whether levels must be kept sorted.
        sorted: bool,
        /// Whether the new keys add to those the last settle found (the
        /// level is settled in slices) rather than start the level.
        append: bool,
    },
}

/// A partition's share of a bitmap visited set: one bit for each key of
/// its range, written by the partition's settle task alone.
struct Segment {
    /// The first key of the range.
    first: u64,
    words: Vec<u64>,
}

impl Segment {
    #[inline]
    fn contains(&self, key: u64) -> bool {
        let i = key - self.first;
        self.words[(i >> 6) as usize] >> (i & 63) & 1 != 0
    }

    /// Asks the cache for `key`'s word (a hint: nothing is read, and a
    /// key outside the range costs nothing).
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        let word = self
            .words
            .as_ptr()
            .wrapping_add((key.wrapping_sub(self.first) >> 6) as usize);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            // SAFETY: a prefetch is a hint: it neither reads nor faults,
            // whatever the address (SSE, which it needs, is part of
            // x86-64).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(word.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = word;
    }

    /// Sets the bits of `keys` (all in the range) and appends to `new` those
    /// whose bit was clear, in order.
    ///
    /// The segment is the settling partition's alone (no atomics). Its
    /// words are read at random: a slice of a level brings each of its
    /// cache lines from memory once, so each key's word is asked for
    /// `AHEAD` keys early, for the misses to overlap. Whether a key is
    /// new is a coin toss (eleven: 4 in 10), so every key is written after
    /// the new ones and kept by advancing the count, without a branch. In
    /// `count eleven --max-depth 40` at one thread (3 runs each, medians),
    /// a filtering `extend` took 25.9 s, and this 22.6 s.
    fn settle<K: Key>(&mut self, keys: &[K], new: &mut Vec<K>) {
        const AHEAD: usize = 16;
        // Room for a block at a time: reserving a whole run at once would
        // grow the vector a doubling early (eleven: +128 MiB peak).
        const BLOCK: usize = 256;
        for (b, block) in keys.chunks(BLOCK).enumerate() {
            new.reserve(block.len());
            let room = new.spare_capacity_mut();
            let mut count = 0;
            for (i, &key) in block.iter().enumerate() {
                if let Some(&ahead) = keys.get(b * BLOCK + i + AHEAD) {
                    self.prefetch(ahead.index());
                }
                room[count].write(key);
                count += usize::from(self.insert(key.index()));
            }
            let len = new.len() + count;
            // SAFETY: the loop initialised the first `count` elements of
            // the spare capacity (each write at index `count` comes before
            // `count` moves past it), and `count` <= block.len(), which
            // `reserve` made room for.
            unsafe { new.set_len(len) };
        }
    }

    /// Sets `key`'s bit; whether it was clear.
    #[inline]
    fn insert(&mut self, key: u64) -> bool {
        let i = key - self.first;
        let word = &mut self.words[(i >> 6) as usize];
        let bit = 1u64 << (i & 63);
        let new = *word & bit == 0;
        *word |= bit;
        new
    }
}

/// One partition's share of the search.
pub(crate) struct Partition<K = u64> {
    /// The kept levels' keys in this partition, oldest first, each sorted
    /// (under frontier search or when `Settle::Visited { sorted: true }`).
    levels: Vec<Vec<K>>,
    /// The level being settled, until it is committed or discarded.
    next: Vec<K>,
    /// A dropped level's buffer, reused for the next one: a level's worth
    /// of fresh memory costs as much in page faults as settling it.
    spare: Vec<K>,
    /// Its share of a bitmap visited set, if the search uses one.
    seen: Option<Segment>,
}

impl<K> Default for Partition<K> {
    fn default() -> Self {
        Partition {
            levels: Vec::new(),
            next: Vec::new(),
            spare: Vec::new(),
            seen: None,
        }
    }
}

impl<K: Key> Partition<K> {
    /// A partition holding `keys` (sorted, distinct, all routed here) as
    /// its level 0.
    pub(crate) fn with_level(keys: Vec<K>) -> Partition<K> {
        Partition {
            levels: vec![keys],
            ..Partition::default()
        }
    }

    /// A partition that owns the `len` keys from `first` on in a bitmap
    /// visited set, holding `keys` (sorted, distinct, all routed here) as
    /// its level 0, their bits set.
    pub(crate) fn with_bitmap(keys: Vec<K>, first: u64, len: u64) -> Partition<K> {
        // A zeroed vector comes from calloc: pages the search never
        // touches cost no memory.
        let mut seen = Segment {
            first,
            words: vec![0; len.div_ceil(64) as usize],
        };
        for &key in &keys {
            seen.insert(key.index());
        }
        Partition {
            levels: vec![keys],
            seen: Some(seen),
            ..Partition::default()
        }
    }

    /// Whether the search has seen `key` (routed here): under frontier
    /// search, whether it is in the last two levels; with a bitmap, whether
    /// its bit is set.
    pub(crate) fn has_seen(&self, key: K) -> bool {
        match &self.seen {
            Some(seen) => seen.contains(key.index()),
            None => self.holds_recent(key),
        }
    }

    /// This partition's share of the newest committed level.
    pub(crate) fn frontier(&self) -> &[K] {
        self.levels.last().map_or(&[], Vec::as_slice)
    }

    /// This partition's share of the settled next level (until it is
    /// committed or discarded).
    pub(crate) fn settled(&self) -> &[K] {
        &self.next
    }

    /// Whether `key` (routed here) is in this partition's share of the last
    /// two committed levels: under frontier search, whether a successor of
    /// the frontier has been seen.
    pub(crate) fn holds_recent(&self, key: K) -> bool {
        self.levels
            .iter()
            .rev()
            .take(2)
            .any(|level| level.binary_search(&key).is_ok())
    }

    /// This partition's share of kept level `i` (0 = the oldest kept;
    /// empty past the newest).
    pub(crate) fn level(&self, i: usize) -> &[K] {
        self.levels.get(i).map_or(&[], Vec::as_slice)
    }

    /// Settles this partition's share of the next level from `runs`, the
    /// candidates each worker routed here, which it empties (keeping their
    /// capacity). Returns the share's size; the share waits in the
    /// partition until [`Partition::commit`] or [`Partition::discard`].
    pub(crate) fn settle(&mut self, runs: &mut [Vec<K>], how: Settle) -> usize {
        let mut next = if let Settle::Bitmap { append: true, .. } = how {
            std::mem::take(&mut self.next)
        } else {
            let mut spare = std::mem::take(&mut self.spare);
            spare.clear();
            spare
        };
        match how {
            Settle::Frontier { bipartite } => {
                let n = self.levels.len();
                let current = match self.levels.last() {
                    Some(level) if !bipartite => level.as_slice(),
                    _ => &[],
                };
                let previous = n.checked_sub(2).map_or(&[][..], |i| &self.levels[i][..]);
                merge_range(runs, current, previous, &mut next);
            }
            Settle::Visited { sorted } => {
                next.reserve(runs.iter().map(Vec::len).sum());
                for run in runs.iter() {
                    next.extend_from_slice(run);
                }
                if sorted {
                    next.sort_unstable();
                }
            }
            Settle::Bitmap { sorted, .. } => {
                // Another process's partition has no bits here, and no
                // candidates either: they were sent to their owner.
                debug_assert!(self.seen.is_some() || runs.iter().all(Vec::is_empty));
                if let Some(seen) = self.seen.as_mut() {
                    for run in runs.iter() {
                        seen.settle(run, &mut next);
                    }
                }
                if sorted {
                    next.sort_unstable();
                }
            }
        }
        for run in runs.iter_mut() {
            run.clear();
        }
        self.next = next;
        self.next.len()
    }

    /// Makes the settled share this partition's newest level, keeping at
    /// most `keep` levels (0: all of them).
    pub(crate) fn commit(&mut self, keep: usize) {
        self.levels.push(std::mem::take(&mut self.next));
        if keep > 0 && self.levels.len() > keep {
            self.spare = self.levels.remove(0);
        }
    }

    /// Drops the settled share (a level cut short or over a limit).
    pub(crate) fn discard(&mut self) {
        self.spare = std::mem::take(&mut self.next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_spread_and_stay_in_range() {
        for p in [1usize, 2, 16, 1024] {
            let router = Router::new(p);
            assert_eq!(router.partitions(), p);
            let mut sizes = vec![0usize; p];
            for k in 0..100_000u64 {
                sizes[router.route(k)] += 1;
            }
            let expected = 100_000 / p;
            assert!(
                sizes.iter().all(|&s| s > expected / 2 && s < expected * 2),
                "{p} partitions: {sizes:?}"
            );
        }
    }

    #[test]
    fn ranges_cover_the_key_space_in_whole_words() {
        for (p, key_space) in [
            (1usize, 1u64),
            (4, 100),
            (128, 479_001_600),
            (4096, 1 << 20),
            (8, 1 << 32),
        ] {
            let router = Router::by_range(p, key_space);
            assert_eq!(router.partitions(), p);
            let mut next = 0;
            for i in 0..p {
                let (first, len) = router.range(i, key_space);
                assert_eq!(
                    first,
                    next.min(key_space),
                    "{p} partitions over {key_space}"
                );
                assert!(first % 64 == 0 || len == 0);
                for key in [first, first + len.saturating_sub(1)] {
                    if len > 0 {
                        assert_eq!(router.route(key), i, "key {key}");
                    }
                }
                next = first + len;
            }
            assert_eq!(next, key_space, "{p} partitions over {key_space}");
        }
    }

    #[test]
    fn bitmap_settle_keeps_first_sightings_across_slices() {
        let mut part = Partition::<u64>::with_bitmap(vec![3], 0, 128);
        let mut runs = vec![vec![9, 3, 5], vec![9, 70]];
        let how = |append| Settle::Bitmap {
            sorted: true,
            append,
        };
        assert_eq!(part.settle(&mut runs, how(false)), 3);
        // A second slice of the same level adds to it.
        let mut runs = vec![vec![5, 2], vec![127]];
        assert_eq!(part.settle(&mut runs, how(true)), 5);
        part.commit(1);
        assert_eq!(part.frontier(), [2, 5, 9, 70, 127]);
        assert!(part.has_seen(3) && part.has_seen(127) && !part.has_seen(4));
    }

    #[test]
    fn bitmap_settle_over_many_blocks_keeps_first_sightings_in_order() {
        // Runs longer than a block, with repeats within and across them,
        // against a set that remembers what it has seen.
        let (first, len) = (1 << 12, 3000u64);
        let mut part = Partition::<u64>::with_bitmap(vec![first + 7], first, len);
        let mut seen = std::collections::HashSet::from([first + 7]);
        let mut want = Vec::new();
        let mut x = 12345u64;
        let mut runs = vec![Vec::new(), Vec::new(), Vec::new()];
        for (r, run) in runs.iter_mut().enumerate() {
            for _ in 0..700 * (r + 1) {
                x = mix64(x);
                let key = first + x % len;
                run.push(key);
            }
        }
        for &key in runs.iter().flatten() {
            if seen.insert(key) {
                want.push(key);
            }
        }
        let how = Settle::Bitmap {
            sorted: false,
            append: false,
        };
        assert_eq!(part.settle(&mut runs, how), want.len());
        part.commit(1);
        assert_eq!(part.frontier(), want);
        assert!(want.len() > 1000 && want.len() < 2500, "{}", want.len());
    }

    #[test]
    fn frontier_settle_drops_duplicates_and_the_last_two_levels() {
        let mut part = Partition::<u64>::with_level(vec![1, 7]);
        let mut runs = vec![vec![4, 3, 3]];
        assert_eq!(
            part.settle(&mut runs, Settle::Frontier { bipartite: false }),
            2
        );
        part.commit(2);
        assert_eq!(part.frontier(), [3, 4]);
        assert!(runs[0].is_empty());
        let mut runs = vec![vec![9, 5, 3, 1, 3], vec![11, 2, 9, 7]];
        assert_eq!(
            part.settle(&mut runs, Settle::Frontier { bipartite: false }),
            4
        );
        part.commit(2);
        assert_eq!(part.frontier(), [2, 5, 9, 11]);
        assert_eq!(part.level(0), [3, 4], "the oldest level was dropped");
        // A discarded level leaves the committed ones alone.
        let mut runs = vec![vec![100]];
        part.settle(&mut runs, Settle::Frontier { bipartite: false });
        part.discard();
        assert_eq!(part.frontier(), [2, 5, 9, 11]);
        // A bipartite search checks the level before the newest only: a
        // key of the newest level would pass (it cannot come).
        let mut runs = vec![vec![5, 4, 3, 12]];
        assert_eq!(
            part.settle(&mut runs, Settle::Frontier { bipartite: true }),
            2
        );
        part.commit(2);
        assert_eq!(part.frontier(), [5, 12]);
    }

    #[test]
    fn visited_settle_keeps_everything_and_sorts_on_request() {
        let mut part = Partition::<u64>::with_level(vec![0]);
        let mut runs = vec![vec![9, 2], vec![5]];
        part.settle(&mut runs, Settle::Visited { sorted: true });
        part.commit(0);
        assert_eq!(part.frontier(), [2, 5, 9]);
        assert_eq!((part.level(0), part.level(1)), (&[0][..], &[2, 5, 9][..]));
        assert!(part.level(2).is_empty());
    }
}
