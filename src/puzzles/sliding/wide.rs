//! Sliding-block puzzles whose key space passes 2^64: many distinct
//! pieces on a large board (22 distinct tiles on an 8x8 board have
//! 64·63·…·43 placements, about 10^38).
//!
//! Such a puzzle is searched with keys of several 64-bit words
//! ([`WideSliding`]). Every class is ranked over its admissible anchors
//! (a class of single cells too, which the one-word keys rank among the
//! cells the other pieces leave: that rank changes whenever another piece
//! moves, and a key of several words has the room not to need it). The
//! classes' ranks are packed whole into words, in key order, each word
//! filled while the product of its classes' radices fits 64 bits: a key is
//! an exact packing of the canonical form, and a move changes one class's
//! rank, so one word. The search keeps sorted levels of such keys in
//! memory or on disk, on one process or several (see
//! [`crate::engine::Wide`]).

use super::{Metric, SlidingPuzzle, SlidingState};
use crate::engine::{Key, Model, Wide};
use crate::puzzles::combinadic;

/// The widest key a sliding-block puzzle takes, in words. A board has at
/// most 64 pieces of at most 64 positions each, so its classes' ranks take
/// at most 64 · 6 = 384 bits in all; a word is closed only when its ranks
/// and the next class's pass 64 bits, so each of `W - 1` words and the
/// class after it hold over 64 bits, each class counted at most twice:
/// `64 (W - 1) < 2 · 384`, at most 12 words, within 16 (the command line
/// compiles the widths 2, 3, 4, 6, 8 and 16).
pub const MAX_WORDS: usize = 16;

/// Where a class's rank lives in a wide key.
#[derive(Clone, Copy, Debug)]
struct Place {
    /// The word, counted from the least significant.
    word: usize,
    /// The rank's place value in its word.
    weight: u64,
    /// C(anchors, pieces): the rank is below it.
    radix: u64,
}

/// How a puzzle's wide keys are laid out, and its start in them.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// Each class's place, in key order.
    places: Vec<Place>,
    /// Words a key takes.
    words: usize,
    /// The start's anchor indices, slot by slot.
    start: Vec<u16>,
}

impl Layout {
    /// The layout of `puzzle`'s keys, which start at the anchor indices
    /// `start`; an error when they would take more than [`MAX_WORDS`].
    pub(crate) fn new(puzzle: &SlidingPuzzle, start: &[u16]) -> Result<Layout, String> {
        let mut places = Vec::with_capacity(puzzle.classes.len());
        let (mut word, mut room) = (0, 1u64);
        for class in &puzzle.classes {
            let radix = combinadic::binomial(class.positions(), class.count()).max(1);
            if room.checked_mul(radix).is_none() {
                word += 1;
                room = 1;
            }
            places.push(Place {
                word,
                weight: room,
                radix,
            });
            room *= radix;
        }
        let words = word + 1;
        if words > MAX_WORDS {
            return Err(format!(
                "its keys would take {words} 64-bit words; at most {MAX_WORDS} are supported"
            ));
        }
        Ok(Layout {
            places,
            words,
            start: start.to_vec(),
        })
    }

    /// Words a key takes.
    pub(crate) fn words(&self) -> usize {
        self.words
    }

    /// The start's anchor indices.
    pub(crate) fn start(&self) -> &[u16] {
        &self.start
    }

    /// The most significant word a key uses, and the number of values its
    /// classes' ranks take in it (the product of their radices): a value
    /// at or above it is free for a digit of another kind (a class's size,
    /// [`super::BoardSymmetry`]).
    pub(crate) fn top(&self) -> (usize, u64) {
        self.places
            .last()
            .map_or((0, 1), |p| (p.word, p.weight * p.radix))
    }

    /// log2 of the number of keys (the product of the radices).
    pub(crate) fn bits(&self) -> f64 {
        self.places.iter().map(|p| (p.radix as f64).log2()).sum()
    }
}

/// A sliding-block puzzle whose keys take more than one word, searched
/// with keys of `N` words (at least [`SlidingPuzzle::words`]).
#[derive(Clone, Copy, Debug)]
pub struct WideSliding<'p, const N: usize> {
    puzzle: &'p SlidingPuzzle,
    layout: &'p Layout,
}

/// A decoded board and its key.
#[derive(Clone, Debug)]
pub struct WideState<const N: usize> {
    board: SlidingState,
    key: Wide<N>,
}

impl<'p, const N: usize> WideSliding<'p, N> {
    /// The puzzle with keys of `N` words, or `None` when its keys are one
    /// word or take more than `N`.
    pub fn new(puzzle: &'p SlidingPuzzle) -> Option<Self> {
        let layout = puzzle.wide.as_deref()?;
        (layout.words <= N).then_some(WideSliding { puzzle, layout })
    }

    /// The puzzle.
    pub fn puzzle(&self) -> &'p SlidingPuzzle {
        self.puzzle
    }

    /// The key of `board` (whose key is `key`) with the `i`-th piece of
    /// class `ci` moved to anchor `to`: one word changes.
    #[inline]
    fn key_with(
        &self,
        board: &SlidingState,
        key: Wide<N>,
        ci: usize,
        i: usize,
        to: u16,
    ) -> Wide<N> {
        self.puzzle
            .wide_key_with(self.layout, board, key, ci, i, to)
    }
}

impl SlidingPuzzle {
    /// The wide key of `board` (whose key is `key`, laid out by `layout`)
    /// with the `i`-th piece of class `ci` moved to anchor `to`: one word
    /// changes, and nothing above the layout's ranks (a digit a key of
    /// classes keeps there) does.
    #[inline]
    pub(super) fn wide_key_with<K: Key>(
        &self,
        layout: &Layout,
        board: &SlidingState,
        key: K,
        ci: usize,
        i: usize,
        to: u16,
    ) -> K {
        let place = layout.places[ci];
        let new = self.anchored_rank_with(board, ci, i, to);
        let mut key = key;
        let word = key.word_mut(place.word);
        *word = word
            .wrapping_sub(board.ranks[ci].wrapping_mul(place.weight))
            .wrapping_add(new.wrapping_mul(place.weight));
        key
    }

    /// The wide key of the pieces at anchor indices `pos` (sorted within
    /// each class).
    pub(super) fn encode_wide<K: Key>(&self, layout: &Layout, pos: &[u16]) -> K {
        let mut key = K::default();
        for (class, place) in self.classes.iter().zip(&layout.places) {
            let rank = combinadic::rank(&pos[class.offset..class.offset + class.count()]);
            *key.word_mut(place.word) += rank * place.weight;
        }
        key
    }

    /// Decodes the wide `key` into every part of `board` that moves, the
    /// goal and a solution's steps read: positions, ranks, cells, the
    /// owner table.
    pub(super) fn decode_wide<K: Key>(&self, layout: &Layout, key: K, board: &mut SlidingState) {
        let mut occupied = 0;
        for (ci, (class, place)) in self.classes.iter().zip(&layout.places).enumerate() {
            let rank = key.word(place.word) / place.weight % place.radix;
            board.ranks[ci] = rank;
            let set = &mut board.pos[class.offset..class.offset + class.count()];
            combinadic::unrank(rank, class.positions(), set);
            let mut class_cells = 0;
            for (j, &a) in set.iter().enumerate() {
                let cells = class.masks[usize::from(a)];
                board.slot_cells[class.offset + j] = cells;
                class.own(a, class.offset + j, &mut board.owner);
                class_cells |= cells;
            }
            board.cells[ci] = class_cells;
            occupied |= class_cells;
        }
        board.occupied = occupied;
    }
}

impl<const N: usize> Model for WideSliding<'_, N> {
    type State = WideState<N>;
    type Key = Wide<N>;

    fn start(&self) -> Wide<N> {
        self.puzzle.encode_wide(self.layout, &self.layout.start)
    }

    fn key_space(&self) -> u64 {
        u64::MAX
    }

    fn new_state(&self) -> WideState<N> {
        WideState {
            board: self.puzzle.new_state(),
            key: Wide::default(),
        }
    }

    fn decode(&self, key: Wide<N>, state: &mut WideState<N>) {
        state.key = key;
        self.puzzle.decode_wide(self.layout, key, &mut state.board);
    }

    fn successors(&self, state: &mut WideState<N>, out: &mut Vec<Wide<N>>) {
        let current = state.key;
        self.puzzle
            .each_successor(&mut state.board, out, |board, ci, i, to| {
                self.key_with(board, current, ci, i, to)
            });
    }

    fn is_goal(&self, state: &WideState<N>) -> bool {
        self.puzzle.goal_met(&state.board)
    }

    fn has_goal(&self) -> bool {
        !self.puzzle.goal.is_empty()
    }

    fn reversible(&self) -> bool {
        true
    }

    fn bipartite(&self) -> bool {
        // See the one-word model: a unit step moves one piece one cell.
        self.puzzle.metric == Metric::Step
    }

    fn identity(&self) -> String {
        format!("{}; key words {N}", self.puzzle.describe())
    }
}

impl SlidingPuzzle {
    /// The same puzzle with keys of at least two words even where its key
    /// space fits one: the tests check [`WideSliding`] against the
    /// one-word model on every puzzle small enough to count.
    #[doc(hidden)]
    pub fn widened(&self) -> SlidingPuzzle {
        let mut state = self.new_state();
        self.decode_full(self.start, &mut state);
        let mut layout = Layout::new(self, &state.pos).expect("a board's keys fit 16 words");
        layout.words = layout.words.max(2);
        let mut wide = self.clone();
        wide.wide = Some(Box::new(layout));
        (wide.tiled, wide.lone, wide.blanks) = (None, None, None);
        wide
    }
}
