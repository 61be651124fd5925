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
//!
//! The counts are the single process's: the components are the graph's,
//! and a position's distance is the level that first reaches it, whichever
//! process marks it.

use std::sync::{Mutex, MutexGuard};

use rayon::prelude::*;

use crate::engine::levels::agree;
use crate::engine::peers::{PeerError, Peers};

use super::{
    Census, Codes, EveryKey, EveryPosition, Front, LOW_BITS, PER_WORD, Pos, Smallest, Stray,
    TailLevel, UNSEEN, WORDS_PER_CHUNK, Walk, first_of, positions_in, push_level, tally,
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
    /// position (see the module's notes).
    pub(super) fn across(&self, peers: &dyn Peers, top: usize) -> Result<Census, SearchError> {
        let n = self.model.key_space();
        self.spreadable(n)?;
        let mut census = self.empty();
        census.positions = n;
        census.all_listed = true;
        let range = Range::of(n, peers.me(), peers.processes());
        let len = range.len() as u64;
        // This process's codes and lists, as alone (see `every_key`).
        // (Every process stops for the first one's reason, if any has one.)
        let short = self.room_for(len.div_ceil(4) + 3 * len.div_ceil(16));
        if let Some(why) = agree::reason(peers, short)? {
            census.stopped = Some(why);
            return self.finished(census);
        }
        let by_process = || vec![Vec::new(); peers.processes()];
        let spread = Spread {
            walk: self,
            peers,
            range,
            codes: Codes::new(range.len()),
            parts: (0..rayon::current_num_threads())
                .map(|_| Mutex::new(by_process()))
                .collect(),
            away: Mutex::new(by_process()),
            incoming: Mutex::new(Vec::new()),
        };
        if u32::try_from(range.len()).is_ok() {
            spread.census::<u32>(top, &mut census)?;
        } else {
            spread.census::<u64>(top, &mut census)?;
        }
        self.finished(census)
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

    fn finished(&self, mut census: Census) -> Result<Census, SearchError> {
        census.seconds = self.seconds();
        Ok(census)
    }
}

impl<M: EveryPosition> Spread<'_, '_, M> {
    /// The distances, then the components; this process's lists hold
    /// its positions as `P` (its own index: its key less `lo`).
    fn census<P: Pos>(&self, top: usize, census: &mut Census) -> Result<(), SearchError> {
        let n = census.positions;
        let (goals, smallest) = self.goal_frontier(top)?;
        if goals != 1 {
            let why = format!("its goal has {goals} positions");
            return Err(not_spreadable(n, &why));
        }
        let mut front = Front {
            levels: vec![1],
            tail: vec![TailLevel { depth: 0, smallest }],
            goal_components: 1,
            solvable: 0,
        };
        if let Some(why) = self.measure::<P>(&mut front, top)? {
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

    /// Puts this process's goal positions in the first frontier: the
    /// number of goal positions on every process, and the smallest `top`.
    fn goal_frontier(&self, top: usize) -> Result<(u64, Smallest), SearchError> {
        let codes = &self.codes;
        self.walk.goal_frontier(self.range.lo, self.range.hi, codes);
        let (count, _, smallest) = Walk::<M>::goals(None, codes, top);
        let level = self.gathered(count, 0, &self.keys(smallest), top)?;
        Ok((level.width, level.smallest))
    }

    /// The levels of the distances from `front` on; why they stopped
    /// short, if they did.
    fn measure<P: Pos>(
        &self,
        front: &mut Front,
        top: usize,
    ) -> Result<Option<StopReason>, SearchError> {
        let walk = self.walk;
        let mut list: Option<Vec<P>> = Some(self.own_frontier());
        let mut stop = self.gathered(0, signal(walk), &[], 0)?.stop;
        loop {
            if stop > 0 {
                return Ok(Some(stop_of(stop)));
            }
            let depth = front.levels.len() as u32;
            let level = self.step(&mut list, top)?;
            if level.width == 0 {
                return Ok(None);
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
            stop = level.stop;
        }
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
                let level = self.step(&mut list, 0)?;
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
    /// [`signal`] `stop`, its `smallest` keys), gathered.
    fn gathered(
        &self,
        width: u64,
        stop: u64,
        smallest: &[u64],
        top: usize,
    ) -> Result<Level, SearchError> {
        let mut words = vec![width, stop];
        words.extend_from_slice(smallest);
        let all = self.peers.all_gather(&words)?;
        let mut level = Level {
            width: 0,
            smallest: Vec::new(),
            stop: 0,
        };
        for (q, part) in all.iter().enumerate() {
            let [width, stop, smallest @ ..] = part.as_slice() else {
                return Err(lost(q, "its part of a level is too short"));
            };
            level.width += width;
            level.stop = level.stop.max(*stop);
            level.smallest = first_of(level.smallest, smallest.to_vec(), top);
        }
        Ok(level)
    }

    /// One level of the breadth-first search over every process's codes
    /// (see the module's notes): `list` is this process's frontier, or
    /// `None` for its codes' (left the new frontier's, as alone).
    fn step<P: Pos>(&self, list: &mut Option<Vec<P>>, top: usize) -> Result<Level, SearchError> {
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
        self.gathered(width, signal(self.walk), &self.keys(smallest), top)
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

/// Process `q` broke the protocol: `what`.
fn lost(q: usize, what: &str) -> SearchError {
    SearchError::Peer(PeerError::Lost {
        process: q,
        what: what.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::super::tests::Rings;
    use super::*;
    use crate::engine::Search;
    use crate::engine::peers::threads::on;
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

    #[test]
    fn a_twisty_census_across_processes_is_that_of_one() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cube2.tws");
        let def = Twisty::from_path(std::path::Path::new(path)).unwrap();
        let options = Options {
            metric: TwistyMetric::Htm,
            moves: Some(vec!["U".into(), "F".into()]),
            scramble: None,
        };
        let cube = Twisty::new(def, &options).unwrap();
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
}
