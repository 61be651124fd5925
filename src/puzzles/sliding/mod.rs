//! Sliding-block puzzles: polyomino pieces on a board of at most 64 cells.
//!
//! Pieces of the same class (same shape, colour and movement rule, unless
//! marked distinct) are interchangeable. A state's canonical form is, for
//! each class, the sorted set of its pieces' anchor positions (the anchor
//! being the piece's first cell in reading order), and its key is the
//! combinadic rank of each class's set, composed in mixed radix across
//! classes: a perfect, collision-free rank.
//!
//! A class of single-cell pieces (pe766's six squares, a sliding tile) is
//! ranked over the cells still free once every other piece, and the
//! classes ranked this way before it, are placed: the other pieces always
//! cover as many cells as they have, so that number is the same in every
//! state. pe766's squares then take C(8, 6) = 28 values instead of
//! C(30, 6) = 593775, and decoding them reads no 4.5 MiB table at random,
//! at the price of re-ranking such classes after a move that passes one of
//! their pieces (one popcount a piece); a tile puzzle's keys become dense
//! (12!/1 for `eleven`). Every other class is ranked over its admissible
//! anchors.
//!
//! A tile puzzle with one empty cell (every class one distinct tile) keeps
//! the same keys but decodes and moves through its own tables
//! (`lone.rs`): the tile at each floor index and the blank.

mod blanks;
mod census;
mod lone;
mod parse;
mod solution;
mod symmetry;
mod tiled;
mod wide;

use std::fmt::Write as _;

use crate::engine::Model;
use crate::puzzles::combinadic;

pub use parse::{PuzzleError, printable, read_puzzle_text};
pub use solution::{Move, Step};
pub use symmetry::{BoardSymmetry, SymmetricSliding, SymmetricSlidingState};
pub use wide::{MAX_WORDS, WideSliding, WideState};

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
    /// The same cells as lists: per anchor, `shape.len()` cell indices
    /// padded with the first to a multiple of four, which `decode` writes
    /// four at a time.
    cells_at: Vec<u8>,
    /// The admissible anchor one cell away in each direction, or NONE.
    step: Vec<[u16; 4]>,
    /// Single-cell pieces, ranked among the free cells.
    free_ranked: bool,
    /// The anchor cells its pieces reach on the board without the other
    /// pieces (a goal elsewhere cannot be met).
    reachable: u64,
    /// One single-cell piece ranked among the free cells by its own cell.
    tile: bool,
    /// Ranked among the free cells by the cells it leaves free, when those
    /// are fewer than its pieces (pe766: two cells, not six squares): a
    /// move re-ranks it with fewer popcounts.
    by_complement: bool,
    /// The positions the class is ranked over: its admissible anchors, or
    /// for a class ranked among free cells the cells free at its turn.
    ranked_over: usize,
    /// C(ranked_over, pieces): the class's radix in the key.
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

    /// The number of positions the class is ranked over: its admissible
    /// anchors, or for several single-cell pieces the cells left free by
    /// classes before it.
    pub fn ranked_over(&self) -> usize {
        self.ranked_over
    }

    /// C(ranked_over, count): the class's radix in the key.
    pub fn radix(&self) -> u64 {
        self.radix
    }

    /// The rank of a class ranked among free cells whose pieces cover
    /// `set` among the cells `here` free at its turn.
    #[inline(always)]
    fn free_rank(&self, set: u64, here: u64) -> u64 {
        if self.by_complement {
            rank_among(here & !set, here)
        } else {
            rank_among(set, here)
        }
    }

    /// Marks the cells of the piece in `slot`, at anchor index `at`, as
    /// owned by it: four stores at a time, without a branch for a piece of
    /// at most four cells.
    #[inline(always)]
    fn own(&self, at: u16, slot: usize, owner: &mut [u8; 64]) {
        let stride = self.shape.len().next_multiple_of(4);
        for four in self.cells_at[at as usize * stride..][..stride].chunks_exact(4) {
            for &cell in four {
                owner[usize::from(cell & 63)] = slot as u8;
            }
        }
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
    raw_name: String,
    rows: usize,
    cols: usize,
    walls: u64,
    classes: Vec<Class>,
    metric: Metric,
    start: u64,
    /// Each goal piece as (class, admissible anchor index).
    goal: Vec<(usize, u16)>,
    /// Why no position meets the goal, when the file's goal cannot be met
    /// (then `goal` is empty).
    goal_impossible: Option<String>,
    key_space: u64,
    pieces: usize,
    /// Class and index within the class of every piece slot.
    slots: Vec<(u8, u8)>,
    /// Cells that are on the board and not walls.
    floor: u64,
    /// Each cell's neighbour in each direction, or `NO_CELL`.
    neighbour: Vec<[u8; 4]>,
    /// The first class ranked among free cells (the classes' count if none).
    first_free: usize,
    /// When every free-ranked class is a single piece (a tile) and the floor
    /// has at most 16 cells, the tiles in groups decoded together (see
    /// `decode_tiles`); empty otherwise.
    tile_groups: Vec<TileGroup>,
    /// The board cell of each floor cell, in reading order.
    floor_cell: Vec<u8>,
    /// For each direction, the cells on the board's edge that way.
    edge: [u64; 4],
    /// For each piece slot, the directions its class may move (bit `d`).
    slot_dirs: Vec<u8>,
    /// A tile puzzle with one empty cell decodes and moves through these
    /// tables instead (see [`lone`]).
    lone: Option<lone::LoneBlank>,
    /// A puzzle with a few blanks among its squares decodes and moves
    /// through these under the step metric (see [`blanks`]).
    blanks: Option<blanks::FewBlanks>,
    /// A tile puzzle (a full rectangle, one blank, distinct free tiles)
    /// has the tile model's keys and moves (see [`tiled`]).
    tiled: Option<Box<tiled::Tiled>>,
    /// A puzzle whose key space passes 2^64 is searched with keys of
    /// several words laid out here (see [`WideSliding`]); the one-word
    /// fields above (`start`, `key_space`, the classes' weights) are then
    /// unused.
    wide: Option<Box<wide::Layout>>,
}

/// The cells of `free` whose indices among `free`'s cells are the set bits
/// of `pattern` (a software `pdep`). The loop runs once for each of
/// `free`'s cells, a count fixed per class, rather than stopping at
/// `pattern`'s last bit, a point that changes from call to call.
#[inline]
fn deposit(pattern: u64, mut free: u64) -> u64 {
    let mut out = 0;
    for j in 0..free.count_ones() {
        let low = free & free.wrapping_neg();
        out |= low & (pattern >> j & 1).wrapping_neg();
        free ^= low;
    }
    out
}

/// Consecutive tiles whose ranks decode together: their share of the key
/// is below `divisor`'s divisor (the product of their radices, at most
/// 4096), and `ranks[v]` holds the ranks of share `v`, a nibble each, the
/// first tile's lowest.
#[derive(Clone, Debug)]
struct TileGroup {
    tiles: usize,
    divisor: combinadic::Divisor,
    ranks: Vec<u32>,
}

impl TileGroup {
    /// The largest product of radices in one group: the tables of a
    /// 12-cell board's tiles take 18 KiB, in cache.
    const MAX_VALUES: u64 = 4096;

    /// Groups `tiles` (single-piece classes, each of at most 16 ranks),
    /// in key order, each group as many tiles (at most 8, a nibble each)
    /// as keep the product of their radices within `MAX_VALUES`.
    fn split(tiles: &[Class]) -> Vec<TileGroup> {
        let mut groups = Vec::new();
        let mut start = 0;
        while start < tiles.len() {
            let mut end = start + 1;
            let mut values = tiles[start].radix;
            while end < tiles.len()
                && end - start < 8
                && values * tiles[end].radix <= Self::MAX_VALUES
            {
                values *= tiles[end].radix;
                end += 1;
            }
            let radices: Vec<u64> = tiles[start..end].iter().map(|c| c.radix).collect();
            let ranks = (0..values)
                .map(|mut v| {
                    let mut packed = 0u32;
                    for (j, &r) in radices.iter().enumerate() {
                        packed |= ((v % r) as u32) << (4 * j);
                        v /= r;
                    }
                    packed
                })
                .collect();
            groups.push(TileGroup {
                tiles: end - start,
                divisor: combinadic::Divisor::new(values),
                ranks,
            });
            start = end;
        }
        groups
    }
}

/// Walks the tiles' ranks out of `rest`, their share of the key, a group
/// at a time (one division gives a group's share, a table its ranks), and
/// takes each tile's floor index from `list`, the free floor indices a
/// nibble each, in order: `place(k, rank, index)` for the k-th tile.
/// Returns what is left of the list (with one empty cell: the blank).
///
/// Removing the rank-th nibble takes three operations, so the chain from
/// one tile to the next is short (selecting the rank-th bit of a mask
/// takes a dozen).
#[inline(always)]
fn unrank_tiles(
    groups: &[TileGroup],
    mut rest: u64,
    mut list: u64,
    mut place: impl FnMut(usize, u64, u64),
) -> u64 {
    let mut k = 0;
    for g in groups {
        let (q, value) = g.divisor.div_rem(rest);
        rest = q;
        let mut digits = g.ranks[value as usize];
        for _ in 0..g.tiles {
            let rank = digits & 15;
            digits >>= 4;
            let shift = 4 * rank;
            let index = (list >> shift) & 15;
            let low = (1u64 << shift) - 1;
            list = (list & low) | ((list >> 4) & !low);
            place(k, u64::from(rank), index);
            k += 1;
        }
    }
    list
}

/// For each byte value and each r below its popcount, the index of its
/// r-th set bit.
const SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut r, mut i) = (0, 0);
        while i < 8 {
            if b >> i & 1 != 0 {
                table[b][r] = i as u8;
                r += 1;
            }
            i += 1;
        }
        b += 1;
    }
    table
};

/// The index of the `r`-th set bit (from 0) of `m`, which has more than
/// `r`: halving the word three times without a branch, then a table (a
/// loop clearing `r` bits mispredicts its exit once a call).
#[inline(always)]
fn select(mut m: u64, mut r: u32) -> u32 {
    let mut base = 0;
    for half in [32, 16, 8] {
        let low = (m & ((1u64 << half) - 1)).count_ones();
        let up = u32::from(r >= low);
        r -= up * low;
        base += up * half;
        m >>= up * half;
    }
    base + u32::from(SELECT_IN_BYTE[(m & 0xff) as usize][r as usize & 7])
}

/// The rank of the cells `set` among the cells `here` (which hold them):
/// the combinadic rank of their indices among `here`'s cells. The first
/// two terms, C(n, 1) = n and C(n, 2) = n(n-1)/2, are computed rather than
/// looked up: they are all of pe766's (its two blanks).
#[inline(always)]
fn rank_among(set: u64, here: u64) -> u64 {
    let below =
        |rest: u64| u64::from((here & (rest & rest.wrapping_neg()).wrapping_sub(1)).count_ones());
    let mut rest = set;
    if rest == 0 {
        return 0;
    }
    let mut rank = below(rest);
    rest &= rest - 1;
    if rest != 0 {
        let n = below(rest);
        rank += n * n.saturating_sub(1) / 2;
        rest &= rest - 1;
        let mut i = 3;
        while rest != 0 {
            rank += combinadic::binomial(below(rest) as usize, i);
            i += 1;
            rest &= rest - 1;
        }
    }
    rank
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
    /// The share of the key of the classes ranked over their anchors.
    anchored_key: u64,
    /// The share of the key of the classes ranked among free cells.
    free_key: u64,
    /// Each class's cells.
    cells: Vec<u64>,
    /// For each class ranked among free cells, the cells free at its turn (its own
    /// included): those it is ranked among.
    free_at: Vec<u64>,
    /// Occupied cells.
    occupied: u64,
    /// The cells of the classes ranked among free cells.
    free_ranked_cells: u64,
    /// The class covering each cell of `free_ranked_cells` (other entries
    /// are stale: read only those).
    free_class_at: [u8; 64],
    /// The piece slot covering each occupied cell (entries of empty cells
    /// are stale, but always some piece's slot: `successors` reads them).
    /// `decode` writes every piece's cells, in loops of a fixed length per
    /// class: writing only the cells next to an empty one took fewer
    /// stores but a third of pe766's decoding, its loops over bits
    /// mispredicted.
    owner: [u8; 64],
    /// Each piece slot's cells.
    slot_cells: Vec<u64>,
    stack: Vec<u16>,
    /// A tile puzzle with one empty cell (see [`lone`]): the tile at each
    /// floor index, a nibble each (the blank's nibble is stale).
    tile_at: u64,
    /// The same: the blank's floor index.
    blank: u8,
    /// A tile puzzle's state in the tile model (see [`tiled`]).
    tile: crate::puzzles::tiles::TileState,
}

impl SlidingPuzzle {
    /// The puzzle's name, with control characters written as escapes (safe
    /// to print on a terminal).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The puzzle's name as its file gives it (for JSON, which escapes what
    /// it must itself).
    pub fn raw_name(&self) -> &str {
        &self.raw_name
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

    /// How many 64-bit words a key takes: one, or for a key space past
    /// 2^64 as many as [`WideSliding`] packs the classes' ranks into.
    pub fn words(&self) -> usize {
        self.wide.as_ref().map_or(1, |w| w.words())
    }

    /// Whether every piece is a single cell that moves every way.
    fn single_cells_only(&self) -> bool {
        self.classes
            .iter()
            .all(|c| c.free_ranked && c.mobility == Mobility::Free)
    }

    /// Whether the puzzle file gave a goal.
    pub fn goal_given(&self) -> bool {
        !self.goal.is_empty() || self.goal_impossible.is_some()
    }

    /// Why no position can meet the file's goal (a goal cell on a wall, or
    /// out of its piece's reach), if that is so.
    pub fn goal_impossible(&self) -> Option<&str> {
        self.goal_impossible.as_deref()
    }

    /// The start board, as [`SlidingPuzzle::render`] draws it.
    pub fn start_board(&self) -> String {
        match &self.wide {
            Some(layout) => self.render_positions(layout.start()),
            None => self.render(self.start),
        }
    }

    /// The board with each piece's label, `.` for empty and `#` for walls.
    /// Interchangeable pieces take their class's labels in reading order.
    /// Its key is one word, or for a puzzle past 2^64 a wide key of
    /// [`WideSliding`].
    pub fn render<K: crate::engine::Key>(&self, key: K) -> String {
        let mut state = self.new_state();
        self.decode_any(key, &mut state);
        self.render_positions(&state.pos)
    }

    /// Decodes a key of either width into the positions, cells and
    /// occupied cells of `state`.
    fn decode_any<K: crate::engine::Key>(&self, key: K, state: &mut SlidingState) {
        match &self.wide {
            Some(layout) => self.decode_wide(layout, key, state),
            None => self.decode_full(key.index(), state),
        }
    }

    /// The board of the pieces at anchor indices `pos` (a state's).
    fn render_positions(&self, pos: &[u16]) -> String {
        let mut placed = Vec::with_capacity(self.pieces);
        for class in &self.classes {
            for (i, &label) in class.labels.iter().enumerate() {
                placed.push((label, class.masks[pos[class.offset + i] as usize]));
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
        s.push_str(&self.start_board());
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
            // Keys of several words rank every class over its positions.
            let (over, n) = if c.free_ranked && self.wide.is_none() {
                ("free cells", c.ranked_over)
            } else {
                ("positions", c.positions())
            };
            let _ = writeln!(
                s,
                "  {:>2}. {labels:<8} {} cell(s){traits}; {} piece(s) over {n} {over}: C({n}, {}) = {}",
                i + 1,
                c.shape.len(),
                c.count(),
                c.count(),
                combinadic::binomial(n, c.count())
            );
        }
        match (&self.tiled, &self.wide) {
            (_, Some(wide)) => {
                let _ = writeln!(
                    s,
                    "key space: about 2^{:.1}, over 2^64: keys of {} words, each class's rank packed whole into a word",
                    wide.bits(),
                    wide.words()
                );
            }
            (Some(t), _) => {
                let _ = writeln!(
                    s,
                    "key space: {} (a tile puzzle: {}!/2 keys, rank x {} + blank, the positions of the start's parity; the ranks above would give {})",
                    t.tiles.key_space(),
                    t.tiles.cells(),
                    t.tiles.cells(),
                    self.key_space
                );
            }
            (None, None) => {
                let _ = writeln!(s, "key space: {} (< 2^64)", self.key_space);
            }
        }
        let _ = writeln!(s, "metric: {}", self.metric.name());
        match self.goal_board() {
            None => {
                let _ = writeln!(s, "goal: none");
            }
            Some(board) => {
                let _ = writeln!(s, "goal:");
                s.push_str(&board);
            }
        }
        s
    }

    /// The goal as a board: each goal piece drawn with its class's first
    /// label, `.` for cells the goal leaves free; `None` without a goal.
    pub fn goal_board(&self) -> Option<String> {
        if self.goal.is_empty() {
            return None;
        }
        let placed: Vec<(char, u64)> = self
            .goal
            .iter()
            .map(|&(ci, a)| {
                (
                    self.classes[ci].labels[0],
                    self.classes[ci].masks[a as usize],
                )
            })
            .collect();
        Some(self.render_masks(&placed))
    }

    /// The bit pattern, over the cells free at its turn, of free-ranked
    /// `class` at `rank` (`ranked` bits set before the complement, if the
    /// class is ranked by it); `scratch` has room for `ranked` entries.
    #[inline(always)]
    fn pattern_of(&self, class: &Class, rank: u64, ranked: usize, scratch: &mut [u16]) -> u64 {
        let pattern = match &class.subsets {
            Some(table) => table[rank as usize],
            None => {
                let set = &mut scratch[..ranked];
                combinadic::unrank(rank, class.ranked_over, set);
                set.iter().fold(0u64, |m, &i| m | 1 << i)
            }
        };
        if class.by_complement {
            !pattern & (u64::MAX >> (64 - class.ranked_over))
        } else {
            pattern
        }
    }

    /// Decodes the tiles (the free-ranked classes when `tile_groups` is
    /// not empty) from `rest`, their share of the key, over the cells
    /// `free` that the other classes leave; returns the tiles' cells.
    ///
    /// The ranks and floor indices come from [`unrank_tiles`] (eleven: 3
    /// divisions, not 11).
    #[inline(always)]
    fn decode_tiles(&self, rest: u64, mut free: u64, state: &mut SlidingState) -> u64 {
        let list = if self.first_free == 0 {
            // Every floor cell is free for the first tile: 0, 1, 2, …
            0xfedc_ba98_7654_3210
        } else {
            let mut list = 0u64;
            let mut n = 0;
            let mut cells = free;
            while cells != 0 {
                let cell = cells.trailing_zeros();
                cells &= cells - 1;
                list |= u64::from((self.floor & ((1 << cell) - 1)).count_ones()) << n;
                n += 4;
            }
            list
        };
        let first = self.first_free;
        let classes = &self.classes[first..];
        let ranks = &mut state.ranks[first..first + classes.len()];
        let free_at = &mut state.free_at[first..first + classes.len()];
        let class_cells = &mut state.cells[first..first + classes.len()];
        let (pos, slot_cells) = (&mut state.pos, &mut state.slot_cells);
        let (free_class_at, owner) = (&mut state.free_class_at, &mut state.owner);
        let mut covered = 0u64;
        unrank_tiles(&self.tile_groups, rest, list, |k, rank, index| {
            let class = &classes[k];
            ranks[k] = rank;
            let cell = self.floor_cell[index as usize];
            let bit = 1u64 << cell;
            free_at[k] = free;
            free &= !bit;
            covered |= bit;
            class_cells[k] = bit;
            pos[class.offset] = index as u16;
            slot_cells[class.offset] = bit;
            free_class_at[cell as usize] = (first + k) as u8;
            owner[cell as usize] = class.offset as u8;
        });
        covered
    }

    /// Decodes `key` into every part of `state`: positions, cells, ranks,
    /// the owner table and each free-ranked class's free cells. `decode`
    /// takes a shorter way for a tile puzzle with one empty cell, whose
    /// states only its own move generator reads.
    pub(crate) fn decode_full(&self, key: u64, state: &mut SlidingState) {
        match self.tiled() {
            Some(t) => self.decode_generic(t.generic_key(self, key), state),
            None => self.decode_generic(key, state),
        }
    }

    /// [`SlidingPuzzle::decode_full`] of a generic key (each class's rank
    /// in mixed radix), whatever keys the puzzle's search uses.
    fn decode_generic(&self, key: u64, state: &mut SlidingState) {
        state.key = key;
        let mut occupied = 0;
        let mut anchored_key = key;
        let tiles = !self.tile_groups.is_empty();
        let classes = if tiles {
            &self.classes[..self.first_free]
        } else {
            &self.classes[..]
        };
        let mut rest = key;
        for (ci, class) in classes.iter().enumerate() {
            let (q, rank) = class.divisor.div_rem(rest);
            rest = q;
            state.ranks[ci] = rank;
            if ci == self.first_free {
                // The classes before this one: the key modulo its weight.
                anchored_key = key - (rank + rest * class.radix) * class.weight;
            }
            let offset = class.offset;
            let class_cells = if class.free_ranked {
                // The rank indexes the free cells; a single-cell piece's
                // anchor index is its cell's index among the floor cells.
                let free = self.floor & !occupied;
                state.free_at[ci] = free;
                let ranked = if class.by_complement {
                    class.ranked_over - class.count()
                } else {
                    class.count()
                };
                let cells = if class.tile {
                    // One piece (a sliding tile): the rank-th free cell.
                    1 << select(free, rank as u32)
                } else {
                    deposit(
                        self.pattern_of(class, rank, ranked, &mut state.pos[offset..]),
                        free,
                    )
                };
                let mut rest_cells = cells;
                let mut slot = offset;
                while rest_cells != 0 {
                    let bit = rest_cells & rest_cells.wrapping_neg();
                    let cell = bit.trailing_zeros() as usize;
                    state.pos[slot] = (self.floor & (bit - 1)).count_ones() as u16;
                    state.slot_cells[slot] = bit;
                    state.free_class_at[cell] = ci as u8;
                    state.owner[cell] = slot as u8;
                    slot += 1;
                    rest_cells ^= bit;
                }
                cells
            } else if class.count() == 1 {
                let cells = class.masks[rank as usize];
                state.pos[offset] = rank as u16;
                state.slot_cells[offset] = cells;
                class.own(rank as u16, offset, &mut state.owner);
                cells
            } else {
                let set = &mut state.pos[offset..offset + class.count()];
                match &class.subsets {
                    Some(table) => {
                        let mut bits = table[rank as usize];
                        for a in set.iter_mut() {
                            *a = bits.trailing_zeros() as u16;
                            bits &= bits - 1;
                        }
                    }
                    None => combinadic::unrank(rank, class.ranked_over, set),
                }
                let mut class_cells = 0;
                for (j, &a) in set.iter().enumerate() {
                    let cells = class.masks[a as usize];
                    state.slot_cells[offset + j] = cells;
                    class.own(a, offset + j, &mut state.owner);
                    class_cells |= cells;
                }
                class_cells
            };
            state.cells[ci] = class_cells;
            occupied |= class_cells;
        }
        if tiles {
            anchored_key = key - rest * self.classes[self.first_free].weight;
            let covered = self.decode_tiles(rest, self.floor & !occupied, state);
            occupied |= covered;
            state.free_ranked_cells = covered;
        } else {
            state.free_ranked_cells = state.cells[self.first_free..].iter().fold(0, |m, &c| m | c);
        }
        state.anchored_key = anchored_key;
        state.free_key = key - anchored_key;
        state.occupied = occupied;
    }

    /// The successors of a state decoded by `decode_full`, by the generic
    /// move generator.
    fn successors_full(&self, state: &mut SlidingState, out: &mut Vec<u64>) {
        self.each_successor(state, out, |state, ci, i, to| {
            self.key_with(state, ci, i, to)
        });
    }

    /// Pushes the keys of the decoded state's successors: `key(state, ci,
    /// i, to)` is the key of `state` with the `i`-th piece of class `ci`
    /// at anchor `to` (a one-word key, or a wide one).
    #[inline(always)]
    fn each_successor<K>(
        &self,
        state: &mut SlidingState,
        out: &mut Vec<K>,
        key: impl Fn(&SlidingState, usize, usize, u16) -> K,
    ) {
        let moves = self.first_steps(state);
        let words = (4 * self.pieces).div_ceil(64);
        let mut stack = std::mem::take(&mut state.stack);
        let board = &*state;
        let key_of = |ci, i, to| key(board, ci, i, to);
        for (w, &word) in moves[..words].iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let bit = 64 * w + word.trailing_zeros() as usize;
                word &= word - 1;
                let (slot, d) = (bit / 4, Dir::ALL[bit % 4]);
                match self.metric {
                    Metric::Step | Metric::Slide => self.push_line(board, slot, d, out, key_of),
                    Metric::Piece => {
                        // Every way the piece can go, once whichever first
                        // step was found.
                        word &= !(0b1111 << ((bit % 64) & !3));
                        self.push_region(board, &mut stack, slot, out, key_of);
                    }
                }
            }
        }
        state.stack = stack;
    }

    /// The key of the pieces at anchor indices `pos` (sorted within each
    /// class, as in a state).
    pub(crate) fn encode(&self, pos: &[u16]) -> u64 {
        match self.tiled() {
            Some(t) => t
                .key_of(self, pos)
                .expect("a tile puzzle's position of the start's parity"),
            None => self.encode_generic(pos),
        }
    }

    /// The generic key of the pieces at anchor indices `pos`: each class's
    /// combinadic rank in mixed radix.
    pub(crate) fn encode_generic(&self, pos: &[u16]) -> u64 {
        let mut key = 0u64;
        let mut free = self.floor;
        let mut cells = vec![0u64; self.classes.len()];
        for (ci, class) in self.classes.iter().enumerate() {
            let set = &pos[class.offset..class.offset + class.count()];
            cells[ci] = set.iter().fold(0, |m, &a| m | class.masks[a as usize]);
            if !class.free_ranked {
                key += combinadic::rank(set) * class.weight;
                free &= !cells[ci];
            }
        }
        key + self.free_part(free, &cells)
    }

    /// The free-ranked classes' share of the key when the other pieces
    /// leave `free` free and class j covers `cells[j]`.
    fn free_part(&self, mut free: u64, cells: &[u64]) -> u64 {
        let mut key = 0u64;
        for (ci, class) in self.classes.iter().enumerate().skip(self.first_free) {
            key += class.free_rank(cells[ci], free) * class.weight;
            free &= !cells[ci];
        }
        key
    }

    /// The most free-ranked classes after a move's own that
    /// `free_part_after` re-ranks without looking for their pieces.
    const RERANK_ALL: usize = 2;

    /// The free-ranked classes' share of the key after a move that toggles
    /// the cells `flip` between free and covered: a piece of the free-ranked
    /// class `moved` going between the two cells of `flip` (the classes
    /// after it see the change), or with `None` a piece of an anchored class
    /// (every free-ranked class sees it).
    ///
    /// A piece's term counts the free cells below it. A move vacates as
    /// many cells as it covers, so the count changes only for cells
    /// strictly between the lowest and the highest cell of `flip`: only
    /// the classes with a piece there are re-ranked, found from those
    /// cells (none for a sideways move), not by trying every class (a tile
    /// puzzle has a class per tile).
    #[inline(always)]
    fn free_part_after(&self, state: &SlidingState, moved: Option<usize>, flip: u64) -> u64 {
        let (lo, hi) = (flip.trailing_zeros(), 63 - flip.leading_zeros());
        let inside = (u64::MAX << lo << 1) & !(u64::MAX << hi);
        let mut key = state.free_key;
        let rerank = |key: u64, ci: usize, new: u64| {
            key.wrapping_add(
                new.wrapping_sub(state.ranks[ci])
                    .wrapping_mul(self.classes[ci].weight),
            )
        };
        let first = match moved {
            Some(m) if self.classes[m].tile => {
                // A tile moves from `from` into the empty cell `to`: its
                // rank counts the cells free at its turn below `to`, and a
                // later tile between the two gains the one cell (`from`
                // below it) or loses it (`to` below it).
                let to = flip & state.free_at[m] & !state.cells[m];
                let new = u64::from((state.free_at[m] & (to - 1)).count_ones());
                key = rerank(key, m, new);
                let up = state.cells[m] < to;
                let mut hit = inside & state.free_ranked_cells;
                let mut done = 0u64;
                while hit != 0 {
                    let ci = state.free_class_at[hit.trailing_zeros() as usize] as usize;
                    hit &= hit - 1;
                    if ci > m && self.classes[ci].tile {
                        let w = self.classes[ci].weight;
                        key = if up {
                            key.wrapping_add(w)
                        } else {
                            key.wrapping_sub(w)
                        };
                    } else if ci > m && done >> ci & 1 == 0 {
                        done |= 1 << ci;
                        let class = &self.classes[ci];
                        let new = class.free_rank(state.cells[ci], state.free_at[ci] ^ flip);
                        key = rerank(key, ci, new);
                    }
                }
                return key;
            }
            Some(m) => {
                let class = &self.classes[m];
                let new = class.free_rank(state.cells[m] ^ flip, state.free_at[m]);
                key = rerank(key, m, new);
                m + 1
            }
            None => self.first_free,
        };
        if self.classes.len() - first <= Self::RERANK_ALL {
            // A few classes (pe766: the squares) are re-ranked whether or
            // not a piece lies between: the work is less than a mispredicted
            // test of it.
            for ci in first..self.classes.len() {
                let new = self.classes[ci].free_rank(state.cells[ci], state.free_at[ci] ^ flip);
                key = rerank(key, ci, new);
            }
            return key;
        }
        // Classes index a u64: there are at most 64 cells, so at most 64
        // classes.
        let mut done = 0u64;
        let mut hit = inside & state.free_ranked_cells;
        while hit != 0 {
            let ci = state.free_class_at[hit.trailing_zeros() as usize] as usize;
            hit &= hit - 1;
            if ci < first || done >> ci & 1 != 0 {
                continue;
            }
            done |= 1 << ci;
            let new = self.classes[ci].free_rank(state.cells[ci], state.free_at[ci] ^ flip);
            key = rerank(key, ci, new);
        }
        key
    }

    /// The key of the state with the `i`-th piece of class `ci` moved to
    /// anchor `to`, everything else unchanged.
    #[inline(always)]
    fn key_with(&self, state: &SlidingState, ci: usize, i: usize, to: u16) -> u64 {
        let class = &self.classes[ci];
        if class.free_ranked {
            // The anchored classes' share stays.
            let from = state.pos[class.offset + i] as usize;
            let flip = class.masks[from] ^ class.masks[to as usize];
            return state.anchored_key + self.free_part_after(state, Some(ci), flip);
        }
        let new_rank = self.anchored_rank_with(state, ci, i, to);
        let multi = state
            .anchored_key
            .wrapping_sub(state.ranks[ci].wrapping_mul(class.weight))
            .wrapping_add(new_rank.wrapping_mul(class.weight));
        if self.first_free == self.classes.len() {
            return multi;
        }
        // The piece frees cells and covers others, which changes the free
        // cells the free-ranked classes are ranked among.
        let from = state.pos[class.offset + i] as usize;
        let moved = class.masks[from] ^ class.masks[to as usize];
        multi + self.free_part_after(state, None, moved)
    }

    /// The rank over its anchors of class `ci` with its `i`-th piece moved
    /// to anchor `to`, from its rank in `state` (`state.ranks[ci]`).
    #[inline(always)]
    fn anchored_rank_with(&self, state: &SlidingState, ci: usize, i: usize, to: u16) -> u64 {
        let class = &self.classes[ci];
        if class.count() == 1 {
            u64::from(to)
        } else if class.count() == 2 {
            // pe766's pairs: the new pair's rank outright, without a branch
            // on which way the piece passes its twin.
            let other = state.pos[class.offset + 1 - i];
            let (low, high) = (other.min(to) as usize, other.max(to) as usize);
            combinadic::binomial(low, 1) + combinadic::binomial(high, 2)
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
        }
    }

    /// Whether the pieces' positions in `state` (its anchor indices) meet
    /// the goal; never without one.
    fn goal_met(&self, state: &SlidingState) -> bool {
        !self.goal.is_empty()
            && self.goal.iter().all(|&(ci, a)| {
                let c = &self.classes[ci];
                state.pos[c.offset..c.offset + c.count()].contains(&a)
            })
    }

    /// The legal first steps of the state's pieces, as a set of (piece,
    /// direction) pairs: bit 4·slot + d.
    ///
    /// A piece can move only into an empty cell, so the moves are found
    /// from the empty cells (two in pe766, one in a tile puzzle) rather
    /// than by trying every piece in every direction. Whether the piece
    /// next to an empty cell can enter it is data the branch predictor
    /// cannot guess, so every neighbour is tested without a branch, by
    /// shifting the piece's cells: the same answer as the anchor tables of
    /// [`Class::step_to`], which a test checks.
    #[inline(always)]
    fn first_steps(&self, state: &SlidingState) -> [u64; 4] {
        let mut moves = [0u64; 4];
        let mut empty = self.floor & !state.occupied;
        while empty != 0 {
            let e = empty.trailing_zeros() as usize;
            empty &= empty - 1;
            for d in Dir::ALL {
                // The cell whose piece would enter `e` moving in direction
                // d; off the board, a stand-in whose answer is masked off.
                let from_cell = self.neighbour[e][d.opposite() as usize];
                let on_board = from_cell != NO_CELL;
                let cell = usize::from(from_cell & 63);
                let occupied = state.occupied >> cell & 1 != 0;
                // Every owner entry is some piece's slot (stale for an
                // empty cell), so the lookups below stay in bounds. The
                // piece moves if its cells shifted one step avoid the
                // board's edge, the walls and the other pieces.
                let slot = usize::from(state.owner[cell]);
                let cells = state.slot_cells[slot];
                let moved = match d {
                    Dir::Up => cells >> self.cols,
                    Dir::Down => cells << self.cols,
                    Dir::Left => cells >> 1,
                    Dir::Right => cells << 1,
                };
                let blocked = (state.occupied & !cells) | !self.floor;
                let legal = on_board
                    & occupied
                    & (cells & self.edge[d as usize] == 0)
                    & (moved & blocked == 0)
                    & (self.slot_dirs[slot] >> d as u8 & 1 != 0);
                let bit = 4 * slot + d as usize;
                moves[bit / 64] |= u64::from(legal) << (bit % 64);
            }
        }
        moves
    }

    /// Pushes the key (`key(ci, i, to)`: the state's with the `i`-th piece
    /// of class `ci` at anchor `to`) of every state reachable by moving
    /// piece `slot` first one cell in direction `d`, a move known to be
    /// legal, under the step or slide metric.
    #[inline(always)]
    fn push_line<K>(
        &self,
        state: &SlidingState,
        slot: usize,
        d: Dir,
        out: &mut Vec<K>,
        key: impl Fn(usize, usize, u16) -> K,
    ) {
        let (ci, i) = self.slots[slot];
        let (ci, i) = (ci as usize, i as usize);
        let class = &self.classes[ci];
        let from = state.pos[slot];
        if self.metric == Metric::Step {
            // `successors` found the step legal: no second test.
            let to = class.step[from as usize][d as usize];
            out.push(key(ci, i, to));
            return;
        }
        let others = state.occupied & !class.masks[from as usize];
        let mut at = from;
        while let Some(to) = class.step_to(at, d, others) {
            out.push(key(ci, i, to));
            at = to;
        }
    }

    /// Pushes the key (as [`SlidingPuzzle::push_line`]'s) of every state
    /// reachable by moving piece `slot` along any path, the others fixed
    /// (the piece metric); `stack` is scratch.
    fn push_region<K>(
        &self,
        state: &SlidingState,
        stack: &mut Vec<u16>,
        slot: usize,
        out: &mut Vec<K>,
        key: impl Fn(usize, usize, u16) -> K,
    ) {
        let (ci, i) = self.slots[slot];
        let (ci, i) = (ci as usize, i as usize);
        let class = &self.classes[ci];
        let from = state.pos[slot];
        let others = state.occupied & !class.masks[from as usize];
        // Anchors index a u64: a class has at most 64 anchors.
        let mut seen = 1u64 << from;
        stack.clear();
        stack.push(from);
        while let Some(at) = stack.pop() {
            for d in Dir::ALL {
                if let Some(to) = class.step_to(at, d, others)
                    && seen & (1 << to) == 0
                {
                    seen |= 1 << to;
                    stack.push(to);
                    out.push(key(ci, i, to));
                }
            }
        }
    }
}

impl Model for SlidingPuzzle {
    type State = SlidingState;
    type Key = u64;

    fn start(&self) -> u64 {
        self.start
    }

    fn key_space(&self) -> u64 {
        match &self.tiled {
            Some(t) => t.tiles.key_space(),
            None => self.key_space,
        }
    }

    /// The description `reach show` prints: board, pieces, key layout,
    /// metric and goal.
    fn identity(&self) -> String {
        self.describe()
    }

    fn unsearchable(&self) -> Option<String> {
        (self.words() > 1).then(|| {
            format!(
                "{}'s key space passes 2^64: its keys take {} 64-bit words, and `SlidingPuzzle` is the model of one-word keys\n  help: search `reach::puzzles::sliding::WideSliding::<N>::new(&puzzle)` with N at least {}",
                self.name,
                self.words(),
                self.words()
            )
        })
    }

    fn new_state(&self) -> SlidingState {
        SlidingState {
            pos: vec![0; self.pieces],
            ranks: vec![0; self.classes.len()],
            key: 0,
            anchored_key: 0,
            free_key: 0,
            cells: vec![0; self.classes.len()],
            free_at: vec![0; self.classes.len()],
            slot_cells: vec![0; self.pieces],
            occupied: 0,
            owner: [0; 64],
            free_ranked_cells: 0,
            free_class_at: [0; 64],
            stack: Vec::with_capacity(64),
            tile_at: 0,
            blank: 0,
            tile: tiled::fresh_state(self.tiled()),
        }
    }

    #[inline]
    fn decode(&self, key: u64, state: &mut SlidingState) {
        if let Some(t) = &self.tiled {
            return t.tiles.decode(key, &mut state.tile);
        }
        match (&self.lone, &self.blanks) {
            (Some(_), _) => lone::LoneBlank::decode(&self.tile_groups, key, state),
            (_, Some(blanks)) if blanks::FewBlanks::serves(self) => {
                blanks.decode(self, key, state);
            }
            _ => self.decode_full(key, state),
        }
    }

    #[inline]
    fn successors(&self, state: &mut SlidingState, out: &mut Vec<u64>) {
        if let Some(t) = &self.tiled {
            return t.tiles.successors(&mut state.tile, out);
        }
        match (&self.lone, &self.blanks) {
            (Some(lone), _) => lone.successors(state, out),
            (_, Some(blanks)) if blanks::FewBlanks::serves(self) => {
                blanks.successors(self, state, out);
            }
            _ => self.successors_full(state, out),
        }
    }

    fn is_goal(&self, state: &SlidingState) -> bool {
        if let Some(t) = &self.tiled {
            return !self.goal.is_empty() && t.is_goal(&state.tile);
        }
        self.goal_met(state)
    }

    fn has_goal(&self) -> bool {
        !self.goal.is_empty()
    }

    fn reversible(&self) -> bool {
        // A unit step, a straight slide and a path through free cells are
        // each undone by the reverse move of the same piece.
        true
    }

    fn bipartite(&self) -> bool {
        // A step moves one piece one cell: the sum of the row and column
        // of every piece's anchor changes by one (interchangeable pieces
        // too: the sum is over the set). A tile puzzle with one blank steps
        // under every metric. A slide may move a piece two cells.
        self.metric == Metric::Step || self.lone.is_some() || self.tiled.is_some()
    }

    fn dense(&self) -> bool {
        // A tile puzzle's keys are its positions of the start's parity. A
        // board of single-cell pieces that move every way has a key for
        // each placement of them among the floor's cells, most of which
        // the moves reach.
        self.tiled.is_some() || self.single_cells_only()
    }

    fn keys_are_states(&self) -> bool {
        // Pieces ranked among the free cells never overlap: every key is a
        // board.
        self.tiled.is_some() || self.classes.iter().all(|c| c.free_ranked)
    }

    fn goal_keys(&self) -> Option<Vec<u64>> {
        // A goal that places every piece is one position.
        if let Some(t) = &self.tiled {
            return t.goal_keys();
        }
        if self.goal.len() != self.pieces || self.wide.is_some() {
            return None;
        }
        let mut pos = vec![0u16; self.pieces];
        for (ci, class) in self.classes.iter().enumerate() {
            let mut anchors: Vec<u16> = self
                .goal
                .iter()
                .filter(|&&(c, _)| c == ci)
                .map(|&(_, a)| a)
                .collect();
            if anchors.len() != class.count() {
                return None;
            }
            // Within a class, anchors rise (a set).
            anchors.sort_unstable();
            pos[class.offset..class.offset + class.count()].copy_from_slice(&anchors);
        }
        Some(vec![self.encode_generic(&pos)])
    }

    fn adjacent_keys(&self) -> Option<crate::engine::AdjacentKeys> {
        self.tiled.as_ref().and_then(|t| t.tiles.adjacent_keys())
    }

    #[inline]
    fn far_successors(&self, state: &mut SlidingState, out: &mut Vec<u64>) {
        match &self.tiled {
            Some(t) => t.tiles.far_successors(&mut state.tile, out),
            None => self.successors(state, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EveryPosition;
    use crate::puzzles::builtin;
    use std::collections::{HashSet, VecDeque};

    /// Where a goal places every piece, its one key is the one key whose
    /// position meets the goal (every key of small boards tried, in
    /// their generic keys and as the search has them).
    #[test]
    fn a_goal_of_every_piece_is_the_one_goal_key() {
        let boards = [
            "board = \"\"\"\nABC\nDE.\n\"\"\"\ndistinct = \"*\"\ngoal = \"\"\"\nEDC\nBA.\n\"\"\"\n",
            "board = \"\"\"\nAAb\nc..\n\"\"\"\ngoal = \"\"\"\nc.b\n.AA\n\"\"\"\n",
            "board = \"\"\"\nAA.b\n.#c.\n\"\"\"\ngoal = \"\"\"\nb.AA\n.#.c\n\"\"\"\n",
        ];
        for text in boards {
            let read = SlidingPuzzle::from_toml(text, "goal.toml").unwrap();
            let generic = read.with_generic_keys();
            // Every position, as the census lists them; the tile model's
            // keys, each a position.
            let mut listed = Vec::new();
            for part in 0..generic.position_parts() {
                assert!(generic.part_positions(part, &mut listed, usize::MAX));
            }
            let every: Vec<u64> = (0..read.key_space()).collect();
            for (p, keys) in [(&generic, &listed), (&read, &every)] {
                if p.tiled.is_none() && !std::ptr::eq(keys, &listed) {
                    continue;
                }
                let mut state = p.new_state();
                let met: Vec<u64> = keys
                    .iter()
                    .copied()
                    .filter(|&k| {
                        p.decode(k, &mut state);
                        p.is_goal(&state)
                    })
                    .collect();
                assert_eq!(met.len(), 1, "{text}");
                assert_eq!(p.goal_keys(), Some(met), "{text}");
            }
        }
        // A goal of some pieces only: not one position.
        let some = builtin::sliding("klotski").unwrap();
        assert_eq!(some.goal_keys(), None);
    }

    /// Every reachable key (up to `limit`) decodes to a state that encodes
    /// back to it, lies in the key space, and agrees with its cells; every
    /// successor's key equals the key computed from scratch.
    fn keys_round_trip(p: &SlidingPuzzle, limit: usize) {
        let mut seen = HashSet::from([p.start()]);
        let mut queue = VecDeque::from([p.start()]);
        let (mut state, mut next) = (p.new_state(), p.new_state());
        let mut out = Vec::new();
        while let Some(key) = queue.pop_front() {
            assert!(key < p.key_space(), "{key} outside the key space");
            p.decode_full(key, &mut state);
            assert_eq!(p.encode(&state.pos), key);
            let cells: u64 = state.cells.iter().fold(0, |m, c| m | c);
            assert_eq!(cells, state.occupied);
            assert_eq!(state.occupied & p.walls, 0);
            // The engine's way, which a tile puzzle with one blank takes
            // through its own tables, and a puzzle with few blanks through
            // its own (which place every piece but the squares).
            p.decode(key, &mut next);
            let placed = match &p.blanks {
                _ if p.tiled.is_some() => 0,
                Some(_) if blanks::FewBlanks::serves(p) => p.classes[p.first_free].offset,
                _ => p.pieces,
            };
            assert_eq!(
                next.pos[..placed],
                state.pos[..placed],
                "positions of {key}"
            );
            out.clear();
            p.successors(&mut next, &mut out);
            for &s in &out {
                p.decode_full(s, &mut next);
                assert_eq!(p.encode(&next.pos), s, "successor of {key}");
                assert_eq!(next.occupied.count_ones(), state.occupied.count_ones());
                if seen.len() < limit && seen.insert(s) {
                    queue.push_back(s);
                }
            }
        }
    }

    /// The branch-free move test of `first_steps` (shifted cells) gives the
    /// same moves as the anchor tables of `step_to`, which the slide and
    /// piece metrics walk, in every state reached (up to `limit`).
    fn first_steps_agree_with_the_anchor_tables(p: &SlidingPuzzle, limit: usize) {
        let p = &p.generic();
        let mut seen = HashSet::from([p.start()]);
        let mut queue = VecDeque::from([p.start()]);
        let mut state = p.new_state();
        let mut out = Vec::new();
        while let Some(key) = queue.pop_front() {
            p.decode_full(key, &mut state);
            let mut want = [0u64; 4];
            for (slot, &(ci, _)) in p.slots.iter().enumerate() {
                let class = &p.classes[usize::from(ci)];
                let at = state.pos[slot];
                let others = state.occupied & !class.masks[usize::from(at)];
                for d in Dir::ALL {
                    if class.step_to(at, d, others).is_some() {
                        let bit = 4 * slot + d as usize;
                        want[bit / 64] |= 1 << (bit % 64);
                    }
                }
            }
            assert_eq!(p.first_steps(&state), want, "{} at key {key}", p.name());
            out.clear();
            p.successors_full(&mut state, &mut out);
            for &s in &out {
                if seen.len() < limit && seen.insert(s) {
                    queue.push_back(s);
                }
            }
        }
    }

    impl SlidingPuzzle {
        /// The same puzzle with the generic keys (each class's rank), where
        /// it has the tile model's.
        fn generic(&self) -> SlidingPuzzle {
            let mut g = self.clone();
            if let Some(t) = g.tiled.take() {
                g.start = t.generic_key(self, self.start);
            }
            g
        }
    }

    /// Every builtin sliding puzzle.
    fn builtins() -> impl Iterator<Item = SlidingPuzzle> {
        builtin::ALL.iter().filter_map(|b| builtin::sliding(b.name))
    }

    #[test]
    fn first_steps_on_the_builtins_and_a_walled_board() {
        for p in builtins() {
            first_steps_agree_with_the_anchor_tables(&p, 20_000);
        }
        // Walls inside and at the edges, a piece that wraps no row, and
        // pieces that move one way only.
        let walled = "board = \"\"\"\n#AA.b\nc.#.b\nc.DD.\n.e..#\n\"\"\"\nhorizontal = \"D\"\nvertical = \"c\"\n";
        let p = SlidingPuzzle::from_toml(walled, "walled").unwrap();
        first_steps_agree_with_the_anchor_tables(&p, 100_000);
    }

    /// The moves of `p` the engine's way (through its own tables, when it
    /// has them) equal, as sets, the generic move generator's under each of
    /// `metrics`, and so does the goal test, in every state reached (up to
    /// `limit`); the number of states reached.
    fn own_tables_agree_with_the_generic_moves(
        p: &SlidingPuzzle,
        metrics: &[Metric],
        limit: usize,
    ) -> usize {
        let mut seen = HashSet::from([p.start()]);
        let mut queue = VecDeque::from([p.start()]);
        let (mut state, mut full) = (p.new_state(), p.new_state());
        let (mut got, mut want) = (Vec::new(), Vec::new());
        let generic: Vec<SlidingPuzzle> = metrics
            .iter()
            .map(|&m| p.generic().with_metric(m))
            .collect();
        // A tile puzzle's keys are the tile model's: compared by board.
        let to_generic = |k: u64| p.tiled().map_or(k, |t| t.generic_key(p, k));
        while let Some(key) = queue.pop_front() {
            p.decode(key, &mut state);
            got.clear();
            p.successors(&mut state, &mut got);
            let mut sorted: Vec<u64> = got.iter().map(|&k| to_generic(k)).collect();
            sorted.sort_unstable();
            for generic in &generic {
                let metric = generic.metric();
                generic.decode_full(to_generic(key), &mut full);
                want.clear();
                generic.successors_full(&mut full, &mut want);
                want.sort_unstable();
                assert_eq!(
                    sorted,
                    want,
                    "{} at key {key}, {} metric",
                    p.name(),
                    metric.name()
                );
            }
            assert_eq!(
                p.is_goal(&state),
                generic[0].is_goal(&full),
                "goal at key {key}"
            );
            for &s in &got {
                if seen.len() < limit && seen.insert(s) {
                    queue.push_back(s);
                }
            }
        }
        seen.len()
    }

    /// A tile puzzle with one blank moves by its own tables as the generic
    /// generator does under every metric (only one cell is empty).
    fn lone_blank_agrees_with_the_generic_moves(p: &SlidingPuzzle, limit: usize) -> usize {
        assert!(p.lone.is_some(), "{} has its own tables", p.name());
        // Without the tile model's keys, where it has them.
        let p = &p.generic();
        own_tables_agree_with_the_generic_moves(
            p,
            &[Metric::Step, Metric::Slide, Metric::Piece],
            limit,
        )
    }

    #[test]
    fn tile_puzzles_with_one_blank_move_by_their_own_tables() {
        // Every state of the 8-puzzle (half of 9!).
        let eight = builtin::sliding("eight").unwrap();
        assert_eq!(
            lone_blank_agrees_with_the_generic_moves(&eight, usize::MAX),
            181_440
        );
        lone_blank_agrees_with_the_generic_moves(&builtin::sliding("eleven").unwrap(), 50_000);
        let fifteen = "board = \"\"\"\nABCD\nEFGH\nIJKL\nMNO.\n\"\"\"\ndistinct = \"*\"\n";
        let fifteen = SlidingPuzzle::from_toml(fifteen, "fifteen").unwrap();
        lone_blank_agrees_with_the_generic_moves(&fifteen, 50_000);
        // Walls shift the floor indices a vertical move passes; one-way
        // tiles; a goal.
        let walled = "board = \"\"\"\nab#\ncde\nf.g\n\"\"\"\ndistinct = \"*\"\nhorizontal = \"c\"\nvertical = \"e\"\ngoal = \"\"\"\n..#\n...\n.a.\n\"\"\"\n";
        let walled = SlidingPuzzle::from_toml(walled, "walled").unwrap();
        assert!(lone_blank_agrees_with_the_generic_moves(&walled, usize::MAX) > 100);
        // Two blanks, interchangeable tiles or other pieces: the generic way.
        for toml in [
            "board = \"\"\"\nab\ncd\ne.\n.f\n\"\"\"\ndistinct = \"*\"\n",
            "board = \"\"\"\naa\nbc\nd.\n\"\"\"\n",
        ] {
            assert!(
                SlidingPuzzle::from_toml(toml, "other")
                    .unwrap()
                    .lone
                    .is_none(),
                "{toml}"
            );
        }
        assert!(builtin::sliding("pe766").unwrap().lone.is_none());
    }

    /// A puzzle file that is a tile puzzle takes the tile model's keys,
    /// from any start and with a goal: its moves and goal test are the
    /// generic generator's, board by board, and it reaches as many states.
    #[test]
    fn tile_files_take_the_tile_model_from_any_start() {
        let boards = [
            ("ab\nc.", 12),
            ("a.c\nbde", 360),
            ("b.\nac\ned", 360),
            ("8.6\n543\n217", 181_440),
            ("dcba\nhgf.", 20_160),
            (".gfe\ndcba", 20_160),
        ];
        for (board, states) in boards {
            let toml = format!("board = \"\"\"\n{board}\n\"\"\"\ndistinct = \"*\"\n");
            let p = SlidingPuzzle::from_toml(&toml, "tiles").unwrap();
            assert!(p.tiled.is_some(), "{board}");
            assert_eq!(p.key_space(), states as u64, "{board}");
            let reached = own_tables_agree_with_the_generic_moves(
                &p,
                &[Metric::Step, Metric::Slide, Metric::Piece],
                usize::MAX,
            );
            assert_eq!(reached, states, "{board}");
            keys_round_trip(&p, 5_000);
        }
        // A goal of some tiles: the tile model's test is the generic one's.
        let toml = "board = \"\"\"\n321\n.54\n876\n\"\"\"\ndistinct = \"*\"\ngoal = \"\"\"\n1..\n...\n..8\n\"\"\"\n";
        let p = SlidingPuzzle::from_toml(toml, "goal").unwrap();
        assert!(p.tiled.is_some() && p.has_goal());
        own_tables_agree_with_the_generic_moves(&p, &[Metric::Step], usize::MAX);
        // Walls, a one-way tile, two blanks or a piece of two cells: the
        // generic keys.
        for toml in [
            "board = \"\"\"\nab#\nc.d\n\"\"\"\ndistinct = \"*\"\n",
            "board = \"\"\"\nab\nc.\n\"\"\"\ndistinct = \"*\"\nhorizontal = \"a\"\n",
            "board = \"\"\"\nab\n..\n\"\"\"\ndistinct = \"*\"\n",
            "board = \"\"\"\naa\nb.\nc.\n\"\"\"\ndistinct = \"*\"\n",
            "board = \"\"\"\nab\nb.\n\"\"\"\n",
        ] {
            assert!(
                SlidingPuzzle::from_toml(toml, "other")
                    .unwrap()
                    .tiled
                    .is_none(),
                "{toml}"
            );
        }
    }

    #[test]
    fn keys_round_trip_on_the_builtins() {
        for p in builtins() {
            for metric in [Metric::Step, Metric::Slide, Metric::Piece] {
                keys_round_trip(&p.clone().with_metric(metric), 20_000);
            }
        }
    }

    /// A puzzle with a few blanks among its squares moves by [`blanks`] as
    /// the generic generator does under the step metric.
    fn few_blanks_agree_with_the_generic_moves(p: &SlidingPuzzle, limit: usize) -> usize {
        assert!(p.blanks.is_some(), "{} takes the few-blanks way", p.name());
        own_tables_agree_with_the_generic_moves(p, &[Metric::Step], limit)
    }

    #[test]
    fn puzzles_with_few_blanks_among_squares_move_by_their_own_tables() {
        let pe766 = builtin::sliding("pe766").unwrap();
        few_blanks_agree_with_the_generic_moves(&pe766, 200_000);
        let example = builtin::sliding("pe766-example").unwrap();
        assert_eq!(
            few_blanks_agree_with_the_generic_moves(&example, usize::MAX),
            208
        );
        for toml in [
            // Walls, one-way pieces, three blanks among six squares.
            "board = \"\"\"\n#AAb.\nc.#bd\ncEEfg\nhij.#\n\"\"\"\nhorizontal = \"E\"\nvertical = \"c\"\n",
            // A piece that enters both blanks at once (one move, not two).
            "board = \"\"\"\nAA\n..\nbc\nde\n\"\"\"\n",
            // A goal for a pair's piece, squares that move one way.
            "board = \"\"\"\nAAb\nc.d\nef.\nBBg\n\"\"\"\nvertical = \"bcdefg\"\ngoal = \"\"\"\n...\n...\n...\nAA.\n\"\"\"\n",
        ] {
            let p = SlidingPuzzle::from_toml(toml, "few").unwrap();
            assert!(
                few_blanks_agree_with_the_generic_moves(&p, usize::MAX) > 10,
                "{toml}"
            );
            // The slide metric may pass several blanks: the generic way.
            let slide = p.clone().with_metric(Metric::Slide);
            let mut state = slide.new_state();
            slide.decode(slide.start(), &mut state);
            let mut full = slide.new_state();
            slide.decode_full(slide.start(), &mut full);
            assert_eq!(state.pos, full.pos, "{toml}");
        }
        // A class of four, squares in the goal, more blanks than squares,
        // a tile puzzle: the generic way (or the lone blank's).
        for toml in [
            "board = \"\"\"\nAABB\nCCDD\nefg.\nhij.\n\"\"\"\n",
            "board = \"\"\"\nAAb\nc.d\n\"\"\"\ngoal = \"\"\"\n.b.\n...\n\"\"\"\n",
            "board = \"\"\"\nAAb\n...\n\"\"\"\n",
        ] {
            let p = SlidingPuzzle::from_toml(toml, "other").unwrap();
            assert!(p.blanks.is_none(), "{toml}");
        }
        assert!(builtin::sliding("klotski").unwrap().blanks.is_none());
        assert!(builtin::sliding("eight").unwrap().blanks.is_none());
    }

    /// The depth difference of every edge among the states reached (up to
    /// `limit`) by a breadth-first search: whether one joins two states of
    /// the same level (which a `bipartite` model must never have).
    fn has_an_edge_within_a_level(p: &SlidingPuzzle, limit: usize) -> bool {
        let mut depth = std::collections::HashMap::from([(p.start(), 0u32)]);
        let mut queue = VecDeque::from([p.start()]);
        let mut state = p.new_state();
        let mut out = Vec::new();
        while let Some(key) = queue.pop_front() {
            let d = depth[&key];
            p.decode(key, &mut state);
            out.clear();
            p.successors(&mut state, &mut out);
            for &s in &out {
                match depth.get(&s) {
                    Some(&e) if e == d => return true,
                    Some(&e) => assert!(e + 1 == d || e == d + 1, "{}: {d} to {e}", p.name()),
                    None if depth.len() < limit => {
                        depth.insert(s, d + 1);
                        queue.push_back(s);
                    }
                    None => {}
                }
            }
        }
        false
    }

    #[test]
    fn step_moves_never_join_two_states_of_one_level() {
        let walled = "board = \"\"\"\n#AA.b\nc.#.b\nc.DD.\n.e..#\n\"\"\"\nhorizontal = \"D\"\nvertical = \"c\"\n";
        let walled = SlidingPuzzle::from_toml(walled, "walled").unwrap();
        for p in builtins().chain([walled]) {
            assert!(p.bipartite(), "{}", p.name());
            assert!(!has_an_edge_within_a_level(&p, 200_000), "{}", p.name());
            // A tile puzzle with one blank steps under every metric; a
            // slide of two cells joins states of one level.
            let slide = p.clone().with_metric(Metric::Slide);
            assert_eq!(slide.bipartite(), p.lone.is_some(), "{}", p.name());
            if p.lone.is_none() && p.name() == "klotski" {
                assert!(has_an_edge_within_a_level(&slide, usize::MAX));
            }
        }
    }

    #[test]
    fn squares_that_fill_the_board_or_leave_one_hole() {
        let full = SlidingPuzzle::from_toml("board = \"\"\"\nab\ncd\n\"\"\"\n", "full").unwrap();
        assert_eq!(full.key_space(), 1);
        keys_round_trip(&full, 10);
        let holes = "board = \"\"\"\naab\nc.d\nefg\n\"\"\"\ndistinct = \"b\"\n";
        let p = SlidingPuzzle::from_toml(holes, "holes").unwrap();
        keys_round_trip(&p, 1000);
        // The profile that the previous keying (squares over all their
        // anchors) gave, from the sequential oracle and the engine.
        let before = [
            1, 3, 3, 1, 1, 2, 2, 2, 2, 3, 5, 7, 6, 7, 8, 7, 5, 3, 3, 3, 3, 1, 1, 2, 2, 1,
        ];
        assert_eq!(crate::engine::reference::level_sizes(&p), before);
        let report = crate::engine::Search::new(&p).threads(2).count().unwrap();
        assert_eq!(report.levels, before);
    }

    #[test]
    fn select_finds_the_rth_set_bit() {
        for m in [
            1u64,
            0b1011_0110,
            0xf0f0_0000_0000_0001,
            u64::MAX,
            1 << 63,
            0xaaaa_5555_0000_ffff,
        ] {
            let mut rest = m;
            for r in 0..m.count_ones() {
                assert_eq!(select(m, r), rest.trailing_zeros(), "{m:#x}, {r}");
                rest &= rest - 1;
            }
        }
    }

    #[test]
    fn squares_are_ranked_among_the_free_cells() {
        let p = builtin::sliding("pe766").unwrap();
        let squares = p.classes().last().unwrap();
        assert_eq!((squares.count(), squares.ranked_over()), (6, 8));
        assert_eq!(p.key_space(), 190 * 190 * 276 * 20 * 25 * 28);
        // Sliding tiles are ranked among the cells the tiles before them
        // leave: the keys of a tile puzzle are dense, 9!/1 for the 8-puzzle.
        let eight = builtin::sliding("eight").unwrap();
        let over: Vec<usize> = eight.classes().iter().map(Class::ranked_over).collect();
        assert_eq!(over, [9, 8, 7, 6, 5, 4, 3, 2]);
        assert_eq!(eight.generic().key_space(), 362_880);
        let eleven = builtin::sliding("eleven").unwrap();
        assert_eq!(eleven.generic().key_space(), 479_001_600);
        // Their search takes the tile model's keys: the positions of the
        // start's parity, half of them.
        assert_eq!(
            (eight.key_space(), eleven.key_space()),
            (181_440, 239_500_800)
        );
    }
}
