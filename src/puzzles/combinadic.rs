//! The combinatorial number system: a bijection between the k-element
//! subsets of {0, …, n-1} and the integers 0 … C(n, k) - 1.
//!
//! A sorted subset `a_0 < a_1 < … < a_{k-1}` has rank `Σ C(a_i, i + 1)`
//! (colexicographic order). The rank needs no n, and moving one element
//! changes only the terms of the elements it passes.

/// C(n, k) for n, k ≤ 64; every such value fits a `u64` (the largest,
/// C(64, 32), is about 1.8e18).
static BINOMIAL: [[u64; 65]; 65] = pascal();

const fn pascal() -> [[u64; 65]; 65] {
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
}

/// The table by column: `COLUMNS[k][n]` = C(n, k), so that a search over n
/// for a fixed k walks contiguous memory.
static COLUMNS: [[u64; 65]; 65] = {
    let rows = pascal();
    let mut t = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        let mut k = 0;
        while k <= n {
            t[k][n] = rows[n][k];
            k += 1;
        }
        n += 1;
    }
    t
};

/// C(n, k), for n, k ≤ 64 (0 when k > n: the table holds zeros there).
#[inline]
pub fn binomial(n: usize, k: usize) -> u64 {
    BINOMIAL[n][k]
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
        // The largest a with C(a, i + 1) <= r; elements only decrease. The
        // column is zero below i + 1, so the walk stops by a = i at the latest.
        let column = &COLUMNS[i + 1];
        a -= 1;
        while column[a] > r {
            a -= 1;
        }
        out[i] = a as u16;
        r -= column[a];
    }
}

/// The most entries [`subsets_in_rank_order`] is used for: 2^20 subsets, an
/// 8 MiB table. Even out of cache, one load beats [`unrank`]'s search: on
/// pe766 (a 4.5 MiB table for the six single squares) decoding took 1.10 s
/// of a run with the table against 1.33 s without.
pub const SUBSET_TABLE_MAX: u64 = 1 << 20;

/// Every k-subset of {0, …, n-1} as a bitmask, indexed by rank. Colex order
/// of subsets is increasing order of their bitmasks, so the table is the
/// k-bit numbers below 2^n in increasing order (Gosper's hack steps from
/// one to the next).
pub fn subsets_in_rank_order(n: usize, k: usize) -> Vec<u64> {
    assert!(0 < k && k <= n && n <= 64);
    let len = binomial(n, k) as usize;
    let mut table = Vec::with_capacity(len);
    let mut x: u64 = if k == 64 { u64::MAX } else { (1 << k) - 1 };
    for _ in 0..len {
        table.push(x);
        // The next larger number with the same number of set bits.
        let c = x & x.wrapping_neg();
        let r = x.wrapping_add(c);
        x = (((r ^ x) >> 2) / c) | r;
    }
    table
}

/// Division by a fixed divisor through one multiplication: decoding a key
/// divides by every class's radix, and a hardware 64-bit division costs tens
/// of cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divisor {
    d: u64,
    /// floor((2^64 - 1) / d).
    m: u64,
}

/// [`Divisor`]s of 1 to 256, at index d (index 0 holds 1's): for the
/// small counts a multiset's rank divides by, without a division.
pub static SMALL_DIVISORS: [Divisor; 257] = {
    let mut table = [Divisor { d: 1, m: u64::MAX }; 257];
    let mut d = 2;
    while d <= 256 {
        table[d] = Divisor {
            d: d as u64,
            m: u64::MAX / d as u64,
        };
        d += 1;
    }
    table
};

impl Divisor {
    /// A divisor of `d`, which must not be zero.
    pub fn new(d: u64) -> Divisor {
        assert!(d > 0, "division by zero");
        Divisor { d, m: u64::MAX / d }
    }

    /// `d`.
    #[inline]
    pub fn get(self) -> u64 {
        self.d
    }

    /// `(n / d, n % d)`.
    #[inline]
    pub fn div_rem(self, n: u64) -> (u64, u64) {
        // With m = floor((2^64 - 1) / d), n·m / 2^64 lies in (n/d - 1, n/d],
        // so the estimate is the quotient or one less, and one correction
        // step makes it exact.
        let mut q = ((u128::from(n) * u128::from(self.m)) >> 64) as u64;
        let mut r = n - q * self.d;
        if r >= self.d {
            q += 1;
            r -= self.d;
        }
        (q, r)
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
        assert_eq!(binomial(0, 64), 0);
        for n in 0..=64 {
            for k in n + 1..=64 {
                assert_eq!(binomial(n, k), 0);
            }
        }
    }

    #[test]
    fn subset_table_matches_unrank() {
        for (n, k) in [(5, 2), (20, 2), (30, 6), (12, 11), (7, 7)] {
            let table = subsets_in_rank_order(n, k);
            assert_eq!(table.len() as u64, binomial(n, k));
            let mut set = vec![0u16; k];
            for (r, &bits) in table.iter().enumerate() {
                unrank(r as u64, n, &mut set);
                let mask = set.iter().fold(0u64, |m, &a| m | 1 << a);
                assert_eq!(mask, bits, "rank {r} of C({n},{k})");
            }
        }
    }

    #[test]
    fn divisor_edges() {
        for d in [
            1,
            2,
            3,
            7,
            190,
            593_775,
            u64::MAX / 3,
            u64::MAX - 1,
            u64::MAX,
        ] {
            for n in [0, 1, d - 1, d, d.wrapping_add(1), u64::MAX - 1, u64::MAX] {
                assert_eq!(Divisor::new(d).div_rem(n), (n / d, n % d), "{n} / {d}");
            }
        }
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
        fn divisor_matches_hardware_division(n: u64, d in 1u64..) {
            prop_assert_eq!(Divisor::new(d).div_rem(n), (n / d, n % d));
        }

        #[test]
        fn divisor_small_divisors(n: u64, d in 1u64..5000) {
            prop_assert_eq!(Divisor::new(d).div_rem(n), (n / d, n % d));
        }

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
