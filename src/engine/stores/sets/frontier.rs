//! Frontier search: settling a level's candidates against the two levels
//! before it.
//!
//! When every move can be undone, a state at distance d+1 has all its
//! neighbours at distance d, d+1 or d+2, so a successor of level d is new
//! exactly when it is in neither level d-1 nor level d. With the levels kept
//! sorted, a level's candidates (runs, one per worker) are sorted,
//! deduplicated, checked against them and merged: no visited set,
//! sequential memory access, and memory for three levels instead of every
//! state. Each
//! partition (`partition.rs`) does this for its own share of the keys.

use crate::engine::{Key, Model};

/// Whether frontier search of `model` from a level 0 of `level_zero` keys
/// may check a level's candidates against the level before it only: when
/// the model is bipartite (see [`Model::bipartite`]) and the search has one
/// start, every level holds one colour and its successors the other, so
/// none of them is in the level itself. Several starts may have both
/// colours (`hardest`'s search from every goal).
pub(crate) fn levels_alternate<M: Model>(model: &M, level_zero: u64) -> bool {
    model.bipartite() && level_zero == 1
}

/// Settles `runs` (each worker's candidates for one partition, which it
/// reorders and shrinks) into `out`: their keys without duplicates and
/// without those found in `current` or `previous` (both sorted), in order.
///
/// Whether a candidate is new is data no branch predictor can guess, so
/// every pass below is a loop of fixed shape that moves its indices by
/// comparisons: each run is sorted, then deduplicated and filtered in
/// place, then the runs are merged.
pub(crate) fn merge_range<K: Key>(
    runs: &mut [Vec<K>],
    current: &[K],
    previous: &[K],
    out: &mut Vec<K>,
) {
    for run in runs.iter_mut() {
        run.sort_unstable();
        let mut n = dedup(run);
        n = difference(&mut run[..n], current);
        n = difference(&mut run[..n], previous);
        run.truncate(n);
    }
    match runs {
        [] => {}
        [run] => out.extend_from_slice(run),
        [a, b] => union(a, b, out),
        _ => {
            // Many workers: their filtered runs are short, and one sort of
            // them all is simpler than a k-way merge.
            let start = out.len();
            for run in runs.iter() {
                out.extend_from_slice(run);
            }
            out[start..].sort_unstable();
            let n = dedup(&mut out[start..]);
            out.truncate(start + n);
        }
    }
}

/// Moves the distinct keys of sorted `keys` to its front; returns how many.
fn dedup<K: Key>(keys: &mut [K]) -> usize {
    let Some(&first) = keys.first() else {
        return 0;
    };
    let mut n = 1;
    let mut last = first;
    for i in 1..keys.len() {
        let key = keys[i];
        keys[n] = key;
        n += usize::from(key != last);
        last = key;
    }
    n
}

/// Moves the keys of sorted, distinct `keys` that are not in sorted `drop`
/// to its front; returns how many.
fn difference<K: Key>(keys: &mut [K], drop: &[K]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    if drop.len() > 8 * keys.len() {
        // Few keys against a long level: each is looked up in what is left
        // of it, O(k log d) rather than a walk of the whole level.
        while i < keys.len() {
            let key = keys[i];
            j += drop[j..].partition_point(|&d| d < key);
            keys[n] = key;
            n += usize::from(j == drop.len() || drop[j] != key);
            i += 1;
        }
        return n;
    }
    while i < keys.len() && j < drop.len() {
        let (key, d) = (keys[i], drop[j]);
        keys[n] = key;
        n += usize::from(key < d);
        i += usize::from(key <= d);
        j += usize::from(d <= key);
    }
    while i < keys.len() {
        keys[n] = keys[i];
        n += 1;
        i += 1;
    }
    n
}

/// Appends to `out` the union of sorted, distinct `a` and `b`, in order.
fn union<K: Key>(a: &[K], b: &[K], out: &mut Vec<K>) {
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settle(runs: &[&[u64]], current: &[u64], previous: &[u64]) -> Vec<u64> {
        let mut runs: Vec<Vec<u64>> = runs.iter().map(|r| r.to_vec()).collect();
        let mut out = Vec::new();
        merge_range(&mut runs, current, previous, &mut out);
        out
    }

    #[test]
    fn settles_against_both_levels() {
        let (a, b) = ([1, 3, 3, 5, 9], [2, 7, 9, 11]);
        let current = [3, 4];
        let previous = [1, 7];
        assert_eq!(settle(&[&a, &b], &current, &previous), [2, 5, 9, 11]);
        assert_eq!(settle(&[&a], &current, &previous), [5, 9]);
        assert_eq!(settle(&[&[], &b], &[], &[]), b);
        assert!(settle(&[&[], &[]], &current, &previous).is_empty());
    }

    #[test]
    fn many_runs_agree_with_a_set() {
        // Unsorted runs with repeats, 1 to 5 of them, long and short (a
        // short run against long levels takes the lookup path).
        for (len, runs) in [
            (7_000u64, 5u64),
            (7_000, 1),
            (7_000, 2),
            (40, 2),
            (40, 3),
            (3, 1),
        ] {
            let runs: Vec<Vec<u64>> = (0..runs)
                .map(|r| (0..len).map(|i| (i * 7919 + r * 13) % 5_000).collect())
                .collect();
            let runs_ref: Vec<&[u64]> = runs.iter().map(Vec::as_slice).collect();
            let current: Vec<u64> = (0..5_000).step_by(3).collect();
            let previous: Vec<u64> = (1..5_000).step_by(5).collect();
            let got = settle(&runs_ref, &current, &previous);
            let want: std::collections::BTreeSet<u64> = runs
                .iter()
                .flatten()
                .copied()
                .filter(|k| k % 3 != 0 && k % 5 != 1)
                .collect();
            assert_eq!(
                got,
                want.into_iter().collect::<Vec<_>>(),
                "{len} x {}",
                runs.len()
            );
        }
    }
}
