//! Levels on disk: the same counts, profiles and paths as in memory;
//! checkpoints that resume to the uninterrupted report; storage faults
//! that end cleanly; damaged, foreign and future checkpoints refused.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use reach::engine::reference::Widened;
use reach::engine::{
    Checkpoint, Hardest, Model, Outcome, Report, Search, SearchError, Spill, SpillError,
    StopReason, VisitedKind,
};
use reach::puzzles::builtin;
use reach::puzzles::clocks::Clocks;
use reach::puzzles::twisty::{Options, Twisty, TwistyMetric};

/// A fresh directory under the system's temporary one, removed on drop.
pub(super) struct TempDir(pub(super) PathBuf);

impl TempDir {
    pub(super) fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "reach-spill-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        TempDir(dir)
    }

    pub(super) fn path(&self) -> &Path {
        &self.0
    }

    fn files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn in_memory<M: Model<Key = u64>>(model: &M, visited: VisitedKind) -> Report {
    Search::new(model)
        .threads(2)
        .visited(visited)
        .count()
        .unwrap()
}

fn same(a: &Report, b: &Report, what: &str) {
    assert_eq!(a.levels, b.levels, "{what}: levels");
    assert_eq!(a.outcome, b.outcome, "{what}: outcome");
    assert_eq!(a.last_level, b.last_level, "{what}: last level");
    assert_eq!(a.last_level_states, b.last_level_states, "{what}");
}

#[test]
fn spilled_counts_match_memory_at_every_thread_and_partition_count() {
    for name in ["pe766-example", "klotski", "rush-hour", "eight"] {
        let p = builtin::sliding(name).unwrap();
        for visited in [VisitedKind::Frontier, VisitedKind::Bitmap] {
            if visited == VisitedKind::Bitmap && p.key_space() > 1 << 27 {
                continue;
            }
            let expected = in_memory(&p, visited);
            for (threads, partitions, below) in [
                (1, 1, 0),
                (1, 4, 1 << 20),
                (2, 4, 0),
                (3, 16, 0),
                (4, 64, 1 << 20),
            ] {
                let dir = TempDir::new(name);
                let report = Search::new(&p)
                    .threads(threads)
                    .partitions(partitions)
                    .visited(visited)
                    .spill(Spill::new(dir.path()).in_memory_below(below))
                    .count()
                    .unwrap();
                let what = format!("{name} {visited:?} {threads}t {partitions}p {below}");
                same(&report, &expected, &what);
                let disk = report.disk.expect("disk use");
                if below == 0 {
                    assert!(disk.peak_bytes > 0, "{what}: nothing on disk");
                    assert!(disk.bytes_per_key > 0.0 && disk.bytes_per_key < 100.0);
                }
                assert!(
                    !dir.path().exists(),
                    "{what}: files left: {:?}",
                    dir.files()
                );
            }
        }
    }
}

#[test]
fn clocks_spill_with_their_bitmap() {
    let c = Clocks::new([0; 9]);
    let expected = in_memory(&c, VisitedKind::Auto);
    let dir = TempDir::new("clocks");
    let report = Search::new(&c)
        .threads(2)
        .spill(Spill::new(dir.path()).in_memory_below(0))
        .count()
        .unwrap();
    same(&report, &expected, "clocks");
}

#[test]
fn pe766_spilled_with_a_tiny_memory_budget_flushes_candidates_and_agrees() {
    let p = builtin::sliding("pe766").unwrap();
    let dir = TempDir::new("pe766");
    // A budget so small that every worker flushes candidate runs to disk
    // at every wide level.
    let report = Search::new(&p)
        .threads(2)
        .spill(
            Spill::new(dir.path())
                .in_memory_below(0)
                .candidate_budget(Some(1)),
        )
        .count()
        .unwrap();
    assert_eq!(report.states(), 2_613_742);
    assert_eq!(report.levels.len(), 1369);
    assert_eq!(*report.levels.iter().max().unwrap(), 12712);
}

#[test]
fn hundreds_of_candidate_files_are_merged_in_passes_and_agree() {
    // The 2x2x2 cube's widest levels write about two hundred candidate
    // files a level under the smallest budget, which merges at most eight
    // at once: three passes before the settle, whose result must be the
    // one in memory.
    let cube = cube2_ufr();
    let expected = in_memory(&cube, VisitedKind::Frontier);
    assert_eq!(expected.states(), 3_674_160);
    for checkpoint in [false, true] {
        let dir = TempDir::new("passes");
        let report = in_passes(&cube, checkpoint, &dir);
        same(&report, &expected, "cube2 in passes");
        assert!(dir.files().is_empty(), "{:?}", dir.files());
    }
}

/// A count of `model` on disk in `dir` under the smallest candidate
/// budget (a worker writes a candidate file every 65536 keys, and the
/// files are merged eight at once, in passes).
fn in_passes<M: Model>(model: &M, checkpoint: bool, dir: &TempDir) -> Report<M::Key> {
    Search::new(model)
        .threads(2)
        .visited(VisitedKind::Frontier)
        .spill(
            Spill::new(dir.path())
                .checkpoint(checkpoint)
                .candidate_budget(Some(1)),
        )
        .count()
        .unwrap()
}

/// The 2x2x2 cube with U, F and R: over a million states at its widest
/// levels, nine moves each.
fn cube2_ufr() -> Twisty {
    let cube = format!("{}/tests/data/cube2.tws", env!("CARGO_MANIFEST_DIR"));
    let def = Twisty::from_path(Path::new(&cube)).unwrap();
    let options = Options {
        metric: TwistyMetric::Htm,
        moves: Some(vec!["U".into(), "F".into(), "R".into()]),
        scramble: None,
    };
    Twisty::new(def, &options).unwrap()
}

/// Keys of `N` words on disk: candidate files merged in passes, with and
/// without a checkpoint; a checkpoint stopped and resumed on another
/// thread count; each against the narrow keys' report.
fn wide_on_disk<const N: usize>(cube: &Twisty, expected: &Report) {
    let wide: Widened<'_, Twisty, N> = Widened(cube);
    let what = format!("{N} words");
    for checkpoint in [false, true] {
        let dir = TempDir::new("wide-passes");
        let report = in_passes(&wide, checkpoint, &dir);
        assert_eq!(report.levels, expected.levels, "{what}");
        assert!(report.is_complete(), "{what}");
        let disk = report.disk.expect("on disk");
        // Widened keys are spread over the whole of their words: about
        // 128 - log2(a partition's keys) bits each for the lowest two.
        assert!(disk.bytes_per_key < 8.0 * N as f64, "{what}: {disk:?}");
        assert!(dir.files().is_empty(), "{:?}", dir.files());
    }
    let dir = TempDir::new("wide-resume");
    let stopped = Search::new(&wide)
        .threads(2)
        .max_states(Some(400_000))
        .spill(Spill::new(dir.path()).checkpoint(true))
        .count()
        .unwrap();
    assert!(
        matches!(stopped.outcome, Outcome::Stopped(StopReason::MaxStates(_))),
        "{what}"
    );
    let cp = Checkpoint::open(dir.path()).unwrap();
    // The narrow puzzle's identity is not the wide one's.
    let e = Search::new(cube).resume(&cp).unwrap_err().to_string();
    assert!(e.contains("does not belong to this search"), "{what}: {e}");
    let resumed = Search::new(&wide).threads(1).resume(&cp).unwrap();
    assert_eq!(resumed.report.levels, expected.levels, "{what}: resumed");
    assert!(!dir.path().exists(), "a finished checkpoint is removed");
}

#[test]
fn wide_keys_on_disk_merge_checkpoint_and_resume_as_narrow_ones() {
    let cube = cube2_ufr();
    let expected = in_memory(&cube, VisitedKind::Frontier);
    wide_on_disk::<2>(&cube, &expected);
    wide_on_disk::<3>(&cube, &expected);
}

#[test]
fn a_damaged_wide_level_file_is_refused_on_resume() {
    let p = builtin::sliding("klotski").unwrap();
    let wide: Widened<'_, _, 2> = Widened(&p);
    let dir = TempDir::new("wide-damaged");
    Search::new(&wide)
        .threads(2)
        .max_states(Some(2000))
        .spill(Spill::new(dir.path()).checkpoint(true))
        .count()
        .unwrap();
    let file = level_files(&dir).pop().expect("a level file");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[60] ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();
    let cp = Checkpoint::open(dir.path()).unwrap();
    let e = Search::new(&wide).resume(&cp).unwrap_err().to_string();
    assert!(e.contains(&*file.to_string_lossy()), "{e}");
    assert!(e.contains("checksum") || e.contains("damaged"), "{e}");
}

#[test]
fn a_memory_limit_the_spilled_search_cannot_keep_stops_it_cleanly() {
    // Levels on disk still need the process itself: a limit under its
    // resident memory ends the search with complete levels, not a count
    // that ignores the limit.
    let p = builtin::sliding("pe766").unwrap();
    let dir = TempDir::new("limit");
    let report = Search::new(&p)
        .threads(2)
        .memory_limit(Some(1 << 20))
        .spill(Spill::new(dir.path()))
        .count()
        .unwrap();
    assert!(
        matches!(
            report.outcome,
            Outcome::Stopped(StopReason::MemoryLimit { .. })
        ),
        "{:?}",
        report.outcome
    );
    assert!(report.states() < 2_613_742);
    assert!(dir.files().is_empty(), "{:?}", dir.files());
}

#[test]
fn spilled_solutions_are_the_in_memory_ones() {
    for name in ["klotski", "rush-hour", "pe766-example"] {
        let p = builtin::sliding(name).unwrap();
        let memory = Search::new(&p).threads(2).solve();
        for threads in [1, 2] {
            let dir = TempDir::new("solve");
            let spilled = Search::new(&p)
                .threads(threads)
                .spill(Spill::new(dir.path()).in_memory_below(0))
                .solve();
            match (&memory, spilled) {
                (Ok(m), Ok(s)) => {
                    assert_eq!(s.path, m.path, "{name} {threads}t");
                    assert_eq!(s.report.outcome, m.report.outcome);
                }
                (Err(_), Err(_)) => {}
                (m, s) => panic!("{name}: {:?} vs {:?}", m.is_ok(), s.is_ok()),
            }
        }
    }
    // A model whose moves cannot be undone: the scan of the level before.
    let c = Clocks::new([1, 2, 3, 0, 1, 2, 3, 0, 1]);
    let memory = Search::new(&c).threads(2).solve().unwrap();
    let dir = TempDir::new("clocks-solve");
    let spilled = Search::new(&c)
        .threads(2)
        .spill(Spill::new(dir.path()).in_memory_below(0))
        .solve()
        .unwrap();
    assert_eq!(spilled.path, memory.path);
}

/// Runs a checkpointed count stopped by `max_states`, then resumes it
/// without the limit.
fn stop_and_resume<M: Model<Key = u64>>(
    model: &M,
    visited: VisitedKind,
    stop_at: u64,
    threads: usize,
) {
    let expected = in_memory(model, visited);
    let dir = TempDir::new("resume");
    let stopped = Search::new(model)
        .threads(threads)
        .visited(visited)
        .max_states(Some(stop_at))
        .spill(Spill::new(dir.path()).checkpoint(true))
        .count()
        .unwrap();
    assert!(matches!(
        stopped.outcome,
        Outcome::Stopped(StopReason::MaxStates(_))
    ));
    assert!(Checkpoint::exists(dir.path()), "the checkpoint stays");
    let cp = Checkpoint::open(dir.path()).unwrap();
    assert_eq!(cp.levels(), &stopped.levels[..]);
    let resumed = Search::new(model).threads(3 - threads).resume(&cp).unwrap();
    same(&resumed.report, &expected, "resumed");
    assert!(!dir.path().exists(), "a finished checkpoint is removed");
}

#[test]
fn a_checkpoint_resumes_to_the_uninterrupted_report() {
    let p = builtin::sliding("klotski").unwrap();
    for stop_at in [1, 2, 500, 20_000] {
        stop_and_resume(&p, VisitedKind::Frontier, stop_at, 1);
        stop_and_resume(&p, VisitedKind::Frontier, stop_at, 2);
    }
    stop_and_resume(&p, VisitedKind::Bitmap, 7_000, 2);
    stop_and_resume(&Clocks::new([0; 9]), VisitedKind::Auto, 100_000, 2);
}

#[test]
fn a_solve_checkpoint_resumes_to_the_same_path() {
    let p = builtin::sliding("rush-hour").unwrap();
    let memory = Search::new(&p).threads(2).solve().unwrap();
    let dir = TempDir::new("solve-resume");
    let stopped = Search::new(&p)
        .threads(2)
        .max_depth(Some(40))
        .spill(Spill::new(dir.path()).checkpoint(true))
        .solve()
        .unwrap();
    assert!(!stopped.report.is_complete());
    let cp = Checkpoint::open(dir.path()).unwrap();
    let resumed = Search::new(&p).threads(2).resume(&cp).unwrap();
    assert_eq!(resumed.path, memory.path);
    assert_eq!(resumed.report.levels, memory.report.levels);
}

#[test]
fn an_interrupted_checkpoint_resumes() {
    let p = builtin::sliding("mas").unwrap();
    let expected = in_memory(&p, VisitedKind::Frontier);
    let dir = TempDir::new("interrupt");
    let stop = AtomicBool::new(false);
    let raise = |progress: &reach::engine::Progress| {
        if progress.depth == 30 {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let stopped = Search::new(&p)
        .threads(2)
        .stop_flag(&stop)
        .progress(&raise)
        .spill(Spill::new(dir.path()).checkpoint(true))
        .count()
        .unwrap();
    assert_eq!(stopped.outcome, Outcome::Stopped(StopReason::Interrupted));
    assert_eq!(stopped.levels.len(), 31);
    let cp = Checkpoint::open(dir.path()).unwrap();
    let resumed = Search::new(&p).threads(2).resume(&cp).unwrap();
    same(&resumed.report, &expected, "after an interrupt");
}

#[test]
fn a_full_disk_ends_with_complete_levels_and_a_checkpoint_that_resumes() {
    let p = builtin::sliding("klotski").unwrap();
    let expected = in_memory(&p, VisitedKind::Frontier);
    let mut budgets_that_failed = 0;
    for budget in [0u64, 100, 5_000, 40_000, 90_000, 200_000] {
        let dir = TempDir::new("enospc");
        let stopped = Search::new(&p)
            .threads(2)
            .spill(
                Spill::new(dir.path())
                    .checkpoint(true)
                    .fail_after_bytes(Some(budget)),
            )
            .count();
        let report = match stopped {
            Ok(r) => r,
            // Level 0 could not be written: nothing to resume.
            Err(SearchError::Spill(SpillError::Io { source, .. })) => {
                assert_eq!(source.kind(), std::io::ErrorKind::StorageFull);
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        if report.is_complete() {
            continue;
        }
        budgets_that_failed += 1;
        let Outcome::Stopped(StopReason::Storage(what)) = &report.outcome else {
            panic!("{:?}", report.outcome)
        };
        assert!(what.contains("no space left"), "{what}");
        assert!(
            what.contains("is in place: continue with `reach resume"),
            "{what}"
        );
        assert_eq!(
            report.levels[..],
            expected.levels[..report.levels.len()],
            "complete levels only"
        );
        let cp = Checkpoint::open(dir.path()).unwrap();
        assert!(cp.levels().len() <= report.levels.len());
        let resumed = Search::new(&p).threads(2).resume(&cp).unwrap();
        same(
            &resumed.report,
            &expected,
            &format!("resumed after {budget} bytes"),
        );
    }
    assert!(budgets_that_failed >= 3, "the fault was not hit");
}

#[test]
fn a_vanished_directory_ends_cleanly() {
    let p = builtin::sliding("mas").unwrap();
    let dir = TempDir::new("vanish");
    let path = dir.path().to_path_buf();
    let remove = |progress: &reach::engine::Progress| {
        if progress.depth == 20 {
            std::fs::remove_dir_all(&path).unwrap();
        }
    };
    let report = Search::new(&p)
        .threads(2)
        .progress(&remove)
        .spill(Spill::new(dir.path()).in_memory_below(0))
        .count()
        .unwrap();
    let Outcome::Stopped(StopReason::Storage(what)) = &report.outcome else {
        panic!("{:?}", report.outcome)
    };
    assert!(what.contains(&*dir.path().to_string_lossy()), "{what}");
    assert_eq!(report.levels.len(), 21);
    // A checkpoint's directory gone: the stop says it cannot be resumed,
    // never that the checkpoint is in place (it was, before: "whole").
    let dir = TempDir::new("vanish-checkpoint");
    let path = dir.path().to_path_buf();
    let remove = |progress: &reach::engine::Progress| {
        if progress.depth == 20 {
            let _ = std::fs::remove_dir_all(&path);
        }
    };
    let report = Search::new(&p)
        .threads(2)
        .progress(&remove)
        .spill(Spill::new(dir.path()).checkpoint(true))
        .count()
        .unwrap();
    let Outcome::Stopped(StopReason::Storage(what)) = &report.outcome else {
        panic!("{:?}", report.outcome)
    };
    assert!(
        what.contains("is not whole") && what.contains("cannot be resumed"),
        "{what}"
    );
    assert!(!what.contains("reach resume"), "{what}");
}

/// A checkpoint of klotski stopped after 2000 states, for the refusal tests.
fn checkpoint(dir: &TempDir) {
    let p = builtin::sliding("klotski").unwrap();
    Search::new(&p)
        .threads(2)
        .max_states(Some(2000))
        .spill(Spill::new(dir.path()).checkpoint(true))
        .count()
        .unwrap();
}

fn resume_error(dir: &TempDir) -> String {
    let p = builtin::sliding("klotski").unwrap();
    let err = match Checkpoint::open(dir.path()) {
        Err(e) => e.to_string(),
        Ok(cp) => match Search::new(&p).threads(2).resume(&cp) {
            Err(e) => e.to_string(),
            Ok(s) => panic!("resumed: {:?}", s.report.levels),
        },
    };
    assert!(
        err.contains(&*dir.path().to_string_lossy()),
        "the message names the file: {err}"
    );
    err
}

fn level_files(dir: &TempDir) -> Vec<PathBuf> {
    dir.files()
        .into_iter()
        .filter(|n| n.starts_with('L'))
        .map(|n| dir.path().join(n))
        .collect()
}

#[test]
fn damaged_checkpoints_are_refused() {
    // A flipped byte anywhere in a level file.
    let dir = TempDir::new("flip");
    checkpoint(&dir);
    let file = level_files(&dir).pop().unwrap();
    let bytes = std::fs::read(&file).unwrap();
    for at in [
        0,
        9,
        20,
        45,
        bytes.len() / 2,
        bytes.len() - 30,
        bytes.len() - 1,
    ] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        std::fs::write(&file, &bad).unwrap();
        let err = resume_error(&dir);
        assert!(
            err.contains("damaged") || err.contains("newer") || err.contains("not belong"),
            "byte {at}: {err}"
        );
    }
    // Cut short, or with bytes added: said as what it may be.
    std::fs::write(&file, &bytes[..bytes.len() - 7]).unwrap();
    assert!(resume_error(&dir).contains("cut short"));
    std::fs::write(&file, [&bytes[..], b"more"].concat()).unwrap();
    let err = resume_error(&dir);
    assert!(
        err.contains("bytes were added") && err.contains("help:"),
        "{err}"
    );
    // Missing: named, as a damaged checkpoint (not a failure of the disk).
    std::fs::remove_file(&file).unwrap();
    let err = resume_error(&dir);
    assert!(
        err.contains(&format!("{} is missing", file.display())),
        "{err}"
    );

    // The manifest: edited, truncated, gone.
    let dir = TempDir::new("manifest");
    checkpoint(&dir);
    let manifest = dir.path().join("checkpoint.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replacen("levels = [", "levels = [2, ", 1)).unwrap();
    assert!(resume_error(&dir).contains("checksum"));
    std::fs::write(&manifest, &text[..text.len() / 2]).unwrap();
    assert!(resume_error(&dir).contains("damaged"));
    std::fs::remove_file(&manifest).unwrap();
    assert!(resume_error(&dir).contains("no checkpoint"));
}

#[test]
fn foreign_and_future_checkpoints_are_refused() {
    let dir = TempDir::new("foreign");
    checkpoint(&dir);
    let cp = Checkpoint::open(dir.path()).unwrap();
    // Another puzzle, and the same puzzle under another metric.
    let other = builtin::sliding("mas").unwrap();
    let err = Search::new(&other).resume(&cp).unwrap_err().to_string();
    assert!(err.contains("another puzzle"), "{err}");
    let moves = builtin::sliding("klotski")
        .unwrap()
        .with_metric(reach::puzzles::sliding::Metric::Slide);
    let err = Search::new(&moves).resume(&cp).unwrap_err().to_string();
    assert!(err.contains("another puzzle or metric"), "{err}");

    // A run file of a future format.
    let file = level_files(&dir).pop().unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[8] = 9;
    std::fs::write(&file, &bytes).unwrap();
    assert!(resume_error(&dir).contains("newer reach"));

    // A manifest of a future format (its checksum made to match).
    let dir = TempDir::new("future");
    checkpoint(&dir);
    let manifest = dir.path().join("checkpoint.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let body_end = text.trim_end().rfind('\n').unwrap() + 1;
    let body = text[..body_end].replacen("format = 1", "format = 2", 1);
    let crc = crc32(body.as_bytes());
    std::fs::write(&manifest, format!("{body}# crc32 {crc:08x}\n")).unwrap();
    assert!(resume_error(&dir).contains("newer reach"));

    // A manifest whose checksum matches but that leaves out level d-1,
    // which frontier search needs to count right: refused, not resumed.
    let dir = TempDir::new("doctored");
    checkpoint(&dir);
    let manifest = dir.path().join("checkpoint.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let body_end = text.trim_end().rfind('\n').unwrap() + 1;
    let body = &text[..body_end];
    let first = body.find("[[kept]]").unwrap();
    let second = first + 1 + body[first + 1..].find("[[kept]]").unwrap();
    let body = format!("{}{}", &body[..first], &body[second..]);
    let crc = crc32(body.as_bytes());
    std::fs::write(&manifest, format!("{body}# crc32 {crc:08x}\n")).unwrap();
    let err = resume_error(&dir);
    assert!(err.contains("does not name the levels"), "{err}");

    // A new checkpointed run does not overwrite an old checkpoint.
    let dir = TempDir::new("exists");
    checkpoint(&dir);
    let p = builtin::sliding("klotski").unwrap();
    let err = Search::new(&p)
        .spill(Spill::new(dir.path()).checkpoint(true))
        .count()
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds a checkpoint already"), "{err}");
    // Nor does a spilled run, whose level files would replace its own; the
    // checkpoint still resumes to the right count.
    let files = |d: &std::path::Path| {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    let before = files(dir.path());
    let err = Search::new(&p)
        .spill(Spill::new(dir.path()))
        .count()
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds a checkpoint already"), "{err}");
    assert_eq!(files(dir.path()), before, "the checkpoint's files changed");
    let cp = Checkpoint::open(dir.path()).unwrap();
    let resumed = Search::new(&p).resume(&cp).unwrap();
    assert_eq!(resumed.report.states(), 25_955);
}

/// CRC-32 (IEEE), bit by bit: an independent check of the manifest's format.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn spilling_is_refused_where_it_cannot_help() {
    let c = Clocks::new([0; 9]);
    let dir = TempDir::new("refuse");
    let err = Search::new(&c)
        .visited(VisitedKind::DashMap)
        .spill(Spill::new(dir.path()))
        .count()
        .unwrap_err();
    assert!(matches!(err, SearchError::SpillNeedsFrontier), "{err}");
    let p = builtin::sliding("klotski").unwrap();
    let err = Search::new(&p)
        .spill(Spill::new(dir.path()).checkpoint(true))
        .hardest()
        .unwrap_err();
    assert!(
        matches!(err, SearchError::CheckpointUnsupported(_)),
        "{err}"
    );
    assert!(!dir.path().join("checkpoint.toml").exists());
}

/// Asserts that two `hardest` results agree in everything they found.
pub(super) fn same_hardest(got: &Hardest, want: &Hardest, what: &str) {
    assert_eq!(got.component, want.component, "{what}");
    assert_eq!(got.goal_states, want.goal_states, "{what}");
    assert_eq!(got.distance, want.distance, "{what}");
    assert_eq!(got.positions, want.positions, "{what}");
    assert_eq!(got.start_distance, want.start_distance, "{what}");
    assert_eq!(got.report.levels, want.report.levels, "{what}");
}

#[test]
fn hardest_on_disk_is_the_in_memory_one() {
    // The second search starts from every goal at once: level 0 on disk
    // holds many keys across partitions, and each level is looked at.
    let rails = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/rush-hour-17.toml"
    ))
    .unwrap();
    let rails = reach::puzzles::sliding::SlidingPuzzle::from_toml(&rails, "rails").unwrap();
    let klotski = builtin::sliding("klotski")
        .unwrap()
        .with_metric(reach::puzzles::sliding::Metric::Piece);
    let example = reach::puzzles::sliding::SlidingPuzzle::from_toml(
        "board = \"\"\"\n.AAb\n.Acd\nefgh\n\"\"\"\ngoal = \"\"\"\nAA..\nA...\n....\n\"\"\"\n",
        "example",
    )
    .unwrap();
    for (name, p) in [
        ("rails", &rails),
        ("klotski", &klotski),
        ("example", &example),
    ] {
        let want = Search::new(p).threads(2).hardest().unwrap();
        for (threads, partitions) in [(1, 0), (2, 0), (3, 16)] {
            let dir = TempDir::new("hardest");
            let got = Search::new(p)
                .threads(threads)
                .partitions(partitions)
                .spill(Spill::new(dir.path()).in_memory_below(0))
                .hardest()
                .unwrap();
            let what = format!("{name} at {threads} threads, {partitions} partitions");
            same_hardest(&got, &want, &what);
            assert!(got.report.disk.is_some(), "{what}");
            assert!(dir.files().is_empty(), "{what}: {:?}", dir.files());
        }
    }
}

#[test]
fn the_spilled_search_reports_every_level() {
    let p = builtin::sliding("klotski").unwrap();
    let dir = TempDir::new("progress");
    let seen = std::sync::Mutex::new(Vec::new());
    let progress = |p: &reach::engine::Progress| seen.lock().unwrap().push(p.level_states);
    let report = Search::new(&p)
        .threads(2)
        .progress(&progress)
        .spill(Spill::new(dir.path()))
        .count()
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), report.levels);
}
