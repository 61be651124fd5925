//! The dense store (two bits a key) wherever it serves: tile puzzles from
//! files at any start and with goals, twisty puzzles in every metric,
//! counts pushed, pulled and mixed, solves walked back through each key's
//! depth mod 3, `hardest`, the array on disk and checkpoints: each against
//! the sequential oracle and the stores that keep their levels as keys.

use reach::engine::{Checkpoint, Model, Outcome, Search, Spill, VisitedKind, reference};
use reach::puzzles::sliding::SlidingPuzzle;
use reach::puzzles::twisty::{Options, Twisty, TwistyMetric};

use crate::spill::TempDir;

/// A tile puzzle file of `board` (rows separated by `/`), with `goal` if
/// given.
fn tiles(board: &str, goal: Option<&str>) -> SlidingPuzzle {
    let rows = |b: &str| b.replace('/', "\n");
    let mut toml = format!(
        "distinct = \"*\"\nboard = \"\"\"\n{}\n\"\"\"\n",
        rows(board)
    );
    if let Some(g) = goal {
        toml.push_str(&format!("goal = \"\"\"\n{}\n\"\"\"\n", rows(g)));
    }
    SlidingPuzzle::from_toml(&toml, "tiles.toml").unwrap()
}

/// The levels of a complete count of `model` with `kind`, pulling when
/// the unseen keys are at most `pull` times the newest level (`None`:
/// the store's own rule).
fn levels<M: Model>(model: &M, kind: VisitedKind, threads: usize, pull: Option<u64>) -> Vec<u64> {
    let r = Search::new(model)
        .threads(threads)
        .visited(kind)
        .dense_pull_ratio(pull)
        .count()
        .unwrap();
    assert_eq!(r.outcome, Outcome::Complete);
    if kind == VisitedKind::Dense {
        assert_eq!(r.visited, VisitedKind::Dense);
    }
    r.levels
}

/// Counts every way the dense store can (pushed, pulled wherever a level
/// is wider than the scan, its own mix; on one thread and three) against
/// `oracle`.
fn dense_counts_are<M: Model>(model: &M, oracle: &[u64], what: &str) {
    for (pull, threads) in [(Some(0), 1), (Some(u64::MAX), 3), (None, 1), (None, 3)] {
        assert_eq!(
            levels(model, VisitedKind::Dense, threads, pull),
            oracle,
            "{what}: dense, pull {pull:?}, {threads} threads"
        );
    }
}

/// A solve and `hardest` on the dense store give what the frontier store
/// gives: the same path (both take the smallest predecessor at each step
/// back), the same hardest positions and distances.
fn dense_solves_as_frontier<M: Model>(model: &M, what: &str) {
    let solve = |kind| Search::new(model).threads(2).visited(kind).solve().unwrap();
    let (dense, frontier) = (solve(VisitedKind::Dense), solve(VisitedKind::Frontier));
    assert_eq!(dense.report.visited, VisitedKind::Dense, "{what}");
    assert_eq!(dense.path, frontier.path, "{what}: solve");
    assert_eq!(dense.report.levels, frontier.report.levels, "{what}: solve");
    if let Some(path) = &dense.path {
        // Each step is a move of the model.
        let mut state = model.new_state();
        let mut out = Vec::new();
        for pair in path.windows(2) {
            model.decode(pair[0], &mut state);
            out.clear();
            model.successors(&mut state, &mut out);
            assert!(out.contains(&pair[1]), "{what}: a step that is no move");
        }
    }
    let hardest = |kind| {
        Search::new(model)
            .threads(2)
            .visited(kind)
            .hardest()
            .unwrap()
    };
    let (d, f) = (hardest(VisitedKind::Dense), hardest(VisitedKind::Frontier));
    assert_eq!(
        (d.component, d.goal_states, d.distance, d.start_distance),
        (f.component, f.goal_states, f.distance, f.start_distance),
        "{what}: hardest"
    );
    assert_eq!(d.positions, f.positions, "{what}: hardest positions");
    assert_eq!(
        d.report.levels, f.report.levels,
        "{what}: levels from the goals"
    );
}

#[test]
fn tile_files_from_any_start_and_with_goals_count_solve_and_find_the_hardest() {
    let cases = [
        // 3x3 from a scramble, to the solved board.
        ("8.6/543/217", Some("123/456/78.")),
        // 2x3 from solved, to the other parity's board: no solution.
        ("123/45.", Some("123/54.")),
        // 2x4, the blank in a corner and in the middle, goals of a few
        // tiles.
        (".abc/defg", Some("a.../...g")),
        ("abcd/e.fg", Some("g.../....")),
        // 4x2 and 2x3, whole goals.
        ("ab/cd/ef/g.", Some(".g/fe/dc/ba")),
        ("a.b/cde", Some("edc/ba.")),
    ];
    for (board, goal) in cases {
        let p = tiles(board, goal);
        assert!(p.dense() && p.keys_are_states(), "{board}: the tile model");
        let oracle = reference::level_sizes(&p);
        assert_eq!(oracle.iter().sum::<u64>(), p.key_space(), "{board}");
        dense_counts_are(&p, &oracle, board);
        assert_eq!(levels(&p, VisitedKind::Frontier, 2, None), oracle);
        dense_solves_as_frontier(&p, board);
    }
    // The 3x4 board (eleven's graph) from a scramble, to a depth: the
    // dense store against frontier search.
    let p = tiles("B1A/9.2/875/364", None);
    let to = |kind, pull| {
        Search::new(&p)
            .threads(2)
            .visited(kind)
            .dense_pull_ratio(pull)
            .max_depth(Some(22))
            .count()
            .unwrap()
            .levels
    };
    let frontier = to(VisitedKind::Frontier, None);
    assert_eq!(frontier.len(), 23);
    // (Pulled from the first level, each level would look at all 120
    // million keys of its colour.)
    for pull in [Some(0), None] {
        assert_eq!(to(VisitedKind::Dense, pull), frontier, "3x4 pull {pull:?}");
    }
}

#[test]
fn twisty_files_count_and_solve_on_the_dense_store_in_every_metric() {
    let path = |f: &str| format!("{}/tests/data/{f}", env!("CARGO_MANIFEST_DIR"));
    let all = [TwistyMetric::Htm, TwistyMetric::Qtm, TwistyMetric::Moves];
    for (file, moves, metrics) in [
        ("cube2.tws", Some("U,F,R"), &all[..1]),
        ("cube2.tws", Some("U,R"), &all[..]),
        ("cube2.kpuzzle.json", Some("U,R"), &all[..1]),
        ("twists.tws", None, &all[..]),
        ("clocks.tws", None, &all[..]),
    ] {
        let def = Twisty::from_path(std::path::Path::new(&path(file))).unwrap();
        for &metric in metrics {
            let options = |scramble: Option<&str>| Options {
                metric,
                moves: moves.map(|m| m.split(',').map(String::from).collect()),
                scramble: scramble.map(String::from),
            };
            let t = Twisty::new(def.clone(), &options(None)).unwrap();
            let what = format!("{file} {}", metric.name());
            let oracle = reference::level_sizes(&t);
            if t.reversible() {
                dense_counts_are(&t, &oracle, &what);
            } else {
                // A directed graph: pushed only.
                assert!(!t.keys_are_states(), "{what}");
                assert_eq!(levels(&t, VisitedKind::Dense, 2, None), oracle, "{what}");
            }
            // From the farthest position back to solved.
            let far = *Search::new(&t)
                .visited(VisitedKind::Frontier)
                .threads(1)
                .max_depth(None)
                .count()
                .map(|r| r.last_level)
                .unwrap_or_default()
                .first()
                .unwrap_or(&t.start());
            if t.reversible() && (metric == TwistyMetric::Htm || t.key_space() < 1 << 20) {
                let mut def = def.clone();
                def.scramble = Some(t.pattern(far));
                let from_far = Twisty::new(def, &options(None)).unwrap();
                dense_solves_as_frontier(&from_far, &format!("{what} from far"));
            }
        }
    }
}

/// Ten distinct pieces moved by 3-cycles (a dino cube of ten edges): the
/// even arrangements, 10!/2, one coordinate too large for a move table
/// (its twelve moves would take 21.8 million entries), so moved and
/// ranked in lanes, and every key a position: pushed and pulled.
#[test]
fn an_arrangement_of_ten_pieces_counts_in_lanes_pushed_and_pulled() {
    let cycles = [
        [1, 2, 3],
        [3, 4, 5],
        [5, 6, 7],
        [7, 8, 9],
        [9, 10, 1],
        [2, 5, 8],
    ];
    let mut text = String::from("Name Ten\nSet P 10 1\nSolved\nP\n");
    text += "1 2 3 4 5 6 7 8 9 10\n0 0 0 0 0 0 0 0 0 0\nEnd\n";
    for (m, c) in cycles.iter().enumerate() {
        let mut perm: Vec<usize> = (1..=10).collect();
        // The piece at c[0] comes from c[2], at c[1] from c[0], at c[2]
        // from c[1].
        perm[c[0] - 1] = c[2];
        perm[c[1] - 1] = c[0];
        perm[c[2] - 1] = c[1];
        let perm: Vec<String> = perm.iter().map(|p| p.to_string()).collect();
        text += &format!(
            "Move M{m}\nP\n{}\n0 0 0 0 0 0 0 0 0 0\nEnd\n",
            perm.join(" ")
        );
    }
    let def = Twisty::parse(&text, "ten.tws").unwrap();
    let options = Options {
        metric: TwistyMetric::Htm,
        moves: None,
        scramble: None,
    };
    let t = Twisty::new(def, &options).unwrap();
    let coord = &t.coords()[0];
    assert_eq!(t.coords().len(), 1);
    assert!(coord.table.is_none() && coord.lanes.is_some());
    assert_eq!(t.key_space(), 1_814_400);
    assert!(t.keys_are_states());
    let oracle = reference::level_sizes(&t);
    assert_eq!(oracle.iter().sum::<u64>(), 1_814_400);
    dense_counts_are(&t, &oracle, "ten pieces");
}

#[test]
fn the_group_order_is_the_number_of_positions_of_distinct_pieces() {
    let path = |f: &str| format!("{}/tests/data/{f}", env!("CARGO_MANIFEST_DIR"));
    let def = Twisty::from_path(std::path::Path::new(&path("cube2.tws"))).unwrap();
    let options = |moves: Option<&str>| Options {
        metric: TwistyMetric::Htm,
        moves: moves.map(|m| m.split(',').map(String::from).collect()),
        scramble: None,
    };
    let all = Twisty::new(def.clone(), &options(None)).unwrap();
    assert_eq!(all.group_order(), Some(88_179_840));
    let urf = Twisty::new(def.clone(), &options(Some("U,F,R"))).unwrap();
    assert_eq!(urf.group_order(), Some(3_674_160));
    // Two faces: a subgroup of 29160 positions in 6! x 3^5 keys, one in
    // six: still dense enough for two bits a key.
    let ur = Twisty::new(def, &options(Some("U,R"))).unwrap();
    assert_eq!(ur.group_order(), Some(29_160));
    assert_eq!(ur.key_space(), 174_960);
    assert_eq!(reference::level_sizes(&ur).iter().sum::<u64>(), 29_160);
    assert!(all.dense() && urf.dense() && ur.dense());
    // 48 positions in 2592 keys: not.
    let twists = Twisty::from_path(std::path::Path::new(&path("twists.tws"))).unwrap();
    let twists = Twisty::new(twists, &options(None)).unwrap();
    assert_eq!(twists.group_order(), Some(48));
    assert!(!twists.dense());
}

#[test]
fn the_dense_array_on_disk_and_checkpoints_resume_to_the_same_levels() {
    let p = tiles("a.b/cde/fgh", None);
    let oracle = reference::level_sizes(&p);
    let dir = TempDir::new("dense-files");
    // On disk in segments of one and of four blocks.
    for blocks in [1, 4] {
        let r = Search::new(&p)
            .threads(2)
            .visited(VisitedKind::Dense)
            .dense_segment_bytes(Some(blocks * 32768))
            .spill(Spill::new(dir.path().join(format!("segments-{blocks}"))))
            .count()
            .unwrap();
        assert_eq!((r.levels, r.visited), (oracle.clone(), VisitedKind::Dense));
    }
    // Stopped at a depth, resumed: the same levels.
    let ck = dir.path().join("ck");
    let stopped = Search::new(&p)
        .threads(2)
        .max_depth(Some(12))
        .spill(Spill::new(&ck).checkpoint(true))
        .count()
        .unwrap();
    assert_eq!(stopped.visited, VisitedKind::Dense);
    assert!(!stopped.is_complete());
    let cp = Checkpoint::open(&ck).unwrap();
    let resumed = Search::new(&p).threads(2).resume(&cp).unwrap();
    assert_eq!(resumed.report.levels, oracle);
}
