//! Frontier search: settling a level's candidates against the two levels
//! before it.
//!
//! When every move can be undone, a state at distance d+1 has all its
//! neighbours at distance d, d+1 or d+2, so a successor of level d is new
//! exactly when it is in neither level d-1 nor level d. With the levels kept
//! sorted, a level's candidates (sorted runs, one per worker) are merged,
//! deduplicated and checked against them: no visited set, sequential memory
//! access, and memory for three levels instead of every state. Each
//! partition (`partition.rs`) does this for its own share of the keys.

use rayon::prelude::*;

/// Sorts `keys`, in parallel when there are many.
pub(crate) fn sort_keys(keys: &mut [u64], threads: usize) {
    if threads == 1 || keys.len() < 1 << 14 {
        keys.sort_unstable();
    } else {
        keys.par_sort_unstable();
    }
}

/// Merges sorted `runs` into `out`, skipping duplicates and keys found in
/// `current` or `previous`.
pub(crate) fn merge_range(runs: &[&[u64]], current: &[u64], previous: &[u64], out: &mut Vec<u64>) {
    let (mut c, mut p) = (0, 0);
    let mut keep = |key: u64, out: &mut Vec<u64>| {
        while c < current.len() && current[c] < key {
            c += 1;
        }
        while p < previous.len() && previous[p] < key {
            p += 1;
        }
        let seen =
            (c < current.len() && current[c] == key) || (p < previous.len() && previous[p] == key);
        if !seen {
            out.push(key);
        }
    };
    let mut last = None;
    if let [run] = runs {
        for &key in *run {
            if last != Some(key) {
                last = Some(key);
                keep(key, out);
            }
        }
        return;
    }
    let mut heads: Vec<&[u64]> = runs.iter().copied().filter(|r| !r.is_empty()).collect();
    while !heads.is_empty() {
        let (i, key) = heads
            .iter()
            .enumerate()
            .map(|(i, r)| (i, r[0]))
            .min_by_key(|&(_, k)| k)
            .expect("non-empty");
        heads[i] = &heads[i][1..];
        if heads[i].is_empty() {
            heads.swap_remove(i);
        }
        if last != Some(key) {
            last = Some(key);
            keep(key, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settle(runs: &[&[u64]], current: &[u64], previous: &[u64]) -> Vec<u64> {
        let mut out = Vec::new();
        merge_range(runs, current, previous, &mut out);
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
        let mut runs: Vec<Vec<u64>> = (0..5u64)
            .map(|r| (0..7_000u64).map(|i| (i * 7919 + r * 13) % 5_000).collect())
            .collect();
        runs.iter_mut().for_each(|r| r.sort_unstable());
        let runs: Vec<&[u64]> = runs.iter().map(Vec::as_slice).collect();
        let current: Vec<u64> = (0..5_000).step_by(3).collect();
        let previous: Vec<u64> = (1..5_000).step_by(5).collect();
        let got = settle(&runs, &current, &previous);
        let want: Vec<u64> = (0..5_000u64).filter(|k| k % 3 != 0 && k % 5 != 1).collect();
        assert_eq!(got, want);
    }
}
