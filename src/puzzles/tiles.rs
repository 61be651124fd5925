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
//! Decoding a key reuses the last decoded sequence when only `b` changed.
//! The last three counted Lehmer digits and the last two tiles' order (the
//! tail) come from a table indexed by the rank's remainder by 60; the
//! digits before them (the head) step like an odometer when `rank / 60`
//! grows, and only the tiles from the highest changed digit on are laid
//! out again, so a scan of keys in order almost never pays for a full
//! unrank.

use crate::engine::{AdjacentKeys, Model};
use crate::puzzles::combinadic::Divisor;

/// The largest board: 16 cells (the 15-puzzle), 15 tiles, ranks up to 15!/2.
pub const MAX_CELLS: usize = 16;

/// A rectangular sliding-tile puzzle that starts with its tiles in order
/// (tile `t` the `t`-th in reading order) and its blank in a given cell:
/// the last for `tiles-RxC`, the solved position. Any start is this with
/// the tiles numbered in the order the start has them.
#[derive(Clone, Debug)]
pub struct Tiles {
    rows: usize,
    cols: usize,
    /// Cells.
    n: usize,
    /// The start's blank.
    start_blank: usize,
    /// `weight[i]`: the number of sequences that share their first `i + 1`
    /// tiles (for `i < m - 2`): `(m - 1 - i)! / 2`.
    weight: [u64; MAX_CELLS],
    /// Radix of Lehmer digit `i`: `m - i`.
    radix: [u8; MAX_CELLS],
    /// The cell count as a divisor: a key's rank and blank, by a
    /// multiplication instead of a division on every decode.
    cells: Divisor,
    /// Bit `cell`: the parity a sequence must have with the blank there.
    parities: u32,
    /// The low bit of each of the first `head` bytes: the head's digits.
    head_low_bits: u128,
    /// Counted digits before the tail: `m - 2 - TAIL` (fewer tail digits
    /// on the smallest board).
    head: usize,
    /// Sequences that share a head, `(tail + 2)! / 2`: a rank's quotient
    /// by it is its head, the remainder (`low`) its tail digits.
    group: Divisor,
    /// Per `low` and the parity the head and the blank ask of the tail
    /// (`2 * low + asked`): how the tail is laid out. The entry's last
    /// two tiles are out of order when `asked` differs from the parity of
    /// `low`'s digits.
    tail: Vec<Tail>,
    /// The horizontal moves: they keep the sequence and move the blank,
    /// so the key, by one. Key `k`'s blank is in cell `k % n`, and it
    /// moves right (`up`) or left (`down`) unless at the row's end.
    adjacent: AdjacentKeys,
}

/// Lehmer digits laid out from a table rather than one by one: the last
/// three counted digits (radices 5, 4 and 3), whose 60 values with the
/// last two tiles' order give the last five tiles' arrangement. A scan of
/// a wide level steps the rank by a few at a time: most decodes change
/// only these.
const TAIL: usize = 3;

/// The tail of a sequence for one value of its tail digits and one order
/// of its last two tiles.
#[derive(Clone, Copy, Debug, Default)]
struct Tail {
    /// Tile `j` of the tail is the nibble at bit `shifts[j]` of the list of
    /// tiles the head leaves (in increasing order).
    shifts: [u8; TAIL + 2],
    /// The tail's digits, the last two tiles' digit and a zero: `digits`
    /// from `head` on.
    digits: [u8; 4],
    /// `prefix[head + 1 + j] - prefix[head]`.
    partial: [u64; TAIL],
}

/// Why a tile board cannot be made.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TilesError {
    /// Not `RxC` with both at least 2 and at most 16 cells.
    #[error(
        "a tile puzzle is tiles-RxC with at least 2 rows and 2 columns and at most {max} cells (the 15-puzzle is tiles-4x4, the 24-puzzle tiles-5x5); got {0:?}",
        max = crate::puzzles::large_tiles::MAX_CELLS
    )]
    Shape(String),
    /// More than 16 cells: a [`LargeTiles`](crate::puzzles::large_tiles::LargeTiles) board.
    #[error("tiles-{0}x{1} has more than 16 cells: a large board")]
    Large(usize, usize),
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
    /// Lehmer digits of `seq`, all `m` of them: tile `i`'s count of
    /// smaller tiles after it. The last two (1 when the last two tiles are
    /// out of order, then 0) follow from the parity and weigh nothing in
    /// the rank; a vertical move's rank is computed from them.
    digits: [u8; MAX_CELLS],
    /// `left[i]`: the tiles not in the first `i` of the sequence, in
    /// increasing order, four bits each.
    left: [u64; MAX_CELLS],
    /// `prefix[i]`: the first `i` digits' share of the rank.
    prefix: [u64; MAX_CELLS],
    /// The parity `seq` was laid out for.
    parity: u8,
    /// `rank / group`: the head laid out (u64::MAX: none yet).
    high: u64,
    /// The parity of the head's digits' sum.
    head_parity: u8,
}

impl Default for TileState {
    /// A state with nothing decoded: [`Model::decode`] lays out every part
    /// of it from scratch.
    fn default() -> TileState {
        TileState {
            seq: 0,
            blank: 0,
            rank: u64::MAX,
            digits: [0; MAX_CELLS],
            left: [0; MAX_CELLS],
            prefix: [0; MAX_CELLS],
            parity: 0,
            high: u64::MAX,
            head_parity: 0,
        }
    }
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
    /// The `rows` x `cols` puzzle from solved: tiles in order, the blank
    /// in the last cell.
    pub fn new(rows: usize, cols: usize) -> Result<Tiles, TilesError> {
        Tiles::with_blank(rows, cols, (rows * cols).saturating_sub(1))
    }

    /// The `rows` x `cols` puzzle that starts with its tiles in order and
    /// its blank in cell `blank` (reading order; the tiles fill the other
    /// cells).
    pub fn with_blank(rows: usize, cols: usize, blank: usize) -> Result<Tiles, TilesError> {
        let n = rows * cols;
        if rows < 2 || cols < 2 || n > MAX_CELLS || blank >= n {
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
        let tail_digits = TAIL.min(m - 2);
        let head = m - 2 - tail_digits;
        let group = (3..=(tail_digits + 2) as u64).product::<u64>();
        let mut tiles = Tiles {
            rows,
            cols,
            n,
            start_blank: blank,
            weight,
            radix,
            cells: Divisor::new(n as u64),
            parities: 0,
            head_low_bits: (0..head).fold(0, |bits, i| bits | 1 << (8 * i)),
            head,
            group: Divisor::new(group),
            tail: Vec::new(),
            adjacent: AdjacentKeys {
                period: n as u32,
                up: (0..n)
                    .filter(|cell| cell % cols + 1 < cols)
                    .fold(0, |up, cell| up | 1 << cell),
                down: (0..n)
                    .filter(|cell| cell % cols > 0)
                    .fold(0, |down, cell| down | 1 << cell),
                // Every move takes the blank to a cell of the other colour.
                colours: Some(
                    (0..n)
                        .filter(|cell| (cell / cols + cell % cols) % 2 == 1)
                        .fold(0, |c, cell| c | 1 << cell),
                ),
                // Two rows: a blank has one cell above or below it.
                one_far: rows <= 2,
            },
        };
        tiles.parities = (0..n).fold(0, |p, cell| p | u32::from(tiles.parity_at(cell)) << cell);
        for low in 0..group {
            // The tail digits of `low`, and the tiles they pick from the
            // ones the head leaves (entries 0, 1, ... in order).
            let mut digits = [0u8; 4];
            let mut partial = [0u64; TAIL];
            let mut left: Vec<u64> = (0..tail_digits as u64 + 2).collect();
            // Entry 15 of the list is empty (0): the order's unused
            // entries on a board too small for a whole tail.
            let mut order = [15u64; TAIL + 2];
            let (mut r, mut sum) = (low, 0);
            for j in 0..tail_digits {
                let w = weight[head + j];
                let d = r / w;
                r %= w;
                sum += d * w;
                partial[j] = sum;
                digits[j] = d as u8;
                order[j] = left.remove(d as usize);
            }
            // A board too small for a whole tail: its sums stay.
            for p in partial.iter_mut().skip(tail_digits) {
                *p = sum;
            }
            let parity = digits.iter().map(|&d| u64::from(d)).sum::<u64>() & 1;
            for asked in 0..2 {
                let out_of_order = asked ^ parity;
                let (a, b) = if out_of_order == 0 {
                    (left[0], left[1])
                } else {
                    (left[1], left[0])
                };
                let mut digits = digits;
                digits[tail_digits] = out_of_order as u8;
                let mut order = order;
                (order[tail_digits], order[tail_digits + 1]) = (a, b);
                tiles.tail.push(Tail {
                    shifts: order.map(|entry| 4 * entry as u8),
                    digits,
                    partial,
                });
            }
        }
        Ok(tiles)
    }

    /// The puzzle a name such as `tiles-2x7` stands for (`None` when the
    /// name is not of that form at all).
    pub fn from_name(name: &str) -> Option<Result<Tiles, TilesError>> {
        let shape = name.strip_prefix("tiles-")?;
        let parsed = shape
            .split_once('x')
            .and_then(|(r, c)| Some((r.parse::<usize>().ok()?, c.parse::<usize>().ok()?)));
        Some(match parsed {
            Some((r, c))
                if r >= 2
                    && c >= 2
                    && (MAX_CELLS + 1..=crate::puzzles::large_tiles::MAX_CELLS)
                        .contains(&r.saturating_mul(c)) =>
            {
                Err(TilesError::Large(r, c))
            }
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
    /// (tiles in order) is even, and each change of the blank's row flips
    /// it when the columns are even.
    #[inline]
    fn parity_at(&self, cell: usize) -> u8 {
        let rows_away = (self.start_blank / self.cols).abs_diff(cell / self.cols) as u8;
        rows_away & (self.cols as u8 + 1) & 1
    }

    /// Cells.
    pub fn cells(&self) -> usize {
        self.n
    }

    /// The board of `key`: each cell's tile (`None` for the blank).
    pub fn board(&self, key: u64) -> Vec<Option<u8>> {
        let mut state = self.new_state();
        self.decode(key, &mut state);
        let mut s = 0;
        (0..self.n)
            .map(|cell| {
                (cell != state.blank).then(|| {
                    s += 1;
                    nibble(state.seq, s - 1) as u8
                })
            })
            .collect()
    }

    /// The key of a board (each cell's tile, `None` for the blank), if it
    /// is a position of this puzzle: every tile once, and the sequence of
    /// the parity the start's moves keep with the blank in that cell.
    pub fn key_of_board(&self, board: &[Option<u8>]) -> Option<u64> {
        if board.len() != self.n {
            return None;
        }
        let blank = board.iter().position(Option::is_none)?;
        let seq: Vec<u8> = board.iter().flatten().copied().collect();
        let mut seen = 0u32;
        let (mut rank, mut digit_sum) = (0, 0u32);
        for (i, &v) in seq.iter().enumerate() {
            if usize::from(v) >= self.m() || seen >> v & 1 == 1 {
                return None;
            }
            let digit = u32::from(v) - (seen & ((1u32 << v) - 1)).count_ones();
            seen |= 1 << v;
            digit_sum += digit;
            if i < self.m() - 2 {
                rank += u64::from(digit) * self.weight[i];
            }
        }
        ((digit_sum & 1) as u8 == self.parity_at(blank))
            .then(|| rank * self.n as u64 + blank as u64)
    }

    /// The tile in `cell` of the decoded `state` (`None`: the blank).
    #[inline]
    pub fn tile_at(&self, state: &TileState, cell: usize) -> Option<u8> {
        let b = state.blank;
        (cell != b).then(|| nibble(state.seq, cell - usize::from(cell > b)) as u8)
    }

    /// The rank of `seq`, a sequence of the parity its blank requires:
    /// the Lehmer digits of its first `m - 2` tiles in mixed radix, from
    /// scratch. (The tests' reference.)
    #[cfg(test)]
    fn rank_of(&self, seq: u64) -> u64 {
        let mut seen = 0u32;
        let mut r = 0;
        for i in 0..self.m() - 2 {
            let v = nibble(seq, i) as u32;
            let digit = v - (seen & ((1u32 << v) - 1)).count_ones();
            seen |= 1 << v;
            r += u64::from(digit) * self.weight[i];
        }
        r
    }

    /// The rank of `state`'s sequence with its `cols` entries from `from`
    /// turned left by one (the first goes last: a tile moving down), from
    /// the digits. Tile `from + k + 1` moves to `from + k` and loses the
    /// first tile from the ones before it: its digit grows by one if that
    /// tile was smaller. The first tile goes last and gains the others of
    /// the run before it: its digit drops by those smaller than it. The
    /// digits outside the run keep their values: each term is independent.
    /// `C` is `cols`, a constant so that the loop unrolls.
    #[inline(always)]
    fn rank_turned_left<const C: usize>(&self, state: &TileState, from: usize) -> u64 {
        let (d, w) = (&state.digits, &self.weight);
        let first = nibble(state.seq, from);
        let mut rank = state.prefix[from] + self.beyond(state, from + C);
        let mut smaller = 0;
        for k in 0..C - 1 {
            let greater = u64::from(first < nibble(state.seq, from + k + 1));
            smaller += 1 - greater;
            rank += (u64::from(d[from + k + 1]) + greater) * w[from + k];
        }
        rank + (u64::from(d[from]) - smaller) * w[from + C - 1]
    }

    /// The rank of `state`'s sequence with its `C` (`cols`) entries from
    /// `from` turned right by one (the last goes first: a tile moving up),
    /// from the digits as in [`Tiles::rank_turned_left`].
    #[inline(always)]
    fn rank_turned_right<const C: usize>(&self, state: &TileState, from: usize) -> u64 {
        let (d, w) = (&state.digits, &self.weight);
        let last = nibble(state.seq, from + C - 1);
        let mut rank = state.prefix[from] + self.beyond(state, from + C);
        let mut smaller = 0;
        for k in 1..C {
            let greater = u64::from(last < nibble(state.seq, from + k - 1));
            smaller += 1 - greater;
            rank += (u64::from(d[from + k - 1]) - greater) * w[from + k];
        }
        rank + (u64::from(d[from + C - 1]) + smaller) * w[from]
    }

    /// The vertical moves of a board of `C` columns.
    #[inline(always)]
    fn vertical<const C: usize>(&self, state: &TileState, out: &mut Vec<u64>) {
        let n = self.n;
        let b = state.blank;
        // The tile above the blank (sequence index b - C) moves down to
        // sequence index b - 1, past the C - 1 tiles between.
        if b >= C {
            out.push(self.rank_turned_left::<C>(state, b - C) * n as u64 + (b - C) as u64);
        }
        // The tile below (sequence index b + C - 1) moves up to index b.
        if b + C < n {
            out.push(self.rank_turned_right::<C>(state, b) * n as u64 + (b + C) as u64);
        }
    }

    /// The share of `state`'s rank of the digits from `i` on.
    #[inline(always)]
    fn beyond(&self, state: &TileState, i: usize) -> u64 {
        if i <= self.m() - 2 {
            state.rank - state.prefix[i]
        } else {
            0
        }
    }

    /// Lays out the head of the sequence from tile `from` on from the
    /// digits (the tiles before `from` and their tables already in place).
    #[inline]
    fn lay_out_head(&self, state: &mut TileState, from: usize) {
        let mut seq = state.seq & ones(from);
        let mut left = state.left[from];
        let mut prefix = state.prefix[from];
        for i in from..self.head {
            let d = state.digits[i];
            let v = nibble(left, d as usize);
            seq |= v << (4 * i);
            left = remove(left, d as usize);
            prefix += u64::from(d) * self.weight[i];
            state.left[i + 1] = left;
            state.prefix[i + 1] = prefix;
        }
        state.seq = seq;
        // The parity of the digits' sum: of their low bits' count.
        let low_bits = u128::from_le_bytes(state.digits) & self.head_low_bits;
        state.head_parity = (low_bits.count_ones() & 1) as u8;
    }

    /// Sets the head's digits to those of `high` (a rank divided by
    /// `group`), and lays out the head.
    fn unrank_head(&self, high: u64, state: &mut TileState) {
        let h = self.head;
        let prev = state.high;
        let from = if prev != u64::MAX && high > prev && high - prev < 1 << 16 {
            // Odometer steps: the lowest head digits take the difference,
            // and carry into those above them.
            let mut carry = (high - prev) as u32;
            let mut i = h - 1;
            loop {
                let t = u32::from(state.digits[i]) + carry;
                let r = u32::from(self.radix[i]);
                if t < r {
                    state.digits[i] = t as u8;
                    break;
                }
                // Mostly a carry of one: no division for it.
                (state.digits[i], carry) = if t < 2 * r {
                    ((t - r) as u8, 1)
                } else {
                    ((t % r) as u8, t / r)
                };
                i -= 1;
            }
            i
        } else {
            let mut r = high * self.group.get();
            let mut from = h;
            for i in 0..h {
                let w = self.weight[i];
                let d = (r / w) as u8;
                r %= w;
                if d != state.digits[i] && from == h {
                    from = i;
                }
                state.digits[i] = d;
            }
            if prev == u64::MAX { 0 } else { from }
        };
        self.lay_out_head(state, from);
        state.high = high;
    }

    /// Sets `state`'s sequence to the one of rank `rank`, for a blank
    /// whose cell asks for `parity`: the head as before or stepped, the
    /// tail (its digits, tiles and prefix sums) from the table.
    #[inline]
    fn unrank(&self, rank: u64, parity: u8, state: &mut TileState) {
        let (high, low) = self.group.div_rem(rank);
        if high != state.high {
            self.unrank_head(high, state);
        }
        // The entry for the parity the head's digits and the blank leave
        // to the tail's (its last two tiles' order settles the rest).
        let asked = state.head_parity ^ parity;
        let tail = &self.tail[2 * low as usize + usize::from(asked)];
        let (h, left) = (self.head, state.left[self.head]);
        let mut seq = 0;
        for (j, &shift) in tail.shifts.iter().enumerate() {
            seq |= ((left >> shift) & 15) << (4 * j);
        }
        state.seq = (state.seq & ones(h)) | (seq << (4 * h));
        state.digits[h..h + 4].copy_from_slice(&tail.digits);
        let base = state.prefix[h];
        for (j, &p) in tail.partial.iter().enumerate() {
            state.prefix[h + 1 + j] = base + p;
        }
        state.parity = parity;
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
    type Key = u64;

    fn start(&self) -> u64 {
        // Tiles in order (rank 0), the blank in its cell.
        self.start_blank as u64
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
            prefix: [0; MAX_CELLS],
            parity: 0,
            high: u64::MAX,
            head_parity: 0,
        };
        self.decode(self.start(), &mut state);
        state
    }

    #[inline]
    fn decode(&self, key: u64, state: &mut TileState) {
        let (rank, blank) = self.cells.div_rem(key);
        let blank = blank as usize;
        let parity = (self.parities >> blank) as u8 & 1;
        if rank != state.rank {
            self.unrank(rank, parity, state);
        } else if parity != state.parity {
            // The last two tiles change places.
            let m = self.m();
            let (a, b) = (nibble(state.seq, m - 2), nibble(state.seq, m - 1));
            state.seq = (state.seq & ones(m - 2)) | (b << (4 * (m - 2))) | (a << (4 * (m - 1)));
            state.digits[m - 2] ^= 1;
            state.parity = parity;
        }
        state.blank = blank;
    }

    #[inline]
    fn successors(&self, state: &mut TileState, out: &mut Vec<u64>) {
        let key = state.rank * self.n as u64 + state.blank as u64;
        let AdjacentKeys { up, down, .. } = self.adjacent;
        if down >> state.blank & 1 == 1 {
            out.push(key - 1);
        }
        if up >> state.blank & 1 == 1 {
            out.push(key + 1);
        }
        self.far_successors(state, out);
    }

    fn adjacent_keys(&self) -> Option<AdjacentKeys> {
        Some(self.adjacent)
    }

    /// The vertical moves.
    #[inline(always)]
    fn far_successors(&self, state: &mut TileState, out: &mut Vec<u64>) {
        // At most 16 cells in at least 2 rows: 2 to 8 columns.
        match self.cols {
            2 => self.vertical::<2>(state, out),
            3 => self.vertical::<3>(state, out),
            4 => self.vertical::<4>(state, out),
            5 => self.vertical::<5>(state, out),
            6 => self.vertical::<6>(state, out),
            7 => self.vertical::<7>(state, out),
            _ => self.vertical::<8>(state, out),
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

    fn keys_are_states(&self) -> bool {
        // Every key is a board of the start's parity, and a move is undone
        // by the move back.
        true
    }

    fn identity(&self) -> String {
        if self.start_blank + 1 == self.n {
            format!("tiles {}x{}", self.rows, self.cols)
        } else {
            format!(
                "tiles {}x{} blank {}",
                self.rows, self.cols, self.start_blank
            )
        }
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
                assert_eq!(t.rank_of(s.seq) * t.n as u64 + s.blank as u64, key);
                let mut fresh = t.new_state();
                t.decode(key, &mut fresh);
                assert_eq!(fresh.seq, s.seq, "{r}x{c} key {key}: stepped decode");
                out.clear();
                t.successors(&mut s, &mut out);
                assert!(out.iter().all(|&k| k < t.key_space()));
            }
        }
    }

    /// The successors by the board: each tile next to the blank moved into
    /// it, the new sequence ranked from scratch.
    fn board_successors(t: &Tiles, s: &TileState) -> Vec<u64> {
        let (n, cols) = (t.n, t.cols);
        let mut board = vec![None; n];
        let mut i = 0;
        for (cell, slot) in board.iter_mut().enumerate() {
            if cell != s.blank {
                *slot = Some(nibble(s.seq, i));
                i += 1;
            }
        }
        let b = s.blank;
        let mut near = Vec::new();
        if !b.is_multiple_of(cols) {
            near.push(b - 1);
        }
        if b % cols + 1 < cols {
            near.push(b + 1);
        }
        if b >= cols {
            near.push(b - cols);
        }
        if b + cols < n {
            near.push(b + cols);
        }
        let mut keys: Vec<u64> = near
            .into_iter()
            .map(|cell| {
                let mut moved = board.clone();
                moved.swap(cell, b);
                let seq = moved
                    .iter()
                    .flatten()
                    .enumerate()
                    .fold(0, |seq, (i, &tile)| seq | tile << (4 * i));
                t.rank_of(seq) * n as u64 + cell as u64
            })
            .collect();
        keys.sort_unstable();
        keys
    }

    /// A vertical move's rank, computed from the digits, is the rank of
    /// the board with the tile moved; and the successors are the far ones
    /// plus the key's neighbours that `adjacent_keys` names. Every key of
    /// the small boards, and keys spread over the big ones, each decoded
    /// after the one before (the odometer) and afresh.
    #[test]
    fn successors_are_the_boards_moves() {
        let shapes = [
            (2, 2),
            (2, 3),
            (3, 2),
            (2, 4),
            (3, 3),
            (4, 2),
            (3, 4),
            (2, 7),
            (7, 2),
            (3, 5),
            (2, 8),
            (4, 4),
        ];
        for (r, c) in shapes {
            let t = Tiles::new(r, c).unwrap();
            let adjacent = t.adjacent_keys().unwrap();
            let space = t.key_space();
            let mut keys: Vec<u64> = if space <= 200_000 {
                (0..space).collect()
            } else {
                // Runs of consecutive keys (the odometer) at spread
                // places, and the last keys.
                let mut keys = Vec::new();
                let mut x = 0x9E37_79B9_7F4A_7C15u64;
                for _ in 0..300 {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let at = (x >> 11) % (space - 40);
                    keys.extend(at..at + 40);
                }
                keys.extend(space - 40..space);
                keys
            };
            keys.dedup();
            let mut s = t.new_state();
            let mut got = Vec::new();
            for key in keys {
                for fresh in [false, true] {
                    if fresh {
                        s = t.new_state();
                    }
                    t.decode(key, &mut s);
                    let rank = t.rank_of(s.seq);
                    assert_eq!(rank * t.n as u64 + s.blank as u64, key, "{r}x{c} decode");
                    got.clear();
                    t.successors(&mut s, &mut got);
                    got.sort_unstable();
                    assert_eq!(got, board_successors(&t, &s), "{r}x{c} key {key}");
                    let mut parts = Vec::new();
                    t.far_successors(&mut s, &mut parts);
                    let r = (key % u64::from(adjacent.period)) as u32;
                    if adjacent.up >> r & 1 == 1 {
                        parts.push(key + 1);
                    }
                    if adjacent.down >> r & 1 == 1 {
                        parts.push(key - 1);
                    }
                    parts.sort_unstable();
                    assert_eq!(parts, got, "{r}x{c} key {key}: far and adjacent");
                }
            }
        }
    }

    /// From a blank in any cell the moves reach exactly the key space, and
    /// a key's board ranks back to it; a board of the other parity is no
    /// position.
    #[test]
    fn every_start_blank_reaches_its_key_space() {
        for (r, c) in [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4)] {
            for blank in 0..r * c {
                let t = Tiles::with_blank(r, c, blank).unwrap();
                let mut board = t.board(t.start());
                assert_eq!(board[blank], None);
                assert_eq!(t.key_of_board(&board), Some(t.start()));
                let mut seen = vec![false; t.key_space() as usize];
                seen[t.start() as usize] = true;
                let (mut queue, mut s, mut out) = (vec![t.start()], t.new_state(), Vec::new());
                while let Some(key) = queue.pop() {
                    t.decode(key, &mut s);
                    let b = t.board(key);
                    assert_eq!(t.key_of_board(&b), Some(key));
                    out.clear();
                    t.successors(&mut s, &mut out);
                    for &k in &out {
                        if !std::mem::replace(&mut seen[k as usize], true) {
                            queue.push(k);
                        }
                    }
                }
                assert!(seen.iter().all(|&x| x), "{r}x{c} blank {blank}");
                // Two tiles swapped: the other parity.
                let (i, j) = ((blank + 1) % (r * c), (blank + 2) % (r * c));
                board.swap(i, j);
                assert_eq!(t.key_of_board(&board), None);
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
