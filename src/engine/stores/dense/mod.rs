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

mod pull;
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
use crate::engine::levels::workers::{lock, my_slot, per_worker};
use crate::engine::levels::{Finished, Start, Store};
use crate::engine::stores::dense::saves::Saves;
use crate::engine::stores::dense::segments::Segments;
use crate::engine::stores::sets::visited::VisitedKind;
use crate::engine::{AdjacentKeys, Model};

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

/// The two-bit array: anonymous memory, zero until touched, asked for in
/// huge pages (a big key space is looked up at random, and with 4 KiB pages
/// every lookup would also miss the TLB).
struct Bits {
    ptr: *mut AtomicU64,
    words: usize,
}

// SAFETY: `Bits` owns its mapping outright; its words are atomics, which
// any thread may access through a shared reference.
unsafe impl Send for Bits {}
// SAFETY: as above: every access to the words goes through `AtomicU64`.
unsafe impl Sync for Bits {}

impl Bits {
    fn new(words: usize) -> std::io::Result<Bits> {
        let bytes = words.max(1) * 8;
        // SAFETY: an anonymous private mapping at an address the kernel
        // chooses aliases nothing; the result is checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        // A hint only: without transparent huge pages the array works the
        // same, more slowly.
        // SAFETY: the range is the mapping just made.
        unsafe {
            libc::madvise(ptr, bytes, libc::MADV_HUGEPAGE);
        }
        Ok(Bits {
            ptr: ptr.cast(),
            words,
        })
    }

    /// The words as bytes, to read a segment into.
    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: the mapping holds `words * 8` bytes valid for the life
        // of `self`, and the exclusive borrow means no atomic access to
        // them overlaps this one.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.cast::<u8>(), self.words * 8) }
    }

    /// The words as bytes, to write a segment from.
    fn bytes(&mut self) -> &[u8] {
        // SAFETY: as in `bytes_mut`: the borrow is exclusive, so nothing
        // writes the words while the bytes are read.
        unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.words * 8) }
    }

    #[inline]
    fn words(&self) -> &[AtomicU64] {
        // SAFETY: the mapping holds `words` zero-initialised u64s, suitably
        // aligned (page-aligned), valid for the life of `self`; `AtomicU64`
        // has u64's layout, and the slice is only accessed atomically.
        unsafe { std::slice::from_raw_parts(self.ptr, self.words) }
    }
}

impl Drop for Bits {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, of this length, unmapped once.
        unsafe {
            libc::munmap(self.ptr.cast(), self.words.max(1) * 8);
        }
    }
}

/// Fetches `word` (if resident) towards this core.
#[inline(always)]
fn prefetch(word: Option<&AtomicU64>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(word) = word {
        // SAFETY: a prefetch has no effect on memory; the pointer is a
        // word of the array.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                word.as_ptr().cast(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = word;
}

/// One low bit per slot of `word` holding `label`.
#[inline(always)]
fn holding(word: u64, label: u64) -> u64 {
    let lo = word & LOW;
    let hi = (word >> 1) & LOW;
    match label {
        1 => lo & !hi,
        2 => hi & !lo,
        _ => lo & hi,
    }
}

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
        (
            self,
            Start {
                levels: vec![width],
                seconds: 0.0,
            },
        )
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

    /// Keeps a checkpoint in `saves` (a model with reversible moves: see
    /// [`dense_saves`](crate::engine::stores::dense::saves)), starting with level 0. On a
    /// failure the checkpoint's files and the directory it made go.
    pub(crate) fn checkpoint(&mut self, saves: Saves) -> Result<(), Fault> {
        debug_assert!(self.model.reversible());
        self.saves = Some(saves);
        let width = self.newest.as_ref().map_or(0, |k| k.len() as u64);
        self.save(&[width], 0.0).inspect_err(|_| {
            if let Some(saves) = self.saves.take() {
                saves.abandon();
            }
        })
    }

    /// A search that goes on from the checkpoint `saves` opened: its level
    /// before the newest marked expanded, its newest level the newest.
    pub(crate) fn resume(
        model: &'a M,
        threads: usize,
        saves: Saves,
        stop: Option<&'a AtomicBool>,
    ) -> Result<(Dense<'a, M>, Start), crate::engine::SearchError> {
        let mut dense =
            Dense::build(model, threads, stop, Share::ALONE, None).map_err(|source| {
                crate::engine::SearchError::DenseMap {
                    mib: bytes_for(model.key_space()) >> 20,
                    source,
                }
            })?;
        let (levels, seconds) = saves.start();
        // The newest level first: whether its keys share a colour decides
        // how the array tells levels apart, and so the older level's code.
        let mut written: Vec<(u32, &[RunFile])> = saves.levels().collect();
        written.sort_by_key(|&(depth, _)| depth);
        let (_, newest) = written.pop().expect("a saved level");
        dense.colour = match dense.load(newest, dense.label, true)? {
            0b01 => Some(0),
            0b10 => Some(1),
            // Both colours, none, or no keys (a search that has ended).
            _ => None,
        };
        for (_, files) in written {
            dense.load(files, dense.done_code(), false)?;
        }
        dense.take_marks();
        let width = *levels.last().expect("a saved level");
        if width as usize <= REMEMBERED {
            dense.newest = Some(dense.scan(&dense.blocks, threads, |key, out| out.push(key)));
        }
        // The levels before the saved two are unseen in the bits: a pull
        // finds none of them (a successor of level d is in d - 1, d or
        // d + 1), but they are no candidates either.
        dense.seen = levels.iter().sum();
        dense.saves = Some(saves);
        Ok((dense, Start { levels, seconds }))
    }

    /// Sets `slot_bits` in the slot of every key in `files` (every block's
    /// checksum checked), marking their stretches when `newest`. Returns
    /// the colours of the newest level's keys (bit `c` for colour `c`; bit
    /// 2 for a key of none: the model colours no keys).
    fn load(&self, files: &[RunFile], slot_bits: u64, newest: bool) -> Result<u8, Fault> {
        let words = self.bits.words();
        let key_space = self.model.key_space();
        let colours = std::sync::atomic::AtomicU8::new(0);
        self.each_block(files, |file, keys| {
            let colour = |key| match self.adjacent.as_ref().and_then(|a| a.colour_of(key)) {
                Some(c) => 1 << c,
                None => 4,
            };
            let seen = match newest {
                true => keys.iter().fold(0u8, |seen, &key| seen | colour(key)),
                false => 0,
            };
            // Relaxed: read after the parallel pass's join.
            colours.fetch_or(seen, Ordering::Relaxed);
            let mut worker = lock(my_slot(&self.workers));
            for &key in keys {
                if key >= key_space {
                    return Err(SpillError::Damaged {
                        path: file.path().to_path_buf(),
                        what: format!("key {key} is past the key space ({key_space})"),
                    });
                }
                let (w, shift) = slot(key);
                // Relaxed: read-modify-writes of a word commute, and the end
                // of this parallel pass (a rayon join) orders them before
                // the search reads the bits.
                words[w].fetch_or(slot_bits << shift, Ordering::Relaxed);
                if newest {
                    worker.tally.marks[w / BLOCK_WORDS] |= stretch_bit(w);
                }
            }
            Ok(())
        })?;
        Ok(colours.into_inner())
    }

    /// Calls `f` with each block's keys of `files` (its checksum checked),
    /// the blocks shared among the workers.
    fn each_block(
        &self,
        files: &[RunFile],
        f: impl Fn(&RunFile, &[u64]) -> Result<(), SpillError> + Sync,
    ) -> Result<(), SpillError> {
        let blocks: Vec<(&RunFile, usize)> = files
            .iter()
            .flat_map(|f| (0..f.block_count()).map(move |b| (f, b)))
            .collect();
        // A task's buffers serve all the blocks it reads.
        let one = |(scratch, keys): &mut (Vec<u8>, Vec<u64>),
                   &(file, b): &(&RunFile, usize)|
         -> Result<(), SpillError> {
            keys.clear();
            file.read_block(b, scratch, keys)?;
            f(file, keys)
        };
        let buffers = || (Vec::new(), Vec::new());
        if self.workers.len() <= 1 {
            let mut mine = buffers();
            blocks.iter().try_for_each(|b| one(&mut mine, b))
        } else {
            blocks.par_iter().try_for_each_init(buffers, one)
        }
    }

    /// Writes the newest level (the last of `levels`, `seconds` into the
    /// search) to the checkpoint, when it is due.
    fn save(&mut self, levels: &[u64], seconds: f64) -> Result<(), Fault> {
        let Some(saves) = &mut self.saves else {
            return Ok(());
        };
        // A pair synced since the last level is named now.
        saves.settle(false)?;
        let depth = (levels.len() - 1) as u32;
        if !saves.wanted(depth, seconds) {
            return Ok(());
        }
        let began = std::time::Instant::now();
        let width = *levels.last().expect("a level");
        let files = self.write_level(self.saves.as_ref().expect("a checkpoint"), depth, width)?;
        let saves = self.saves.as_mut().expect("a checkpoint");
        saves.saved(depth, files, levels, seconds, began)
    }

    /// Writes the newest level (`width` keys at `depth`) as files of
    /// `saves`, each a run of the level's marked blocks, in key order.
    fn write_level(
        &self,
        saves: &Saves,
        depth: u32,
        width: u64,
    ) -> Result<Vec<RunFile>, SpillError> {
        let words = self.bits.words();
        let wanted = (width / FILE_KEYS).clamp(1, MAX_FILES as u64) as usize;
        let per = self.blocks.len().div_ceil(wanted).max(1);
        let pieces: Vec<&[(u32, u64)]> = if self.blocks.is_empty() {
            vec![&[]]
        } else {
            self.blocks.chunks(per).collect()
        };
        let n = pieces.len();
        let write = |(i, piece): (usize, &&[(u32, u64)])| -> Result<RunFile, SpillError> {
            let mut out = saves.writer(depth, i, n)?;
            for &(b, stretches) in piece.iter() {
                for range in marked_words(b, stretches, words.len()) {
                    for (w, phase) in self.phased(range) {
                        let mut here = self.newest_in(words[w].load(Ordering::Relaxed), phase);
                        while here != 0 {
                            out.push(
                                w as u64 * KEYS_PER_WORD + u64::from(here.trailing_zeros() / 2),
                            )?;
                            here &= here - 1;
                        }
                    }
                }
            }
            out.finish()
        };
        if self.workers.len() <= 1 {
            pieces.iter().enumerate().map(write).collect()
        } else {
            pieces.par_iter().enumerate().map(write).collect()
        }
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

    /// Calls `f` with every key of the newest level in `blocks` (all
    /// resident), block by block on `threads` workers, and gathers what it
    /// returns.
    fn scan<T: Send>(
        &self,
        blocks: &[(u32, u64)],
        threads: usize,
        f: impl Fn(u64, &mut Vec<T>) + Sync,
    ) -> Vec<T> {
        let words = self.words();
        let base = self.window.start;
        let block = |&(b, stretches): &(u32, u64), out: &mut Vec<T>| {
            for range in marked_words(b, stretches, self.total_words) {
                for (w, phase) in self.phased(range) {
                    let mut here = self.newest_in(words[w - base].load(Ordering::Relaxed), phase);
                    while here != 0 {
                        let key = w as u64 * KEYS_PER_WORD + u64::from(here.trailing_zeros() / 2);
                        f(key, out);
                        here &= here - 1;
                    }
                }
            }
        };
        if threads <= 1 {
            let mut out = Vec::new();
            blocks.iter().for_each(|b| block(b, &mut out));
            out
        } else {
            blocks
                .par_iter()
                .fold(Vec::new, |mut out, b| {
                    block(b, &mut out);
                    out
                })
                .reduce(Vec::new, |mut a, mut b| {
                    a.append(&mut b);
                    a
                })
        }
    }

    /// Expands the newest level's `blocks` (all resident): settles the
    /// successors not seen before with the next label (when `settle`;
    /// otherwise only looks for one) and marks the level's keys expanded
    /// (when `settle`). A successor outside the resident words goes to its
    /// worker's `away` buffer, written as candidate files of the level
    /// after `depth` when full. Adds the states settled (or, not settling,
    /// whether any successor is new) to the workers' tallies.
    fn expand(
        &self,
        blocks: &[(u32, u64)],
        threads: usize,
        settle: bool,
        depth: u32,
    ) -> Result<(), SpillError> {
        let (words, base) = (self.words(), self.window.start);
        let (label, next) = (self.label, self.next_label());
        let depth_codes = self.depth_codes;
        let model = self.model;
        let cut = || self.stop.is_some_and(|s| s.load(Ordering::Relaxed));
        let adjacent = self.adjacent.as_ref();
        // Levels told apart by colour, with far successors skipped where
        // they lead back (see the module notes).
        let colour = self.colour.zip(adjacent);
        let one_far = colour.is_some_and(|(_, a)| a.one_far);
        let Codes { plain, far, seen } = Codes::new(colour.is_some(), one_far, next, depth_codes);
        // Looks a successor up (a far one: its word was prefetched LAG
        // lookups ago).
        let look_up = |tally: &mut Tally, key: u64, far_move: bool| {
            let (w, shift) = slot(key);
            let Some(word) = words.get(w.wrapping_sub(base)) else {
                self.away(tally, key, depth);
                return;
            };
            let (code, seen) = if far_move { (far, seen) } else { (plain, 3) };
            let was = (word.load(Ordering::Relaxed) >> shift) & 3;
            if was & seen != 0 {
                return;
            }
            if !settle {
                tally.found |= u64::from(was == 0);
                return;
            }
            // Between the load and here the slot can only have become one
            // of the next level (no other write reaches a slot that was 00
            // or 01 in this level), so the low bit of its code (the next
            // label's one bit, or `01`'s) says who came first: the one
            // fetch_or that finds it clear.
            if (word.fetch_or(code << shift, Ordering::Relaxed) >> shift) & plain == 0 {
                tally.settled(w, key);
            }
        };
        let block = |(b, stretches): (u32, u64), worker: &mut Worker<M::State>| {
            let Worker {
                state,
                successors,
                ring,
                tally,
            } = worker;
            let mut lag = |tally: &mut Tally, s: u64| {
                prefetch(words.get(slot(s).0.wrapping_sub(base)));
                if let Some(due) = ring.push(s) {
                    look_up(tally, due, true);
                }
            };
            for range in marked_words(b, stretches, self.total_words) {
                let mut phase = adjacent.map_or(0, |a| a.phase_of(range.start));
                for w in range {
                    let word = &words[w - base];
                    let was = word.load(Ordering::Relaxed);
                    let here = match colour {
                        Some((c, a)) => was & a.of_colour(c, phase),
                        None => holding(was, label),
                    };
                    let this_phase = phase;
                    if let Some(a) = adjacent {
                        phase = a.after(phase);
                    }
                    if here == 0 {
                        continue;
                    }
                    let first = w as u64 * KEYS_PER_WORD;
                    // What marks the level's keys in this word expanded,
                    // as an xor: their label to `11`; by colour, `01` and
                    // `11` to `10`. No other worker writes these slots in
                    // this level (a lookup writes only a slot it saw `00`).
                    let marked_far = (was >> 1) & here;
                    let mut done = expanded_xor(was, here, colour.is_some(), label, depth_codes);
                    if let Some(a) = adjacent {
                        // The moves to a neighbouring key, a word at a
                        // time: the slots they reach in this word, and a
                        // key each past its ends (looked up at once: the
                        // words beside this one are in the cache).
                        let (up, down) = (here & a.up[this_phase], here & a.down[this_phase]);
                        let reached = ((up << 2) | (down >> 2)) & !occupied(was);
                        if up >> (2 * (KEYS_PER_WORD - 1)) != 0 {
                            look_up(tally, first + KEYS_PER_WORD, false);
                        }
                        if down & 1 != 0 {
                            look_up(tally, first - 1, false);
                        }
                        if !settle {
                            tally.found |= u64::from(reached != 0);
                        } else if reached != 0 {
                            // The level's keys marked and the reached slots
                            // still `00` given their code, in one
                            // compare-and-swap of the word as it is (other
                            // workers may be settling its other slots).
                            let new = |now: u64| reached & !occupied(now);
                            let swap = |now: u64| Some((now ^ done) | (new(now) * plain));
                            let (Ok(now) | Err(now)) =
                                word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, swap);
                            tally.settled_in(w, new(now));
                            done = 0;
                        }
                    }
                    // Keys reached by their one far move need not look it
                    // up: it leads back to the level before.
                    let mut left = if one_far { here & !marked_far } else { here };
                    while left != 0 {
                        let key = first + u64::from(left.trailing_zeros() / 2);
                        left &= left - 1;
                        successors_of(model, adjacent.is_some(), key, state, successors);
                        for &s in successors.iter() {
                            lag(tally, s);
                        }
                    }
                    if settle && done != 0 {
                        // The level's keys in this word are expanded; the
                        // other slots may be settling in other workers' hands.
                        word.fetch_xor(done, Ordering::Relaxed);
                    }
                }
            }
        };
        let run = |chunk: &[(u32, u64)]| {
            let mut worker = lock(my_slot(&self.workers));
            for &b in chunk {
                if cut() || worker.tally.fault.is_some() || (!settle && worker.tally.found > 0) {
                    break;
                }
                block(b, &mut worker);
            }
            let Worker { ring, tally, .. } = &mut *worker;
            while let Some(key) = ring.pop() {
                look_up(tally, key, true);
            }
        };
        // Small chunks even out the workers: blocks differ a lot in how
        // many keys of the level they hold.
        match threads {
            0 | 1 => run(blocks),
            _ => blocks.par_chunks(4).for_each(run),
        }
        self.flush_away(threads, depth)
    }

    /// After a level's expansion, writes what is left in the workers'
    /// buffers of successors that are not resident (candidate files of the
    /// level after `depth`); the first fault any worker met.
    fn flush_away(&self, threads: usize, depth: u32) -> Result<(), SpillError> {
        let segments = self.segments.as_ref();
        let flush = |slot: &CachePadded<Mutex<Worker<M::State>>>| {
            let tally = &mut lock(slot).tally;
            if let (Some(segments), false) = (segments, tally.away.is_empty()) {
                let flushed = segments.flush(&mut tally.away, depth, block_of);
                if let Err(e) = flushed {
                    tally.fault.get_or_insert(e);
                }
            }
        };
        if threads <= 1 {
            self.workers.iter().for_each(flush);
        } else {
            self.workers.par_iter().for_each(flush);
        }
        match self.workers.iter().find_map(|w| lock(w).tally.fault.take()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Holds `key`, a successor whose word is not resident, in `tally` for
    /// its owner: another process, or (this process's) the disk, the
    /// buffer then written as candidate files (of the level after `depth`)
    /// when full. Out of the lookup's way: most successors are resident.
    #[cold]
    #[inline(never)]
    fn away(&self, tally: &mut Tally, key: u64, depth: u32) {
        let b = block_of(key);
        if !self.owned.contains(&b) {
            let owner = owner_of(b, self.block_count, self.share.processes);
            tally.outbound[owner].push(key);
            return;
        }
        tally.away.push(key);
        if tally.away.len() >= self.away_keys
            && let Some(segments) = &self.segments
            && let Err(e) = segments.flush(&mut tally.away, depth, block_of)
        {
            tally.away.clear();
            tally.fault.get_or_insert(e);
        }
    }

    /// Clears the workers' tallies for a new level.
    fn new_tallies(&self) {
        for slot in &self.workers {
            let mut w = lock(slot);
            w.tally.found = 0;
            w.tally.remembered.clear();
        }
    }

    /// The states the workers' tallies settled.
    fn found(&self) -> u64 {
        self.workers.iter().map(|w| lock(w).tally.found).sum()
    }

    /// Gives the slot of every key of `files` (all resident) the label
    /// `label` where it is still `00`; when `count`, tallies and marks
    /// those it gave it to as states of the level being settled.
    fn apply(&self, files: &[RunFile], label: u64, count: bool) -> Result<(), SpillError> {
        self.each_block(files, |file, keys| {
            let tally = &mut lock(my_slot(&self.workers)).tally;
            self.settle_keys(keys, label, count, tally)
                .map_err(|key| SpillError::Damaged {
                    path: file.path().to_path_buf(),
                    what: format!("key {key} is outside its segment"),
                })
        })
    }

    /// As [`Dense::apply`], for keys in memory (another process's
    /// successors in this one's keys, all resident).
    fn apply_keys(&self, keys: &[u64], label: u64, from: usize) -> Result<(), Fault> {
        let one = |chunk: &[u64]| {
            let tally = &mut lock(my_slot(&self.workers)).tally;
            self.settle_keys(chunk, label, true, tally)
        };
        let settled = if self.workers.len() <= 1 {
            one(keys)
        } else {
            keys.par_chunks(1 << 16).try_for_each(one)
        };
        settled.map_err(|key| foreign(key, from))
    }

    /// Gives each of `keys` the label `label` where its slot is `00`,
    /// tallying (when `count`) those it gave it to in `tally`; a key that
    /// is not resident is returned.
    fn settle_keys(
        &self,
        keys: &[u64],
        label: u64,
        count: bool,
        tally: &mut Tally,
    ) -> Result<(), u64> {
        let words = self.words();
        let base = self.window.start;
        for &key in keys {
            let (w, shift) = slot(key);
            let Some(word) = words.get(w.wrapping_sub(base)) else {
                return Err(key);
            };
            if (word.load(Ordering::Relaxed) >> shift) & 3 != 0 {
                continue;
            }
            // As in `expand`: the fetch_or that finds the code's low bit
            // clear is the one that gave it, whoever else reaches the key
            // at once.
            let bit = self.code(label) << shift;
            if word.fetch_or(bit, Ordering::Relaxed) & bit == 0 && count {
                tally.settled(w, key);
            }
        }
        Ok(())
    }

    /// Sends every worker's successors in other processes' keys to their
    /// owners (each process's keys once), and settles what the others sent
    /// this one: in memory at once, or (on disk) as candidate files for
    /// the backward pass. Every process calls it once a level, even when
    /// a signal cut its level short.
    fn send_away(&mut self, depth: u32, exchange: &Exchange<'_>) -> Result<(), Fault> {
        let mut outgoing: Vec<Vec<u64>> = vec![Vec::new(); self.share.processes];
        for w in &self.workers {
            for (to, keys) in outgoing.iter_mut().zip(&mut lock(w).tally.outbound) {
                to.append(keys);
            }
        }
        for keys in &mut outgoing {
            keys.par_sort_unstable();
            keys.dedup();
        }
        let received = exchange.once(outgoing)?;
        let next = self.next_label();
        match &mut self.segments {
            Some(segments) => {
                for (from, mut keys) in received.into_iter().enumerate() {
                    if let Some(&key) = keys.iter().find(|&&k| !self.owned.contains(&block_of(k))) {
                        return Err(foreign(key, from));
                    }
                    segments.flush(&mut keys, depth, block_of)?;
                }
                for (s, file) in segments.take_made() {
                    segments.behind[s].push(file);
                }
            }
            None => {
                for (from, keys) in received.iter().enumerate() {
                    self.apply_keys(keys, next, from)?;
                }
            }
        }
        Ok(())
    }

    /// Makes segment `i` resident as the newest level has it: read from
    /// the file, with the keys the last backward pass counted applied.
    fn bring(&mut self, i: usize) -> Result<(), SpillError> {
        let segments = self.segments.as_mut().expect("on disk");
        if segments.resident == Some(i) {
            return Ok(());
        }
        segments.resident = None;
        self.load_raw(i)?;
        let segments = self.segments.as_ref().expect("on disk");
        self.apply(&segments.settled[i], self.label, false)
    }

    /// Reads segment `i` into the resident bits, as the file has it.
    fn load_raw(&mut self, i: usize) -> Result<(), SpillError> {
        let segments = self.segments.as_mut().expect("on disk");
        let bytes = segments.bytes(i);
        segments.load(i, self.bits.bytes_mut())?;
        self.window = bytes.start / 8..bytes.end / 8;
        Ok(())
    }

    /// The newest level's blocks (with their marked stretches) in segment
    /// `i`.
    fn blocks_in(&self, i: usize) -> &[(u32, u64)] {
        let range = self.segments.as_ref().expect("on disk").blocks(i);
        let from = self
            .blocks
            .partition_point(|&(b, _)| (b as usize) < range.start);
        let to = self
            .blocks
            .partition_point(|&(b, _)| (b as usize) < range.end);
        &self.blocks[from..to]
    }

    /// The forward pass of a level with the array on disk: expands every
    /// segment in key order (see [`dense_disk`](crate::engine::stores::dense::segments)). Stops
    /// between segments when the stop flag is raised.
    fn forward(&mut self, depth: u32, threads: usize) -> Result<(), SpillError> {
        let next = self.next_label();
        let stop = self.stop;
        let cut = || stop.is_some_and(|s| s.load(Ordering::Relaxed));
        let n = self.segments.as_ref().expect("on disk").count();
        for i in 0..n {
            let segments = self.segments.as_ref().expect("on disk");
            if self.blocks_in(i).is_empty()
                && segments.ahead[i].is_empty()
                && segments.settled[i].is_empty()
            {
                continue;
            }
            if cut() {
                return Ok(());
            }
            self.bring(i)?;
            let segments = self.segments.as_ref().expect("on disk");
            self.apply(&segments.ahead[i], next, true)?;
            self.expand(self.blocks_in(i), threads, true, depth)?;
            // Changed: the expanded level's blocks and the settled ones'.
            let range = self.segments.as_ref().expect("on disk").blocks(i);
            let mut dirty: Vec<usize> =
                self.blocks_in(i).iter().map(|&(b, _)| b as usize).collect();
            for w in &self.workers {
                let marks = &lock(w).tally.marks;
                dirty.extend(range.clone().filter(|&b| marks[b] != 0));
            }
            dirty.sort_unstable();
            dirty.dedup();
            let segments = self.segments.as_mut().expect("on disk");
            let bytes = segments.bytes(i).len();
            segments.store(i, &self.bits.bytes()[..bytes], &dirty)?;
            for (s, file) in segments.take_made() {
                if s > i {
                    segments.ahead[s].push(file);
                } else {
                    segments.behind[s].push(file);
                }
            }
            let used = std::mem::take(&mut segments.ahead[i]);
            segments.remove(used);
            let used = std::mem::take(&mut segments.settled[i]);
            segments.remove(used);
        }
        Ok(())
    }

    /// The backward pass of a level with the array on disk: counts what
    /// later segments (and other processes) sent earlier ones, writing
    /// nothing. Stops between segments when the stop flag is raised.
    fn backward(&mut self) -> Result<(), SpillError> {
        let next = self.next_label();
        let stop = self.stop;
        let cut = || stop.is_some_and(|s| s.load(Ordering::Relaxed));
        let n = self.segments.as_ref().expect("on disk").count();
        for i in (0..n).rev() {
            if self.segments.as_ref().expect("on disk").behind[i].is_empty() {
                continue;
            }
            if cut() {
                return Ok(());
            }
            self.segments.as_mut().expect("on disk").resident = None;
            self.load_raw(i)?;
            let segments = self.segments.as_ref().expect("on disk");
            self.apply(&segments.behind[i], next, true)?;
            // Resident as the next level will have it, once these files
            // are its settled ones.
            self.segments.as_mut().expect("on disk").resident = Some(i);
        }
        Ok(())
    }
}

/// Successors whose words are on their way from memory: each is looked up
/// [`LAG`] successors after its prefetch, so that the misses of a whole
/// ring overlap and none is waited for alone.
struct Ring {
    keys: [u64; LAG],
    /// The oldest key's index.
    head: usize,
    len: usize,
}

impl Ring {
    /// Adds `key`; the oldest key when the ring was full.
    #[inline(always)]
    fn push(&mut self, key: u64) -> Option<u64> {
        if self.len < LAG {
            self.keys[(self.head + self.len) % LAG] = key;
            self.len += 1;
            return None;
        }
        let due = std::mem::replace(&mut self.keys[self.head], key);
        self.head = (self.head + 1) % LAG;
        Some(due)
    }

    /// Takes the oldest key.
    fn pop(&mut self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        let key = self.keys[self.head];
        self.head = (self.head + 1) % LAG;
        self.len -= 1;
        Some(key)
    }
}

/// What a worker found in a level.
struct Tally {
    /// States this worker settled.
    found: u64,
    /// Those states' keys, while few.
    remembered: Vec<u64>,
    /// Per block, one bit for each stretch where this worker settled a
    /// state.
    marks: Vec<u64>,
    /// Successors outside the resident segment (the array on disk).
    away: Vec<u64>,
    /// Successors in other processes' keys, by process.
    outbound: Vec<Vec<u64>>,
    /// Why writing them failed.
    fault: Option<SpillError>,
}

impl Tally {
    /// Counts `key` (in word `w`) as a state of the level being settled,
    /// marking its stretch and remembering it while the level is thin.
    #[inline(always)]
    fn settled(&mut self, w: usize, key: u64) {
        self.found += 1;
        // The worker's own marks: no cache line passes between workers
        // for them.
        self.marks[w / BLOCK_WORDS] |= stretch_bit(w);
        if self.remembered.len() <= REMEMBERED {
            self.remembered.push(key);
        }
    }

    /// Counts the keys of word `w` whose slots' low bits `slots` holds, as
    /// [`Tally::settled`] does one.
    #[inline(always)]
    fn settled_in(&mut self, w: usize, slots: u64) {
        if slots == 0 {
            return;
        }
        self.found += u64::from(slots.count_ones());
        self.marks[w / BLOCK_WORDS] |= stretch_bit(w);
        let mut left = slots;
        while left != 0 && self.remembered.len() <= REMEMBERED {
            let key = w as u64 * KEYS_PER_WORD + u64::from(left.trailing_zeros() / 2);
            self.remembered.push(key);
            left &= left - 1;
        }
    }
}

/// `key`'s successors into `successors` (`state` the worker's scratch):
/// the far ones only when `far_only` (the moves to neighbouring keys are
/// then done a word at a time).
#[inline(always)]
fn successors_of<M: Model<Key = u64>>(
    model: &M,
    far_only: bool,
    key: u64,
    state: &mut M::State,
    successors: &mut Vec<u64>,
) {
    model.decode(key, state);
    successors.clear();
    if far_only {
        model.far_successors(state, successors);
    } else {
        model.successors(state, successors);
    }
}

/// The codes a level's expansion writes into a successor's slot.
struct Codes {
    /// A successor's code: the one bit of the next label, or `01` by
    /// colour.
    plain: u64,
    /// A far successor's: as `plain`, but `11` by colour where a far move
    /// is a key's only way back (it marks the key).
    far: u64,
    /// The bits of a far successor's slot that end its lookup: either (the
    /// slot is not `00`); with marks, the high one only (`10` expanded,
    /// `11` marked), since a `01`, already in the next level, still gets
    /// its mark.
    seen: u64,
}

impl Codes {
    fn new(by_colour: bool, one_far: bool, next: u64, depth_codes: bool) -> Codes {
        let (plain, far) = match (by_colour, one_far) {
            // The next depth's code, whichever bits it has: a slot that was
            // `00` can only have become that code, so its bits tell who was
            // first as well as one bit would.
            _ if depth_codes => (next, next),
            (false, _) => (1 << (next - 1), 1 << (next - 1)),
            (true, false) => (1, 1),
            (true, true) => (1, 3),
        };
        let seen = if one_far { 2 } else { 3 };
        Codes { plain, far, seen }
    }
}

/// What marks the keys of the newest level in `word` (their slots' low
/// bits in `here`) expanded, as an xor: their label to `11`; by colour,
/// `01` and `11` to `10`; with depth codes nothing (a key keeps its depth
/// for good).
#[inline(always)]
fn expanded_xor(word: u64, here: u64, by_colour: bool, label: u64, depth_codes: bool) -> u64 {
    match by_colour {
        _ if depth_codes => 0,
        true => here | (here & !((word >> 1) & here)) << 1,
        false => here * (label ^ DONE),
    }
}

/// One low bit per slot of `word` that is not `00`.
#[inline(always)]
fn occupied(word: u64) -> u64 {
    (word | word >> 1) & LOW
}

/// A model's moves to a neighbouring key ([`AdjacentKeys`]) as masks of a
/// word's slots: a word's first key is `KEYS_PER_WORD` past the last
/// word's, so its place in the pattern (its phase) moves by that much.
struct Adjacent {
    /// Per phase, the low bit of each slot whose key has the key above as
    /// a successor.
    up: Vec<u64>,
    /// Likewise for the key below.
    down: Vec<u64>,
    period: usize,
    /// How far a word's phase is past the last word's.
    step: usize,
    /// The model's colouring ([`AdjacentKeys::colours`]): the pattern, and
    /// per phase the low bit of each slot whose key is of colour 1.
    colours: Option<(u64, Vec<u64>)>,
    /// [`AdjacentKeys::one_far`].
    one_far: bool,
    /// [`AdjacentKeys::up`] and [`AdjacentKeys::down`], by a key's place
    /// in the pattern.
    up_pattern: u64,
    down_pattern: u64,
}

impl Adjacent {
    fn new(keys: AdjacentKeys) -> Adjacent {
        let period = keys.period.clamp(1, 64) as usize;
        let mask = |pattern: u64, phase: usize| {
            (0..KEYS_PER_WORD as usize)
                .filter(|i| pattern >> ((phase + i) % period) & 1 == 1)
                .fold(0u64, |m, i| m | 1 << (2 * i))
        };
        Adjacent {
            up: (0..period).map(|p| mask(keys.up, p)).collect(),
            down: (0..period).map(|p| mask(keys.down, p)).collect(),
            period,
            step: KEYS_PER_WORD as usize % period,
            colours: keys
                .colours
                .map(|c| (c, (0..period).map(|p| mask(c, p)).collect())),
            one_far: keys.one_far,
            up_pattern: keys.up,
            down_pattern: keys.down,
        }
    }

    /// The colour of `key`, when the model colours its keys.
    fn colour_of(&self, key: u64) -> Option<u64> {
        let (pattern, _) = self.colours.as_ref()?;
        Some(pattern >> (key % self.period as u64) & 1)
    }

    /// The colour all of `keys` share, if they share one and the model
    /// colours its keys.
    fn colour_of_all(&self, keys: &[u64]) -> Option<u64> {
        let c = self.colour_of(*keys.first()?)?;
        keys.iter()
            .all(|&k| self.colour_of(k) == Some(c))
            .then_some(c)
    }

    /// The low bit of each slot of a word of `phase` whose key is of
    /// colour `colour`.
    #[inline(always)]
    fn of_colour(&self, colour: u64, phase: usize) -> u64 {
        let ones = self.colours.as_ref().expect("a colouring").1[phase];
        if colour == 1 { ones } else { !ones & LOW }
    }

    /// The phase of word `w`.
    fn phase_of(&self, w: usize) -> usize {
        (w as u64 * KEYS_PER_WORD % self.period as u64) as usize
    }

    /// The phase of the word after one of `phase`.
    #[inline(always)]
    fn after(&self, phase: usize) -> usize {
        let p = phase + self.step;
        if p >= self.period { p - self.period } else { p }
    }
}

/// The block holding `key`'s slot.
fn block_of(key: u64) -> usize {
    slot(key).0 / BLOCK_WORDS
}

/// The blocks process `me` of `processes` owns of `blocks`: equal ranges
/// in process order.
fn owned_blocks(blocks: usize, processes: usize, me: usize) -> std::ops::Range<usize> {
    me * blocks / processes..(me + 1) * blocks / processes
}

/// The process of `processes` that owns block `b` of `blocks`: the
/// largest q with q * blocks / processes <= b, that is with
/// q * blocks < (b + 1) * processes.
fn owner_of(b: usize, blocks: usize, processes: usize) -> usize {
    (((b + 1) * processes - 1) / blocks.max(1)).min(processes - 1)
}

/// The blocks of `model`'s two-bit array.
fn block_count<M: Model<Key = u64>>(model: &M) -> usize {
    (model.key_space().div_ceil(KEYS_PER_WORD) as usize).div_ceil(BLOCK_WORDS)
}

/// A key that process `from` sent this one, which does not own it.
fn foreign(key: u64, from: usize) -> Fault {
    Fault::Peer(crate::engine::PeerError::Lost {
        process: from,
        what: format!("it sent key {key}, which is not this process's"),
    })
}

/// The bit of word `w`'s stretch in its block's mark.
#[inline(always)]
fn stretch_bit(w: usize) -> u64 {
    1 << ((w % BLOCK_WORDS) / STRETCH_WORDS)
}

/// The ranges of words of block `b`'s marked `stretches` (of `words` in
/// all).
fn marked_words(
    b: u32,
    stretches: u64,
    words: usize,
) -> impl Iterator<Item = std::ops::Range<usize>> {
    let start = b as usize * BLOCK_WORDS;
    BitIndices(stretches).map(move |s| {
        let from = start + s * STRETCH_WORDS;
        from..(from + STRETCH_WORDS).min(words)
    })
}

/// The indices of a word's set bits, lowest first.
struct BitIndices(u64);

impl Iterator for BitIndices {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(i)
    }
}

/// The word and bit offset of `key`'s slot.
#[inline(always)]
fn slot(key: u64) -> (usize, u32) {
    (
        (key / KEYS_PER_WORD) as usize,
        (key % KEYS_PER_WORD) as u32 * 2,
    )
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

    fn commit(&mut self, levels: &[u64], seconds: f64) -> Result<(), Fault> {
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
        }
    }
}
