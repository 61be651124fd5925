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
//! A piece other than a square moves exactly when the cells it would
//! enter are all blanks: a table gives those cells for each anchor and
//! direction (all cells where the board, a wall or the piece's rule
//! forbids the move), so a move is one load and one test, without an owner
//! table to look up (or to write at every decode: a tenth of pe766's
//! time). The generic decode places every square and builds the tables a
//! move of any class in any metric needs; this one leaves the squares as
//! a mask.

use super::{Dir, Metric, SlidingPuzzle, SlidingState, deposit};
use crate::puzzles::combinadic;

/// At most this many piece slots (squares aside) and blanks together: a
/// move is bit 4·slot + d of a `u128`, or 4·(slots + j) + d for a square
/// entering the j-th blank.
const MAX_SLOTS_AND_BLANKS: usize = 32;

/// The tables of a puzzle with a few blanks among its squares.
#[derive(Clone, Debug)]
pub(crate) struct FewBlanks {
    /// The squares' class: the last. The classes before it have
    /// `slots` pieces in all.
    squares: usize,
    slots: usize,
    /// The squares' weight in the key.
    weight: u64,
    /// For every slot, where its class's anchors start in `enter`.
    first: Vec<usize>,
    /// For every anchor of every class (squares aside) and direction, the
    /// cells its piece would enter; all cells where it cannot go that way.
    enter: Vec<[u64; 4]>,
    /// For every floor cell and direction, the cell a square would come
    /// from to enter it moving that way (the cell itself where there is
    /// none, or the squares may not move that way: never a square).
    from: Vec<[u8; 4]>,
}

impl FewBlanks {
    /// The tables for `puzzle`, if its free-ranked pieces are one class of
    /// squares ranked by the blanks they leave, its other classes have at
    /// most two pieces each (at most `MAX_SLOTS_AND_BLANKS` with the
    /// blanks), and its goal (if any) names none of the squares.
    pub(crate) fn new(puzzle: &SlidingPuzzle) -> Option<FewBlanks> {
        let squares = puzzle.classes.len().checked_sub(1)?;
        let class = &puzzle.classes[squares];
        let blanks = class.ranked_over - class.count();
        let slots = class.offset;
        let fits = puzzle.lone.is_none()
            && puzzle.tile_groups.is_empty()
            && puzzle.first_free == squares
            && class.by_complement
            && class.shape.len() == 1
            && blanks >= 1
            && slots + blanks <= MAX_SLOTS_AND_BLANKS
            && puzzle.classes[..squares].iter().all(|c| c.count() <= 2)
            && puzzle.goal.iter().all(|&(ci, _)| ci < squares);
        if !fits {
            return None;
        }
        let mut starts = Vec::new();
        let mut enter = Vec::new();
        for c in &puzzle.classes[..squares] {
            starts.push(enter.len());
            for (a, steps) in c.step.iter().enumerate() {
                enter.push(Dir::ALL.map(|d| {
                    let to = steps[d as usize];
                    if to == super::NONE || !c.mobility.allows(d) {
                        u64::MAX
                    } else {
                        c.masks[usize::from(to)] & !c.masks[a]
                    }
                }));
            }
        }
        let first = puzzle.slots[..slots]
            .iter()
            .map(|&(ci, _)| starts[usize::from(ci)])
            .collect();
        let square_dirs = puzzle.slot_dirs[class.offset];
        let from = (0..64)
            .map(|e| {
                Dir::ALL.map(|d| {
                    let n = puzzle
                        .neighbour
                        .get(e)
                        .map_or(super::NO_CELL, |n| n[d.opposite() as usize]);
                    if n == super::NO_CELL || square_dirs >> d as u8 & 1 == 0 {
                        e as u8
                    } else {
                        n
                    }
                })
            })
            .collect();
        Some(FewBlanks {
            squares,
            slots,
            weight: class.weight,
            first,
            enter,
            from,
        })
    }

    /// Whether `puzzle` (whose tables these are) moves this way now: under
    /// the step metric (a slide may pass several blanks).
    #[inline(always)]
    pub(crate) fn serves(puzzle: &SlidingPuzzle) -> bool {
        puzzle.metric == Metric::Step
    }

    /// Decodes `key` into `state`: every other class's ranks and anchors,
    /// and the squares as their rank, their cells and their free cells.
    /// Only [`FewBlanks::successors`] and the goal test (which names no
    /// square) read a state decoded here.
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
                state.pos[offset] = rank as u16;
                occupied |= class.masks[rank as usize];
            } else {
                let set = &mut state.pos[offset..offset + 2];
                match &class.subsets {
                    Some(table) => {
                        let bits = table[rank as usize];
                        set[0] = bits.trailing_zeros() as u16;
                        set[1] = (bits & (bits - 1)).trailing_zeros() as u16;
                    }
                    None => combinadic::unrank(rank, class.ranked_over, set),
                }
                occupied |= class.masks[usize::from(set[0])] | class.masks[usize::from(set[1])];
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
    /// Which moves are legal is found without a branch on the data: for
    /// every piece and direction whether the cells it would enter are all
    /// blanks, for every blank and side whether a square lies there.
    #[inline(always)]
    pub(crate) fn successors(&self, p: &SlidingPuzzle, state: &SlidingState, out: &mut Vec<u64>) {
        let blanks = p.floor & !state.occupied;
        let squares = state.cells[self.squares];
        // Bit 4·slot + d of the u64 words: one nibble a slot, its four
        // directions tested with shifts by constants.
        let mut legal = [0u64; MAX_SLOTS_AND_BLANKS / 16];
        let fits = |cells: u64, d: u32| u64::from(cells & !blanks == 0) << d;
        for (slot, &first) in self.first.iter().enumerate() {
            let [up, down, left, right] = self.enter[first + usize::from(state.pos[slot])];
            let nibble = fits(up, 0) | fits(down, 1) | fits(left, 2) | fits(right, 3);
            legal[slot / 16] |= nibble << (4 * (slot % 16));
        }
        let mut at = [0u8; MAX_SLOTS_AND_BLANKS];
        let mut rest = blanks;
        let mut j = self.slots;
        while rest != 0 && j < MAX_SLOTS_AND_BLANKS {
            let e = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            at[j] = e as u8;
            let [up, down, left, right] = self.from[e].map(|n| squares >> n & 1);
            let nibble = up | down << 1 | left << 2 | right << 3;
            legal[j / 16] |= nibble << (4 * (j % 16));
            j += 1;
        }
        let free = state.free_at[self.squares];
        for (w, mut word) in legal.into_iter().enumerate() {
            while word != 0 {
                let m = 64 * w + word.trailing_zeros() as usize;
                word &= word - 1;
                self.push(p, state, m, &at, blanks, free, out);
            }
        }
    }

    /// Pushes the key of move `m` (bit 4·slot + d, as in `successors`).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn push(
        &self,
        p: &SlidingPuzzle,
        state: &SlidingState,
        m: usize,
        at: &[u8; MAX_SLOTS_AND_BLANKS],
        blanks: u64,
        free: u64,
        out: &mut Vec<u64>,
    ) {
        let base = state.anchored_key;
        let (slot, d) = (m / 4, m % 4);
        if slot >= self.slots {
            let e = usize::from(at[slot]);
            let n = self.from[e][d];
            let after = blanks ^ (1 << n) ^ (1 << e);
            out.push(base.wrapping_add(self.weight.wrapping_mul(blank_rank(after, free))));
            return;
        }
        let (ci, i) = p.slots[slot];
        let (ci, i) = (usize::from(ci), usize::from(i));
        let class = &p.classes[ci];
        let from = state.pos[slot];
        let to = class.step[usize::from(from)][d];
        let rank = if class.count() == 1 {
            u64::from(to)
        } else {
            let other = state.pos[class.offset + 1 - i];
            let (lo, hi) = (u64::from(other.min(to)), u64::from(other.max(to)));
            lo + hi * (hi - 1) / 2
        };
        let flip = class.masks[usize::from(from)] ^ class.masks[usize::from(to)];
        out.push(
            base.wrapping_add(
                rank.wrapping_sub(state.ranks[ci])
                    .wrapping_mul(class.weight),
            )
            .wrapping_add(
                self.weight
                    .wrapping_mul(blank_rank(blanks ^ flip, free ^ flip)),
            ),
        );
    }
}

/// The rank of the blanks `set` among the cells `here` (which hold them):
/// `rank_among` with the first two terms computed (C(n, 1) = n, C(n, 2) =
/// n(n-1)/2) rather than looked up, which is all of pe766's.
#[inline(always)]
fn blank_rank(set: u64, here: u64) -> u64 {
    let mut rest = set;
    let low =
        |rest: u64| u64::from((here & ((rest & rest.wrapping_neg()).wrapping_sub(1))).count_ones());
    let n = low(rest);
    let mut rank = n;
    rest &= rest.wrapping_sub(1);
    if rest != 0 {
        let n = low(rest);
        rank += n * n.saturating_sub(1) / 2;
        rest &= rest - 1;
        let mut i = 3;
        while rest != 0 {
            rank += combinadic::binomial(low(rest) as usize, i);
            i += 1;
            rest &= rest - 1;
        }
    }
    rank
}
