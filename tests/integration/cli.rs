//! The command line: outputs, exit codes and error messages.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command as StdCommand, Stdio};

use assert_cmd::Command;
use predicates::prelude::*;

fn reach() -> Command {
    Command::cargo_bin("reach").unwrap()
}

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The stdout of `reach ARGS`, which must exit with `code`.
fn stdout_of(args: &[&str], code: i32) -> String {
    let out = reach()
        .args(args)
        .assert()
        .code(code)
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// The JSON object `reach ARGS` prints, exiting with `code`.
fn json_of(args: &[&str], code: i32) -> serde_json::Value {
    serde_json::from_str(&stdout_of(args, code)).unwrap()
}

/// `reach ARGS < tests/data/FILE`.
fn piped(args: &[&str], file: &str) -> assert_cmd::assert::Assert {
    reach().args(args).pipe_stdin(data(file)).unwrap().assert()
}

/// The contents of `tests/data/FILE`.
fn expected(file: &str) -> String {
    std::fs::read_to_string(data(file)).unwrap()
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("reach-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn default_run_counts_pe766() {
    let out = reach()
        .args(["--threads", "2"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().last(), Some("2613742"));
    let stderr = String::from_utf8(out.stderr).unwrap();
    for field in [
        "puzzle      pe766",
        "states      2613742",
        "depth       1368",
        "time",
        "thread",
    ] {
        assert!(stderr.contains(field), "{field} missing from {stderr}");
    }
}

#[test]
fn count_builtin_prints_the_count_last() {
    reach()
        .args(["count", "pe766-example", "--threads", "3"])
        .assert()
        .success()
        .stdout("208\n");
}

#[test]
fn count_json_shape() {
    let v = json_of(&["count", "pe766-example", "--json", "--threads", "2"], 0);
    assert_eq!(v["puzzle"], "pe766-example");
    assert_eq!(v["states"], 208);
    assert_eq!(v["depth"], 22);
    assert_eq!(v["levels"].as_array().unwrap().len(), 23);
    assert_eq!(v["levels"][2], 6);
    assert_eq!(v["threads"], 2);
    assert_eq!(v["complete"], true);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
}

#[test]
fn count_antipodes_prints_boards() {
    let text = stdout_of(&["count", "eight", "--antipodes"], 0);
    assert!(text.contains("867\n254\n3.1\n"), "{text}");
    assert!(text.contains("647\n85.\n321\n"), "{text}");
    assert_eq!(text.lines().last(), Some("181440"));
}

#[test]
fn unknown_puzzle_is_exit_2() {
    reach().args(["count", "nosuch"]).assert().code(2).stderr(
        predicate::str::contains("unknown puzzle \"nosuch\"")
            .and(predicate::str::contains("pe766")),
    );
}

#[test]
fn usage_errors_are_exit_2() {
    reach().args(["count"]).assert().code(2);
    reach().args(["--threads", "0"]).assert().code(2);
    reach()
        .args(["count", "eight", "--metric", "hop"])
        .assert()
        .code(2);
    reach()
        .args(["count", "eight", "--memory-limit", "lots"])
        .assert()
        .code(2);
}

#[test]
fn solve_prints_length_then_moves() {
    let text = stdout_of(&["solve", "klotski", "--metric", "slide"], 0);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "90");
    assert_eq!(lines.len(), 91);
    assert!(lines[1..].iter().all(|l| {
        let mut w = l.split(' ');
        w.next().is_some_and(|p| p.chars().count() == 1)
            && w.all(|d| ["up", "down", "left", "right"].contains(&d))
    }));
}

#[test]
fn solve_json_and_boards() {
    let v = json_of(
        &[
            "solve",
            "rush-hour",
            "--metric",
            "slide",
            "--json",
            "--boards",
        ],
        0,
    );
    assert_eq!(v["metric"], "slide");
    assert_eq!(v["length"], 49);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 49);
    assert!(moves[0]["piece"].is_string());
    assert!(moves[0]["path"].is_array());
    let last = moves[48]["board"].as_str().unwrap();
    assert_eq!(last.lines().nth(2).unwrap().get(4..), Some("AA"));
    // In text, a blank line between a board and the next move's line.
    let out = reach()
        .args(["solve", "tests/data/rush-hour-17.toml", "--boards"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("14\nGJOOPP\n"), "{text}");
    assert_eq!(text.matches("\n\n").count(), 14, "{text}");
    assert!(text.contains("CQBBLL\n\nA right\n"), "{text}");
}

#[test]
fn solve_without_goal_or_solution() {
    reach()
        .args(["solve", "pe766"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no goal"));
    let file = temp_file(
        "stuck.toml",
        "board = \"\"\"\nA.#B\n\"\"\"\ndistinct = \"*\"\ngoal = \"\"\"\n...A\n\"\"\"\n",
    );
    // Behind a wall: no position can meet the goal, which needs no search.
    reach()
        .args(["solve", file.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout("no solution\n")
        .stderr(predicate::str::contains("can reach the goal"));
    // Reachable on an empty board, but another piece is in the way.
    let file = temp_file(
        "blocked.toml",
        "board = \"\"\"\nAB.\n\"\"\"\ndistinct = \"*\"\ngoal = \"\"\"\n..A\n\"\"\"\n",
    );
    reach()
        .args(["solve", file.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout("no solution\n")
        .stderr(predicate::str::contains("cannot be reached"));
    // A goal cell on a wall: `count` works, `solve` says why.
    let file = temp_file(
        "walled.toml",
        "board = \"\"\"\nA.#\n\"\"\"\ngoal = \"\"\"\n..A\n\"\"\"\n",
    );
    assert_eq!(stdout_of(&["count", file.to_str().unwrap()], 0).trim(), "2");
    reach()
        .args(["solve", file.to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("on a wall"));
    reach()
        .args(["solve", "pe766"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("reach show pe766"));
}

#[test]
fn puzzle_files_count_show_and_fail_clearly() {
    let good = temp_file(
        "mini.toml",
        "name = \"mini\"\nboard = \"\"\"\nAB.\nC.D\n\"\"\"\ndistinct = \"A\"\ngoal = \"\"\"\n..A\n...\n\"\"\"\n",
    );
    reach()
        .args(["count", good.to_str().unwrap()])
        .assert()
        .success();
    reach()
        .args(["show", good.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("key space").and(predicate::str::contains("distinct")));
    reach()
        .args(["solve", good.to_str().unwrap(), "--metric", "piece"])
        .assert()
        .success();
    let bad = temp_file("ragged.toml", "board = \"\"\"\nAB.\nC.\n\"\"\"\n");
    reach()
        .args(["count", bad.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("ragged.toml:3:1:").and(predicate::str::contains("help:")),
        );
    reach()
        .args(["count", "no/such/file.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read"));
}

#[test]
fn list_names_every_builtin() {
    reach()
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains("klotski").and(predicate::str::contains("clocks")));
}

#[test]
fn clocks_command_matches_the_samples() {
    piped(&["clocks"], "clocks.usaco-sample.in")
        .success()
        .stdout(expected("clocks.usaco-sample.out"));
    piped(&["clocks", "--codes"], "clocks.ioi94-sample.in")
        .success()
        .stdout("4 5 8 9\n");
    reach()
        .arg("clocks")
        .write_stdin("12 12 12 12 12 12 12 12 12")
        .assert()
        .success()
        .stdout("\n");
    reach()
        .arg("clocks")
        .write_stdin("12 12 13")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("\"13\""));
    reach()
        .args(["count", "clocks"])
        .assert()
        .success()
        .stdout("262144\n");
}

#[test]
fn sawtooth_command_matches_the_sample() {
    piped(&["sawtooth"], "sawtooth.sample.in")
        .success()
        .stdout(expected("sawtooth.sample.out"));
    piped(&["sawtooth", "--count"], "sawtooth.sample.in")
        .success()
        .stderr(predicate::str::contains("case 1:"));
    reach()
        .arg("sawtooth")
        .write_stdin("2\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("case 1"));
}

#[test]
fn limits_give_a_partial_report_and_exit_3() {
    // A depth the user asked for is a whole answer: exit 0, said so.
    reach()
        .args(["count", "klotski", "--max-depth", "5"])
        .assert()
        .code(0)
        .stdout("62 (to depth 5, as asked)\n")
        .stderr(predicate::str::contains(
            "limit       to depth 5, as asked (--max-depth 5)",
        ))
        .stderr(predicate::str::contains("PARTIAL").not());
    let v = json_of(&["count", "klotski", "--max-depth", "5", "--json"], 0);
    assert_eq!(v["complete"], false);
    assert!(v["stop_reason"].as_str().unwrap().contains("max-depth 5"));
    // A limit that cuts the work short against the user's wish is partial.
    reach()
        .args(["count", "klotski", "--max-states", "100"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("partial"))
        .stderr(predicate::str::contains("PARTIAL"));
    let v = json_of(&["count", "klotski", "--max-states", "100", "--json"], 3);
    assert_eq!(v["complete"], false);
    assert!(v["stop_reason"].as_str().unwrap().contains("max-states"));
    assert!(v["states"].as_u64().unwrap() <= 100);
    // With --json, stderr still says why the document is partial.
    reach()
        .args(["count", "klotski", "--max-states", "100", "--json"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "PARTIAL: stopped (the next level would exceed --max-states 100)",
        ));
    // A limit below what the process holds before it starts is refused.
    reach()
        .args(["count", "pe766", "--memory-limit", "1K"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("memory-limit"));
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("reach"))
        .args(["count", "eight", "--antipodes"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    assert!(child.wait().unwrap().success());
}

/// Starts a long count, waits for its first progress line, sends `signal`;
/// the stop reason printed must be `reason`.
fn interrupt(signal: &str, reason: &str) -> (Option<i32>, String) {
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("reach"))
        .args(["count", "eleven", "--verbose", "--threads", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    assert!(first.contains("depth"), "{first}");
    let status = StdCommand::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains(&format!("partial: {reason})")), "{stdout}");
    (out.status.code(), rest)
}

#[test]
fn sigint_and_sigterm_end_with_a_partial_report() {
    let (code, stderr) = interrupt("-INT", "interrupted");
    assert_eq!(code, Some(130));
    assert!(stderr.contains("PARTIAL"), "{stderr}");
    let (code, stderr) = interrupt("-TERM", "terminated");
    assert_eq!(code, Some(143));
    assert!(stderr.contains("stopped: terminated"), "{stderr}");
}

#[test]
fn stdin_garbage_is_rejected() {
    let mut bytes = vec![0xffu8, 0xfe, 0x00];
    bytes.write_all(b"garbage").unwrap();
    reach()
        .arg("clocks")
        .write_stdin(bytes.clone())
        .assert()
        .code(2);
    reach().arg("sawtooth").write_stdin(bytes).assert().code(2);
}

#[test]
fn json_says_how_the_table_was_made() {
    let started = std::time::SystemTime::now();
    let v = json_of(&["count", "klotski", "-j", "2", "--json"], 0);
    let run = &v["run"];
    assert_eq!(run["reach"], env!("CARGO_PKG_VERSION"));
    let command: Vec<&str> = run["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(command[1..], ["count", "klotski", "-j", "2", "--json"]);
    assert_eq!(run["threads"], 2);
    assert!(run["host"]["cores"].as_u64().unwrap() >= 1);
    // Started in this test's second or after it, in UTC.
    let at = humantime::parse_rfc3339(run["started"].as_str().unwrap()).unwrap();
    assert!(
        at.duration_since(started).is_ok() || started.duration_since(at).unwrap().as_secs() < 1
    );
    assert!(run["wall_seconds"].as_f64().unwrap() >= v["seconds"].as_f64().unwrap());
    // The commit it was built from, in a checkout.
    if let Ok(out) = StdCommand::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        && out.status.success()
    {
        assert_eq!(run["commit"], String::from_utf8_lossy(&out.stdout).trim());
    }
    // A solve's and a partial report's too.
    let v = json_of(&["solve", "klotski", "--json"], 0);
    assert_eq!(v["run"]["command"][1], "solve");
    let v = json_of(&["count", "klotski", "--max-states", "100", "--json"], 3);
    assert!(v["run"]["wall_seconds"].is_number());
}

#[test]
fn piped_runs_say_how_far_they_are_now_and_then_unless_quiet() {
    // stderr is a pipe here. Every 10 s by default; 50 ms here, so that
    // the 15-puzzle to depth 23 (about a second) prints a few.
    let progress = |extra: &[&str]| {
        let out = reach()
            .env("REACH_PROGRESS_SECONDS", "0.05")
            .args(["count", "tiles-4x4", "--max-depth", "23", "-j", "2"])
            .args(extra)
            .assert()
            .success()
            .get_output()
            .clone();
        String::from_utf8(out.stderr).unwrap()
    };
    let err = progress(&[]);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("progress: "))
        .collect();
    assert!(!lines.is_empty(), "{err}");
    for l in &lines {
        assert!(l.contains(" running"), "{l}");
        assert!(
            !l.contains('\r') && !l.contains('\x1b'),
            "a plain line: {l:?}"
        );
    }
    // The summary follows them.
    assert!(err.contains("states      "), "{err}");
    let err = progress(&["--quiet"]);
    assert!(!err.contains("progress: "), "{err}");
    assert!(err.contains("states      "), "{err}");
    // --verbose's lines replace them.
    let err = progress(&["-v"]);
    assert!(!err.contains("progress: "), "{err}");
    assert!(err.contains("depth   23:"), "{err}");
    reach()
        .args(["count", "klotski", "-q", "-v"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be used with"));
}

#[test]
fn a_depth_limit_at_the_true_depth_is_a_complete_search() {
    // Klotski's depth is 167: a limit there cuts nothing short.
    let v = json_of(&["count", "klotski", "--max-depth", "167", "--json"], 0);
    assert_eq!(v["complete"], true);
    assert_eq!(v["states"], 25955);
    assert_eq!(v["stop_reason"], serde_json::Value::Null);
    // One level short: the table asked for, not the whole space (exit 0:
    // the limit was the user's; complete says it is not all).
    let v = json_of(&["count", "klotski", "--max-depth", "166", "--json"], 0);
    assert_eq!(v["complete"], false);
    // The same for a visited set (the clocks' depth is 27) and for solve.
    let v = json_of(&["count", "clocks", "--max-depth", "27", "--json"], 0);
    assert_eq!(v["states"], 262144);
    let v = json_of(&["count", "clocks", "--max-depth", "26", "--json"], 0);
    assert_eq!(v["complete"], false);
}

#[test]
fn limits_and_choices_that_cannot_be_honoured_are_refused() {
    reach()
        .args(["count", "klotski", "--max-states", "0"])
        .assert()
        .code(2);
    reach()
        .args(["count", "clocks", "--visited", "frontier"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("help:").and(predicate::str::contains("dashmap")));
    reach()
        .args(["count", "pe766", "--visited", "bitmap"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("help:"));
    reach()
        .args(["count", "klotski", "--partitions", "12"])
        .assert()
        .code(2);
}

#[test]
fn thread_counts_past_the_bound_are_refused() {
    reach()
        .args(["-j", "100000"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("4 per core"));
    // -j and -t are short for --threads, on every searching command.
    let v = json_of(&["count", "klotski", "-j", "3", "--json"], 0);
    assert_eq!(v["threads"], 3);
    let v = json_of(&["count", "klotski", "-t", "2", "--json"], 0);
    assert_eq!(v["threads"], 2);
}

#[test]
fn the_bare_run_takes_counts_options() {
    let v = json_of(&["--max-states", "1000", "--json", "-j", "2"], 3);
    assert_eq!(v["puzzle"], "pe766");
    assert_eq!(v["complete"], false);
    let v = json_of(&["--metric", "slide", "--max-depth", "3", "--json"], 0);
    assert_eq!(v["metric"], "slide");
}

#[test]
fn a_closed_or_full_stderr_is_not_an_internal_error() {
    // `2>/dev/full`: stderr writes fail; the count still reaches stdout.
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    if let Ok(full) = full {
        let out = StdCommand::new(assert_cmd::cargo::cargo_bin("reach"))
            .args(["count", "klotski", "--verbose"])
            .stderr(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "25955");
    }
    // `2>&1 | head -2`: stderr closed by its reader.
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("reach"))
        .args(["count", "pe766-example", "--verbose"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn a_full_stdout_has_its_own_exit_code() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let out = StdCommand::new(assert_cmd::cargo::cargo_bin("reach"))
        .args(["count", "klotski"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("cannot write the output")
    );
}

#[test]
fn endless_inputs_are_read_only_up_to_the_limit() {
    // /dev/zero reports no length; it must not be read without bound.
    reach()
        .args(["count", "/dev/zero"])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("at most 1048576 bytes"));
    let big = vec![b'1'; 17 << 20];
    reach()
        .arg("clocks")
        .write_stdin(big.clone())
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("more than 16 MiB"));
    reach()
        .arg("sawtooth")
        .write_stdin(big)
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2);
}

#[test]
fn every_command_speaks_json() {
    let v = json_of(&["list", "--json"], 0);
    assert!(v["puzzles"].as_array().unwrap().len() >= 8);
    let v = json_of(&["show", "pe766", "--json"], 0);
    assert_eq!(v["key_space"], 139_490_400_000u64);
    assert_eq!(v["classes"].as_array().unwrap().len(), 6);
    let v = json_of(&["show", "klotski", "--json"], 0);
    assert!(v["goal"].as_str().unwrap().contains("BB"));
    let v = json_of(&["show", "clocks", "--json"], 0);
    assert_eq!(v["clocks"], 9);
    let out = reach()
        .args(["clocks", "--json"])
        .write_stdin(expected("clocks.usaco-sample.in"))
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["moves"], serde_json::json!([4, 5, 8, 9]));
    let out = reach()
        .args(["sawtooth", "--json"])
        .write_stdin(expected("sawtooth.sample.in"))
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["cases"][0]["steps"], 6);
}

#[test]
fn with_json_every_exit_prints_one_document() {
    let error = |args: &[&str], code: i32| {
        let v = json_of(args, code);
        let e = &v["error"];
        assert_eq!(e["exit"], code, "{v}");
        assert!(!e["message"].as_str().unwrap().is_empty(), "{v}");
        assert!(!e["message"].as_str().unwrap().starts_with("error"), "{v}");
        assert!(!e["help"].as_str().unwrap().is_empty(), "{v}");
        e["message"].as_str().unwrap().to_string()
    };
    // Bad input, from the library and from the grammar; before the command too.
    assert!(error(&["count", "no-such.tws", "--json"], 2).contains("no-such.tws"));
    assert!(error(&["--json", "count", "no-such.tws"], 2).contains("no-such.tws"));
    assert!(error(&["count", "eight", "--bogus", "--json"], 2).contains("--bogus"));
    assert!(error(&["count", "eight", "-j", "x", "--json"], 2).contains("'x'"));
    assert!(error(&["resume", "no-such-dir", "--json"], 2).contains("no-such-dir"));
    // An output that cannot be written, found before the search.
    assert!(
        error(
            &["count", "eight", "--plot", "/no/such/dir/p.svg", "--json"],
            4
        )
        .contains("p.svg")
    );
    // A limit: the partial report is the document, with no error in it.
    let v = json_of(&["count", "klotski", "--max-states", "100", "--json"], 3);
    assert!(v.get("error").is_none() && v["complete"] == false, "{v}");
    // Help and the version are text, as asked for.
    let out = stdout_of(&["count", "--help", "--json"], 0);
    assert!(out.contains("Usage"), "{out}");
}

#[test]
fn the_summary_prints_a_short_profile() {
    let out = reach()
        .args(["count", "pe766"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let line = stderr.lines().find(|l| l.starts_with("levels")).unwrap();
    assert!(line.len() < 200, "{line}");
    assert!(line.contains("widest: 12712 at depth"), "{line}");
}

#[test]
fn completions_are_generated() {
    for shell in ["bash", "zsh", "fish"] {
        let out = stdout_of(&["completions", shell], 0);
        assert!(out.contains("reach"), "{shell}");
        assert!(out.contains("max-states"), "{shell}");
    }
}

#[test]
fn an_address_space_limit_stops_with_a_partial_report() {
    // `ulimit -v` used to end `count eleven` with SIGABRT and no report.
    let bin = assert_cmd::cargo::cargo_bin("reach");
    let out = StdCommand::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 800000 && exec {} count eleven -j 2 --json --visited bitmap",
            bin.display()
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["complete"], false);
    assert!(
        v["stop_reason"].as_str().unwrap().contains("ulimit -v"),
        "{v}"
    );
    assert!(v["states"].as_u64().unwrap() > 1_000_000);
}

#[test]
fn hardest_prints_the_distance_and_examples() {
    let v = json_of(
        &[
            "hardest", "klotski", "--metric", "piece", "--top", "5", "--json",
        ],
        0,
    );
    assert_eq!(v["component"], 25955);
    assert_eq!(v["goal_states"], 964);
    assert_eq!(v["distance"], 93);
    assert_eq!(v["count"], 2);
    assert_eq!(v["start_distance"], 81);
    assert_eq!(v["examples"].as_array().unwrap().len(), 2);
    let text = stdout_of(&["hardest", "rush-hour", "--metric", "slide"], 0);
    assert_eq!(text.lines().next(), Some("49"));
    assert!(text.contains("BBBCDE"), "{text}");
    reach()
        .args(["hardest", "pe766"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no goal"));
    let file = temp_file(
        "blocked-hardest.toml",
        "board = \"\"\"\nAB.\n\"\"\"\ndistinct = \"*\"\ngoal = \"\"\"\n..A\n\"\"\"\n",
    );
    reach()
        .args(["hardest", file.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout("no goal\n");
}

#[test]
fn solutions_and_profiles_to_look_at() {
    let dir = std::env::temp_dir().join(format!("reach-watch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (html, svg, plot) = (dir.join("k.html"), dir.join("k.svg"), dir.join("p.svg"));
    reach()
        .args(["solve", "klotski", "--metric", "piece", "--html"])
        .arg(&html)
        .arg("--svg")
        .arg(&svg)
        .assert()
        .code(0);
    let page = std::fs::read_to_string(&html).unwrap();
    // Self-contained: no script, style, font or image from elsewhere.
    for needle in ["src=\"http", "href=\"http", "@import", "url("] {
        assert!(!page.contains(needle), "{needle}");
    }
    // The page's data: every piece once, where each is at every step, the
    // moves in words, the goal's outline and the legend.
    let data = page
        .split("const DATA = ")
        .nth(1)
        .and_then(|d| d.split(";\n").next())
        .unwrap();
    let data: serde_json::Value = serde_json::from_str(data).unwrap();
    assert_eq!(data["pieces"].as_array().unwrap().len(), 10, "ten pieces");
    assert_eq!(
        data["at"].as_array().unwrap().len(),
        82,
        "the start and 81 positions"
    );
    assert_eq!(data["moves"].as_array().unwrap().len(), 81);
    assert!(
        data["moves"][0]["text"].as_str().unwrap().contains(" 1"),
        "moves in words"
    );
    assert!(
        data["goal"].as_str().unwrap().starts_with('M'),
        "the goal's outline"
    );
    let legend = data["legend"].to_string();
    assert!(
        legend.contains("ACDF: 4 interchangeable pieces") && legend.contains("B: the goal's piece")
    );
    assert!(page.contains("prefers-reduced-motion"));
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(
        svg.matches("<rect").count(),
        44,
        "two boards of 20 cells and four swatches"
    );
    assert_eq!(
        svg.matches("<path").count(),
        13,
        "ten pieces, B on the goal board, the goal's outline on both"
    );
    reach()
        .args(["count", "klotski", "--plot"])
        .arg(&plot)
        .assert()
        .code(0);
    let plot = std::fs::read_to_string(&plot).unwrap();
    assert!(plot.contains("25955 states, depth 167"), "the title");
    assert!(plot.contains("log scale"));
    assert!(
        plot.contains("the goal, at depth 116"),
        "the goal's depth marked"
    );
    assert_eq!(
        plot.matches("<circle").count(),
        2 * 168,
        "a point a level, twice"
    );
    // A one-state puzzle: a point, not empty axes.
    let one = temp_file("one-state.toml", "board = \"\"\"\n#A#\n\"\"\"\n");
    let one_plot = dir.join("one.svg");
    reach()
        .args(["count", one.to_str().unwrap(), "--plot"])
        .arg(&one_plot)
        .assert()
        .code(0);
    let one_plot = std::fs::read_to_string(&one_plot).unwrap();
    assert!(one_plot.contains("1 state, depth 0"), "the title");
    assert_eq!(one_plot.matches("<circle").count(), 2);
    // A file that cannot be written is an output error.
    reach()
        .args(["solve", "klotski", "--html", "/nonexistent/dir/k.html"])
        .assert()
        .code(4);
}

#[test]
fn output_paths_are_checked_before_the_search_and_written_whole() {
    let dir = std::env::temp_dir().join(format!("reach-outputs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let checkpoint = dir.join("ckpt");
    // A missing directory (exit 4), or a directory given as the file (no
    // output may go there: exit 2), at once, before the search (no count
    // on stdout, no checkpoint made), with the file named.
    for (args, bad, code) in [
        (
            vec!["count", "eleven", "--plot"],
            "/nonexistent/dir/p.svg".to_string(),
            4,
        ),
        (
            vec!["count", "eleven", "--plot"],
            dir.display().to_string(),
            2,
        ),
        (
            vec!["solve", "klotski", "--svg"],
            "/nonexistent/dir/k.svg".to_string(),
            4,
        ),
    ] {
        reach()
            .args(&args)
            .arg(&bad)
            .arg("--checkpoint")
            .arg(&checkpoint)
            .assert()
            .code(code)
            .stdout("")
            .stderr(predicate::str::contains(format!("cannot write {bad}")));
        assert!(!checkpoint.exists(), "{args:?}: the checkpoint was begun");
    }
    // A written picture leaves no temporary file beside it, and the report
    // came first.
    let plot = dir.join("p.svg");
    reach()
        .args(["count", "eight", "--plot"])
        .arg(&plot)
        .assert()
        .code(0)
        .stdout(predicate::str::ends_with("181440\n"));
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["p.svg"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_hostile_puzzle_s_page_carries_no_markup_of_its_own() {
    // The hostile tester's file: a name that is a placeholder and markup,
    // labels that spell markup. (scripts/browser-check.sh loads the page
    // in headless Chromium and checks that none of it runs.)
    let dir = std::env::temp_dir().join(format!("reach-hostile-page-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("p.html");
    reach()
        .args(["solve", "tests/data/hostile-page.toml", "--html"])
        .arg(&page)
        .assert()
        .code(0);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        html.matches("<script").count(),
        1,
        "one script: the page's own"
    );
    assert!(
        !html.contains("<svg/onload"),
        "a label's markup reached the page"
    );
    assert!(
        html.contains("<h1>{{DATA}}&lt;/title&gt;&lt;script&gt;"),
        "the name, escaped"
    );
    assert!(
        html.contains("\"label\":\"\\u003c\"") && html.contains("\"label\":\"\\u003e\""),
        "the labels, as data"
    );
    assert!(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn json_goes_before_the_command_too() {
    for args in [
        ["--json", "list", "", ""],
        ["--json", "count", "eight", "-j1"],
    ] {
        let args: Vec<&str> = args.into_iter().filter(|a| !a.is_empty()).collect();
        let out = reach()
            .args(&args)
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone();
        let v: serde_json::Value = serde_json::from_slice(&out).expect("one JSON document");
        assert!(v.is_object(), "{args:?}");
    }
}

#[test]
fn the_hardest_position_as_a_puzzle_file_and_a_page() {
    let dir = std::env::temp_dir().join(format!("reach-hardest-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (toml, html) = (dir.join("hard.toml"), dir.join("hard.html"));
    reach()
        .args(["hardest", "tests/data/rush-hour-17.toml", "--toml"])
        .arg(&toml)
        .arg("--html")
        .arg(&html)
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("16\n"));
    let text = std::fs::read_to_string(&toml).unwrap();
    // The same rails, the same goal, its own name.
    for line in [
        "horizontal = \"ABDHKLNOP\"",
        "vertical = \"CEFGIJMQ\"",
        "distinct = \"*\"",
        "name = \"rush-hour-17 (hardest)\"",
    ] {
        assert!(text.contains(line), "{line} missing:\n{text}");
    }
    // It solves in the hardest distance, and the page plays that solution.
    reach()
        .arg("solve")
        .arg(&toml)
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("16\n"));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<title>rush-hour-17 (hardest): 16 step moves</title>"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sliding_puzzle_past_64_bits_counts_solves_resumes_and_finds_its_hardest() {
    // The 24-puzzle from solved as a file: 25^24 = 2^111 keys, two words.
    let five = temp_file(
        "five.toml",
        "board = \"\"\"\nABCDE\nFGHIJ\nKLMNO\nPQRST\nUVWX.\n\"\"\"\ndistinct = \"*\"\n",
    );
    let five = five.to_str().unwrap();
    let show = stdout_of(&["show", five], 0);
    assert!(show.contains("over 2^64: keys of 2 words"), "{show}");
    assert!(
        show.contains("store (count): frontier: keys of 2 words"),
        "{show}"
    );
    let v = json_of(&["show", five, "--json"], 0);
    assert_eq!(v["key_words"], 2, "{v}");
    assert!(v["key_space"].is_null(), "{v}");
    // OEIS A090031, in memory, on disk, and checkpointed, stopped and
    // resumed.
    let a090031 = serde_json::json!([
        1, 2, 4, 10, 26, 64, 159, 366, 862, 1904, 4538, 10238, 24098, 53186, 123435
    ]);
    let v = json_of(&["count", five, "--max-depth", "14", "--json"], 0);
    assert_eq!(v["levels"], a090031, "{v}");
    assert_eq!(v["key_bytes"], 16, "{v}");
    let dir = std::env::temp_dir().join(format!("reach-wide-sliding-{}", std::process::id()));
    let spill = dir.join("spill");
    let spill = spill.to_str().unwrap();
    let v = json_of(
        &[
            "count",
            five,
            "--max-depth",
            "14",
            "--json",
            "--spill",
            spill,
        ],
        0,
    );
    assert_eq!(v["levels"], a090031, "{v}");
    let cp = dir.join("cp");
    let cp = cp.to_str().unwrap();
    let args = ["count", five, "--max-depth", "14", "--max-states", "20000"];
    reach()
        .args(args)
        .args(["--checkpoint", cp])
        .assert()
        .code(3);
    let v = json_of(&["resume", cp, "--max-states", "1000000", "--json"], 0);
    assert_eq!(v["levels"], a090031, "{v}");
    // A few moves from solved: the shortest solution, replayed by the
    // independent checker.
    let v = json_of(&["solve", &data("24-puzzle.toml"), "--json"], 0);
    assert_eq!(v["length"], 14, "{v}");
    let moves = crate::replay::json_moves(&v);
    let rules = crate::replay::Rules {
        board: "ABCDE\nFHSIJ\nKG.RN\nPLQMO\nUVWXT",
        horizontal: "",
        vertical: "",
        goal: "ABCDE\nFGHIJ\nKLMNO\nPQRST\nUVWX.",
        stand_ins: &[],
    };
    crate::replay::check(&rules, crate::replay::Metric::Step, &moves).unwrap();
    // 31 distinct dominoes on rails, 7^31 = 2^87 keys, jammed but for the
    // first row: its hardest position, written as a file, solves in the
    // distance reported.
    let mut board = String::from("AABBCC..\n");
    let labels: Vec<char> = ('D'..='Z').chain('a'..='e').collect();
    for row in labels.chunks(4) {
        board.extend(row.iter().flat_map(|&l| [l, l]));
        board.push('\n');
    }
    let jam = format!(
        "board = \"\"\"\n{board}\"\"\"\ndistinct = \"*\"\nhorizontal = \"ABC{}\"\ngoal = \"\"\"\n......CC\n{}\"\"\"\n",
        labels.iter().collect::<String>(),
        "........\n".repeat(7)
    );
    let jam = temp_file("jam.toml", &jam);
    let hard = dir.join("hard.toml");
    let page = dir.join("hard.html");
    let v = json_of(
        &[
            "hardest",
            jam.to_str().unwrap(),
            "--json",
            "--toml",
            hard.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(v["component"], 10, "{v}");
    assert_eq!(v["distance"], 2, "{v}");
    assert!(std::fs::read_to_string(&page).unwrap().contains("<html"));
    let solved = json_of(&["solve", hard.to_str().unwrap(), "--json"], 0);
    assert_eq!(solved["length"], v["distance"], "{solved}");
    std::fs::remove_dir_all(&dir).unwrap();
}
