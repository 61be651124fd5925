//! Sliding-block puzzles: published figures, solutions replayed by an
//! independent checker, and the puzzle-file reader's errors.

use proptest::prelude::*;
use reach::engine::{Model, Outcome, Search, VisitedKind, reference};
use reach::puzzles::builtin;
use reach::puzzles::sliding::{Metric, SlidingPuzzle, Step, WideSliding};

use crate::replay::{self, Rules};

fn count(name: &str, metric: Metric, threads: usize) -> reach::engine::Report {
    let p = builtin::sliding(name).unwrap().with_metric(metric);
    Search::new(&p).threads(threads).count().unwrap()
}

#[test]
fn published_counts_and_depths() {
    // (puzzle, states, depth in steps, slides, piece moves)
    let figures: &[(&str, u64, Option<[u32; 3]>)] = &[
        ("pe766-example", 208, None),
        ("klotski", 25_955, Some([167, 133, 124])),
        ("rush-hour", 24_132, None),
        ("mas", 110_804, Some([124, 92, 82])),
        ("eight", 181_440, None),
    ];
    for &(name, states, depths) in figures {
        for (i, metric) in [Metric::Step, Metric::Slide, Metric::Piece]
            .into_iter()
            .enumerate()
        {
            for threads in [1, 2] {
                let r = count(name, metric, threads);
                assert_eq!(r.states(), states, "{name} {metric:?}");
                if let Some(d) = depths {
                    assert_eq!(r.depth(), d[i], "{name} {metric:?} depth");
                }
            }
        }
    }
}

#[test]
fn eight_puzzle_profile() {
    let published = [
        1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529,
        10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
    ];
    for threads in [1, 2, 4] {
        let r = count("eight", Metric::Step, threads);
        assert_eq!(r.levels, published);
        assert_eq!(r.last_level.len(), 2, "2 antipodes");
    }
}

fn solve(name: &str, metric: Metric, threads: usize) -> (SlidingPuzzle, Vec<Step>) {
    let p = builtin::sliding(name).unwrap().with_metric(metric);
    let s = Search::new(&p).threads(threads).solve().unwrap();
    let path = s.path.expect("a solution");
    assert!(matches!(s.report.outcome, Outcome::Goal { .. }));
    let steps = p.steps(&path);
    assert_eq!(steps.len() as u32, s.report.depth());
    (p, steps)
}

fn as_moves(steps: &[Step]) -> Vec<(char, Vec<String>)> {
    steps
        .iter()
        .map(|s| {
            (
                s.mv.piece,
                s.mv.path.iter().map(|d| d.name().to_string()).collect(),
            )
        })
        .collect()
}

pub(crate) const KLOTSKI: Rules = Rules {
    board: "ABBC\nABBC\nDEEF\nDGHF\nI..J",
    horizontal: "",
    vertical: "",
    goal: "....\n....\n....\n.BB.\n.BB.",
    stand_ins: &[],
};

const RUSH_HOUR: Rules = Rules {
    board: "BBBCDE\nFGGCDE\nF.AADE\nHHI...\n.JI.KK\n.JLLMM",
    horizontal: "BGAHKLM",
    vertical: "CDEFIJ",
    goal: "......\n......\n....AA\n......\n......\n......",
    stand_ins: &[],
};

#[test]
fn klotski_solutions_in_three_metrics_replay() {
    for (metric, rmetric, length) in [
        (Metric::Step, replay::Metric::Step, 116),
        (Metric::Slide, replay::Metric::Slide, 90),
        (Metric::Piece, replay::Metric::Piece, 81),
    ] {
        for threads in [1, 2] {
            let (_, steps) = solve("klotski", metric, threads);
            assert_eq!(steps.len(), length, "{metric:?}");
            replay::check(&KLOTSKI, rmetric, &as_moves(&steps)).unwrap();
        }
    }
}

#[test]
fn rush_hour_solutions_replay() {
    for (metric, rmetric, length) in [
        (Metric::Step, replay::Metric::Step, 93),
        (Metric::Slide, replay::Metric::Slide, 49),
    ] {
        let (_, steps) = solve("rush-hour", metric, 2);
        assert_eq!(steps.len(), length, "{metric:?}");
        replay::check(&RUSH_HOUR, rmetric, &as_moves(&steps)).unwrap();
    }
}

#[test]
fn the_checker_rejects_a_broken_solution() {
    let (_, steps) = solve("klotski", Metric::Step, 2);
    let mut moves = as_moves(&steps);
    moves.pop();
    assert!(replay::check(&KLOTSKI, replay::Metric::Step, &moves).is_err());
    let mut moves = as_moves(&steps);
    moves.swap(0, 1);
    assert!(replay::check(&KLOTSKI, replay::Metric::Step, &moves).is_err());
}

#[test]
fn solutions_are_the_same_at_every_thread_count() {
    let (_, one) = solve("klotski", Metric::Slide, 1);
    for threads in [2, 3, 4] {
        assert_eq!(solve("klotski", Metric::Slide, threads).1, one);
    }
}

#[test]
fn boards_after_each_move_keep_labels() {
    let (p, steps) = solve("klotski", Metric::Piece, 2);
    let last = &steps.last().unwrap().board;
    assert_eq!(last.lines().nth(3).unwrap().get(1..3), Some("BB"));
    assert_eq!(last.lines().nth(4).unwrap().get(1..3), Some("BB"));
    for s in &steps {
        assert_eq!(s.board.lines().count(), p.rows());
    }
}

#[test]
fn no_solution_is_an_outcome() {
    // A can reach the last cell on an empty board, but B is in the way.
    let text = "board = \"\"\"\nAB.\n\"\"\"\ngoal = \"\"\"\n..A\n\"\"\"\ndistinct = \"*\"";
    let p = SlidingPuzzle::from_toml(text, "t").unwrap();
    let s = Search::new(&p).threads(2).solve().unwrap();
    assert!(s.path.is_none());
    assert_eq!(s.report.outcome, Outcome::Complete);
    assert_eq!(s.report.states(), 3);
}

#[test]
fn interchangeable_pieces_give_one_key() {
    // Swapping the labels of two interchangeable pieces changes nothing.
    let a = SlidingPuzzle::from_toml("board = \"\"\"\nab.\n.cd\n\"\"\"", "a").unwrap();
    let b = SlidingPuzzle::from_toml("board = \"\"\"\nba.\n.dc\n\"\"\"", "b").unwrap();
    assert_eq!(a.start(), b.start());
    // Made distinct, they are told apart.
    let c = SlidingPuzzle::from_toml("board = \"\"\"\nab.\n.cd\n\"\"\"\ndistinct = \"*\"", "c")
        .unwrap();
    let count = |p: &SlidingPuzzle| Search::new(p).threads(1).count().unwrap().states();
    assert_eq!(count(&a), 15, "C(6,4) placements");
    assert_eq!(count(&c), 360, "6!/2! placements of 4 distinct tiles");
}

#[test]
fn colours_and_walls() {
    let plain = "board = \"\"\"\nab..\n#..#\n\"\"\"";
    let coloured = "board = \"\"\"\nab..\n#..#\n\"\"\"\ncolors = { red = \"a\" }";
    let count = |t: &str| {
        let p = SlidingPuzzle::from_toml(t, "t").unwrap();
        Search::new(&p).threads(2).count().unwrap().states()
    };
    assert_eq!(count(plain), 15, "C(6,2)");
    assert_eq!(count(coloured), 30, "6·5");
}

fn error(text: &str) -> reach::puzzles::sliding::PuzzleError {
    SlidingPuzzle::from_toml(text, "bad.toml").unwrap_err()
}

#[test]
fn file_errors_say_where_and_how() {
    let e = error("board = \"\"\"\nAB\nA\n\"\"\"");
    assert_eq!(e.location, Some((3, 1)));
    assert!(e.message.contains("1 cell but the first row has 2"), "{e}");
    assert!(e.to_string().starts_with("bad.toml:3:1: "), "{e}");

    let e = error("board = \"A.\"\nspeed = 3");
    assert_eq!(e.location.map(|l| l.0), Some(2));
    assert!(e.message.contains("unknown field"), "{e}");

    let e = error("board = \"\"\"\nAB.\n\"\"\"\ndistinct = \"AZ\"");
    assert_eq!(e.location, Some((4, 14)));
    assert!(e.message.contains("'Z'"), "{e}");

    let e = error("board = \"\"\"\nAB.\n\"\"\"\nhorizontal = \"A\"\nvertical = \"A\"");
    assert!(e.message.contains("both"), "{e}");

    let e = error("board = \"\"\"\nAA.\n...\n\"\"\"\ngoal = \"\"\"\n...\nA..\n\"\"\"");
    assert!(e.message.contains("shape"), "{e}");
    assert_eq!(e.location, Some((7, 1)));

    let e = error("board = \"\"\"\nA.\n\"\"\"\ngoal = \"\"\"\n..\n.Q\n\"\"\"");
    assert!(e.message.contains("2 rows but the board has 1"), "{e}");

    let row = ".".repeat(13);
    let e = error(&format!(
        "board = \"\"\"\nA{}\n{row}{row}\n{row}{row}\n\"\"\"",
        ".".repeat(25)
    ));
    assert!(e.message.contains("78 cells"), "{e}");

    let e = error("board = 5");
    assert!(e.message.contains("string"), "{e}");
    let e = error("name = \"x\"");
    assert!(e.message.contains("board"), "{e}");
    let e = error("board = \"\"\"\n...\n\"\"\"");
    assert!(e.message.contains("no pieces"), "{e}");
    let e = error("board = \"A.\"\nboard = \"B.\"");
    assert!(e.message.contains("duplicate"), "{e}");
}

#[test]
fn unicode_labels_are_pieces() {
    let p =
        SlidingPuzzle::from_toml("board = \"\"\"\né.\n.ß\n\"\"\"\ndistinct = \"*\"", "u").unwrap();
    assert_eq!(Search::new(&p).threads(1).count().unwrap().states(), 12);
    assert!(p.render(p.start()).starts_with("é."));
}

#[test]
fn builtins_parse_and_render_their_start() {
    for b in builtin::ALL {
        if let Some(p) = builtin::sliding(b.name) {
            let board = p.render(p.start());
            assert_eq!(board.lines().count(), p.rows(), "{}", b.name);
            assert!(p.describe().contains("key space"));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_reader_never_panics(text in "[A-Ca.#\\n \"=bodrgaitsn*é\\\\]{0,80}") {
        let _ = SlidingPuzzle::from_toml(&text, "fuzz");
    }

    #[test]
    fn random_boards_never_panic(rows in proptest::collection::vec("[.#ABCab]{1,9}", 1..9)) {
        let text = format!("board = \"\"\"\n{}\n\"\"\"", rows.join("\n"));
        if let Ok(p) = SlidingPuzzle::from_toml(&text, "fuzz") {
            let r = Search::new(&p).threads(1).max_states(Some(20_000)).count().unwrap();
            prop_assert!(r.states() >= 1);
        }
    }

    #[test]
    fn relabelling_interchangeable_pieces_keeps_the_key(
        shuffled in Just(vec!['G', 'H', 'I', 'J']).prop_shuffle()
    ) {
        // Klotski's four single squares, relabelled in any order.
        let labels = ['G', 'H', 'I', 'J'];
        let board = "ABBC\nABBC\nDEEF\nDGHF\nI..J";
        let relabelled: String = board
            .chars()
            .map(|c| labels.iter().position(|&l| l == c).map_or(c, |i| shuffled[i]))
            .collect();
        let a = SlidingPuzzle::from_toml(&format!("board = \"\"\"\n{board}\n\"\"\""), "a").unwrap();
        let b = SlidingPuzzle::from_toml(&format!("board = \"\"\"\n{relabelled}\n\"\"\""), "b").unwrap();
        prop_assert_eq!(a.start(), b.start());
    }

    #[test]
    fn successors_are_reversible(steps in proptest::collection::vec(0usize..64, 0..40)) {
        // Walk at random through Ma's puzzle; every successor of a state has
        // the state among its own successors, in every metric.
        for metric in [Metric::Step, Metric::Slide, Metric::Piece] {
            let p = builtin::sliding("mas").unwrap().with_metric(metric);
            let (mut s, mut t) = (p.new_state(), p.new_state());
            let (mut out, mut back) = (Vec::new(), Vec::new());
            let mut key = p.start();
            for &i in &steps {
                p.decode(key, &mut s);
                out.clear();
                p.successors(&mut s, &mut out);
                prop_assert!(!out.is_empty());
                let next = out[i % out.len()];
                prop_assert!(next < p.key_space());
                p.decode(next, &mut t);
                back.clear();
                p.successors(&mut t, &mut back);
                prop_assert!(back.contains(&key));
                key = next;
            }
        }
    }
}

#[test]
fn hostile_files_are_refused_cleanly() {
    let dir = std::env::temp_dir().join(format!("reach-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let refuse = |path: &std::path::Path, needle: &str| {
        let e = SlidingPuzzle::from_path(path).unwrap_err();
        assert!(e.to_string().contains(needle), "{}: {e}", path.display());
    };
    refuse(&write("empty.toml", b""), "board");
    refuse(
        &write("binary.toml", &[0xff, 0x00, 0xfe, 0x12, 0x80]),
        "UTF-8",
    );
    refuse(&write("nul.toml", b"board = \"A\0.\""), "invalid");
    refuse(
        &write("bell.toml", b"board = \"A\\u0007.\""),
        "cannot label",
    );
    let huge = vec![b'.'; 100 << 20];
    refuse(&write("huge.toml", &huge), "at most 1048576 bytes");
    let many: String = (0..10_000u32)
        .filter_map(|i| char::from_u32(0x4e00 + i))
        .collect();
    refuse(
        &write(
            "labels.toml",
            format!("board = \"\"\"\n{many}\n\"\"\"").as_bytes(),
        ),
        "longest of 10000 cells",
    );
    refuse(
        &write(
            "tall.toml",
            format!("board = \"\"\"\n{}\"\"\"", "A\n".repeat(65)).as_bytes(),
        ),
        "65 row(s)",
    );
    refuse(
        &write(
            "wide-goal.toml",
            b"board = \"\"\"\nA.\n\"\"\"\ngoal = \"\"\"\nA..\n\"\"\"",
        ),
        "2 wide",
    );
    refuse(
        &write("dup.toml", b"board = \"A.\"\nboard = \"A.\""),
        "duplicate",
    );
    refuse(&dir, "directory");
    refuse(&dir.join("missing.toml"), "cannot read");
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn mutated_builtins_never_panic(
        edits in proptest::collection::vec((0usize..400, proptest::char::any()), 1..6)
    ) {
        let mut text: Vec<char> = include_str!("../../src/puzzles/builtin/rush-hour.toml").chars().collect();
        for (at, ch) in edits {
            let at = at % text.len();
            text[at] = ch;
        }
        let text: String = text.into_iter().collect();
        if let Ok(p) = SlidingPuzzle::from_toml(&text, "fuzz") {
            let _ = Search::new(&p).threads(2).max_states(Some(50_000)).count().unwrap();
        }
    }
}

const RUSH_HOUR_17: Rules = Rules {
    board: "GJOOPP\nGJHHMF\nAA.EMF\nNNIEKK\nCQIDD.\nCQBBLL",
    horizontal: "ABDHKLNOP",
    vertical: "CEFGIJMQ",
    goal: "......\n......\n....AA\n......\n......\n......",
    stand_ins: &[],
};

#[test]
fn cars_on_rails_fit_the_key_whatever_their_number() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/rush-hour-17.toml");
    let p = SlidingPuzzle::from_path(std::path::Path::new(path)).unwrap();
    // 17 distinct cars, each ranked over the 5 places of its rail.
    assert_eq!(p.classes().len(), 17);
    assert!(p.classes().iter().all(|c| c.ranked_over() == 5));
    assert_eq!(p.key_space(), 5u64.pow(17));
    for (metric, rmetric, length) in [
        (Metric::Step, replay::Metric::Step, 14),
        (Metric::Slide, replay::Metric::Slide, 10),
    ] {
        let p = p.clone().with_metric(metric);
        let oracle = reference::level_sizes(&p);
        assert_eq!(oracle.iter().sum::<u64>(), 41, "{metric:?}");
        for threads in [1, 2, 3] {
            let r = Search::new(&p).threads(threads).count().unwrap();
            assert_eq!(r.levels, oracle, "{metric:?} {threads} threads");
            let s = Search::new(&p).threads(threads).solve().unwrap();
            let steps = p.steps(s.path.as_ref().unwrap());
            assert_eq!(steps.len(), length, "{metric:?}");
            replay::check(&RUSH_HOUR_17, rmetric, &as_moves(&steps)).unwrap();
        }
    }
}

/// 22 distinct tiles on an 8x8 board, in reading order: 64·63·…·43
/// placements, about 10^38.
fn tiles_on_eight_by_eight() -> String {
    let mut board = String::new();
    let labels: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUV".chars().collect();
    for r in 0..8 {
        for c in 0..8 {
            let i = r * 8 + c;
            board.push(if i < labels.len() { labels[i] } else { '.' });
        }
        board.push('\n');
    }
    format!("board = \"\"\"\n{board}\"\"\"\ndistinct = \"*\"\n")
}

/// The level sizes from `board` (rows of labels, `.` empty) to depth
/// `depth` under the step metric, every piece a single cell free to move,
/// by the tile tests' search over whole boards (no keys).
fn tile_levels_by_boards(board: &str, depth: usize) -> Vec<u64> {
    let cols = board.lines().next().unwrap().len();
    let cells = board
        .lines()
        .flat_map(str::bytes)
        .map(|b| if b == b'.' { 0 } else { b })
        .collect();
    crate::tiles::levels_of_boards(cells, cols, depth)
}

#[test]
fn key_spaces_past_64_bits_take_keys_of_several_words() {
    // 22 distinct tiles on 8x8: 64^22 = 2^132 keys, ten ranks a word.
    let text = tiles_on_eight_by_eight();
    let p = SlidingPuzzle::from_toml(&text, "big").unwrap();
    assert_eq!(p.words(), 3);
    assert!(p.describe().contains("keys of 3 words"), "{}", p.describe());
    // The one-word model says which model to search instead.
    let err = Search::new(&p).count().unwrap_err().to_string();
    assert!(err.contains("WideSliding::<N>"), "{err}");
    assert!(err.contains("at least 3"), "{err}");
    assert!(WideSliding::<2>::new(&p).is_none());
    // Counted to depth 7 as boards are, on every thread count.
    let board: String = text.lines().skip(1).take(8).collect::<Vec<_>>().join("\n");
    let oracle = tile_levels_by_boards(&board, 7);
    let w = WideSliding::<3>::new(&p).unwrap();
    for threads in [1, 2, 3] {
        let r = Search::new(&w)
            .threads(threads)
            .max_depth(Some(7))
            .count()
            .unwrap();
        assert_eq!(r.levels, oracle, "{threads} threads");
    }
    let w = WideSliding::<4>::new(&p).unwrap();
    let r = Search::new(&w)
        .threads(2)
        .max_depth(Some(7))
        .count()
        .unwrap();
    assert_eq!(r.levels, oracle);
    // 48 distinct tiles, six to a row of eight: 64^48 = 2^288 keys take
    // five words.
    let mut board = String::new();
    let labels: Vec<char> = ('A'..='Z').chain('a'..='z').collect();
    for r in 0..8 {
        board.push_str(&labels[r * 6..r * 6 + 6].iter().collect::<String>());
        board.push_str("..\n");
    }
    let text = format!("board = \"\"\"\n{board}\"\"\"\ndistinct = \"*\"");
    let p = SlidingPuzzle::from_toml(&text, "48").unwrap();
    assert_eq!(p.words(), 5);
    let w = WideSliding::<6>::new(&p).unwrap();
    let r = Search::new(&w)
        .threads(2)
        .max_depth(Some(5))
        .count()
        .unwrap();
    assert_eq!(r.levels, tile_levels_by_boards(board.trim_end(), 5));
}

#[test]
fn wide_keys_count_solve_and_find_the_hardest_as_one_word_keys_do() {
    // Every built-in sliding puzzle searched with keys of two and three
    // words (each class ranked over its positions, packed in words)
    // against its one-word keys (free-ranked, tile and blank tables).
    for name in ["pe766-example", "klotski", "rush-hour", "mas", "eight"] {
        for metric in [Metric::Step, Metric::Slide, Metric::Piece] {
            let p = builtin::sliding(name).unwrap().with_metric(metric);
            let narrow = Search::new(&p).threads(2).count().unwrap();
            let wide = p.widened();
            assert_eq!(wide.words(), 2, "{name}");
            let w2 = WideSliding::<2>::new(&wide).unwrap();
            let w3 = WideSliding::<3>::new(&wide).unwrap();
            for threads in [1, 2] {
                let r = Search::new(&w2).threads(threads).count().unwrap();
                assert_eq!(r.levels, narrow.levels, "{name} {metric:?} {threads}");
            }
            let r = Search::new(&w3).threads(2).count().unwrap();
            assert_eq!(r.levels, narrow.levels, "{name} {metric:?} 3 words");
            if !p.has_goal() {
                continue;
            }
            let one = Search::new(&p).threads(2).solve().unwrap();
            let two = Search::new(&w2).threads(2).solve().unwrap();
            assert_eq!(two.report.depth(), one.report.depth(), "{name} {metric:?}");
            let steps = wide.steps(two.path.as_ref().unwrap());
            assert_eq!(steps.len() as u32, one.report.depth());
            let hard_one = Search::new(&p).threads(2).hardest().unwrap();
            let hard_two = Search::new(&w2).threads(2).hardest().unwrap();
            assert_eq!(hard_two.distance, hard_one.distance, "{name} {metric:?}");
            assert_eq!(hard_two.component, hard_one.component);
            let boards =
                |ks: Vec<String>| ks.into_iter().collect::<std::collections::BTreeSet<_>>();
            assert_eq!(
                boards(hard_two.positions.iter().map(|&k| wide.render(k)).collect()),
                boards(hard_one.positions.iter().map(|&k| p.render(k)).collect()),
                "{name} {metric:?}"
            );
        }
    }
    // Klotski's solutions with wide keys replay.
    for (metric, rmetric, length) in [
        (Metric::Step, replay::Metric::Step, 116),
        (Metric::Slide, replay::Metric::Slide, 90),
        (Metric::Piece, replay::Metric::Piece, 81),
    ] {
        let p = builtin::sliding("klotski")
            .unwrap()
            .with_metric(metric)
            .widened();
        let w = WideSliding::<2>::new(&p).unwrap();
        let s = Search::new(&w).threads(2).solve().unwrap();
        let steps = p.steps(s.path.as_ref().unwrap());
        assert_eq!(steps.len(), length, "{metric:?}");
        replay::check(&KLOTSKI, rmetric, &as_moves(&steps)).unwrap();
    }
    // pe766 (2,613,742 states) with keys of two words.
    let p = builtin::sliding("pe766").unwrap().widened();
    let w = WideSliding::<2>::new(&p).unwrap();
    assert_eq!(
        Search::new(&w).threads(2).count().unwrap().states(),
        2_613_742
    );
}

#[test]
fn invisible_labels_are_refused_and_names_cannot_drive_the_terminal() {
    // A zero-width space would be a piece nobody can see; a decomposed é
    // would be two cells.
    for (board, col) in [("AB.\nC.\u{200b}", 3), ("AB.\nCe\u{301}", 3)] {
        let text = format!("board = \"\"\"\n{board}\n\"\"\"\n");
        let err = SlidingPuzzle::from_toml(&text, "t").unwrap_err();
        assert_eq!(err.location, Some((3, col)), "{err}");
        assert!(err.help.contains("zero-width"), "{err}");
    }
    // A precomposed é is a fine label.
    assert!(SlidingPuzzle::from_toml("board = \"\"\"\nAé.\n\"\"\"\n", "t").is_ok());
    let p =
        SlidingPuzzle::from_toml("name = \"x\\u001b[2Jy\\u0007\"\nboard = \"A.\"\n", "t").unwrap();
    assert!(!p.name().chars().any(char::is_control), "{:?}", p.name());
    assert!(p.name().starts_with("x\\u{1b}[2Jy"), "{:?}", p.name());
}

#[test]
fn errors_after_escapes_point_at_the_right_place() {
    // The bad label is the escape at line 3, column 8 of the file.
    let text = "board = \"\"\"\nAB.\nC\\u00e9\\u200b\n\"\"\"\n";
    let err = SlidingPuzzle::from_toml(text, "t").unwrap_err();
    assert_eq!(err.location, Some((3, 8)), "{err}");
    // The same in a one-line basic string with \n escapes: line 1.
    let text = "board = \"AB.\\nC\\u00e9\\u200b\"\n";
    let err = SlidingPuzzle::from_toml(text, "t").unwrap_err();
    assert_eq!(err.location, Some((1, 22)), "{err}");
    // A literal string has no escapes: a backslash is a label.
    let text = "board = '''\nA\\.\n'''\n";
    let p = SlidingPuzzle::from_toml(text, "t").unwrap();
    assert_eq!(p.classes()[0].labels, ['A', '\\']);
}

/// Each state's distance to the nearest goal state, by its own BFS: the
/// brute force that `hardest`'s multi-source search must agree with.
fn brute_force_hardest(p: &SlidingPuzzle) -> (u32, usize, Option<u32>, usize) {
    use std::collections::{HashSet, VecDeque};
    let successors = |key: u64| {
        let mut state = p.new_state();
        let mut out = Vec::new();
        p.decode(key, &mut state);
        p.successors(&mut state, &mut out);
        out
    };
    let is_goal = |key: u64| {
        let mut state = p.new_state();
        p.decode(key, &mut state);
        p.is_goal(&state)
    };
    // The component.
    let mut component = vec![p.start()];
    let mut seen = HashSet::from([p.start()]);
    let mut i = 0;
    while i < component.len() {
        for s in successors(component[i]) {
            if seen.insert(s) {
                component.push(s);
            }
        }
        i += 1;
    }
    let distance_of = |from: u64| -> u32 {
        let mut seen = HashSet::from([from]);
        let mut queue = VecDeque::from([(from, 0)]);
        while let Some((k, d)) = queue.pop_front() {
            if is_goal(k) {
                return d;
            }
            for s in successors(k) {
                if seen.insert(s) {
                    queue.push_back((s, d + 1));
                }
            }
        }
        unreachable!("the component holds a goal")
    };
    let distances: Vec<u32> = component.iter().map(|&k| distance_of(k)).collect();
    let max = *distances.iter().max().unwrap();
    let count = distances.iter().filter(|&&d| d == max).count();
    let goals = component.iter().filter(|&&k| is_goal(k)).count();
    (max, count, Some(distances[0]), goals)
}

#[test]
fn hardest_positions_agree_with_a_brute_force() {
    let holes = "board = \"\"\"\naab\nc.d\nefg\n\"\"\"\ndistinct = \"b\"\ngoal = \"\"\"\n..b\n...\n...\n\"\"\"\n";
    let example =
        "board = \"\"\"\n.AAb\n.Acd\nefgh\n\"\"\"\ngoal = \"\"\"\nAA..\nA...\n....\n\"\"\"\n";
    let rails = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/rush-hour-17.toml"
    ))
    .unwrap();
    for (name, text) in [("holes", holes), ("example", example), ("rails", &rails)] {
        for metric in [Metric::Step, Metric::Slide, Metric::Piece] {
            let p = SlidingPuzzle::from_toml(text, name)
                .unwrap()
                .with_metric(metric);
            let (distance, count, start, goals) = brute_force_hardest(&p);
            // Frontier search too: the search from every goal at once has
            // goals of both colours, where a bipartite model's levels do
            // not alternate.
            let runs = [1, 2, 3].map(|t| (t, VisitedKind::Auto));
            for (threads, visited) in runs.into_iter().chain([(2, VisitedKind::Frontier)]) {
                let h = Search::new(&p)
                    .threads(threads)
                    .visited(visited)
                    .hardest()
                    .unwrap();
                let what = format!("{name} {metric:?} {threads} threads, {visited:?}");
                assert_eq!(h.distance, distance, "{what}");
                assert_eq!(h.positions.len(), count, "{what}");
                assert_eq!(h.start_distance, start, "{what}");
                assert_eq!(h.goal_states, goals as u64, "{what}");
                assert!(h.positions.windows(2).all(|w| w[0] < w[1]), "{what}");
                assert!(h.distance >= h.start_distance.unwrap(), "{what}");
            }
        }
    }
}

#[test]
fn hardest_of_the_builtins() {
    // Rush Hour's card is its own hardest position: 93 steps, 49 slides.
    let p = builtin::sliding("rush-hour").unwrap();
    let h = Search::new(&p).threads(2).hardest().unwrap();
    assert_eq!((h.distance, h.start_distance), (93, Some(93)));
    assert_eq!(h.positions, [p.start()]);
    let h = Search::new(&p.clone().with_metric(Metric::Slide))
        .threads(2)
        .hardest()
        .unwrap();
    assert_eq!(
        (h.distance, h.start_distance, h.positions.len()),
        (49, Some(49), 2)
    );
    // Klotski in piece moves: the start is 81 from the goal, the hardest 93.
    let p = builtin::sliding("klotski")
        .unwrap()
        .with_metric(Metric::Piece);
    let h = Search::new(&p).threads(2).hardest().unwrap();
    assert_eq!((h.component, h.goal_states), (25955, 964));
    assert_eq!(
        (h.distance, h.start_distance, h.positions.len()),
        (93, Some(81), 2)
    );
    // No goal in the component: reported as none.
    let text = "board = \"\"\"\nAB.\n\"\"\"\ndistinct = \"*\"\ngoal = \"\"\"\n..A\n\"\"\"\n";
    let p = SlidingPuzzle::from_toml(text, "blocked").unwrap();
    let h = Search::new(&p).threads(2).hardest().unwrap();
    assert_eq!((h.goal_states, h.component), (0, 3));
}
