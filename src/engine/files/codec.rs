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

/// Keys in a full block: small enough that a decoded block (128 KiB) stays
/// in cache, large enough that its 21 bytes of header and checksum do not
/// count.
pub(crate) const BLOCK_KEYS: usize = 16384;

/// Bytes before a block's payload.
pub(crate) const BLOCK_HEADER: usize = 4 + 1 + 8 + 4;

/// Why a block could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CodecError {
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
    let payload_at = out.len();
    let mut w = BitWriter {
        out,
        acc: 0,
        bits: 0,
    };
    for pair in keys.windows(2) {
        w.put_rice(pair[1] - pair[0] - 1, k);
    }
    w.finish();
    let payload_len = (out.len() - payload_at) as u32;
    out[len_at..payload_at].copy_from_slice(&payload_len.to_le_bytes());
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// The total length of the block at the start of `bytes`, read from its
/// header (not checked).
pub(crate) fn block_len(bytes: &[u8]) -> Result<usize, CodecError> {
    let header = bytes.get(..BLOCK_HEADER).ok_or(CodecError::Truncated)?;
    let payload = u32::from_le_bytes(header[13..17].try_into().expect("4 bytes")) as usize;
    Ok(BLOCK_HEADER + payload + 4)
}

/// Checks the block at the start of `bytes` and appends its keys to `out`;
/// the block's length in bytes.
pub(crate) fn decode_block(bytes: &[u8], out: &mut Vec<u64>) -> Result<usize, CodecError> {
    let len = block_len(bytes)?;
    let block = bytes.get(..len).ok_or(CodecError::Truncated)?;
    let (body, crc) = block.split_at(len - 4);
    if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
        return Err(CodecError::Checksum);
    }
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

    fn round_trip(keys: &[u64]) -> Vec<u8> {
        let mut bytes = Vec::new();
        encode_block(keys, &mut bytes);
        let mut back = Vec::new();
        assert_eq!(decode_block(&bytes, &mut back), Ok(bytes.len()));
        assert_eq!(back, keys);
        bytes
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
        let mut bytes = Vec::new();
        encode_block(&keys, &mut bytes);
        for bit in 0..bytes.len() * 8 {
            let mut bad = bytes.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            let mut out = Vec::new();
            assert!(decode_block(&bad, &mut out).is_err(), "bit {bit}");
        }
        for len in 0..bytes.len() {
            assert!(decode_block(&bytes[..len], &mut Vec::new()).is_err());
        }
    }

    proptest! {
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
