//! twsearch's `Illegal SET POS PIECE`: a position with that piece at that
//! place is never entered (a bandaged puzzle's pieces that cannot turn
//! past each other). The search keeps such keys in its key space but
//! drops every successor that is one, so counts, solutions and `hardest`
//! never see them.
//!
//! A constraint reads one coordinate, the arrangement of the place's orbit:
//! the kind of piece at one of its local positions. For a coordinate small
//! enough to tabulate, every arrangement value's verdict is computed once,
//! a bit each, and a successor costs a division and a bit test; a larger
//! one is unranked per successor. A file without `Illegal` checks nothing.

use super::Twisty;
use super::coord::Coord;

/// Arrangement values past which the verdicts are not tabulated: 32 MiB of
/// bits.
const TABLE_VALUES: u64 = 1 << 28;

/// The constraints on one coordinate.
#[derive(Clone, Debug)]
pub(super) struct Check {
    /// The coordinate (its index among the model's).
    coord: usize,
    /// The word of the key it is in.
    word: usize,
    /// What a key is divided by for its arrangement value (the
    /// coordinate's weight, times what a [`Wild`](super::coord::Kind::Wild) coordinate's
    /// orientations add), and how many values there are.
    divisor: u64,
    values: u64,
    /// Its (local position, kind) pairs that must not meet.
    pairs: Vec<(usize, u8)>,
    /// For each arrangement value, whether it has a pair: one bit each.
    table: Option<Vec<u64>>,
    /// The coordinate is split (over 2^64 values): its values are read
    /// from its parts, not by `divisor`.
    split: bool,
}

/// The checks `def`'s `Illegal` lines make of `coords`. A line whose piece
/// never reaches its place (another orbit), or whose place holds the same
/// piece whatever the moves do (and the start is legal: the reader checked
/// that), can never be met and is dropped.
pub(super) fn checks(twisty: &Twisty) -> Vec<Check> {
    let (def, coords) = (&twisty.def, &twisty.coords);
    let mut out: Vec<Check> = Vec::new();
    for &(s, pos, piece) in &def.illegal {
        let found = coords.iter().enumerate().find_map(|(c, coord)| {
            if coord.set != s {
                return None;
            }
            let a = coord.positions.iter().position(|&p| p == pos)?;
            let kind = coord.pieces()?.0.binary_search(&piece).ok()?;
            Some((c, a, kind as u8))
        });
        let Some((c, a, kind)) = found else { continue };
        match out.iter_mut().find(|check| check.coord == c) {
            Some(check) => check.pairs.push((a, kind)),
            None => {
                let coord = &coords[c];
                let arrangement = coord.arrangement().expect("a coordinate of pieces");
                let split = coord.split.is_some();
                out.push(Check {
                    coord: c,
                    word: coord.word,
                    divisor: if split {
                        1
                    } else {
                        coord.weight * (coord.size / arrangement.size)
                    },
                    values: arrangement.size,
                    pairs: vec![(a, kind)],
                    table: None,
                    split,
                })
            }
        }
    }
    for check in &mut out {
        let arrangement = arrangement(coords, check);
        if !check.split && check.values <= TABLE_VALUES {
            let mut bits = vec![0u64; check.values.div_ceil(64) as usize];
            let mut local = vec![0u8; arrangement.local_len()];
            for v in 0..check.values {
                arrangement.unrank(v, &mut local);
                if meets(&check.pairs, &local) {
                    bits[(v / 64) as usize] |= 1 << (v % 64);
                }
            }
            check.table = Some(bits);
        }
    }
    out
}

/// The arrangement coordinate `check` reads.
fn arrangement<'c>(coords: &'c [Coord], check: &Check) -> &'c Coord {
    coords[check.coord]
        .arrangement()
        .expect("checks read coordinates of pieces")
}

/// Whether kinds `local` put a forbidden kind at a forbidden place.
fn meets(pairs: &[(usize, u8)], local: &[u8]) -> bool {
    pairs.iter().any(|&(a, kind)| local[a] == kind)
}

/// Whether the key whose words `word` gives (the least significant
/// first) meets none of `twisty`'s checks; `scratch` has room for any
/// coordinate's values, `wide` for a split one's parts and digits.
#[inline]
pub(super) fn legal(
    twisty: &Twisty,
    word: impl Fn(usize) -> u64,
    scratch: &mut [u8],
    wide: &mut [u64],
) -> bool {
    let coords = &twisty.coords;
    twisty.illegal.iter().all(|check| {
        if check.split {
            // The whole coordinate's values; its arrangement's kinds lead.
            let local = &mut scratch[..coords[check.coord].local_len()];
            twisty.coord_values(check.coord, &word, local, wide);
            return !meets(&check.pairs, local);
        }
        let value = (word(check.word) / check.divisor) % check.values;
        match &check.table {
            Some(bits) => bits[(value / 64) as usize] >> (value % 64) & 1 == 0,
            None => {
                let arrangement = arrangement(coords, check);
                let local = &mut scratch[..arrangement.local_len()];
                arrangement.unrank(value, local);
                !meets(&check.pairs, local)
            }
        }
    })
}
