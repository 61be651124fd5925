//! Settling a level by pulling: each key not yet seen asks whether one of
//! its successors is in the newest level, instead of the newest level
//! pushing its successors out (direction-optimising BFS, Beamer's).
//!
//! Late in a search the newest level is wide and few keys are left
//! unseen: pushing looks up every successor of every key of the level
//! (the full 2x2x2 cube's level 9: 45 million keys, 18 successors each),
//! almost all of them seen already; pulling decodes only the unseen keys
//! and stops at the first successor in the level. It needs a model whose
//! every key is a state and whose moves are reversible
//! ([`Model::keys_are_states`]): then a key's successors are the states
//! it is a successor of, and an unseen key (at a depth beyond the newest
//! level's) is in the next level exactly when one of its successors is in
//! the newest. It runs in memory on one process, which holds every key's
//! two bits.
//!
//! Each word is written by the one worker that pulls it (a plain store of
//! the word with its found slots' code: nobody else writes it in the
//! pass), while other workers read it to test their keys' successors.
//! They test for the newest level's code, which a found slot never takes,
//! so a write races with no read that matters. The newest level's keys
//! are marked expanded afterwards (with count codes), in a pass of its
//! own: marked during the pull, a key of the newest level could be
//! missed by a neighbour's test.
//!
//! Orderings: `Relaxed` throughout. Within the pass no value read decides
//! anything another worker writes in it; rayon's join at the end of the
//! pass orders every write before the marking pass and the next level.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::{BLOCK_WORDS, Dense, KEYS_PER_WORD, LOW, Worker, holding, occupied, slot};
use crate::engine::Model;
use crate::engine::levels::workers::{lock, min_len, my_slot};

/// A pull is taken when the keys left unseen are at most this many times
/// the newest level's width (each costs about as much as a key of the
/// level pushed, and mostly stops at its first successor).
pub(super) const PULL_RATIO: u64 = 1;

/// Keys of the array a pull scans for the work of one key it decodes.
const SCAN_KEYS: u64 = 1024;

impl<M: Model<Key = u64>> Dense<'_, M> {
    /// Whether the level after the newest (`width` states) is settled by a
    /// pull: the model allows it, the whole array is in this process's
    /// memory, and few enough keys are left unseen. A pull also reads every
    /// word of the array (a key's worth of work for about 32 words: a
    /// nanosecond a word against tens a key), so a thin level is pushed
    /// whatever is left unseen: the 2x7 puzzle's last ten levels, of a few
    /// thousand states each, took 2.5 s each pulled over its 10 GiB.
    pub(super) fn pulls(&self, width: u64) -> bool {
        let key_space = self.model.key_space();
        let unseen = key_space.saturating_sub(self.seen);
        let ratio = self.pull_ratio;
        ratio > 0
            && self.model.keys_are_states()
            && self.segments.is_none()
            && self.share.alone()
            && (unseen / ratio).saturating_add(key_space / SCAN_KEYS) < width
    }

    /// Pulls once the unseen keys are at most `ratio` times the newest
    /// level's width (0: never), for tests and benchmarks.
    pub(crate) fn pull_ratio(&mut self, ratio: u64) {
        self.pull_ratio = ratio;
    }

    /// Settles the level after the newest by pulling (see the module
    /// notes), on `threads` workers; the found states go to the workers'
    /// tallies. Then marks the newest level's keys expanded.
    pub(super) fn pull(&self, threads: usize) {
        let words = self.words();
        let key_space = self.model.key_space();
        let total_words = self.total_words;
        let blocks = total_words.div_ceil(BLOCK_WORDS);
        let run = |chunk: std::ops::Range<usize>| {
            let mut worker = lock(my_slot(&self.workers));
            for b in chunk {
                if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                    break;
                }
                let from = b * BLOCK_WORDS;
                self.pull_words(from..(from + BLOCK_WORDS).min(total_words), &mut worker);
            }
        };
        const CHUNK: usize = 4;
        (0..blocks.div_ceil(CHUNK))
            .into_par_iter()
            .with_min_len(min_len(threads))
            .for_each(|c| run(c * CHUNK..((c + 1) * CHUNK).min(blocks)));
        debug_assert!(key_space.div_ceil(KEYS_PER_WORD) as usize == words.len());
        self.mark_expanded(threads);
    }

    /// Pulls the words `range` (resident, this worker's alone in the pass).
    fn pull_words(&self, range: std::ops::Range<usize>, worker: &mut Worker<M::State>) {
        let words = self.words();
        let model = self.model;
        let adjacent = self.adjacent.as_ref();
        let key_space = model.key_space();
        let last_word = (key_space - 1) / KEYS_PER_WORD;
        let label = self.label;
        let colour = self.colour;
        // The code a found key gets, as a multiplier of a slot's low bit.
        let code = match colour {
            Some(_) => 1,
            None if self.depth_codes => self.next_label(),
            None => 1 << (self.next_label() - 1),
        };
        // Whether a slot's two bits say: in the newest level.
        let in_level = |bits: u64| match colour {
            // `01` or `11`: in a level, and a successor of a key of the
            // next colour is of the newest level's.
            Some(_) => bits & 1 == 1,
            None => bits == label,
        };
        let holds = |key: u64| {
            let (w, shift) = slot(key);
            in_level((words[w].load(Ordering::Relaxed) >> shift) & 3)
        };
        let Worker {
            state,
            successors,
            tally,
            ..
        } = worker;
        let mut phase = adjacent.map_or(0, |a| a.phase_of(range.start));
        for w in range {
            let this_phase = phase;
            if let Some(a) = adjacent {
                phase = a.after(phase);
            }
            let word = &words[w];
            let was = word.load(Ordering::Relaxed);
            let mut unseen = !occupied(was) & LOW;
            if let (Some(c), Some(a)) = (colour, adjacent) {
                // The next level's colour.
                unseen &= a.of_colour(c ^ 1, this_phase);
            }
            if w as u64 == last_word {
                let past = key_space - last_word * KEYS_PER_WORD;
                if past < KEYS_PER_WORD {
                    unseen &= LOW >> (2 * (KEYS_PER_WORD - past));
                }
            }
            if unseen == 0 {
                continue;
            }
            let first = w as u64 * KEYS_PER_WORD;
            let mut found = 0u64;
            if let Some(a) = adjacent {
                // Moves to a neighbouring key, a word at a time: a key of
                // the level with its key above (below) as a successor
                // reaches that key, and the moves being reversible, that
                // key has it as a successor too.
                let level = self.newest_in(was, this_phase);
                let (up, down) = (level & a.up[this_phase], level & a.down[this_phase]);
                found = ((up << 2) | (down >> 2)) & unseen;
            }
            let mut left = unseen & !found;
            while left != 0 {
                let i = left.trailing_zeros() / 2;
                left &= left - 1;
                let key = first + u64::from(i);
                let hit = match adjacent {
                    Some(a) => {
                        // The neighbouring keys beyond the word's ends.
                        let r = (key % a.period as u64) as usize;
                        let up = a.up_pattern >> r & 1 == 1 && key + 1 < key_space;
                        let down = a.down_pattern >> r & 1 == 1 && key > 0;
                        (i == KEYS_PER_WORD as u32 - 1 && up && holds(key + 1))
                            || (i == 0 && down && holds(key - 1))
                            || {
                                model.decode(key, state);
                                model.any_successor(state, true, successors, &mut |s| holds(s))
                            }
                    }
                    None => {
                        model.decode(key, state);
                        model.any_successor(state, false, successors, &mut |s| holds(s))
                    }
                };
                if hit {
                    found |= 1 << (2 * i);
                }
            }
            if found != 0 {
                // Nobody else writes this word in the pass (see the notes).
                word.store(was | (found * code), Ordering::Relaxed);
                tally.settled_in(w, found);
            }
        }
    }

    /// Marks the newest level's keys expanded once a pull settled the next
    /// level (count codes; depth codes stay as they are): a pass over the
    /// stretches that hold the level, each word written by one worker.
    fn mark_expanded(&self, threads: usize) {
        if self.depth_codes {
            return;
        }
        let words = self.words();
        let colour = self.colour.zip(self.adjacent.as_ref());
        let label = self.label;
        let mark = |word: &AtomicU64, phase: usize| {
            let was = word.load(Ordering::Relaxed);
            let here = match colour {
                Some((c, a)) => was & a.of_colour(c, phase),
                None => holding(was, label),
            };
            if here != 0 {
                let done = super::expanded_xor(was, here, colour.is_some(), label, false);
                word.store(was ^ done, Ordering::Relaxed);
            }
        };
        let block = |&(b, stretches): &(u32, u64)| {
            for range in super::marked_words(b, stretches, self.total_words) {
                for (w, phase) in self.phased(range) {
                    mark(&words[w], phase);
                }
            }
        };
        self.blocks
            .par_iter()
            .with_min_len(min_len(threads))
            .for_each(block);
    }
}
