//! Sliding-tile puzzles with dense ranks (`tiles-RxC`), and the dense
//! store that counts them: every level against the sequential oracle, the
//! generic sliding-block model of the same board, every other store and
//! the published 2x7 histogram.

use reach::engine::{
    Checkpoint, Model, Outcome, Search, SearchError, Spill, VisitedKind, Wide, reference,
};
use reach::puzzles::sliding::SlidingPuzzle;
use reach::puzzles::tiles::{TileState, Tiles};

use crate::spill::TempDir;

/// The same board as a sliding-block puzzle file: tiles 1.. in reading
/// order, the blank last.
fn as_sliding(rows: usize, cols: usize) -> SlidingPuzzle {
    let mut board = String::new();
    for cell in 0..rows * cols {
        board.push(if cell + 1 == rows * cols {
            '.'
        } else {
            char::from_digit(cell as u32 + 1, 36)
                .unwrap()
                .to_ascii_uppercase()
        });
        if cell % cols == cols - 1 {
            board.push('\n');
        }
    }
    let text = format!("name = \"t\"\ndistinct = \"*\"\nboard = \"\"\"\n{board}\"\"\"\n");
    SlidingPuzzle::from_toml(&text, "t").unwrap()
}

fn levels(t: &Tiles, kind: VisitedKind, threads: usize) -> Vec<u64> {
    let r = Search::new(t)
        .visited(kind)
        .threads(threads)
        .count()
        .unwrap();
    assert_eq!(r.visited, kind, "{}", t.name());
    r.levels
}

#[test]
fn every_store_counts_the_oracle_s_levels() {
    for (rows, cols) in [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (2, 5)] {
        let t = Tiles::new(rows, cols).unwrap();
        let oracle = reference::level_sizes(&t);
        // The generic model of the same board: an independent ranking.
        assert_eq!(
            reference::level_sizes(&as_sliding(rows, cols)),
            oracle,
            "{rows}x{cols}: the sliding-block model disagrees"
        );
        let all: u64 = oracle.iter().sum();
        assert_eq!(
            all * 2,
            (1..=(rows * cols) as u64).product::<u64>(),
            "{rows}x{cols}: n!/2 states"
        );
        for threads in [1, 2, 3] {
            for kind in [
                VisitedKind::Dense,
                VisitedKind::Frontier,
                VisitedKind::Bitmap,
            ] {
                assert_eq!(
                    levels(&t, kind, threads),
                    oracle,
                    "{rows}x{cols} {kind:?} {threads} threads"
                );
            }
        }
    }
}

/// The dense store settles the moves to a neighbouring key a word at a
/// time when the model names them (the tile puzzles do), and one by one
/// when it does not: the same levels, the oracle's, at any thread count.
#[test]
fn the_dense_store_counts_the_same_with_and_without_adjacent_keys() {
    for (rows, cols) in [(2, 3), (3, 3), (2, 5), (5, 2)] {
        let t = Tiles::new(rows, cols).unwrap();
        assert!(t.adjacent_keys().is_some());
        let oracle = reference::level_sizes(&t);
        let plain = Wrapped::new(t.clone()).one_by_one();
        assert!(plain.adjacent_keys().is_none());
        for threads in [1, 2, 3] {
            let run = Search::new(&plain)
                .visited(VisitedKind::Dense)
                .threads(threads)
                .count()
                .unwrap();
            assert_eq!(run.visited, VisitedKind::Dense);
            assert_eq!(
                run.levels, oracle,
                "{rows}x{cols}, {threads} threads, one by one"
            );
            assert_eq!(levels(&t, VisitedKind::Dense, threads), oracle);
        }
    }
}

/// A tile puzzle that counts its decodes, with its moves to neighbouring
/// keys (or not: the dense store then looks every successor up one at a
/// time), its far moves said to pair keys up (or not), and goals of our
/// choosing.
struct Wrapped {
    tiles: Tiles,
    adjacent: bool,
    one_far: bool,
    goals: Vec<u64>,
    decodes: std::sync::atomic::AtomicU64,
}

impl Wrapped {
    fn new(tiles: Tiles) -> Wrapped {
        Wrapped {
            tiles,
            adjacent: true,
            one_far: true,
            goals: Vec::new(),
            decodes: std::sync::atomic::AtomicU64::new(0),
        }
    }

    fn one_by_one(self) -> Wrapped {
        Wrapped {
            adjacent: false,
            ..self
        }
    }

    fn one_far(self, one_far: bool) -> Wrapped {
        Wrapped { one_far, ..self }
    }

    fn goals(self, goals: Vec<u64>) -> Wrapped {
        Wrapped { goals, ..self }
    }

    /// The decodes since the last call.
    fn decodes(&self) -> u64 {
        self.decodes.swap(0, std::sync::atomic::Ordering::Relaxed)
    }
}

impl Model for Wrapped {
    type State = (TileState, u64);
    type Key = u64;
    fn start(&self) -> u64 {
        self.tiles.start()
    }
    fn key_space(&self) -> u64 {
        self.tiles.key_space()
    }
    fn new_state(&self) -> (TileState, u64) {
        (self.tiles.new_state(), 0)
    }
    fn decode(&self, key: u64, state: &mut (TileState, u64)) {
        self.decodes
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.tiles.decode(key, &mut state.0);
        state.1 = key;
    }
    fn successors(&self, state: &mut (TileState, u64), out: &mut Vec<u64>) {
        self.tiles.successors(&mut state.0, out)
    }
    fn far_successors(&self, state: &mut (TileState, u64), out: &mut Vec<u64>) {
        self.tiles.far_successors(&mut state.0, out)
    }
    fn adjacent_keys(&self) -> Option<reach::engine::AdjacentKeys> {
        let keys = self.tiles.adjacent_keys().filter(|_| self.adjacent)?;
        Some(reach::engine::AdjacentKeys {
            one_far: self.one_far && keys.one_far,
            ..keys
        })
    }
    fn is_goal(&self, state: &(TileState, u64)) -> bool {
        self.goals.contains(&state.1)
    }
    fn has_goal(&self) -> bool {
        !self.goals.is_empty()
    }
    fn reversible(&self) -> bool {
        true
    }
    fn bipartite(&self) -> bool {
        true
    }
    fn dense(&self) -> bool {
        true
    }
}

/// On a board of two rows the dense store tells levels apart by the
/// blank's colour and marks a key reached by its vertical move: such a key
/// is not decoded, its one vertical move leads back. Each vertical move is
/// then looked up from the lower of its levels only: a count decodes half
/// the states (every state has one vertical move), against every state
/// without the marks (or with three rows), and counts the same.
#[test]
fn the_dense_store_decodes_half_the_states_of_a_two_row_board() {
    for (rows, cols, one_far, share) in [
        (2, 5, true, 2),
        (2, 5, false, 1),
        (5, 2, true, 1),
        (3, 3, true, 1),
    ] {
        let t = Tiles::new(rows, cols).unwrap();
        let oracle = reference::level_sizes(&t);
        let states: u64 = oracle.iter().sum();
        let m = Wrapped::new(t).one_far(one_far);
        for threads in [1, 2] {
            let run = Search::new(&m)
                .visited(VisitedKind::Dense)
                .threads(threads)
                .count()
                .unwrap();
            assert_eq!(run.levels, oracle, "{rows}x{cols} {one_far} {threads}");
            assert_eq!(
                m.decodes(),
                states / share,
                "{rows}x{cols}, one far move {one_far}, {threads} threads"
            );
        }
    }
}

/// Goals of both colours: the levels from them mix colours, and the dense
/// store tells them apart by label instead; the hardest positions are the
/// frontier store's.
#[test]
fn the_dense_store_finds_the_hardest_positions_from_goals_of_both_colours() {
    let t = Tiles::new(2, 4).unwrap();
    let goal = t.start();
    // The start's blank is in a corner: the key above it has its blank one
    // cell along, the other colour.
    let m = Wrapped::new(t.clone()).goals(vec![goal, goal - 1]);
    let one = Wrapped::new(t).goals(vec![goal]);
    for threads in [1, 2] {
        let run = |m: &Wrapped, kind| {
            Search::new(m)
                .visited(kind)
                .threads(threads)
                .hardest()
                .unwrap()
        };
        for model in [&m, &one] {
            let (dense, frontier) = (
                run(model, VisitedKind::Dense),
                run(model, VisitedKind::Frontier),
            );
            assert_eq!(dense.report.visited, VisitedKind::Dense);
            assert_eq!(dense.report.levels, frontier.report.levels);
            assert_eq!(dense.distance, frontier.distance);
            assert_eq!(dense.positions, frontier.positions);
            assert_eq!(dense.start_distance, frontier.start_distance);
        }
        assert_eq!(run(&m, VisitedKind::Dense).goal_states, 2);
    }
}

#[test]
fn the_dense_store_reports_the_antipodes() {
    let t = Tiles::new(2, 5).unwrap();
    let dense = Search::new(&t)
        .visited(VisitedKind::Dense)
        .threads(2)
        .count()
        .unwrap();
    let frontier = Search::new(&t)
        .visited(VisitedKind::Frontier)
        .threads(2)
        .count()
        .unwrap();
    assert_eq!(dense.depth(), 55);
    assert_eq!(dense.last_level.len(), 2);
    assert_eq!(dense.last_level, frontier.last_level);
}

#[test]
fn the_dense_store_stops_at_limits_like_the_others() {
    let t = Tiles::new(3, 3).unwrap();
    for (depth, states) in [(Some(20), None), (None, Some(50_000))] {
        let run = |kind| {
            Search::new(&t)
                .visited(kind)
                .threads(2)
                .max_depth(depth)
                .max_states(states)
                .count()
                .unwrap()
        };
        let (dense, frontier) = (run(VisitedKind::Dense), run(VisitedKind::Frontier));
        assert!(matches!(dense.outcome, Outcome::Stopped(_)));
        assert_eq!(dense.levels, frontier.levels);
        assert_eq!(dense.outcome, frontier.outcome);
    }
    // A depth limit at the true depth cuts nothing short.
    let r = Search::new(&t)
        .visited(VisitedKind::Dense)
        .max_depth(Some(31))
        .count()
        .unwrap();
    assert_eq!(r.outcome, Outcome::Complete);
}

#[test]
fn the_dense_store_refuses_what_it_cannot_keep() {
    let t = Tiles::new(2, 3).unwrap();
    let dir = TempDir::new("dense-spill");
    let spilled = Search::new(&t)
        .visited(VisitedKind::Dense)
        .spill(Spill::new(dir.0.join("levels")).keep(true))
        .count();
    assert!(
        matches!(spilled, Err(SearchError::DenseUnsupported(_))),
        "{spilled:?}"
    );
    let slid = as_sliding(2, 3);
    let solved = Search::new(&slid).visited(VisitedKind::Dense).solve();
    assert!(matches!(
        solved,
        Err(SearchError::DenseUnsupported(_) | SearchError::NoGoal)
    ));
    let small = Search::new(&t)
        .visited(VisitedKind::Dense)
        .memory_limit(Some(1))
        .count();
    assert!(
        matches!(small, Err(SearchError::DenseTooLarge { .. })),
        "{small:?}"
    );
}

#[test]
fn the_dense_store_s_checkpoint_resumes_to_the_oracle_s_levels_from_any_depth() {
    // Stopped at every depth, resumed (at another thread count), stopped
    // again two levels on, resumed to the end: the oracle's levels, with
    // the dense store all along and nothing left behind.
    let t = Tiles::new(3, 3).unwrap();
    let oracle = reference::level_sizes(&t);
    let dir = TempDir::new("dense-checkpoint");
    for stop in 0..oracle.len() as u32 {
        for threads in [1, 2] {
            let cp = dir.0.join(format!("cp-{stop}-{threads}"));
            let first = Search::new(&t)
                .threads(threads)
                .max_depth(Some(stop))
                .spill(Spill::new(&cp).checkpoint(true))
                .count()
                .unwrap();
            assert_eq!(first.visited, VisitedKind::Dense);
            if first.is_complete() {
                assert_eq!(first.levels, oracle);
                assert!(!cp.exists(), "a complete search removes its checkpoint");
                continue;
            }
            assert_eq!(first.levels[..], oracle[..=stop as usize]);
            // A short search saves every level.
            assert_eq!(Checkpoint::open(&cp).unwrap().depth(), stop);
            let again = Search::new(&t)
                .threads(3 - threads)
                .max_depth(Some(stop + 2))
                .resume(&Checkpoint::open(&cp).unwrap())
                .unwrap()
                .report;
            assert_eq!(again.visited, VisitedKind::Dense);
            let upto = (stop as usize + 2).min(oracle.len() - 1);
            assert_eq!(again.levels[..], oracle[..=upto], "stopped at {stop}");
            let report = match Checkpoint::open(&cp) {
                Ok(c) => Search::new(&t).threads(threads).resume(&c).unwrap().report,
                Err(_) => again,
            };
            assert_eq!(
                report.levels, oracle,
                "stopped at {stop}, {threads} threads"
            );
            assert!(report.is_complete());
            assert!(!cp.exists(), "stopped at {stop}: the checkpoint is removed");
        }
    }
}

#[test]
fn the_2x7_puzzle_s_first_levels_are_the_published_ones() {
    let published: Vec<u64> = include_str!("../data/tiles-2x7-levels.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(published.len(), 109);
    assert_eq!(published.iter().sum::<u64>(), 43_589_145_600);
    let t = Tiles::new(2, 7).unwrap();
    // Frontier search in memory: the dense store would touch most of its
    // 10 GiB even for these few states (scripts/big-run.sh --quick runs it).
    let r = Search::new(&t)
        .visited(VisitedKind::Frontier)
        .threads(2)
        .max_depth(Some(30))
        .count()
        .unwrap();
    assert_eq!(r.levels, published[..31]);
}

#[test]
fn the_dense_store_finds_goals_like_the_others() {
    // Klotski has a goal (and sparse keys: the dense store only on request).
    let p = reach::puzzles::builtin::sliding("klotski").unwrap();
    for threads in [1, 2] {
        let find = |kind| {
            Search::new(&p)
                .visited(kind)
                .threads(threads)
                .find_goal()
                .unwrap()
        };
        let (dense, frontier) = (find(VisitedKind::Dense), find(VisitedKind::Frontier));
        assert!(
            matches!(dense.outcome, Outcome::Goal { .. }),
            "{:?}",
            dense.outcome
        );
        assert_eq!(dense.outcome, frontier.outcome);
        assert_eq!(dense.levels, frontier.levels);
        // The same with the array on disk, in segments of one block.
        let dir = TempDir::new("dense-goal-on-disk");
        let on_disk = Search::new(&p)
            .visited(VisitedKind::Dense)
            .threads(threads)
            .spill(Spill::new(dir.0.join("d")))
            .dense_segment_bytes(Some(1 << 15))
            .find_goal()
            .unwrap();
        assert_eq!(on_disk.visited, VisitedKind::Dense);
        assert_eq!(on_disk.outcome, frontier.outcome);
        assert_eq!(on_disk.levels, frontier.levels);
        assert!(!dir.0.join("d").exists());
    }
}

#[test]
fn the_dense_store_on_disk_counts_the_oracle_s_levels_at_any_segment_size() {
    // The 2x5 puzzle's array is 14 blocks of 32 KiB: in segments of 1 to
    // 14 blocks, one in memory at a time, at 1 to 3 threads, every level
    // and the antipodes are the oracle's and the in-memory store's, and
    // the files go when the search ends.
    let t = Tiles::new(2, 5).unwrap();
    let oracle = reference::level_sizes(&t);
    let in_memory = Search::new(&t)
        .visited(VisitedKind::Dense)
        .threads(2)
        .count()
        .unwrap();
    assert_eq!(in_memory.levels, oracle);
    let dir = TempDir::new("dense-on-disk");
    for blocks in [1u64, 2, 3, 5, 13, 14] {
        for threads in [1, 2, 3] {
            let spill = dir.0.join(format!("s-{blocks}-{threads}"));
            let r = Search::new(&t)
                .threads(threads)
                .spill(Spill::new(&spill))
                .dense_segment_bytes(Some(blocks << 15))
                .count()
                .unwrap();
            let what = format!("segments of {blocks} blocks, {threads} threads");
            assert_eq!(r.visited, VisitedKind::Dense, "{what}");
            assert_eq!(r.levels, oracle, "{what}");
            assert_eq!(r.last_level, in_memory.last_level, "{what}");
            let disk = r.disk.expect("the array was on disk");
            assert!(disk.written_bytes > 0, "{what}");
            assert!(!spill.exists(), "{what}: the files are removed");
        }
    }
}

#[test]
fn the_dense_store_on_disk_stops_at_limits_and_faults_like_in_memory() {
    let t = Tiles::new(3, 3).unwrap();
    let oracle = reference::level_sizes(&t);
    let dir = TempDir::new("dense-on-disk-limits");
    let on_disk = |name: &str| {
        Search::new(&t)
            .threads(2)
            .spill(Spill::new(dir.0.join(name)))
            .dense_segment_bytes(Some(1 << 15))
    };
    for (depth, states) in [(Some(20), None), (None, Some(50_000)), (Some(31), None)] {
        let disk = on_disk("limits")
            .max_depth(depth)
            .max_states(states)
            .count()
            .unwrap();
        let memory = Search::new(&t)
            .visited(VisitedKind::Dense)
            .threads(2)
            .max_depth(depth)
            .max_states(states)
            .count()
            .unwrap();
        assert_eq!(disk.visited, VisitedKind::Dense);
        assert_eq!(disk.levels, memory.levels, "{depth:?} {states:?}");
        assert_eq!(disk.outcome, memory.outcome, "{depth:?} {states:?}");
    }
    // A full disk ends the search with the levels completed before it, for
    // every budget from the first byte to past what the search needs.
    let mut stopped = 0;
    for budget in (0..40).map(|i| i * 6_000) {
        let r = match on_disk("full")
            .spill(Spill::new(dir.0.join("full")).fail_after_bytes(Some(budget)))
            .count()
        {
            Ok(r) => r,
            // Level 0 could not be written.
            Err(SearchError::Spill(reach::engine::SpillError::Io { source, .. })) => {
                assert_eq!(source.kind(), std::io::ErrorKind::StorageFull);
                let left = std::fs::read_dir(dir.0.join("full"))
                    .map(|d| d.map(|e| e.unwrap().file_name()).collect::<Vec<_>>());
                assert!(left.is_err(), "budget {budget}: left {left:?}");
                continue;
            }
            Err(e) => panic!("budget {budget}: {e}"),
        };
        assert_eq!(r.levels[..], oracle[..r.levels.len()], "budget {budget}");
        if !r.is_complete() {
            stopped += 1;
            assert!(
                matches!(
                    &r.outcome,
                    Outcome::Stopped(reach::engine::StopReason::Storage(_))
                ),
                "budget {budget}: {:?}",
                r.outcome
            );
        }
        assert!(!dir.0.join("full").exists(), "budget {budget}");
    }
    assert!(stopped > 0, "some budget is too small");
}

/// Levels to `depth` of an `rows` x `cols` board from solved, by a
/// breadth-first search over whole boards (no ranks at all).
fn board_levels(rows: usize, cols: usize, depth: usize) -> Vec<u64> {
    let n = rows * cols;
    levels_of_boards((1..n as u8).chain([0]).collect(), cols, depth)
}

/// Levels to `depth` from `start`, a board of `cols` columns in reading
/// order (0 for an empty cell, any other value a tile), each move a tile
/// stepping into an empty cell beside it: a breadth-first search over
/// whole boards, with no ranks or keys.
pub(crate) fn levels_of_boards(start: Vec<u8>, cols: usize, depth: usize) -> Vec<u64> {
    use std::collections::HashSet;
    let rows = start.len() / cols;
    let mut seen = HashSet::from([start.clone()]);
    let mut frontier = vec![start];
    let mut levels = vec![1];
    while levels.len() <= depth {
        let mut next = Vec::new();
        for b in &frontier {
            for blank in (0..b.len()).filter(|&i| b[i] == 0) {
                let (r, c) = (blank / cols, blank % cols);
                let mut to = Vec::new();
                if r > 0 {
                    to.push(blank - cols);
                }
                if r + 1 < rows {
                    to.push(blank + cols);
                }
                if c > 0 {
                    to.push(blank - 1);
                }
                if c + 1 < cols {
                    to.push(blank + 1);
                }
                for t in to.into_iter().filter(|&t| b[t] != 0) {
                    let mut q = b.clone();
                    q.swap(blank, t);
                    if seen.insert(q.clone()) {
                        next.push(q);
                    }
                }
            }
        }
        levels.push(next.len() as u64);
        frontier = next;
    }
    levels
}

#[test]
fn boards_past_16_cells_count_to_a_depth_as_a_search_over_whole_boards() {
    use reach::puzzles::large_tiles::{LargeTiles, LargeTilesOf};
    for (rows, cols, depth) in [(5, 5, 14), (4, 5, 14), (3, 6, 14), (6, 6, 11)] {
        let truth = board_levels(rows, cols, depth);
        let t = LargeTiles::new(rows, cols).unwrap();
        let m3 = LargeTilesOf::<Wide<3>>::new(&t).unwrap();
        for threads in [1, 3] {
            let r = Search::new(&m3)
                .threads(threads)
                .max_depth(Some(depth as u32))
                .count()
                .unwrap();
            assert_eq!(r.levels, truth, "{rows}x{cols}");
        }
        if t.words() <= 2 {
            let m2 = LargeTilesOf::<Wide<2>>::new(&t).unwrap();
            let r = Search::new(&m2)
                .threads(2)
                .max_depth(Some(depth as u32))
                .count()
                .unwrap();
            assert_eq!(r.levels, truth, "{rows}x{cols}");
        }
        if t.words() == 1 {
            // 20 cells and fewer: one word, every store that takes one.
            let m1 = LargeTilesOf::<u64>::new(&t).unwrap();
            for visited in [VisitedKind::Auto, VisitedKind::DashMap] {
                let r = Search::new(&m1)
                    .threads(2)
                    .visited(visited)
                    .max_depth(Some(depth as u32))
                    .count()
                    .unwrap();
                assert_eq!(r.levels, truth, "{rows}x{cols} by {visited:?}");
            }
        }
    }
    // The command line counts tiles-5x5 to a depth as asked.
    // (Exit 0: the table to the depth asked is the whole answer asked.)
    let out = crate::reach()
        .args(["count", "tiles-5x5", "--max-depth", "12", "--json"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["levels"], serde_json::json!(board_levels(5, 5, 12)));
    assert_eq!(v["complete"], false);
}

#[test]
fn the_24_puzzle_s_levels_are_oeis_a090031_in_memory_and_on_disk() {
    // A090031: the 5x5 puzzle's positions at each distance from the
    // solved board (blank in a corner). Depth 24 (585,974,720 positions)
    // is scripts' work (docs/big-searches.md); depth 17 here, in memory
    // and with its levels on disk.
    const A090031: [u64; 18] = [
        1, 2, 4, 10, 26, 64, 159, 366, 862, 1904, 4538, 10238, 24098, 53186, 123435, 268416,
        616374, 1326882,
    ];
    let dir = std::env::temp_dir().join(format!("reach-tiles5x5-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for spill in [None, Some(&dir)] {
        let mut cmd = crate::reach();
        cmd.args(["count", "tiles-5x5", "--max-depth", "17", "--json"]);
        if let Some(dir) = spill {
            cmd.arg("--spill").arg(dir);
        }
        let v = crate::json_out(&mut cmd);
        assert_eq!(v["levels"], serde_json::json!(A090031), "spill {spill:?}");
    }
    assert!(!dir.exists());
}
