//! The visited sets: which keys the search has already seen.
//!
//! Three structures, chosen per run (see [`VisitedKind`]), besides the
//! dense store's two bits a key (`stores/dense/`), which is a store of its
//! own:
//! - a bitmap of the whole key space, one bit per possible key, for models
//!   whose key space is at most [`BITMAP_MAX_KEYS`] (the clocks, the
//!   sawtooth puzzle, `eleven`): in memory the partitions own ranges of it
//!   and set their bits as they settle ([`Visited::Owned`]); on disk it is
//!   one shared bitmap set by one atomic `fetch_or` per new key, with no
//!   hashing and no locks;
//! - frontier search, for models whose moves are reversible: a state's
//!   neighbours lie in the level before it, its own level or the next, so
//!   the only keys needed to recognise new states are those of the last two
//!   levels, kept sorted; a level's candidates are sorted, deduplicated and
//!   merged against them (see `frontier.rs`);
//! - a sharded concurrent hash set (dashmap) of exact keys, for everything
//!   else, with a real 64-bit mixer so that ranks, which are small and
//!   clustered numbers, spread evenly over the shards.

use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use dashmap::DashMap;

use crate::engine::Key;

/// Which visited set a search uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VisitedKind {
    /// A bitmap when the key space is at most [`BITMAP_MAX_KEYS`] keys,
    /// frontier search when the model's moves are reversible, dashmap
    /// otherwise.
    #[default]
    Auto,
    /// Frontier search: only the last two levels, sorted (reversible models
    /// only; others fall back to dashmap).
    Frontier,
    /// One bit per possible key (refused for key spaces over
    /// [`BITMAP_MAX_KEYS`]).
    Bitmap,
    /// A sharded concurrent hash set of exact keys.
    DashMap,
    /// Two bits for every possible key, and no level kept as keys (see
    /// `stores/dense/`): for models whose keys are dense; a count,
    /// `hardest` or a solve (each key's depth mod 3 kept), in memory or (a
    /// count) on disk, checkpointed on one process or shared out between
    /// processes.
    Dense,
}

impl VisitedKind {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            VisitedKind::Auto => "auto",
            VisitedKind::Frontier => "frontier",
            VisitedKind::Bitmap => "bitmap",
            VisitedKind::DashMap => "dashmap",
            VisitedKind::Dense => "dense",
        }
    }
}

/// The largest key space the bitmap is used for automatically: 2^29 keys,
/// a 64 MiB bitmap, which holds the dense keys of a 12-cell tile puzzle
/// (`eleven`: 12!/1 keys, half of them reachable). The bitmap's pages are
/// zeroed lazily, so a sparse puzzle pays only for the pages its states
/// touch; much beyond this it would pay for memory it barely uses (`mas`
/// has 6.5e8 keys for 110804 states, and stays on frontier search).
pub const BITMAP_MAX_KEYS: u64 = 1 << 29;

/// The largest key space the bitmap accepts when asked for by name (512 MiB).
pub const BITMAP_HARD_MAX_KEYS: u64 = 1 << 32;

/// What `kind` means for a model with `key_space` keys: `Auto` becomes a
/// bitmap when the key space is at most [`BITMAP_MAX_KEYS`], frontier
/// search when the moves are reversible, dashmap otherwise; `Bitmap` stays
/// one up to [`BITMAP_HARD_MAX_KEYS`] (the caller refuses larger); frontier
/// search without reversible moves falls back to dashmap.
pub(crate) fn resolve(kind: VisitedKind, key_space: u64, reversible: bool) -> VisitedKind {
    match kind {
        VisitedKind::Auto if key_space <= BITMAP_MAX_KEYS => VisitedKind::Bitmap,
        VisitedKind::Bitmap if key_space <= BITMAP_HARD_MAX_KEYS => VisitedKind::Bitmap,
        VisitedKind::Auto | VisitedKind::Frontier | VisitedKind::Dense if reversible => {
            VisitedKind::Frontier
        }
        _ => VisitedKind::DashMap,
    }
}

/// The murmur3 64-bit finaliser: a bijective mixer whose every output bit
/// depends on every input bit. Ranks are dense small integers; dashmap picks
/// a shard from the high bits of the hash and hashbrown a bucket from the low
/// ones, so both ends must be well mixed.
#[inline]
pub fn mix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^= k >> 33;
    k
}

/// A `Hasher` for `u64` keys that applies [`mix64`].
#[derive(Default, Clone, Copy)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only reached for non-u64 keys, which the engine never hashes; fold
        // the bytes in anyway so that the hasher stays a correct `Hasher`.
        for &b in bytes {
            self.0 = mix64(self.0 ^ u64::from(b));
        }
    }

    /// One word: its mix (from a fresh hasher, `mix64(k)`); a wide key's
    /// words each fold into the mix of those before.
    #[inline]
    fn write_u64(&mut self, k: u64) {
        self.0 = mix64(self.0 ^ k);
    }
}

/// A set of keys: dashmap's `DashSet` does not take a shard count, so the
/// map with unit values stands in for it (which is what `DashSet` wraps).
type DashKeys<K> = DashMap<K, (), BuildHasherDefault<MixHasher>>;

/// The bytes a bitmap of `key_space` keys takes: a bit a key, in words.
pub(crate) fn bitmap_bytes(key_space: u64) -> u64 {
    key_space.div_ceil(64).saturating_mul(8)
}

/// A visited set built for one search.
pub(crate) enum Visited<K: Key = u64> {
    /// The words, and whether several workers share them.
    Bitmap(Vec<AtomicU64>, bool),
    Dash(DashKeys<K>),
    /// No set: the search keeps the last two levels instead.
    Frontier,
    /// A bitmap split between the partitions, each owning the bits of its
    /// range of keys and setting them when it settles (the in-memory
    /// engine's bitmap): no shared set during the expansion.
    Owned,
}

impl<K: Key> Visited<K> {
    /// Builds the set `kind` resolves to for a model with `key_space` keys.
    pub(crate) fn new(
        kind: VisitedKind,
        key_space: u64,
        reversible: bool,
        threads: usize,
    ) -> Visited<K> {
        let resolved = resolve(kind, key_space, reversible);
        if resolved == VisitedKind::Bitmap {
            let words = (bitmap_bytes(key_space) / 8) as usize;
            // A zeroed vector comes from calloc, so untouched pages cost nothing.
            Visited::Bitmap((0..words).map(|_| AtomicU64::new(0)).collect(), threads > 1)
        } else if resolved == VisitedKind::Frontier {
            Visited::Frontier
        } else {
            // Shards: more than the workers need to rarely meet on one lock,
            // so that each shard's table, and each resize, stays small.
            // Measured on pe766 at 2 threads (wall seconds, two noisy runs):
            // 4 shards 1.28, 16 1.02, 64 1.00-1.23, 128 0.89-1.13,
            // 256 0.81-0.97, 512 1.04-1.19, 1024 1.01.
            // Presized for a million keys (or the whole key space, if
            // smaller): the first doublings are then skipped.
            let shards = (threads * 64).next_power_of_two().clamp(256, 4096);
            Visited::Dash(DashMap::with_capacity_and_hasher_and_shard_amount(
                key_space.min(1 << 20) as usize,
                BuildHasherDefault::default(),
                shards,
            ))
        }
    }

    /// The bytes a bitmap takes once its pages are written (none for the
    /// other kinds, which grow with the keys).
    pub(crate) fn bytes(&self) -> u64 {
        match self {
            Visited::Bitmap(words, _) => words.len() as u64 * 8,
            _ => 0,
        }
    }

    /// The kind actually in use.
    pub(crate) fn kind(&self) -> VisitedKind {
        match self {
            Visited::Bitmap(..) | Visited::Owned => VisitedKind::Bitmap,
            Visited::Dash(_) => VisitedKind::DashMap,
            Visited::Frontier => VisitedKind::Frontier,
        }
    }

    /// Inserts `key`; true if it was not there before.
    ///
    /// Memory ordering: a key's membership is one bit of one atomic word (or
    /// one entry under a shard's lock). All read-modify-writes of one atomic
    /// location are totally ordered even when `Relaxed`, so of two workers
    /// inserting the same key exactly one sees its bit clear and reports it
    /// new. Nothing else is published through the bit: the new key travels
    /// in the worker's own buffer, handed over by rayon's join at the end of
    /// the level, which carries the happens-before edge the next level needs.
    #[inline]
    pub(crate) fn insert(&self, key: K) -> bool {
        match self {
            Visited::Bitmap(words, shared) => {
                let key = key.index();
                let word = &words[(key >> 6) as usize];
                let bit = 1u64 << (key & 63);
                // Most successors were seen before: a plain load settles them
                // without taking the cache line exclusively.
                let old = word.load(Ordering::Relaxed);
                if old & bit != 0 {
                    return false;
                }
                if *shared {
                    word.fetch_or(bit, Ordering::Relaxed) & bit == 0
                } else {
                    // One worker alone: no other thread writes the word, so
                    // a plain store of the loaded value does the RMW's job
                    // without its lock prefix.
                    word.store(old | bit, Ordering::Relaxed);
                    true
                }
            }
            Visited::Dash(set) => set.insert(key, ()).is_none(),
            // Frontier search and owned bitmaps settle new keys after the
            // level; every successor is a candidate.
            Visited::Frontier | Visited::Owned => true,
        }
    }

    /// Whether `key` has been inserted (always false under frontier
    /// search, which keeps no set).
    pub(crate) fn contains(&self, key: K) -> bool {
        match self {
            Visited::Bitmap(words, _) => {
                let key = key.index();
                words[(key >> 6) as usize].load(Ordering::Relaxed) >> (key & 63) & 1 != 0
            }
            Visited::Dash(set) => set.contains_key(&key),
            // The partitions know (`Partition::has_seen`).
            Visited::Frontier | Visited::Owned => false,
        }
    }

    /// Bytes a further key is expected to cost, for memory planning. The
    /// bitmap is paid for up front; dashmap's tables double, so a key costs
    /// its 8 bytes plus a control byte at a load between 7/16 and 7/8, and a
    /// growing shard briefly holds its old and new table together.
    pub(crate) fn bytes_per_new_key(&self) -> u64 {
        match self {
            Visited::Bitmap(..) => 0,
            Visited::Dash(_) => 32,
            // The candidates of a level, about three a new key, before
            // they are settled.
            Visited::Frontier | Visited::Owned => 24,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Many workers inserting the same keys in different orders: exactly
    /// one insert of each key reports it new, whatever the interleaving.
    fn stress(kind: VisitedKind, key_space: u64) {
        let keys: Vec<u64> = (0..20_000u64).map(|i| mix64(i) % key_space).collect();
        let distinct = keys.iter().collect::<std::collections::HashSet<_>>().len();
        for threads in [2, 3, 8] {
            for run in 0..10 {
                let set = Visited::<u64>::new(kind, key_space, false, threads);
                let new: usize = std::thread::scope(|s| {
                    let workers: Vec<_> = (0..threads)
                        .map(|t| {
                            let (set, keys) = (&set, &keys);
                            s.spawn(move || {
                                // Each worker walks the keys from its own offset.
                                let offset = t * keys.len() / threads;
                                (0..keys.len())
                                    .filter(|i| set.insert(keys[(i + offset) % keys.len()]))
                                    .count()
                            })
                        })
                        .collect();
                    workers.into_iter().map(|w| w.join().unwrap()).sum()
                });
                assert_eq!(new, distinct, "{kind:?}, {threads} threads, run {run}");
            }
        }
    }

    #[test]
    fn bitmap_inserts_are_exact_under_contention() {
        // A small key space puts many keys into each word.
        stress(VisitedKind::Bitmap, 1 << 12);
    }

    #[test]
    fn dashmap_inserts_are_exact_under_contention() {
        stress(VisitedKind::DashMap, u64::MAX);
    }

    #[test]
    fn mixing_spreads_small_ranks() {
        // Consecutive ranks must not share their high bits (dashmap's shard).
        let shards: std::collections::HashSet<u64> = (0..1000u64).map(|k| mix64(k) >> 58).collect();
        assert_eq!(shards.len(), 64);
    }
}
