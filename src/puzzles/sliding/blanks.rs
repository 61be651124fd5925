//! Sliding-block puzzles with a few empty cells among interchangeable
//! squares (pe766: two empty cells, six squares), under the step metric:
//! a decode that leaves the squares as a mask, and a move generator that
//! tests each piece with one table and each blank's sides for a square.
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
//! enter are all blanks: a table gives, for each anchor and direction,
//! those cells (all cells where the board, a wall or the piece's rule
//! forbids the move), the cells the move toggles and the anchor it
//! reaches. A move is then one load and one test, without an owner table
//! to look up (or to write at every decode: a tenth of pe766's time), and
//! its key is computed without a branch on what moved. The generic decode
//! places every square and builds the tables a move of any class in any
//! metric needs; this one leaves the squares as a mask.

use std::hint::select_unpredictable;

use super::{Dir, Metric, SlidingPuzzle, SlidingState, deposit, rank_among};
use crate::puzzles::combinadic;

/// The most piece slots (squares aside): a piece's move is bit 4·slot + d
/// of two `u64` words.
const MAX_SLOTS: usize = 32;

/// The most blanks: a square's move into the j-th blank is bit 4·j + d of
/// one `u64`.
const MAX_BLANKS: usize = 16;

/// A piece's step from one anchor in one direction.
#[derive(Clone, Copy, Debug)]
struct Step {
    /// The cells it enters (all cells where it cannot go).
    enter: u64,
    /// The cells it leaves and enters.
    flip: u64,
    /// The anchor it reaches (its own where it cannot go).
    to: u16,
}

/// What a move of the piece in one slot changes in the key.
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// Where its class's anchors start in `steps`.
    first: usize,
    /// Its class.
    class: usize,
    /// The other piece of its class, or itself when it is alone.
    twin: usize,
    /// Whether its class has two pieces.
    pair: bool,
    /// Its class's weight in the key.
    weight: u64,
}

/// The tables of a puzzle with a few blanks among its squares.
#[derive(Clone, Debug)]
pub(crate) struct FewBlanks {
    /// The squares' class: the last.
    squares: usize,
    /// The squares' weight in the key.
    weight: u64,
    /// Every piece slot but the squares'.
    slots: Vec<Slot>,
    /// For every anchor of every class (squares aside), its four steps.
    steps: Vec<[Step; 4]>,
    /// For every cell and direction, the cell a square would come from to
    /// enter it moving that way (the cell itself where there is none, or
    /// where the squares may not move that way: never a square).
    from: Vec<[u8; 4]>,
}

impl FewBlanks {
    /// The tables for `puzzle`, if its free-ranked pieces are one class of
    /// squares ranked by the blanks they leave (at most `MAX_BLANKS`), its
    /// other classes have at most two pieces each (at most `MAX_SLOTS` in
    /// all), and its goal (if any) names none of the squares.
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
            && class.offset <= MAX_SLOTS
            && puzzle.classes[..squares].iter().all(|c| c.count() <= 2)
            && puzzle.goal.iter().all(|&(ci, _)| ci < squares);
        if !fits {
            return None;
        }
        let mut starts = Vec::new();
        let mut steps = Vec::new();
        for c in &puzzle.classes[..squares] {
            starts.push(steps.len());
            for (a, next) in c.step.iter().enumerate() {
                steps.push(Dir::ALL.map(|d| {
                    let to = next[d as usize];
                    if to == super::NONE || !c.mobility.allows(d) {
                        Step {
                            enter: u64::MAX,
                            flip: 0,
                            to: a as u16,
                        }
                    } else {
                        let (here, there) = (c.masks[a], c.masks[usize::from(to)]);
                        Step {
                            enter: there & !here,
                            flip: there ^ here,
                            to,
                        }
                    }
                }));
            }
        }
        let slots = puzzle.slots[..class.offset]
            .iter()
            .enumerate()
            .map(|(slot, &(ci, i))| {
                let c = &puzzle.classes[usize::from(ci)];
                let pair = c.count() == 2;
                Slot {
                    first: starts[usize::from(ci)],
                    class: usize::from(ci),
                    twin: if pair {
                        c.offset + 1 - usize::from(i)
                    } else {
                        slot
                    },
                    pair,
                    weight: c.weight,
                }
            })
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
            weight: class.weight,
            slots,
            steps,
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
    /// blanks, for every blank and side whether a square lies there (a
    /// nibble a slot or blank, its four directions tested with shifts by
    /// constants). The pieces' moves and the squares' are then taken in
    /// two loops, neither with a branch on what moves.
    #[inline(always)]
    pub(crate) fn successors(&self, p: &SlidingPuzzle, state: &SlidingState, out: &mut Vec<u64>) {
        let blanks = p.floor & !state.occupied;
        let squares = state.cells[self.squares];
        let free = state.free_at[self.squares];
        let base = state.anchored_key;
        let fits = |step: &Step, d: u32| u64::from(step.enter & !blanks == 0) << d;
        let mut pieces = [0u64; MAX_SLOTS / 16];
        for (slot, info) in self.slots.iter().enumerate() {
            let [up, down, left, right] = &self.steps[info.first + usize::from(state.pos[slot])];
            let nibble = fits(up, 0) | fits(down, 1) | fits(left, 2) | fits(right, 3);
            pieces[slot / 16] |= nibble << (4 * (slot % 16));
        }
        let mut at = [0u8; MAX_BLANKS];
        let mut moves = 0u64;
        let mut rest = blanks;
        let mut j = 0;
        while rest != 0 && j < MAX_BLANKS {
            let e = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            at[j] = e as u8;
            let [up, down, left, right] = self.from[e].map(|n| squares >> n & 1);
            moves |= (up | down << 1 | left << 2 | right << 3) << (4 * j);
            j += 1;
        }
        for (w, mut word) in pieces.into_iter().enumerate() {
            while word != 0 {
                let m = 64 * w + word.trailing_zeros() as usize;
                word &= word - 1;
                let (slot, d) = (m / 4, m % 4);
                let info = &self.slots[slot];
                let step = &self.steps[info.first + usize::from(state.pos[slot])][d];
                // A pair's rank is lo + C(hi, 2) of its two anchors (hi > 0);
                // a single piece's, its anchor.
                let to = u64::from(step.to);
                let other = u64::from(state.pos[info.twin]);
                let (lo, hi) = (other.min(to), other.max(to));
                let rank = select_unpredictable(info.pair, lo + hi * hi.saturating_sub(1) / 2, to);
                let change = rank
                    .wrapping_sub(state.ranks[info.class])
                    .wrapping_mul(info.weight);
                let blanks_after = rank_among(blanks ^ step.flip, free ^ step.flip);
                out.push(
                    base.wrapping_add(change)
                        .wrapping_add(self.weight.wrapping_mul(blanks_after)),
                );
            }
        }
        while moves != 0 {
            let m = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            let e = usize::from(at[m / 4]);
            let n = self.from[e][m % 4];
            let after = blanks ^ (1 << n) ^ (1 << e);
            out.push(base.wrapping_add(self.weight.wrapping_mul(rank_among(after, free))));
        }
    }
}
