//! Coordinates: a permutation puzzle's key is a mixed-radix number whose
//! digits are independent parts of the state, each a perfect rank.
//!
//! The moves split each set's positions into orbits (positions that pieces
//! can travel between). A piece never leaves its orbit, so each orbit's
//! arrangement of pieces is one coordinate and its orientations another,
//! and a move acts on each coordinate alone: what a coordinate becomes
//! depends only on its own value and the move. That is what lets small
//! coordinates use a move table (value x move → value).
//!
//! - An arrangement of distinct pieces is ranked by its Lehmer code; when
//!   every move is an even permutation of the orbit, the parity is fixed
//!   and the last two pieces' order is implied (k!/2 ranks).
//! - An arrangement with identical pieces is ranked as a multiset
//!   permutation (k! / Π m_j! ranks).
//! - Orientations are base-`o` digits; when every move's twists on the
//!   orbit sum to 0 mod `o`, the sum is fixed and the last digit implied.
//!
//! Orbits of one position and sets of one orientation give coordinates of
//! size 1, which are left out: their part of the state never changes.
//!
//! A coordinate of more than 2^64 values (the 24 wings of the 4x4x4, the
//! 30 edges of the megaminx, 60 centres of 12 colours) is *split* (see
//! [`Split`]): its rank is a sequence of digits (a Lehmer code's, one
//! base-`o` digit an orientation, one combination a kind of identical
//! pieces), grouped into parts that each fit a `u64`. The key packs the
//! parts as it packs whole coordinates, so it stays an exact packing of
//! the state, a few words wide.

use super::lanes::Lanes;
use crate::puzzles::combinadic::Divisor;

/// What a coordinate ranks.
#[derive(Clone, Debug)]
pub enum Kind {
    /// The arrangement of an orbit's pieces; `local` values are kinds,
    /// numbered by the pieces' order (`values[kind]` is the piece).
    Perm {
        /// The piece of each kind.
        values: Vec<u16>,
        /// How many pieces of each kind.
        counts: Vec<u8>,
        /// Every piece is of its own kind (a Lehmer code).
        distinct: bool,
        /// The parity every reachable arrangement has, when moves keep it.
        parity: Option<u8>,
    },
    /// The orientations of an orbit's pieces.
    Ori {
        /// Orientations a piece.
        o: u8,
        /// The sum (mod `o`) every reachable state has, when moves keep it.
        sum: Option<u8>,
    },
    /// The arrangement of an orbit's pieces and the orientations of those
    /// whose orientation matters, when some pieces' does not (twsearch's
    /// `?`): one coordinate, since which positions hold the pieces whose
    /// orientation counts changes with the arrangement. `local` is the
    /// orbit's kinds, then its orientations (0 where a piece's does not
    /// matter); the rank is the arrangement's times `o^counted`, plus the
    /// counted orientations in position order.
    Wild {
        /// The arrangement alone: a `Perm` coordinate of the same positions.
        arrangement: Box<Coord>,
        /// Orientations a piece.
        o: u8,
        /// Which kinds' orientation does not matter.
        wild: Vec<bool>,
        /// Pieces whose orientation counts.
        counted: usize,
    },
}

/// One coordinate: a kind of rank over some positions of one set.
#[derive(Clone, Debug)]
pub struct Coord {
    /// The set its positions are in.
    pub set: usize,
    /// The orbit's positions, ascending.
    pub positions: Vec<usize>,
    /// What it ranks.
    pub kind: Kind,
    /// Its number of values (`u64::MAX` when it is split: see
    /// [`Coord::size_text`]).
    pub size: u64,
    /// Its (first part's) place value in its word of the key.
    pub weight: u64,
    /// For each generated move, the orbit's permutation in local indices:
    /// the value at local `a` comes from local `perm[m][a]`.
    pub perm: Vec<Vec<u8>>,
    /// For each generated move, the twist at each local position.
    pub twist: Vec<Vec<u8>>,
    /// Value x move → value, when small enough to tabulate.
    pub table: Option<Vec<u32>>,
    /// `(k-1-i)!` (halved when the parity is fixed), for Lehmer codes: the
    /// digits' place values, each with its division by multiply and shift.
    places: Vec<Divisor>,
    /// How the rank is cut into parts, when it has more than 2^64 values
    /// (`size` then says `u64::MAX`).
    pub split: Option<Split>,
    /// The word of the key its (first) part is in, counted from the
    /// least significant; [`Coord::weight`] is its place value there.
    pub word: usize,
    /// The digits a rank holds: a Lehmer code's first `k-1` (`k-2` when
    /// the parity is fixed), or the orientations' first `k` (`k-1` when
    /// the sum is fixed); the rest are implied.
    digits: usize,
    /// A distinct arrangement of at most 16 pieces, moved and ranked in a
    /// vector register (see [`Lanes`]).
    pub lanes: Option<Lanes>,
    /// Division by `size` (by 1 when it is split), without a division
    /// instruction: a key's digits are taken apart at every decode.
    pub size_divisor: Divisor,
}

/// A coordinate of more than 2^64 values as digits (each below its
/// radix), grouped into consecutive runs whose values fit a `u64`: its
/// parts. A part's value is its digits as a mixed-radix number, the first
/// digit the most significant.
#[derive(Clone, Debug)]
pub struct Split {
    /// Each digit's radix.
    radices: Vec<u64>,
    /// Each part's digits.
    parts: Vec<std::ops::Range<usize>>,
    /// Each part's number of values: its digits' radices multiplied.
    sizes: Vec<u64>,
    /// log2 of the coordinate's number of values.
    bits: f64,
}

impl Split {
    /// The digits of `radices`, in parts that each fit a `u64`.
    fn new(radices: Vec<u64>) -> Split {
        let bits = radices.iter().map(|&r| (r as f64).log2()).sum();
        let mut split = Split {
            radices,
            parts: Vec::new(),
            sizes: Vec::new(),
            bits,
        };
        split.cut(u64::MAX);
        split
    }

    /// Groups the digits into parts again, greedily: the first part takes
    /// the digits whose radices multiply to at most `room` (what the word
    /// it starts in has left; none, and it starts a word), each next part
    /// those that fit a `u64`. So a key's words hold whole digits and
    /// waste less than a digit each.
    pub fn cut(&mut self, room: u64) {
        self.parts.clear();
        self.sizes.clear();
        let (mut start, mut size, mut room) = (0, 1u64, room);
        for (i, &r) in self.radices.iter().enumerate() {
            match size.checked_mul(r).filter(|&n| n <= room) {
                Some(n) => size = n,
                None => {
                    if i > start {
                        self.parts.push(start..i);
                        self.sizes.push(size);
                    }
                    start = i;
                    size = r;
                    room = u64::MAX;
                }
            }
        }
        self.parts.push(start..self.radices.len());
        self.sizes.push(size);
    }

    /// Each part's number of values.
    pub fn sizes(&self) -> &[u64] {
        &self.sizes
    }

    /// The digits' values from the parts' (`digits` as long as the
    /// digits).
    fn unpack(&self, parts: &[u64], digits: &mut [u64]) {
        for (range, &v) in self.parts.iter().zip(parts) {
            let mut v = v;
            for i in range.clone().rev() {
                digits[i] = v % self.radices[i];
                v /= self.radices[i];
            }
        }
    }

    /// The parts' values from the digits'.
    fn pack(&self, digits: &[u64], parts: &mut [u64]) {
        for (range, p) in self.parts.iter().zip(parts) {
            *p = range
                .clone()
                .fold(0u64, |v, i| v * self.radices[i] + digits[i]);
        }
    }
}

/// A set of up to 256 values (a byte each), as bits.
#[derive(Clone, Copy, Default)]
struct Bits256([u64; 4]);

impl Bits256 {
    fn all(k: usize) -> Bits256 {
        let mut b = Bits256::default();
        for x in 0..k {
            b.insert(x as u8);
        }
        b
    }

    fn insert(&mut self, x: u8) {
        self.0[usize::from(x >> 6)] |= 1 << (x & 63);
    }

    fn remove(&mut self, x: u8) {
        self.0[usize::from(x >> 6)] &= !(1 << (x & 63));
    }

    fn contains(&self, x: u8) -> bool {
        self.0[usize::from(x >> 6)] >> (x & 63) & 1 == 1
    }

    /// How many members are below `x`.
    fn below(&self, x: u8) -> u64 {
        let w = usize::from(x >> 6);
        let whole: u32 = self.0[..w].iter().map(|b| b.count_ones()).sum();
        u64::from(whole + (self.0[w] & ((1u64 << (x & 63)) - 1)).count_ones())
    }

    /// The `n`-th (0-based) smallest member.
    fn nth(&self, mut n: u64) -> u8 {
        for (w, &b) in self.0.iter().enumerate() {
            let c = u64::from(b.count_ones());
            if n < c {
                return (w as u8) << 6 | nth_set_bit64(b, n as u32);
            }
            n -= c;
        }
        unreachable!("fewer members than asked for")
    }
}

/// The index of the `n`-th (0-based) set bit of `bits`.
#[inline]
fn nth_set_bit64(mut bits: u64, n: u32) -> u8 {
    for _ in 0..n {
        bits &= bits - 1;
    }
    bits.trailing_zeros() as u8
}

/// `C(n, k)` for `n` up to 256, saturated at `u64::MAX`.
fn binomial(n: usize, k: usize) -> u64 {
    static TABLE: std::sync::OnceLock<Vec<Vec<u64>>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut rows: Vec<Vec<u64>> = Vec::with_capacity(257);
        for n in 0..=256usize {
            let row = (0..=n)
                .map(|k| {
                    if k == 0 || k == n {
                        1
                    } else {
                        rows[n - 1][k - 1].saturating_add(rows[n - 1][k])
                    }
                })
                .collect();
            rows.push(row);
        }
        rows
    });
    if k > n { 0 } else { table[n][k] }
}

/// Parity of a permutation given as `perm[a]` in `0..k`.
pub fn parity(perm: &[u8]) -> u8 {
    let mut seen = 0u64;
    let mut odd = 0;
    for start in 0..perm.len() {
        if seen >> start & 1 == 1 {
            continue;
        }
        let mut len = 0;
        let mut a = start;
        while seen >> a & 1 == 0 {
            seen |= 1 << a;
            a = usize::from(perm[a]);
            len += 1;
        }
        odd ^= (len + 1) & 1;
    }
    odd as u8
}

/// `n!`, or `None` past `u64`.
pub fn factorial(n: usize) -> Option<u64> {
    (1..=n as u64).try_fold(1u64, |f, i| f.checked_mul(i))
}

impl Coord {
    /// A coordinate of `kind` over `positions`; `perm` and `twist` as the
    /// fields. Returns `None` when its size does not fit a `u64`.
    pub fn new(
        set: usize,
        positions: Vec<usize>,
        kind: Kind,
        perm: Vec<Vec<u8>>,
        twist: Vec<Vec<u8>>,
    ) -> Option<Coord> {
        let k = positions.len();
        let digits = match &kind {
            Kind::Perm { parity, .. } => k.saturating_sub(if parity.is_some() { 2 } else { 1 }),
            Kind::Ori { sum, .. } => k - usize::from(sum.is_some()),
            Kind::Wild { counted, .. } => *counted,
        };
        let mut factorials = Vec::new();
        let mut whole = || -> Option<u64> {
            Some(match &kind {
                Kind::Perm {
                    counts,
                    distinct: true,
                    parity,
                    ..
                } => {
                    debug_assert!(counts.iter().all(|&c| c == 1));
                    let halve = u64::from(parity.is_some()) + 1;
                    for i in 0..k {
                        factorials.push(factorial(k - 1 - i)? / if i + 2 < k { halve } else { 1 });
                    }
                    factorial(k)? / halve
                }
                Kind::Perm { counts, .. } => multinomial(counts)?,
                Kind::Ori { o, .. } => {
                    (0..digits).try_fold(1u64, |n, _| n.checked_mul(u64::from(*o)))?
                }
                Kind::Wild { arrangement, o, .. } => {
                    if arrangement.split.is_some() {
                        return None;
                    }
                    (0..digits).try_fold(arrangement.size, |n, _| n.checked_mul(u64::from(*o)))?
                }
            })
        };
        let (size, split) = match whole() {
            Some(size) => (size, None),
            None => {
                factorials.clear();
                (u64::MAX, Some(Split::new(split_radices(&kind, k, digits)?)))
            }
        };
        let lanes = match &kind {
            Kind::Perm {
                distinct: true,
                parity,
                ..
            } if split.is_none() => Lanes::new(k, &perm, *parity),
            _ => None,
        };
        Some(Coord {
            set,
            positions,
            kind,
            size,
            weight: 0,
            perm,
            twist,
            table: None,
            places: factorials.into_iter().map(Divisor::new).collect(),
            digits,
            size_divisor: Divisor::new(if split.is_some() { 1 } else { size }),
            split,
            word: 0,
            lanes,
        })
    }

    /// How many parts of the key it takes: one, or its split's parts.
    pub fn parts(&self) -> usize {
        self.split.as_ref().map_or(1, |s| s.parts.len())
    }

    /// Its number of values, as a float (exact below 2^53).
    pub fn size_f64(&self) -> f64 {
        match &self.split {
            Some(s) => s.bits.exp2(),
            None => self.size as f64,
        }
    }

    /// log2 of its number of values.
    pub fn bits(&self) -> f64 {
        match &self.split {
            Some(s) => s.bits,
            None => (self.size as f64).log2(),
        }
    }

    /// Its number of values, in decimal: exact, however large.
    pub fn size_text(&self) -> String {
        let Some(split) = &self.split else {
            return self.size.to_string();
        };
        product_text(split.radices.iter().copied())
    }

    /// The parts' values of `local` (a split coordinate's; one part, the
    /// rank, otherwise); `digits` has room for its digits.
    pub fn rank_parts(&self, local: &[u8], parts: &mut [u64], digits: &mut [u64]) {
        match &self.split {
            None => parts[0] = self.rank(local),
            Some(split) => {
                self.split_digits(local, digits);
                split.pack(digits, parts);
            }
        }
    }

    /// The values whose parts are `parts`, into `local`.
    pub fn unrank_parts(&self, parts: &[u64], local: &mut [u8], digits: &mut [u64]) {
        match &self.split {
            None => self.unrank(parts[0], local),
            Some(split) => {
                split.unpack(parts, digits);
                self.split_undigits(digits, local);
            }
        }
    }

    /// A split coordinate's digits of `local`.
    fn split_digits(&self, local: &[u8], out: &mut [u64]) {
        let k = self.positions.len();
        match &self.kind {
            Kind::Perm { distinct: true, .. } => {
                let mut used = Bits256::default();
                for (i, &x) in local[..self.digits].iter().enumerate() {
                    out[i] = u64::from(x) - used.below(x);
                    used.insert(x);
                }
            }
            Kind::Perm { counts, .. } => {
                // Kind by kind, which of the places the kinds before left
                // it holds: a combination's colex rank.
                let mut taken = Bits256::default();
                for (j, d) in out[..counts.len() - 1].iter_mut().enumerate() {
                    let (mut t, mut seen, mut r) = (0, 0, 0u64);
                    for (a, &x) in local[..k].iter().enumerate() {
                        if taken.contains(a as u8) {
                            continue;
                        }
                        if usize::from(x) == j {
                            seen += 1;
                            r += binomial(t, seen);
                            taken.insert(a as u8);
                        }
                        t += 1;
                    }
                    *d = r;
                }
            }
            Kind::Ori { .. } => {
                for (d, &x) in out.iter_mut().zip(&local[..self.digits]) {
                    *d = u64::from(x);
                }
            }
            Kind::Wild {
                arrangement, wild, ..
            } => {
                let (kinds, ori) = local.split_at(k);
                let n = match &arrangement.split {
                    Some(split) => {
                        arrangement.split_digits(kinds, out);
                        split.radices.len()
                    }
                    None => {
                        out[0] = arrangement.rank(kinds);
                        1
                    }
                };
                let mut i = n;
                for a in 0..k {
                    if !wild[usize::from(kinds[a])] {
                        out[i] = u64::from(ori[a]);
                        i += 1;
                    }
                }
            }
        }
    }

    /// The values of a split coordinate's `digits`, into `local`.
    fn split_undigits(&self, digits: &[u64], local: &mut [u8]) {
        let k = self.positions.len();
        match &self.kind {
            Kind::Perm {
                distinct: true,
                parity,
                ..
            } => {
                let mut unused = Bits256::all(k);
                let mut sum = 0u64;
                for (slot, &d) in local[..self.digits].iter_mut().zip(digits) {
                    sum += d;
                    *slot = unused.nth(d);
                    unused.remove(*slot);
                }
                match parity {
                    Some(p) if k >= 2 => {
                        let (a, b) = (unused.nth(0), unused.nth(1));
                        let d = (u64::from(*p) + sum) & 1;
                        (local[k - 2], local[k - 1]) = if d == 1 { (b, a) } else { (a, b) };
                    }
                    _ => local[k - 1] = unused.nth(0),
                }
            }
            Kind::Perm { counts, .. } => {
                let last = counts.len() - 1;
                local[..k].fill(last as u8);
                let mut free = Bits256::all(k);
                let mut n = k;
                for (j, (&r, &c)) in digits.iter().zip(counts).take(last).enumerate() {
                    // The combination of rank r, its largest index first:
                    // taking a place out of `free` leaves the smaller
                    // indices naming the same places, so each goes at once
                    // (no list of them, in a decode).
                    let mut r = r;
                    let mut t = n;
                    for i in (1..=usize::from(c)).rev() {
                        t -= 1;
                        while binomial(t, i) > r {
                            t -= 1;
                        }
                        r -= binomial(t, i);
                        let a = free.nth(t as u64);
                        local[usize::from(a)] = j as u8;
                        free.remove(a);
                    }
                    n -= usize::from(c);
                }
            }
            Kind::Ori { o, sum } => {
                let mut total = 0u32;
                for (slot, &d) in local[..self.digits].iter_mut().zip(digits) {
                    *slot = d as u8;
                    total += d as u32;
                }
                if let Some(s) = sum {
                    let o = u32::from(*o);
                    local[k - 1] = ((u32::from(*s) + o * 256 - total) % o) as u8;
                }
            }
            Kind::Wild {
                arrangement, wild, ..
            } => {
                let (kinds, ori) = local.split_at_mut(k);
                let n = match &arrangement.split {
                    Some(split) => {
                        arrangement.split_undigits(digits, kinds);
                        split.radices.len()
                    }
                    None => {
                        arrangement.unrank(digits[0], kinds);
                        1
                    }
                };
                let mut i = n;
                for a in 0..k {
                    ori[a] = if wild[usize::from(kinds[a])] {
                        0
                    } else {
                        i += 1;
                        digits[i - 1] as u8
                    };
                }
            }
        }
    }

    /// The arrangement this coordinate ranks: itself for [`Kind::Perm`],
    /// its first part for [`Kind::Wild`]; `None` for orientations.
    pub fn arrangement(&self) -> Option<&Coord> {
        match &self.kind {
            Kind::Perm { .. } => Some(self),
            Kind::Wild { arrangement, .. } => Some(arrangement),
            Kind::Ori { .. } => None,
        }
    }

    /// The piece of each kind of the arrangement this coordinate ranks,
    /// and how many pieces of each kind; `None` for orientations.
    pub fn pieces(&self) -> Option<(&[u16], &[u8])> {
        match &self.arrangement()?.kind {
            Kind::Perm { values, counts, .. } => Some((values, counts)),
            _ => None,
        }
    }

    /// How many values `local` holds: the orbit's positions, or twice
    /// that for [`Kind::Wild`] (kinds, then orientations).
    pub fn local_len(&self) -> usize {
        match self.kind {
            Kind::Wild { .. } => 2 * self.positions.len(),
            _ => self.positions.len(),
        }
    }

    /// The rank of `local` (kinds or orientations at the orbit's positions).
    pub fn rank(&self, local: &[u8]) -> u64 {
        let k = local.len();
        match &self.kind {
            Kind::Wild {
                arrangement,
                o,
                wild,
                ..
            } => {
                let k = self.positions.len();
                let (kinds, ori) = local.split_at(k);
                let mut r = 0u64;
                for a in (0..k).rev() {
                    if !wild[usize::from(kinds[a])] {
                        r = r * u64::from(*o) + u64::from(ori[a]);
                    }
                }
                arrangement.rank(kinds) * (self.size / arrangement.size) + r
            }
            Kind::Perm { distinct: true, .. } => {
                let mut used = 0u32;
                let mut r = 0u64;
                for (i, &x) in local[..self.digits].iter().enumerate() {
                    let below = (1u32 << x) - 1;
                    let d = u64::from(x) - u64::from((used & below).count_ones());
                    used |= 1 << x;
                    r += d * self.places[i].get();
                }
                r
            }
            Kind::Perm { counts, .. } => {
                // The arrangements that put a smaller kind at this place
                // number total * (pieces of the smaller kinds left) / n,
                // exactly (a sum of exact multinomials). In 64 bits where
                // the products fit (the 4x4x4's centres: 24!/4!^6 times
                // 24; a u128 division was a quarter of its search), else
                // in 128 (with a multiply for each division where the
                // counts are at most 256).
                let mut left = [0u8; 256];
                left[..counts.len()].copy_from_slice(counts);
                if k <= 256 && self.size.checked_mul(k as u64).is_some() {
                    let (mut n, mut total, mut r) = (k, self.size, 0u64);
                    for &x in local {
                        let x = usize::from(x);
                        let below: u64 = left[..x].iter().map(|&l| u64::from(l)).sum();
                        let by = crate::puzzles::combinadic::SMALL_DIVISORS[n];
                        r += by.div_rem(total * below).0;
                        total = by.div_rem(total * u64::from(left[x])).0;
                        left[x] -= 1;
                        n -= 1;
                    }
                    return r;
                }
                let mut n = k as u128;
                let mut total = u128::from(self.size);
                let mut r = 0u128;
                for &x in local {
                    let x = usize::from(x);
                    let below: u128 = left[..x].iter().map(|&l| u128::from(l)).sum();
                    r += total * below / n;
                    total = total * u128::from(left[x]) / n;
                    left[x] -= 1;
                    n -= 1;
                }
                r as u64
            }
            Kind::Ori { o, .. } => local[..self.digits]
                .iter()
                .rev()
                .fold(0u64, |r, &d| r * u64::from(*o) + u64::from(d)),
        }
    }

    /// The values whose rank is `r`, into `local`.
    pub fn unrank(&self, mut r: u64, local: &mut [u8]) {
        if let Some(lanes) = &self.lanes {
            // A distinct arrangement of at most 16 pieces.
            return lanes.unrank(r, local);
        }
        let k = local.len();
        match &self.kind {
            Kind::Wild {
                arrangement,
                o,
                wild,
                ..
            } => {
                let k = self.positions.len();
                let per = self.size / arrangement.size;
                let (kinds, ori) = local.split_at_mut(k);
                arrangement.unrank(r / per, kinds);
                let mut rest = r % per;
                for a in 0..k {
                    ori[a] = if wild[usize::from(kinds[a])] {
                        0
                    } else {
                        let d = (rest % u64::from(*o)) as u8;
                        rest /= u64::from(*o);
                        d
                    };
                }
            }
            Kind::Perm {
                distinct: true,
                parity,
                ..
            } => {
                // A distinct orbit has at most 20 pieces (21! > 2^64).
                let mut unused: u32 = (1 << k) - 1;
                let mut sum = 0u64;
                for (slot, f) in local[..self.digits].iter_mut().zip(&self.places) {
                    let d;
                    (d, r) = f.div_rem(r);
                    sum += d;
                    *slot = nth_set_bit(unused, d as u32);
                    unused &= !(1 << *slot);
                }
                match parity {
                    Some(p) if k >= 2 => {
                        let a = unused.trailing_zeros() as u8;
                        let b = (31 - (unused & !(1 << a)).leading_zeros()) as u8;
                        // The next digit is 1 (b before a) when it makes
                        // the sum of digits, the parity, right.
                        let d = (u64::from(*p) + sum) & 1;
                        (local[k - 2], local[k - 1]) = if d == 1 { (b, a) } else { (a, b) };
                    }
                    _ => {
                        if k >= 1 {
                            local[k - 1] = unused.trailing_zeros() as u8;
                        }
                    }
                }
            }
            Kind::Perm { counts, .. } if k <= 256 && self.size.checked_mul(k as u64).is_some() => {
                // As the 128-bit arm below, in 64 bits: the products fit.
                let mut left = [0u8; 256];
                left[..counts.len()].copy_from_slice(counts);
                let (mut n, mut total) = (k, self.size);
                for slot in local.iter_mut() {
                    let by = crate::puzzles::combinadic::SMALL_DIVISORS[n];
                    for (t, l) in left[..counts.len()].iter_mut().enumerate() {
                        if *l == 0 {
                            continue;
                        }
                        let block = by.div_rem(total * u64::from(*l)).0;
                        if r < block {
                            *slot = t as u8;
                            total = block;
                            *l -= 1;
                            break;
                        }
                        r -= block;
                    }
                    n -= 1;
                }
            }
            Kind::Perm { counts, .. } => {
                let mut left = [0u8; 256];
                left[..counts.len()].copy_from_slice(counts);
                let mut n = k as u128;
                let mut total = u128::from(self.size);
                let mut r = u128::from(r);
                for slot in local.iter_mut() {
                    for (t, l) in left[..counts.len()].iter_mut().enumerate() {
                        if *l == 0 {
                            continue;
                        }
                        let block = total * u128::from(*l) / n;
                        if r < block {
                            *slot = t as u8;
                            total = block;
                            *l -= 1;
                            break;
                        }
                        r -= block;
                    }
                    n -= 1;
                }
            }
            Kind::Ori { o, sum } => {
                let mut total = 0u32;
                for d in &mut local[..self.digits] {
                    *d = (r % u64::from(*o)) as u8;
                    r /= u64::from(*o);
                    total += u32::from(*d);
                }
                if let Some(s) = sum {
                    let o = u32::from(*o);
                    local[k - 1] = ((u32::from(*s) + o * 256 - total) % o) as u8;
                }
            }
        }
    }

    /// The values after generated move `m`, from `src` into `dst`.
    #[inline]
    pub fn apply(&self, m: usize, src: &[u8], dst: &mut [u8]) {
        let perm = &self.perm[m];
        match &self.kind {
            Kind::Perm { .. } => {
                for (d, &from) in dst.iter_mut().zip(perm) {
                    *d = src[usize::from(from)];
                }
            }
            Kind::Wild { o, wild, .. } => {
                let k = self.positions.len();
                let twist = &self.twist[m];
                let (src_kinds, src_ori) = src.split_at(k);
                let (kinds, ori) = dst.split_at_mut(k);
                for a in 0..k {
                    let from = usize::from(perm[a]);
                    kinds[a] = src_kinds[from];
                    ori[a] = if wild[usize::from(kinds[a])] {
                        0
                    } else {
                        ((u16::from(src_ori[from]) + u16::from(twist[a])) % u16::from(*o)) as u8
                    };
                }
            }
            Kind::Ori { o, .. } => {
                let twist = &self.twist[m];
                for ((d, &from), &t) in dst.iter_mut().zip(perm).zip(twist) {
                    let v = u16::from(src[usize::from(from)]) + u16::from(t);
                    *d = if v >= u16::from(*o) {
                        (v - u16::from(*o)) as u8
                    } else {
                        v as u8
                    };
                }
            }
        }
    }

    /// Fills the move table (value x move → value) when it has at most
    /// `limit` entries and its values fit a `u32`.
    pub fn tabulate(&mut self, limit: u64) {
        use rayon::prelude::*;
        let moves = self.perm.len();
        if moves == 0
            || self.size > u64::from(u32::MAX)
            || self.size.saturating_mul(moves as u64) > limit
        {
            return;
        }
        let k = self.local_len();
        let mut table = vec![0u32; self.size as usize * moves];
        let this = &*self;
        table
            .par_chunks_mut(moves * 1024)
            .enumerate()
            .for_each(|(chunk, out)| {
                let mut src = vec![0u8; k];
                let mut dst = vec![0u8; k];
                for (i, row) in out.chunks_mut(moves).enumerate() {
                    this.unrank((chunk * 1024 + i) as u64, &mut src);
                    for (m, slot) in row.iter_mut().enumerate() {
                        this.apply(m, &src, &mut dst);
                        *slot = this.rank(&dst) as u32;
                    }
                }
            });
        self.table = Some(table);
    }
}

/// A product of numbers, in decimal: exact, however large.
pub fn product_text(factors: impl Iterator<Item = u64>) -> String {
    // Base-10^18 limbs, the least significant first.
    const BASE: u128 = 1_000_000_000_000_000_000;
    let mut limbs: Vec<u128> = vec![1];
    for r in factors {
        let mut carry = 0u128;
        for l in &mut limbs {
            let v = *l * u128::from(r) + carry;
            *l = v % BASE;
            carry = v / BASE;
        }
        while carry > 0 {
            limbs.push(carry % BASE);
            carry /= BASE;
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut out = limbs.last().expect("one limb at least").to_string();
    for l in limbs.iter().rev().skip(1) {
        out.push_str(&format!("{l:018}"));
    }
    out
}

/// The radices of a split coordinate's digits (see [`Split`]), or `None`
/// when one of them is over 2^64 (a kind of identical pieces whose places
/// can be chosen in more ways).
fn split_radices(kind: &Kind, k: usize, digits: usize) -> Option<Vec<u64>> {
    Some(match kind {
        Kind::Perm { distinct: true, .. } => (0..digits).map(|i| (k - i) as u64).collect(),
        Kind::Perm { counts, .. } => {
            let mut n = k;
            let mut out = Vec::new();
            for &c in &counts[..counts.len() - 1] {
                let r = binomial(n, usize::from(c));
                if r == u64::MAX {
                    return None;
                }
                out.push(r);
                n -= usize::from(c);
            }
            out
        }
        Kind::Ori { o, .. } => vec![u64::from(*o); digits],
        Kind::Wild {
            arrangement,
            o,
            counted,
            ..
        } => {
            let mut out = match &arrangement.split {
                Some(split) => split.radices.clone(),
                None => vec![arrangement.size],
            };
            out.extend(std::iter::repeat_n(u64::from(*o), *counted));
            out
        }
    })
}

/// The index of the `n`-th (0-based) set bit of `bits`.
#[inline]
fn nth_set_bit(mut bits: u32, n: u32) -> u8 {
    for _ in 0..n {
        bits &= bits - 1;
    }
    bits.trailing_zeros() as u8
}

/// `(Σ c)! / Π c!`, or `None` past `u64`.
pub fn multinomial(counts: &[u8]) -> Option<u64> {
    // A product of binomials, each exact and no larger than the result.
    let mut n = 0u64;
    let mut total = 1u64;
    for &c in counts {
        for i in 1..=u64::from(c) {
            n += 1;
            // total * n / i stays exact: total * C(n, i) / C(n-1, i-1)...
            // computed in u128 so that the product cannot overflow first.
            let t = u128::from(total) * u128::from(n) / u128::from(i);
            total = u64::try_from(t).ok()?;
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::super::lanes::tests::xorshift;
    use super::*;

    fn perm_coord(counts: Vec<u8>, parity: Option<u8>) -> Coord {
        let k: usize = counts.iter().map(|&c| usize::from(c)).sum();
        let distinct = counts.iter().all(|&c| c == 1);
        let values = (0..counts.len() as u16).collect();
        Coord::new(
            0,
            (0..k).collect(),
            Kind::Perm {
                values,
                counts,
                distinct,
                parity,
            },
            vec![],
            vec![],
        )
        .unwrap()
    }

    fn check_bijection(c: &Coord, k: usize) {
        let mut seen = std::collections::HashSet::new();
        let mut local = vec![0u8; k];
        for r in 0..c.size {
            c.unrank(r, &mut local);
            assert_eq!(c.rank(&local), r, "{local:?}");
            assert!(seen.insert(local.clone()), "{local:?} twice");
            if let Some(lanes) = &c.lanes {
                assert_eq!(lanes.rank_of(&lanes.lanes_of(&local)), r, "{local:?}");
                assert_eq!(lanes.rank(lanes.load(&local)), r, "{local:?}");
            }
        }
    }

    #[test]
    fn lanes_rank_large_arrangements_as_the_lehmer_code_does() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for k in 8..=16 {
            for p in [None, Some(0), Some(1)] {
                let c = perm_coord(vec![1; k], p);
                let lanes = c
                    .lanes
                    .as_ref()
                    .expect("a distinct arrangement of at most 16");
                let mut local = vec![0u8; k];
                for _ in 0..2000 {
                    let want = xorshift(&mut seed) % c.size;
                    c.unrank(want, &mut local);
                    let r = c.rank(&local);
                    assert_eq!(r, want);
                    assert_eq!(lanes.rank_of(&lanes.lanes_of(&local)), r, "{local:?}");
                    assert_eq!(lanes.rank(lanes.load(&local)), r, "{local:?}");
                }
            }
        }
        // Past 16 pieces, a digit at a time.
        for k in 17..=20 {
            let c = perm_coord(vec![1; k], Some(0));
            assert!(c.lanes.is_none());
            let mut local = vec![0u8; k];
            for _ in 0..2000 {
                let want = xorshift(&mut seed) % c.size;
                c.unrank(want, &mut local);
                assert_eq!(c.rank(&local), want);
                assert_eq!(parity(&local), 0);
            }
        }
    }

    #[test]
    fn lehmer_codes_are_bijections() {
        for k in 1..=7 {
            let c = perm_coord(vec![1; k], None);
            assert_eq!(c.size, factorial(k).unwrap());
            check_bijection(&c, k);
        }
    }

    #[test]
    fn parity_reduced_codes_keep_the_parity() {
        for k in 2..=7 {
            for p in 0..2 {
                let c = perm_coord(vec![1; k], Some(p));
                assert_eq!(c.size, factorial(k).unwrap() / 2);
                check_bijection(&c, k);
                let mut local = vec![0u8; k];
                for r in 0..c.size {
                    c.unrank(r, &mut local);
                    assert_eq!(parity(&local), p, "{local:?}");
                }
            }
        }
    }

    #[test]
    fn multiset_ranks_are_bijections() {
        for counts in [
            vec![2, 2],
            vec![3, 1, 2],
            vec![1, 1, 4],
            vec![5],
            vec![2, 3, 2],
        ] {
            let k = counts.iter().map(|&c| usize::from(c)).sum();
            let c = perm_coord(counts.clone(), None);
            assert_eq!(c.size, multinomial(&counts).unwrap());
            check_bijection(&c, k);
        }
        assert_eq!(multinomial(&[2, 2, 2]), Some(90));
        assert_eq!(multinomial(&[1; 20]), factorial(20));
        assert_eq!(multinomial(&[1; 21]), None);
    }

    #[test]
    fn multiset_ranks_of_big_orbits_are_the_term_by_term_ranks() {
        // The rank as first written: each smaller kind's arrangements in
        // 128 bits, a division each.
        fn by_terms(counts: &[u8], size: u64, local: &[u8]) -> u64 {
            let mut left = counts.to_vec();
            let (mut n, mut total, mut r) = (local.len() as u128, u128::from(size), 0u128);
            for &x in local {
                for &l in &left[..usize::from(x)] {
                    r += total * u128::from(l) / n;
                }
                total = total * u128::from(left[usize::from(x)]) / n;
                left[usize::from(x)] -= 1;
                n -= 1;
            }
            r as u64
        }
        // The 4x4x4's centres and a 64-bit product (each division a
        // multiply); 20 pieces two alike, whose products pass 2^64.
        let mut ones = vec![2u8];
        ones.extend([1u8; 18]);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for counts in [vec![4u8; 6], vec![2u8; 10], ones] {
            let c = perm_coord(counts.clone(), None);
            let mut local: Vec<u8> = counts
                .iter()
                .enumerate()
                .flat_map(|(t, &n)| std::iter::repeat_n(t as u8, usize::from(n)))
                .collect();
            let mut back = vec![0u8; local.len()];
            for _ in 0..2000 {
                for i in (1..local.len()).rev() {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    local.swap(i, (seed % (i as u64 + 1)) as usize);
                }
                let r = c.rank(&local);
                assert_eq!(r, by_terms(&counts, c.size, &local), "{counts:?}");
                assert!(r < c.size);
                c.unrank(r, &mut back);
                assert_eq!(back, local, "{counts:?}");
            }
        }
    }

    #[test]
    fn orientations_with_a_fixed_sum() {
        let c = Coord::new(
            0,
            vec![0, 1, 2, 3],
            Kind::Ori { o: 3, sum: Some(2) },
            vec![],
            vec![],
        )
        .unwrap();
        assert_eq!(c.size, 27);
        let mut local = [0u8; 4];
        for r in 0..27 {
            c.unrank(r, &mut local);
            assert_eq!(local.iter().map(|&d| u32::from(d)).sum::<u32>() % 3, 2);
            assert_eq!(c.rank(&local), r);
        }
    }
}
