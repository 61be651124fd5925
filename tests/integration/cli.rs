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
    reach()
        .args(["solve", file.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout("no solution\n")
        .stderr(predicate::str::contains("cannot be reached"));
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
    reach()
        .args(["count", "klotski", "--max-depth", "5"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("partial"))
        .stderr(predicate::str::contains("PARTIAL"));
    let v = json_of(&["count", "klotski", "--max-states", "100", "--json"], 3);
    assert_eq!(v["complete"], false);
    assert!(v["stop_reason"].as_str().unwrap().contains("max-states"));
    assert!(v["states"].as_u64().unwrap() <= 100);
    reach()
        .args(["count", "pe766", "--memory-limit", "1K"])
        .assert()
        .code(3)
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

/// Starts a long count, waits for its first progress line, sends `signal`.
fn interrupt(signal: &str) -> (Option<i32>, String) {
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
    assert!(stdout.contains("partial: interrupted"), "{stdout}");
    (out.status.code(), rest)
}

#[test]
fn sigint_and_sigterm_end_with_a_partial_report() {
    let (code, stderr) = interrupt("-INT");
    assert_eq!(code, Some(130));
    assert!(stderr.contains("PARTIAL"), "{stderr}");
    let (code, _) = interrupt("-TERM");
    assert_eq!(code, Some(143));
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
