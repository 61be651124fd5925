//! Frontier search: settling a level's candidates against the two levels
//! before it.
//!
//! When every move can be undone, a state at distance d+1 has all its
//! neighbours at distance d, d+1 or d+2, so a successor of level d is new
//! exactly when it is in neither level d-1 nor level d. With the levels kept
//! sorted, a level's candidates (sorted runs, one per worker) are merged,
//! deduplicated and checked against them: no visited set, sequential memory
//! access, and memory for three levels instead of every state.

use rayon::prelude::*;

/// Sorts `keys`, in parallel when there are many.
pub(crate) fn sort_keys(keys: &mut [u64], threads: usize) {
    if threads == 1 || keys.len() < 1 << 14 {
        keys.sort_unstable();
    } else {
        keys.par_sort_unstable();
    }
}

/// Buffers reused from level to level: a level's worth of fresh memory
/// costs as much in page faults as the merge itself.
#[derive(Default)]
pub(crate) struct Buffers {
    /// Each parallel piece's output.
    parts: Vec<Vec<u64>>,
    /// A level's buffer no longer needed, to hold the next one.
    pub(crate) spare: Vec<u64>,
}

/// The keys of the sorted `runs` that are in neither `current` nor
/// `previous` (both sorted), sorted and without duplicates.
pub(crate) fn settle(
    runs: &[&[u64]],
    current: &[u64],
    previous: &[u64],
    threads: usize,
    buffers: &mut Buffers,
) -> Vec<u64> {
    let total: usize = runs.iter().map(|r| r.len()).sum();
    let mut next = std::mem::take(&mut buffers.spare);
    next.clear();
    // Below this the merge is quicker than splitting it (pe766 at 2 threads,
    // five runs: 0.65-0.80 s against 0.69-0.83 s with a 65536 threshold).
    if threads == 1 || total < 1 << 13 {
        merge_range(runs, current, previous, &mut next);
        return next;
    }
    // Split the key range at evenly spaced keys of the largest run, so that
    // each piece is merged by one task; the pieces are disjoint key ranges,
    // so their outputs concatenate in order.
    let largest = runs.iter().max_by_key(|r| r.len()).expect("runs");
    let pieces = threads * 8;
    let mut splitters: Vec<u64> = (1..pieces)
        .map(|i| largest[i * largest.len() / pieces])
        .collect();
    splitters.dedup();
    let bounds: Vec<(u64, Option<u64>)> = std::iter::once(0)
        .chain(splitters.iter().copied())
        .zip(
            splitters
                .iter()
                .copied()
                .map(Some)
                .chain(std::iter::once(None)),
        )
        .collect();
    let within = |keys: &'_ [u64], lo: u64, hi: Option<u64>| -> std::ops::Range<usize> {
        let start = keys.partition_point(|&k| k < lo);
        let end = hi.map_or(keys.len(), |hi| keys.partition_point(|&k| k < hi));
        start..end
    };
    buffers.parts.resize_with(bounds.len(), Vec::new);
    bounds
        .par_iter()
        .zip(buffers.parts.par_iter_mut())
        .for_each(|(&(lo, hi), out)| {
            out.clear();
            let sub: Vec<&[u64]> = runs.iter().map(|r| &r[within(r, lo, hi)]).collect();
            merge_range(
                &sub,
                &current[within(current, lo, hi)],
                &previous[within(previous, lo, hi)],
                out,
            );
        });
    next.reserve(buffers.parts.iter().map(Vec::len).sum());
    for part in &buffers.parts {
        next.extend_from_slice(part);
    }
    next
}

/// Merges sorted `runs` into `out`, skipping duplicates and keys found in
/// `current` or `previous`.
fn merge_range(runs: &[&[u64]], current: &[u64], previous: &[u64], out: &mut Vec<u64>) {
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

    #[test]
    fn settles_against_both_levels() {
        let (a, b) = ([1, 3, 3, 5, 9], [2, 7, 9, 11]);
        let current = [3, 4];
        let previous = [1, 7];
        let mut buffers = Buffers::default();
        assert_eq!(
            settle(&[&a, &b], &current, &previous, 1, &mut buffers),
            [2, 5, 9, 11]
        );
        assert_eq!(
            settle(&[&a, &b], &current, &previous, 4, &mut buffers),
            [2, 5, 9, 11]
        );
        assert_eq!(settle(&[&[], &b], &[], &[], 1, &mut buffers), b);
        assert!(settle(&[&[], &[]], &current, &previous, 4, &mut buffers).is_empty());
    }

    #[test]
    fn parallel_pieces_agree_with_one() {
        let mut runs: Vec<Vec<u64>> = (0..3u64)
            .map(|r| {
                (0..70_000u64)
                    .map(|i| (i * 7919 + r * 13) % 50_000)
                    .collect()
            })
            .collect();
        runs.iter_mut().for_each(|r| r.sort_unstable());
        let runs: Vec<&[u64]> = runs.iter().map(Vec::as_slice).collect();
        let current: Vec<u64> = (0..50_000).step_by(3).collect();
        let previous: Vec<u64> = (1..50_000).step_by(5).collect();
        let mut buffers = Buffers::default();
        let one = settle(&runs, &current, &previous, 1, &mut buffers);
        let four = settle(&runs, &current, &previous, 4, &mut buffers);
        assert_eq!(one, four);
        assert!(one.windows(2).all(|w| w[0] < w[1]));
        assert!(one.iter().all(|k| k % 3 != 0 && k % 5 != 1));
        assert_eq!(
            one.len(),
            (0..50_000u64).filter(|k| k % 3 != 0 && k % 5 != 1).count()
        );
    }
}
