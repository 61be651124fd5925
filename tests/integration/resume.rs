//! `--spill`, `--checkpoint` and `reach resume` through the binary: runs
//! killed at random moments resume to the uninterrupted report; damaged
//! checkpoints are refused with exit 2; a full filesystem ends with exit 3
//! and a checkpoint that resumes once there is room.

use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use assert_cmd::cargo::CommandCargoExt;

fn reach() -> Command {
    Command::cargo_bin("reach").unwrap()
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("reach-resume-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

/// The fields that must not depend on how the run was cut up.
fn essentials(v: &serde_json::Value) -> (serde_json::Value, serde_json::Value, serde_json::Value) {
    (v["states"].clone(), v["depth"].clone(), v["levels"].clone())
}

/// Starts `args`, kills it with SIGKILL after `after`; the JSON it printed
/// if it finished first.
fn run_killed(args: &[&str], after: Duration) -> Option<serde_json::Value> {
    let mut child = StdCommand::cargo_bin("reach")
        .unwrap()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while started.elapsed() < after {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            assert_eq!(status.code(), Some(0), "{args:?}");
            return Some(json(&out.stdout));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    None
}

#[test]
fn sigkill_at_random_moments_then_resume_gives_the_uninterrupted_count() {
    // A whole checkpointed count of mas takes about 400 ms here.
    killed_and_resumed("mas", 100, 400, "frontier");
}

#[test]
fn keys_of_two_words_killed_at_random_moments_resume_to_the_exact_count() {
    // The 24-puzzle's keys take two words: its first 18 levels (about 2.4
    // million states) with a checkpoint, killed and resumed; at the depth
    // asked the checkpoint stays, to go deeper.
    killed_and_resumed("tiles-5x5 --max-depth 17", 100, 600, "frontier");
}

#[test]
fn the_dense_store_killed_at_random_moments_resumes_to_the_exact_count() {
    // tiles-3x4 (2.4e8 states) with the dense store and its checkpoint of
    // pairs of levels: about 8 s at two threads here.
    killed_and_resumed("tiles-3x4", 2000, 6000, "dense");
}

/// Counts `puzzle` (a name and options) with a checkpoint, killed
/// (SIGKILL) at moments drawn from a seeded generator (the first within
/// `first_ms`, the next within `span_ms`) and resumed each time, until it
/// finishes: the report must be the uninterrupted one, with the `visited`
/// set asked for.
fn killed_and_resumed(puzzle: &str, first_ms: u64, span_ms: u64, visited: &str) {
    let words: Vec<&str> = puzzle.split_whitespace().collect();
    let dir = TempDir::new(&format!("kill-{}", words[0]));
    let cp = dir.join("cp");
    let cp = cp.to_str().unwrap();
    let reference = reach()
        .arg("count")
        .args(&words)
        .args(["--json", "-j", "2"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let reference = json(&reference);
    // Moments from a seeded generator, printed on failure.
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let mut x = seed | 1;
    // The first moment is early, so that at least one run is killed.
    let mut first = true;
    let mut next_ms = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let span = if std::mem::take(&mut first) {
            first_ms
        } else {
            span_ms
        };
        20 + x % span
    };
    let start: Vec<&str> = [
        &["count"][..],
        &words,
        &["--checkpoint", cp, "--json", "-j", "2"],
    ]
    .concat();
    let args = || -> Vec<&str> {
        if Path::new(cp).join("checkpoint.toml").exists() {
            vec!["resume", cp, "--json"]
        } else {
            // Killed before its first checkpoint: start again.
            let _ = std::fs::remove_dir_all(cp);
            start.clone()
        }
    };
    let mut kills = 0;
    let mut finished = None;
    let mut moments = Vec::new();
    for _ in 0..5 {
        let ms = next_ms();
        moments.push(ms);
        if let Some(v) = run_killed(&args(), Duration::from_millis(ms)) {
            finished = Some(v);
            break;
        }
        kills += 1;
    }
    let last = match finished {
        Some(v) => v,
        None => json(&reach().args(args()).assert().success().get_output().stdout),
    };
    assert_eq!(
        essentials(&last),
        essentials(&reference),
        "{puzzle}: seed {seed}, kills at {moments:?} ms"
    );
    assert_eq!(last["visited"], visited, "{puzzle}");
    assert!(kills >= 1, "no run was killed: moments {moments:?}");
    // A count to the depth asked keeps its checkpoint, to go deeper; a
    // finished one removes it.
    let depth_asked = words.contains(&"--max-depth");
    assert_eq!(
        Path::new(cp).join("checkpoint.toml").exists(),
        depth_asked,
        "{puzzle}: the checkpoint after the last run"
    );
}

#[test]
fn resume_says_how_and_refuses_what_it_cannot_trust() {
    let dir = TempDir::new("refuse");
    let cp = dir.join("cp");
    let cp_s = cp.to_str().unwrap();
    // A depth limit leaves a checkpoint and says how to go on.
    reach()
        .args([
            "count",
            "klotski",
            "--checkpoint",
            cp_s,
            "--max-depth",
            "30",
        ])
        .assert()
        .code(0)
        .stderr(predicates::str::contains(format!("reach resume {cp_s}")));
    // The same limit is kept on resume, so the hint raises it, and
    // following it goes on; a depth below the saved one is refused.
    reach()
        .args(["resume", cp_s])
        .assert()
        .code(0)
        .stderr(predicates::str::contains(format!(
            "continue with `reach resume {cp_s} --max-depth 60` (a depth above 30)"
        )));
    reach()
        .args(["resume", cp_s, "--max-depth", "60"])
        .assert()
        .code(0)
        .stderr(predicates::str::contains("levels 0 to 60 are saved"));
    reach()
        .args(["resume", cp_s, "--max-depth", "5"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "help: give --max-depth 60 or more (without it, the run's own limits hold)",
        ));
    let resumed = json(
        &reach()
            .args(["resume", cp_s, "--max-depth", "1000", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(resumed["states"], 25955);

    // Damaged: a level file with a flipped byte, exit 2 and its name.
    reach()
        .args([
            "count",
            "klotski",
            "--checkpoint",
            cp_s,
            "--max-depth",
            "30",
        ])
        .assert()
        .code(0);
    let level = std::fs::read_dir(&cp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "run"))
        .unwrap();
    let mut bytes = std::fs::read(&level).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&level, &bytes).unwrap();
    reach()
        .args(["resume", cp_s])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            level.file_name().unwrap().to_str().unwrap(),
        ))
        .stderr(predicates::str::contains("damaged"));

    // Missing: exit 2 and its name, not a bare error of the system's.
    std::fs::remove_file(&level).unwrap();
    reach()
        .args(["resume", cp_s])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "{} is missing",
            level.display()
        )))
        .stderr(predicates::str::contains("help:"));

    // A checkpoint directory that is a link to itself.
    let lp = dir.join("loop");
    std::os::unix::fs::symlink(&lp, &lp).unwrap();
    reach()
        .args(["count", "eight", "--checkpoint", lp.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "a symbolic link that leads nowhere",
        ));

    // No checkpoint at all.
    reach()
        .args(["resume", dir.join("nothing").to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("holds no checkpoint"));

    // Two directories, and --keep alone, are usage errors.
    reach()
        .args(["count", "mas", "--spill", "a", "--checkpoint", "b"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("two directories"));
    reach().args(["count", "mas", "--keep"]).assert().code(2);
}

#[test]
fn a_spilled_count_reports_its_disk_and_leaves_nothing_behind() {
    let dir = TempDir::new("spill");
    let spill = dir.join("levels");
    let v = json(
        &reach()
            .args([
                "count",
                "pe766",
                "--spill",
                spill.to_str().unwrap(),
                "--json",
            ])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(v["states"], 2_613_742);
    // pe766's thin levels stay in memory: no file, so no figure a state.
    assert_eq!(v["disk_written_bytes"], 0);
    assert!(v["disk_bytes_per_state"].is_null());
    assert!(!spill.exists());
    // --keep keeps the files.
    reach()
        .args(["count", "mas", "--spill", spill.to_str().unwrap(), "--keep"])
        .assert()
        .success();
    assert!(std::fs::read_dir(&spill).unwrap().count() > 0);
}

/// Unmounts its directory when dropped (a failed test's too).
struct Unmount(PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = StdCommand::new("umount").arg(&self.0).status();
    }
}

/// A filesystem of `size` mounted at `dir`, if this test may mount one.
fn tmpfs(dir: &Path, size: &str) -> bool {
    StdCommand::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_full_filesystem_ends_with_exit_3_and_resumes_once_there_is_room() {
    let dir = TempDir::new("enospc");
    let mount = dir.join("small");
    std::fs::create_dir_all(&mount).unwrap();
    if !tmpfs(&mount, "64k") {
        eprintln!("skipped: cannot mount a tmpfs here");
        return;
    }
    let _unmount = Unmount(mount.clone());
    let cp = mount.join("cp");
    let cp_s = cp.to_str().unwrap();
    let out = reach()
        .args(["count", "pe766", "--checkpoint", cp_s, "--json", "-j", "2"])
        .assert()
        .code(3)
        .get_output()
        .clone();
    let partial = json(&out.stdout);
    let reason = partial["stop_reason"].as_str().unwrap();
    assert!(reason.contains("No space left on device"), "{reason}");
    assert!(
        reason.contains("is in place: continue with `reach resume"),
        "{reason}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("reach resume"), "{stderr}");
    assert!(partial["states"].as_u64().unwrap() < 2_613_742);
    // Room again: the checkpoint resumes to the full count.
    assert!(
        StdCommand::new("mount")
            .args(["-o", "remount,size=16m"])
            .arg(&mount)
            .status()
            .unwrap()
            .success()
    );
    let v = json(
        &reach()
            .args(["resume", cp_s, "--json"])
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(v["states"], 2_613_742);
    assert_eq!(v["depth"], 1368);
}

#[test]
fn a_read_only_filesystem_is_said_with_what_to_do() {
    let dir = TempDir::new("erofs");
    let mount = dir.join("ro");
    std::fs::create_dir_all(&mount).unwrap();
    if !tmpfs(&mount, "64k,ro") {
        eprintln!("skipped: cannot mount a tmpfs here");
        return;
    }
    let _unmount = Unmount(mount.clone());
    let out = reach()
        .args(["count", "eight", "--checkpoint"])
        .arg(mount.join("cp"))
        .assert()
        .code(3)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Read-only file system"), "{stderr}");
    assert!(
        stderr.contains("help: the file system is read-only"),
        "{stderr}"
    );
}

#[test]
fn a_spilled_count_keeps_its_peak_memory_under_the_limit() {
    // The 15-puzzle to depth 22: 12.3 million states, 5.8 million in the
    // last level (44 MiB of keys): far more than the limits, which hold
    // the candidates the workers buffer and the readers of a merge.
    let dir = TempDir::new("limit");
    let puzzle = dir.join("15.toml");
    std::fs::write(
        &puzzle,
        "distinct = \"*\"\nboard = \"\"\"\n1234\n5678\n9ABC\nDEF.\n\"\"\"\n",
    )
    .unwrap();
    for (limit, bytes) in [("32M", 32u64 << 20), ("64M", 64 << 20)] {
        let spill = dir.join(limit);
        let out = reach()
            .args([
                "count",
                puzzle.to_str().unwrap(),
                "--max-depth",
                "22",
                "-j",
                "2",
                "--json",
                "--memory-limit",
                limit,
                "--spill",
                spill.to_str().unwrap(),
            ])
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone();
        let v = json(&out);
        assert_eq!(v["states"], 12_318_701, "{limit}");
        let peak = v["peak_rss_bytes"].as_u64().unwrap();
        // The limit, and a few MiB the process holds whatever the budget
        // (its threads, the allocator's pages in flight).
        assert!(peak <= bytes + (4 << 20), "{limit}: peak {peak} bytes");
    }
}

/// Whether strace can trace here (installed, and ptrace allowed).
fn strace_works() -> bool {
    StdCommand::new("strace")
        .args(["-o", "/dev/null", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// What of a report must not depend on where a run was killed.
fn answer(v: &serde_json::Value) -> serde_json::Value {
    serde_json::json!([v["states"], v["levels"], v["length"], v["moves"]])
}

/// `reach ARGS` under strace, with `fault` (`signal=KILL`, `error=EIO`)
/// injected at the `n`th of the system `calls` (`unlink,unlinkat`).
fn reach_with_fault(calls: &str, fault: &str, n: usize) -> StdCommand {
    let mut cmd = StdCommand::new("strace");
    cmd.args(["-f", "-qq", "-o", "/dev/null", "-e"])
        .arg(format!("trace={calls}"))
        .arg("-e")
        .arg(format!("inject={calls}:{fault}:when={n}"))
        .arg(assert_cmd::cargo::cargo_bin("reach"))
        .stderr(Stdio::null());
    cmd
}

/// `reach ARGS --json` under strace, killed (SIGKILL) at its `n`th file
/// removal: the JSON it printed (if it printed any) and whether it ran
/// to its end before the `n`th came.
fn killed_at_removal(args: &[&str], n: usize) -> (Option<serde_json::Value>, bool) {
    let out = reach_with_fault("unlink,unlinkat", "signal=KILL", n)
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let printed = (!out.stdout.is_empty()).then(|| json(&out.stdout));
    (printed, out.status.code() == Some(0))
}

#[test]
fn a_kill_at_any_file_removal_loses_no_answer() {
    if !strace_works() {
        eprintln!("skipped: strace cannot trace here (apt-get install strace)");
        return;
    }
    let dir = TempDir::new("unlinks");
    // A resumed run too: from a checkpoint stopped at depth 10.
    let base = dir.join("base");
    reach()
        .args(["count", "eight", "-j", "2", "--partitions", "1"])
        .args(["--max-depth", "10", "--checkpoint"])
        .arg(&base)
        .assert()
        .code(0);
    // One partition: a file a level, so a few dozen removals a run.
    let cases: [(&str, &[&str]); 3] = [
        (
            "count",
            &[
                "count",
                "eight",
                "-j",
                "2",
                "--partitions",
                "1",
                "--checkpoint",
            ],
        ),
        (
            "solve",
            &[
                "solve",
                "rush-hour",
                "--metric",
                "slide",
                "-j",
                "2",
                "--partitions",
                "1",
                "--checkpoint",
            ],
        ),
        ("resume", &["resume", "--max-depth", "100"]),
    ];
    for (name, args) in cases {
        let whole = if name == "resume" {
            json(
                &reach()
                    .args(["count", "eight", "--json"])
                    .output()
                    .unwrap()
                    .stdout,
            )
        } else {
            json(
                &reach()
                    .args(&args[..args.len() - 1])
                    .arg("--json")
                    .output()
                    .unwrap()
                    .stdout,
            )
        };
        let mut n = 1;
        loop {
            let ck = dir.join(&format!("{name}-{n}"));
            if name == "resume" {
                std::fs::create_dir(&ck).unwrap();
                for entry in std::fs::read_dir(&base).unwrap() {
                    let entry = entry.unwrap();
                    std::fs::copy(entry.path(), ck.join(entry.file_name())).unwrap();
                }
            }
            let ck_arg = ck.to_str().unwrap();
            let argv: Vec<&str> = if name == "resume" {
                [&["resume", ck_arg], &args[1..]].concat()
            } else {
                [args, &[ck_arg]].concat()
            };
            let (printed, finished) = killed_at_removal(&argv, n);
            let what = format!("{name}, killed at removal {n}");
            match printed {
                Some(v) => assert_eq!(answer(&v), answer(&whole), "{what}: printed"),
                None => {
                    // Not printed: the checkpoint must be whole.
                    let out = reach()
                        .arg("resume")
                        .arg(&ck)
                        .arg("--json")
                        .output()
                        .unwrap();
                    assert_eq!(
                        out.status.code(),
                        Some(0),
                        "{what}: the resume failed: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    assert_eq!(
                        answer(&json(&out.stdout)),
                        answer(&whole),
                        "{what}: resumed"
                    );
                }
            }
            if finished {
                break;
            }
            n += 1;
            assert!(n < 500, "{name}: more removals than expected");
        }
        assert!(n > 2, "{name}: the run's own removals were reached ({n})");
    }
}

#[test]
fn links_planted_in_a_run_directory_are_never_written_through() {
    let dir = TempDir::new("planted");
    let victim = dir.join("victim");
    for (name, how) in [
        ("reach.lock", "link"),
        ("checkpoint.toml.tmp", "link"),
        ("reach.lock", "directory"),
    ] {
        std::fs::write(&victim, "precious\n").unwrap();
        let run = dir.join(&format!("run-{}-{how}", name.replace('.', "-")));
        std::fs::create_dir(&run).unwrap();
        match how {
            "link" => std::os::unix::fs::symlink(&victim, run.join(name)).unwrap(),
            _ => std::fs::create_dir(run.join(name)).unwrap(),
        }
        let out = reach()
            .args(["count", "eight", "-j", "1", "--checkpoint"])
            .arg(&run)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name} {how}: {stderr}");
        assert!(
            stderr.contains(name) && stderr.contains("nothing is written through it"),
            "{name} {how}: {stderr}"
        );
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "precious\n",
            "{name} {how}"
        );
    }
    // A link at a run file's name: the file is renamed over the link (which
    // goes), never written through it; the run goes on.
    let run = dir.join("run-file");
    std::fs::create_dir(&run).unwrap();
    std::os::unix::fs::symlink(&victim, run.join("L000000-p00000.run")).unwrap();
    reach()
        .args([
            "count",
            "eight",
            "-j",
            "1",
            "--visited",
            "bitmap",
            "--partitions",
            "1",
            "--max-depth",
            "3",
        ])
        .arg("--checkpoint")
        .arg(&run)
        .assert()
        .code(0);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(
        std::fs::symlink_metadata(run.join("L000000-p00000.run"))
            .unwrap()
            .is_file()
    );
}

#[test]
fn resume_writes_outputs_where_the_run_would_have_and_never_over_a_stranger() {
    let dir = TempDir::new("outputs");
    let (a, b, cp) = (dir.join("a"), dir.join("b"), dir.join("cp"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    // Started in a/ with a relative --plot; stopped by a depth limit.
    reach()
        .current_dir(&a)
        .args(["count", "klotski", "--plot", "out.svg", "--max-depth", "10"])
        .arg("--checkpoint")
        .arg(&cp)
        .assert()
        .code(0);
    assert!(a.join("out.svg").exists());
    // Resumed from b/, which holds a file of that name: the run's plot is
    // replaced in a/, and b/'s is not touched.
    std::fs::write(b.join("out.svg"), "mine").unwrap();
    let resume = |extra: &[&str]| {
        let mut cmd = reach();
        cmd.current_dir(&b).arg("resume").arg(&cp).args(extra);
        cmd.assert()
    };
    resume(&["--max-depth", "20"])
        .code(0)
        .stderr(predicates::str::contains(format!(
            "resume: --plot goes to {}, replacing the run's own",
            a.join("out.svg").display()
        )));
    assert_eq!(std::fs::read_to_string(b.join("out.svg")).unwrap(), "mine");
    let plot = std::fs::read_to_string(a.join("out.svg")).unwrap();
    assert!(plot.contains("depth 20 (as asked)"), "{plot}");
    // A file the run did not write is refused (exit 2, nothing searched),
    // and replaced with --force.
    std::fs::write(a.join("out.svg"), "theirs").unwrap();
    resume(&["--max-depth", "30"])
        .code(2)
        .stderr(predicates::str::contains("did not write it"))
        .stderr(predicates::str::contains("--force"));
    assert_eq!(
        std::fs::read_to_string(a.join("out.svg")).unwrap(),
        "theirs"
    );
    assert_eq!(
        reach::engine::Checkpoint::open(&cp).unwrap().depth(),
        20,
        "the refused resume searched nothing"
    );
    resume(&["--max-depth", "30", "--force"])
        .code(0)
        .stderr(predicates::str::contains(
            "replacing what is there (--force)",
        ));
    assert!(
        std::fs::read_to_string(a.join("out.svg"))
            .unwrap()
            .contains("depth 30")
    );
    resume(&["--max-depth", "1000"]).code(0);
    assert!(
        std::fs::read_to_string(a.join("out.svg"))
            .unwrap()
            .contains("25955 states")
    );
    assert!(!cp.exists(), "the finished run's checkpoint is gone");
}

#[test]
fn resume_holds_its_memory_limit_while_it_loads() {
    // eleven's checkpoint at depth 28 (14 million states on disk): its
    // resume rebuilds a bitmap of 479 million keys (57 MiB) from them.
    let dir = TempDir::new("load");
    let cp = dir.join("cp");
    reach()
        .args([
            "count",
            "eleven",
            "--visited",
            "bitmap",
            "--max-depth",
            "28",
            "-j",
            "2",
            "--checkpoint",
        ])
        .arg(&cp)
        .assert()
        .code(0);
    // Too small: refused before anything is loaded, with what it needs.
    let out = reach()
        .args(["resume", "--memory-limit", "16M", "--json"])
        .arg(&cp)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let v = json(&out.stdout);
    let e = v["error"]["message"].as_str().unwrap();
    assert!(
        e.contains("resuming needs about") && e.contains("bitmap"),
        "{v}"
    );
    assert!(
        v["error"]["help"]
            .as_str()
            .unwrap()
            .contains("--memory-limit"),
        "{v}"
    );
    // Enough: the load stays within it (it read each level whole before,
    // beside the bitmap: 129 MiB here).
    let limit = 80u64 << 20;
    let v = json(
        &reach()
            .args([
                "resume",
                "--memory-limit",
                "80M",
                "--max-depth",
                "29",
                "--json",
            ])
            .arg(&cp)
            .assert()
            .code(0)
            .get_output()
            .stdout,
    );
    assert_eq!(v["levels"].as_array().unwrap().len(), 30, "{v}");
    assert_eq!(v["levels"][29], 7_647_872);
    let peak = v["peak_rss_bytes"].as_u64().unwrap();
    assert!(peak <= limit, "peak {} MiB over 80", peak >> 20);
}

#[test]
fn a_failed_sync_at_any_moment_leaves_a_checkpoint_that_resumes_or_none() {
    // EIO at each of the first fsyncs of a dense count's checkpoint (the
    // 4th and 7th once left a manifest naming files the failure removed)
    // and of a frontier count's on disk: the run stops (exit 3), and its
    // directory resumes to the whole count, or holds no checkpoint at all.
    if !strace_works() {
        eprintln!("skipped: strace is not available");
        return;
    }
    let dir = TempDir::new("eio");
    for (puzzle, visited) in [("tiles-2x5", "auto"), ("klotski", "frontier")] {
        let reference = json(
            &reach()
                .args(["count", puzzle, "--json"])
                .assert()
                .success()
                .get_output()
                .stdout,
        );
        for n in 1..=10 {
            let cp = dir.join(&format!("{puzzle}-{n}"));
            let out = reach_with_fault("fsync,fdatasync", "error=EIO", n)
                .args(["count", puzzle, "-j", "2", "--visited", visited])
                .args(["--json", "--checkpoint"])
                .arg(&cp)
                .output()
                .unwrap();
            if out.status.code() == Some(0) {
                continue;
            }
            assert_eq!(out.status.code(), Some(3), "{puzzle}, fsync {n}");
            if !cp.join("checkpoint.toml").exists() {
                continue;
            }
            let resumed = reach()
                .arg("resume")
                .arg(&cp)
                .arg("--json")
                .assert()
                .get_output()
                .clone();
            assert_eq!(
                resumed.status.code(),
                Some(0),
                "{puzzle}, fsync {n}: {}",
                String::from_utf8_lossy(&resumed.stderr)
            );
            assert_eq!(
                answer(&json(&resumed.stdout)),
                answer(&reference),
                "{puzzle}, fsync {n}"
            );
        }
    }
}
