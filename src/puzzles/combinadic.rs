//! The combinatorial number system: a bijection between the k-element
//! subsets of {0, …, n-1} and the integers 0 … C(n, k) - 1.
//!
//! A sorted subset `a_0 < a_1 < … < a_{k-1}` has rank `Σ C(a_i, i + 1)`
//! (colexicographic order). The rank needs no n, and moving one element
//! changes only the terms of the elements it passes.

/// C(n, k) for n, k ≤ 64; every such value fits a `u64` (the largest,
/// C(64, 32), is about 1.8e18).
static BINOMIAL: [[u64; 65]; 65] = {
    let mut t = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// C(n, k), for n ≤ 64 (0 when k > n).
#[inline]
pub fn binomial(n: usize, k: usize) -> u64 {
    if k > n { 0 } else { BINOMIAL[n][k] }
}

/// The rank of a strictly increasing sequence of elements below 64.
#[inline]
pub fn rank(sorted: &[u16]) -> u64 {
    sorted
        .iter()
        .enumerate()
        .map(|(i, &a)| binomial(a as usize, i + 1))
        .sum()
}

/// Writes into `out` (of length k) the sorted subset of {0, …, n-1} with
/// rank `r`. `r` must be below C(n, k).
#[inline]
pub fn unrank(mut r: u64, n: usize, out: &mut [u16]) {
    let k = out.len();
    if k == 1 {
        out[0] = r as u16;
        return;
    }
    let mut a = n;
    for i in (0..k).rev() {
        // The largest a with C(a, i + 1) <= r; elements only decrease.
        a -= 1;
        while binomial(a, i + 1) > r {
            a -= 1;
        }
        out[i] = a as u16;
        r -= binomial(a, i + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pascal() {
        assert_eq!(binomial(0, 0), 1);
        assert_eq!(binomial(20, 2), 190);
        assert_eq!(binomial(30, 6), 593_775);
        assert_eq!(binomial(64, 32), 1_832_624_140_942_590_534);
        assert_eq!(binomial(5, 6), 0);
    }

    #[test]
    fn ranks_enumerate_every_subset_once() {
        // All 3-subsets of 0..8, in colex order, get ranks 0..C(8,3).
        let mut seen = vec![false; binomial(8, 3) as usize];
        for c in 2..8u16 {
            for b in 1..c {
                for a in 0..b {
                    let r = rank(&[a, b, c]) as usize;
                    assert!(!seen[r], "rank {r} given twice");
                    seen[r] = true;
                    let mut back = [0u16; 3];
                    unrank(r as u64, 8, &mut back);
                    assert_eq!(back, [a, b, c]);
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    proptest! {
        #[test]
        fn round_trip(set in proptest::collection::btree_set(0u16..64, 1..12)) {
            let sorted: Vec<u16> = set.into_iter().collect();
            let r = rank(&sorted);
            prop_assert!(r < binomial(64, sorted.len()));
            let mut back = vec![0u16; sorted.len()];
            unrank(r, 64, &mut back);
            prop_assert_eq!(back, sorted);
        }

        #[test]
        fn distinct_subsets_distinct_ranks(
            a in proptest::collection::btree_set(0u16..40, 4),
            b in proptest::collection::btree_set(0u16..40, 4),
        ) {
            let (a, b): (Vec<u16>, Vec<u16>) = (a.into_iter().collect(), b.into_iter().collect());
            prop_assert_eq!(a == b, rank(&a) == rank(&b));
        }
    }
}
