//! Keys: a state's perfect rank (or exact packing) as one 64-bit word
//! where the puzzle's key space fits one, as several where it does not.
//!
//! The engine is generic over the key ([`Key`]): a model says its width
//! once ([`Model::Key`](crate::engine::Model::Key)), and every loop over
//! keys is compiled for that width, with no branch on it per key. `u64`
//! is the narrow key, and every store serves it; [`Wide`] keys (2 words
//! and more) are kept as sorted levels, in memory, in one process or
//! across several. The stores that index arrays by key (the bitmap, the
//! dense store) and the disk's coded run files serve `u64` keys only: a
//! wide key space is beyond any array anyway.

use std::fmt::Debug;
use std::hash::Hash;

use crate::engine::files::codec::Coded;
use crate::engine::search::Stores;
use crate::engine::stores::sets::visited::mix64;

/// A state's key: a value the engine sorts, compares, hashes, routes to a
/// partition and sends to other processes as 64-bit words.
pub trait Key:
    Stores + Coded + Copy + Ord + Eq + Hash + Default + Send + Sync + Debug + 'static
{
    /// The key's bits spread evenly (a bijection for one word): the high
    /// bits choose a key's partition.
    fn mix(self) -> u64;

    /// The key as a number, for the stores that index an array by key
    /// (the bitmap, the dense store): those serve keys below
    /// [`Model::key_space`](crate::engine::Model::key_space), which a wide
    /// key's model saturates at `u64::MAX`, so they never see a wide key.
    /// A wide key gives its lowest word.
    fn index(self) -> u64;

    /// Word `i` of the key, counted from the least significant (0); a
    /// one-word key has only word 0.
    fn word(self, i: usize) -> u64;

    /// Word `i` of the key, counted from the least significant, to change.
    fn word_mut(&mut self, i: usize) -> &mut u64;

    /// Keys as words for another process (the same vector where the key
    /// is one word).
    fn to_wire(keys: Vec<Self>) -> Vec<u64> {
        let mut out = Vec::with_capacity(keys.len() * Self::WORDS);
        for k in keys {
            k.put_words(&mut out);
        }
        out
    }

    /// Keys from another process's words.
    fn from_wire(words: Vec<u64>) -> Vec<Self> {
        words
            .chunks_exact(Self::WORDS)
            .map(Self::from_words)
            .collect()
    }
}

impl Key for u64 {
    #[inline(always)]
    fn mix(self) -> u64 {
        mix64(self)
    }

    #[inline(always)]
    fn index(self) -> u64 {
        self
    }

    #[inline(always)]
    fn word(self, i: usize) -> u64 {
        debug_assert_eq!(i, 0, "a u64 key has one word");
        self
    }

    #[inline(always)]
    fn word_mut(&mut self, i: usize) -> &mut u64 {
        debug_assert_eq!(i, 0, "a u64 key has one word");
        self
    }

    fn to_wire(keys: Vec<u64>) -> Vec<u64> {
        keys
    }

    fn from_wire(words: Vec<u64>) -> Vec<u64> {
        words
    }
}

/// A key of `N` 64-bit words, the most significant first (so that the
/// derived order is the number's): a puzzle whose key space is over
/// 2^64 (the 3x3x3 cube's 4.3e19 positions take two words).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Wide<const N: usize>(pub [u64; N]);

impl<const N: usize> Ord for Wide<N> {
    #[inline(always)]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if N == 2 {
            // One 128-bit comparison, without a branch between the words
            // (sorting levels is most of a wide search's work).
            let wide = |k: &Self| u128::from(k.0[0]) << 64 | u128::from(k.0[1]);
            return wide(self).cmp(&wide(other));
        }
        for i in 0..N {
            match self.0[i].cmp(&other.0[i]) {
                std::cmp::Ordering::Equal => {}
                unequal => return unequal,
            }
        }
        std::cmp::Ordering::Equal
    }
}

impl<const N: usize> PartialOrd for Wide<N> {
    #[inline(always)]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }

    #[inline(always)]
    fn lt(&self, other: &Self) -> bool {
        self.cmp(other).is_lt()
    }
}

impl<const N: usize> Default for Wide<N> {
    fn default() -> Self {
        Wide([0; N])
    }
}

impl<const N: usize> Coded for Wide<N> {
    const WORDS: usize = N;

    #[inline]
    fn put_words(self, out: &mut Vec<u64>) {
        out.extend_from_slice(&self.0);
    }

    #[inline]
    fn from_words(words: &[u64]) -> Self {
        let mut w = [0; N];
        w.copy_from_slice(&words[..N]);
        Wide(w)
    }
}

impl<const N: usize> Key for Wide<N> {
    #[inline]
    fn mix(self) -> u64 {
        // Each word folded into the mix of those before it: keys that
        // differ in any word are spread apart.
        self.0.iter().fold(0, |h, &w| mix64(h ^ w))
    }

    #[inline]
    fn index(self) -> u64 {
        self.0[N - 1]
    }

    #[inline(always)]
    fn word(self, i: usize) -> u64 {
        self.0[N - 1 - i]
    }

    #[inline(always)]
    fn word_mut(&mut self, i: usize) -> &mut u64 {
        &mut self.0[N - 1 - i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_keys_order_as_numbers_and_cross_the_wire_whole() {
        let keys = vec![Wide([1, 0]), Wide([0, u64::MAX]), Wide([0, 3])];
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(sorted, [Wide([0, 3]), Wide([0, u64::MAX]), Wide([1, 0])]);
        let wire = Wide::to_wire(keys.clone());
        assert_eq!(wire, [1, 0, 0, u64::MAX, 0, 3]);
        assert_eq!(Wide::<2>::from_wire(wire), keys);
        assert_eq!(u64::from_wire(u64::to_wire(vec![5, 7])), [5, 7]);
    }

    #[test]
    fn wide_keys_mix_apart_where_any_word_differs() {
        let a = Wide([0u64, 1]).mix();
        let b = Wide([1u64, 0]).mix();
        let c = Wide([1u64, 1]).mix();
        assert!(a != b && b != c && a != c);
        // Small ranks in the low word spread over the high bits.
        let tops: std::collections::HashSet<u64> =
            (0..1000u64).map(|k| Wide([7, k]).mix() >> 58).collect();
        assert_eq!(tops.len(), 64);
    }
}
