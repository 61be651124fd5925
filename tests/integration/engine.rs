//! The engine against the sequential oracle and against itself at every
//! thread count and visited set.

use reach::engine::{Model, Outcome, Search, VisitedKind, reference};
use reach::puzzles::builtin;
use reach::puzzles::clocks::Clocks;
use reach::puzzles::sliding::Metric;

const THREADS: [usize; 5] = [1, 2, 3, 4, 8];

fn profile<M: Model>(model: &M, threads: usize, visited: VisitedKind) -> Vec<u64> {
    let report = Search::new(model)
        .threads(threads)
        .visited(visited)
        .count()
        .unwrap();
    assert_eq!(report.outcome, Outcome::Complete);
    assert_eq!(report.states(), report.levels.iter().sum::<u64>());
    report.levels
}

#[test]
fn pe766_example_matches_the_published_profile() {
    let p = builtin::sliding("pe766-example").unwrap();
    let published = [
        1, 2, 6, 10, 16, 11, 10, 5, 8, 9, 14, 13, 16, 14, 16, 9, 9, 8, 11, 8, 8, 3, 1,
    ];
    assert_eq!(published.iter().sum::<u64>(), 208);
    for threads in THREADS {
        assert_eq!(
            profile(&p, threads, VisitedKind::Auto),
            published,
            "{threads} threads"
        );
    }
}

#[test]
fn pe766_counts_2613742_at_every_thread_count() {
    let p = builtin::sliding("pe766").unwrap();
    let one = profile(&p, 1, VisitedKind::Auto);
    assert_eq!(one.iter().sum::<u64>(), 2_613_742);
    assert_eq!(one.len(), 1369, "depth 1368");
    assert_eq!(*one.iter().max().unwrap(), 12712);
    for threads in [2, 4] {
        assert_eq!(
            profile(&p, threads, VisitedKind::Auto),
            one,
            "{threads} threads"
        );
    }
}

#[test]
fn pe766_with_dashmap_agrees() {
    let p = builtin::sliding("pe766").unwrap();
    let frontier = profile(&p, 2, VisitedKind::Frontier);
    assert_eq!(frontier.iter().sum::<u64>(), 2_613_742);
    assert_eq!(profile(&p, 2, VisitedKind::DashMap), frontier);
}

#[test]
fn every_visited_set_agrees_with_the_oracle_on_small_puzzles() {
    for name in ["pe766-example", "klotski", "rush-hour"] {
        for metric in [Metric::Step, Metric::Slide, Metric::Piece] {
            let p = builtin::sliding(name).unwrap().with_metric(metric);
            let oracle = reference::level_sizes(&p);
            for visited in [
                VisitedKind::Auto,
                VisitedKind::Bitmap,
                VisitedKind::DashMap,
                VisitedKind::Frontier,
            ] {
                if visited == VisitedKind::Bitmap && p.key_space() > 1 << 32 {
                    continue;
                }
                for threads in [1, 2, 4] {
                    assert_eq!(
                        profile(&p, threads, visited),
                        oracle,
                        "{name} {metric:?} {visited:?} {threads} threads"
                    );
                }
            }
        }
    }
}

#[test]
fn every_builtin_gives_the_same_profile_at_every_thread_count() {
    for b in builtin::ALL {
        if b.name == "eleven" || b.name == "pe766" {
            continue; // a benchmark, and tested above
        }
        let check = |levels_at: &dyn Fn(usize) -> Vec<u64>| {
            let one = levels_at(1);
            for threads in THREADS {
                for run in 0..2 {
                    assert_eq!(
                        levels_at(threads),
                        one,
                        "{} {threads} threads, run {run}",
                        b.name
                    );
                }
            }
        };
        match builtin::sliding(b.name) {
            Some(p) => check(&|t| profile(&p, t, VisitedKind::Auto)),
            None => check(&|t| profile(&Clocks::new([0; 9]), t, VisitedKind::Auto)),
        }
    }
}

#[test]
fn the_oracle_agrees_on_clocks_and_eight() {
    let clocks = Clocks::new([0; 9]);
    assert_eq!(
        profile(&clocks, 2, VisitedKind::Auto),
        reference::level_sizes(&clocks)
    );
    assert_eq!(
        profile(&clocks, 2, VisitedKind::DashMap),
        reference::level_sizes(&clocks)
    );
    let eight = builtin::sliding("eight").unwrap();
    assert_eq!(
        profile(&eight, 4, VisitedKind::Frontier),
        reference::level_sizes(&eight)
    );
}

#[test]
fn limits_stop_at_level_boundaries() {
    use reach::engine::StopReason;
    let p = builtin::sliding("klotski").unwrap();
    let full = profile(&p, 2, VisitedKind::Auto);
    let r = Search::new(&p)
        .threads(2)
        .max_depth(Some(10))
        .count()
        .unwrap();
    assert_eq!(r.outcome, Outcome::Stopped(StopReason::MaxDepth(10)));
    assert_eq!(r.levels, full[..=10]);
    let r = Search::new(&p)
        .threads(2)
        .max_states(Some(1000))
        .count()
        .unwrap();
    assert_eq!(r.outcome, Outcome::Stopped(StopReason::MaxStates(1000)));
    assert!(r.states() <= 1000);
    let next = full[r.levels.len()];
    assert!(r.states() + next > 1000, "stopped a level early");
    assert_eq!(r.levels, full[..r.levels.len()]);
    let flag = std::sync::atomic::AtomicBool::new(true);
    let r = Search::new(&p).threads(2).stop_flag(&flag).count().unwrap();
    assert_eq!(r.outcome, Outcome::Stopped(StopReason::Interrupted));
    assert_eq!(r.levels, [1]);
    let r = Search::new(&p)
        .threads(2)
        .memory_limit(Some(1))
        .count()
        .unwrap();
    assert!(matches!(
        r.outcome,
        Outcome::Stopped(StopReason::MemoryLimit { .. })
    ));
}

#[test]
fn more_threads_than_cores_still_work() {
    let p = builtin::sliding("pe766-example").unwrap();
    assert_eq!(profile(&p, 64, VisitedKind::Auto).iter().sum::<u64>(), 208);
}

#[test]
fn a_panicking_worker_ends_the_search() {
    /// A model whose successors panic at one state.
    struct Faulty;
    impl Model for Faulty {
        type State = u64;
        type Key = u64;
        fn start(&self) -> u64 {
            0
        }
        fn key_space(&self) -> u64 {
            1 << 40
        }
        fn new_state(&self) -> u64 {
            0
        }
        fn decode(&self, key: u64, state: &mut u64) {
            *state = key;
        }
        fn successors(&self, state: &mut u64, out: &mut Vec<u64>) {
            assert!(*state != 5000, "a bug in the model");
            out.extend([*state * 2 + 1, *state * 2 + 2]);
        }
    }
    for threads in [1, 4] {
        let outcome = std::panic::catch_unwind(|| Search::new(&Faulty).threads(threads).count());
        assert!(outcome.is_err(), "{threads} threads");
    }
}

fn profile_in(
    model: &impl Model,
    threads: usize,
    partitions: usize,
    visited: VisitedKind,
) -> Vec<u64> {
    let report = Search::new(model)
        .threads(threads)
        .partitions(partitions)
        .visited(visited)
        .count()
        .unwrap();
    assert_eq!(report.outcome, Outcome::Complete);
    assert_eq!(report.partitions, partitions);
    report.levels
}

#[test]
fn every_partition_count_agrees_with_the_oracle() {
    let clocks = Clocks::new([0; 9]);
    let oracle = reference::level_sizes(&clocks);
    for partitions in [1, 4, 64] {
        for threads in [1, 3] {
            for visited in [VisitedKind::Bitmap, VisitedKind::DashMap] {
                assert_eq!(
                    profile_in(&clocks, threads, partitions, visited),
                    oracle,
                    "clocks, {partitions} partitions, {threads} threads, {visited:?}"
                );
            }
        }
    }
    for name in ["pe766-example", "klotski", "rush-hour"] {
        for metric in [Metric::Step, Metric::Piece] {
            let p = builtin::sliding(name).unwrap().with_metric(metric);
            let oracle = reference::level_sizes(&p);
            for partitions in [1, 2, 16, 1024] {
                for threads in [1, 2, 3, 4, 8] {
                    assert_eq!(
                        profile_in(&p, threads, partitions, VisitedKind::Frontier),
                        oracle,
                        "{name} {metric:?}, {partitions} partitions, {threads} threads"
                    );
                }
                assert_eq!(
                    profile_in(&p, 2, partitions, VisitedKind::DashMap),
                    oracle,
                    "{name} {metric:?}, {partitions} partitions, dashmap"
                );
                // The bitmap, split between partitions by ranges of keys.
                if p.key_space() <= 1 << 32 {
                    for threads in [1, 3] {
                        assert_eq!(
                            profile_in(&p, threads, partitions, VisitedKind::Bitmap),
                            oracle,
                            "{name} {metric:?}, {partitions} partitions, {threads} threads, bitmap"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn tile_puzzles_have_dense_keys_and_agree_in_every_visited_set() {
    // A tile puzzle's keys are the tile model's: the 8-puzzle's 9!/2
    // reachable states are its 9!/2 keys.
    let eight = builtin::sliding("eight").unwrap();
    assert_eq!(eight.key_space(), 181_440);
    let oracle = reference::level_sizes(&eight);
    assert_eq!(oracle.iter().sum::<u64>(), 181_440);
    for visited in [
        VisitedKind::Bitmap,
        VisitedKind::Frontier,
        VisitedKind::DashMap,
    ] {
        for (threads, partitions) in [(1, 1), (2, 4), (3, 64), (4, 4096)] {
            assert_eq!(
                profile_in(&eight, threads, partitions, visited),
                oracle,
                "eight, {visited:?}, {threads} threads, {partitions} partitions"
            );
        }
    }
    // eleven's first 23 levels, each way (its whole count is in the bench).
    let eleven = builtin::sliding("eleven").unwrap();
    let first = |threads: usize, partitions: usize, visited: VisitedKind| {
        Search::new(&eleven)
            .threads(threads)
            .partitions(partitions)
            .visited(visited)
            .max_depth(Some(22))
            .count()
            .unwrap()
    };
    let frontier = first(1, 1, VisitedKind::Frontier);
    for (threads, partitions) in [(1, 1), (2, 128), (3, 8)] {
        let bitmap = first(threads, partitions, VisitedKind::Bitmap);
        assert_eq!(
            bitmap.levels, frontier.levels,
            "{threads} threads, {partitions} partitions"
        );
        assert_eq!(bitmap.last_level, frontier.last_level);
    }
}

#[test]
fn pe766_is_the_same_in_every_partition_count() {
    let p = builtin::sliding("pe766").unwrap();
    let one = profile_in(&p, 2, 1, VisitedKind::Frontier);
    assert_eq!(one.iter().sum::<u64>(), 2_613_742);
    for (threads, partitions) in [(1, 8), (3, 64), (4, 4096)] {
        assert_eq!(
            profile_in(&p, threads, partitions, VisitedKind::Frontier),
            one,
            "{threads} threads, {partitions} partitions"
        );
    }
}

#[test]
fn solutions_and_antipodes_do_not_depend_on_partitions_or_threads() {
    let p = builtin::sliding("klotski")
        .unwrap()
        .with_metric(Metric::Piece);
    let first = Search::new(&p).threads(1).partitions(1).solve().unwrap();
    let path = first.path.clone().unwrap();
    assert_eq!(path.len() - 1, 81);
    let antipodes = Search::new(&p)
        .threads(1)
        .partitions(1)
        .count()
        .unwrap()
        .last_level;
    for (threads, partitions) in [(2, 2), (3, 16), (8, 256)] {
        let s = Search::new(&p)
            .threads(threads)
            .partitions(partitions)
            .solve()
            .unwrap();
        assert_eq!(
            s.path.as_ref(),
            Some(&path),
            "{threads} threads, {partitions} partitions"
        );
        let r = Search::new(&p)
            .threads(threads)
            .partitions(partitions)
            .count()
            .unwrap();
        assert_eq!(
            r.last_level, antipodes,
            "{threads} threads, {partitions} partitions"
        );
    }
    // A model that is not reversible rebuilds its path by scanning levels.
    let clocks = Clocks::new([3, 3, 0, 2, 2, 2, 2, 1, 2]);
    let one = Search::new(&clocks)
        .threads(1)
        .partitions(1)
        .solve()
        .unwrap();
    for (threads, partitions) in [(2, 8), (4, 64)] {
        let s = Search::new(&clocks)
            .threads(threads)
            .partitions(partitions)
            .solve()
            .unwrap();
        assert_eq!(
            s.path, one.path,
            "clocks, {threads} threads, {partitions} partitions"
        );
    }
}

#[test]
fn partition_counts_that_are_not_powers_of_two_are_refused() {
    let p = builtin::sliding("pe766-example").unwrap();
    for bad in [3, 12, (1 << 16) + 1, 1 << 17] {
        assert!(
            matches!(
                Search::new(&p).partitions(bad).count(),
                Err(reach::engine::SearchError::Partitions { .. })
            ),
            "{bad}"
        );
    }
}
