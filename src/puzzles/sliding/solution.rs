//! Turning a path of keys into moves of labelled pieces.
//!
//! Keys forget which of two interchangeable pieces is which; a solution
//! should not. Starting from the labelled start board, each step between two
//! keys changes exactly one class's anchor set by one anchor: the piece at
//! the anchor that left is the one that moved, and it keeps its label.

use std::collections::VecDeque;

use super::{Dir, SlidingPuzzle};
use crate::engine::Model;

/// One move of a solution: a piece and the unit steps it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    /// The piece's label on the start board.
    pub piece: char,
    /// Its path, one cell a step.
    pub path: Vec<Dir>,
}

/// The move as `solve` prints it: the piece's label, then its path
/// (`J left`, `B down right`).
impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.piece)?;
        for d in &self.path {
            write!(f, " {}", d.name())?;
        }
        Ok(())
    }
}

/// A move and the board after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The move.
    pub mv: Move,
    /// The board after the move, every piece with its start label.
    pub board: String,
}

impl SlidingPuzzle {
    /// The moves along `path`, a sequence of keys in which each is a
    /// successor of the one before (as [`crate::engine::Search::solve`] gives).
    /// Its keys are one word, or for a puzzle past 2^64 wide keys of
    /// [`super::WideSliding`].
    pub fn steps<K: crate::engine::Key>(&self, path: &[K]) -> Vec<Step> {
        let len = path.len();
        let decode = |i: usize, state: &mut super::SlidingState| self.decode_any(path[i], state);
        let mut a = self.new_state();
        let mut b = self.new_state();
        // (label, class, anchor index) of every piece.
        let mut pieces: Vec<(char, usize, u16)> = Vec::with_capacity(self.pieces);
        if len > 0 {
            decode(0, &mut a);
            for (ci, class) in self.classes.iter().enumerate() {
                for (i, &label) in class.labels.iter().enumerate() {
                    pieces.push((label, ci, a.pos[class.offset + i]));
                }
            }
        }
        let mut steps = Vec::with_capacity(len.saturating_sub(1));
        for i in 1..len {
            decode(i - 1, &mut a);
            decode(i, &mut b);
            // The moved piece's class is the one whose cells changed (a
            // move re-ranks the single-cell classes too, so ranks would not
            // tell).
            let ci = (0..self.classes.len())
                .find(|&ci| a.cells[ci] != b.cells[ci])
                .expect("consecutive keys of a path differ");
            let class = &self.classes[ci];
            let range = class.offset..class.offset + class.count();
            let (old, new) = (&a.pos[range.clone()], &b.pos[range]);
            let from = *old
                .iter()
                .find(|x| !new.contains(x))
                .expect("one anchor left");
            let to = *new
                .iter()
                .find(|x| !old.contains(x))
                .expect("one anchor arrived");
            let piece = pieces
                .iter_mut()
                .find(|p| p.1 == ci && p.2 == from)
                .expect("a labelled piece sits at the anchor that left");
            piece.2 = to;
            let label = piece.0;
            let others = a.occupied & !class.masks[from as usize];
            let path = self.unit_path(ci, from, to, others);
            let placed: Vec<(char, u64)> = pieces
                .iter()
                .map(|&(l, c, at)| (l, self.classes[c].masks[at as usize]))
                .collect();
            steps.push(Step {
                mv: Move { piece: label, path },
                board: self.render_masks(&placed),
            });
        }
        steps
    }

    /// A shortest path of unit steps for a piece of class `ci` from anchor
    /// `from` to `to` with the cells `others` occupied.
    fn unit_path(&self, ci: usize, from: u16, to: u16, others: u64) -> Vec<Dir> {
        let class = &self.classes[ci];
        let mut came: Vec<Option<(u16, Dir)>> = vec![None; class.anchors.len()];
        let mut queue = VecDeque::from([from]);
        let mut seen = 1u64 << from;
        while let Some(at) = queue.pop_front() {
            if at == to {
                break;
            }
            for d in Dir::ALL {
                if let Some(next) = class.step_to(at, d, others)
                    && seen & (1 << next) == 0
                {
                    seen |= 1 << next;
                    came[next as usize] = Some((at, d));
                    queue.push_back(next);
                }
            }
        }
        let mut path = Vec::new();
        let mut at = to;
        while at != from {
            let (prev, d) = came[at as usize].expect("the move's target is reachable");
            path.push(d);
            at = prev;
        }
        path.reverse();
        path
    }
}
