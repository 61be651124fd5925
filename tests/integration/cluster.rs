//! The command line across processes on loopback: counts exact at 1, 2
//! and 3 processes of 1 or 2 workers, reversible or not; solve and hardest
//! as on one process; limits and signals end every process with process
//! 0's partial report; a lost, stopped or absent peer ends the others with
//! exit 5 and its name.

use std::io::Write;
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use assert_cmd::cargo::CommandCargoExt;

use super::spill::TempDir;

fn reach() -> Command {
    Command::cargo_bin("reach").unwrap()
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(out)))
}

fn count(args: &[&str], code: i32) -> serde_json::Value {
    let out = reach()
        .args(args)
        .arg("--json")
        .assert()
        .code(code)
        .get_output()
        .clone();
    json(&out.stdout)
}

#[test]
fn every_configuration_counts_exactly() {
    // klotski under frontier search (reversible) and with a bitmap; the
    // clocks, whose moves cannot be undone, with a visited set per worker.
    for (puzzle, visited) in [
        ("klotski", "frontier"),
        ("klotski", "bitmap"),
        ("clocks", "auto"),
    ] {
        let memory = count(&["count", puzzle, "--visited", visited], 0);
        for processes in ["1", "2", "3"] {
            for workers in ["1", "2"] {
                let v = count(
                    &[
                        "count",
                        puzzle,
                        "--visited",
                        visited,
                        "--local-processes",
                        processes,
                        "-j",
                        workers,
                    ],
                    0,
                );
                let what = format!("{puzzle} {visited} {processes}x{workers}");
                assert_eq!(v["levels"], memory["levels"], "{what}");
                assert_eq!(v["states"], memory["states"], "{what}");
                assert_eq!(v["antipodes"], memory["antipodes"], "{what}");
                assert_eq!(v["processes"].to_string(), processes, "{what}");
                assert_eq!(v["workers_per_process"].to_string(), workers, "{what}");
            }
        }
    }
    // The antipode boards are gathered to process 0.
    let v = count(
        &["count", "mas", "--local-processes", "2", "--antipodes"],
        0,
    );
    let m = count(&["count", "mas", "--antipodes"], 0);
    assert_eq!(v["antipode_boards"], m["antipode_boards"]);
}

#[test]
fn the_dense_store_counts_across_processes_in_memory_and_on_disk() {
    // Each process holds the two bits of its own range of keys; successors
    // in another's go to it once a level. On disk, each process's range is
    // cut into segments of one to three blocks (of the 2x5 puzzle's 14).
    let one = count(&["count", "tiles-2x5", "--visited", "dense"], 0);
    assert_eq!(one["states"], 1_814_400);
    let dir = TempDir::new("dense-cluster");
    for processes in ["2", "3"] {
        for workers in ["1", "2"] {
            let base = [
                "count",
                "tiles-2x5",
                "--local-processes",
                processes,
                "-j",
                workers,
            ];
            let memory = count(&base, 0);
            let what = format!("{processes}x{workers}");
            assert_eq!(memory["visited"], "dense", "{what}");
            assert_eq!(memory["levels"], one["levels"], "{what}");
            assert_eq!(memory["antipodes"], one["antipodes"], "{what}");
            for segment in ["32768", "98304"] {
                let spill = dir.0.join(format!("s-{processes}-{workers}-{segment}"));
                let out = reach()
                    .args(base)
                    .args(["--visited", "dense", "--spill"])
                    .arg(&spill)
                    .arg("--json")
                    .env("REACH_DENSE_SEGMENT_BYTES", segment)
                    .assert()
                    .code(0)
                    .get_output()
                    .clone();
                let v = json(&out.stdout);
                let what = format!("{what}, segments of {segment} bytes");
                assert_eq!(v["visited"], "dense", "{what}");
                assert_eq!(v["levels"], one["levels"], "{what}");
                assert_eq!(v["antipodes"], one["antipodes"], "{what}");
                assert!(!spill.exists(), "{what}: the files are removed");
            }
        }
    }
}

#[test]
fn limits_stop_every_process_at_the_same_level() {
    for limit in [["--max-states", "5000"], ["--max-depth", "40"]] {
        let memory = count(&["count", "klotski", limit[0], limit[1]], 3);
        let v = count(
            &[
                "count",
                "klotski",
                limit[0],
                limit[1],
                "--local-processes",
                "2",
            ],
            3,
        );
        assert_eq!(v["levels"], memory["levels"], "{limit:?}");
        assert_eq!(v["stop_reason"], memory["stop_reason"], "{limit:?}");
    }
    // A depth limit at the true depth cuts nothing short.
    count(
        &[
            "count",
            "klotski",
            "--max-depth",
            "167",
            "--local-processes",
            "2",
        ],
        0,
    );
    // Each process checks its own memory; any one over its limit stops all.
    let v = count(
        &[
            "count",
            "eleven",
            "--local-processes",
            "2",
            "-j",
            "1",
            "--memory-limit",
            "150M",
        ],
        3,
    );
    let reason = v["stop_reason"].as_str().unwrap();
    assert!(reason.contains("--memory-limit"), "{reason}");
    assert!(v["states"].as_u64().unwrap() < 239_500_800);
    let levels: Vec<u64> = serde_json::from_value(v["levels"].clone()).unwrap();
    assert_eq!(levels[..8], [1, 2, 4, 9, 20, 37, 63, 122]);
}

/// A hostfile of loopback addresses on free ports, removed on drop.
struct Hosts(std::path::PathBuf);

impl Hosts {
    fn new(n: usize) -> Hosts {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "reach-hosts-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let listeners: Vec<_> = (0..n)
            .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
            .collect();
        let text: String = listeners
            .iter()
            .map(|l| format!("127.0.0.1:{}\n", l.local_addr().unwrap().port()))
            .collect();
        std::fs::write(&path, format!("# test cluster\n\n{text}")).unwrap();
        Hosts(path)
    }

    /// `count PUZZLE` as process `i` of this cluster, then `extra`.
    fn args<'a>(&'a self, puzzle: &'a str, i: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec![
            "count",
            puzzle,
            "--cluster",
            self.0.to_str().unwrap(),
            "--process",
            i,
        ];
        args.extend_from_slice(extra);
        args
    }
}

impl Hosts {
    /// `resume DIR` as process `i` of this cluster, then `extra`.
    fn resume<'a>(&'a self, dir: &'a str, i: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec![
            "resume",
            dir,
            "--cluster",
            self.0.to_str().unwrap(),
            "--process",
            i,
        ];
        args.extend_from_slice(extra);
        args
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Starts `reach ARGS` in the background, stdout piped or discarded,
/// stderr piped.
fn start(args: &[&str], stdout: bool) -> std::process::Child {
    StdCommand::cargo_bin("reach")
        .unwrap()
        .args(args)
        .stdout(if stdout {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_hostfile_cluster_reports_on_process_0_only() {
    let hosts = Hosts::new(2);
    let peer = start(&hosts.args("mas", "1", &["--json"]), true);
    let v = count(&hosts.args("mas", "0", &[]), 0);
    assert_eq!(v["states"], 110804);
    let out = peer.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stdout.is_empty(),
        "process 1 printed {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_lost_peer_ends_the_others_with_exit_5_naming_it() {
    let hosts = Hosts::new(2);
    let mut peer = start(&hosts.args("eleven", "1", &["-j", "1"]), false);
    let zero = start(&hosts.args("eleven", "0", &["-j", "1"]), true);
    std::thread::sleep(Duration::from_millis(3000));
    peer.kill().unwrap();
    peer.wait().unwrap();
    let killed = Instant::now();
    let out = zero.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(killed.elapsed() < Duration::from_secs(10), "{stderr}");
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(stderr.contains("lost process 1"), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_peer_that_never_comes_up_times_out_with_exit_5() {
    let hosts = Hosts::new(2);
    let started = Instant::now();
    let out = reach()
        .args(hosts.args("mas", "0", &["--connect-timeout", "2"]))
        .assert()
        .code(5)
        .get_output()
        .clone();
    assert!(started.elapsed() < Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not every process"), "{stderr}");
    assert!(out.stdout.is_empty(), "timely's chatter reached stdout");
}

#[test]
fn sigterm_on_process_0_stops_the_cluster_with_a_partial_report() {
    let mut zero = start(
        &[
            "count",
            "eleven",
            "--local-processes",
            "2",
            "-j",
            "1",
            "--json",
        ],
        true,
    );
    std::thread::sleep(Duration::from_millis(5000));
    StdCommand::new("kill")
        .args(["-TERM", &zero.id().to_string()])
        .status()
        .unwrap();
    let mut stdout = String::new();
    use std::io::Read;
    zero.stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = zero.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    let v = json(stdout.as_bytes());
    assert_eq!(v["complete"], false);
    assert_eq!(v["stop_reason"], "terminated");
    let levels = v["levels"].as_array().unwrap();
    assert!(!levels.is_empty());
}

#[test]
fn sigterm_on_a_peer_is_reported_as_terminated_by_process_0() {
    let hosts = Hosts::new(2);
    let peer = start(&hosts.args("eleven", "1", &["-j", "1"]), false);
    let zero = start(&hosts.args("eleven", "0", &["-j", "1", "--json"]), true);
    std::thread::sleep(Duration::from_millis(3000));
    StdCommand::new("kill")
        .args(["-TERM", &peer.id().to_string()])
        .status()
        .unwrap();
    let out = zero.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(143),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["complete"], false);
    assert_eq!(v["stop_reason"], "terminated");
    assert_eq!(peer.wait_with_output().unwrap().status.code(), Some(143));
}

#[test]
fn processes_with_different_puzzles_are_refused() {
    let hosts = Hosts::new(2);
    let peer = start(&hosts.args("mas", "1", &[]), false);
    reach()
        .args(hosts.args("klotski", "0", &[]))
        .assert()
        .code(5)
        .stderr(predicates::str::contains("process 1 runs another puzzle"));
    assert_eq!(peer.wait_with_output().unwrap().status.code(), Some(5));
}

#[test]
fn bad_hostfiles_and_options_are_usage_errors() {
    let dir = std::env::temp_dir().join(format!("reach-badhosts-{}", std::process::id()));
    let mut f = std::fs::File::create(&dir).unwrap();
    writeln!(f, "127.0.0.1:2101\nnot-an-address").unwrap();
    drop(f);
    // `count mas` as process `process` of the hostfile: a usage error
    // that names the fault.
    let refused = |process: &str, message: &str| {
        reach()
            .args([
                "count",
                "mas",
                "--cluster",
                dir.to_str().unwrap(),
                "--process",
                process,
            ])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(message));
    };
    refused("0", ":2: \"not-an-address\" is not host:port");
    std::fs::write(&dir, "127.0.0.1:2101\n").unwrap();
    refused("3", "--process 3 is not a line");
    // Options of a cluster without one, or with the other kind.
    for (args, message) in [
        (
            &["--process", "1"][..],
            "--process applies to a search on several processes",
        ),
        (&["--connect-timeout", "5"], "--connect-timeout applies"),
        (&["--peer-timeout", "5"], "--peer-timeout applies"),
        (
            &["--cluster-secret-file", "x"],
            "--cluster-secret-file applies",
        ),
        (
            &["--local-processes", "2", "--process", "1"],
            "cannot be used with",
        ),
    ] {
        reach()
            .args([&["count", "mas"][..], args].concat())
            .assert()
            .code(2)
            .stderr(predicates::str::contains(message));
    }
    // A local cluster's peer gets the addresses from its process 0's
    // environment, range-checked; no option for them is offered anywhere.
    reach()
        .env("REACH_CLUSTER_ADDRESSES", "127.0.0.1:1,127.0.0.1:2")
        .args(["count", "mas", "--process", "2"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is not one of the 2 peers"));
    for shell in ["bash", "zsh", "fish"] {
        reach()
            .args(["completions", shell])
            .assert()
            .success()
            .stdout(predicates::prelude::PredicateBooleanExt::not(
                predicates::str::contains("cluster-addresses"),
            ));
    }
    // The same address twice.
    std::fs::write(&dir, "127.0.0.1:2101\n# a comment\n127.0.0.1:2101\n").unwrap();
    refused("0", ":3: 127.0.0.1:2101 is listed already, on line 1");
    let _ = std::fs::remove_file(&dir);
}

#[test]
fn a_stopped_peer_ends_the_others_with_exit_5_within_the_peer_timeout() {
    let hosts = Hosts::new(2);
    let extra = ["-j", "1", "--peer-timeout", "3"];
    let peer = start(&hosts.args("eleven", "1", &extra), false);
    let zero = start(&hosts.args("eleven", "0", &extra), true);
    // Early, while levels take milliseconds: what is timed is the
    // detection, not the level process 0 is busy with.
    std::thread::sleep(Duration::from_millis(600));
    StdCommand::new("kill")
        .args(["-STOP", &peer.id().to_string()])
        .status()
        .unwrap();
    let stopped = Instant::now();
    let out = zero.wait_with_output().unwrap();
    let waited = stopped.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    StdCommand::new("kill")
        .args(["-KILL", &peer.id().to_string()])
        .status()
        .unwrap();
    let _ = peer.wait_with_output();
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(stderr.contains("process 1"), "{stderr}");
    assert!(stderr.contains("has not answered for 3 s"), "{stderr}");
    // The timeout, plus a level in flight at most.
    assert!(waited < Duration::from_secs(10), "{waited:?}: {stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn solve_and_hardest_across_processes_are_those_of_one() {
    for args in [
        ["solve", "rush-hour", "--metric", "slide"],
        ["hardest", "klotski", "--top", "3"],
    ] {
        let one = count(&args, 0);
        for processes in ["2", "3"] {
            let mut v = count(
                &[&args[..], &["--local-processes", processes, "-j", "1"]].concat(),
                0,
            );
            for key in ["seconds", "threads", "peak_rss_bytes", "states_per_second"] {
                if let Some(x) = one.get(key) {
                    v[key] = x.clone();
                }
            }
            assert_eq!(v, one, "{args:?} on {processes} processes");
        }
    }
}

/// The fields that must not depend on how the run was cut up.
fn essentials(v: &serde_json::Value) -> [serde_json::Value; 4] {
    [
        v["states"].clone(),
        v["depth"].clone(),
        v["levels"].clone(),
        v["stop_reason"].clone(),
    ]
}

#[test]
fn a_checkpointed_cluster_killed_at_a_random_moment_resumes_to_the_uninterrupted_count() {
    let puzzle = ["count", "eleven", "--max-depth", "30", "-j", "1"];
    let reference = count(&puzzle, 3);
    let dir = TempDir::new("kill");
    // A moment from the clock, printed on failure; which process dies too.
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    let after = Duration::from_millis(800 + seed % 2500);
    let victim = (seed / 7 % 2) as usize;
    let what = format!("killed process {victim} after {after:?}");
    let hosts = Hosts::new(2);
    let mut extra = puzzle[2..].to_vec();
    let cp = dir.path().to_str().unwrap();
    extra.extend(["--json", "--checkpoint", cp]);
    let mut procs: Vec<_> = ["0", "1"]
        .iter()
        .map(|i| start(&hosts.args("eleven", i, &extra), true))
        .collect();
    std::thread::sleep(after);
    let finished = procs[victim].try_wait().unwrap().is_some();
    assert!(!finished, "{what}: the run ended before the kill");
    procs[victim].kill().unwrap();
    let killed = Instant::now();
    let other = procs.remove(1 - victim);
    let out = other.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        killed.elapsed() < Duration::from_secs(10),
        "{what}: {stderr}"
    );
    assert_eq!(out.status.code(), Some(5), "{what}: {stderr}");
    assert!(
        stderr.contains(&format!("lost process {victim}")),
        "{what}: {stderr}"
    );
    assert!(
        stderr.contains("continue with `reach resume"),
        "{what}: {stderr}"
    );
    procs[0].wait().unwrap();
    // Both go on, from the last level every one saved.
    let hosts = Hosts::new(2);
    let resume = |i| start(&hosts.resume(cp, i, &["--json"]), true);
    let peer = resume("1");
    let zero = resume("0").wait_with_output().unwrap();
    let peer = peer.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&zero.stderr);
    assert_eq!(zero.status.code(), Some(3), "{what}: {stderr}");
    assert_eq!(peer.status.code(), Some(3), "{what}");
    assert_eq!(
        essentials(&json(&zero.stdout)),
        essentials(&reference),
        "{what}"
    );
    // Stopped by its depth limit, the run keeps its checkpoint.
    assert!(
        dir.path()
            .join("process-1")
            .join("checkpoint.toml")
            .exists()
    );
}

#[test]
fn checkpoints_of_two_runs_are_refused_together() {
    let (a, b) = (TempDir::new("run-a"), TempDir::new("run-b"));
    let (pa, pb) = (a.path().to_str().unwrap(), b.path().to_str().unwrap());
    for dir in [pa, pb] {
        count(
            &[
                "count",
                "klotski",
                "--max-depth",
                "50",
                "--local-processes",
                "2",
                "--checkpoint",
                dir,
            ],
            3,
        );
    }
    // Process 1's directory of run a swapped for run b's.
    std::fs::remove_dir_all(a.0.join("process-1")).unwrap();
    std::fs::rename(b.0.join("process-1"), a.0.join("process-1")).unwrap();
    let hosts = Hosts::new(2);
    let resume = |i| start(&hosts.resume(pa, i, &[]), false);
    let peer = resume("1");
    let zero = resume("0").wait_with_output().unwrap();
    let peer = peer.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&zero.stderr);
    assert_eq!(zero.status.code(), Some(2), "{stderr}");
    assert_eq!(peer.status.code(), Some(2));
    assert!(
        stderr.contains("process 1's checkpoint is of another run than process 0's"),
        "{stderr}"
    );
    // Resumed alone, a process's share is refused with how to go on.
    reach()
        .args(["resume", pa])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--local-processes 2"));
    // On more processes than the run had, or with one missing.
    reach()
        .args(["resume", pb, "--local-processes", "2"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "holds no checkpoint of process 1",
        ));
    let hosts = Hosts::new(3);
    let resume = |i| start(&hosts.resume(pa, i, &[]), false);
    std::fs::create_dir_all(a.0.join("process-2")).unwrap();
    std::fs::copy(
        a.0.join("process-1").join("checkpoint.toml"),
        a.0.join("process-2").join("checkpoint.toml"),
    )
    .unwrap();
    let (p1, p2) = (resume("1"), resume("2"));
    let zero = resume("0").wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&zero.stderr);
    assert_eq!(zero.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("run on 2 processes, this run has 3"),
        "{stderr}"
    );
    let _ = (p1.wait_with_output(), p2.wait_with_output());
}

#[test]
fn a_stranger_on_a_port_is_set_aside_and_the_count_goes_on() {
    let hosts = Hosts::new(2);
    let text = std::fs::read_to_string(&hosts.0).unwrap();
    let zero_port = text.lines().rev().nth(1).unwrap().to_string();
    let zero = start(&hosts.args("mas", "0", &["--json"]), true);
    // Eight bytes of 0xff, then a silent connection: neither is a process.
    std::thread::sleep(Duration::from_millis(300));
    let mut stranger = std::net::TcpStream::connect(&zero_port).unwrap();
    stranger.write_all(&[0xff; 8]).unwrap();
    let _silent = std::net::TcpStream::connect(&zero_port).unwrap();
    let peer = start(&hosts.args("mas", "1", &[]), false);
    let out = zero.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(json(&out.stdout)["states"], 110804);
    assert!(stderr.contains("not a reach process"), "{stderr}");
    assert_eq!(peer.wait_with_output().unwrap().status.code(), Some(0));
}

#[test]
fn a_cluster_secret_keeps_out_whoever_cannot_prove_it() {
    let dir = TempDir::new("secret");
    std::fs::create_dir_all(dir.path()).unwrap();
    let (good, other) = (dir.path().join("good"), dir.path().join("other"));
    std::fs::write(&good, b"0123456789abcdef0123456789abcdef").unwrap();
    std::fs::write(&other, b"fedcba9876543210fedcba9876543210").unwrap();
    let (good, other) = (good.to_str().unwrap(), other.to_str().unwrap());
    // A stranger that claims to be process 1 (a well-formed hello) but
    // cannot prove the secret is closed, and the real process 1 joins.
    let hosts = Hosts::new(2);
    let text = std::fs::read_to_string(&hosts.0).unwrap();
    let zero_port = text.lines().rev().nth(1).unwrap().to_string();
    let secret = ["--cluster-secret-file", good];
    let zero = start(
        &hosts.args("mas", "0", &[&secret[..], &["--json"]].concat()),
        true,
    );
    std::thread::sleep(Duration::from_millis(300));
    let mut stranger = std::net::TcpStream::connect(&zero_port).unwrap();
    let mut hello = Vec::new();
    for word in [u64::from_le_bytes(*b"reach-m1"), 2, 1, 2, 0, 1, 7, 7, 0] {
        hello.extend_from_slice(&word.to_le_bytes());
    }
    stranger.write_all(&hello).unwrap();
    stranger.write_all(&[0u8; 32]).unwrap();
    let peer = start(&hosts.args("mas", "1", &secret), false);
    let out = zero.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(json(&out.stdout)["states"], 110804);
    assert!(
        stderr.contains("proof of the cluster secret is wrong"),
        "{stderr}"
    );
    assert_eq!(peer.wait_with_output().unwrap().status.code(), Some(0));
    // Another secret, or none, never joins.
    for theirs in [vec!["--cluster-secret-file", other], vec![]] {
        let hosts = Hosts::new(2);
        let timeout = ["--connect-timeout", "3"];
        let peer = start(
            &hosts.args("mas", "1", &[&theirs[..], &timeout].concat()),
            false,
        );
        let out = reach()
            .args(hosts.args("mas", "0", &[&secret[..], &timeout].concat()))
            .assert()
            .code(5)
            .get_output()
            .clone();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("not every process"), "{stderr}");
        assert!(
            stderr.contains("did not prove the cluster secret")
                || stderr.contains("it has no cluster secret"),
            "{stderr}"
        );
        assert!(stderr.lines().count() < 20, "{stderr}");
        assert_eq!(peer.wait_with_output().unwrap().status.code(), Some(5));
    }
    // A secret file that is too short says how to make one.
    reach()
        .args([
            "count",
            "mas",
            "--local-processes",
            "2",
            "--cluster-secret-file",
            "/dev/null",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a regular file"));
}
