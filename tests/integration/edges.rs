//! The small ones (#24 item 5): each message says what is true for the
//! command it ends, once, with figures in units a person reads.

use predicates::prelude::*;

use crate::spill::TempDir;
use crate::{checkpoint_at, json_out, reach};

#[test]
fn a_memory_limit_below_the_working_minimum_is_refused_naming_it() {
    reach()
        .args(["count", "pe766", "--memory-limit", "1M"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("--memory-limit 1.0 MiB is below what this run needs")
                .and(predicate::str::contains("give at least")),
        );
}

#[test]
fn memory_stops_are_in_mib_and_suggest_what_the_command_accepts() {
    // In memory: spilling is the way out.
    reach()
        .args(["count", "eleven", "-j", "2", "--memory-limit", "40M"])
        .assert()
        .code(3)
        .stdout(
            predicate::str::contains("MiB, over --memory-limit 40.0 MiB").and(
                predicate::str::contains("--spill DIR keeps the levels on disk"),
            ),
        );
    // Already on disk: more memory is, not --spill again.
    let dir = TempDir::new("memory-hint");
    reach()
        .args([
            "count",
            "eleven",
            "-j",
            "2",
            "--visited",
            "bitmap",
            "--memory-limit",
            "40M",
            "--spill",
        ])
        .arg(dir.path().join("levels"))
        .assert()
        .code(3)
        .stdout(
            predicate::str::contains("give a larger --memory-limit")
                .and(predicate::str::contains("--spill").not()),
        );
}

#[test]
fn levels_on_disk_hold_the_memory_limit_or_stop_before_passing_it() {
    // eleven at two threads, levels on disk. Under 16M it peaked at 22
    // MiB (the workers' buffers, a settle merging a hundred candidate
    // files at once, candidate files kept in memory, the report reading
    // its last level back); under 9M it went on past the limit until a
    // check 64 levels apart saw it. Now it holds 16M to the depth asked,
    // and under 9M it stops before it passes the limit, saying how much
    // it would need. With a bitmap (29 MiB, resident from the start)
    // under 48M: the plan counts it once. The tight limit was 9M until
    // the binary took the census and the studio: the process's own
    // resident pages are now about 8 MiB (`reach count pe766-example`
    // peaks at 8,244 KB), 9M left the search about one MiB, and a loaded
    // CI machine saw a peak of 9,601,024 bytes, 0.16 MiB over; 10M leaves
    // it about two.
    let runs = [
        ("frontier", "16M"),
        ("dense", "16M"),
        ("bitmap", "48M"),
        ("frontier", "10M"),
        ("dense", "10M"),
    ];
    for (visited, limit) in runs {
        let bytes = limit.trim_end_matches('M').parse::<u64>().unwrap() << 20;
        let dir = TempDir::new("disk-limit");
        let out = reach()
            .args(["count", "eleven", "-j", "2", "--max-depth", "30", "--json"])
            .args(["--visited", visited, "--memory-limit", limit, "--spill"])
            .arg(dir.path().join("levels"))
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let peak = v["peak_rss_bytes"].as_u64().unwrap();
        assert!(peak <= bytes, "{visited} under {limit}: peak {peak}: {v}");
        if limit == "10M" {
            assert_eq!(out.status.code(), Some(3), "{visited}: {v}");
            let why = v["stop_reason"].as_str().unwrap();
            assert!(why.contains("MiB, over --memory-limit 10.0 MiB"), "{why}");
        } else {
            assert_eq!(out.status.code(), Some(0), "{visited}: {v}");
            assert_eq!(v["states"], 35_397_636, "{visited}: {v}");
        }
    }
}

#[test]
fn resume_below_the_saved_depth_is_refused() {
    let dir = TempDir::new("resume-depth");
    let cp = dir.path().join("cp");
    checkpoint_at("klotski", 3, &cp);
    reach()
        .arg("resume")
        .arg(&cp)
        .args(["--max-depth", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is already at depth 3"));
    // The checkpoint is as it was: it resumes to the end.
    reach()
        .arg("resume")
        .arg(&cp)
        .args(["--max-depth", "1000"])
        .assert()
        .success()
        .stdout("25955\n");
}

#[test]
fn a_run_that_wrote_no_level_file_gives_no_bytes_a_state() {
    let dir = TempDir::new("no-files");
    reach()
        .args(["count", "pe766", "--spill"])
        .arg(dir.path().join("levels"))
        .assert()
        .success()
        .stderr(
            predicate::str::contains("nothing written")
                .and(predicate::str::contains("bytes a state").not()),
        );
    let v = json_out(
        reach()
            .args(["count", "pe766", "--json", "--spill"])
            .arg(dir.path().join("levels")),
    );
    assert!(v["disk_bytes_per_state"].is_null(), "{v}");
}

#[test]
fn json_carries_the_name_as_given_and_terminals_an_escaped_one() {
    let dir = TempDir::new("raw-name");
    std::fs::create_dir_all(dir.path()).unwrap();
    let file = dir.path().join("esc.toml");
    std::fs::write(
        &file,
        "name = \"a\\\"b\\u001b[31m\"\nboard = \"\"\"\nA.\n\"\"\"\n",
    )
    .unwrap();
    let v = json_out(reach().arg("count").arg(&file).arg("--json"));
    assert_eq!(v["puzzle"], "a\"b\u{1b}[31m");
    reach().arg("count").arg(&file).assert().success().stderr(
        predicate::str::contains("a\"b\\u{1b}[31m").and(predicate::str::contains("\u{1b}").not()),
    );
}

#[test]
fn a_solution_on_a_file_with_illegal_lines_names_the_moves_it_makes() {
    // Issue 50's case: R and U on one set of 4, `Illegal A 1 2`; the
    // solution of R U R U was printed as `R R'` (the identity).
    let file = std::path::PathBuf::from(crate::twisty::data("illegal.tws"));
    let out = reach()
        .args(["solve", file.to_str().unwrap(), "--scramble", "R U R U"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    // The length, then the moves, played here on the four pieces from the
    // scramble's end: they must solve it, never entering piece 2 at
    // position 1 on the way.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let moves: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(moves.len().to_string(), lines[0], "{out}");
    let turn = |p: &mut [u8; 4], name: &str| match name {
        "R" => *p = [p[1], p[2], p[3], p[0]],
        "U" => p.swap(0, 1),
        other => panic!("no move {other:?} in\n{out}"),
    };
    let play = |p: &mut [u8; 4], step: &str| {
        let (name, times) = match step.as_bytes() {
            [n, b'2'] => (&step[..1], 2 + usize::from(*n == b'x')),
            [_, b'\''] => (&step[..1], 3),
            _ => (step, 1),
        };
        for _ in 0..times {
            turn(p, name);
        }
    };
    let mut p = [1u8, 2, 3, 4];
    for step in ["R", "U", "R", "U"] {
        play(&mut p, step);
    }
    for step in &moves {
        play(&mut p, step);
        assert_ne!(p[0], 2, "{step} enters a forbidden position in\n{out}");
    }
    assert_eq!(p, [1, 2, 3, 4], "the solution does not solve:\n{out}");
}

#[test]
fn outputs_write_through_fifos_devices_and_descriptors_and_never_replace_them() {
    use std::os::unix::fs::FileTypeExt;
    let dir = TempDir::new("special-outputs");
    std::fs::create_dir_all(dir.path()).unwrap();
    let mkfifo = |path: &std::path::Path| {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success());
    };
    // A FIFO: the check does not open it (no reader yet, no wait), the
    // picture goes through it to its reader, and it stays a FIFO.
    let fifo = dir.path().join("plot.fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    reach()
        .args(["count", "pe766-example", "--plot"])
        .arg(&fifo)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("208"));
    assert!(reader.join().unwrap().contains("<svg"));
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");
    // /dev/stdout (here a pipe to the test): the picture follows the
    // report on stdout; the path is never renamed over.
    let out = reach()
        .args(["count", "pe766-example", "--plot", "/dev/stdout"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("208") && out.contains("<svg"), "{out}");
    assert!(
        std::fs::symlink_metadata("/dev/stdout")
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // A copy of /dev/null (a character device; making one needs root):
    // written through, still a device.
    let null = dir.path().join("null");
    let made = std::process::Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    if made {
        reach()
            .args(["solve", "klotski", "--svg"])
            .arg(&null)
            .assert()
            .code(0);
        let kind = std::fs::symlink_metadata(&null).unwrap().file_type();
        assert!(kind.is_char_device(), "the device was replaced: {kind:?}");
    }
    // A socket takes no output: exit 2 before the search.
    let socket = dir.path().join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    reach()
        .args(["count", "pe766-example", "--plot"])
        .arg(&socket)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("it is a socket"));
    // A descriptor that is not open: exit 4 before the search.
    reach()
        .args(["count", "pe766-example", "--plot", "/dev/fd/97"])
        .assert()
        .code(4)
        .stdout("")
        .stderr(predicate::str::contains("descriptor 97 is not open"));
}

#[test]
fn show_gives_a_small_dense_array_its_size_not_the_allocation_floor() {
    // 174,960 keys of two bits: 43 KiB (it said "1 MiB").
    let cube = format!("{}/tests/data/cube2.tws", env!("CARGO_MANIFEST_DIR"));
    reach()
        .args(["show", &cube, "--moves", "U,F"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "two bits for each of 174960 keys (43 KiB)",
        ))
        .stdout(predicate::str::contains("1 MiB").not());
}

/// `text` as a puzzle file in `dir`, and its path.
fn file_in(dir: &TempDir, name: &str, text: &str) -> String {
    std::fs::create_dir_all(dir.path()).unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// Runs `reach ARGS`, which must exit 2 with a stderr that holds each of
/// `says` and none of `not`.
fn refused(args: &[&str], says: &[&str], not: &[&str]) {
    let out = reach().args(args).assert().code(2).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    for s in says {
        assert!(err.contains(s), "{args:?} should say {s:?}: {err}");
    }
    for n in not {
        assert!(!err.contains(n), "{args:?} should not say {n:?}: {err}");
    }
}

#[test]
fn an_unclosed_board_is_named_where_it_opens_not_where_toml_gives_up() {
    let dir = TempDir::new("unclosed");
    // The board's quotes close at the goal's: TOML says "invalid key" on
    // line 7.
    let swallowed = file_in(
        &dir,
        "swallowed.toml",
        "name = \"x\"\nboard = \"\"\"\n.AA\nBB.\n\ngoal = \"\"\"\n.BB\n",
    );
    refused(
        &["count", &swallowed],
        &[
            "swallowed.toml:2:9: the \"\"\" opened on line 2 is not closed before line 6",
            "end the board with a line holding only \"\"\"",
        ],
        &["invalid key"],
    );
    let open = file_in(&dir, "open.toml", "board = \"\"\"\n.AA\nBB.\n");
    refused(
        &["count", &open],
        &["open.toml:1:9: the \"\"\" opened on line 1 is never closed"],
        &[],
    );
    // Other TOML errors point to the format's page, not the README.
    let bad = file_in(&dir, "bad.toml", "board = [1\n");
    refused(&["count", &bad], &["docs/puzzle-files.md"], &[]);
}

#[test]
fn spaces_drawn_as_empty_cells_are_told_the_empty_cell_is_a_dot() {
    let dir = TempDir::new("spaces");
    let spaced = file_in(&dir, "spaced.toml", "board = \"\"\"\n.AA\nBB \n\"\"\"\n");
    refused(
        &["count", &spaced],
        &[
            "spaced.toml:3:1: this row has 2 cells but the first row has 3",
            "draw an empty cell as '.'",
        ],
        &[],
    );
    // Without spaces, the plain advice.
    let short = file_in(&dir, "short.toml", "board = \"\"\"\n.AA\nB\n\"\"\"\n");
    refused(
        &["count", &short],
        &["this row has 1 cell but", "give every row the same width"],
        &["empty cell as"],
    );
}

#[test]
fn hardest_without_a_goal_says_how_to_give_one_to_a_file_or_a_built_in() {
    let dir = TempDir::new("no-goal");
    let file = file_in(&dir, "free.toml", "board = \"\"\"\n.AA\nBB.\n\"\"\"\n");
    refused(
        &["hardest", &file],
        &[&format!("help: add a goal to {file}: goal = ")],
        &["built-in"],
    );
    refused(
        &["hardest", "pe766"],
        &["`reach show pe766` prints this puzzle's board to start it from"],
        &[],
    );
}

#[test]
fn a_resumed_run_names_its_store_the_checkpoint_s_not_asked_for() {
    let dir = TempDir::new("resume-store");
    let cp = dir.path().join("cp");
    checkpoint_at("klotski", 10, &cp);
    reach()
        .arg("resume")
        .arg(&cp)
        .args(["--max-depth", "1000"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "store       bitmap: the checkpoint's",
        ))
        .stderr(predicate::str::contains("as asked").not());
}

/// A puzzle of one set of 4 with moves R (a 4-cycle) and U (a swap), and
/// `more` after them (its lines start at line 15).
fn four(dir: &TempDir, name: &str, more: &str) -> String {
    let base = "Name T\nSet A 4 1\nSolved\nA\n1 2 3 4\nEnd\nMove R\nA\n2 3 4 1\nEnd\nMove U\nA\n2 1 3 4\nEnd\n";
    file_in(dir, name, &format!("{base}{more}"))
}

#[test]
fn twisty_messages_name_the_line_and_the_cause() {
    let dir = TempDir::new("twisty-words");
    // An Illegal line that forbids the solved state: that line, and the
    // Solved block's.
    let ill = four(&dir, "ill.tws", "Illegal A 1 1\n");
    refused(
        &["count", &ill],
        &["ill.tws:15:1: this Illegal line forbids the Solved block of line 3"],
        &[],
    );
    // Two moves with one name: both lines.
    let named = four(&dir, "named.tws", "MoveSequence R2 U R\n");
    refused(
        &["count", &named],
        &[
            "named.tws:7:1: move R and ",
            "named.tws:15:14: move R2 both give a move called \"R2\"",
        ],
        &[],
    );
    let digits = four(
        &dir,
        "digits.tws",
        "Move 2\nA\n3 4 2 1\nEnd\nMove 22\nA\n1 3 2 4\nEnd\n",
    );
    refused(
        &["count", &digits],
        &[
            "digits.tws:15:1: move 2 and ",
            "digits.tws:19:1: move 22 both give",
        ],
        &[],
    );
    // A power over the limit is said to be one, not an unknown name.
    let power = four(&dir, "power.tws", "MoveSequence S R1001 U\n");
    refused(
        &["count", &power],
        &["power.tws:15:16: S's step R1001: the power of R is over 1000"],
        &["names no move"],
    );
    let plain = four(&dir, "plain.tws", "");
    for args in [
        ["count", &plain, "--moves", "R1001"],
        ["solve", &plain, "--scramble", "U R1001"],
    ] {
        refused(&args, &["R1001", "the power of R is over 1000"], &[]);
    }
    // A flag that lists a move and its power blames the flag.
    refused(
        &["count", &plain, "--moves", "R,R2"],
        &[
            "--moves lists R and R2, which both give a move called \"R2\"",
            "R alone gives its powers",
        ],
        &["rename"],
    );
}

#[test]
fn a_bitmap_over_half_the_memory_limit_gives_way_to_frontier_search() {
    // eleven's bitmap is 29 MiB: under 20M a checkpointed count held it
    // and stopped before its first level (exit 3, 35 MiB resident).
    let dir = TempDir::new("bitmap-limit");
    let cp = dir.path().join("cp");
    let v = json_out(
        reach()
            .args(["count", "eleven", "-j", "1", "--memory-limit", "20M"])
            .args(["--max-depth", "20", "--json", "--checkpoint"])
            .arg(&cp),
    );
    assert_eq!(v["visited"], "frontier", "{v}");
    assert_eq!(v["depth"], 20, "{v}");
    assert!(
        v["store"]
            .as_str()
            .unwrap()
            .contains("a bitmap of 239500800 keys, 29 MiB, is over half of --memory-limit"),
        "{v}"
    );
    // With room for it, the bitmap.
    let v = json_out(
        reach()
            .args([
                "count",
                "eleven",
                "--max-depth",
                "5",
                "--json",
                "--memory-limit",
                "80M",
                "--checkpoint",
            ])
            .arg(dir.path().join("roomy")),
    );
    assert_eq!(v["visited"], "bitmap", "{v}");
}

/// The library words its refusals without flags; the command line says
/// them with its flags, in exactly these words (cli/puzzle.rs and
/// cli/exit.rs translate them), and none of the library's phrases for the
/// options is left over.
#[test]
fn refusals_name_the_command_lines_flags() {
    let library = [
        "error: the metric ",
        "error: a scramble",
        "error: moves choose",
        "error: choosing moves",
        "error: a metric applies",
        "error: levels on disk need",
        "help: give htm",
        "help: give step",
        "leave the visited set",
        "a spill directory",
        "the chosen moves",
        "the scramble \"",
        "choose fewer moves",
        "the qtm metric",
        "checkpointed to",
    ];
    let dir = TempDir::new("flags");
    let order_67 = file_in(
        &dir,
        "o67.tws",
        "Set A 1 67\nSolved\nA\n1\nEnd\nMove X\nA\n1\n1\nEnd\n",
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let resume_empty = ["resume", empty.to_str().unwrap()];
    let count_67 = ["count", order_67.as_str()];
    let cases: Vec<(&[&str], &[&str])> = vec![
        (
            &["count", "klotski", "--metric", "qtm"],
            &[
                "error: --metric qtm is a twisty puzzle's metric; klotski is a sliding-block puzzle\n  help: give --metric step, slide or piece",
            ],
        ),
        (
            &["count", "tests/data/cube2.tws", "--metric", "step"],
            &[
                "error: --metric step is a sliding-block metric; 2x2x2 is a twisty puzzle\n  help: give --metric htm (each move and its powers, the default), qtm (each move and its inverse) or moves (the moves as written)",
            ],
        ),
        (
            &["count", "klotski", "--moves", "U"],
            &[
                "error: --moves chooses a twisty puzzle's generators; klotski is not a twisty puzzle (.tws or KPuzzle file)",
            ],
        ),
        (
            &["count", "clocks", "--metric", "step"],
            &[
                "error: --metric applies to sliding-block and twisty puzzles; the clocks have one kind of move",
            ],
        ),
        (
            &["count", "tiles-3x3", "--moves", "U"],
            &[
                "error: --moves applies to twisty puzzles (.tws or KPuzzle files); tiles-3x3 moves one tile a cell at a time",
            ],
        ),
        (
            &["count", "tiles-4x4", "--visited", "bitmap"],
            &["\n  help: leave out --visited (the automatic choice), or use --visited dashmap\n"],
        ),
        (
            &[
                "count",
                "tests/data/cube2.tws",
                "--metric",
                "moves",
                "--visited",
                "frontier",
            ],
            &[
                "error: frontier search needs moves that can be undone, and this puzzle's cannot\n  help: leave out --visited (the automatic choice), or use --visited dashmap or bitmap",
            ],
        ),
        (
            &[
                "count",
                "tests/data/cube3.tws",
                "--visited",
                "bitmap",
                "--max-depth",
                "2",
            ],
            &[
                "\n  help: leave out --visited; with --spill DIR the levels go to disk, and --max-depth or --max-states bounds the search",
            ],
        ),
        (
            &[
                "count",
                "pe766",
                "--visited",
                "dashmap",
                "--spill",
                "never-made",
            ],
            &[
                "error: --spill needs frontier search (moves that can be undone) or a key space small enough for a bitmap",
            ],
        ),
        (
            &[
                "count",
                "tests/data/cube2-rotations.tws",
                "--symmetry",
                "on",
                "--visited",
                "dense",
            ],
            &[
                "so it cannot weigh classes of symmetric positions: it keeps no level as keys\n  help: leave out --visited (the automatic choice)",
            ],
        ),
        (
            &["solve", "tests/data/cube2.tws", "--scramble", "Q"],
            &["error: --scramble \"Q\": \"Q\" is not a move of 2x2x2\n"],
        ),
        (
            &count_67,
            &["\n  help: use --metric qtm (the move and its inverse) or --metric moves\n"],
        ),
        (
            &["count", "tests/data/cube2.tws", "--moves", "U,Q"],
            &["error: --moves: 2x2x2 has no move \"Q\"\n"],
        ),
        (
            &["count", "tests/data/cube3-rotations.tws", "--moves", "U,Fv"],
            &["error: --moves: Fv is a rotation of cube3-rotations: it turns the whole puzzle"],
        ),
        (
            &resume_empty,
            &["help: give the directory that the run's --checkpoint named; a run that finished"],
        ),
    ];
    for (args, says) in cases {
        refused(args, says, &library);
    }
    // The clocks' readings.
    let out = reach()
        .arg("clocks")
        .write_stdin("9 9 12 6 6 6 6 3 7\n")
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(use --codes for 0-3)"), "{err}");
    assert!(!err.contains("read with `codes`"), "{err}");
}

/// Why a store was chosen names the flags that chose it, in the summary
/// and in `--json` (the library's `Report::store` names its options).
#[test]
fn store_reasons_name_the_command_lines_flags() {
    let dir = TempDir::new("store-flags");
    let spill = dir.path().join("levels");
    let cases: [(&[&str], &[&str]); 4] = [
        (
            &[
                "count",
                "eleven",
                "--visited",
                "dashmap",
                "--max-depth",
                "3",
            ],
            &["as asked (--visited)"],
        ),
        (
            &[
                "count",
                "eleven",
                "--max-depth",
                "3",
                "--memory-limit",
                "40M",
            ],
            &[
                "keys, 29 MiB, is over half of --memory-limit) (not dense",
                "; with --spill DIR the array goes on disk)",
            ],
        ),
        (
            &[
                "count",
                "eleven",
                "--max-depth",
                "3",
                "--keep",
                "--spill",
                spill.to_str().unwrap(),
            ],
            &["cannot keep every level on disk (--keep))"],
        ),
        (
            &["count", "eleven", "--visited", "dense", "--max-depth", "3"],
            &["as asked (--visited dense)"],
        ),
    ];
    let library = [
        "the visited set chosen",
        "the dense store chosen",
        "as the spill asks",
        "with a spill directory",
        "half of the memory limit",
    ];
    for (args, says) in cases {
        let out = reach().args(args).assert().success().get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        for says in says {
            assert!(err.contains(says), "{args:?} should say {says:?}: {err}");
        }
        let out = reach()
            .args(args)
            .arg("--json")
            .assert()
            .success()
            .get_output()
            .clone();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let store = v["store"].as_str().unwrap();
        for says in says {
            assert!(store.contains(says), "{args:?} --json: {store}");
        }
        for words in library {
            assert!(
                !err.contains(words) && !store.contains(words),
                "{args:?}: {err}"
            );
        }
    }
}
