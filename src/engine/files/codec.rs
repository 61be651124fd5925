//! Blocks of sorted keys, Rice-coded.
//!
//! A block holds up to [`BLOCK_KEYS`] sorted, distinct keys: the first key
//! as it is, then each gap less one in Rice code with the parameter `k`
//! that suits the block's mean gap (the quotient `gap >> k` in unary, then
//! the `k` low bits). A sorted run of n keys spread over a range R costs
//! about log2(R / n) + 1.6 bits a key: keys in a partition of eleven's
//! largest levels cost 2-3 bytes, where a delta + varint code would cost 3-4.
//!
//! Layout, little-endian: `n: u32, k: u8, first: u64, payload_len: u32,
//! payload, crc32: u32`, the checksum covering every byte before it, so a
//! block is checked before a single key of it is trusted.
//!
//! Keys of several words ([`Coded::WORDS`] > 1) are coded the same way,
//! their gaps as numbers of as many words: `n: u32, k: u16, first: the
//! key's words (most significant first), payload_len: u32, payload,
//! crc32: u32`. The Rice parameter may pass 64 bits (a level of a
//! million 3x3x3 positions spreads them about 2^46 apart), its low bits
//! written 32 at a time; the quotients stay small whatever the width,
//! since they sum to at most about three a key.

/// Keys in a full block: small enough that a decoded block (128 KiB) stays
/// in cache, large enough that its 21 bytes of header and checksum do not
/// count.
pub(crate) const BLOCK_KEYS: usize = 16384;

/// Bytes before a block's payload.
pub(crate) const BLOCK_HEADER: usize = 4 + 1 + 8 + 4;

/// Why a block could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodecError {
    /// The bytes end before the block does.
    Truncated,
    /// The checksum does not match.
    Checksum,
    /// The checksum matched, yet the payload does not decode (a bug, or a
    /// 1 in 4 billion collision).
    Malformed,
}

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CodecError::Truncated => "a block is cut short",
            CodecError::Checksum => "a block's checksum does not match its bytes",
            CodecError::Malformed => "a block's keys do not decode",
        })
    }
}

/// The Rice parameter for gaps (less one) averaging `mean`: about
/// log2(mean * ln 2), which minimises the expected length.
fn rice_parameter(mean: u64) -> u32 {
    let scaled = mean - mean / 4 - mean / 16; // about 0.69 * mean
    if scaled == 0 {
        0
    } else {
        63 - scaled.leading_zeros()
    }
}

/// Writes bits least significant first; whole 32-bit words go out at
/// once, so `bits` stays under 32 between calls.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    bits: u32,
}

impl BitWriter<'_> {
    /// Writes the `n` (at most 32) low bits of `v`, least significant first.
    #[inline(always)]
    fn put(&mut self, v: u64, n: u32) {
        debug_assert!(n <= 32 && self.bits < 32);
        let v = if n == 0 {
            0
        } else {
            v & (u64::MAX >> (64 - n))
        };
        self.acc |= v << self.bits;
        self.bits += n;
        if self.bits >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.bits -= 32;
        }
    }

    fn put_wide(&mut self, v: u64, n: u32) {
        if n > 32 {
            self.put(v, 32);
            self.put(v >> 32, n - 32);
        } else {
            self.put(v, n);
        }
    }

    /// `q` zeros, then a one.
    #[inline]
    fn put_unary(&mut self, mut q: u64) {
        while q >= 31 {
            self.put(0, 31);
            q -= 31;
        }
        self.put(1 << q, q as u32 + 1);
    }

    /// `gap` in Rice code with parameter `k`: the quotient in unary, then
    /// the `k` low bits; one write when the code fits 32 bits (nearly
    /// always: the quotient averages under two).
    #[inline(always)]
    fn put_rice(&mut self, gap: u64, k: u32) {
        let q = gap >> k;
        if q + 1 + u64::from(k) <= 32 {
            let low = gap & ((1u64 << k) - 1);
            self.put((1 << q) | low << (q + 1), q as u32 + 1 + k);
        } else {
            self.put_unary(q);
            self.put_wide(gap, k);
        }
    }

    fn finish(mut self) {
        while self.bits > 0 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.bits = self.bits.saturating_sub(8);
        }
    }
}

struct BitReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    acc: u64,
    bits: u32,
}

impl BitReader<'_> {
    #[inline]
    fn refill(&mut self) {
        if let Some(word) = self.bytes.get(self.pos..self.pos + 8) {
            // Eight bytes at once; those that do not fit whole are not
            // counted, and the bits of them that did fit are the same bits
            // the next refill puts there again.
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            self.acc |= word << self.bits;
            let take = (63 - self.bits) / 8;
            self.pos += take as usize;
            self.bits += take * 8;
            return;
        }
        while self.bits <= 56 && self.pos < self.bytes.len() {
            self.acc |= u64::from(self.bytes[self.pos]) << self.bits;
            self.pos += 1;
            self.bits += 8;
        }
    }

    /// The next `n` (at most 32) bits.
    #[inline]
    fn get(&mut self, n: u32) -> Result<u64, CodecError> {
        if self.bits < n {
            self.refill();
            if self.bits < n {
                return Err(CodecError::Malformed);
            }
        }
        let v = if n == 0 {
            0
        } else {
            self.acc & (u64::MAX >> (64 - n))
        };
        // n < 64, so neither shift overflows.
        self.acc >>= n;
        self.bits -= n;
        Ok(v)
    }

    fn get_wide(&mut self, n: u32) -> Result<u64, CodecError> {
        if n > 32 {
            let low = self.get(32)?;
            Ok(low | self.get(n - 32)? << 32)
        } else {
            self.get(n)
        }
    }

    /// Zeros up to the next one, which is consumed.
    #[inline]
    fn get_unary(&mut self) -> Result<u64, CodecError> {
        let mut q = 0u64;
        loop {
            if self.bits == 0 {
                self.refill();
                if self.bits == 0 {
                    return Err(CodecError::Malformed);
                }
            }
            let zeros = self.acc.trailing_zeros();
            if zeros < self.bits {
                q += u64::from(zeros);
                self.acc >>= zeros;
                self.acc >>= 1;
                self.bits -= zeros + 1;
                return Ok(q);
            }
            q += u64::from(self.bits);
            self.acc = 0;
            self.bits = 0;
        }
    }
}

/// A key the codec writes: one 64-bit word or several.
pub trait Coded: Copy + Ord + Send + Sync + 'static {
    /// Its width in 64-bit words.
    const WORDS: usize;

    /// Appends the key's words, most significant first.
    fn put_words(self, out: &mut Vec<u64>);

    /// The key whose words (most significant first) start `words`.
    fn from_words(words: &[u64]) -> Self;

    /// Appends one block holding `keys` (sorted, distinct, 1 to
    /// [`BLOCK_KEYS`] of them) to `out`.
    fn encode_block(keys: &[Self], out: &mut Vec<u8>) {
        encode_wide(keys, out);
    }

    /// Checks the block at the start of `bytes` and appends its keys to
    /// `out`; the block's length in bytes.
    fn decode_block(bytes: &[u8], out: &mut Vec<Self>) -> Result<usize, CodecError> {
        decode_wide(bytes, out)
    }

    /// Appends the key's words (most significant first), little-endian
    /// (a block's first key, an index's; not per key).
    fn put_bytes(self, out: &mut Vec<u8>) {
        let mut words = Vec::with_capacity(Self::WORDS);
        self.put_words(&mut words);
        words
            .iter()
            .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
    }

    /// The key whose words [`Coded::put_bytes`] wrote at the start of `bytes`.
    fn from_bytes(bytes: &[u8]) -> Self {
        let words: Vec<u64> = bytes[..8 * Self::WORDS]
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .collect();
        Self::from_words(&words)
    }
}

impl Coded for u64 {
    const WORDS: usize = 1;

    #[inline]
    fn put_words(self, out: &mut Vec<u64>) {
        out.push(self);
    }

    #[inline]
    fn from_words(words: &[u64]) -> u64 {
        words[0]
    }

    fn encode_block(keys: &[u64], out: &mut Vec<u8>) {
        encode_block(keys, out);
    }

    fn decode_block(bytes: &[u8], out: &mut Vec<u64>) -> Result<usize, CodecError> {
        decode_block(bytes, out)
    }

    fn put_bytes(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }

    fn from_bytes(bytes: &[u8]) -> u64 {
        u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"))
    }
}

/// Bytes before a block's payload, for keys of `words` words; the last
/// four are the payload's length.
fn header_len(words: usize) -> usize {
    if words == 1 {
        BLOCK_HEADER
    } else {
        4 + 2 + 8 * words + 4
    }
}

/// Numbers of several words, least significant first, for the gaps of
/// wide keys.
mod limbs {
    /// `a -= b` (a at least b).
    pub(super) fn sub(a: &mut [u64], b: &[u64]) {
        let mut borrow = false;
        for (x, &y) in a.iter_mut().zip(b) {
            let (d, o1) = x.overflowing_sub(y);
            let (d, o2) = d.overflowing_sub(u64::from(borrow));
            *x = d;
            borrow = o1 || o2;
        }
        debug_assert!(!borrow);
    }

    /// `a -= v`; whether it went below zero.
    pub(super) fn sub_small(a: &mut [u64], mut v: u64) -> bool {
        for x in a.iter_mut() {
            let (d, o) = x.overflowing_sub(v);
            *x = d;
            if !o {
                return false;
            }
            v = 1;
        }
        v != 0
    }

    /// `a += b + 1`; whether it overflowed.
    pub(super) fn add_plus_one(a: &mut [u64], b: &[u64]) -> bool {
        let mut carry = true;
        for (x, &y) in a.iter_mut().zip(b) {
            let (s, o1) = x.overflowing_add(y);
            let (s, o2) = s.overflowing_add(u64::from(carry));
            *x = s;
            carry = o1 || o2;
        }
        carry
    }

    /// `a /= d`.
    pub(super) fn div_small(a: &mut [u64], d: u64) {
        let mut rem = 0u128;
        for x in a.iter_mut().rev() {
            let cur = rem << 64 | u128::from(*x);
            *x = (cur / u128::from(d)) as u64;
            rem = cur % u128::from(d);
        }
    }

    /// The number's length in bits (0 for zero).
    pub(super) fn bits(a: &[u64]) -> u32 {
        for (i, &x) in a.iter().enumerate().rev() {
            if x != 0 {
                return i as u32 * 64 + 64 - x.leading_zeros();
            }
        }
        0
    }

    /// The 64 bits of `a` from bit `at` up (zeros past its end).
    pub(super) fn bits_at(a: &[u64], at: u32) -> u64 {
        let (i, s) = ((at / 64) as usize, at % 64);
        let low = a.get(i).map_or(0, |&x| x >> s);
        let high = match (s, a.get(i + 1)) {
            (0, _) | (_, None) => 0,
            (s, Some(&x)) => x << (64 - s),
        };
        low | high
    }

    /// `a = q << k | low`, where `low` is `a`'s value on entry (below
    /// 2^k); whether `q << k` does not fit.
    pub(super) fn or_shifted(a: &mut [u64], q: u64, k: u32) -> bool {
        if q == 0 {
            return false;
        }
        let (i, s) = ((k / 64) as usize, k % 64);
        let low = q << s;
        let high = if s == 0 { 0 } else { q >> (64 - s) };
        match (a.get_mut(i), high) {
            (None, _) => return true,
            (Some(x), _) => *x |= low,
        }
        if high != 0 {
            match a.get_mut(i + 1) {
                Some(x) => *x |= high,
                None => return true,
            }
        }
        false
    }
}

/// The Rice parameter for gaps averaging `mean` (a number of several
/// words): [`rice_parameter`] of its top 64 bits, shifted back.
fn wide_rice_parameter(mean: &[u64]) -> u32 {
    let bits = limbs::bits(mean);
    if bits <= 64 {
        return rice_parameter(mean[0]);
    }
    let shift = bits - 64;
    rice_parameter(limbs::bits_at(mean, shift)) + shift
}

/// Appends one block of keys of several words (see the module's notes).
fn encode_wide<K: Coded>(keys: &[K], out: &mut Vec<u8>) {
    debug_assert!(!keys.is_empty() && keys.len() <= BLOCK_KEYS);
    debug_assert!(keys.windows(2).all(|w| w[0] < w[1]));
    // Least significant word first, for the arithmetic.
    let limbs_of = |key: K, out: &mut Vec<u64>| {
        out.clear();
        key.put_words(out);
        out.reverse();
    };
    let words = K::WORDS;
    let (mut prev, mut cur, mut gap) = (
        Vec::with_capacity(words),
        Vec::with_capacity(words),
        Vec::with_capacity(words),
    );
    let start = out.len();
    let n = keys.len();
    let k = if n > 1 {
        // (last - first - (n - 1)) / (n - 1)
        limbs_of(keys[n - 1], &mut gap);
        limbs_of(keys[0], &mut prev);
        limbs::sub(&mut gap, &prev);
        limbs::sub_small(&mut gap, n as u64 - 1);
        limbs::div_small(&mut gap, n as u64 - 1);
        wide_rice_parameter(&gap)
    } else {
        0
    };
    out.extend_from_slice(&(n as u32).to_le_bytes());
    out.extend_from_slice(&(k as u16).to_le_bytes());
    keys[0].put_bytes(out);
    let len_at = out.len();
    out.extend_from_slice(&[0; 4]);
    let mut w = BitWriter {
        out,
        acc: 0,
        bits: 0,
    };
    limbs_of(keys[0], &mut prev);
    for &key in &keys[1..] {
        limbs_of(key, &mut cur);
        gap.clone_from(&cur);
        limbs::sub(&mut gap, &prev);
        limbs::sub_small(&mut gap, 1);
        std::mem::swap(&mut prev, &mut cur);
        // The quotient is small (they sum to about 3n at most), so its
        // bits from k up fit one word.
        let q = limbs::bits_at(&gap, k);
        debug_assert!(limbs::bits(&gap) <= k + 64);
        w.put_unary(q);
        let mut at = 0;
        while at < k {
            let take = (k - at).min(32);
            w.put(limbs::bits_at(&gap, at), take);
            at += take;
        }
    }
    w.finish();
    seal(out, start, len_at);
}

/// Ends the block that starts at `start` in `out` and whose payload
/// follows the four bytes at `len_at`: the payload's length there, and
/// the checksum of every byte of the block after it.
fn seal(out: &mut Vec<u8>, start: usize, len_at: usize) {
    let payload_len = (out.len() - len_at - 4) as u32;
    out[len_at..len_at + 4].copy_from_slice(&payload_len.to_le_bytes());
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// The block at the start of `bytes` with a header of `head` bytes,
/// checked against its checksum: its bytes before the checksum, and its
/// whole length.
fn checked(bytes: &[u8], head: usize) -> Result<(&[u8], usize), CodecError> {
    let header = bytes.get(..head).ok_or(CodecError::Truncated)?;
    let payload = u32::from_le_bytes(header[head - 4..].try_into().expect("4 bytes")) as usize;
    let len = head + payload + 4;
    let block = bytes.get(..len).ok_or(CodecError::Truncated)?;
    let (body, crc) = block.split_at(len - 4);
    if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
        return Err(CodecError::Checksum);
    }
    Ok((body, len))
}

/// Checks the block of keys of several words at the start of `bytes` and
/// appends its keys to `out`; the block's length in bytes.
fn decode_wide<K: Coded>(bytes: &[u8], out: &mut Vec<K>) -> Result<usize, CodecError> {
    let words = K::WORDS;
    let head = header_len(words);
    let (body, len) = checked(bytes, head)?;
    let n = u32::from_le_bytes(body[0..4].try_into().expect("4 bytes")) as usize;
    let k = u32::from(u16::from_le_bytes(body[4..6].try_into().expect("2 bytes")));
    if n == 0 || n > BLOCK_KEYS || k as usize >= 64 * words {
        return Err(CodecError::Malformed);
    }
    let first = K::from_bytes(&body[6..]);
    let (mut key, mut gap) = (Vec::with_capacity(words), vec![0u64; words]);
    first.put_words(&mut key);
    key.reverse();
    out.reserve(n);
    out.push(first);
    let mut r = BitReader {
        bytes: &body[head..],
        pos: 0,
        acc: 0,
        bits: 0,
    };
    let mut most_first = Vec::with_capacity(words);
    for _ in 1..n {
        let q = r.get_unary()?;
        gap.fill(0);
        let mut at = 0;
        while at < k {
            let take = (k - at).min(32);
            let v = r.get(take)?;
            limbs::or_shifted(&mut gap, v, at);
            at += take;
        }
        if limbs::or_shifted(&mut gap, q, k) || limbs::add_plus_one(&mut key, &gap) {
            return Err(CodecError::Malformed);
        }
        most_first.clear();
        most_first.extend(key.iter().rev());
        out.push(K::from_words(&most_first));
    }
    Ok(len)
}

/// Appends one block holding `keys` (sorted, distinct, 1 to
/// [`BLOCK_KEYS`] of them) to `out`.
pub(crate) fn encode_block(keys: &[u64], out: &mut Vec<u8>) {
    debug_assert!(!keys.is_empty() && keys.len() <= BLOCK_KEYS);
    debug_assert!(keys.windows(2).all(|w| w[0] < w[1]));
    let start = out.len();
    let n = keys.len();
    let first = keys[0];
    let last = keys[n - 1];
    let k = if n > 1 {
        rice_parameter((last - first - (n as u64 - 1)) / (n as u64 - 1))
    } else {
        0
    };
    out.extend_from_slice(&(n as u32).to_le_bytes());
    out.push(k as u8);
    out.extend_from_slice(&first.to_le_bytes());
    let len_at = out.len();
    out.extend_from_slice(&[0; 4]);
    let mut w = BitWriter {
        out,
        acc: 0,
        bits: 0,
    };
    for pair in keys.windows(2) {
        w.put_rice(pair[1] - pair[0] - 1, k);
    }
    w.finish();
    seal(out, start, len_at);
}

/// Checks the block at the start of `bytes` and appends its keys to `out`;
/// the block's length in bytes.
pub(crate) fn decode_block(bytes: &[u8], out: &mut Vec<u64>) -> Result<usize, CodecError> {
    let (body, len) = checked(bytes, BLOCK_HEADER)?;
    let n = u32::from_le_bytes(body[0..4].try_into().expect("4 bytes")) as usize;
    let k = u32::from(body[4]);
    if n == 0 || n > BLOCK_KEYS || k > 63 {
        return Err(CodecError::Malformed);
    }
    let mut key = u64::from_le_bytes(body[5..13].try_into().expect("8 bytes"));
    out.reserve(n);
    out.push(key);
    let mut r = BitReader {
        bytes: &body[BLOCK_HEADER..],
        pos: 0,
        acc: 0,
        bits: 0,
    };
    for _ in 1..n {
        let q = r.get_unary()?;
        let low = r.get_wide(k)?;
        let gap = q
            .checked_shl(k)
            .filter(|g| g >> k == q)
            .ok_or(CodecError::Malformed)?
            | low;
        key = key
            .checked_add(gap)
            .and_then(|x| x.checked_add(1))
            .ok_or(CodecError::Malformed)?;
        out.push(key);
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `keys` coded as a block and decoded again: the block's bytes.
    fn round_trip<K: Coded + std::fmt::Debug>(keys: &[K]) -> Vec<u8> {
        let mut bytes = Vec::new();
        K::encode_block(keys, &mut bytes);
        let mut back = Vec::new();
        assert_eq!(K::decode_block(&bytes, &mut back), Ok(bytes.len()));
        assert_eq!(back, keys);
        bytes
    }

    /// Every flipped bit and every truncation of `keys`' block is refused.
    fn every_flip_is_caught<K: Coded>(keys: &[K]) {
        let mut bytes = Vec::new();
        K::encode_block(keys, &mut bytes);
        for bit in 0..bytes.len() * 8 {
            let mut bad = bytes.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(K::decode_block(&bad, &mut Vec::new()).is_err(), "bit {bit}");
        }
        for len in 0..bytes.len() {
            assert!(K::decode_block(&bytes[..len], &mut Vec::new()).is_err());
        }
    }

    #[test]
    fn extremes_round_trip() {
        round_trip(&[0]);
        round_trip(&[u64::MAX]);
        round_trip(&[0, u64::MAX]);
        round_trip(&[0, 1, 2, 3, u64::MAX - 1, u64::MAX]);
        round_trip(&(0..BLOCK_KEYS as u64).collect::<Vec<_>>());
        // One huge gap among small ones: a long unary run.
        let mut keys: Vec<u64> = (0..1000).collect();
        keys.push(1 << 40);
        round_trip(&keys);
    }

    #[test]
    fn dense_runs_cost_what_the_entropy_says() {
        // 16384 keys, mean gap 1000: log2(1000) + 1.6 bits is about 11.6.
        let keys: Vec<u64> = (0..BLOCK_KEYS as u64)
            .map(|i| i * 1000 + (i * 7919) % 500)
            .collect();
        let bytes = round_trip(&keys);
        let bits = bytes.len() as f64 * 8.0 / keys.len() as f64;
        assert!(bits < 12.5, "{bits} bits a key");
    }

    #[test]
    fn every_flipped_bit_is_caught() {
        let keys: Vec<u64> = (0..300).map(|i| i * i * 31).collect();
        every_flip_is_caught(&keys);
    }

    #[test]
    fn wide_extremes_round_trip() {
        use crate::engine::Wide;
        round_trip(&[Wide([0u64, 0])]);
        round_trip(&[Wide([u64::MAX; 3])]);
        round_trip(&[Wide([0, 0]), Wide([u64::MAX, u64::MAX])]);
        round_trip(&[Wide([0, 0, 0]), Wide([0, 0, 1]), Wide([u64::MAX; 3])]);
        // Gaps across a word's edge, and a Rice parameter past 64 and 128.
        let across: Vec<Wide<2>> = (0..5000u64).map(|i| Wide([i / 3, (i % 3) << 62])).collect();
        round_trip(&across);
        let sparse: Vec<Wide<3>> = (0..3000u64)
            .map(|i| Wide([i, i.wrapping_mul(0x9e37_79b9_7f4a_7c15), i]))
            .collect();
        round_trip(&sparse);
        // One huge gap among small ones.
        let mut keys: Vec<Wide<2>> = (0..1000u64).map(|i| Wide([0, i])).collect();
        keys.push(Wide([1 << 40, 0]));
        round_trip(&keys);
        round_trip(
            &(0..BLOCK_KEYS as u64)
                .map(|i| Wide([7, i]))
                .collect::<Vec<_>>(),
        );
    }

    #[test]
    fn wide_keys_cost_what_their_gaps_say() {
        use crate::engine::Wide;
        // Mean gap 2^80: about 81.6 bits a key, not 128.
        let keys: Vec<Wide<2>> = (0..BLOCK_KEYS as u64)
            .map(|i| {
                Wide([
                    (i << 16) | ((i * 7919) % 4096),
                    i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                ])
            })
            .collect();
        let bytes = round_trip(&keys);
        let bits = bytes.len() as f64 * 8.0 / keys.len() as f64;
        assert!(bits < 83.0, "{bits} bits a key");
    }

    #[test]
    fn every_flipped_bit_of_a_wide_block_is_caught() {
        use crate::engine::Wide;
        let keys: Vec<Wide<2>> = (0..200u64).map(|i| Wide([i * i, i << 50])).collect();
        every_flip_is_caught(&keys);
    }

    proptest! {
        #[test]
        fn sorted_wide_sets_round_trip(
            mut keys in proptest::collection::vec(any::<(u64, u64, u64)>(), 1..1500),
            shift in 0u32..64,
            high in 0u32..64,
        ) {
            let mut keys: Vec<crate::engine::Wide<3>> = keys
                .drain(..)
                .map(|(a, b, c)| crate::engine::Wide([a >> high, b >> shift, c]))
                .collect();
            keys.sort_unstable();
            keys.dedup();
            round_trip(&keys);
        }

        #[test]
        fn sorted_sets_round_trip(mut keys in proptest::collection::vec(any::<u64>(), 1..2000), shift in 0u32..64) {
            for k in &mut keys {
                *k >>= shift;
            }
            keys.sort_unstable();
            keys.dedup();
            round_trip(&keys);
        }
    }
}
