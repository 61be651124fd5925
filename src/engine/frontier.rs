//! Frontier search: settling a level's candidates against the two levels
//! before it.
//!
//! When every move can be undone, a state at distance d+1 has all its
//! neighbours at distance d, d+1 or d+2, so a successor of level d is new
//! exactly when it is in neither level d-1 nor level d. With the levels kept
//! sorted, a level's candidates are sorted, deduplicated and merged against
//! them: no visited set, sequential memory access, and memory for three
//! levels instead of every state.

use rayon::prelude::*;

/// Sorts `keys`, in parallel when there are many.
pub(crate) fn sort_keys(keys: &mut [u64], threads: usize) {
    if threads == 1 || keys.len() < 1 << 14 {
        keys.sort_unstable();
    } else {
        keys.par_sort_unstable();
    }
}

/// The keys of `candidates` that are in neither `current` nor `previous`
/// (both sorted), sorted and without duplicates.
pub(crate) fn settle(
    mut candidates: Vec<u64>,
    current: &[u64],
    previous: &[u64],
    threads: usize,
) -> Vec<u64> {
    sort_keys(&mut candidates, threads);
    let pieces = if threads == 1 || candidates.len() < 1 << 16 {
        1
    } else {
        threads * 4
    };
    let piece_len = candidates.len().div_ceil(pieces).max(1);
    let keep = |start: usize| -> Vec<u64> {
        let end = (start + piece_len).min(candidates.len());
        let mut out = Vec::with_capacity((end - start) / 2);
        // Each piece starts its walks where its first key would be.
        let first = candidates[start];
        let mut c = current.partition_point(|&k| k < first);
        let mut p = previous.partition_point(|&k| k < first);
        let mut last = if start == 0 {
            None
        } else {
            Some(candidates[start - 1])
        };
        for &key in &candidates[start..end] {
            if last == Some(key) {
                continue;
            }
            last = Some(key);
            while c < current.len() && current[c] < key {
                c += 1;
            }
            while p < previous.len() && previous[p] < key {
                p += 1;
            }
            let seen = (c < current.len() && current[c] == key)
                || (p < previous.len() && previous[p] == key);
            if !seen {
                out.push(key);
            }
        }
        out
    };
    if candidates.is_empty() {
        return candidates;
    }
    if pieces == 1 {
        return keep(0);
    }
    let parts: Vec<Vec<u64>> = (0..pieces)
        .into_par_iter()
        .map(|i| i * piece_len)
        .filter(|&start| start < candidates.len())
        .map(keep)
        .collect();
    let mut next = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for part in parts {
        next.extend_from_slice(&part);
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settles_against_both_levels() {
        let candidates = vec![9, 3, 5, 3, 1, 7, 9, 11, 2];
        let current = [3, 4];
        let previous = [1, 7];
        for threads in [1, 4] {
            assert_eq!(
                settle(candidates.clone(), &current, &previous, threads),
                [2, 5, 9, 11]
            );
        }
    }

    #[test]
    fn parallel_pieces_agree_with_one() {
        let candidates: Vec<u64> = (0..200_000u64).map(|i| (i * 7919) % 50_000).collect();
        let current: Vec<u64> = (0..50_000).step_by(3).collect();
        let previous: Vec<u64> = (1..50_000).step_by(5).collect();
        let one = settle(candidates.clone(), &current, &previous, 1);
        let four = settle(candidates, &current, &previous, 4);
        assert_eq!(one, four);
        assert!(one.windows(2).all(|w| w[0] < w[1]));
        assert!(one.iter().all(|k| k % 3 != 0 && k % 5 != 1));
    }
}
