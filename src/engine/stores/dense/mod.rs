//! The dense store: two bits a key for the whole key space, and nothing
//! else (Korf's scheme), for models whose keys are dense ranks of the
//! reachable states.
//!
//! Each key's two bits say where it stands:
//!
//! | bits | meaning |
//! |---|---|
//! | `00` | not seen |
//! | `01`, `10` | in the newest level, or in the level being settled: the two labels swap at every level |
//! | `11` | expanded: in an older level |
//!
//! A level is expanded by scanning the words that hold its label, decoding
//! each such key, and settling each successor whose bits are `00` with one
//! `fetch_or` of the next level's label (its one bit): the `fetch_or` that
//! finds that bit clear counts the state, so every state is counted once
//! however many workers reach it at once. A word's keys of the newest level are then marked
//! expanded (`11`) with one `fetch_xor` (no other worker writes them). No level is kept anywhere but
//! in these bits, so the memory is fixed from the start: a quarter of a
//! byte a key (the 2x7 tile puzzle: 43.6e9 keys, 10.2 GiB), against eight
//! bytes a state of a level held as keys.
//!
//! **Levels told apart by colour.** When the model colours its keys
//! ([`AdjacentKeys::colours`](crate::engine::AdjacentKeys): a tile puzzle's blank on
//! a chessboard, which every move takes to the other colour) and the
//! sources share a colour, every level is of one colour and the next of
//! the other, so the colour says which of the two a slot's level is, and
//! the codes mean instead:
//!
//! | bits | meaning |
//! |---|---|
//! | `00` | not seen |
//! | `01` | in the newest level, or the level being settled (its colour tells which) |
//! | `11` | the same, reached by a far move from the level before |
//! | `10` | expanded |
//!
//! `11` is for models whose far moves pair keys up
//! ([`AdjacentKeys::one_far`]: a tile puzzle of two rows, whose one vertical
//! move is undone by the vertical move back): a key reached by its far move
//! has its far successor in the level before, so it is not decoded at all
//! (the moves to its neighbouring keys are a word's masks). That is half of
//! the 2x7 puzzle's states: each vertical move is looked up once, from the
//! lower of its two levels, not from both. A successor is settled with an
//! `or` of `01` (a far one: `11`) where its slot is not `10` or `11`; the
//! `or` that finds the low bit clear counts it. A level's own slots are
//! written by the worker that expands their word only (every successor is
//! of the other colour), so it marks them expanded with an `xor` (`01` and
//! `11` to `10`), at once with the moves within the word (a
//! compare-and-swap of the word).
//!
//! Which stretches of 64 words hold the newest level is kept beside the
//! bits (each worker marks its own, merged at the end of the level), so the
//! thin levels at both ends of a search scan only what they touch.
//! Successors are looked up a fixed number of successors after their words
//! were prefetched (a ring of 32): the bits of a big key space are far
//! beyond the caches, and a worker that waits for one word at a time waits
//! for memory most of its time.
//!
//! Orderings: every access is `Relaxed`. Within a level, the writes to a
//! slot of the next level are `fetch_or`s (or a compare-and-swap that ors
//! its bits in), which commute, and a key's next-label bit (by colour: the
//! low bit) is found clear by exactly one of them (a read-modify-write
//! reads the latest value in the key's word's modification order); the
//! plain loads before them only skip keys that are already set, which such
//! a slot never loses within the level. The expanded level's slots are
//! written by one worker only, with a read-modify-write too, so no write to
//! their word's other slots is lost. Between
//! levels, rayon's join (the end of a level's parallel loop) orders every
//! write of a level before every read of the next.
//!
//! The store keeps no level as keys. To rebuild a path, a solve keeps each
//! key's depth mod 3 instead (*depth codes*: `01`, `10`, `11` for depths
//! 0, 1, 2 mod 3, never marked expanded): a key's predecessor is its
//! successor with the code of the depth before (see
//! [`Store::predecessor`]). A wide late level may be settled by pulling
//! instead of pushing ([`pull`]). With a checkpoint it
//! writes some levels as run files as it commits them
//! ([`dense_saves`](crate::engine::stores::dense::saves)), and a resumed search starts from
//! the last two it saved.
//!
//! The array need not be whole, nor in memory. Across processes each owns
//! an equal range of blocks and holds only its bits (`window`); a successor
//! in another's range is sent to it once a level. With `--spill`, an array
//! that does not fit in memory is kept on disk and worked a segment at a
//! time ([`dense_disk`](crate::engine::stores::dense::segments)); a successor outside the
//! resident segment is written to a candidate file for its segment. Both
//! go through the same lookup: a key whose word is not resident is "away".

mod away;
mod bits;
mod checkpoint;
mod codes;
mod expand;
mod pull;
mod resident;
pub(crate) mod saves;
pub(crate) mod segments;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;
use rayon::prelude::*;
use std::sync::Mutex;

use crate::engine::files::run::RunFile;
use crate::engine::files::{Spill, SpillError};
use crate::engine::levels::Fault;
use crate::engine::levels::agree::{Exchange, Share};
use crate::engine::levels::memory::disk_overhead;
use crate::engine::levels::workers::{lock, min_len, my_slot, per_worker};
use crate::engine::levels::{Finished, Sizes, Start, Store};
use crate::engine::stores::dense::saves::Saves;
use crate::engine::stores::dense::segments::Segments;
use crate::engine::stores::sets::visited::VisitedKind;
use crate::engine::{AdjacentKeys, Model};

use away::{block_count, owned_blocks, owner_of};
use bits::{Bits, block_of, holding, marked_words, occupied, prefetch, slot, stretch_bit};
use codes::{Adjacent, Codes, expanded_xor, first_to_set};
use expand::{Ring, Tally};

/// Keys in a word: two bits each.
const KEYS_PER_WORD: u64 = 32;

/// Words in a block, the unit of the work split: 32 KiB, 131072 keys.
const BLOCK_WORDS: usize = 4096;

/// Bytes of a block.
pub(crate) const BLOCK_BYTES: u64 = BLOCK_WORDS as u64 * 8;

/// Words in a stretch, the unit of the scan: a block's 64 stretches have
/// one bit each in the block's mark. 512 bytes: a thin level (the 2x7
/// puzzle's million states at depth 30 or 97, spread over the whole key
/// space) scans half a GiB, not the whole array.
const STRETCH_WORDS: usize = BLOCK_WORDS / 64;

/// Successors between a key's prefetch and its lookup: enough for a
/// memory access to complete (about 12 expansions of a tile puzzle), few
/// enough that the prefetched lines are still in the L1 cache.
const LAG: usize = 32;

/// The low bit of every two-bit slot.
const LOW: u64 = 0x5555_5555_5555_5555;

/// Bits of a key's slot that mean "expanded".
const DONE: u64 = 3;

/// Keys of a level the store remembers as keys (for the last level's
/// report after the level was expanded): a level wider than this has its
/// keys only in the bits.
const REMEMBERED: usize = 1 << 16;

/// Keys a checkpoint's level file holds at least, when the level has more
/// than one: a level is written as about `width / FILE_KEYS` files (in
/// parallel, one task each), at most [`MAX_FILES`].
const FILE_KEYS: u64 = 1 << 20;

/// Files a checkpoint's level is written as at most.
const MAX_FILES: usize = 64;

/// Successors outside the resident segment a worker holds at most before
/// it sorts them and writes them as candidate files (8 MiB); fewer where
/// the segment is small, so that all workers' buffers together take at
/// most a sixteenth of the segment's memory.
const AWAY_KEYS: usize = 1 << 20;

/// The bytes of the two-bit array for `key_space` keys.
pub(crate) fn bytes_for(key_space: u64) -> u64 {
    key_space.div_ceil(KEYS_PER_WORD) * 8
}

/// The memory a search needs left for a two-bit array of `bytes` in
/// memory: a third more, so that the array takes at most three quarters
/// of it and the level's work has the rest.
pub(crate) fn room_for(bytes: u64) -> u64 {
    bytes.saturating_add(bytes / 3)
}

// SAFETY: `Bits` owns its mapping outright; its words are atomics, which
// any thread may access through a shared reference.
unsafe impl Send for Bits {}
// SAFETY: as above: every access to the words goes through `AtomicU64`.
unsafe impl Sync for Bits {}

struct Worker<S> {
    state: S,
    successors: Vec<u64>,
    ring: Ring,
    tally: Tally,
}

/// The dense store.
pub(crate) struct Dense<'a, M: Model<Key = u64>> {
    model: &'a M,
    /// The two-bit array: all of it, or (on disk) the resident segment's.
    bits: Bits,
    /// The words of the key space `bits` holds.
    window: std::ops::Range<usize>,
    /// Words of the whole key space.
    total_words: usize,
    /// This process's place among the search's: each owns a range of
    /// blocks.
    share: Share,
    /// This process's blocks.
    owned: std::ops::Range<usize>,
    /// The array on disk, when it does not fit in memory.
    segments: Option<Segments>,
    /// Keys a worker's `away` buffer holds before it is written.
    away_keys: usize,
    /// On disk: the process's memory at its most, planned when the store
    /// was made (what it held, the segment, the workers' buffers of keys
    /// for other segments and their own memory).
    ceiling: Option<u64>,
    /// The label of the newest level: 1 or 2 (the labels swap every
    /// level), or with depth codes its depth mod 3, plus one.
    label: u64,
    /// Whether each key keeps its depth mod 3 for good (a solve: see the
    /// module notes) rather than its level's label until expanded.
    depth_codes: bool,
    /// States of every level so far, this process's and others' (the
    /// unseen keys are what a pull looks at).
    seen: u64,
    /// When a level is settled by a pull (see [`pull`]).
    pull_ratio: u64,
    /// The colour of the newest level's keys, when levels are told apart
    /// by colour (see the module notes); `None`: by label.
    colour: Option<u64>,
    /// Blocks holding the newest level, with which of their stretches do.
    blocks: Vec<(u32, u64)>,
    /// Blocks of the key space.
    block_count: usize,
    /// The newest level's keys, sorted, while few.
    newest: Option<Vec<u64>>,
    workers: Vec<CachePadded<Mutex<Worker<M::State>>>>,
    stop: Option<&'a AtomicBool>,
    /// The checkpoint, if the search has one.
    saves: Option<Saves>,
    /// The model's moves to a key's neighbours, as masks over a word.
    adjacent: Option<Adjacent>,
}

impl<'a, M: Model<Key = u64>> Dense<'a, M> {
    /// A search of `model` from `sources` (each below the key space).
    /// (In a cluster, `share`: each process holds the two bits of its own
    /// range of keys, and successors in another's go to it once a level.)
    /// With `depth_codes` every key keeps its depth mod 3, so that a path
    /// can be walked back from any key (a solve).
    pub(crate) fn new(
        model: &'a M,
        threads: usize,
        sources: &[u64],
        stop: Option<&'a AtomicBool>,
        share: Share,
        depth_codes: bool,
    ) -> std::io::Result<(Dense<'a, M>, Start)> {
        let mut dense = Dense::build(model, threads, stop, share, None)?;
        dense.depth_codes = depth_codes;
        let (keys, width) = dense.own_sources(sources);
        let (words, base) = (dense.words(), dense.window.start);
        for &key in &keys {
            let (w, shift) = slot(key);
            words[w - base].fetch_or(1 << shift, Ordering::Relaxed);
        }
        Ok(dense.started(keys, width))
    }

    /// This process's share of `sources`, sorted and distinct, and how
    /// many distinct sources there are in all. Levels are told apart by
    /// colour from here on when all the sources share one (every process
    /// sees all of them, so all decide alike).
    fn own_sources(&mut self, sources: &[u64]) -> (Vec<u64>, u64) {
        self.colour = self
            .adjacent
            .as_ref()
            .filter(|_| !self.depth_codes)
            .and_then(|a| a.colour_of_all(sources));
        let mut keys = sources.to_vec();
        keys.sort_unstable();
        keys.dedup();
        let width = keys.len() as u64;
        keys.retain(|&k| self.owned.contains(&block_of(k)));
        (keys, width)
    }

    /// A search of `model` from `sources` with the two-bit array on disk,
    /// in `spill`'s directory, a segment of at most `segment_bytes` in
    /// memory at a time ([`dense_disk`](crate::engine::stores::dense::segments)).
    pub(crate) fn on_disk(
        model: &'a M,
        threads: usize,
        sources: &[u64],
        stop: Option<&'a AtomicBool>,
        spill: &Spill,
        segment_bytes: u64,
        share: Share,
    ) -> Result<(Dense<'a, M>, Start), crate::engine::SearchError> {
        let segments = Segments::create(
            &spill.of_process(share.me, share.processes),
            crate::engine::files::digest(&model.identity()),
            bytes_for(model.key_space()) as usize,
            BLOCK_WORDS * 8,
            segment_bytes as usize,
            owned_blocks(block_count(model), share.processes, share.me),
            !share.alone(),
        )?;
        let segment = segments.max_bytes() as u64;
        let held = crate::engine::levels::memory::current_rss_bytes().unwrap_or(0);
        // (On a failure the segments' files go as they are dropped.)
        let mut dense =
            Dense::build(model, threads, stop, share, Some(segments)).map_err(|source| {
                crate::engine::SearchError::DenseMap {
                    mib: segment >> 20,
                    source,
                }
            })?;
        // The segment, a sixteenth of it for keys bound for other segments
        // (`away_keys`), and the workers' own memory.
        dense.ceiling = Some(held + segment + segment / 16 + disk_overhead(threads));
        let (keys, width) = dense.own_sources(sources);
        // The sources go in as keys of the newest level not yet in the
        // array, which the first forward pass writes into it.
        let segments = dense.segments.as_mut().expect("on disk");
        segments.flush(&mut keys.clone(), 0, block_of)?;
        for (s, file) in segments.take_made() {
            segments.settled[s].push(file);
        }
        Ok(dense.started(keys, width))
    }

    /// A store of `model` with nothing seen yet: this process's share of
    /// the array in memory, or on disk in `segments`.
    fn build(
        model: &'a M,
        threads: usize,
        stop: Option<&'a AtomicBool>,
        share: Share,
        segments: Option<Segments>,
    ) -> std::io::Result<Dense<'a, M>> {
        let total_words = model.key_space().div_ceil(KEYS_PER_WORD) as usize;
        let block_count = block_count(model);
        let owned = owned_blocks(block_count, share.processes, share.me);
        let owned_words = (owned.start * BLOCK_WORDS).min(total_words)
            ..(owned.end * BLOCK_WORDS).min(total_words);
        let bits = match &segments {
            Some(s) => Bits::new(s.max_bytes() / 8),
            None => Bits::new(owned_words.len()),
        }?;
        let window = match &segments {
            Some(_) => 0..0,
            None => owned_words,
        };
        let workers = per_worker(threads, || Worker {
            state: model.new_state(),
            successors: Vec::new(),
            ring: Ring {
                keys: [0; LAG],
                head: 0,
                len: 0,
            },
            tally: Tally {
                found: 0,
                remembered: Vec::new(),
                marks: vec![0; block_count],
                away: Vec::new(),
                outbound: vec![Vec::new(); share.processes],
                fault: None,
            },
        });
        Ok(Dense {
            model,
            bits,
            window,
            total_words,
            share,
            owned,
            ceiling: None,
            away_keys: match &segments {
                Some(s) => (s.max_bytes() / 8 / 16 / threads.max(1)).clamp(4096, AWAY_KEYS),
                None => AWAY_KEYS,
            },
            segments,
            label: 1,
            depth_codes: false,
            seen: 0,
            pull_ratio: pull::PULL_RATIO,
            colour: None,
            blocks: Vec::new(),
            block_count,
            newest: None,
            workers,
            stop,
            saves: None,
            adjacent: model.adjacent_keys().map(Adjacent::new),
        })
    }

    /// The store with `keys` (this process's, sorted and distinct, their
    /// bits set or on their way to the array) of the `width` sources as
    /// level 0.
    fn started(mut self, keys: Vec<u64>, width: u64) -> (Dense<'a, M>, Start) {
        {
            let marks = &mut lock(&self.workers[0]).tally.marks;
            for &key in &keys {
                let w = slot(key).0;
                marks[w / BLOCK_WORDS] |= stretch_bit(w);
            }
        }
        self.newest = Some(keys);
        self.seen = width;
        self.take_marks();
        (self, Start::new(width))
    }

    /// The code a key settled into the level of `label` gets: the label,
    /// or (levels told apart by colour) `01`.
    fn code(&self, label: u64) -> u64 {
        if self.colour.is_some() { 1 } else { label }
    }

    /// The label of the level after the newest.
    fn next_label(&self) -> u64 {
        if self.depth_codes {
            self.label % 3 + 1
        } else {
            3 - self.label
        }
    }

    /// The code of an expanded key: `11`, or (levels told apart by
    /// colour) `10`.
    fn done_code(&self) -> u64 {
        if self.colour.is_some() { 2 } else { DONE }
    }

    /// One low bit per slot of `word`, a word of `phase`, that holds a key
    /// of the newest level.
    #[inline(always)]
    fn newest_in(&self, word: u64, phase: usize) -> u64 {
        match (self.colour, &self.adjacent) {
            (Some(c), Some(a)) => word & a.of_colour(c, phase),
            _ => holding(word, self.label),
        }
    }

    /// The words of `range` with their phases.
    fn phased(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = (usize, usize)> {
        let adjacent = self.adjacent.as_ref();
        let first = adjacent.map_or(0, |a| a.phase_of(range.start));
        range.scan(first, move |phase, w| {
            let this = *phase;
            if let Some(a) = adjacent {
                *phase = a.after(this);
            }
            Some((w, this))
        })
    }

    /// The resident words.
    #[inline]
    fn words(&self) -> &[AtomicU64] {
        &self.bits.words()[..self.window.len()]
    }

    /// Makes the blocks the workers marked the newest level's, and clears
    /// the marks.
    fn take_marks(&mut self) {
        let mut all = vec![0u64; self.block_count];
        for w in &self.workers {
            for (a, m) in all.iter_mut().zip(lock(w).tally.marks.iter_mut()) {
                *a |= std::mem::take(m);
            }
        }
        self.blocks = all
            .into_iter()
            .enumerate()
            .filter(|&(_, bits)| bits != 0)
            .map(|(b, bits)| (b as u32, bits))
            .collect();
    }
}

impl<M: Model<Key = u64>> Store for Dense<'_, M> {
    fn goals(&mut self, threads: usize) -> Result<Vec<u64>, Fault> {
        if !self.model.has_goal() {
            return Ok(Vec::new());
        }
        if let Some(keys) = self.model.goal_keys() {
            // (With depth codes too: a goal key of an older level with this
            // level's code would have ended the search at its own level.)
            let mut found = Vec::new();
            for key in keys {
                if self.contains(key)? {
                    found.push(key);
                }
            }
            return Ok(found);
        }
        // The workers' own decoded states: nothing is made per level.
        let model = self.model;
        let goal =
            |workers: &[CachePadded<Mutex<Worker<M::State>>>], key: u64, out: &mut Vec<u64>| {
                let state = &mut lock(my_slot(workers)).state;
                model.decode(key, state);
                if model.is_goal(state) {
                    out.push(key);
                }
            };
        let Some(segments) = &self.segments else {
            return Ok(self.scan(&self.blocks, threads, |k, out| goal(&self.workers, k, out)));
        };
        let mut goals = Vec::new();
        for i in 0..segments.count() {
            if !self.blocks_in(i).is_empty() {
                self.bring(i)?;
                goals.extend(self.scan(self.blocks_in(i), threads, |k, out| {
                    goal(&self.workers, k, out)
                }));
            }
        }
        Ok(goals)
    }

    fn contains(&mut self, key: u64) -> Result<bool, Fault> {
        if key >= self.model.key_space() {
            return Ok(false);
        }
        let (w, shift) = slot(key);
        if !self.owned.contains(&(w / BLOCK_WORDS)) {
            // Another process's.
            return Ok(false);
        }
        if let Some(segments) = &self.segments {
            self.bring(segments.segment_of(w / BLOCK_WORDS))?;
        }
        let word = self.words()[w - self.window.start].load(Ordering::Relaxed);
        let phase = self.adjacent.as_ref().map_or(0, |a| a.phase_of(w));
        Ok((self.newest_in(word, phase) >> shift) & 1 == 1)
    }

    fn settle_next(
        &mut self,
        depth: u32,
        width: u64,
        threads: usize,
        exchange: &Exchange<'_>,
    ) -> Result<u64, Fault> {
        // The newest level's keys are marked expanded as it goes: what is
        // remembered of them is all that is left of them as a level.
        self.new_tallies();
        if self.segments.is_some() {
            self.forward(depth, threads)?;
        } else if self.pulls(width) {
            self.pull(threads);
        } else {
            self.expand(&self.blocks, threads, true, depth)?;
        }
        if !self.share.alone() {
            self.send_away(depth, exchange)?;
        }
        if self.segments.is_some() {
            self.backward()?;
        }
        Ok(self.found())
    }

    fn new_successors(
        &mut self,
        depth: u32,
        width: u64,
        threads: usize,
        exchange: &Exchange<'_>,
    ) -> Result<u64, Fault> {
        if self.segments.is_some() || !self.share.alone() {
            // Successors in other segments or processes are only known new
            // once their segment is read, or their owner has looked: the
            // next level is settled, and the search ends here whatever it
            // finds.
            return self.settle_next(depth, width, threads, exchange);
        }
        self.new_tallies();
        self.expand(&self.blocks, threads, false, depth)?;
        Ok(self.found())
    }

    fn commit(&mut self, levels: &Sizes, seconds: f64) -> Result<(), Fault> {
        let levels = &levels.keys;
        let width = *levels.last().expect("a level");
        self.newest = if width as usize <= REMEMBERED {
            let mut keys: Vec<u64> = self
                .workers
                .iter()
                .flat_map(|w| std::mem::take(&mut lock(w).tally.remembered))
                .collect();
            keys.sort_unstable();
            Some(keys)
        } else {
            None
        };
        self.label = self.next_label();
        self.colour = self.colour.map(|c| c ^ 1);
        self.seen += width;
        self.take_marks();
        if let Some(segments) = &mut self.segments {
            // What the backward pass counted is the newest level's now.
            debug_assert!(segments.settled.iter().all(Vec::is_empty));
            debug_assert!(segments.ahead.iter().all(Vec::is_empty));
            let empty = (0..segments.count()).map(|_| Vec::new()).collect();
            segments.settled = std::mem::replace(&mut segments.behind, empty);
        }
        self.save(levels, seconds)
    }

    fn positions(&mut self, _next: bool, _threads: usize) -> Result<u64, Fault> {
        // `classes` says no: the search refuses the dense store to a
        // model whose keys are classes (it keeps no level as keys to weigh).
        unreachable!("the dense store weighs no classes")
    }

    fn discard(&mut self) {
        // The search ends here: the newest level stays what it was, and
        // the keys of it that were remembered still stand for it.
        for w in &self.workers {
            lock(w).tally.marks.fill(0);
        }
    }

    fn bytes_per_new_key(&self) -> u64 {
        0
    }

    fn next_level_bytes(&self, _next: u64, rss: u64) -> u64 {
        // On disk, what is left of the plan; in memory the array was sized
        // against the limit when the store was chosen, and a level adds
        // nothing.
        self.ceiling.map_or(0, |c| c.saturating_sub(rss))
    }

    fn last_level(&mut self, width: u64, _threads: usize) -> Result<Option<Vec<u64>>, Fault> {
        // Each process remembers its share while the level is thin.
        Ok((width as usize <= REMEMBERED).then(|| self.newest.clone().unwrap_or_default()))
    }

    fn predecessor(&mut self, depth: u32, key: u64, _: usize) -> Result<Option<u64>, Fault> {
        // With depth codes a key's neighbours in level `depth` are exactly
        // those of its successors that hold that depth's code: the key is
        // at `depth + 1`, its neighbours (the moves being reversible) at
        // `depth` to `depth + 2`, of which only `depth` has that code
        // mod 3, and nothing deeper than the goal's level is settled.
        assert!(
            self.depth_codes && self.model.reversible() && self.segments.is_none(),
            "a dense search that can walk a path back"
        );
        let code = u64::from(depth % 3) + 1;
        let model = self.model;
        let mut worker = lock(&self.workers[0]);
        let Worker {
            state, successors, ..
        } = &mut *worker;
        model.decode(key, state);
        successors.clear();
        model.successors(state, successors);
        let words = self.words();
        let base = self.window.start;
        Ok(successors
            .iter()
            .copied()
            .filter(|&s| {
                let (w, shift) = slot(s);
                self.owned.contains(&(w / BLOCK_WORDS))
                    && words
                        .get(w.wrapping_sub(base))
                        .is_some_and(|word| (word.load(Ordering::Relaxed) >> shift) & 3 == code)
            })
            .min())
    }

    fn fault(&self, e: Fault) -> crate::engine::StopReason {
        match (e, &self.saves) {
            (Fault::Storage(e), Some(saves)) => crate::engine::StopReason::Storage(saves.fault(&e)),
            (Fault::Storage(e), None) => crate::engine::StopReason::Storage(e.to_string()),
            (Fault::Peer(e), _) => crate::engine::StopReason::Cluster(e.to_string()),
        }
    }

    fn finish(self, stopped: bool) -> Finished {
        Finished {
            visited: VisitedKind::Dense,
            partitions: 1,
            disk: match (self.saves, self.segments) {
                (Some(saves), _) => Some(saves.finish(stopped)),
                (None, Some(segments)) => Some(segments.finish()),
                (None, None) => None,
            },
            coded: None,
        }
    }
}
