//! What every level loop's workers share: their slots, made on their own
//! threads, the pool they run in, and the partition count by default.

use std::sync::Mutex;

use crossbeam_utils::CachePadded;

use crate::engine::stores::sets::partition::{MAX_PARTITIONS, Router};
use crate::engine::stores::sets::visited::Visited;
use crate::engine::{Key, Model};

/// Levels with fewer states than this are expanded on one thread: a rayon
/// fork/join costs microseconds, as much as a hundred expansions (pe766 has
/// 1369 levels, 936 of them under 1000 states). pe766 at 2 threads, five
/// runs each, wall seconds: 128: 0.63-0.71, 512: 0.66-0.74, 2048: 0.71-0.75.
pub(crate) const SEQUENTIAL_BELOW: usize = 128;

/// Partitions per worker by default: enough for the partitions' settle
/// tasks to even out between workers. More cost a little: each worker
/// appends to one more buffer, and each partition's settle is a task.
/// `count eleven --max-depth 30` at one thread, three runs each, wall
/// seconds: 1 partition 6.1-7.7, 8: 6.7-7.4, 16: 7.3-8.3.
const PARTITIONS_PER_THREAD: usize = 4;

/// The fewest partitions by default.
const MIN_PARTITIONS: usize = 4;

/// The partition count: `asked`, or (0) a few per running worker.
///
/// Workers beyond the cores do not run at once, so they do not count:
/// every worker keeps a buffer for every partition, and `--threads 1000`
/// on two cores would otherwise keep four million.
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

/// Decodes `key` into `state` and writes its successors into `out`.
pub(crate) fn successors_of<'o, M: Model>(
    model: &M,
    state: &mut M::State,
    out: &'o mut Vec<M::Key>,
    key: M::Key,
) -> &'o [M::Key] {
    successors_of_all(model, state, out, std::slice::from_ref(&key))
}

/// Decodes each of `keys` into `state` and writes all their successors
/// into `out`, one after another.
///
/// The loop that routes successors then runs once for a batch of states,
/// not once a state: its exit, after a number of successors that varies
/// from state to state, is a branch the predictor misses about once a loop
/// (pe766: one of its nine mispredicted branches a state, in cachegrind).
pub(crate) fn successors_of_all<'o, M: Model>(
    model: &M,
    state: &mut M::State,
    out: &'o mut Vec<M::Key>,
    keys: &[M::Key],
) -> &'o [M::Key] {
    out.clear();
    for &key in keys {
        model.decode(key, state);
        model.successors(state, out);
    }
    out
}

/// The states `successors_of_all` expands at a time: their successors (a
/// few each) stay in the first-level cache.
pub(crate) const EXPAND_BATCH: usize = 32;

/// Where a level's successors go: each to its partition's buffer, unless
/// the visited set has seen it.
pub(crate) struct Route<'a, K: Key> {
    pub(crate) router: Router,
    pub(crate) visited: &'a Visited<K>,
    /// Whether each partition is another process's.
    pub(crate) remote: &'a [bool],
}

impl<K: Key> Route<'_, K> {
    /// Expands `keys` (in batches of [`EXPAND_BATCH`]) and appends each
    /// successor that may be new to its partition's buffer in `out`: every
    /// one where the visited set does not filter (frontier search, a bitmap
    /// its partitions own) or another process owns the partition (the
    /// visited set knows only this process's keys, and the owner filters
    /// it), else the ones the visited set had not seen. How many it
    /// appended.
    #[inline]
    pub(crate) fn successors<M: Model<Key = K>>(
        &self,
        model: &M,
        state: &mut M::State,
        successors: &mut Vec<K>,
        keys: &[K],
        out: &mut [Vec<K>],
    ) -> usize {
        let every = matches!(self.visited, Visited::Frontier | Visited::Owned);
        let mut appended = 0;
        for batch in keys.chunks(EXPAND_BATCH) {
            for &next in successors_of_all(model, state, successors, batch) {
                let p = self.router.route(next);
                if every || self.remote[p] || self.visited.insert(next) {
                    out[p].push(next);
                    appended += 1;
                }
            }
        }
        appended
    }
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
/// buffers).
pub(crate) fn my_slot<T>(slots: &[CachePadded<Mutex<T>>]) -> &Mutex<T> {
    // Each pool thread has its own index, so slots are uncontended; any
    // other caller falls back to slot 0, which its mutex keeps correct.
    let i = rayon::current_thread_index()
        .filter(|&i| i < slots.len())
        .unwrap_or(0);
    &slots[i]
}

/// The fewest items a parallel loop over a level's work hands one task:
/// all of them with one thread (a thin level, or a search of one worker),
/// so that the loop never splits and runs on the calling thread; one
/// otherwise. Each such loop is written once, as a parallel iterator
/// bounded by this: a search always runs inside its pool, of one worker
/// too, so a loop that does not split never reaches another thread (nor
/// rayon's global pool).
pub(crate) fn min_len(threads: usize) -> usize {
    if threads <= 1 { usize::MAX } else { 1 }
}

/// Sorts `keys`, in parallel when there are many.
pub(crate) fn sort_keys<K: Key>(keys: &mut [K], threads: usize) {
    if threads == 1 || keys.len() < 1 << 14 {
        keys.sort_unstable();
    } else {
        rayon::slice::ParallelSliceMut::par_sort_unstable(keys);
    }
}
