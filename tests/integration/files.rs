//! Files that are not ours (#24 item 4): a directory in use is refused
//! with its owner named, `resume` touches only the names a search gives
//! its files, nothing that is not a regular file is read, a file given as a
//! directory is named as such, and a storage fault before the first level
//! leaves no directory behind.

use std::time::{Duration, Instant};

use predicates::prelude::*;

use reach::engine::{Search, SearchError, Spill, SpillError};
use reach::puzzles::builtin;

use crate::spill::TempDir;
use crate::{checkpoint_at, reach};

#[test]
fn a_directory_in_use_is_refused_naming_its_process() {
    let dir = TempDir::new("in-use");
    let levels = dir.path().join("levels");
    let mut first = std::process::Command::new(assert_cmd::cargo::cargo_bin("reach"))
        .args([
            "count",
            "eleven",
            "-j",
            "1",
            "--visited",
            "frontier",
            "--spill",
        ])
        .arg(&levels)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the first run to hold the lock (its id in the lock file).
    let lock = levels.join("reach.lock");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(&lock).map_or(true, |t| t.trim().is_empty()) {
        assert!(
            Instant::now() < deadline,
            "the first run never locked {lock:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = reach()
        .args(["count", "pe766", "--spill"])
        .arg(&levels)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let _ = first.kill();
    let _ = first.wait();
    let text = String::from_utf8_lossy(&second);
    assert!(
        text.contains(&format!("is in use by process {}", first.id())),
        "{text}"
    );
}

#[test]
fn resume_removes_only_the_search_s_own_names() {
    let dir = TempDir::new("own-names");
    let cp = dir.path().join("cp");
    checkpoint_at("klotski", 5, &cp);
    // The user's files, some named much like a search's.
    let theirs = [
        "Letter.run",
        "Chapter.tmp",
        "L12-p3.run",
        "Cover-letter-1.run",
        "notes.txt",
    ];
    for name in theirs {
        std::fs::write(cp.join(name), "mine").unwrap();
    }
    // And what a killed run leaves: a temporary file and a candidate run.
    std::fs::write(cp.join("L000006-p00000.run.999-1.tmp"), "x").unwrap();
    std::fs::write(cp.join("C000006-999-0.run"), "x").unwrap();
    reach()
        .args(["resume"])
        .arg(&cp)
        .args(["--max-depth", "1000"])
        .assert()
        .success()
        .stdout("25955\n");
    for name in theirs {
        assert_eq!(
            std::fs::read_to_string(cp.join(name)).unwrap(),
            "mine",
            "{name} was touched"
        );
    }
    assert!(!cp.join("L000006-p00000.run.999-1.tmp").exists());
    assert!(!cp.join("C000006-999-0.run").exists());
}

#[test]
fn devices_pipes_and_files_are_not_read_as_a_checkpoint() {
    let dir = TempDir::new("not-regular");
    let cp = dir.path().join("cp");
    checkpoint_at("klotski", 3, &cp);
    let manifest = cp.join("checkpoint.toml");
    std::fs::rename(&manifest, cp.join("saved.toml")).unwrap();
    // A manifest that is /dev/zero (24 GB of nothing) or a FIFO (a hang).
    std::os::unix::fs::symlink("/dev/zero", &manifest).unwrap();
    // Each resume is refused by name, at once.
    let refused = || {
        reach()
            .arg("resume")
            .arg(&cp)
            .timeout(Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is not a regular file"));
    };
    let started = Instant::now();
    refused();
    std::fs::remove_file(&manifest).unwrap();
    let fifo = dir.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path it is given.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    std::os::unix::fs::symlink(&fifo, &manifest).unwrap();
    refused();
    assert!(started.elapsed() < Duration::from_secs(20));
    // A level file that is a device.
    std::fs::remove_file(&manifest).unwrap();
    std::fs::rename(cp.join("saved.toml"), &manifest).unwrap();
    let level = cp.join("L000003-p00000.run");
    std::fs::remove_file(&level).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &level).unwrap();
    refused();
}

#[test]
fn a_file_given_as_a_directory_is_named_as_such() {
    let dir = TempDir::new("a-file");
    std::fs::create_dir_all(dir.path()).unwrap();
    let file = dir.path().join("afile");
    std::fs::write(&file, "not a directory").unwrap();
    for args in [
        vec!["count", "pe766", "--spill"],
        vec!["count", "pe766", "--checkpoint"],
        vec!["resume"],
    ] {
        reach()
            .args(&args)
            .arg(&file)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("afile is not a directory"));
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
}

#[test]
fn a_storage_fault_before_the_first_level_leaves_no_directory() {
    let dir = TempDir::new("first-level");
    let made = dir.path().join("made");
    let klotski = builtin::sliding("klotski").unwrap();
    for checkpoint in [false, true] {
        let err = Search::new(&klotski)
            .threads(2)
            .spill(
                Spill::new(&made)
                    .checkpoint(checkpoint)
                    .in_memory_below(0)
                    .fail_after_bytes(Some(0)),
            )
            .count()
            .unwrap_err();
        assert!(
            matches!(err, SearchError::Spill(SpillError::Io { .. })),
            "{err}"
        );
        assert!(!made.exists(), "the run left {made:?} behind");
    }
    // A directory that was there stays, and holds what it held.
    std::fs::create_dir_all(&made).unwrap();
    std::fs::write(made.join("notes.txt"), "mine").unwrap();
    let _ = Search::new(&klotski)
        .spill(Spill::new(&made).checkpoint(true).fail_after_bytes(Some(0)))
        .count()
        .unwrap_err();
    let mut left: Vec<_> = std::fs::read_dir(&made)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["notes.txt"]);
}

#[test]
fn an_os_error_is_said_once() {
    let out = reach()
        .args(["count", "pe766", "--spill", "/proc/no-such-dir/levels"])
        .assert()
        .code(3)
        .get_output()
        .stderr
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert_eq!(text.matches("os error").count(), 1, "{text}");
}

#[test]
fn a_checkpoint_left_for_the_outputs_stays_until_removed() {
    use reach::engine::Checkpoint;
    let dir = TempDir::new("leave");
    let cp = dir.path().join("cp");
    let klotski = builtin::sliding("klotski").unwrap();
    let report = Search::new(&klotski)
        .threads(2)
        .spill(Spill::new(&cp).checkpoint(true).leave_checkpoint(true))
        .count()
        .unwrap();
    assert!(report.is_complete());
    // Complete, and still there: a resume gives the same report at once.
    let checkpoint = Checkpoint::open(&cp).unwrap();
    let again = Search::new(&klotski)
        .spill(Spill::new(&cp).leave_checkpoint(true))
        .resume(&checkpoint)
        .unwrap()
        .report;
    assert_eq!(again.levels, report.levels);
    Checkpoint::open(&cp).unwrap().remove().unwrap();
    assert!(!cp.exists(), "the checkpoint's directory is left");
}
