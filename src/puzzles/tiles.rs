//! Sliding-tile puzzles (the 8-puzzle, the 15-puzzle, the 2x7 puzzle) with
//! dense ranks: every key below the key space is a reachable state.
//!
//! The sliding-block model ranks any board generically: for `n` cells and
//! `n - 1` distinct tiles its key space is `n!`, half of it unreachable,
//! and each rank costs a walk over the board. A tile puzzle is far more
//! regular, and for the big ones (the 2x7 puzzle: 43.6 billion states) the
//! engine's dense visited set wants keys that waste nothing:
//!
//! - A state is the blank's cell `b` and the *sequence* of the `m = n - 1`
//!   tiles in reading order, the blank skipped. The key is
//!   `rank(sequence) * n + b`.
//! - A horizontal move changes `b` and not the sequence: its key is the
//!   state's own key plus or minus one (the same word of the visited set).
//! - A vertical move carries one tile past the `cols - 1` tiles between the
//!   blank and it: a rotation by one of `cols` consecutive entries of the
//!   sequence. With an odd number of columns that is an even permutation,
//!   so the sequence's parity never changes; with an even number it flips
//!   with every change of the blank's row. Either way the parity a state's
//!   sequence must have follows from `b`, so the rank counts only
//!   sequences of that parity: the lexicographic (Lehmer) rank of the
//!   first `m - 2` tiles, whose last two tiles are then ordered by parity.
//!   The key space is `n!/2`, exactly the reachable states.
//!
//! Decoding a key reuses the last decoded sequence when only `b` changed,
//! and steps the sequence's Lehmer digits like an odometer when the rank
//! grew by one, so a scan of keys in order almost never pays for a full
//! unrank.

use crate::engine::Model;

/// The largest board: 16 cells (the 15-puzzle), 15 tiles, ranks up to 15!/2.
pub const MAX_CELLS: usize = 16;

/// A rectangular sliding-tile puzzle with its blank starting in the last
/// cell and the tiles in order: the solved position.
#[derive(Clone, Debug)]
pub struct Tiles {
    rows: usize,
    cols: usize,
    /// Cells.
    n: usize,
    /// `weight[i]`: the number of sequences that share their first `i + 1`
    /// tiles (for `i < m - 2`): `(m - 1 - i)! / 2`.
    weight: [u64; MAX_CELLS],
    /// Radix of Lehmer digit `i`: `m - i`.
    radix: [u8; MAX_CELLS],
}

/// Why a tile board cannot be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TilesError {
    /// Not `RxC` with both at least 2 and at most 16 cells.
    #[error(
        "a tile puzzle is tiles-RxC with at least 2 rows and 2 columns and at most {MAX_CELLS} cells (the 15-puzzle is tiles-4x4); got {0:?}"
    )]
    Shape(String),
}

/// The state a worker decodes keys into.
#[derive(Clone, Debug)]
pub struct TileState {
    /// The tiles in reading order, the blank skipped: tile `i` of the
    /// sequence in bits `4i..4i + 4`.
    seq: u64,
    /// The blank's cell.
    blank: usize,
    /// The rank of `seq` (u64::MAX: nothing decoded yet).
    rank: u64,
    /// Lehmer digits of `seq` (the first `m - 2`).
    digits: [u8; MAX_CELLS],
    /// `left[i]`: the tiles not in the first `i` of the sequence, in
    /// increasing order, four bits each.
    left: [u64; MAX_CELLS],
    /// `seen[i]`: the tiles in the first `i`, one bit each.
    seen: [u32; MAX_CELLS],
    /// `prefix[i]`: the first `i` digits' share of the rank.
    prefix: [u64; MAX_CELLS],
    /// The parity `seq` was laid out for.
    parity: u8,
}

/// The four bits of `i` in a packed list.
#[inline(always)]
fn nibble(list: u64, i: usize) -> u64 {
    (list >> (4 * i)) & 15
}

/// `list` without its entry `i`, the entries above it moved down.
#[inline(always)]
fn remove(list: u64, i: usize) -> u64 {
    let below = list & ((1u64 << (4 * i)) - 1);
    let above = (list >> (4 * i + 4)) << (4 * i);
    below | above
}

/// Four bits set for each of `len` entries.
#[inline(always)]
fn ones(len: usize) -> u64 {
    if len >= 16 {
        u64::MAX
    } else {
        (1u64 << (4 * len)) - 1
    }
}

impl Tiles {
    /// The `rows` x `cols` puzzle.
    pub fn new(rows: usize, cols: usize) -> Result<Tiles, TilesError> {
        let n = rows * cols;
        if rows < 2 || cols < 2 || n > MAX_CELLS {
            return Err(TilesError::Shape(format!("{rows}x{cols}")));
        }
        let m = n - 1;
        let mut weight = [0u64; MAX_CELLS];
        let mut radix = [0u8; MAX_CELLS];
        for i in 0..m.saturating_sub(2) {
            // (m - 1 - i)! / 2: the orderings of the tiles after position
            // i with the parity fixed.
            weight[i] = (3..=(m - 1 - i) as u64).product::<u64>();
            radix[i] = (m - i) as u8;
        }
        Ok(Tiles {
            rows,
            cols,
            n,
            weight,
            radix,
        })
    }

    /// The puzzle a name such as `tiles-2x7` stands for (`None` when the
    /// name is not of that form at all).
    pub fn from_name(name: &str) -> Option<Result<Tiles, TilesError>> {
        let shape = name.strip_prefix("tiles-")?;
        let parsed = shape
            .split_once('x')
            .and_then(|(r, c)| Some((r.parse::<usize>().ok()?, c.parse::<usize>().ok()?)));
        Some(match parsed {
            Some((r, c)) if r <= MAX_CELLS && c <= MAX_CELLS => Tiles::new(r, c),
            _ => Err(TilesError::Shape(shape.to_string())),
        })
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The puzzle's name, `tiles-RxC`.
    pub fn name(&self) -> String {
        format!("tiles-{}x{}", self.rows, self.cols)
    }

    /// Tiles.
    #[inline(always)]
    fn m(&self) -> usize {
        self.n - 1
    }

    /// The parity a sequence must have with the blank in `cell`: the start
    /// (blank in the last cell, tiles in order) is even, and each change
    /// of the blank's row flips it when the columns are even.
    #[inline]
    fn parity_at(&self, cell: usize) -> u8 {
        let rows_away = (self.rows - 1 - cell / self.cols) as u8;
        rows_away & (self.cols as u8 + 1) & 1
    }

    /// The rank of `seq`, a sequence of the parity its blank requires that
    /// agrees with `state`'s in its first `from` tiles: the Lehmer digits
    /// of its first `m - 2` tiles in mixed radix.
    #[inline]
    fn rank_from(&self, seq: u64, from: usize, state: &TileState) -> u64 {
        let mut seen = state.seen[from];
        let mut r = state.prefix[from];
        for i in from..self.m() - 2 {
            let v = nibble(seq, i) as u32;
            let digit = v - (seen & ((1u32 << v) - 1)).count_ones();
            seen |= 1 << v;
            r += u64::from(digit) * self.weight[i];
        }
        r
    }

    /// Lays out the sequence from tile `from` on from the digits (the
    /// tiles before `from` and their tables already in place), the last
    /// two tiles ordered for `parity`.
    #[inline]
    fn lay_out(&self, state: &mut TileState, from: usize, parity: u8) {
        let m = self.m();
        let mut seq = state.seq & ones(from);
        let mut left = state.left[from];
        let mut seen = state.seen[from];
        let mut prefix = state.prefix[from];
        for i in from..m - 2 {
            let d = state.digits[i];
            let v = nibble(left, d as usize);
            seq |= v << (4 * i);
            left = remove(left, d as usize);
            seen |= 1 << v;
            prefix += u64::from(d) * self.weight[i];
            state.left[i + 1] = left;
            state.seen[i + 1] = seen;
            state.prefix[i + 1] = prefix;
        }
        let sum: u32 = state.digits[..m - 2].iter().map(|&d| u32::from(d)).sum();
        let (lo, hi) = (nibble(left, 0), nibble(left, 1));
        // The last two tiles' Lehmer digit is 1 when they are out of order.
        let (a, b) = if (sum + u32::from(parity)) & 1 == 0 {
            (lo, hi)
        } else {
            (hi, lo)
        };
        state.seq = seq | (a << (4 * (m - 2))) | (b << (4 * (m - 1)));
        state.parity = parity;
    }

    /// Sets `state`'s sequence to the one of rank `rank`, for a blank
    /// whose cell asks for `parity`.
    fn unrank(&self, rank: u64, parity: u8, state: &mut TileState) {
        let m = self.m();
        let prev = state.rank;
        let from = if prev != u64::MAX && rank > prev && rank - prev < 1 << 16 {
            // Odometer steps: the lowest digits take the difference, and
            // carry into those above them.
            let mut carry = (rank - prev) as u32;
            let mut i = m - 3;
            loop {
                let t = u32::from(state.digits[i]) + carry;
                let r = u32::from(self.radix[i]);
                if t < r {
                    state.digits[i] = t as u8;
                    break;
                }
                state.digits[i] = (t % r) as u8;
                carry = t / r;
                i -= 1;
            }
            i
        } else {
            let mut r = rank;
            let mut from = m - 2;
            for i in 0..m - 2 {
                let w = self.weight[i];
                let d = (r / w) as u8;
                r %= w;
                if d != state.digits[i] && from == m - 2 {
                    from = i;
                }
                state.digits[i] = d;
            }
            if prev == u64::MAX { 0 } else { from }
        };
        self.lay_out(state, from, parity);
        state.rank = rank;
    }

    /// The board of `key` as rows of tiles (1-9, then A-Z) and `.` for the
    /// blank.
    pub fn render(&self, key: u64) -> String {
        let mut state = self.new_state();
        self.decode(key, &mut state);
        let mut out = String::new();
        let mut s = 0;
        for cell in 0..self.n {
            if cell == state.blank {
                out.push('.');
            } else {
                let t = nibble(state.seq, s) as u32 + 1;
                out.push(char::from_digit(t, 36).unwrap_or('?').to_ascii_uppercase());
                s += 1;
            }
            if cell % self.cols == self.cols - 1 {
                out.push('\n');
            }
        }
        out
    }
}

impl Model for Tiles {
    type State = TileState;

    fn start(&self) -> u64 {
        // Tiles in order (rank 0), blank in the last cell.
        (self.n - 1) as u64
    }

    fn key_space(&self) -> u64 {
        (1..=self.n as u64).product::<u64>() / 2
    }

    fn new_state(&self) -> TileState {
        let m = self.m();
        let mut left = [0u64; MAX_CELLS];
        left[0] = (0..m as u64).fold(0, |list, t| list | t << (4 * t));
        let mut state = TileState {
            seq: 0,
            blank: 0,
            rank: u64::MAX,
            digits: [0; MAX_CELLS],
            left,
            seen: [0; MAX_CELLS],
            prefix: [0; MAX_CELLS],
            parity: 0,
        };
        self.decode(self.start(), &mut state);
        state
    }

    #[inline]
    fn decode(&self, key: u64, state: &mut TileState) {
        let n = self.n as u64;
        let (rank, blank) = (key / n, (key % n) as usize);
        let parity = self.parity_at(blank);
        if rank != state.rank {
            self.unrank(rank, parity, state);
        } else if parity != state.parity {
            // The last two tiles change places.
            let m = self.m();
            let (a, b) = (nibble(state.seq, m - 2), nibble(state.seq, m - 1));
            state.seq = (state.seq & ones(m - 2)) | (b << (4 * (m - 2))) | (a << (4 * (m - 1)));
            state.parity = parity;
        }
        state.blank = blank;
    }

    #[inline]
    fn successors(&self, state: &mut TileState, out: &mut Vec<u64>) {
        let (n, cols) = (self.n, self.cols);
        let b = state.blank;
        let own = state.rank * n as u64;
        let col = b % cols;
        if col > 0 {
            out.push(own + (b - 1) as u64);
        }
        if col + 1 < cols {
            out.push(own + (b + 1) as u64);
        }
        // The tile above the blank (sequence index b - cols) moves down to
        // sequence index b - 1, past the cols - 1 tiles between.
        if b >= cols {
            let from = b - cols;
            let seg = (state.seq >> (4 * from)) & ones(cols);
            let turned = (seg >> 4) | ((seg & 15) << (4 * (cols - 1)));
            let seq = (state.seq & !(ones(cols) << (4 * from))) | (turned << (4 * from));
            out.push(self.rank_from(seq, from, state) * n as u64 + from as u64);
        }
        // The tile below (sequence index b + cols - 1) moves up to index b.
        if b + cols < n {
            let seg = (state.seq >> (4 * b)) & ones(cols);
            let turned = ((seg << 4) & ones(cols)) | (seg >> (4 * (cols - 1)));
            let seq = (state.seq & !(ones(cols) << (4 * b))) | (turned << (4 * b));
            out.push(self.rank_from(seq, b, state) * n as u64 + (b + cols) as u64);
        }
    }

    fn reversible(&self) -> bool {
        true
    }

    fn bipartite(&self) -> bool {
        // Every move takes a tile one cell into the blank: the blank's row
        // plus column changes by one.
        true
    }

    fn dense(&self) -> bool {
        true
    }

    fn identity(&self) -> String {
        format!("tiles {}x{}", self.rows, self.cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key decodes to a state whose rank is the key's, and the
    /// successors' keys are in range.
    #[test]
    fn ranks_round_trip_and_successors_stay_in_range() {
        for (r, c) in [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3)] {
            let t = Tiles::new(r, c).unwrap();
            let mut s = t.new_state();
            let mut out = Vec::new();
            for key in 0..t.key_space() {
                t.decode(key, &mut s);
                assert_eq!(t.rank_from(s.seq, 0, &s) * t.n as u64 + s.blank as u64, key);
                let mut fresh = t.new_state();
                t.decode(key, &mut fresh);
                assert_eq!(fresh.seq, s.seq, "{r}x{c} key {key}: stepped decode");
                out.clear();
                t.successors(&mut s, &mut out);
                assert!(out.iter().all(|&k| k < t.key_space()));
            }
        }
    }

    #[test]
    fn names_parse() {
        assert_eq!(
            Tiles::from_name("tiles-2x7").unwrap().unwrap().name(),
            "tiles-2x7"
        );
        assert!(Tiles::from_name("eleven").is_none());
        assert!(matches!(Tiles::from_name("tiles-5x5"), Some(Err(_))));
        assert!(matches!(Tiles::from_name("tiles-1x9"), Some(Err(_))));
        assert!(matches!(Tiles::from_name("tiles-ax3"), Some(Err(_))));
    }

    #[test]
    fn renders_the_start() {
        let t = Tiles::new(2, 7).unwrap();
        assert_eq!(t.render(t.start()), "1234567\n89ABCD.\n");
    }
}
