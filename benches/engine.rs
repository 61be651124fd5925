//! Criterion benchmarks: whole counts (each asserts its published figure
//! before it is timed) and the per-state costs beneath them.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use reach::engine::{Model, Search, VisitedKind};
use reach::puzzles::builtin;
use reach::puzzles::combinadic;
use reach::puzzles::sliding::SlidingPuzzle;

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn counts(c: &mut Criterion) {
    let mut group = c.benchmark_group("count");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, states) in [("pe766", 2_613_742u64), ("klotski", 25_955)] {
        let p = builtin::sliding(name).unwrap();
        for threads in [1, cores()] {
            for visited in [VisitedKind::Frontier, VisitedKind::DashMap] {
                let count = || {
                    Search::new(&p)
                        .threads(threads)
                        .visited(visited)
                        .count()
                        .unwrap()
                };
                assert_eq!(count().states(), states, "{name}");
                group.throughput(Throughput::Elements(states));
                let id = BenchmarkId::new(format!("{name}/{}", visited.name()), threads);
                group.bench_function(id, |b| b.iter(|| black_box(count().states())));
            }
        }
    }
    group.finish();
}

/// A few thousand states of `p`, from a short search, sorted as the
/// engine's levels are.
fn sample(p: &SlidingPuzzle, depth: u32) -> Vec<u64> {
    let mut state = p.new_state();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::from([p.start()]);
    let mut frontier = vec![p.start()];
    for _ in 0..depth {
        let mut next = Vec::new();
        for &k in &frontier {
            p.decode(k, &mut state);
            out.clear();
            p.successors(&mut state, &mut out);
            next.extend(out.iter().copied().filter(|&s| seen.insert(s)));
        }
        frontier = next;
    }
    frontier.sort_unstable();
    frontier
}

fn per_state(c: &mut Criterion) {
    let mut group = c.benchmark_group("per-state");
    group.measurement_time(Duration::from_secs(3));
    for (name, depth) in [("pe766", 425), ("eleven", 24)] {
        let p = builtin::sliding(name).unwrap();
        let keys = sample(&p, depth);
        assert!(keys.len() > 1000, "{name}: {} keys", keys.len());
        group.throughput(Throughput::Elements(keys.len() as u64));
        let mut state = p.new_state();
        group.bench_function(BenchmarkId::new("decode", name), |b| {
            b.iter(|| {
                for &k in &keys {
                    p.decode(black_box(k), &mut state);
                }
            })
        });
        let mut out = Vec::with_capacity(64);
        group.bench_function(BenchmarkId::new("decode+successors", name), |b| {
            b.iter(|| {
                for &k in &keys {
                    p.decode(black_box(k), &mut state);
                    out.clear();
                    p.successors(&mut state, &mut out);
                }
                black_box(out.len())
            })
        });
    }
    group.finish();
}

fn ranks(c: &mut Criterion) {
    let mut group = c.benchmark_group("combinadic");
    let sets: Vec<[u16; 6]> = (0..1000u64)
        .map(|i| {
            let mut set = [0u16; 6];
            combinadic::unrank(i * 593, 30, &mut set);
            set
        })
        .collect();
    group.throughput(Throughput::Elements(sets.len() as u64));
    group.bench_function("rank C(30,6)", |b| {
        b.iter(|| {
            sets.iter()
                .map(|s| combinadic::rank(black_box(s)))
                .sum::<u64>()
        })
    });
    group.bench_function("unrank C(30,6)", |b| {
        let mut set = [0u16; 6];
        b.iter(|| {
            for i in 0..1000u64 {
                combinadic::unrank(black_box(i * 593), 30, &mut set);
            }
            set[0]
        })
    });
    let d = combinadic::Divisor::new(593_775);
    group.bench_function("div_rem by a fixed divisor", |b| {
        b.iter(|| {
            (0..1000u64)
                .map(|i| d.div_rem(black_box(i * 0x9e37_79b9_7f4a)).1)
                .sum::<u64>()
        })
    });
    group.finish();
}

// criterion's macros define undocumented functions.
mod group {
    #![allow(missing_docs)]
    use super::*;
    criterion_group!(benches, counts, per_state, ranks);
}
criterion_main!(group::benches);
