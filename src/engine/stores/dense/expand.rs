//! A level expanded: its words scanned, its keys decoded, their successors
//! settled with one atomic `or` each (looked up a ring after their
//! prefetch), or kept as away for another segment or process.

use super::*;

/// Successors whose words are on their way from memory: each is looked up
/// [`LAG`] successors after its prefetch, so that the misses of a whole
/// ring overlap and none is waited for alone.
pub(super) struct Ring {
    pub(super) keys: [u64; LAG],
    /// The oldest key's index.
    pub(super) head: usize,
    pub(super) len: usize,
}

impl Ring {
    /// Adds `key`; the oldest key when the ring was full.
    #[inline(always)]
    pub(super) fn push(&mut self, key: u64) -> Option<u64> {
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
    pub(super) fn pop(&mut self) -> Option<u64> {
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
pub(super) struct Tally {
    /// States this worker settled.
    pub(super) found: u64,
    /// Those states' keys, while few.
    pub(super) remembered: Vec<u64>,
    /// Per block, one bit for each stretch where this worker settled a
    /// state.
    pub(super) marks: Vec<u64>,
    /// Successors outside the resident segment (the array on disk).
    pub(super) away: Vec<u64>,
    /// Successors in other processes' keys, by process.
    pub(super) outbound: Vec<Vec<u64>>,
    /// Why writing them failed.
    pub(super) fault: Option<SpillError>,
}

impl Tally {
    /// Counts `key` (in word `w`) as a state of the level being settled,
    /// marking its stretch and remembering it while the level is thin.
    #[inline(always)]
    pub(super) fn settled(&mut self, w: usize, key: u64) {
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
    pub(super) fn settled_in(&mut self, w: usize, slots: u64) {
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

impl<M: Model<Key = u64>> Dense<'_, M> {
    /// Calls `f` with every key of the newest level in `blocks` (all
    /// resident), block by block on `threads` workers, and gathers what it
    /// returns.
    pub(super) fn scan<T: Send>(
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
        blocks
            .par_iter()
            .with_min_len(min_len(threads))
            .fold(Vec::new, |mut out, b| {
                block(b, &mut out);
                out
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            })
    }

    /// Expands the newest level's `blocks` (all resident): settles the
    /// successors not seen before with the next label (when `settle`;
    /// otherwise only looks for one) and marks the level's keys expanded
    /// (when `settle`). A successor outside the resident words goes to its
    /// worker's `away` buffer, written as candidate files of the level
    /// after `depth` when full. Adds the states settled (or, not settling,
    /// whether any successor is new) to the workers' tallies.
    pub(super) fn expand(
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
        // A `move` closure: what it reads is copied into it, one load away
        // rather than two in the hot loop.
        let look_up = move |tally: &mut Tally, key: u64, far_move: bool| {
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
            if first_to_set(word, code, shift, plain) {
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
    pub(super) fn flush_away(&self, threads: usize, depth: u32) -> Result<(), SpillError> {
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
        self.workers
            .par_iter()
            .with_min_len(min_len(threads))
            .for_each(flush);
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
    pub(super) fn away(&self, tally: &mut Tally, key: u64, depth: u32) {
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
    pub(super) fn new_tallies(&self) {
        for slot in &self.workers {
            let mut w = lock(slot);
            w.tally.found = 0;
            w.tally.remembered.clear();
        }
    }

    /// The states the workers' tallies settled.
    pub(super) fn found(&self) -> u64 {
        self.workers.iter().map(|w| lock(w).tally.found).sum()
    }
}
