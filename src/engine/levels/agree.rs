//! Everything a search says to its other processes, in one place: what the
//! level loop and the search's start agree on, and the one thing a store
//! may ask of them, its candidates carried to their owners ([`Exchange`]).
//!
//! A store answers for its own share of a level (its goals, whether it
//! holds a key, its keys, a path's next step) and the loop gathers the
//! answers here, so that a new store cannot forget a process, and every
//! process makes the same collective calls in the same order. Alone, every
//! call returns at once without a word sent.

use crate::engine::files::manifest::run_seed;
use crate::engine::files::{Checkpoint, SpillError, manifest};
use crate::engine::peers::{Mismatch, Peers};
use crate::engine::report::StopReason;
use crate::engine::{Key, SearchError};

use super::Fault;
use super::memory::Bound;

/// This process's place among the processes of a search: its partitions
/// are those whose index modulo `processes` is `me` (the dense store's
/// blocks are shared out in ranges of the same count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Share {
    pub(crate) me: usize,
    pub(crate) processes: usize,
}

impl Share {
    /// One process, which owns everything.
    pub(crate) const ALONE: Share = Share {
        me: 0,
        processes: 1,
    };

    /// The share of this process among `peers`.
    pub(crate) fn of(peers: &dyn Peers) -> Share {
        Share {
            me: peers.me(),
            processes: peers.processes(),
        }
    }

    /// Whether this process is the search's only one.
    #[inline]
    pub(crate) fn alone(self) -> bool {
        self.processes == 1
    }

    /// Whether partition `p` is this process's.
    #[inline]
    pub(crate) fn owns(self, p: usize) -> bool {
        p % self.processes == self.me
    }

    /// The process that owns partition `p`.
    #[inline]
    pub(crate) fn owner(self, p: usize) -> usize {
        p % self.processes
    }
}

/// How a store's candidates for other processes' partitions reach them,
/// and theirs for its own reach it: handed by the loop to the store's
/// settle, the one step of a level that other processes take part in.
/// Every process calls it at the same points of a level.
pub(crate) struct Exchange<'p> {
    peers: &'p dyn Peers,
}

/// A store's side of [`Exchange::rounds`]: where the keys to send come
/// from and where the keys received go.
pub(crate) trait Mail<K: Key = u64> {
    /// Appends at most `max` more of this process's keys for process `to`
    /// to `out`; whether any remain after them.
    fn next_for(&mut self, to: usize, out: &mut Vec<K>, max: usize) -> Result<bool, Fault>;

    /// Takes keys that another process sent.
    fn arrived(&mut self, keys: Vec<K>) -> Result<(), Fault>;
}

impl<'p> Exchange<'p> {
    pub(crate) fn new(peers: &'p dyn Peers) -> Exchange<'p> {
        Exchange { peers }
    }

    /// Whether any process says yes (`mine` is this one's answer). Every
    /// process calls it, as every collective.
    pub(crate) fn any(&self, mine: bool) -> Result<bool, Fault> {
        Ok(sum(self.peers, u64::from(mine))? > 0)
    }

    /// Sends `outgoing[q]` to every other process q in one round; what
    /// each sent this one, by process (empty at this one's index).
    pub(crate) fn once<K: Key>(&self, outgoing: Vec<Vec<K>>) -> Result<Vec<Vec<K>>, Fault> {
        let words = outgoing.into_iter().map(K::to_wire).collect();
        Ok(self
            .peers
            .exchange(words)?
            .into_iter()
            .map(K::from_wire)
            .collect())
    }

    /// Moves keys to their owners in rounds of at most `round` keys to each
    /// process, until no process has more: what is in flight (and in the
    /// transport's buffers) is bounded by the round, not by the level.
    pub(crate) fn rounds<K: Key>(&self, round: usize, mail: &mut dyn Mail<K>) -> Result<(), Fault> {
        let (n, me) = (self.peers.processes(), self.peers.me());
        let round = round.max(1);
        loop {
            let mut outgoing = vec![Vec::new(); n];
            let mut more = false;
            for (q, out) in outgoing.iter_mut().enumerate() {
                if q != me {
                    more |= mail.next_for(q, out, round)?;
                }
            }
            let words = outgoing.into_iter().map(K::to_wire).collect();
            for words in self.peers.exchange(words)? {
                if !words.is_empty() {
                    mail.arrived(K::from_wire(words))?;
                }
            }
            if !self.peers.any(more)? {
                return Ok(());
            }
        }
    }
}

/// Text as words, eight bytes to a word (the last padded with zeros).
fn text_words(text: &str) -> impl Iterator<Item = u64> + '_ {
    text.as_bytes()
        .chunks(8)
        .map(|c| c.iter().rev().fold(0u64, |w, &b| w << 8 | u64::from(b)))
}

/// The text of words made by [`text_words`].
fn words_text(words: &[u64]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    String::from_utf8_lossy(&bytes)
        .trim_end_matches('\0')
        .to_string()
}

/// Checks that every process takes the same store (`choice`, a number for
/// its kind and place): each measures its own memory and disk, and a
/// process that would keep the dense array on disk while another keeps it
/// in memory would send keys that the other does not expect. On a
/// difference, every process refuses before the first level, with each
/// one's store and why (`why`).
pub(crate) fn same_store(peers: &dyn Peers, choice: u64, why: &str) -> Result<(), SearchError> {
    if peers.processes() == 1 {
        return Ok(());
    }
    let choices = peers.all_gather(&[choice])?;
    let Some(process) = choices.iter().position(|c| c != &choices[0]) else {
        return Ok(());
    };
    let words: Vec<u64> = text_words(why).collect();
    let whys = peers.all_gather(&words)?;
    Err(SearchError::StoresDiffer {
        process,
        theirs: words_text(&whys[process]),
        ours: words_text(&whys[0]),
    })
}

/// Checks that every process runs the same search: the digest of the
/// model's identity and the options' text (`settings`), against process
/// 0's.
pub(crate) fn same_search(
    peers: &dyn Peers,
    identity: u64,
    settings: &str,
) -> Result<(), SearchError> {
    if peers.processes() == 1 {
        return Ok(());
    }
    let mut words = vec![identity];
    words.extend(text_words(settings));
    let all = peers.all_gather(&words)?;
    let Some(process) = all.iter().position(|w| *w != all[0]) else {
        return Ok(());
    };
    let what = if all[process].first() != all[0].first() {
        "its puzzle differs (another file, file contents or metric)".to_string()
    } else {
        let (theirs, ours) = (words_text(&all[process][1..]), words_text(&all[0][1..]));
        // The settings that differ, each as each process has it.
        let (mut theirs_only, mut ours_only) = (Vec::new(), Vec::new());
        for (t, o) in theirs.split("; ").zip(ours.split("; ")) {
            if t != o {
                theirs_only.push(t);
                ours_only.push(o);
            }
        }
        if theirs_only.is_empty() {
            format!("it has {theirs}, process 0 {ours}")
        } else {
            format!(
                "it has {}, process 0 has {}",
                theirs_only.join(", "),
                ours_only.join(", ")
            )
        }
    };
    Err(Mismatch { process, what }.into())
}

/// The name of a new checkpointed run: process 0's, which every process
/// records.
pub(crate) fn run_name(peers: &dyn Peers) -> Result<u64, Fault> {
    if peers.processes() == 1 {
        return Ok(run_seed());
    }
    Ok(peers.all_gather(&[run_seed()])?[0][0])
}

/// How many of the levels that `cp` records the resumed search goes on
/// from: all of them alone; across processes, the checkpoints must be one
/// run's, each in its process's place, and all go on from the last level
/// every one saved (a process may be one level ahead of another that died).
pub(crate) fn resume_levels(peers: &dyn Peers, cp: &Checkpoint) -> Result<usize, Fault> {
    let m = &cp.manifest;
    let path = cp.dir.join(manifest::NAME);
    let (me, n) = (peers.me(), peers.processes());
    if m.levels.is_empty() {
        return Err(SpillError::Damaged {
            path,
            what: "it names no level".into(),
        }
        .into());
    }
    if (m.process as usize, m.processes as usize) != (me, n) && n == 1 {
        return Err(SpillError::Foreign {
            path,
            what: format!(
                "it is process {} of a run on {} processes: resume the run's directory on as many ranks, `mpiexec -n {} reach resume {}` (a build with --features mpi)",
                m.process,
                m.processes,
                m.processes,
                cp.dir.parent().unwrap_or(&cp.dir).display()
            ),
        }
        .into());
    }
    if n == 1 {
        return Ok(m.levels.len());
    }
    let run = u64::from_str_radix(&m.run, 16).unwrap_or(0);
    let mine = [
        run,
        u64::from(m.process),
        u64::from(m.processes),
        m.levels.len() as u64,
    ];
    let all = peers.all_gather(&mine)?;
    for (q, theirs) in all.iter().enumerate() {
        let what = if theirs[2] != n as u64 {
            format!(
                "process {q}'s checkpoint is of a run on {} processes, this run has {n}",
                theirs[2]
            )
        } else if theirs[1] != q as u64 {
            format!(
                "process {q}'s directory holds process {}'s checkpoint",
                theirs[1]
            )
        } else if theirs[0] != all[0][0] {
            format!("process {q}'s checkpoint is of another run than process 0's")
        } else {
            continue;
        };
        return Err(SpillError::Foreign {
            path,
            what: format!(
                "{what}\n  help: resume with the same processes and the directories of one run"
            ),
        }
        .into());
    }
    Ok(all.iter().map(|v| v[3]).min().unwrap_or(1) as usize)
}

/// The reason every process stops for: the first process's that has one
/// (each process checks its own memory and signals).
pub(crate) fn reason(
    peers: &dyn Peers,
    mine: Option<StopReason>,
) -> Result<Option<StopReason>, Fault> {
    if peers.processes() == 1 {
        return Ok(mine);
    }
    Ok(peers
        .all_gather(&encode(&mine))?
        .iter()
        .find_map(|words| decode(words)))
}

/// The next level's width in all processes, from this one's `share`, and
/// the strongest signal any process saw while settling it (0: none; 1: an
/// interruption; 2: a termination).
pub(crate) fn width(peers: &dyn Peers, share: u64, signal: u64) -> Result<(u64, u64), Fault> {
    if peers.processes() == 1 {
        return Ok((share, signal));
    }
    let all = peers.all_gather(&[share, signal])?;
    Ok((
        all.iter().map(|v| v[0]).sum(),
        all.iter().map(|v| v[1]).max().unwrap_or(0),
    ))
}

/// Every process's `keys`, one after another in process order.
pub(crate) fn gather<K: Key>(peers: &dyn Peers, keys: Vec<K>) -> Result<Vec<K>, Fault> {
    if peers.processes() == 1 {
        return Ok(keys);
    }
    let words = K::to_wire(keys);
    Ok(K::from_wire(peers.all_gather(&words)?.concat()))
}

/// The sum of every process's `value`.
pub(crate) fn sum(peers: &dyn Peers, value: u64) -> Result<u64, Fault> {
    if peers.processes() == 1 {
        return Ok(value);
    }
    Ok(peers.sum(value)?)
}

/// The smallest of every process's `value`.
pub(crate) fn min<K: Key>(peers: &dyn Peers, value: Option<K>) -> Result<Option<K>, Fault> {
    if peers.processes() == 1 {
        return Ok(value);
    }
    // Every process's value (none: no words), and the least of them.
    Ok(gather(peers, value.into_iter().collect())?
        .into_iter()
        .min())
}

/// A reason to stop before a level, as words that processes exchange.
fn encode(reason: &Option<StopReason>) -> [u64; 4] {
    match reason {
        None => [0; 4],
        Some(StopReason::Interrupted) => [1, 0, 0, 0],
        Some(StopReason::Terminated) => [5, 0, 0, 0],
        Some(StopReason::MaxDepth(d)) => [2, u64::from(*d), 0, 0],
        Some(StopReason::MemoryLimit { limit, needed }) => [3, *limit, *needed, 0],
        Some(StopReason::MemoryAvailable {
            available,
            needed,
            bound,
        }) => [4, *available, *needed, bound.code()],
        // Not decided before a level.
        Some(_) => [0; 4],
    }
}

fn decode(words: &[u64]) -> Option<StopReason> {
    match *words {
        [1, ..] => Some(StopReason::Interrupted),
        [5, ..] => Some(StopReason::Terminated),
        [2, d, ..] => Some(StopReason::MaxDepth(d as u32)),
        [3, limit, needed, _] => Some(StopReason::MemoryLimit { limit, needed }),
        [4, available, needed, bound] => Some(StopReason::MemoryAvailable {
            available,
            needed,
            bound: Bound::from_code(bound),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::peers::threads::on;
    use crate::engine::{Search, Spill, VisitedKind, reference};
    use crate::puzzles::builtin;
    use crate::puzzles::tiles::Tiles;

    /// A directory of this test's own, removed when it ends.
    struct Scratch(std::path::PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir =
                std::env::temp_dir().join(format!("reach-agree-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn every_store_counts_alike_on_two_and_three_processes() {
        let klotski = builtin::sliding("klotski").unwrap();
        let tiles = Tiles::new(2, 5).unwrap();
        let expected = reference::level_sizes(&klotski);
        let tiles_levels = Search::new(&tiles).threads(1).count().unwrap().levels;
        assert_eq!(tiles_levels.iter().sum::<u64>(), 1_814_400);
        let scratch = Scratch::new("count");
        for n in [2, 3] {
            for kind in [
                VisitedKind::Frontier,
                VisitedKind::Bitmap,
                VisitedKind::DashMap,
                VisitedKind::Dense,
            ] {
                let counts = on(n, |peers| {
                    let search = Search::new(&klotski).threads(1).visited(kind);
                    search.peers(peers).count().unwrap()
                });
                for report in counts {
                    assert_eq!(report.levels, expected, "{kind:?} on {n}");
                    assert!(report.is_complete());
                }
            }
            // On disk, with buffers so small that a wide level's exchange
            // takes rounds and its received keys several files.
            let dir = scratch.0.join(format!("frontier-{n}"));
            let counts = on(n, |peers| {
                let spill = Spill::new(&dir).candidate_budget(Some(1));
                let search = Search::new(&tiles)
                    .threads(2)
                    .visited(VisitedKind::Frontier);
                search.spill(spill).peers(peers).count().unwrap()
            });
            for report in counts {
                assert_eq!(report.levels, tiles_levels, "tiles on disk on {n}");
            }
            assert!(!dir.exists(), "the processes' directories are removed");
            // The dense array, each process's share in memory, then on disk
            // in segments of one block.
            for segment in [None, Some(32768)] {
                let dir = scratch.0.join(format!("dense-{n}"));
                let counts = on(n, |peers| {
                    let search = Search::new(&tiles)
                        .threads(1)
                        .visited(VisitedKind::Dense)
                        .dense_segment_bytes(segment);
                    let search = match segment {
                        Some(_) => search.spill(Spill::new(&dir)),
                        None => search,
                    };
                    search.peers(peers).count().unwrap()
                });
                for report in counts {
                    assert_eq!(report.levels, tiles_levels, "dense {segment:?} on {n}");
                }
            }
        }
    }

    #[test]
    fn classes_of_symmetric_positions_weigh_alike_on_two_and_three_processes() {
        use crate::puzzles::twisty::{Options, Symmetric, Symmetry, Twisty};
        let file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/cube2-rotations.tws"
        );
        let def = Twisty::from_path(std::path::Path::new(file)).unwrap();
        let cube = Twisty::new(def.clone(), &Options::default()).unwrap();
        let plain = Search::new(&cube)
            .threads(1)
            .max_depth(Some(6))
            .count()
            .unwrap();
        let sym = Symmetry::of(&cube);
        // 24 rotations and their 24 mirror images, each with the inverse
        // position.
        assert_eq!(sym.order(), 96);
        let model = Symmetric::<u64>::new(&cube, &sym).unwrap();
        let one = Search::new(&model)
            .threads(2)
            .max_depth(Some(6))
            .count()
            .unwrap();
        assert_eq!(one.levels, plain.levels);
        // A start that the rotations about one axis fix, solved.
        let options = Options {
            scramble: Some("U2 D2 R".into()),
            ..Options::default()
        };
        let scrambled = Twisty::new(def, &options).unwrap();
        let fixing = Symmetry::of(&scrambled);
        assert!(!fixing.is_trivial() && fixing.order() < 24);
        let solving = Symmetric::<u64>::new(&scrambled, &fixing).unwrap();
        let scratch = Scratch::new("classes");
        for n in [2, 3] {
            for (kind, on_disk) in [
                (VisitedKind::Frontier, false),
                (VisitedKind::DashMap, false),
                (VisitedKind::Frontier, true),
            ] {
                let what = format!("{kind:?} on {n}, on disk {on_disk}");
                let dir = scratch.0.join(format!("{n}-{kind:?}"));
                let all = on(n, |peers| {
                    let search = |m| {
                        let search = Search::new(m).threads(2).visited(kind).peers(peers);
                        match on_disk {
                            true => search.spill(Spill::new(&dir).candidate_budget(Some(1 << 12))),
                            false => search,
                        }
                    };
                    (
                        search(&model).max_depth(Some(6)).count().unwrap(),
                        search(&solving).solve().unwrap(),
                    )
                });
                for (count, solve) in all {
                    assert_eq!(count.levels, plain.levels, "{what}");
                    assert_eq!(count.class_levels, one.class_levels, "{what}");
                    let path = solve.path.expect("solvable");
                    let moves = scrambled.path_moves(&solving.real_path(&path));
                    assert_eq!(moves.len(), 3, "{what}: {moves:?}");
                }
            }
        }
    }

    #[test]
    fn wide_keys_count_solve_and_find_the_hardest_as_narrow_ones_on_one_to_three_processes() {
        use crate::engine::Model;
        use crate::engine::reference::Widened;
        let klotski = builtin::sliding("klotski").unwrap();
        let wide: Widened<'_, _, 2> = Widened(&klotski);
        let narrow = Search::new(&klotski).threads(1).hardest().unwrap();
        let solved = Search::new(&klotski).threads(1).solve().unwrap();
        let truth = reference::level_sizes(&klotski);
        assert_eq!(reference::level_sizes(&wide), truth, "the oracle");
        // A path is checked move by move: the smallest predecessor is the
        // smallest wide key, not the smallest narrow one.
        let check_path = |path: &[crate::engine::Wide<2>], what: &str| {
            assert_eq!(path.len(), solved.path.as_ref().unwrap().len(), "{what}");
            assert_eq!(path[0], wide.start(), "{what}");
            let mut state = wide.new_state();
            let mut next = Vec::new();
            for step in path.windows(2) {
                wide.decode(step[0], &mut state);
                next.clear();
                wide.successors(&mut state, &mut next);
                assert!(next.contains(&step[1]), "{what}: not a move");
            }
            wide.decode(*path.last().unwrap(), &mut state);
            assert!(wide.is_goal(&state), "{what}: no goal at the end");
        };
        let scratch = Scratch::new("wide");
        // Where the levels are: on disk, in memory as coded runs (frontier
        // search's default), or in memory as keys.
        #[derive(Clone, Copy, Debug, PartialEq)]
        enum Levels {
            Disk,
            Coded,
            Plain,
        }
        for (n, kind, levels) in [1, 2, 3]
            .into_iter()
            .flat_map(|n| [VisitedKind::Frontier, VisitedKind::DashMap].map(|k| (n, k)))
            .flat_map(|(n, k)| [Levels::Disk, Levels::Coded, Levels::Plain].map(|d| (n, k, d)))
            // Levels on disk or coded take frontier search (a hash set is
            // the memory store's).
            .filter(|&(_, k, d)| d == Levels::Plain || k == VisitedKind::Frontier)
        {
            {
                let what = format!("{kind:?} on {n}, levels {levels:?}");
                let dir = scratch.0.join(format!("{n}-{kind:?}"));
                let all = on(n, |peers| {
                    let search = || {
                        let search = Search::new(&wide).threads(2).visited(kind).peers(peers);
                        match levels {
                            // Level files of a few blocks each.
                            Levels::Disk => {
                                search.spill(Spill::new(&dir).candidate_budget(Some(1 << 14)))
                            }
                            Levels::Coded => search,
                            Levels::Plain => search.coded_levels(false),
                        }
                    };
                    (
                        search().count().unwrap(),
                        search().solve().unwrap(),
                        search().hardest().unwrap(),
                        search().max_depth(Some(40)).count().unwrap(),
                    )
                });
                for (count, solve, hardest, shallow) in all {
                    assert_eq!(count.visited, kind, "{what}: the store asked for");
                    // Coded levels say what a state cost in them; others
                    // do not. (Widened keys are random in their high
                    // word, and klotski's levels are thin: blocks of a
                    // few keys, whose headers weigh. The 3x3x3's levels
                    // cost 5.6 bytes a state: tests/integration/twisty.rs.)
                    let coded = count.coded_bytes_per_state;
                    match levels {
                        Levels::Coded => assert!(coded.is_some_and(|b| b > 0.0), "{what}"),
                        _ => assert_eq!(coded, None, "{what}"),
                    }
                    assert_eq!(count.disk.is_some(), levels == Levels::Disk, "{what}");
                    assert_eq!(
                        count.store.contains("coded runs"),
                        levels == Levels::Coded,
                        "{what}: {}",
                        count.store
                    );
                    assert_eq!(count.levels, truth, "{what}");
                    assert!(count.is_complete(), "{what}");
                    assert_eq!(shallow.levels, truth[..41], "{what}: to depth 40");
                    assert_eq!(solve.report.levels, solved.report.levels, "{what}");
                    check_path(solve.path.as_deref().expect("solvable"), &what);
                    assert_eq!(hardest.component, narrow.component, "{what}");
                    assert_eq!(hardest.goal_states, narrow.goal_states, "{what}");
                    assert_eq!(hardest.distance, narrow.distance, "{what}");
                    assert_eq!(hardest.start_distance, narrow.start_distance, "{what}");
                    let mut positions: Vec<u64> = hardest
                        .positions
                        .iter()
                        .map(|&k| {
                            Widened::<'_, crate::puzzles::sliding::SlidingPuzzle, 2>::narrow(k)
                        })
                        .collect();
                    positions.sort_unstable();
                    assert_eq!(positions, narrow.positions, "{what}");
                }
            }
        }
        // Wide keys take no array store: a clear refusal.
        for (search, why) in [
            (
                Search::new(&wide).visited(VisitedKind::Bitmap),
                "keys are over 64 bits",
            ),
            (
                Search::new(&wide).visited(VisitedKind::Dense),
                "keys are over 64 bits",
            ),
        ] {
            let e = search.count().unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
    }

    #[test]
    fn hardest_and_solve_on_several_processes_are_those_of_one() {
        let klotski = builtin::sliding("klotski").unwrap();
        let scratch = Scratch::new("solve");
        for kind in [VisitedKind::Frontier, VisitedKind::Dense] {
            let one = Search::new(&klotski)
                .threads(1)
                .visited(kind)
                .hardest()
                .unwrap();
            assert_eq!(
                (
                    one.component,
                    one.goal_states,
                    one.distance,
                    one.start_distance
                ),
                (25955, 964, 126, Some(116))
            );
            for n in [2, 3] {
                let all = on(n, |peers| {
                    let search = Search::new(&klotski).threads(1).visited(kind);
                    search.peers(peers).hardest().unwrap()
                });
                for h in all {
                    let what = format!("{kind:?} on {n}");
                    assert_eq!(h.component, one.component, "{what}");
                    assert_eq!(h.goal_states, one.goal_states, "{what}");
                    assert_eq!(h.start_distance, one.start_distance, "{what}");
                    assert_eq!(h.distance, one.distance, "{what}");
                    assert_eq!(h.positions, one.positions, "{what}");
                    assert_eq!(h.report.levels, one.report.levels, "{what}");
                }
            }
        }
        let one = Search::new(&klotski).threads(1).solve().unwrap();
        let path = one.path.clone().expect("klotski is solvable");
        assert_eq!(path.len(), 117);
        for n in [2, 3] {
            for on_disk in [false, true] {
                let dir = scratch.0.join(format!("solve-{n}"));
                let all = on(n, |peers| {
                    let search = Search::new(&klotski).threads(2);
                    let search = match on_disk {
                        true => search.spill(Spill::new(&dir)),
                        false => search,
                    };
                    search.peers(peers).solve().unwrap()
                });
                for s in all {
                    assert_eq!(s.path.as_ref(), Some(&path), "on disk {on_disk}, {n}");
                    assert_eq!(s.report.levels, one.report.levels);
                }
            }
            // The dense store keeps each key's depth mod 3 and walks back
            // through it: the same smallest predecessor at every step, over
            // every process's share; and finds the goal at the same depth.
            let all = on(n, |peers| {
                let search = Search::new(&klotski).threads(2).visited(VisitedKind::Dense);
                let found = search.peers(peers).find_goal().unwrap();
                let search = Search::new(&klotski).threads(2).visited(VisitedKind::Dense);
                (found, search.peers(peers).solve().unwrap())
            });
            for (found, s) in all {
                assert_eq!(s.report.visited, VisitedKind::Dense);
                assert_eq!(s.path.as_ref(), Some(&path), "dense on {n}");
                assert_eq!(s.report.levels, one.report.levels);
                assert_eq!(found.levels, one.report.levels, "dense find on {n}");
            }
        }
    }
}
