//! An arrangement of at most 16 distinct pieces moved and ranked in one
//! 16-byte vector register.
//!
//! A coordinate too large for a move table (the dino cube's 12 edges,
//! 12!/2 values; the 3x3x3's 12 edges) was moved a byte at a time and
//! ranked by a Lehmer code a digit at a time: on the dino cube, whose only
//! coordinate that is, `Coord::apply` and `Coord::rank` took two thirds of
//! a count. Here the arrangement is one register:
//!
//! - a move is one byte shuffle (`pshufb`): lane `a` takes lane
//!   `shuffle[a]`;
//! - the Lehmer digits `d_i = #{j > i : x_j < x_i}` come from comparing
//!   the register with itself shifted by 1 to `k - 1` lanes, every lane at
//!   once (lanes past the pieces hold a value above every piece, so they
//!   add nothing);
//! - the digits, a mixed-radix number of radices `k - i`, are folded two
//!   lanes at a time by multiply-adds (`pmaddubsw`, `pmaddwd`, `pmulld`),
//!   then the two halves in 64 bits.
//!
//! The rank is exactly [`Coord::rank`]'s: the Lehmer code, halved when the
//! parity is fixed (the last two pieces' order, the lowest digit, is then
//! implied). The scalar [`Lanes::rank_of`] computes the same number a
//! digit at a time, for the tests and for machines without SSE4.1.
//!
//! [`Coord::rank`]: super::coord::Coord::rank

use crate::puzzles::combinadic::Divisor;

/// The value of the lanes past an arrangement's pieces: above every piece,
/// so a comparison never counts it.
const PAST: u8 = 0x7f;

/// A distinct arrangement's moves and rank, for registers of 16 lanes.
// The folding constants serve the vector rank only.
#[cfg_attr(
    not(all(target_arch = "x86_64", target_feature = "sse4.1")),
    allow(dead_code)
)]
#[derive(Clone, Debug)]
pub struct Lanes {
    /// The number of pieces (2 to 16).
    k: usize,
    /// Per generated move: lane `a` of the result takes lane
    /// `shuffle[a]` (lanes past `k` keep their own).
    shuffles: Vec<[u8; 16]>,
    /// Bytes `2j`, `2j+1`: radix `2j+1`, then 1: a pair of digits as one.
    pairs: [i8; 16],
    /// 16-bit lanes `2j`, `2j+1`: radices `4j+2` and `4j+3` multiplied,
    /// then 1: two pairs as one.
    quads: [i16; 8],
    /// 32-bit lanes: radices 4-7 multiplied, 1, radices 12-15
    /// multiplied, 1: two quads as one.
    octs: [i32; 4],
    /// Radices 8-15 multiplied: the place value of the first eight lanes.
    high: u64,
    /// The parity every arrangement has, when it is fixed: the rank is
    /// then the Lehmer code halved.
    parity: Option<u8>,
    /// Division by the place value of each digit a rank holds (each
    /// halved with the parity fixed).
    places: Vec<Divisor>,
}

impl Lanes {
    /// The lanes of a distinct arrangement of `k` pieces (2 to 16), with
    /// each generated move's permutation in local indices (`perm[m][a]`:
    /// the piece at `a` comes from `perm[m][a]`), its parity fixed or not.
    pub fn new(k: usize, perm: &[Vec<u8>], parity: Option<u8>) -> Option<Lanes> {
        if !(2..=16).contains(&k) || perm.iter().any(|p| p.len() != k) {
            return None;
        }
        let shuffles = perm
            .iter()
            .map(|p| std::array::from_fn(|a| if a < k { p[a] } else { a as u8 }))
            .collect();
        let radix = |i: usize| if i < k { (k - i) as i64 } else { 1 };
        let product = |r: std::ops::Range<usize>| r.map(radix).product::<i64>();
        let halve = parity.is_some();
        // A rank holds k - 1 digits of place values (k-1-i)!, or with the
        // parity fixed k - 2 of half those (each at least 2!).
        let held = k - 1 - usize::from(halve);
        let places = (0..held)
            .map(|i| Divisor::new(product(i + 1..k) as u64 >> u8::from(halve)))
            .collect();
        Some(Lanes {
            k,
            shuffles,
            pairs: std::array::from_fn(|b| if b % 2 == 0 { radix(b + 1) as i8 } else { 1 }),
            quads: std::array::from_fn(|l| {
                if l % 2 == 0 {
                    (radix(2 * l + 2) * radix(2 * l + 3)) as i16
                } else {
                    1
                }
            }),
            octs: [product(4..8) as i32, 1, product(12..16) as i32, 1],
            high: product(8..16) as u64,
            parity,
            places,
        })
    }

    /// The arrangement `local` (the `k` pieces, `0..k`) as 16 lanes.
    #[inline]
    pub fn lanes_of(&self, local: &[u8]) -> [u8; 16] {
        let mut x = [PAST; 16];
        x[..self.k].copy_from_slice(&local[..self.k]);
        x
    }

    /// `x` after generated move `m`, a lane at a time.
    pub fn apply_of(&self, m: usize, x: &[u8; 16]) -> [u8; 16] {
        std::array::from_fn(|a| x[usize::from(self.shuffles[m][a])])
    }

    /// The Lehmer digits of rank `r` (`d_i` pieces to the right of `i`
    /// are smaller), each from its own division: none waits for another.
    /// Byte `i` of the number is `d_i`, built in general registers and
    /// moved to a vector register whole (not stored a byte at a time and
    /// loaded back).
    #[inline(always)]
    pub fn digits(&self, r: u64) -> u128 {
        let mut d = 0u128;
        // q_i = r / place_i; d_i = q_i - (k - i) q_{i-1}, as a place value
        // is the next one's times its radix.
        let mut before = 0u64;
        let mut sum = 0u32;
        for (i, place) in self.places.iter().enumerate() {
            let q = place.div_rem(r).0;
            let digit = q - (self.k - i) as u64 * before;
            d |= u128::from(digit) << (8 * i);
            sum += digit as u32;
            before = q;
        }
        if let Some(parity) = self.parity {
            // The last two pieces in the order that gives the parity.
            d |= u128::from((u32::from(parity) + sum) & 1) << (8 * (self.k - 2));
        }
        d
    }

    /// The arrangement of rank `r` into `local`, a piece at a time: what
    /// [`Coord::unrank`] gives.
    ///
    /// [`Coord::unrank`]: super::coord::Coord::unrank
    pub fn unrank_of(&self, r: u64, local: &mut [u8]) {
        let d = self.digits(r).to_le_bytes();
        let mut unused: Vec<u8> = (0..self.k as u8).collect();
        for (slot, &d) in local[..self.k].iter_mut().zip(&d) {
            *slot = unused.remove(usize::from(d));
        }
    }

    /// The rank of Lehmer code `r`: `r` halved where the parity is fixed
    /// (the lowest digit, the last two pieces' order, is then implied).
    #[inline(always)]
    fn halved(&self, r: u64) -> u64 {
        r >> u8::from(self.parity.is_some())
    }

    /// The rank of `x`, a digit at a time: [`Coord::rank`]'s.
    ///
    /// [`Coord::rank`]: super::coord::Coord::rank
    pub fn rank_of(&self, x: &[u8; 16]) -> u64 {
        let mut r = 0u64;
        for i in 0..self.k {
            let d = x[i + 1..self.k].iter().filter(|&&y| y < x[i]).count() as u64;
            r = r * (self.k - i) as u64 + d;
        }
        self.halved(r)
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
mod vector {
    use std::arch::x86_64::*;

    use super::{Lanes, PAST};

    /// The lane indices.
    const INDICES: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

    /// An arrangement in a register.
    #[derive(Clone, Copy)]
    pub struct Register(__m128i);

    /// `[u8; 16]` as a register.
    #[inline(always)]
    fn load(bytes: &[u8; 16]) -> __m128i {
        // SAFETY: the pointer is to 16 readable bytes (an unaligned load
        // asks no alignment), and the build's target has SSE2.
        unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
    }

    impl Lanes {
        /// `local` (the `k` pieces) in a register.
        #[inline]
        pub fn load(&self, local: &[u8]) -> Register {
            Register(load(&self.lanes_of(local)))
        }

        /// The arrangement of rank `r` into `local` (its `k` pieces).
        ///
        /// From the digits, right to left: each lane's value is its digit
        /// among the pieces from it rightwards, and placing the piece at
        /// `i` (its digit `d_i`) moves up by one every lane to its right
        /// holding at least `d_i`. Once every lane is placed, each holds
        /// its rank among all: its piece.
        #[inline]
        pub fn unrank(&self, r: u64, local: &mut [u8]) {
            let d = self.digits(r);
            // SAFETY: the build's target has SSE2.
            let digits = unsafe { _mm_set_epi64x((d >> 64) as i64, d as i64) };
            let indices = load(&INDICES);
            let mut v = digits;
            // SAFETY: the build's target has SSSE3 (the module's cfg asks
            // for SSE4.1, which implies it): every instruction exists.
            unsafe {
                for i in (0..self.k - 1).rev() {
                    let at = _mm_set1_epi8(i as i8);
                    let d = _mm_shuffle_epi8(digits, at);
                    let right = _mm_cmpgt_epi8(indices, at);
                    // Lanes to the right holding at least d: all ones.
                    let up = _mm_andnot_si128(_mm_cmpgt_epi8(d, v), right);
                    v = _mm_sub_epi8(v, up);
                }
            }
            local[..self.k].copy_from_slice(&Register(v).bytes()[..self.k]);
        }

        /// `x` after generated move `m`.
        #[inline(always)]
        pub fn apply(&self, m: usize, x: Register) -> Register {
            // SAFETY: the build's target has SSSE3 (the module's cfg asks
            // for SSE4.1, which implies it).
            Register(unsafe { _mm_shuffle_epi8(x.0, load(&self.shuffles[m])) })
        }

        /// The rank of `x`: [`Lanes::rank_of`]'s, every lane at once.
        #[inline(always)]
        pub fn rank(&self, x: Register) -> u64 {
            let x = x.0;
            // SAFETY: the build's target has SSE4.1 and what it implies
            // (the module's cfg): every instruction below exists.
            let (low, high) = unsafe {
                let past = _mm_set1_epi8(PAST as i8);
                // Each lane's digit: the lanes to its right holding less.
                let mut d = _mm_setzero_si128();
                macro_rules! shifted {
                    ($($s:literal)*) => {$(
                        if self.k > $s {
                            let y = _mm_alignr_epi8::<$s>(past, x);
                            d = _mm_sub_epi8(d, _mm_cmpgt_epi8(x, y));
                        }
                    )*};
                }
                shifted!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
                // The digits' mixed-radix value, folded pairwise.
                let pairs = _mm_maddubs_epi16(d, load_i8(&self.pairs));
                let quads = _mm_madd_epi16(pairs, load_i16(&self.quads));
                let octs = _mm_mullo_epi32(quads, load_i32(&self.octs));
                let halves = _mm_hadd_epi32(octs, octs);
                (
                    _mm_cvtsi128_si32(halves) as u32,
                    _mm_extract_epi32::<1>(halves) as u32,
                )
            };
            let r = u64::from(low) * self.high + u64::from(high);
            self.halved(r)
        }
    }

    #[inline(always)]
    fn load_i8(v: &[i8; 16]) -> __m128i {
        // SAFETY: 16 readable bytes; an unaligned load.
        unsafe { _mm_loadu_si128(v.as_ptr().cast()) }
    }

    #[inline(always)]
    fn load_i16(v: &[i16; 8]) -> __m128i {
        // SAFETY: 16 readable bytes; an unaligned load.
        unsafe { _mm_loadu_si128(v.as_ptr().cast()) }
    }

    #[inline(always)]
    fn load_i32(v: &[i32; 4]) -> __m128i {
        // SAFETY: 16 readable bytes; an unaligned load.
        unsafe { _mm_loadu_si128(v.as_ptr().cast()) }
    }

    impl Register {
        /// Its lanes.
        pub fn bytes(self) -> [u8; 16] {
            let mut out = [0u8; 16];
            // SAFETY: 16 writable bytes; an unaligned store.
            unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), self.0) };
            out
        }
    }
}

/// The same operations a lane at a time, where the build's target lacks
/// SSE4.1: the numbers are the same.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse4.1")))]
mod scalar {
    use super::Lanes;

    /// An arrangement as its lanes.
    #[derive(Clone, Copy)]
    pub struct Register([u8; 16]);

    impl Lanes {
        /// `local` (the `k` pieces) as lanes.
        #[inline]
        pub fn load(&self, local: &[u8]) -> Register {
            Register(self.lanes_of(local))
        }

        /// The arrangement of rank `r` into `local` (its `k` pieces).
        #[inline]
        pub fn unrank(&self, r: u64, local: &mut [u8]) {
            self.unrank_of(r, local)
        }

        /// `x` after generated move `m`.
        #[inline]
        pub fn apply(&self, m: usize, x: Register) -> Register {
            Register(self.apply_of(m, &x.0))
        }

        /// The rank of `x`.
        #[inline]
        pub fn rank(&self, x: Register) -> u64 {
            self.rank_of(&x.0)
        }
    }

    impl Register {
        /// Its lanes.
        pub fn bytes(self) -> [u8; 16] {
            self.0
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The next of a xorshift sequence (`seed` not 0).
    pub(in crate::puzzles::twisty) fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// A pseudo-random permutation of `0..k` (xorshift, Fisher-Yates).
    fn shuffled(k: usize, seed: &mut u64) -> Vec<u8> {
        let mut p: Vec<u8> = (0..k as u8).collect();
        for i in (1..k).rev() {
            p.swap(i, (xorshift(seed) % (i as u64 + 1)) as usize);
        }
        p
    }

    #[test]
    fn ranks_count_every_arrangement_once_in_order() {
        // k = 2..6: every arrangement, ranked 0.. in lexicographic order
        // (halved with a fixed parity: each pair of ranks shares one).
        for k in 2..=6usize {
            for parity in [None, Some(0), Some(1)] {
                let halve = parity.is_some();
                let lanes = Lanes::new(k, &[], parity).unwrap();
                let mut p: Vec<u8> = (0..k as u8).collect();
                let mut n = 0u64;
                loop {
                    let x = lanes.lanes_of(&p);
                    let want = if halve { n >> 1 } else { n };
                    assert_eq!(lanes.rank_of(&x), want, "k {k} {p:?}");
                    assert_eq!(lanes.rank(lanes.load(&p)), want, "k {k} {p:?}");
                    n += 1;
                    if !next_permutation(&mut p) {
                        break;
                    }
                }
            }
        }
    }

    fn next_permutation(p: &mut [u8]) -> bool {
        let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
            return false;
        };
        let j = (i..p.len()).rev().find(|&j| p[j] > p[i - 1]).unwrap();
        p.swap(i - 1, j);
        p[i..].reverse();
        true
    }

    #[test]
    fn the_register_moves_and_ranks_as_the_digits_do() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for k in 2..=16usize {
            let moves: Vec<Vec<u8>> = (0..4).map(|_| shuffled(k, &mut seed)).collect();
            for parity in [None, Some(0), Some(1)] {
                let lanes = Lanes::new(k, &moves, parity).unwrap();
                for _ in 0..500 {
                    let p = shuffled(k, &mut seed);
                    let x = lanes.lanes_of(&p);
                    let reg = lanes.load(&p);
                    assert_eq!(reg.bytes(), x);
                    let r = lanes.rank(reg);
                    assert_eq!(r, lanes.rank_of(&x), "k {k} {p:?}");
                    // Back from the rank: the arrangement, or with the
                    // parity fixed the one of that parity.
                    let (mut back, mut slow) = (vec![0u8; k], vec![0u8; k]);
                    lanes.unrank(r, &mut back);
                    lanes.unrank_of(r, &mut slow);
                    assert_eq!(back, slow, "k {k} rank {r}");
                    let mut want = p.clone();
                    if parity.is_some_and(|q| q != crate::puzzles::twisty::coord::parity(&p)) {
                        want.swap(k - 2, k - 1);
                    }
                    assert_eq!(back, want, "k {k} rank {r}");
                    for m in 0..moves.len() {
                        let moved = lanes.apply(m, reg);
                        assert_eq!(moved.bytes(), lanes.apply_of(m, &x));
                        assert_eq!(lanes.rank(moved), lanes.rank_of(&moved.bytes()));
                    }
                }
            }
        }
    }
}
