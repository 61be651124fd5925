//! Levels in memory: each partition's share of the kept levels as sorted
//! `Vec`s (or in the order their bits were found, with a bitmap), the
//! workers' per-partition buffers reused from level to level.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crossbeam_utils::CachePadded;
use rayon::prelude::*;

use crate::engine::levels::Fault;
use crate::engine::levels::agree::{Exchange, Share};
use crate::engine::levels::workers::{
    Route, lock, min_len, my_slot, partition_count, per_worker, successors_of,
};
use crate::engine::levels::{Finished, Mode, Sizes, Start, Store};
use crate::engine::stores::sets::frontier::levels_alternate;
use crate::engine::stores::sets::partition::{MAX_PARTITIONS, Partition, Router, Settle};
use crate::engine::stores::sets::visited::{Visited, resolve};
use crate::engine::{Key, Model, VisitedKind};

/// One worker's reusable buffers.
struct Slot<S, K> {
    state: S,
    successors: Vec<K>,
    /// Candidates for the next level, one buffer per destination partition.
    out: Vec<Vec<K>>,
}

type Slots<S, K> = [CachePadded<Mutex<Slot<S, K>>>];

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
    partition_count(0, threads).max(bitmap_partitions_for_cache(key_space))
}

/// The fewest partitions whose shares of a bitmap over `key_space` keys
/// each stay in cache.
pub(crate) fn bitmap_partitions_for_cache(key_space: u64) -> usize {
    key_space
        .div_ceil(BITMAP_KEYS_PER_PARTITION)
        .next_power_of_two()
        .min(MAX_PARTITIONS as u64) as usize
}

/// Keys weighed in one task ([`Store::positions`]).
const WEIGH_CHUNK: usize = 1 << 14;

/// The positions that `keys` stand for.
pub(crate) fn weigh<M: Model>(model: &M, keys: &[M::Key]) -> u64 {
    keys.iter().map(|&key| model.positions(key)).sum()
}

/// A search's levels in memory (this process's partitions' shares).
pub(crate) struct InMemory<'a, M: Model> {
    model: &'a M,
    share: Share,
    parts: Vec<Partition<M::Key>>,
    slots: Box<Slots<M::State, M::Key>>,
    /// incoming[p][w]: worker w's candidates for partition p, moved out of
    /// the workers' slots for the settle step and back after it; with
    /// other processes, a last column for the candidates they sent.
    incoming: Vec<Vec<Vec<M::Key>>>,
    router: Router,
    visited: Visited<M::Key>,
    how: Settle,
    /// Whether each partition is another process's.
    remote: Vec<bool>,
    /// Levels each partition keeps (0: all).
    keep: usize,
    stop: Option<&'a AtomicBool>,
}

/// The newest complete level, with what a pass over it needs: the
/// partitions (each one's share of the level is its frontier), the workers'
/// slots, and the threads to use (one for a thin level).
struct LevelView<'v, M: Model> {
    parts: &'v [Partition<M::Key>],
    slots: &'v Slots<M::State, M::Key>,
    router: Router,
    threads: usize,
    model: &'v M,
    /// Which part of the level a pass covers: (b, k) is the b-th of k
    /// equal slices of every partition's share ((0, 1): all of it).
    batch: (usize, usize),
}

impl<'a, M: Model> InMemory<'a, M> {
    /// A search of `model` from `sources` (level 0; where it starts is
    /// returned beside it), keeping what `mode` needs, on `threads` workers in `partitions` partitions (0: a few per
    /// worker), of which `share` says which are this process's.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        model: &'a M,
        share: Share,
        kind: VisitedKind,
        mode: Mode,
        threads: usize,
        partitions: usize,
        mut sources: Vec<M::Key>,
        stop: Option<&'a AtomicBool>,
    ) -> (InMemory<'a, M>, Start) {
        let key_space = model.key_space();
        // A bitmap is split between the partitions by ranges of keys, each
        // settling its own bits: no atomics, and a partition's bits stay in
        // cache while it settles.
        let owned = resolve(kind, key_space, model.reversible()) == VisitedKind::Bitmap;
        let (visited, router) = if owned {
            let partitions = bitmap_partition_count(partitions, threads, key_space);
            (Visited::Owned, Router::by_range(partitions, key_space))
        } else {
            let visited = Visited::new(kind, key_space, model.reversible(), threads);
            (visited, Router::new(partition_count(partitions, threads)))
        };
        let slots = per_worker(threads, || Slot {
            state: model.new_state(),
            successors: Vec::new(),
            out: vec![Vec::new(); router.partitions()],
        });
        let frontier_search = matches!(visited, Visited::Frontier);
        let sorted = mode == Mode::Solve;
        sources.sort_unstable();
        sources.dedup();
        let how = if frontier_search {
            Settle::Frontier {
                bipartite: levels_alternate(model, sources.len() as u64),
            }
        } else if owned {
            Settle::Bitmap {
                sorted,
                append: false,
            }
        } else {
            Settle::Visited { sorted }
        };
        // Solving keeps every level (0); frontier search needs the last two.
        let keep = match (mode, frontier_search) {
            (Mode::Solve, _) => 0,
            (_, true) => 2,
            (_, false) => 1,
        };
        // Every process is given every source and keeps its own.
        let start = Start::new(sources.len() as u64);
        let mut shares = vec![Vec::new(); router.partitions()];
        for &key in &sources {
            let p = router.route(key);
            if share.owns(p) {
                visited.insert(key);
                shares[p].push(key);
            }
        }
        // Another process's partition holds nothing here: no share of the
        // bitmap, and empty levels (so that depths line up).
        let parts = shares
            .into_iter()
            .enumerate()
            .map(|(p, keys)| match (share.owns(p), owned) {
                (false, _) => Partition::with_level(Vec::new()),
                (true, true) => {
                    let (first, len) = router.range(p, key_space);
                    Partition::with_bitmap(keys, first, len)
                }
                (true, false) => Partition::with_level(keys),
            })
            .collect();
        let columns = threads + usize::from(!share.alone());
        let store = InMemory {
            model,
            share,
            parts,
            slots: slots.into_boxed_slice(),
            incoming: vec![vec![Vec::new(); columns]; router.partitions()],
            router,
            visited,
            how,
            remote: (0..router.partitions()).map(|p| !share.owns(p)).collect(),
            keep,
            stop,
        };
        (store, start)
    }

    fn view(&self, threads: usize, batch: (usize, usize)) -> LevelView<'_, M> {
        LevelView {
            parts: &self.parts,
            slots: &self.slots,
            router: self.router,
            threads,
            model: self.model,
            batch,
        }
    }

    fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

impl<M: Model> Store<M::Key> for InMemory<'_, M> {
    fn goals(&mut self, threads: usize) -> Result<Vec<M::Key>, Fault> {
        Ok(self.view(threads, (0, 1)).goals())
    }

    fn contains(&mut self, key: M::Key) -> Result<bool, Fault> {
        let p = self.router.route(key);
        Ok(self.share.owns(p) && self.parts[p].frontier().contains(&key))
    }

    fn settle_next(
        &mut self,
        _depth: u32,
        width: u64,
        threads: usize,
        exchange: &Exchange<'_>,
    ) -> Result<u64, Fault> {
        // With owned bitmaps a wide level is expanded and settled a slice
        // at a time: a slice's candidates are settled against the bits
        // before the next slice is expanded, so the candidates in memory
        // are a slice's, not the level's (eleven: about three successors a
        // state), and their buffers stay warm. Every process takes as many
        // slices (of its own share), from the level's width.
        let batches = match self.how {
            Settle::Bitmap { .. } => (width as usize).div_ceil(BATCH_STATES).max(1),
            _ => 1,
        };
        let mut next = 0;
        for b in 0..batches {
            self.view(threads, (b, batches))
                .expand(&self.visited, &self.remote, self.stop);
            let how = match self.how {
                Settle::Bitmap { sorted, .. } => Settle::Bitmap {
                    sorted: sorted && b + 1 == batches,
                    append: b > 0,
                },
                other => other,
            };
            transpose(&self.slots, &mut self.incoming);
            if !self.share.alone() {
                send_away(
                    exchange,
                    self.share,
                    self.router,
                    &self.visited,
                    &mut self.incoming,
                )?;
            }
            next = settle_all(&mut self.parts, &mut self.incoming, how, threads);
            transpose(&self.slots, &mut self.incoming);
            // Across processes every one takes every slice, so that their
            // exchanges pair up; the loop drops a level cut short.
            if self.stopped() && self.share.alone() {
                break;
            }
        }
        Ok(next as u64)
    }

    fn new_successors(
        &mut self,
        depth: u32,
        width: u64,
        threads: usize,
        exchange: &Exchange<'_>,
    ) -> Result<u64, Fault> {
        let view = self.view(threads, (0, 1));
        let mine = view.has_new_successor(&self.visited, self.share);
        if self.share.alone() {
            return Ok(u64::from(mine));
        }
        // A successor new to one of this process's own partitions is new.
        // Every process looks among its own first, and they agree on
        // whether any found one (the first successor of a twisty puzzle's
        // level usually is); only where none did is the next level settled
        // everywhere, since whether another process's successor is new
        // only its owner knows, and dropped. Every process makes the same
        // collective calls either way.
        if exchange.any(mine)? {
            return Ok(u64::from(mine));
        }
        let share = self.settle_next(depth, width, threads, exchange)?;
        self.discard();
        Ok(share)
    }

    fn commit(&mut self, _levels: &Sizes, _seconds: f64) -> Result<(), Fault> {
        let keep = self.keep;
        self.parts.iter_mut().for_each(|p| p.commit(keep));
        Ok(())
    }

    fn discard(&mut self) {
        self.parts.iter_mut().for_each(Partition::discard);
    }

    fn classes(&self) -> bool {
        self.model.classes()
    }

    fn positions(&mut self, next: bool, threads: usize) -> Result<u64, Fault> {
        let model = self.model;
        let chunks = self.parts.iter().flat_map(|p| {
            let keys = if next { p.settled() } else { p.frontier() };
            keys.chunks(WEIGH_CHUNK)
        });
        Ok(chunks
            .collect::<Vec<_>>()
            .par_iter()
            .with_min_len(min_len(threads))
            .map(|keys| weigh(model, keys))
            .sum())
    }

    fn bytes_per_new_key(&self) -> u64 {
        // Its keys, the visited set's share of them, and the kept levels
        // where a path is wanted.
        let key = std::mem::size_of::<M::Key>() as u64;
        self.visited.bytes_per_new_key() + key + if self.keep == 0 { key } else { 0 }
    }

    fn last_level(&mut self, _width: u64, _threads: usize) -> Result<Option<Vec<M::Key>>, Fault> {
        Ok(Some(
            self.parts
                .iter()
                .flat_map(|p| p.frontier())
                .copied()
                .collect(),
        ))
    }

    fn predecessor(
        &mut self,
        depth: u32,
        key: M::Key,
        threads: usize,
    ) -> Result<Option<M::Key>, Fault> {
        Ok(predecessor(
            self.model,
            &self.parts,
            self.router,
            depth as usize,
            key,
            threads,
        ))
    }

    fn finish(self, _stopped: bool) -> Finished {
        Finished {
            visited: self.visited.kind(),
            partitions: self.router.partitions(),
            disk: None,
            coded: None,
        }
    }
}

/// Moves the workers' per-partition buffers into `incoming`, transposed so
/// that each partition's settle task owns its column, or back (the same
/// swap again), with their capacity: the next level reuses them instead
/// of paying for fresh memory in page faults.
fn transpose<S, K>(slots: &Slots<S, K>, incoming: &mut [Vec<Vec<K>>]) {
    for (w, slot) in slots.iter().enumerate() {
        let mut slot = lock(slot);
        for (p, column) in incoming.iter_mut().enumerate() {
            std::mem::swap(&mut column[w], &mut slot.out[p]);
        }
    }
}

/// Sends the candidates for other processes' partitions to them, and puts
/// those they sent into the last column of this process's partitions
/// (those `visited` has not seen, where the search keeps a visited set).
fn send_away<K: Key>(
    exchange: &Exchange<'_>,
    share: Share,
    router: Router,
    visited: &Visited<K>,
    incoming: &mut [Vec<Vec<K>>],
) -> Result<(), Fault> {
    let mut outgoing = vec![Vec::new(); share.processes];
    for (p, runs) in incoming.iter_mut().enumerate() {
        if !share.owns(p) {
            let to = &mut outgoing[share.owner(p)];
            for run in runs.iter_mut() {
                to.extend_from_slice(run);
                run.clear();
            }
        }
    }
    for keys in exchange.once(outgoing)? {
        for key in keys {
            let p = router.route(key);
            if visited.insert(key)
                && let Some(last) = incoming[p].last_mut()
            {
                last.push(key);
            }
        }
    }
    Ok(())
}

impl<M: Model> LevelView<'_, M> {
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
    fn share<'p>(&self, part: &'p Partition<M::Key>) -> &'p [M::Key] {
        let (b, k) = self.batch;
        let all = part.frontier();
        &all[all.len() * b / k..all.len() * (b + 1) / k]
    }

    /// Runs `f` over chunks of the level, on the calling thread when there
    /// is one worker, in parallel otherwise (chunks of all partitions are
    /// stolen freely: see [`min_len`]); the smallest of the results.
    fn min_over_chunks<R: Ord + Send>(
        &self,
        f: impl Fn(&mut Slot<M::State, M::Key>, &[M::Key]) -> Option<R> + Sync + Send,
    ) -> Option<R> {
        let slots = self.slots;
        let f = |chunk: &[M::Key]| f(&mut lock(my_slot(slots)), chunk);
        let (len, min) = (self.chunk_len(), min_len(self.threads));
        self.parts
            .par_iter()
            .with_min_len(min)
            .flat_map(|p| self.share(p).par_chunks(len).with_min_len(min))
            .filter_map(f)
            .min()
    }

    /// Expands the level: each worker decodes keys, generates their
    /// successors and appends each one that `visited` had not seen (all of
    /// them, under frontier search) to its own buffer for the successor's
    /// partition. A raised `stop` flag abandons the level (the caller drops
    /// it).
    fn expand(&self, visited: &Visited<M::Key>, remote: &[bool], stop: Option<&AtomicBool>) {
        // Frontier search and owned bitmaps take every successor as a
        // candidate and never ask the visited set (whose answer would
        // always be yes).
        let model = self.model;
        let route = Route {
            router: self.router,
            visited,
            remote,
        };
        self.min_over_chunks(|slot, chunk| {
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return None::<()>;
            }
            let Slot {
                state,
                successors,
                out,
            } = slot;
            route.successors(model, state, successors, chunk, out);
            None
        });
    }

    /// Whether some state of the level has a successor the search has not
    /// seen in one of `share`'s partitions (every partition, for a process
    /// alone): a look at the next level that keeps none of it.
    fn has_new_successor(&self, visited: &Visited<M::Key>, share: Share) -> bool {
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
                        let p = router.route(next);
                        share.owns(p)
                            && if partitions_know {
                                !parts[p].has_seen(next)
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
    fn goals(&self) -> Vec<M::Key> {
        let (model, slots) = (self.model, self.slots);
        let scan = |chunk: &[M::Key]| -> Vec<M::Key> {
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
        let (len, min) = (self.chunk_len(), min_len(self.threads));
        self.parts
            .par_iter()
            .with_min_len(min)
            .flat_map(|p| p.frontier().par_chunks(len).with_min_len(min))
            .flat_map_iter(scan)
            .collect()
    }
}

/// Settles every partition's share of the next level from the candidates
/// routed to it (`incoming[p]`, one run per worker and one from other
/// processes), one task per partition; the size of this process's share.
fn settle_all<K: Key>(
    parts: &mut [Partition<K>],
    incoming: &mut [Vec<Vec<K>>],
    how: Settle,
    threads: usize,
) -> usize {
    parts
        .par_iter_mut()
        .zip(incoming.par_iter_mut())
        .with_min_len(min_len(threads))
        .map(|(part, runs)| part.settle(runs, how))
        .sum()
}

/// The smallest key of this process's share of level `depth` (every
/// level kept, each partition's share sorted) that has `key` as a
/// successor.
fn predecessor<M: Model>(
    model: &M,
    parts: &[Partition<M::Key>],
    router: Router,
    depth: usize,
    key: M::Key,
    threads: usize,
) -> Option<M::Key> {
    let share = |p: usize| parts[p].level(depth);
    let mut state = model.new_state();
    let mut successors = Vec::new();
    if model.reversible() {
        return successors_of(model, &mut state, &mut successors, key)
            .iter()
            .copied()
            .filter(|&k| share(router.route(k)).binary_search(&k).is_ok())
            .min();
    }
    // Each partition's share is sorted, so its first hit is its smallest;
    // the smallest over the partitions is the level's.
    let first_hit = |p: usize| {
        let mut state = model.new_state();
        let mut successors = Vec::new();
        share(p)
            .iter()
            .copied()
            .find(|&k| successors_of(model, &mut state, &mut successors, k).contains(&key))
    };
    (0..parts.len())
        .into_par_iter()
        .with_min_len(min_len(threads))
        .filter_map(first_hit)
        .min()
}
