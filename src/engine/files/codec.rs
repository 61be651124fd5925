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
//! Keys of several words ([`Coded::WORDS`] > 1) are coded word by word,
//! most significant first: a key's gap to the one before in each word
//! down to the first that differs (zeros above it; less one in the last
//! word), each word with a Rice parameter of its own, then the words
//! below that one as they are, in as many bits as the block's largest
//! value of each word takes. A model packs its coordinates into words
//! whole (the 3x3x3: the edges' arrangement, 12!, in the high word; the
//! rest, 2^37, in the low one), so a word's values fill only part of
//! it: gaps of the number the words make would cost 64 bits more a key
//! whenever the high word moves (nearly every key of a level of the
//! cube: 8.9 bytes a state), where this costs the high word's small gap
//! and the low word's 38 bits. Layout: `n: u32, first: the key's words
//! (most significant first), (k: u8, b: u8) for each word, payload_len:
//! u32, payload, crc32: u32`. Each word's parameter suits the mean of its
//! gaps, so the quotients' unary codes sum to about one and a half a gap,
//! however wide the key.

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

    /// A number in Rice code with parameter `k` (see
    /// [`BitWriter::put_rice`]); malformed if it does not fit 64 bits.
    #[inline]
    fn get_rice(&mut self, k: u32) -> Result<u64, CodecError> {
        let q = self.get_unary()?;
        let low = self.get_wide(k)?;
        Ok(q.checked_shl(k)
            .filter(|g| g >> k == q)
            .ok_or(CodecError::Malformed)?
            | low)
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
        4 + 8 * words + 2 * words + 4
    }
}

/// The words of `key`, most significant first, into `out`.
fn words_into<K: Coded>(key: K, out: &mut Vec<u64>) {
    out.clear();
    key.put_words(out);
}

/// The first word (most significant first) in which `b`, which follows
/// `a` in order, differs from it: the last word if none above it does.
#[inline]
fn first_difference(a: &[u64], b: &[u64]) -> usize {
    let last = a.len() - 1;
    a[..last]
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(last)
}

/// Appends one block of keys of several words (see the module's notes).
fn encode_wide<K: Coded>(keys: &[K], out: &mut Vec<u8>) {
    debug_assert!(!keys.is_empty() && keys.len() <= BLOCK_KEYS);
    debug_assert!(keys.windows(2).all(|w| w[0] < w[1]));
    let words = K::WORDS;
    let last = words - 1;
    let n = keys.len();
    let (mut prev, mut cur) = (Vec::with_capacity(words), Vec::with_capacity(words));
    // For each word: the sum and number of the gaps coded in it (a key's
    // gap is in every word down to the first that differs), and the
    // largest value it takes, for the words written as they are.
    let mut sums = vec![0u128; words];
    let mut counts = vec![0u64; words];
    let mut widest = vec![0u64; words];
    words_into(keys[0], &mut prev);
    for &key in &keys[1..] {
        words_into(key, &mut cur);
        let w = first_difference(&prev, &cur);
        sums[w] += u128::from(cur[w] - prev[w] - u64::from(w == last));
        counts[..=w].iter_mut().for_each(|c| *c += 1);
        for (x, &y) in widest.iter_mut().zip(&cur) {
            *x |= y;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let params: Vec<(u32, u32)> = (0..words)
        .map(|w| {
            let mean = sums[w].checked_div(u128::from(counts[w])).unwrap_or(0);
            (rice_parameter(mean as u64), 64 - widest[w].leading_zeros())
        })
        .collect();
    let start = out.len();
    out.extend_from_slice(&(n as u32).to_le_bytes());
    keys[0].put_bytes(out);
    for &(k, b) in &params {
        out.push(k as u8);
        out.push(b as u8);
    }
    let len_at = out.len();
    out.extend_from_slice(&[0; 4]);
    let mut bits = BitWriter {
        out,
        acc: 0,
        bits: 0,
    };
    words_into(keys[0], &mut prev);
    for &key in &keys[1..] {
        words_into(key, &mut cur);
        let w = first_difference(&prev, &cur);
        for &(k, _) in &params[..w] {
            bits.put_rice(0, k);
        }
        bits.put_rice(cur[w] - prev[w] - u64::from(w == last), params[w].0);
        for (&x, &(_, b)) in cur.iter().zip(&params).skip(w + 1) {
            bits.put_wide(x, b);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    bits.finish();
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
    let last = words - 1;
    let head = header_len(words);
    let (body, len) = checked(bytes, head)?;
    let n = u32::from_le_bytes(body[0..4].try_into().expect("4 bytes")) as usize;
    let params: Vec<(u32, u32)> = body[4 + 8 * words..head - 4]
        .chunks_exact(2)
        .map(|p| (u32::from(p[0]), u32::from(p[1])))
        .collect();
    if n == 0 || n > BLOCK_KEYS || params.iter().any(|&(k, b)| k > 63 || b > 64) {
        return Err(CodecError::Malformed);
    }
    let first = K::from_bytes(&body[4..]);
    let mut key = Vec::with_capacity(words);
    first.put_words(&mut key);
    out.reserve(n);
    out.push(first);
    let mut r = BitReader {
        bytes: &body[head..],
        pos: 0,
        acc: 0,
        bits: 0,
    };
    for _ in 1..n {
        // Down the words to the first whose gap is not zero (the last's
        // is one more than it says).
        let mut w = 0;
        let gap = loop {
            let gap = r.get_rice(params[w].0)?;
            if gap != 0 || w == last {
                break gap;
            }
            w += 1;
        };
        key[w] = key[w]
            .checked_add(gap)
            .and_then(|x| x.checked_add(u64::from(w == last)))
            .ok_or(CodecError::Malformed)?;
        for (x, &(_, b)) in key.iter_mut().zip(&params).skip(w + 1) {
            *x = r.get_wide(b)?;
        }
        out.push(K::from_words(&key));
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
        let gap = r.get_rice(k)?;
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
    fn wide_keys_cost_their_words_information() {
        use crate::engine::Wide;
        // The 3x3x3's layout: the edges' arrangement (12!) in the high
        // word, moving by about 5 from key to key, and 2^38 values in the
        // low one. Gaps of the whole number would cost about 66 bits; the
        // high word's gap and the low word's bits cost about 41.
        let keys: Vec<Wide<2>> = (0..BLOCK_KEYS as u64)
            .map(|i| Wide([i * 5 + i % 3, (i * 0x9e37_79b9_7f4a_7c15) >> 26]))
            .collect();
        let bytes = round_trip(&keys);
        let bits = bytes.len() as f64 * 8.0 / keys.len() as f64;
        assert!(bits < 42.5, "{bits} bits a key");
        // Keys that share their high words cost their low words' gaps.
        let keys: Vec<Wide<3>> = (0..BLOCK_KEYS as u64)
            .map(|i| Wide([9, 4, i * 1000 + (i * 7919) % 500]))
            .collect();
        let bytes = round_trip(&keys);
        let bits = bytes.len() as f64 * 8.0 / keys.len() as f64;
        assert!(bits < 14.5, "{bits} bits a key");
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
