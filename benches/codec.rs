//! Level files' codec against two well-kept crates, on sorted keys as a
//! level holds them: reach's Rice-coded blocks, `bitpacking` (SIMD
//! bit-packing of the gaps, 128 at a time) and `pco` (Pcodec, which picks
//! its own delta order and binning), each on blocks of 16384 keys, the
//! unit a level file is read and checked in.
//!
//! The keys are drawn as a level's keys look: a density of 1 in 23 over the
//! key space (the 2x7 tile puzzle's widest levels in its dense ranks, the
//! files of its checkpoint), 1 in 11 (the 3x4 puzzle's widest), and 1 in
//! 190 (a level split over 8 partitions by the mixer, as frontier search's
//! run files hold it). Bytes a key for each are printed before the timings.
//!
//! ```sh
//! cargo bench --bench codec
//! ```

use std::hint::black_box;

use bitpacking::{BitPacker, BitPacker4x};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use reach::engine::codec;

/// Keys a block holds (a level file's block).
const BLOCK: usize = 16384;
/// Blocks a sample holds.
const BLOCKS: usize = 64;

/// `BLOCK * BLOCKS` sorted keys, each gap drawn at one key in `spread`.
fn keys(spread: u64, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    let mut key = 0u64;
    let p = 1.0 / spread as f64;
    (0..BLOCK * BLOCKS)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // A geometric gap: every key of the space is in the level at
            // rate p, independently.
            let u = ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
            key += 1 + (u.ln() / (1.0 - p).ln()) as u64;
            key
        })
        .collect()
}

trait Codec {
    const NAME: &'static str;
    fn encode(&self, keys: &[u64], out: &mut Vec<u8>);
    /// Decodes the block at the start of `bytes` into `out`; its length.
    fn decode(&self, bytes: &[u8], out: &mut Vec<u64>) -> usize;
}

struct Rice;

impl Codec for Rice {
    const NAME: &'static str = "reach rice";
    fn encode(&self, keys: &[u64], out: &mut Vec<u8>) {
        codec::encode_block(keys, out);
    }
    fn decode(&self, bytes: &[u8], out: &mut Vec<u64>) -> usize {
        codec::decode_block(bytes, out).expect("a block")
    }
}

/// The first key, then the gaps less one as u32s, bit-packed 128 at a
/// time with one byte of bit width each (a block's gaps fit u32 here).
struct Packed(BitPacker4x);

impl Codec for Packed {
    const NAME: &'static str = "bitpacking 4x";
    fn encode(&self, keys: &[u64], out: &mut Vec<u8>) {
        out.extend_from_slice(&keys[0].to_le_bytes());
        let mut gaps = [0u32; BitPacker4x::BLOCK_LEN];
        let mut packed = [0u8; 4 * BitPacker4x::BLOCK_LEN];
        let mut last = keys[0];
        // The first key's gap is 0: it is stored whole above.
        for chunk in keys.chunks(BitPacker4x::BLOCK_LEN) {
            for (g, &k) in gaps.iter_mut().zip(chunk) {
                *g = (k - last).saturating_sub(1) as u32;
                last = k;
            }
            let bits = self.0.num_bits(&gaps);
            let n = self.0.compress(&gaps, &mut packed, bits);
            out.push(bits);
            out.extend_from_slice(&packed[..n]);
        }
    }
    fn decode(&self, bytes: &[u8], out: &mut Vec<u64>) -> usize {
        let mut key = u64::from_le_bytes(bytes[..8].try_into().unwrap());
        let mut at = 8;
        let mut gaps = [0u32; BitPacker4x::BLOCK_LEN];
        for i in 0..BLOCK / BitPacker4x::BLOCK_LEN {
            let bits = bytes[at];
            at += 1;
            at += self.0.decompress(&bytes[at..], &mut gaps, bits);
            for (j, &g) in gaps.iter().enumerate() {
                if i > 0 || j > 0 {
                    key += u64::from(g) + 1;
                }
                out.push(key);
            }
        }
        at
    }
}

/// Pcodec's standalone format, one per block, its default level.
struct Pco;

impl Codec for Pco {
    const NAME: &'static str = "pco";
    fn encode(&self, keys: &[u64], out: &mut Vec<u8>) {
        let bytes = pco::standalone::simple_compress(keys, &pco::ChunkConfig::default())
            .expect("pco compresses");
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(&bytes);
    }
    fn decode(&self, bytes: &[u8], out: &mut Vec<u64>) -> usize {
        let len = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize;
        let keys: Vec<u64> =
            pco::standalone::simple_decompress(&bytes[4..4 + len]).expect("pco decompresses");
        out.extend_from_slice(&keys);
        4 + len
    }
}

/// Every block of `keys` encoded, one after another.
fn encode_all<C: Codec>(c: &C, keys: &[u64]) -> Vec<u8> {
    let mut out = Vec::new();
    keys.chunks(BLOCK).for_each(|b| c.encode(b, &mut out));
    out
}

/// Every block of `bytes` decoded; the keys' sum (so nothing is skipped).
fn decode_all<C: Codec>(c: &C, bytes: &[u8], out: &mut Vec<u64>) -> u64 {
    let mut at = 0;
    let mut sum = 0u64;
    while at < bytes.len() {
        out.clear();
        at += c.decode(&bytes[at..], out);
        sum = sum.wrapping_add(out.iter().sum::<u64>());
    }
    sum
}

fn one<C: Codec>(c: &C, cr: &mut Criterion, label: &str, keys: &[u64]) {
    let bytes = encode_all(c, keys);
    let mut back = Vec::new();
    let mut all = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        back.clear();
        at += c.decode(&bytes[at..], &mut back);
        all.extend_from_slice(&back);
    }
    assert_eq!(all, keys, "{} round-trips", C::NAME);
    println!(
        "{label}: {:<14} {:.3} bytes a key",
        C::NAME,
        bytes.len() as f64 / keys.len() as f64
    );
    let mut group = cr.benchmark_group(format!("codec/{label}"));
    group.throughput(Throughput::Elements(keys.len() as u64));
    group.bench_function(format!("{} encode", C::NAME), |b| {
        b.iter(|| black_box(encode_all(c, black_box(keys))))
    });
    group.bench_function(format!("{} decode", C::NAME), |b| {
        let mut out = Vec::with_capacity(BLOCK);
        b.iter(|| black_box(decode_all(c, black_box(&bytes), &mut out)))
    });
    group.finish();
}

fn codecs(cr: &mut Criterion) {
    for (label, spread) in [("1 in 11", 11), ("1 in 23", 23), ("1 in 190", 190)] {
        let keys = keys(spread, 0x9e37_79b9_7f4a_7c15 ^ spread);
        one(&Rice, cr, label, &keys);
        one(&Packed(BitPacker4x::new()), cr, label, &keys);
        one(&Pco, cr, label, &keys);
    }
}

// criterion's macros define undocumented functions.
mod group {
    #![allow(missing_docs)]
    use super::*;
    criterion_group! {
        name = benches;
        config = Criterion::default().sample_size(10);
        targets = codecs
    }
}
criterion_main!(group::benches);
