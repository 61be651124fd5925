//! Sliding tiles past 16 cells (`tiles-5x5`, `tiles-4x5`, `tiles-6x6`),
//! whose positions (25!/2 = 7.8e24 for the 5x5) are past a 64-bit key.
//!
//! The board is the sequence of its cells' values (the blank 0, tile `t`
//! as `t`), and the key is that sequence's Lehmer code: digit `i` (radix
//! `n - i`) counts the smaller values after cell `i`'s, the last digit
//! implied. The digits are packed whole into 64-bit words, smallest radix
//! first, so a key is an exact packing of the board, a few words wide (two
//! for the 5x5, three for the 6x6), never a fingerprint. Half of the keys
//! are boards of the other parity, which no move reaches: the key space
//! is `n!`, the positions `n!/2`. The search keeps sorted levels of keys
//! (see [`crate::engine::Wide`]); the 16-cell puzzles and smaller keep
//! [`crate::puzzles::tiles::Tiles`], whose dense keys take every store.

use crate::engine::{Key, Model, Wide};
use crate::puzzles::tiles::TilesError;

/// The largest board: 36 cells (the 6x6, 35 tiles, named 1-9 and A-Z).
pub const MAX_CELLS: usize = 36;

/// Where a Lehmer digit lives in the key.
#[derive(Clone, Copy, Debug)]
struct Place {
    /// The digit's radix.
    radix: u64,
    /// The word, counted from the least significant.
    word: usize,
    /// Its place value in the word.
    weight: u64,
}

/// An `R x C` board of sliding tiles of more than 16 cells, counted from
/// its solved position (tiles in reading order, the blank last).
#[derive(Clone, Debug)]
pub struct LargeTiles {
    rows: usize,
    cols: usize,
    n: usize,
    /// Digit `i`'s place, for `i` in `0..n - 1`.
    places: Vec<Place>,
    /// For each word, the digits in it, in packing order (the least
    /// significant first).
    words: Vec<Vec<usize>>,
}

/// A decoded board.
#[derive(Clone, Debug)]
pub struct LargeTileState {
    /// Each cell's value: the blank 0, tile `t` as `t`.
    cells: [u8; MAX_CELLS],
    /// The blank's cell.
    blank: usize,
}

impl LargeTiles {
    /// The `rows` x `cols` board: at least 2 each, more than 16 cells
    /// and at most [`MAX_CELLS`].
    pub fn new(rows: usize, cols: usize) -> Result<LargeTiles, TilesError> {
        let n = rows * cols;
        if rows < 2 || cols < 2 || n <= crate::puzzles::tiles::MAX_CELLS || n > MAX_CELLS {
            return Err(TilesError::Shape(format!("{rows}x{cols}")));
        }
        // The smallest radices first, each word filled while the radices
        // multiply within 2^64.
        let mut places = vec![
            Place {
                radix: 0,
                word: 0,
                weight: 0
            };
            n - 1
        ];
        let mut words: Vec<Vec<usize>> = vec![Vec::new()];
        let mut weight = 1u64;
        for i in (0..n - 1).rev() {
            let radix = (n - i) as u64;
            if weight.checked_mul(radix).is_none() {
                words.push(Vec::new());
                weight = 1;
            }
            let word = words.len() - 1;
            places[i] = Place {
                radix,
                word,
                weight,
            };
            words[word].push(i);
            weight *= radix;
        }
        Ok(LargeTiles {
            rows,
            cols,
            n,
            places,
            words,
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

    /// How many 64-bit words a key takes.
    pub fn words(&self) -> usize {
        self.words.len()
    }

    /// The positions: `n!/2`, in decimal.
    pub fn positions_text(&self) -> String {
        // n!/2 = 3 x 4 x ... x n.
        crate::puzzles::twisty::coord::product_text(3..=self.n as u64)
    }

    /// The key of the board whose cells hold `cells`.
    fn key_of<K: Key>(&self, cells: &[u8]) -> K {
        let mut key = K::default();
        let mut used = 0u64;
        for (i, place) in self.places.iter().enumerate() {
            let v = cells[i];
            let digit = u64::from(v) - u64::from((used & ((1u64 << v) - 1)).count_ones());
            used |= 1 << v;
            *key.word_mut(place.word) += digit * place.weight;
        }
        key
    }

    /// Decodes `key` into `state`.
    fn decode_key<K: Key>(&self, key: K, state: &mut LargeTileState) {
        let mut digits = [0u8; MAX_CELLS];
        for (w, list) in self.words.iter().enumerate() {
            let mut rest = key.word(w);
            for &i in list {
                let radix = self.places[i].radix;
                digits[i] = (rest % radix) as u8;
                rest /= radix;
            }
        }
        let mut unused: u64 = (1u64 << self.n) - 1;
        for (i, (cell, &digit)) in state.cells[..self.n].iter_mut().zip(&digits).enumerate() {
            let mut bits = unused;
            for _ in 0..digit {
                bits &= bits - 1;
            }
            let v = bits.trailing_zeros() as u8;
            unused &= !(1 << v);
            *cell = v;
            if v == 0 {
                state.blank = i;
            }
        }
    }

    /// The keys of the boards one move from the decoded one.
    fn successors_of<K: Key>(&self, state: &mut LargeTileState, out: &mut Vec<K>) {
        let (b, cols) = (state.blank, self.cols);
        let (row, col) = (b / cols, b % cols);
        let mut step = |to: usize| {
            state.cells.swap(b, to);
            out.push(self.key_of(&state.cells[..self.n]));
            state.cells.swap(b, to);
        };
        if row > 0 {
            step(b - cols);
        }
        if row + 1 < self.rows {
            step(b + cols);
        }
        if col > 0 {
            step(b - 1);
        }
        if col + 1 < cols {
            step(b + 1);
        }
    }

    /// The board of `key` as rows of tiles (1-9, then A-Z) and `.` for the
    /// blank.
    pub fn render<K: Key>(&self, key: K) -> String {
        let mut state = LargeTileState {
            cells: [0; MAX_CELLS],
            blank: 0,
        };
        self.decode_key(key, &mut state);
        let mut out = String::new();
        for (cell, &v) in state.cells[..self.n].iter().enumerate() {
            out.push(match v {
                0 => '.',
                t => char::from_digit(u32::from(t), 36)
                    .unwrap_or('?')
                    .to_ascii_uppercase(),
            });
            if cell % self.cols == self.cols - 1 {
                out.push('\n');
            }
        }
        out
    }

    /// The solved board, as [`LargeTiles::render`] draws it.
    pub fn start_board(&self) -> String {
        self.render(self.key_of::<Wide<{ MAX_CELLS / 8 }>>(&self.solved()))
    }

    /// The solved board's cells: tiles in order, the blank last.
    fn solved(&self) -> Vec<u8> {
        (1..self.n as u8).chain([0]).collect()
    }
}

/// A [`LargeTiles`] board searched with keys of type `K`: `u64` where
/// its keys take one word (`tiles-4x5`: 20! < 2^64), else a [`Wide`] key
/// of as many words or more.
#[derive(Clone, Copy, Debug)]
pub struct LargeTilesOf<'t, K>(&'t LargeTiles, std::marker::PhantomData<K>);

impl<'t, K: Key> LargeTilesOf<'t, K> {
    /// The board with keys of `K`, or `None` when its keys take more
    /// words than `K` holds.
    pub fn new(tiles: &'t LargeTiles) -> Option<Self> {
        (tiles.words() <= K::WORDS).then_some(LargeTilesOf(tiles, std::marker::PhantomData))
    }
}

impl<K: Key> Model for LargeTilesOf<'_, K> {
    type State = LargeTileState;
    type Key = K;

    fn start(&self) -> K {
        self.0.key_of(&self.0.solved())
    }

    fn key_space(&self) -> u64 {
        // One word: the Lehmer codes of the n! boards. Wider: past any
        // array, as every wide model's.
        match K::WORDS {
            1 => (1..=self.0.n as u64).product(),
            _ => u64::MAX,
        }
    }

    fn new_state(&self) -> LargeTileState {
        LargeTileState {
            cells: [0; MAX_CELLS],
            blank: 0,
        }
    }

    fn decode(&self, key: K, state: &mut LargeTileState) {
        self.0.decode_key(key, state);
    }

    fn successors(&self, state: &mut LargeTileState, out: &mut Vec<K>) {
        self.0.successors_of(state, out);
    }

    fn reversible(&self) -> bool {
        true
    }

    fn bipartite(&self) -> bool {
        // Each move takes the blank to a cell of the other colour of a
        // chessboard.
        true
    }

    fn identity(&self) -> String {
        format!(
            "large tiles {}x{}; key words {}",
            self.0.rows,
            self.0.cols,
            K::WORDS
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_take_few_words() {
        let t = LargeTiles::new(5, 5).unwrap();
        assert_eq!(t.words(), 2);
        assert_eq!(LargeTiles::new(6, 6).unwrap().words(), 3);
        assert!(LargeTiles::new(4, 4).is_err() && LargeTiles::new(6, 7).is_err());
        assert_eq!(t.positions_text(), "7755605021665492992000000");
        let m = LargeTilesOf::<Wide<2>>::new(&t).unwrap();
        let mut s = m.new_state();
        let mut key = m.start();
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut out = Vec::new();
        for _ in 0..2000 {
            m.decode(key, &mut s);
            assert_eq!(t.key_of::<Wide<2>>(&s.cells[..25]), key);
            out.clear();
            m.successors(&mut s, &mut out);
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            key = out[(rng % out.len() as u64) as usize];
        }
        assert_eq!(t.render(m.start()).lines().last(), Some("LMNO."));
    }
}
