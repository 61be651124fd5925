//! A puzzle file that is a tile puzzle (a full rectangle of at most 16
//! cells, no walls, every piece one distinct tile free to move every way,
//! one cell empty) takes the tile model's keys and moves
//! ([`Tiles`](crate::puzzles::tiles::Tiles)): keys `rank * cells + blank`
//! over the `n!/2` positions of the start's parity, which the dense store
//! settles a word at a time. `eleven` from its file is then the same search
//! as `tiles-3x4`, from any start and with a goal.
//!
//! The tiles are numbered in the order the start has them (reading order,
//! the blank skipped), so the start is rank 0 with its blank in its cell.
//! The generic keys (each class's rank) stay the puzzle's way to draw a
//! board and to name a move: a key converts to them by its board.

use super::{Mobility, SlidingPuzzle};
use crate::engine::Model;
use crate::puzzles::tiles::{TileState, Tiles};

/// The tile model behind a sliding puzzle that is a tile puzzle.
#[derive(Clone, Debug)]
pub(crate) struct Tiled {
    pub(crate) tiles: Tiles,
    /// The class of each tile.
    class_of: Vec<usize>,
    /// The tile of each class.
    tile_of: Vec<u8>,
    /// The goal as (cell, tile) pairs: each cell must hold its tile.
    goal: Vec<(u8, u8)>,
}

impl Tiled {
    /// The tile model of `puzzle` starting at `start` (anchor indices, as
    /// `encode` takes them), if `puzzle` is a tile puzzle.
    pub(crate) fn new(puzzle: &SlidingPuzzle, start: &[u16]) -> Option<Tiled> {
        let (rows, cols) = (puzzle.rows, puzzle.cols);
        let n = rows * cols;
        let full = n < 64 && puzzle.walls == 0 && puzzle.floor == (1u64 << n) - 1;
        let tiles_only = puzzle.classes.iter().all(|c| {
            c.count() == 1 && c.shape.len() == 1 && c.mobility == Mobility::Free && c.free_ranked
        });
        if !full || !tiles_only || puzzle.classes.len() + 1 != n {
            return None;
        }
        // Each class's cell at the start; the blank is the cell none holds.
        let cell_of = |ci: usize, at: u16| {
            let class = &puzzle.classes[ci];
            class.masks[usize::from(at)].trailing_zeros() as usize
        };
        let mut board = vec![None; n];
        for (ci, class) in puzzle.classes.iter().enumerate() {
            board[cell_of(ci, start[class.offset])] = Some(ci);
        }
        let blank = board.iter().position(Option::is_none)?;
        let tiles = Tiles::with_blank(rows, cols, blank).ok()?;
        let class_of: Vec<usize> = board.iter().flatten().copied().collect();
        let mut tile_of = vec![0u8; class_of.len()];
        for (t, &ci) in class_of.iter().enumerate() {
            tile_of[ci] = t as u8;
        }
        let goal = puzzle
            .goal
            .iter()
            .map(|&(ci, a)| (cell_of(ci, a) as u8, tile_of[ci]))
            .collect();
        Some(Tiled {
            tiles,
            class_of,
            tile_of,
            goal,
        })
    }

    /// Whether the decoded `state` meets the goal (a goal is given).
    #[inline]
    pub(crate) fn is_goal(&self, state: &TileState) -> bool {
        self.goal
            .iter()
            .all(|&(cell, tile)| self.tiles.tile_at(state, usize::from(cell)) == Some(tile))
    }

    /// The goal's positions when it places every tile: one, or none when
    /// that board is of the other parity.
    pub(crate) fn goal_keys(&self) -> Option<Vec<u64>> {
        if self.goal.len() + 1 != self.tiles.cells() {
            return None;
        }
        let mut board = vec![None; self.tiles.cells()];
        for &(cell, tile) in &self.goal {
            board[usize::from(cell)] = Some(tile);
        }
        Some(self.tiles.key_of_board(&board).into_iter().collect())
    }

    /// The generic key (each class's rank, see [`SlidingPuzzle::encode_generic`])
    /// of tile key `key`.
    pub(crate) fn generic_key(&self, puzzle: &SlidingPuzzle, key: u64) -> u64 {
        let mut pos = vec![0u16; self.class_of.len()];
        for (cell, tile) in self.tiles.board(key).into_iter().enumerate() {
            if let Some(t) = tile {
                let ci = self.class_of[usize::from(t)];
                let class = &puzzle.classes[ci];
                pos[class.offset] = anchor_of(puzzle, ci, cell);
            }
        }
        puzzle.encode_generic(&pos)
    }

    /// The tile key of the pieces at anchor indices `pos`.
    pub(crate) fn key_of(&self, puzzle: &SlidingPuzzle, pos: &[u16]) -> Option<u64> {
        let mut board = vec![None; self.tiles.cells()];
        for (ci, class) in puzzle.classes.iter().enumerate() {
            let cell = class.masks[usize::from(pos[class.offset])].trailing_zeros() as usize;
            board[cell] = Some(self.tile_of[ci]);
        }
        self.tiles.key_of_board(&board)
    }
}

/// The anchor index of class `ci` (a tile) at `cell`.
fn anchor_of(puzzle: &SlidingPuzzle, ci: usize, cell: usize) -> u16 {
    let class = &puzzle.classes[ci];
    class
        .masks
        .iter()
        .position(|&m| m == 1 << cell)
        .expect("a tile may stand on every cell of a board without walls") as u16
}

impl SlidingPuzzle {
    /// The tile model, when this puzzle is a tile puzzle.
    pub(crate) fn tiled(&self) -> Option<&Tiled> {
        self.tiled.as_deref()
    }
}

/// The tile model's decoded state inside a sliding state.
pub(crate) fn fresh_state(tiled: Option<&Tiled>) -> TileState {
    match tiled {
        Some(t) => t.tiles.new_state(),
        None => TileState::default(),
    }
}
