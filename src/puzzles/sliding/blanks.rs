//! Sliding-block puzzles with a few empty cells among interchangeable
//! squares (pe766: two empty cells, six squares), under the step metric:
//! a decode and a move generator that look at the empty cells, not at
//! every piece.
//!
//! Such a puzzle ranks its squares last, among the cells the other pieces
//! leave free, by the cells they leave empty (`by_complement`): the
//! squares' rank says where the blanks are. Every other class has at most
//! two pieces, each ranked over its anchors. A move is a piece entering a
//! blank, and its key follows from what the move changes:
//!
//! - a square moving from cell `n` into blank `e` changes only the blanks
//!   (`n` becomes one, `e` does not): the new key is the other classes'
//!   share plus the squares' weight times the rank of the new blanks
//!   among the same free cells;
//! - another piece moving from anchor `a` to `b` changes its class's rank
//!   (a single piece's rank is its anchor; a pair's, `lo + hi(hi-1)/2` of
//!   its two anchors) and toggles the cells `flip` it leaves and enters:
//!   both the free cells and the blanks gain or lose exactly those, so the
//!   squares' new rank is that of `blanks ^ flip` among `free ^ flip`.
//!
//! The generic decode places every square and builds the tables a move of
//! any class in any metric needs; this one leaves the squares as a mask.

use super::{Dir, Metric, NO_CELL, SlidingPuzzle, SlidingState, deposit, rank_among};

/// The most blanks: a move is a (blank, direction) pair, bit 4·j + d of
/// a `u32`.
const MAX_BLANKS: usize = 8;

/// The tables of a puzzle with a few blanks among its squares.
#[derive(Clone, Debug)]
pub(crate) struct FewBlanks {
    /// The squares' class: the last.
    squares: usize,
    /// The squares' weight in the key.
    weight: u64,
    /// The directions the squares may move (bit `d`).
    square_dirs: u8,
}

impl FewBlanks {
    /// The tables for `puzzle`, if its free-ranked pieces are one class of
    /// squares ranked by the blanks they leave (at most `MAX_BLANKS`), its
    /// other classes have at most two pieces each, and its goal (if any)
    /// names none of the squares.
    pub(crate) fn new(puzzle: &SlidingPuzzle) -> Option<FewBlanks> {
        let squares = puzzle.classes.len().checked_sub(1)?;
        let class = &puzzle.classes[squares];
        let blanks = class.ranked_over - class.count();
        let fits = puzzle.lone.is_none()
            && puzzle.tile_groups.is_empty()
            && puzzle.first_free == squares
            && class.by_complement
            && class.shape.len() == 1
            && (1..=MAX_BLANKS).contains(&blanks)
            && puzzle.classes[..squares].iter().all(|c| c.count() <= 2)
            && puzzle.goal.iter().all(|&(ci, _)| ci < squares);
        fits.then(|| FewBlanks {
            squares,
            weight: class.weight,
            square_dirs: puzzle.slot_dirs[class.offset],
        })
    }

    /// Whether `puzzle` (whose tables these are) moves this way now: under
    /// the step metric (a slide may pass several blanks).
    #[inline(always)]
    pub(crate) fn serves(puzzle: &SlidingPuzzle) -> bool {
        puzzle.metric == Metric::Step
    }

    /// Decodes `key` into `state`: every other class's ranks, anchors,
    /// cells and owner entries as the generic decode writes them, the
    /// squares only as their rank, their cells and their free cells. Only
    /// [`FewBlanks::successors`] and the goal test (which names no square)
    /// read a state decoded here.
    #[inline(always)]
    pub(crate) fn decode(&self, p: &SlidingPuzzle, key: u64, state: &mut SlidingState) {
        state.key = key;
        let mut rest = key;
        let mut occupied = 0u64;
        for (ci, class) in p.classes[..self.squares].iter().enumerate() {
            let (q, rank) = class.divisor.div_rem(rest);
            rest = q;
            state.ranks[ci] = rank;
            let offset = class.offset;
            if class.count() == 1 {
                let cells = class.masks[rank as usize];
                state.pos[offset] = rank as u16;
                state.slot_cells[offset] = cells;
                class.own(rank as u16, offset, &mut state.owner);
                occupied |= cells;
            } else {
                let set = &mut state.pos[offset..offset + 2];
                match &class.subsets {
                    Some(table) => {
                        let bits = table[rank as usize];
                        set[0] = bits.trailing_zeros() as u16;
                        set[1] = (bits & (bits - 1)).trailing_zeros() as u16;
                    }
                    None => super::combinadic::unrank(rank, class.ranked_over, set),
                }
                let (a, b) = (set[0], set[1]);
                let (ca, cb) = (class.masks[a as usize], class.masks[b as usize]);
                state.slot_cells[offset] = ca;
                state.slot_cells[offset + 1] = cb;
                class.own(a, offset, &mut state.owner);
                class.own(b, offset + 1, &mut state.owner);
                occupied |= ca | cb;
            }
        }
        // What is left of the key is the squares' rank.
        let class = &p.classes[self.squares];
        let free = p.floor & !occupied;
        let ranked = class.ranked_over - class.count();
        let squares = deposit(
            p.pattern_of(class, rest, ranked, &mut state.pos[class.offset..]),
            free,
        );
        state.ranks[self.squares] = rest;
        state.free_at[self.squares] = free;
        state.cells[self.squares] = squares;
        state.occupied = occupied | squares;
        state.anchored_key = key - rest * self.weight;
    }

    /// Pushes the keys of every move of the state (decoded by
    /// [`FewBlanks::decode`]).
    ///
    /// Which piece may enter which blank is found without a branch on the
    /// data (as in `first_steps`): for each blank and side, the cell whose
    /// piece would enter, and whether it is a square or another piece that
    /// fits. A piece entering two blanks at once is taken from the lowest.
    #[inline(always)]
    pub(crate) fn successors(&self, p: &SlidingPuzzle, state: &SlidingState, out: &mut Vec<u64>) {
        let occupied = state.occupied;
        let squares = state.cells[self.squares];
        let pieces = occupied & !squares;
        let blanks = p.floor & !occupied;
        let mut at = [0u8; MAX_BLANKS];
        let (mut legal, mut square) = (0u32, 0u32);
        let mut rest = blanks;
        let mut j = 0;
        while rest != 0 && j < MAX_BLANKS {
            let e = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            at[j] = e as u8;
            for d in Dir::ALL {
                // The cell whose piece would enter `e` moving d; off the
                // board, a stand-in whose answer is masked off.
                let from_cell = p.neighbour[e][d.opposite() as usize];
                let on_board = from_cell != NO_CELL;
                let cell = usize::from(from_cell & 63);
                let bit = 1u64 << cell;
                let is_square =
                    on_board & (squares & bit != 0) & (self.square_dirs >> d as u8 & 1 != 0);
                // Every owner entry is some piece's slot (stale for a
                // blank or a square), so the lookups stay in bounds.
                let slot = usize::from(state.owner[cell]);
                let cells = state.slot_cells[slot];
                let moved = match d {
                    Dir::Up => cells >> p.cols,
                    Dir::Down => cells << p.cols,
                    Dir::Left => cells >> 1,
                    Dir::Right => cells << 1,
                };
                let blocked = (occupied & !cells) | !p.floor;
                let entered = moved & !cells;
                let fits = on_board
                    & (pieces & bit != 0)
                    & (cells & p.edge[d as usize] == 0)
                    & (moved & blocked == 0)
                    & (p.slot_dirs[slot] >> d as u8 & 1 != 0)
                    & (entered.trailing_zeros() as usize == e);
                let m = 4 * j + d as usize;
                legal |= u32::from(is_square | fits) << m;
                square |= u32::from(is_square) << m;
            }
            j += 1;
        }
        let base = state.anchored_key;
        let free = state.free_at[self.squares];
        while legal != 0 {
            let m = legal.trailing_zeros() as usize;
            legal &= legal - 1;
            let (e, d) = (usize::from(at[m / 4]), Dir::ALL[m % 4]);
            let cell = usize::from(p.neighbour[e][d.opposite() as usize] & 63);
            if square >> m & 1 != 0 {
                let after = blanks ^ (1 << cell) ^ (1 << e);
                out.push(base.wrapping_add(self.weight.wrapping_mul(rank_among(after, free))));
                continue;
            }
            let slot = usize::from(state.owner[cell]);
            let (ci, i) = p.slots[slot];
            let (ci, i) = (usize::from(ci), usize::from(i));
            let class = &p.classes[ci];
            let from = state.pos[slot];
            let to = class.step[usize::from(from)][d as usize];
            let rank = if class.count() == 1 {
                u64::from(to)
            } else {
                let other = state.pos[class.offset + 1 - i];
                let (lo, hi) = (u64::from(other.min(to)), u64::from(other.max(to)));
                lo + hi * (hi - 1) / 2
            };
            let flip = class.masks[usize::from(from)] ^ class.masks[usize::from(to)];
            let squares_rank = rank_among(blanks ^ flip, free ^ flip);
            out.push(
                base.wrapping_add(
                    rank.wrapping_sub(state.ranks[ci])
                        .wrapping_mul(class.weight),
                )
                .wrapping_add(self.weight.wrapping_mul(squares_rank)),
            );
        }
    }
}
