//! Tile puzzles with one empty cell (`eight`, `eleven`, the 15-puzzle):
//! a decode and a move generator that know only the tiles and the blank.
//!
//! Such a puzzle is every class a single distinct tile, ranked among the
//! cells the tiles before it leave free, on a floor of at most 16 cells,
//! with one cell empty. A state is then a permutation, and a move is a
//! tile entering the blank from a neighbouring cell. Only one cell is
//! empty, so a tile can go no further than that cell: the step, slide and
//! piece metrics all give the same moves.
//!
//! The key of a move follows from three facts about the free-cell ranks
//! (cells numbered by floor index, in reading order). Say tile t goes from
//! floor index `n` to the blank at `b`, and c tiles ranked after t lie
//! strictly between the two:
//!
//! - t's rank counts the cells free at its turn below its cell: those are
//!   the blank, the tiles after it, and nothing else. Between `n` and `b`
//!   it passes the blank and those c tiles, so its rank moves by c + 1.
//! - A tile ranked after t that lies between them had the blank on one
//!   side and t (not free at its turn) on the other; after the move the
//!   blank has crossed it, so its rank moves by one, the same way as t's.
//! - A tile ranked before t counts both t's cell and the blank as free,
//!   before and after: its rank does not move.
//!
//! So the key moves by ±((c + 1)·w_t + Σ w_j) over those tiles j, with w
//! each tile's weight in the mixed radix, + when t goes up the floor
//! order. A state needs only the tile at each floor index (a nibble each)
//! and the blank's index; the generic decode also builds cell masks, the
//! owner table and every class's free cells, which this one skips.

use std::hint::select_unpredictable;

use super::{Dir, SlidingPuzzle, SlidingState, TileGroup, unrank_tiles};

/// Floor indices strictly between a tile's cell and the blank that a
/// move may pass, at most: a vertical move on a board up to 4 columns
/// wide (without walls). Every move looks at this many, padded.
const MAX_BETWEEN: usize = 3;

/// A tile's move into the blank at one floor index from one side.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// The floor index of the tile that would move (the blank's own when
    /// there is none that side).
    from: u8,
    /// The floor indices strictly between `from` and the blank, padded
    /// with `from` (whose tile is never ranked after itself).
    between: [u8; MAX_BETWEEN],
    /// Whether the tile goes to a higher floor index.
    up: bool,
    /// Whether a floor cell lies that side.
    exists: bool,
}

/// The tables of a tile puzzle with one empty cell.
#[derive(Clone, Debug)]
pub(crate) struct LoneBlank {
    /// For each floor index of the blank and each direction `d`, the tile
    /// that would enter it moving `d`.
    entries: Vec<[Entry; 4]>,
    /// Each tile's weight in the key (0 past the last tile).
    weight: [u64; 16],
    /// Each tile's allowed directions (bit `d`).
    dirs: [u8; 16],
}

impl LoneBlank {
    /// The tables for `puzzle`, if it is a tile puzzle with one empty cell
    /// whose moves pass at most `MAX_BETWEEN` cells.
    pub(crate) fn new(puzzle: &SlidingPuzzle) -> Option<LoneBlank> {
        let floor = puzzle.floor_cell.len();
        let tiles = puzzle.classes.len();
        if puzzle.tile_groups.is_empty() || puzzle.first_free != 0 || tiles + 1 != floor {
            return None;
        }
        let index_of = |cell: u8| puzzle.floor_cell.iter().position(|&c| c == cell);
        let mut entries = Vec::with_capacity(floor);
        for b in 0..floor {
            let cell = usize::from(puzzle.floor_cell[b]);
            let mut four = [Entry {
                from: b as u8,
                between: [b as u8; MAX_BETWEEN],
                up: false,
                exists: false,
            }; 4];
            for d in Dir::ALL {
                let from = puzzle.neighbour[cell][d.opposite() as usize];
                let Some(n) = (from != super::NO_CELL).then(|| index_of(from)).flatten() else {
                    continue;
                };
                let (lo, hi) = (n.min(b), n.max(b));
                if hi - lo - 1 > MAX_BETWEEN {
                    return None;
                }
                let mut between = [n as u8; MAX_BETWEEN];
                for (slot, i) in between.iter_mut().zip(lo + 1..hi) {
                    *slot = i as u8;
                }
                four[d as usize] = Entry {
                    from: n as u8,
                    between,
                    up: b > n,
                    exists: true,
                };
            }
            entries.push(four);
        }
        let mut weight = [0u64; 16];
        let mut dirs = [0u8; 16];
        for (t, class) in puzzle.classes.iter().enumerate() {
            weight[t] = class.weight;
            dirs[t] = puzzle.slot_dirs[class.offset];
        }
        Some(LoneBlank {
            entries,
            weight,
            dirs,
        })
    }

    /// Decodes `key` into `state`'s tile map, blank and positions (the
    /// rest of the state is left as it was: only [`LoneBlank::successors`]
    /// and the goal test read a state decoded here).
    ///
    /// The tiles come from [`unrank_tiles`], as in `decode_tiles`; the
    /// entry of the free list left at the end is the blank.
    #[inline(always)]
    pub(crate) fn decode(groups: &[TileGroup], key: u64, state: &mut SlidingState) {
        state.key = key;
        let mut at = 0u64;
        let pos = &mut state.pos[..];
        let list = unrank_tiles(groups, key, 0xfedc_ba98_7654_3210, |t, _, index| {
            at |= (t as u64) << (4 * index);
            pos[t] = index as u16;
        });
        state.tile_at = at;
        state.blank = (list & 15) as u8;
    }

    /// Pushes the keys of every move of the state (decoded by
    /// [`LoneBlank::decode`]), without a branch on the data: each of the
    /// four sides is computed and kept or not by advancing a count.
    #[inline(always)]
    pub(crate) fn successors(&self, state: &SlidingState, out: &mut Vec<u64>) {
        let (key, at) = (state.key, state.tile_at);
        let tile = |i: u8| (at >> (4 * u32::from(i))) as usize & 15;
        let entries = &self.entries[usize::from(state.blank)];
        let mut keys = [0u64; 4];
        let mut n = 0;
        for (d, e) in entries.iter().enumerate() {
            let t = tile(e.from);
            let mut passed = 1u64;
            let mut sum = 0u64;
            for &i in &e.between {
                let j = tile(i);
                // Whether a tile is ranked after the mover is the data
                // itself: a branch on it would be a coin toss.
                passed += u64::from(j > t);
                sum += select_unpredictable(j > t, self.weight[j], 0);
            }
            let delta = passed * self.weight[t] + sum;
            keys[n] = key.wrapping_add(select_unpredictable(e.up, delta, delta.wrapping_neg()));
            n += usize::from(e.exists & (self.dirs[t] >> d & 1 != 0));
        }
        // All four go in and the count cuts them back: a copy of a fixed
        // length, not a call to copy a varying one.
        let len = out.len();
        out.extend_from_slice(&keys);
        out.truncate(len + n);
    }
}
