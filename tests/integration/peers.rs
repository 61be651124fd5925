//! The one level loop across processes, driven through the library: each
//! "process" a thread of this test with its own `Search` and `Cluster`
//! index, talking over loopback. Counts, level profiles, solutions and
//! hardest positions equal the single-process engine's (and the sequential
//! oracle's) at 1, 2 and 3 processes, reversible or not, with every
//! visited set.

use std::time::Duration;

use reach::engine::{Cluster, Model, Outcome, Report, Search, Spill, VisitedKind, reference};
use reach::puzzles::builtin;
use reach::puzzles::clocks::Clocks;
use reach::puzzles::sawtooth::{self, Sawtooth};
use reach::puzzles::sliding::Metric;

use super::spill::{TempDir, same_hardest};

/// `n` loopback addresses whose ports were free a moment ago.
fn addresses(n: usize) -> Vec<String> {
    let listeners: Vec<_> = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}", l.local_addr().unwrap().port()))
        .collect()
}

/// Runs `f` as every process of an `n`-process cluster (threads of this
/// test), each with `threads` workers; every process's result.
fn across<M, R>(
    model: &M,
    n: usize,
    threads: usize,
    f: impl Fn(Search<'_, M>) -> R + Sync,
) -> Vec<R>
where
    M: Model + Sync,
    R: Send,
{
    let addresses = addresses(n);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|process| {
                let cluster = Cluster {
                    addresses: addresses.clone(),
                    process,
                    connect_timeout: Duration::from_secs(30),
                    peer_timeout: Duration::from_secs(30),
                    secret: Some(b"a secret of the test cluster".to_vec()),
                };
                let f = &f;
                scope.spawn(move || f(Search::new(model).threads(threads).cluster(cluster)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// The official sample of ZOJ 3814 (the Sawtooth Puzzle): 6 steps.
fn sawtooth_sample() -> sawtooth::Case {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sawtooth.sample.in"
    ))
    .unwrap();
    sawtooth::parse_input(&text).unwrap().remove(0)
}

fn same(a: &Report, b: &Report, what: &str) {
    assert_eq!(a.levels, b.levels, "{what}: levels");
    assert_eq!(a.outcome, b.outcome, "{what}: outcome");
    assert_eq!(a.last_level, b.last_level, "{what}: last level");
    assert_eq!(a.last_level_states, b.last_level_states, "{what}");
}

/// Counts `model` across 1, 2 and 3 processes of 1 and 2 workers with
/// each of `kinds`: every process's report is the oracle's profile, and
/// all are alike.
fn counts_match<M: Model + Sync>(name: &str, model: &M, kinds: &[VisitedKind]) {
    let oracle = reference::level_sizes(model);
    for &kind in kinds {
        for n in [1, 2, 3] {
            for threads in [1, 2] {
                let what = format!("{name} {kind:?} {n} processes x {threads}");
                let reports = across(model, n, threads, |s| s.visited(kind).count().unwrap());
                for r in &reports {
                    assert_eq!(r.levels, oracle, "{what}");
                    same(r, &reports[0], &what);
                }
            }
        }
    }
}

#[test]
fn counts_across_processes_are_the_oracles() {
    let klotski = builtin::sliding("klotski").unwrap();
    counts_match(
        "klotski",
        &klotski,
        &[
            VisitedKind::Frontier,
            VisitedKind::Bitmap,
            VisitedKind::DashMap,
        ],
    );
    counts_match(
        "rush-hour",
        &builtin::sliding("rush-hour").unwrap(),
        &[VisitedKind::Auto],
    );
    // Moves that cannot be undone: each process filters its own keys.
    counts_match(
        "clocks",
        &Clocks::new([0; 9]),
        &[VisitedKind::Bitmap, VisitedKind::DashMap],
    );
}

#[test]
fn limits_stop_every_process_at_the_same_level() {
    let klotski = builtin::sliding("klotski").unwrap();
    for (states, depth) in [(Some(5000), None), (None, Some(40)), (None, Some(167))] {
        let want = Search::new(&klotski)
            .threads(2)
            .max_states(states)
            .max_depth(depth)
            .count()
            .unwrap();
        for n in [2, 3] {
            for r in across(&klotski, n, 1, |s| {
                s.max_states(states).max_depth(depth).count().unwrap()
            }) {
                same(&r, &want, &format!("{states:?} {depth:?} {n} processes"));
            }
        }
    }
}

#[test]
fn solutions_across_processes_are_the_single_process_ones() {
    let rush = builtin::sliding("rush-hour").unwrap();
    let klotski = builtin::sliding("klotski")
        .unwrap()
        .with_metric(Metric::Piece);
    for (name, p) in [("rush-hour", &rush), ("klotski", &klotski)] {
        let want = Search::new(p).threads(2).solve().unwrap();
        for n in [2, 3] {
            for threads in [1, 2] {
                for got in across(p, n, threads, |s| s.solve().unwrap()) {
                    let what = format!("{name} {n} processes x {threads}");
                    assert_eq!(got.path, want.path, "{what}");
                    assert_eq!(got.report.levels, want.report.levels, "{what}");
                }
            }
        }
    }
    // Moves that cannot be undone: each level back is scanned for the
    // smallest predecessor, in every process's share.
    let cases = sawtooth::parse_input(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/sawtooth.sample.in"
        ))
        .unwrap(),
    )
    .unwrap();
    let gears = Sawtooth::new(&cases[0]);
    let want = Search::new(&gears).threads(1).solve().unwrap();
    assert!(matches!(
        want.report.outcome,
        Outcome::Goal { depth: 6, .. }
    ));
    for n in [2, 3] {
        for got in across(&gears, n, 1, |s| s.solve().unwrap()) {
            assert_eq!(got.path, want.path, "sawtooth {n} processes");
        }
    }
}

#[test]
fn hardest_across_processes_is_the_single_process_one() {
    let rush = builtin::sliding("rush-hour")
        .unwrap()
        .with_metric(Metric::Slide);
    let klotski = builtin::sliding("klotski")
        .unwrap()
        .with_metric(Metric::Piece);
    for (name, p) in [("rush-hour", &rush), ("klotski", &klotski)] {
        let want = Search::new(p).threads(2).hardest().unwrap();
        for n in [2, 3] {
            for got in across(p, n, 1, |s| s.hardest().unwrap()) {
                same_hardest(&got, &want, &format!("{name} {n} processes"));
            }
        }
    }
}

#[test]
fn levels_on_disk_across_processes_are_those_in_memory() {
    let klotski = builtin::sliding("klotski").unwrap();
    let rush = builtin::sliding("rush-hour").unwrap();
    let clocks = Clocks::new([0; 9]);
    let gears = Sawtooth::new(&sawtooth_sample());
    let on_disk = |dir: &TempDir| Spill::new(&dir.0).in_memory_below(0);
    for n in [1, 2, 3] {
        for threads in [1, 2] {
            let what = format!("{n} processes x {threads}");
            // Counts, frontier search and a bitmap (moves that cannot be
            // undone), with candidates flushed to disk at every level.
            for kind in [VisitedKind::Frontier, VisitedKind::Bitmap] {
                let dir = TempDir::new("count");
                let want = reference::level_sizes(&klotski);
                for r in across(&klotski, n, threads, |s| {
                    s.visited(kind)
                        .spill(on_disk(&dir).candidate_budget(Some(1)))
                        .count()
                        .unwrap()
                }) {
                    assert_eq!(r.levels, want, "klotski {kind:?} {what}");
                    assert!(r.disk.is_some());
                }
                assert!(!dir.0.exists(), "{what}: {:?} left behind", dir.0);
            }
            let dir = TempDir::new("rush");
            let want = reference::level_sizes(&rush);
            for r in across(&rush, n, threads, |s| {
                s.spill(on_disk(&dir)).count().unwrap()
            }) {
                assert_eq!(r.levels, want, "rush-hour {what}");
            }
            let dir = TempDir::new("clocks");
            let want = reference::level_sizes(&clocks);
            for r in across(&clocks, n, threads, |s| {
                s.spill(on_disk(&dir)).count().unwrap()
            }) {
                assert_eq!(r.levels, want, "clocks {what}");
            }
            // Solutions and hardest positions.
            let dir = TempDir::new("solve");
            let want = Search::new(&rush).threads(2).solve().unwrap();
            for got in across(&rush, n, threads, |s| {
                s.spill(on_disk(&dir)).solve().unwrap()
            }) {
                assert_eq!(got.path, want.path, "rush-hour {what}");
            }
            // Moves that cannot be undone: a bitmap of this process's keys.
            let dir = TempDir::new("gears");
            let want = Search::new(&gears).threads(1).solve().unwrap();
            for got in across(&gears, n, threads, |s| {
                s.spill(on_disk(&dir)).solve().unwrap()
            }) {
                assert_eq!(got.path, want.path, "sawtooth {what}");
            }
            let dir = TempDir::new("hardest");
            let want = Search::new(&klotski).threads(2).hardest().unwrap();
            for got in across(&klotski, n, threads, |s| {
                s.spill(on_disk(&dir)).hardest().unwrap()
            }) {
                same_hardest(&got, &want, &format!("klotski {what}"));
            }
        }
    }
}
