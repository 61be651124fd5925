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

/// A wide level of the 2x7 tile puzzle as the dense store meets it: keys
/// in order, about one in 28 (a frontier of 3.5 %), each decoded after the one
/// before and its vertical moves ranked (`far_successors`: the horizontal
/// ones are the store's, a word at a time).
fn tiles_per_state(c: &mut Criterion) {
    let mut group = c.benchmark_group("per-state");
    group.measurement_time(Duration::from_secs(3));
    let t = reach::puzzles::tiles::Tiles::new(2, 7).unwrap();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut key = t.key_space() / 3;
    let keys: Vec<u64> = (0..100_000)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            key += 1 + (x >> 59) + (x >> 62 << 3);
            key
        })
        .collect();
    group.throughput(Throughput::Elements(keys.len() as u64));
    let mut state = t.new_state();
    let mut out = Vec::with_capacity(8);
    group.bench_function(BenchmarkId::new("decode+far", "tiles-2x7"), |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for &k in &keys {
                t.decode(black_box(k), &mut state);
                out.clear();
                t.far_successors(&mut state, &mut out);
                sum = sum.wrapping_add(out.iter().sum::<u64>());
            }
            black_box(sum)
        })
    });
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
    criterion_group!(benches, counts, per_state, tiles_per_state, ranks);
}
criterion_main!(group::benches);
