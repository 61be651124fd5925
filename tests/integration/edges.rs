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
