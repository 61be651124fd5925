//! Sliding-block puzzles: polyomino pieces on a board of at most 64 cells.
//!
//! Pieces of the same class (same shape, colour and movement rule, unless
//! marked distinct) are interchangeable. A state's canonical form is, for
//! each class, the sorted set of its pieces' anchor positions (the anchor
//! being the piece's first cell in reading order), and its key is the
//! combinadic rank of each class's set over that class's admissible anchors,
//! composed in mixed radix across classes: a perfect, collision-free rank.

mod parse;
mod solution;

use std::fmt::Write as _;

use crate::engine::Model;
use crate::puzzles::combinadic;

pub use parse::PuzzleError;
pub use solution::{Move, Step};

/// The four unit moves, in the order the engine tries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// One row up.
    Up,
    /// One row down.
    Down,
    /// One column left.
    Left,
    /// One column right.
    Right,
}

impl Dir {
    /// All four, in the engine's order.
    pub const ALL: [Dir; 4] = [Dir::Up, Dir::Down, Dir::Left, Dir::Right];

    /// The word used in solutions.
    pub fn name(self) -> &'static str {
        match self {
            Dir::Up => "up",
            Dir::Down => "down",
            Dir::Left => "left",
            Dir::Right => "right",
        }
    }

    fn opposite(self) -> Dir {
        match self {
            Dir::Up => Dir::Down,
            Dir::Down => Dir::Up,
            Dir::Left => Dir::Right,
            Dir::Right => Dir::Left,
        }
    }

    fn delta(self) -> (i32, i32) {
        match self {
            Dir::Up => (-1, 0),
            Dir::Down => (1, 0),
            Dir::Left => (0, -1),
            Dir::Right => (0, 1),
        }
    }
}

/// What counts as one move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Metric {
    /// One piece moves one cell.
    #[default]
    Step,
    /// One piece moves any number of cells in one straight line.
    Slide,
    /// One piece moves any number of cells along any path.
    Piece,
}

impl Metric {
    /// The metric's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Step => "step",
            Metric::Slide => "slide",
            Metric::Piece => "piece",
        }
    }

    /// Parses a metric name.
    pub fn from_name(name: &str) -> Option<Metric> {
        match name {
            "step" => Some(Metric::Step),
            "slide" => Some(Metric::Slide),
            "piece" => Some(Metric::Piece),
            _ => None,
        }
    }
}

/// Which ways a piece may move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mobility {
    /// Any of the four directions.
    Free,
    /// Left and right only.
    Horizontal,
    /// Up and down only.
    Vertical,
}

impl Mobility {
    fn allows(self, d: Dir) -> bool {
        match self {
            Mobility::Free => true,
            Mobility::Horizontal => matches!(d, Dir::Left | Dir::Right),
            Mobility::Vertical => matches!(d, Dir::Up | Dir::Down),
        }
    }
}

const NONE: u16 = u16::MAX;

/// A class of interchangeable pieces.
#[derive(Clone, Debug)]
pub struct Class {
    /// The labels of its pieces on the start board, in reading order.
    pub labels: Vec<char>,
    /// Cells of the shape as (row, column) offsets from the anchor cell.
    pub shape: Vec<(i32, i32)>,
    /// The colour named in the puzzle file, if any.
    pub colour: Option<String>,
    /// Which ways its pieces move.
    pub mobility: Mobility,
    /// Whether it was made a class of its own by `distinct`.
    pub distinct: bool,
    /// Board cell of each admissible anchor (in the board's reading order).
    anchors: Vec<u8>,
    /// The piece's cells with its anchor at each admissible anchor.
    masks: Vec<u64>,
    /// The admissible anchor one cell away in each direction, or NONE.
    step: Vec<[u16; 4]>,
    /// C(admissible anchors, pieces): the class's radix in the key.
    radix: u64,
    divisor: combinadic::Divisor,
    /// For classes of several pieces with a small radix, each rank's anchor
    /// set as a bitmask (decoding is then one load instead of a search).
    subsets: Option<Vec<u64>>,
    /// The product of the radices of the classes before this one.
    weight: u64,
    /// Where this class's pieces start in a state's position array.
    offset: usize,
}

impl Class {
    /// The number of pieces in the class.
    pub fn count(&self) -> usize {
        self.labels.len()
    }

    /// The number of admissible anchor positions.
    pub fn positions(&self) -> usize {
        self.anchors.len()
    }

    /// C(positions, count): the number of ways to place the class.
    pub fn radix(&self) -> u64 {
        self.radix
    }

    /// The anchor a piece at anchor `at` reaches by one step in direction
    /// `d`, if its rules allow the move and the cells it enters are not in
    /// `others` (the cells of the other pieces).
    #[inline]
    fn step_to(&self, at: u16, d: Dir, others: u64) -> Option<u16> {
        let to = self.step[at as usize][d as usize];
        (to != NONE && self.mobility.allows(d) && self.masks[to as usize] & others == 0)
            .then_some(to)
    }
}

/// A sliding-block puzzle, ready to enumerate.
#[derive(Clone, Debug)]
pub struct SlidingPuzzle {
    name: String,
    rows: usize,
    cols: usize,
    walls: u64,
    classes: Vec<Class>,
    metric: Metric,
    start: u64,
    /// Each goal piece as (class, admissible anchor index).
    goal: Vec<(usize, u16)>,
    key_space: u64,
    pieces: usize,
    /// Class and index within the class of every piece slot.
    slots: Vec<(u8, u8)>,
    /// Cells that are on the board and not walls.
    floor: u64,
    /// Each cell's neighbour in each direction, or `NO_CELL`.
    neighbour: Vec<[u8; 4]>,
}

const NO_CELL: u8 = u8::MAX;

/// A decoded state plus the scratch its expansion needs.
#[derive(Clone, Debug)]
pub struct SlidingState {
    /// Anchor index of every piece, sorted within each class.
    pos: Vec<u16>,
    /// Each class's combinadic rank.
    ranks: Vec<u64>,
    key: u64,
    /// Occupied cells.
    occupied: u64,
    /// The piece slot covering each cell, or `NO_CELL`.
    owner: [u8; 64],
    stack: Vec<u16>,
}

impl SlidingPuzzle {
    /// The puzzle's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Board rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Board columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The classes of interchangeable pieces, in key order.
    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    /// The move metric in use.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The same puzzle counted in another metric.
    pub fn with_metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self
    }

    /// Whether the puzzle file gave a goal.
    pub fn goal_given(&self) -> bool {
        !self.goal.is_empty()
    }

    /// The board with each piece's label, `.` for empty and `#` for walls.
    /// Interchangeable pieces take their class's labels in reading order.
    pub fn render(&self, key: u64) -> String {
        let mut state = self.new_state();
        self.decode(key, &mut state);
        let mut placed = Vec::with_capacity(self.pieces);
        for class in &self.classes {
            for (i, &label) in class.labels.iter().enumerate() {
                placed.push((label, class.masks[state.pos[class.offset + i] as usize]));
            }
        }
        self.render_masks(&placed)
    }

    fn render_masks(&self, placed: &[(char, u64)]) -> String {
        let mut out = String::with_capacity(self.rows * (self.cols + 1));
        for r in 0..self.rows {
            for c in 0..self.cols {
                let bit = 1u64 << (r * self.cols + c);
                let ch = if self.walls & bit != 0 {
                    '#'
                } else {
                    placed
                        .iter()
                        .find(|(_, m)| m & bit != 0)
                        .map_or('.', |&(l, _)| l)
                };
                out.push(ch);
            }
            out.push('\n');
        }
        out
    }

    /// A description of the puzzle as the engine sees it.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "puzzle: {}", self.name);
        let _ = writeln!(s, "board: {} rows x {} columns", self.rows, self.cols);
        s.push_str(&self.render(self.start));
        let _ = writeln!(s, "classes of interchangeable pieces (in key order):");
        for (i, c) in self.classes.iter().enumerate() {
            let labels: String = c.labels.iter().collect();
            let mut traits = Vec::new();
            if let Some(col) = &c.colour {
                traits.push(format!("colour {col}"));
            }
            match c.mobility {
                Mobility::Free => {}
                Mobility::Horizontal => traits.push("horizontal".into()),
                Mobility::Vertical => traits.push("vertical".into()),
            }
            if c.distinct {
                traits.push("distinct".into());
            }
            let traits = if traits.is_empty() {
                String::new()
            } else {
                format!(", {}", traits.join(", "))
            };
            let _ = writeln!(
                s,
                "  {:>2}. {labels:<8} {} cell(s){traits}; {} piece(s) over {} positions: C({}, {}) = {}",
                i + 1,
                c.shape.len(),
                c.count(),
                c.positions(),
                c.positions(),
                c.count(),
                c.radix
            );
        }
        let _ = writeln!(s, "key space: {} (< 2^64)", self.key_space);
        let _ = writeln!(s, "metric: {}", self.metric.name());
        if self.goal.is_empty() {
            let _ = writeln!(s, "goal: none");
        } else {
            let mut placed = Vec::new();
            for &(ci, a) in &self.goal {
                placed.push((
                    self.classes[ci].labels[0],
                    self.classes[ci].masks[a as usize],
                ));
            }
            let _ = writeln!(s, "goal:");
            s.push_str(&self.render_masks(&placed));
        }
        s
    }

    /// The key of the state with the `i`-th piece of class `ci` moved to
    /// anchor `to`, everything else unchanged: only that class's rank
    /// changes.
    #[inline]
    fn key_with(&self, state: &SlidingState, ci: usize, i: usize, to: u16) -> u64 {
        let class = &self.classes[ci];
        let new_rank = if class.count() == 1 {
            u64::from(to)
        } else {
            // Moving element i from `from` to `to` changes the terms of the
            // elements it passes, which shift one place in the sorted set,
            // and its own: a unit move passes few elements.
            let set = &state.pos[class.offset..class.offset + class.count()];
            let from = set[i];
            let mut rank = state.ranks[ci] - combinadic::binomial(from as usize, i + 1);
            let mut j = i;
            if to > from {
                while j + 1 < set.len() && set[j + 1] < to {
                    let x = set[j + 1] as usize;
                    rank = rank - combinadic::binomial(x, j + 2) + combinadic::binomial(x, j + 1);
                    j += 1;
                }
            } else {
                while j > 0 && set[j - 1] > to {
                    let x = set[j - 1] as usize;
                    rank = rank - combinadic::binomial(x, j) + combinadic::binomial(x, j + 1);
                    j -= 1;
                }
            }
            rank + combinadic::binomial(to as usize, j + 1)
        };
        state
            .key
            .wrapping_sub(state.ranks[ci].wrapping_mul(class.weight))
            .wrapping_add(new_rank.wrapping_mul(class.weight))
    }

    /// Pushes every state reachable by moving piece `slot` (class `ci`,
    /// `i`-th of its class) first one cell in direction `d`, which is known
    /// to be free, under the step or slide metric.
    #[inline]
    fn push_line(&self, state: &SlidingState, slot: usize, d: Dir, out: &mut Vec<u64>) {
        let (ci, i) = self.slots[slot];
        let (ci, i) = (ci as usize, i as usize);
        let class = &self.classes[ci];
        let from = state.pos[slot];
        let others = state.occupied & !class.masks[from as usize];
        let mut at = from;
        while let Some(to) = class.step_to(at, d, others) {
            out.push(self.key_with(state, ci, i, to));
            if self.metric == Metric::Step {
                break;
            }
            at = to;
        }
    }

    /// Pushes every state reachable by moving piece `slot` along any path,
    /// the others fixed (the piece metric).
    fn push_region(&self, state: &mut SlidingState, slot: usize, out: &mut Vec<u64>) {
        let (ci, i) = self.slots[slot];
        let (ci, i) = (ci as usize, i as usize);
        let class = &self.classes[ci];
        let from = state.pos[slot];
        let others = state.occupied & !class.masks[from as usize];
        // Anchors index a u64: a class has at most 64 anchors.
        let mut seen = 1u64 << from;
        let mut stack = std::mem::take(&mut state.stack);
        stack.clear();
        stack.push(from);
        while let Some(at) = stack.pop() {
            for d in Dir::ALL {
                if let Some(to) = class.step_to(at, d, others)
                    && seen & (1 << to) == 0
                {
                    seen |= 1 << to;
                    stack.push(to);
                    out.push(self.key_with(state, ci, i, to));
                }
            }
        }
        state.stack = stack;
    }
}

impl Model for SlidingPuzzle {
    type State = SlidingState;

    fn start(&self) -> u64 {
        self.start
    }

    fn key_space(&self) -> u64 {
        self.key_space
    }

    fn new_state(&self) -> SlidingState {
        SlidingState {
            pos: vec![0; self.pieces],
            ranks: vec![0; self.classes.len()],
            key: 0,
            occupied: 0,
            owner: [NO_CELL; 64],
            stack: Vec::with_capacity(64),
        }
    }

    fn decode(&self, key: u64, state: &mut SlidingState) {
        state.key = key;
        state.owner = [NO_CELL; 64];
        let mut rest = key;
        let mut occupied = 0;
        for (ci, class) in self.classes.iter().enumerate() {
            let (q, rank) = class.divisor.div_rem(rest);
            rest = q;
            state.ranks[ci] = rank;
            let set = &mut state.pos[class.offset..class.offset + class.count()];
            match &class.subsets {
                Some(table) => {
                    let mut bits = table[rank as usize];
                    for a in set.iter_mut() {
                        *a = bits.trailing_zeros() as u16;
                        bits &= bits - 1;
                    }
                }
                None => combinadic::unrank(rank, class.anchors.len(), set),
            }
            for (j, &a) in set.iter().enumerate() {
                let mut cells = class.masks[a as usize];
                occupied |= cells;
                while cells != 0 {
                    state.owner[cells.trailing_zeros() as usize] = (class.offset + j) as u8;
                    cells &= cells - 1;
                }
            }
        }
        state.occupied = occupied;
    }

    fn successors(&self, state: &mut SlidingState, out: &mut Vec<u64>) {
        // A piece can move only into an empty cell, so the moves are found
        // from the empty cells (two in pe766, one in a tile puzzle) rather
        // than by trying every piece in every direction.
        let mut tried = [0u64; 4];
        let mut movable = 0u64;
        let mut empty = self.floor & !state.occupied;
        while empty != 0 {
            let e = empty.trailing_zeros() as usize;
            empty &= empty - 1;
            for d in Dir::ALL {
                // The cell whose piece would enter `e` moving in direction d.
                let from_cell = self.neighbour[e][d.opposite() as usize];
                if from_cell == NO_CELL {
                    continue;
                }
                let slot = state.owner[from_cell as usize];
                if slot == NO_CELL || tried[d as usize] >> slot & 1 != 0 {
                    continue;
                }
                tried[d as usize] |= 1 << slot;
                match self.metric {
                    // push_line checks the first step like every other.
                    Metric::Step | Metric::Slide => self.push_line(state, slot as usize, d, out),
                    Metric::Piece => {
                        let class = &self.classes[self.slots[slot as usize].0 as usize];
                        let from = state.pos[slot as usize];
                        let others = state.occupied & !class.masks[from as usize];
                        if class.step_to(from, d, others).is_some() {
                            movable |= 1 << slot;
                        }
                    }
                }
            }
        }
        while movable != 0 {
            let slot = movable.trailing_zeros() as usize;
            movable &= movable - 1;
            self.push_region(state, slot, out);
        }
    }

    fn is_goal(&self, state: &SlidingState) -> bool {
        self.goal.iter().all(|&(ci, a)| {
            let c = &self.classes[ci];
            state.pos[c.offset..c.offset + c.count()].contains(&a)
        })
    }

    fn has_goal(&self) -> bool {
        !self.goal.is_empty()
    }

    fn reversible(&self) -> bool {
        // A unit step, a straight slide and a path through free cells are
        // each undone by the reverse move of the same piece.
        true
    }
}
