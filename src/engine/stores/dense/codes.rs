//! What a level's expansion writes into its successors' slots (labels,
//! colours, depth codes), and the moves a model makes within a word.

use super::*;

/// The codes a level's expansion writes into a successor's slot.
pub(super) struct Codes {
    /// A successor's code: the one bit of the next label, or `01` by
    /// colour.
    pub(super) plain: u64,
    /// A far successor's: as `plain`, but `11` by colour where a far move
    /// is a key's only way back (it marks the key).
    pub(super) far: u64,
    /// The bits of a far successor's slot that end its lookup: either (the
    /// slot is not `00`); with marks, the high one only (`10` expanded,
    /// `11` marked), since a `01`, already in the next level, still gets
    /// its mark.
    pub(super) seen: u64,
}

impl Codes {
    pub(super) fn new(by_colour: bool, one_far: bool, next: u64, depth_codes: bool) -> Codes {
        let (plain, far) = match (by_colour, one_far) {
            // The next depth's code, whichever bits it has: a slot that was
            // `00` can only have become that code, so its bits tell who was
            // first as well as one bit would.
            _ if depth_codes => (next, next),
            (false, _) => (1 << (next - 1), 1 << (next - 1)),
            (true, false) => (1, 1),
            (true, true) => (1, 3),
        };
        let seen = if one_far { 2 } else { 3 };
        Codes { plain, far, seen }
    }
}

/// Ors `code` into the slot at `shift` of `word` and says whether this
/// call was the first to set the bits of `plain` there. A slot that was
/// `00` can only have become one code of the next level, so the bits of
/// `plain` tell who came first (see the module notes on orderings).
///
/// Where the code is one bit and is `plain` (every successor's code
/// without colours: the next label's one bit), the or and the test are
/// written as one bit set and tested, which x86-64 does in one `lock bts`;
/// the general `fetch_or`, whose old value is then shifted and masked,
/// compiles to a compare-and-swap loop, which the profile of the 2x2x2
/// found in 14 % of the samples.
#[inline(always)]
pub(super) fn first_to_set(word: &AtomicU64, code: u64, shift: u32, plain: u64) -> bool {
    if code == plain && code.is_power_of_two() {
        let bit = 1u64 << (shift + code.trailing_zeros());
        word.fetch_or(bit, Ordering::Relaxed) & bit == 0
    } else {
        (word.fetch_or(code << shift, Ordering::Relaxed) >> shift) & plain == 0
    }
}

/// What marks the keys of the newest level in `word` (their slots' low
/// bits in `here`) expanded, as an xor: their label to `11`; by colour,
/// `01` and `11` to `10`; with depth codes nothing (a key keeps its depth
/// for good).
#[inline(always)]
pub(super) fn expanded_xor(
    word: u64,
    here: u64,
    by_colour: bool,
    label: u64,
    depth_codes: bool,
) -> u64 {
    match by_colour {
        _ if depth_codes => 0,
        true => here | (here & !((word >> 1) & here)) << 1,
        false => here * (label ^ DONE),
    }
}

/// A model's moves to a neighbouring key ([`AdjacentKeys`]) as masks of a
/// word's slots: a word's first key is `KEYS_PER_WORD` past the last
/// word's, so its place in the pattern (its phase) moves by that much.
pub(super) struct Adjacent {
    /// Per phase, the low bit of each slot whose key has the key above as
    /// a successor.
    pub(super) up: Vec<u64>,
    /// Likewise for the key below.
    pub(super) down: Vec<u64>,
    pub(super) period: usize,
    /// How far a word's phase is past the last word's.
    pub(super) step: usize,
    /// The model's colouring ([`AdjacentKeys::colours`]): the pattern, and
    /// per phase the low bit of each slot whose key is of colour 1.
    pub(super) colours: Option<(u64, Vec<u64>)>,
    /// [`AdjacentKeys::one_far`].
    pub(super) one_far: bool,
    /// [`AdjacentKeys::up`] and [`AdjacentKeys::down`], by a key's place
    /// in the pattern.
    pub(super) up_pattern: u64,
    pub(super) down_pattern: u64,
}

impl Adjacent {
    pub(super) fn new(keys: AdjacentKeys) -> Adjacent {
        let period = keys.period.clamp(1, 64) as usize;
        let mask = |pattern: u64, phase: usize| {
            (0..KEYS_PER_WORD as usize)
                .filter(|i| pattern >> ((phase + i) % period) & 1 == 1)
                .fold(0u64, |m, i| m | 1 << (2 * i))
        };
        Adjacent {
            up: (0..period).map(|p| mask(keys.up, p)).collect(),
            down: (0..period).map(|p| mask(keys.down, p)).collect(),
            period,
            step: KEYS_PER_WORD as usize % period,
            colours: keys
                .colours
                .map(|c| (c, (0..period).map(|p| mask(c, p)).collect())),
            one_far: keys.one_far,
            up_pattern: keys.up,
            down_pattern: keys.down,
        }
    }

    /// The colour of `key`, when the model colours its keys.
    pub(super) fn colour_of(&self, key: u64) -> Option<u64> {
        let (pattern, _) = self.colours.as_ref()?;
        Some(pattern >> (key % self.period as u64) & 1)
    }

    /// The colour all of `keys` share, if they share one and the model
    /// colours its keys.
    pub(super) fn colour_of_all(&self, keys: &[u64]) -> Option<u64> {
        let c = self.colour_of(*keys.first()?)?;
        keys.iter()
            .all(|&k| self.colour_of(k) == Some(c))
            .then_some(c)
    }

    /// The low bit of each slot of a word of `phase` whose key is of
    /// colour `colour`.
    #[inline(always)]
    pub(super) fn of_colour(&self, colour: u64, phase: usize) -> u64 {
        let ones = self.colours.as_ref().expect("a colouring").1[phase];
        if colour == 1 { ones } else { !ones & LOW }
    }

    /// The phase of word `w`.
    pub(super) fn phase_of(&self, w: usize) -> usize {
        (w as u64 * KEYS_PER_WORD % self.period as u64) as usize
    }

    /// The phase of the word after one of `phase`.
    #[inline(always)]
    pub(super) fn after(&self, phase: usize) -> usize {
        let p = phase + self.step;
        if p >= self.period { p - self.period } else { p }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the code and the slot, the first or into a clear slot
    /// finds `plain` clear and every later one finds it set, and the
    /// slot's neighbours are untouched: the one bit's `lock bts` and the
    /// general compare-and-swap agree.
    #[test]
    fn the_first_to_set_a_slot_is_told_so_and_no_later_one_is() {
        for (code, plain) in [(1, 1), (2, 2), (3, 3), (3, 1)] {
            for shift in (0..64).step_by(2) {
                let around = !(3u64 << shift) & 0x9c3a_5f01_e7b2_46d8;
                let word = AtomicU64::new(around);
                assert!(first_to_set(&word, code, shift, plain));
                assert_eq!(word.load(Ordering::Relaxed), around | code << shift);
                assert!(!first_to_set(&word, code, shift, plain));
                assert!(!first_to_set(&word, plain, shift, plain));
                assert_eq!(word.load(Ordering::Relaxed), around | code << shift);
            }
        }
    }
}
