//! An every-key census across processes (the ranks of an MPI job, or a
//! test's threads): the codes of the key space are split into one range
//! of keys a process, so that each holds two bits for its share of the
//! positions only, and a census too large for one machine's memory fits
//! in several.
//!
//! Every process runs the same passes over its own range and makes the
//! same collective calls in the same order:
//!
//! - **A level** expands this process's frontier in rounds of at most
//!   [`ROUND`] positions: a successor in its own range is marked at once;
//!   one in another's goes to it in the round's one `exchange`, and is
//!   marked there. The number of rounds is the largest
//!   any process needs, agreed before the first (one gather). Whether a
//!   level is kept as a list or found by a sweep of the codes is each
//!   process's own choice, as alone (see [`Walk::step`]). The level ends
//!   with one gather: every process's width, whether it was stopped, and
//!   its smallest `top` keys (the processes' ranges rise with their
//!   index, so the first `top` of them in process order are the level's).
//! - **The distances** run from the one goal position, as an every-key
//!   census past the union-find's numbers does alone ([`Walk::floodable`]):
//!   the union-find is not split across processes, so the components are
//!   found by the flood, each from the smallest unseen key of all (a
//!   gather of each process's smallest), however many there are.
//! - **A checkpoint** is each process's own (`DIR/process-I`): the codes of
//!   its range, saved at the levels that any process's checkpoint found
//!   due (a flag in the level's gather), every process's verdict gathered
//!   after each save. Each keeps its save before the last until its next
//!   (see [`Saves::level`]), and a resume goes on from the last save that
//!   every process has.
//!
//! The counts are the single process's: the components are the graph's,
//! and a position's distance is the level that first reaches it, whichever
//! process marks it.

use std::sync::{Mutex, MutexGuard};

use rayon::prelude::*;

use crate::engine::levels::agree;
use crate::engine::peers::{PeerError, Peers};

use super::saves::{CensusState, Loaded, Saves};
use super::{
    Census, Codes, EveryKey, EveryPosition, Front, LOW_BITS, PER_WORD, Pos, Smallest, Stray,
    TailLevel, UNSEEN, WORDS_PER_CHUNK, Walk, first_of, positions_in, push_level, storage_stop,
    tally,
};
use crate::engine::{SearchError, StopReason};

/// Frontier positions a process expands between two exchanges: what it
/// sends in one is at most this many times the model's moves, in keys.
#[cfg(not(test))]
const ROUND: usize = 1 << 15;
/// (The tests' levels are small: they take many rounds.)
#[cfg(test)]
const ROUND: usize = 1 << 8;

/// The keys of one process: `lo..hi`, whole words of codes (each
/// process's range is `per` keys but the last's).
#[derive(Clone, Copy, Debug)]
struct Range {
    lo: u64,
    hi: u64,
    per: u64,
}

impl Range {
    /// Process `me`'s range of `n` keys among `processes`.
    fn of(n: u64, me: usize, processes: usize) -> Range {
        let words = n.div_ceil(PER_WORD as u64);
        let per = words.div_ceil(processes as u64).max(1) * PER_WORD as u64;
        let lo = (me as u64 * per).min(n);
        Range {
            lo,
            hi: (lo + per).min(n),
            per,
        }
    }

    fn len(self) -> usize {
        (self.hi - self.lo) as usize
    }

    /// The process that owns `key`.
    #[inline]
    fn owner(self, key: u64) -> usize {
        (key / self.per) as usize
    }

    /// Whether `key` is this process's.
    #[inline]
    fn holds(self, key: u64) -> bool {
        (self.lo..self.hi).contains(&key)
    }
}

/// What a level told every process.
struct Level {
    /// Its positions, on every process.
    width: u64,
    /// Its smallest `top` keys.
    smallest: Smallest,
    /// Whether any process was asked to stop (see [`signal`]).
    stop: u64,
    /// Whether any process's checkpoint is due to save it.
    due: bool,
}

/// Whether `walk` was asked to stop: 0 not; 1 interrupted; 2 terminated
/// (the larger names a stop that any process had).
fn signal<M: EveryPosition>(walk: &Walk<'_, M>) -> u64 {
    match (walk.stopped(), walk.stop_reason()) {
        (false, _) => 0,
        (true, StopReason::Terminated) => 2,
        (true, _) => 1,
    }
}

/// The stop that [`signal`] `s` names.
fn stop_of(s: u64) -> StopReason {
    if s == 2 {
        StopReason::Terminated
    } else {
        StopReason::Interrupted
    }
}

/// One process's part of an every-key census across `peers`.
struct Spread<'w, 'a, M: EveryPosition> {
    walk: &'w Walk<'a, M>,
    peers: &'w dyn Peers,
    range: Range,
    codes: Codes,
    /// Each worker's successors for the other processes in a round (by
    /// rayon's thread index), by process; then all of them, by process;
    /// and what the others sent. Kept from round to round: the memory a
    /// round frees goes back to the kernel at once (see `main.rs`), and a
    /// fresh buffer every round cost a fifth of the census in page
    /// faults.
    parts: Vec<Mutex<Vec<Vec<u64>>>>,
    away: Mutex<Vec<Vec<u64>>>,
    incoming: Mutex<Vec<Vec<u64>>>,
}

impl<M: EveryPosition> Walk<'_, M> {
    /// The census across `peers`, of a model whose every key is a
    /// position (see the module's notes): afresh, or from a checkpoint's
    /// save that every process has (`loaded`, read back by `saves`).
    pub(super) fn across(
        &self,
        peers: &dyn Peers,
        top: usize,
        mut saves: Option<Saves>,
        loaded: Option<Loaded>,
    ) -> Result<Census, SearchError> {
        let n = self.model.key_space();
        self.spreadable(n)?;
        let mut census = self.empty();
        census.positions = n;
        census.all_listed = true;
        let range = Range::of(n, peers.me(), peers.processes());
        let len = range.len() as u64;
        // This process's codes (unless read back already) and lists, as
        // alone (see `every_key`). (Every process stops for the first
        // one's reason, if any has one.)
        let codes_bytes = if loaded.is_some() { 0 } else { len.div_ceil(4) };
        let short = self.room_for(codes_bytes + 3 * len.div_ceil(16));
        let (codes, front) = match loaded {
            Some(loaded) => {
                let (codes, front) = self.loaded(n, (peers.me(), range), loaded);
                (Some(codes), Some(front))
            }
            None => (None, None),
        };
        let front = agreed(peers, front.transpose(), "go on from its checkpoint")?;
        if let Some(why) = agree::reason(peers, short)? {
            census.stopped = Some(why);
            return self.end(census, saves);
        }
        let by_process = || vec![Vec::new(); peers.processes()];
        let spread = Spread {
            walk: self,
            peers,
            range,
            codes: codes.unwrap_or_else(|| Codes::new(range.len())),
            parts: (0..rayon::current_num_threads())
                .map(|_| Mutex::new(by_process()))
                .collect(),
            away: Mutex::new(by_process()),
            incoming: Mutex::new(Vec::new()),
        };
        if u32::try_from(range.len()).is_ok() {
            spread.census::<u32>(top, &mut census, front, &mut saves)?;
        } else {
            spread.census::<u64>(top, &mut census, front, &mut saves)?;
        }
        self.end(census, saves)
    }

    /// The codes and the distances' levels so far that this process's
    /// checkpoint saved (of its `range` of `n` keys), checked.
    fn loaded(
        &self,
        n: u64,
        (me, range): (usize, Range),
        loaded: Loaded,
    ) -> (Codes, Result<Front, SearchError>) {
        let tail_within = loaded.tail_within(n);
        let Loaded {
            state,
            levels,
            codes,
            ..
        } = loaded;
        let codes = Codes(codes);
        let broken = |what: &str| {
            Err(SearchError::Checkpoint(format!(
                "process {me}'s checkpoint: {what} (its checksums match: it was written so)"
            )))
        };
        let front = if state.positions != n || !state.every_key {
            broken("its positions are not its model's every key")
        } else if state.range != Some([range.lo, range.hi]) {
            broken("its range of keys is not this process's among as many")
        } else if levels.first() != Some(&1) {
            broken("its goal is not one position")
        } else if !tail_within {
            broken("its hardest starts lie outside its levels")
        } else {
            Ok(Front {
                levels,
                tail: state.tail,
                goal_components: 1,
                solvable: 0,
            })
        };
        (codes, front)
    }

    /// Refuses a census across processes that could not find its
    /// components: only the flood from one goal position does.
    fn spreadable(&self, n: u64) -> Result<(), SearchError> {
        let why = if !self.model.has_goal() {
            "the puzzle has no goal"
        } else if self.limits.max_depth.is_some() {
            "--max-depth stops the distances"
        } else {
            return Ok(());
        };
        Err(not_spreadable(n, why))
    }
}

impl<M: EveryPosition> Spread<'_, '_, M> {
    /// The distances (from `front`, where a checkpoint saved them, else
    /// from the goal), then the components; this process's lists hold
    /// its positions as `P` (its own index: its key less `lo`).
    fn census<P: Pos>(
        &self,
        top: usize,
        census: &mut Census,
        front: Option<Front>,
        saves: &mut Option<Saves>,
    ) -> Result<(), SearchError> {
        let n = census.positions;
        let (mut front, list) = match front {
            Some(front) => (front, None),
            None => {
                let front = self.first_level(top)?;
                if let Some(why) = self.first_save(saves, &front)? {
                    census.stopped = Some(why);
                    return Ok(());
                }
                (front, Some(self.own_frontier()))
            }
        };
        if let Some(why) = self.measure::<P>(&mut front, list, top, saves)? {
            census.stopped = Some(why);
            return Ok(());
        }
        let reached: u64 = front.levels.iter().sum();
        let (sizes, start) = match self.flood::<P>(reached)? {
            Ok(flooded) => flooded,
            Err(why) => {
                census.stopped = Some(why);
                return Ok(());
            }
        };
        census.components = Some(tally(sizes, n, start)?);
        front.solvable = reached;
        let index = EveryKey::<u64>::new(n as usize);
        let (distances, stopped) = Walk::<M>::ended(&index, front, None, top, |_| reached)?;
        census.goal = Some(distances);
        census.stopped = stopped;
        Ok(())
    }

    /// The goal's level: its one position, in the first frontier.
    fn first_level(&self, top: usize) -> Result<Front, SearchError> {
        let (goals, smallest) = self.goal_frontier(top)?;
        if goals != 1 {
            let why = format!("its goal has {goals} positions");
            return Err(not_spreadable(self.walk.model.key_space(), &why));
        }
        Ok(Front {
            levels: vec![1],
            tail: vec![TailLevel { depth: 0, smallest }],
            goal_components: 1,
            solvable: 0,
        })
    }

    /// Saves the goal's level (`front`) in this process's checkpoint, if
    /// it has one, with what it is a census of; why every process stops,
    /// if one could not.
    fn first_save(
        &self,
        saves: &mut Option<Saves>,
        front: &Front,
    ) -> Result<Option<StopReason>, SearchError> {
        let Some(s) = saves.as_mut() else {
            return Ok(None);
        };
        let state = CensusState {
            positions: self.walk.model.key_space(),
            every_key: true,
            range: Some([self.range.lo, self.range.hi]),
            ..CensusState::default()
        };
        let saved = s.arrays::<u32>(state, None);
        self.saved(saves, saved, front)
    }

    /// Saves the end of the distances' last level (`front`) in this
    /// process's checkpoint; why every process stops, if one could not.
    /// Every process calls it at the same levels.
    fn save(
        &self,
        saves: &mut Option<Saves>,
        front: &Front,
    ) -> Result<Option<StopReason>, SearchError> {
        self.saved(saves, Ok(()), front)
    }

    /// `before` (what preparing the save did), then the level's save,
    /// every process's verdict gathered: the first failing process's
    /// storage fault stops them all (its own message on it, its name on
    /// the others).
    fn saved(
        &self,
        saves: &mut Option<Saves>,
        before: Result<(), crate::engine::files::SpillError>,
        front: &Front,
    ) -> Result<Option<StopReason>, SearchError> {
        let Some(s) = saves.as_mut() else {
            return Ok(None);
        };
        let mine = before.and_then(|()| s.level(&self.codes.0, &front.levels, front.tail.clone()));
        let all = self.peers.all_gather(&[u64::from(mine.is_err())])?;
        if let Err(e) = mine {
            return Ok(Some(storage_stop(&e, s)));
        }
        Ok(all.iter().position(|v| v.first() != Some(&0)).map(|q| {
            StopReason::Storage(format!(
                "process {q} could not save its checkpoint (its message says why); this process's is whole"
            ))
        }))
    }

    /// Puts this process's goal positions in the first frontier: the
    /// number of goal positions on every process, and the smallest `top`.
    fn goal_frontier(&self, top: usize) -> Result<(u64, Smallest), SearchError> {
        let codes = &self.codes;
        self.walk.goal_frontier(self.range.lo, self.range.hi, codes);
        let (count, _, smallest) = Walk::<M>::goals(None, codes, top);
        let level = self.gathered(count, 0, false, &self.keys(smallest), top)?;
        Ok((level.width, level.smallest))
    }

    /// The levels of the distances from `front` on (its last level this
    /// process's `list`, or its codes' where `None`), saved where the
    /// checkpoint is due; why they stopped short, if they did.
    fn measure<P: Pos>(
        &self,
        front: &mut Front,
        mut list: Option<Vec<P>>,
        top: usize,
        saves: &mut Option<Saves>,
    ) -> Result<Option<StopReason>, SearchError> {
        let walk = self.walk;
        let mut stop = self.gathered(0, signal(walk), false, &[], 0)?.stop;
        loop {
            if stop > 0 {
                // A stopped census saves its last level, to go on from.
                let depth = front.levels.len() as u32 - 1;
                if saves.as_ref().is_some_and(|s| s.saved() != Some(depth))
                    && let Some(why) = self.save(saves, front)?
                {
                    return Ok(Some(why));
                }
                return Ok(Some(stop_of(stop)));
            }
            let depth = front.levels.len() as u32;
            let due = saves.as_ref().is_some_and(Saves::due);
            let level = self.step(&mut list, top, due)?;
            if level.width == 0 {
                break;
            }
            let Front { levels, tail, .. } = front;
            push_level(levels, tail, level.width, level.smallest, top);
            let done = levels.iter().sum();
            walk.tell(
                "distances from the goal",
                depth,
                level.width,
                done,
                self.walk.model.key_space(),
            );
            if level.due
                && let Some(why) = self.save(saves, front)?
            {
                return Ok(Some(why));
            }
            stop = level.stop;
        }
        // One that leaves its checkpoint when complete saves its end.
        let depth = front.levels.len() as u32 - 1;
        if saves
            .as_ref()
            .is_some_and(|s| s.leaves() && s.saved() != Some(depth))
        {
            self.save(saves, front)?;
        }
        Ok(None)
    }

    /// This process's frontier, as a list (the first level's).
    fn own_frontier<P: Pos>(&self) -> Vec<P> {
        (0..self.codes.0.len())
            .flat_map(|w| positions_in(w, self.codes.frontier_in(w)))
            .map(P::new)
            .collect()
    }

    /// Every other component than the goal's (of `reached` positions),
    /// each by a breadth-first search from the smallest unseen key of
    /// all: their sizes, and the start's; or why it stopped.
    fn flood<P: Pos>(
        &self,
        reached: u64,
    ) -> Result<Result<(Vec<u64>, u64), StopReason>, SearchError> {
        let (walk, codes, range) = (self.walk, &self.codes, self.range);
        let n = walk.model.key_space();
        let start = walk.model.start();
        let owns_start = range.holds(start);
        let seen = |key: u64| codes.code((key - range.lo) as usize) != UNSEEN;
        let mut start_size = (owns_start && seen(start)).then_some(reached);
        let mut sizes = vec![reached];
        let mut done = reached;
        let mut w = 0;
        loop {
            // This process's smallest unseen key: every key below the
            // cursor is seen.
            let mut mine = u64::MAX;
            while w < codes.0.len() {
                let v = codes.0[w].load(std::sync::atomic::Ordering::Relaxed);
                if let Some(i) = positions_in(w, !(v | (v >> 1)) & LOW_BITS)
                    .next()
                    .filter(|&i| i < range.len())
                {
                    mine = range.lo + i as u64;
                    break;
                }
                w += 1;
            }
            let all = self.peers.all_gather(&[mine, signal(walk)])?;
            let stop = all.iter().map(|a| a.get(1).copied().unwrap_or(1)).max();
            if let Some(s @ 1..) = stop {
                return Ok(Err(stop_of(s)));
            }
            let first = all.iter().map(|a| a[0]).min().unwrap_or(u64::MAX);
            if first == u64::MAX {
                break;
            }
            let mut list: Option<Vec<P>> = Some(Vec::new());
            if range.holds(first) {
                let i = (first - range.lo) as usize;
                codes.set_frontier(i);
                list = Some(vec![P::new(i)]);
            }
            let mut size = 1;
            loop {
                let level = self.step(&mut list, 0, false)?;
                if level.width == 0 {
                    break;
                }
                size += level.width;
                walk.tell("other components", 0, 0, done + size, n);
                if level.stop > 0 {
                    return Ok(Err(stop_of(level.stop)));
                }
            }
            if owns_start && start_size.is_none() && seen(start) {
                start_size = Some(size);
            }
            sizes.push(size);
            done += size;
            walk.tell("other components", 0, 0, done, n);
        }
        let mine: Vec<u64> = start_size.into_iter().collect();
        let start = self.peers.all_gather(&mine)?.concat();
        let &[start] = start.as_slice() else {
            return Err(SearchError::Unsearchable(format!(
                "across processes, the start lies in {} components (a bug: please report it)",
                start.len()
            )));
        };
        Ok(Ok((sizes, start)))
    }

    /// Local indices as keys.
    fn keys(&self, smallest: Smallest) -> Smallest {
        smallest.into_iter().map(|i| i + self.range.lo).collect()
    }

    /// Every process's part of a level (this one's `width`, its
    /// [`signal`] `stop`, whether its checkpoint is `due`, its `smallest`
    /// keys), gathered.
    fn gathered(
        &self,
        width: u64,
        stop: u64,
        due: bool,
        smallest: &[u64],
        top: usize,
    ) -> Result<Level, SearchError> {
        let mut words = vec![width, stop, u64::from(due)];
        words.extend_from_slice(smallest);
        let all = self.peers.all_gather(&words)?;
        let mut level = Level {
            width: 0,
            smallest: Vec::new(),
            stop: 0,
            due: false,
        };
        for (q, part) in all.iter().enumerate() {
            let [width, stop, due, smallest @ ..] = part.as_slice() else {
                return Err(lost(q, "its part of a level is too short"));
            };
            level.width += width;
            level.stop = level.stop.max(*stop);
            level.due |= *due != 0;
            level.smallest = first_of(level.smallest, smallest.to_vec(), top);
        }
        Ok(level)
    }

    /// One level of the breadth-first search over every process's codes
    /// (see the module's notes): `list` is this process's frontier, or
    /// `None` for its codes' (left the new frontier's, as alone).
    fn step<P: Pos>(
        &self,
        list: &mut Option<Vec<P>>,
        top: usize,
        due: bool,
    ) -> Result<Level, SearchError> {
        let codes = &self.codes;
        let cap = codes.0.len() * PER_WORD / 16 / size_of::<P>();
        let marked = self.expand(list.as_deref(), cap)?;
        let (width, smallest) = match (list.take(), marked) {
            (Some(old), Some(mut new)) => {
                let ended = Walk::<M>::advance_listed(codes, &old, &mut new, top);
                *list = Some(new);
                ended
            }
            (_, marked) => {
                let ended = Walk::<M>::advance(codes, top);
                *list = marked.map(|mut new| {
                    new.par_sort_unstable();
                    new
                });
                ended
            }
        };
        self.gathered(width, signal(self.walk), due, &self.keys(smallest), top)
    }

    /// Expands this process's frontier (`list`, or its codes') in rounds,
    /// marking every unseen successor on whichever process owns it.
    /// Returns the positions this process marked (in no order) unless
    /// they passed `cap`.
    fn expand<P: Pos>(
        &self,
        list: Option<&[P]>,
        cap: usize,
    ) -> Result<Option<Vec<P>>, SearchError> {
        let rounds = self.rounds(list);
        let all = self.peers.all_gather(&[rounds.len() as u64])?;
        let most = all.iter().map(|a| a.first().copied().unwrap_or(0)).max();
        let mut marked: Option<Vec<P>> = Some(Vec::new());
        let stray = Stray::default();
        for r in 0..most.unwrap_or(0) as usize {
            let keep = marked.is_some();
            let mut mine = match rounds.get(r) {
                Some(round) => self.expand_round(list, round.clone(), keep, &stray),
                None => Vec::new(),
            };
            let away = self.gathered_away();
            let refs: Vec<&[u64]> = away.iter().map(Vec::as_slice).collect();
            let mut incoming = lock(&self.incoming);
            self.peers.exchange_into(&refs, &mut incoming)?;
            self.arrived(&incoming, keep.then_some(&mut mine))?;
            if let Some(m) = marked.as_mut() {
                m.append(&mut mine);
                if m.len() > cap {
                    marked = None;
                }
            }
        }
        stray.check()?;
        Ok(marked)
    }

    /// Every worker's successors for each other process in the round just
    /// expanded, by process (the workers' buffers left empty).
    fn gathered_away(&self) -> MutexGuard<'_, Vec<Vec<u64>>> {
        let mut away = lock(&self.away);
        for (q, keys) in away.iter_mut().enumerate() {
            keys.clear();
            for part in &self.parts {
                let mut part = lock(part);
                keys.extend_from_slice(&part[q]);
                part[q].clear();
            }
        }
        away
    }

    /// The frontier's rounds: ranges of `list`'s entries, or of words of
    /// codes, of at most about [`ROUND`] positions each.
    fn rounds<P: Pos>(&self, list: Option<&[P]>) -> Vec<std::ops::Range<usize>> {
        if let Some(list) = list {
            return (0..list.len())
                .step_by(ROUND)
                .map(|i| i..(i + ROUND).min(list.len()))
                .collect();
        }
        let codes = &self.codes;
        let words = codes.0.len();
        let counts: Vec<usize> = (0..words)
            .into_par_iter()
            .step_by(WORDS_PER_CHUNK)
            .map(|first| {
                (first..(first + WORDS_PER_CHUNK).min(words))
                    .map(|w| codes.frontier_in(w).count_ones() as usize)
                    .sum()
            })
            .collect();
        let mut rounds = Vec::new();
        let (mut from, mut held) = (0, 0);
        for (c, count) in counts.into_iter().enumerate() {
            held += count;
            let end = ((c + 1) * WORDS_PER_CHUNK).min(words);
            if held >= ROUND {
                rounds.push(from..end);
                (from, held) = (end, 0);
            }
        }
        if held > 0 {
            rounds.push(from..words);
        }
        rounds
    }

    /// Expands one round (`round`: entries of `list`, or else words of
    /// codes): the positions it marked here (when it `keep`s them); its
    /// successors for the other processes go to the workers' `parts` (as
    /// found: sorting them to mark them in key order cost more than the
    /// marks it saved).
    fn expand_round<P: Pos>(
        &self,
        list: Option<&[P]>,
        round: std::ops::Range<usize>,
        keep: bool,
        stray: &Stray,
    ) -> Vec<P> {
        let (model, codes, range) = (self.walk.model, &self.codes, self.range);
        let n = model.key_space();
        let visit = |state: &mut M::State,
                     out: &mut Vec<u64>,
                     mine: &mut Vec<P>,
                     away: &mut [Vec<u64>],
                     i: usize| {
            let key = range.lo + i as u64;
            model.decode(key, state);
            out.clear();
            model.successors(state, out);
            for &succ in out.iter() {
                if range.holds(succ) {
                    let j = (succ - range.lo) as usize;
                    if codes.mark(j) && keep {
                        mine.push(P::new(j));
                    }
                } else if succ < n {
                    away[range.owner(succ)].push(succ);
                } else {
                    stray.found(key, succ);
                }
            }
        };
        // The worker's own buffers (a worker runs one chunk at a time: it
        // calls nothing of rayon's inside one, so it steals no other).
        let part = || lock(&self.parts[rayon::current_thread_index().unwrap_or(0)]);
        let init = || (model.new_state(), Vec::new());
        let mine: Vec<Vec<P>> = match list {
            Some(list) => list[round]
                .par_chunks(WORDS_PER_CHUNK * 4)
                .map_init(init, |(state, out), chunk| {
                    let (mut mine, mut away) = (Vec::new(), part());
                    for &i in chunk {
                        visit(state, out, &mut mine, &mut away, i.at());
                    }
                    mine
                })
                .collect(),
            None => round
                .into_par_iter()
                .step_by(WORDS_PER_CHUNK)
                .map_init(init, |(state, out), first| {
                    let (mut mine, mut away) = (Vec::new(), part());
                    for w in first..(first + WORDS_PER_CHUNK).min(codes.0.len()) {
                        for i in positions_in(w, codes.frontier_in(w)) {
                            visit(state, out, &mut mine, &mut away, i);
                        }
                    }
                    mine
                })
                .collect(),
        };
        mine.concat()
    }

    /// Marks what the other processes sent (by sender), adding the
    /// positions it marked to `mine` where given. A key outside this
    /// process's range breaks the protocol.
    fn arrived<P: Pos>(
        &self,
        arrived: &[Vec<u64>],
        mine: Option<&mut Vec<P>>,
    ) -> Result<(), SearchError> {
        let (codes, range) = (&self.codes, self.range);
        for (q, keys) in arrived.iter().enumerate() {
            if let Some(&k) = keys.iter().find(|&&k| !range.holds(k)) {
                return Err(lost(
                    q,
                    &format!("it sent key {k}, which is not this process's"),
                ));
            }
        }
        let marks = arrived
            .par_iter()
            .flat_map(|keys| keys.par_chunks(WORDS_PER_CHUNK * 16))
            .flat_map_iter(|keys| {
                keys.iter().filter_map(|&k| {
                    let j = (k - range.lo) as usize;
                    codes.mark(j).then(|| P::new(j))
                })
            });
        match mine {
            Some(mine) => mine.par_extend(marks),
            None => marks.for_each(|_| ()),
        }
        Ok(())
    }
}

/// `m`'s guard, whether or not a worker panicked holding it (the census
/// then fails with that panic).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The refusal of a census of `n` positions across processes, for `why`.
fn not_spreadable(n: u64, why: &str) -> SearchError {
    SearchError::Unsearchable(format!(
        "across processes, a census of {n} positions finds its components only by measuring every distance from one goal position, but {why}\n  help: run it as one process"
    ))
}

/// `mine`, this process's part of a step that every process takes (its
/// checkpoint made or read): a failure on any process ends every one,
/// with its own error, or with the first failing process's name and
/// `what` it could not do.
pub(super) fn agreed<T>(
    peers: &dyn Peers,
    mine: Result<T, SearchError>,
    what: &str,
) -> Result<T, SearchError> {
    let all = peers.all_gather(&[u64::from(mine.is_err())])?;
    let v = mine?;
    match all.iter().position(|a| a.first() != Some(&0)) {
        Some(q) => Err(SearchError::Checkpoint(format!(
            "process {q} could not {what} (its message says why)"
        ))),
        None => Ok(v),
    }
}

/// Process `q` broke the protocol: `what`.
fn lost(q: usize, what: &str) -> SearchError {
    SearchError::Peer(PeerError::Lost {
        process: q,
        what: what.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::super::tests::Rings;
    use super::*;
    use crate::engine::files::{Checkpoint, Spill};
    use crate::engine::peers::threads::on;
    use crate::engine::{Progress, Search};
    use crate::puzzles::twisty::{Options, Twisty, TwistyMetric};

    /// `model`'s census alone at two threads, and on 2 and 3 processes
    /// (each at one thread and at two): each process's equals it.
    fn alike<M: EveryPosition>(model: &M, top: usize) -> Census {
        let alone = Search::new(model).threads(2).census(top).unwrap();
        assert!(alone.stopped.is_none());
        for processes in [2, 3] {
            for threads in [1, 2] {
                let each = on(processes, |peers| {
                    Search::new(model)
                        .threads(threads)
                        .peers(peers)
                        .census(top)
                        .unwrap()
                });
                for c in each {
                    let what = format!("{processes} processes of {threads} threads");
                    assert!(c.stopped.is_none(), "{what}");
                    assert_eq!(c.positions, alone.positions, "{what}");
                    assert_eq!(c.components, alone.components, "{what}");
                    assert_eq!(c.goal, alone.goal, "{what}");
                }
            }
        }
        alone
    }

    #[test]
    fn the_ranges_hold_every_key_once_in_whole_words() {
        for n in [1, 31, 32, 33, 1000, 20_020, 1 << 20] {
            for processes in 1..=5 {
                let ranges: Vec<Range> = (0..processes)
                    .map(|me| Range::of(n, me, processes))
                    .collect();
                assert_eq!(ranges[0].lo, 0);
                assert_eq!(ranges[processes - 1].hi, n);
                for (me, r) in ranges.iter().enumerate() {
                    assert!(
                        r.lo % PER_WORD as u64 == 0 || r.lo == n,
                        "{n} keys, {processes}"
                    );
                    assert!(r.lo <= r.hi);
                    if me > 0 {
                        assert_eq!(r.lo, ranges[me - 1].hi);
                    }
                    for key in [r.lo, r.hi.saturating_sub(1)] {
                        if r.holds(key) {
                            assert_eq!(r.owner(key), me, "{n} keys, {processes}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn rings_across_processes_are_those_of_one() {
        // Rings that do not end at a word's or a process's edge, many
        // small rings (each a flood of its own), one ring, and fewer keys
        // than three processes have words (the third's range is empty).
        for (n, ring) in [(20_020, 1001), (3_000, 3), (99_999, 99_999), (40, 4)] {
            let rings = Rings { n, ring };
            let c = alike(&rings, 5);
            let components = c.components.unwrap();
            assert_eq!(components.size_histogram, [(ring, n / ring)]);
            assert_eq!(c.goal.unwrap().hardest[0].distance as u64, ring / 2);
        }
    }

    /// The 2x2x2 in `<U,F>`: 174,960 patterns in 6 cosets of 29,160.
    fn cube_uf() -> Twisty {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cube2.tws");
        let def = Twisty::from_path(Path::new(path)).unwrap();
        let options = Options {
            metric: TwistyMetric::Htm,
            moves: Some(vec!["U".into(), "F".into()]),
            scramble: None,
        };
        Twisty::new(def, &options).unwrap()
    }

    #[test]
    fn a_twisty_census_across_processes_is_that_of_one() {
        let cube = cube_uf();
        let c = alike(&cube, 20);
        // 174,960 patterns in 6 cosets of 29,160.
        let components = c.components.unwrap();
        assert_eq!(components.size_histogram, [(29_160, 6)]);
        assert_eq!(c.goal.unwrap().hardest.len(), 20);
    }

    #[test]
    fn a_stop_on_one_process_stops_every_one_alike() {
        let rings = Rings {
            n: 20_000,
            ring: 1000,
        };
        let stop = AtomicBool::new(true);
        let each = on(3, |peers| {
            let search = Search::new(&rings).threads(1).peers(peers);
            let search = if peers.me() == 1 {
                search.stop_flag(&stop)
            } else {
                search
            };
            search.census(3).unwrap()
        });
        for c in each {
            assert_eq!(c.stopped, Some(StopReason::Interrupted));
            assert!(c.components.is_none() && c.goal.is_none());
        }
    }

    #[test]
    fn what_only_one_process_can_take_is_refused_on_every_one() {
        let rings = Rings { n: 2_000, ring: 10 };
        let each = on(2, |peers| {
            Search::new(&rings)
                .threads(1)
                .peers(peers)
                .max_depth(Some(3))
                .census(3)
                .unwrap_err()
                .to_string()
        });
        for e in each {
            assert!(e.contains("--max-depth stops the distances"), "{e}");
            assert!(e.contains("help: run it as one process"), "{e}");
        }
    }

    /// A directory of the test's own, gone with it.
    struct Dir(PathBuf);

    impl Dir {
        fn new(name: &str) -> Dir {
            let dir = std::env::temp_dir()
                .join(format!("reach-census-ranks-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            Dir(dir)
        }

        /// Process `me`'s checkpoint.
        fn of(&self, me: usize) -> Checkpoint {
            Checkpoint::open(self.0.join(format!("process-{me}"))).unwrap()
        }

        /// The codes files in process `me`'s directory.
        fn codes(&self, me: usize) -> usize {
            std::fs::read_dir(self.0.join(format!("process-{me}")))
                .unwrap()
                .filter(|e| {
                    let name = e.as_ref().unwrap().file_name();
                    name.to_string_lossy().starts_with("census-codes-")
                })
                .count()
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Resumes the census in `dir` on `processes`: each process's equals
    /// `alone`, and the checkpoint is gone.
    fn resumes_to<M: EveryPosition>(model: &M, dir: &Dir, processes: usize, alone: &Census) {
        let each = on(processes, |peers| {
            Search::new(model)
                .threads(1)
                .peers(peers)
                .resume_census(5, &dir.of(peers.me()))
                .unwrap()
        });
        for c in each {
            assert!(c.stopped.is_none(), "{:?}", c.stopped);
            assert_eq!(c.positions, alone.positions);
            assert_eq!(c.components, alone.components);
            assert_eq!(c.goal, alone.goal);
        }
        assert!(
            !dir.0.exists(),
            "the checkpoint stays after a complete census"
        );
    }

    #[test]
    fn a_census_across_processes_stopped_goes_on_from_its_checkpoint() {
        let cube = cube_uf();
        let alone = Search::new(&cube).threads(2).census(5).unwrap();
        for processes in [2, 3] {
            let dir = Dir::new(&format!("stopped-{processes}"));
            // Process 1 is asked to stop once its distances pass depth 4.
            let stop = AtomicBool::new(false);
            let progress = |p: &Progress| {
                if p.depth >= 4 {
                    stop.store(true, Ordering::Relaxed);
                }
            };
            let each = on(processes, |peers| {
                let search = Search::new(&cube)
                    .threads(1)
                    .peers(peers)
                    .spill(Spill::new(dir.0.clone()).checkpoint(true));
                match peers.me() {
                    1 => search.stop_flag(&stop).progress(&progress).census(5),
                    _ => search.census(5),
                }
                .unwrap()
            });
            for c in each {
                assert_eq!(c.stopped, Some(StopReason::Interrupted));
            }
            for me in 0..processes {
                let cp = dir.of(me);
                assert_eq!(cp.process(), (me, processes));
                assert_eq!(cp.depth(), dir.of(0).depth());
                assert!(cp.depth() >= 5, "saved at {}", cp.depth());
                // The last save and the one before it.
                assert_eq!(dir.codes(me), 2);
            }
            // One process alone does not take a part of it.
            let one = Search::new(&cube).resume_census(5, &dir.of(0)).unwrap_err();
            let on_as_many = format!("on {processes} processes");
            assert!(one.to_string().contains(&on_as_many), "{one}");
            resumes_to(&cube, &dir, processes, &alone);
        }
    }

    #[test]
    fn a_process_one_save_behind_the_others_resumes_them_from_its_save() {
        let cube = cube_uf();
        let alone = Search::new(&cube).threads(2).census(5).unwrap();
        let dir = Dir::new("behind");
        // Process 1's disk fills during its fifth save of the codes (each
        // 21,872 bytes): process 0 saved that level, process 1 did not.
        let each = on(2, |peers| {
            let spill = Spill::new(dir.0.clone()).checkpoint(true);
            let spill = match peers.me() {
                1 => spill.fail_after_bytes(Some(4 * 21_872 + 10_000)),
                _ => spill,
            };
            Search::new(&cube)
                .threads(1)
                .peers(peers)
                .spill(spill)
                .census(5)
                .unwrap()
        });
        for (me, c) in each.iter().enumerate() {
            let Some(StopReason::Storage(why)) = &c.stopped else {
                panic!("{:?}", c.stopped);
            };
            if me == 0 {
                assert!(why.contains("process 1 could not save"), "{why}");
            }
        }
        assert_eq!(dir.of(0).depth(), dir.of(1).depth() + 1);
        resumes_to(&cube, &dir, 2, &alone);
    }

    #[test]
    fn checkpoints_that_do_not_belong_together_are_refused_on_every_process() {
        let cube = cube_uf();
        let dir = Dir::new("foreign");
        let stop = AtomicBool::new(true);
        on(2, |peers| {
            let spill = Spill::new(dir.0.clone()).checkpoint(true);
            let search = Search::new(&cube).threads(1).peers(peers).spill(spill);
            search.stop_flag(&stop).census(5).unwrap()
        });
        let resumed = |dirs: [usize; 2]| {
            on(2, |peers| {
                let cp = dir.of(dirs[peers.me()]);
                let search = Search::new(&cube).threads(1).peers(peers);
                search.resume_census(5, &cp).unwrap_err().to_string()
            })
        };
        // Each process given the other's directory.
        for e in resumed([1, 0]) {
            assert!(e.contains("holds process 1's checkpoint"), "{e}");
        }
        // Process 1's codes cut short: it names the file, process 0 it.
        let codes = dir.0.join("process-1").join("census-codes-0.u64");
        let bytes = std::fs::read(&codes).unwrap();
        std::fs::write(&codes, &bytes[..bytes.len() - 8]).unwrap();
        let [zero, one] = <[String; 2]>::try_from(resumed([0, 1])).unwrap();
        assert!(one.contains("census-codes-0.u64"), "{one}");
        assert!(zero.contains("process 1 could not"), "{zero}");
    }

    #[test]
    fn a_checkpoint_on_one_process_only_is_refused_on_every_one() {
        let cube = cube_uf();
        let dir = Dir::new("one-only");
        let each = on(2, |peers| {
            let search = Search::new(&cube).threads(1).peers(peers);
            let search = match peers.me() {
                0 => search.spill(Spill::new(dir.0.clone()).checkpoint(true)),
                _ => search,
            };
            search.census(5).unwrap_err().to_string()
        });
        for e in each {
            assert!(e.contains("checkpointed"), "{e}");
        }
    }
}
