//! Symmetry: a sliding-block puzzle searched one class of mirror-image
//! positions at a time.
//!
//! A motion of the board (a mirror, a half turn, and on a square board
//! the quarter turns and the diagonal mirrors) maps a position to another
//! position: every piece's cells moved by it. It maps the state graph
//! onto itself, level by level, exactly when
//!
//! - it maps the floor onto the floor (the walls onto the walls),
//! - every class's pieces, moved, are the pieces of one class (its image:
//!   the same shape, moved; the same rails, turned with the board: a car
//!   that slides left and right slides up and down after a quarter turn),
//!   every admissible anchor of the one mapped to one of the other,
//! - the start is its own image (each class's pieces land on its image's
//!   pieces), and
//! - the goal is its own image.
//!
//! Every motion is checked against all four, never assumed; those that
//! pass form a group (each check is "the motion fixes something", which
//! products and inverses keep). The image class of a class is read off
//! the start: a piece of the one lands on a piece of the other. So a
//! mirror may swap two classes of the same shape (two cars of different
//! colours) where the start has each where the other's image is, and a
//! tile puzzle's mirror relabels its tiles (the conjugation that fixes
//! the blank's start).
//!
//! A position's class is its images; its representative, the image of
//! least generic key (each class's combinadic rank in mixed radix); its
//! size, the group's order over the number of motions that fix it, which
//! the key carries as a digit above the representative's key, so that
//! the engine weighs a level by its keys alone and every level it
//! reports is a number of positions.
//!
//! The search decodes a class's representative and each of its images
//! once, then keys every move of the representative and the same move of
//! each image incrementally, as the search without symmetry keys its
//! moves ([`SlidingPuzzle::key_with`]): the successor's class key is the
//! least of them.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{Mobility, SlidingPuzzle, SlidingState};
use crate::engine::{Key, Model};

/// A motion of a board of `rows` by `cols` cells onto itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Motion {
    Identity,
    MirrorLeftRight,
    MirrorTopBottom,
    HalfTurn,
    /// The mirror in the diagonal from the top left corner.
    Transpose,
    /// The mirror in the diagonal from the top right corner.
    AntiTranspose,
    /// A quarter turn clockwise.
    QuarterTurn,
    /// A quarter turn anticlockwise.
    ThreeQuarterTurn,
}

impl Motion {
    const ALL: [Motion; 8] = [
        Motion::Identity,
        Motion::MirrorLeftRight,
        Motion::MirrorTopBottom,
        Motion::HalfTurn,
        Motion::Transpose,
        Motion::AntiTranspose,
        Motion::QuarterTurn,
        Motion::ThreeQuarterTurn,
    ];

    fn name(self) -> &'static str {
        match self {
            Motion::Identity => "identity",
            Motion::MirrorLeftRight => "left-right mirror",
            Motion::MirrorTopBottom => "top-bottom mirror",
            Motion::HalfTurn => "half turn",
            Motion::Transpose => "diagonal mirror",
            Motion::AntiTranspose => "anti-diagonal mirror",
            Motion::QuarterTurn => "quarter turn",
            Motion::ThreeQuarterTurn => "three-quarter turn",
        }
    }

    /// Whether it is a mirror image (not a turn of the board).
    fn mirrors(self) -> bool {
        matches!(
            self,
            Motion::MirrorLeftRight
                | Motion::MirrorTopBottom
                | Motion::Transpose
                | Motion::AntiTranspose
        )
    }

    /// Whether it turns rows into columns (a square board's only).
    fn swaps_axes(self) -> bool {
        matches!(
            self,
            Motion::Transpose
                | Motion::AntiTranspose
                | Motion::QuarterTurn
                | Motion::ThreeQuarterTurn
        )
    }

    /// Where it takes cell (`r`, `c`) of an `n` by `m` board (square when
    /// it swaps the axes).
    fn cell(self, r: usize, c: usize, n: usize, m: usize) -> (usize, usize) {
        match self {
            Motion::Identity => (r, c),
            Motion::MirrorLeftRight => (r, m - 1 - c),
            Motion::MirrorTopBottom => (n - 1 - r, c),
            Motion::HalfTurn => (n - 1 - r, m - 1 - c),
            Motion::Transpose => (c, r),
            Motion::AntiTranspose => (m - 1 - c, n - 1 - r),
            Motion::QuarterTurn => (c, n - 1 - r),
            Motion::ThreeQuarterTurn => (m - 1 - c, r),
        }
    }

    /// The rails of a piece after the motion.
    fn rails(self, m: Mobility) -> Mobility {
        match (self.swaps_axes(), m) {
            (true, Mobility::Horizontal) => Mobility::Vertical,
            (true, Mobility::Vertical) => Mobility::Horizontal,
            _ => m,
        }
    }
}

/// A motion kept, as it acts on the pieces' anchors.
#[derive(Clone, Debug)]
struct Element {
    motion: Motion,
    /// The class each class's pieces become.
    class: Vec<usize>,
    /// By class: the anchor index, in the image class, of each of its
    /// admissible anchors.
    anchor: Vec<Vec<u16>>,
}

/// The symmetries of a sliding-block puzzle: the motions of its board
/// that map it, its start and its goal onto themselves (see the module's
/// notes).
#[derive(Clone, Debug)]
pub struct BoardSymmetry {
    /// Every motion the board's shape allows, but the identity, with why
    /// it was not kept where it was not.
    considered: Vec<(Motion, Option<String>)>,
    /// The motions kept, but the identity.
    elements: Vec<Element>,
    /// The divisors of the group's order: a class key's digit says which
    /// is the number of motions that fix its representative.
    fixing: Vec<u64>,
    /// Where a class key's digit lives: the word of the key, and its place
    /// value there. A class key is its representative's generic key (one
    /// word) or wide key plus the digit times `weight` in word `word`:
    /// above the generic key space in the key's one word where the digit
    /// fits there, else above the ranks in the wide key's top word where it
    /// fits there, else alone in a word of its own.
    word: usize,
    weight: u64,
    /// The words a key of the puzzle takes.
    words: usize,
}

impl BoardSymmetry {
    /// The symmetries of `puzzle`, each checked (see the module's notes).
    pub fn of(puzzle: &SlidingPuzzle) -> BoardSymmetry {
        BoardSymmetry::with(puzzle, true)
    }

    /// The symmetries of `puzzle` that turn the board without mirroring
    /// it (the half and quarter turns), each checked.
    pub fn of_rotations(puzzle: &SlidingPuzzle) -> BoardSymmetry {
        BoardSymmetry::with(puzzle, false)
    }

    fn with(puzzle: &SlidingPuzzle, mirrors: bool) -> BoardSymmetry {
        let mut sym = BoardSymmetry {
            considered: Vec::new(),
            elements: Vec::new(),
            fixing: vec![1],
            word: 0,
            weight: puzzle.key_space,
            words: puzzle.words(),
        };
        let generic = puzzle.with_generic_keys();
        let start = match &puzzle.wide {
            Some(layout) => layout.start().to_vec(),
            None => {
                let mut start = generic.new_state();
                generic.decode_full(generic.start, &mut start);
                start.pos
            }
        };
        for motion in Motion::ALL.into_iter().skip(1) {
            if motion.swaps_axes() && puzzle.rows != puzzle.cols || !mirrors && motion.mirrors() {
                continue;
            }
            match element(&generic, &start, motion) {
                Ok(e) => {
                    sym.considered.push((motion, None));
                    sym.elements.push(e);
                }
                Err(why) => sym.considered.push((motion, Some(why))),
            }
        }
        let order = sym.order() as u64;
        sym.fixing = (1..=order).filter(|d| order.is_multiple_of(*d)).collect();
        let (top, room) = match &puzzle.wide {
            Some(layout) => layout.top(),
            None => (0, puzzle.key_space),
        };
        (sym.word, sym.weight) = match room.checked_mul(sym.fixing.len() as u64) {
            Some(_) => (top, room),
            None => (top + 1, 1),
        };
        sym
    }

    /// The words a class key takes: the puzzle's, or one more where its
    /// top word has no room for a class's size.
    pub fn key_words(&self) -> usize {
        self.words.max(self.word + 1)
    }

    /// The same symmetries with a class's digit in a word of its own above
    /// the puzzle's key, as where the puzzle leaves no room for it: the
    /// tests search a small puzzle that way.
    #[doc(hidden)]
    pub fn with_digit_alone(mut self) -> BoardSymmetry {
        self.word = self.key_words();
        self.weight = 1;
        self
    }

    /// The group's order: the motions kept, the identity included.
    pub fn order(&self) -> usize {
        self.elements.len() + 1
    }

    /// Whether the identity is all there is.
    pub fn is_trivial(&self) -> bool {
        self.elements.is_empty()
    }

    /// The names of the motions kept, the identity first.
    pub fn kept(&self) -> Vec<&'static str> {
        std::iter::once(Motion::Identity)
            .chain(self.elements.iter().map(|e| e.motion))
            .map(Motion::name)
            .collect()
    }

    /// The motions not kept, each with why.
    pub fn not_kept(&self) -> Vec<(&'static str, &str)> {
        self.considered
            .iter()
            .filter_map(|(m, why)| why.as_deref().map(|w| (m.name(), w)))
            .collect()
    }

    /// What `show` prints: the group and each motion's fate.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "symmetry: a group of order {} ({})",
            self.order(),
            self.kept().join(", ")
        );
        for (name, why) in self.not_kept() {
            let _ = writeln!(s, "  not the {name}: {why}");
        }
        s
    }

    /// The digit of a class whose representative `fixing` motions fix.
    fn digit(&self, fixing: u64) -> u64 {
        self.fixing.partition_point(|&d| d < fixing) as u64
    }
}

/// `motion` as it acts on `puzzle`'s pieces (generic keys), or why it does
/// not map the puzzle, whose start has its pieces at anchors `start`,
/// onto itself.
fn element(puzzle: &SlidingPuzzle, start: &[u16], motion: Motion) -> Result<Element, String> {
    let (rows, cols) = (puzzle.rows, puzzle.cols);
    let to: Vec<u32> = (0..rows * cols)
        .map(|i| {
            let (r, c) = motion.cell(i / cols, i % cols, rows, cols);
            (r * cols + c) as u32
        })
        .collect();
    let moved = |mut cells: u64| {
        let mut out = 0u64;
        while cells != 0 {
            out |= 1 << to[cells.trailing_zeros() as usize];
            cells &= cells - 1;
        }
        out
    };
    if moved(puzzle.floor) != puzzle.floor {
        return Err("it does not map the walls onto the walls".into());
    }
    let classes = &puzzle.classes;
    // The class at each cell of the start.
    let mut owner = [usize::MAX; 64];
    for (ci, c) in classes.iter().enumerate() {
        for &a in &start[c.offset..c.offset + c.count()] {
            let mut cells = c.masks[usize::from(a)];
            while cells != 0 {
                owner[cells.trailing_zeros() as usize] = ci;
                cells &= cells - 1;
            }
        }
    }
    let mut class = Vec::with_capacity(classes.len());
    let mut anchor = Vec::with_capacity(classes.len());
    for c in classes {
        let label = c.labels[0];
        let lands = moved(c.masks[usize::from(start[c.offset])]);
        let image = owner[lands.trailing_zeros() as usize];
        if image == usize::MAX {
            return Err(format!(
                "it does not map the start onto itself: piece {label} lands on an empty cell"
            ));
        }
        let into = &classes[image];
        if into.mobility != motion.rails(c.mobility) {
            return Err(format!(
                "piece {label} lands on piece {}, which moves along other rails",
                into.labels[0]
            ));
        }
        let index: HashMap<u64, u16> = (into.masks.iter().enumerate())
            .map(|(i, &m)| (m, i as u16))
            .collect();
        let map: Option<Vec<u16>> = c
            .masks
            .iter()
            .map(|&m| index.get(&moved(m)).copied())
            .collect();
        let Some(map) = map else {
            return Err(format!(
                "it does not map the start onto itself: piece {label} lands on piece {}, of another shape",
                into.labels[0]
            ));
        };
        class.push(image);
        anchor.push(map);
    }
    for (ci, c) in classes.iter().enumerate() {
        let into = &classes[class[ci]];
        let mut set: Vec<u16> = start[c.offset..c.offset + c.count()]
            .iter()
            .map(|&a| anchor[ci][usize::from(a)])
            .collect();
        set.sort_unstable();
        if c.count() != into.count() || set[..] != start[into.offset..into.offset + into.count()] {
            return Err(format!(
                "it does not map the start onto itself: the pieces {} land on other pieces",
                c.labels.iter().collect::<String>()
            ));
        }
    }
    let mut goal: Vec<(usize, u16)> = (puzzle.goal.iter())
        .map(|&(c, a)| (class[c], anchor[c][usize::from(a)]))
        .collect();
    let mut own = puzzle.goal.clone();
    goal.sort_unstable();
    own.sort_unstable();
    if goal != own {
        return Err("it does not map the goal onto itself".into());
    }
    Ok(Element {
        motion,
        class,
        anchor,
    })
}

/// A decoded class: its representative, and each of its images under the
/// motions kept (in the order of [`BoardSymmetry`]'s elements).
pub struct SymmetricSlidingState<K> {
    /// The class key decoded.
    key: K,
    plain: SlidingState,
    /// The representative's key, without the class's digit: a wide key's
    /// moves change it a word at a time.
    plain_key: K,
    images: Vec<SlidingState>,
    /// Each image's key (wide keys; a one-word key's moves read the
    /// image's state alone).
    image_keys: Vec<K>,
    /// By image, then by the representative's piece slot: the index,
    /// within its class's pieces in the image, of that piece's image
    /// (found once a decode, not once a move).
    slots: Vec<u8>,
    /// Scratch: an image's anchors, and its classes' cells.
    pos: Vec<u16>,
    cells: Vec<u64>,
}

/// The parts of a decoded class that its successors' class keys read
/// (all of [`SymmetricSlidingState`] but the representative's state,
/// which the move generator holds).
struct Images<'s, K> {
    plain_key: K,
    images: &'s [SlidingState],
    image_keys: &'s [K],
    slots: &'s [u8],
}

/// A sliding-block puzzle searched one class of symmetric positions at a
/// time: each key is its class's representative's key (the generic key
/// where the puzzle's keys are one word, else its wide key) with the
/// class's size as a digit above it ([`BoardSymmetry::key_words`] words in
/// all, at most `K`'s), and the engine weighs it by that size
/// ([`Model::classes`]).
pub struct SymmetricSliding<'p, K = u64> {
    puzzle: &'p SlidingPuzzle,
    /// The puzzle with generic keys, which the search moves by.
    generic: SlidingPuzzle,
    sym: &'p BoardSymmetry,
    start: K,
}

/// A key of `K` whose word 0 is `word`.
fn one_word<K: Key>(word: u64) -> K {
    let mut key = K::default();
    *key.word_mut(0) = word;
    key
}

impl<'p, K: Key> SymmetricSliding<'p, K> {
    /// `puzzle` under `sym` (which must be [`BoardSymmetry::of`] it), or
    /// `None` where `sym` keeps nothing but the identity or its class keys
    /// take more words than `K` holds.
    pub fn new(puzzle: &'p SlidingPuzzle, sym: &'p BoardSymmetry) -> Option<Self> {
        if sym.is_trivial() || sym.key_words() > K::WORDS {
            return None;
        }
        let generic = puzzle.with_generic_keys();
        let mut model = SymmetricSliding {
            puzzle,
            generic,
            sym,
            start: K::default(),
        };
        // Every motion kept fixes the start: a class of one position.
        model.start = match &puzzle.wide {
            Some(layout) => model.generic.encode_wide(layout, layout.start()),
            None => one_word(model.generic.start),
        };
        let digit = sym.fixing.len() as u64 - 1;
        *model.start.word_mut(sym.word) += digit * sym.weight;
        Some(model)
    }

    /// The puzzle.
    pub fn puzzle(&self) -> &'p SlidingPuzzle {
        self.puzzle
    }

    /// The symmetries.
    pub fn symmetry(&self) -> &'p BoardSymmetry {
        self.sym
    }

    /// The representative's key of class key `key`: its digit taken off.
    #[inline]
    fn bare(&self, mut key: K) -> K {
        // A digit alone in its word (weight 1) leaves 0 there.
        *key.word_mut(self.sym.word) %= self.sym.weight;
        key
    }

    /// The generic (or wide) key of the pieces at anchor indices `pos`.
    #[inline]
    fn encode(&self, pos: &[u16], cells: &mut [u64]) -> K {
        match &self.generic.wide {
            Some(layout) => self.generic.encode_wide(layout, pos),
            None => one_word(self.generic.encode_with(pos, cells)),
        }
    }

    /// Decodes the generic (or wide) key `key` into `state`.
    #[inline]
    fn decode_bare(&self, key: K, state: &mut SlidingState) {
        match &self.generic.wide {
            Some(layout) => self.generic.decode_wide(layout, key, state),
            None => self.generic.decode_full(key.word(0), state),
        }
    }

    /// The key of `state` (whose key is `key`) with the `i`-th piece of
    /// class `ci` moved to anchor `to`.
    #[inline(always)]
    fn moved(&self, state: &SlidingState, key: K, ci: usize, i: usize, to: u16) -> K {
        match &self.generic.wide {
            Some(layout) => self.generic.wide_key_with(layout, state, key, ci, i, to),
            None => one_word(self.generic.key_with(state, ci, i, to)),
        }
    }

    /// The anchors of `e`'s image of the pieces at anchors `pos` into
    /// `out`, sorted within each class.
    fn image(&self, e: &Element, pos: &[u16], out: &mut [u16]) {
        let classes = &self.generic.classes;
        for (ci, c) in classes.iter().enumerate() {
            let into = &classes[e.class[ci]];
            let dst = &mut out[into.offset..into.offset + c.count()];
            for (d, &a) in dst.iter_mut().zip(&pos[c.offset..c.offset + c.count()]) {
                *d = e.anchor[ci][usize::from(a)];
            }
            dst.sort_unstable();
        }
    }

    /// Decodes the position of generic (or wide) key `key` into
    /// `state.plain`, and its images into `state.images`.
    fn decode_position(&self, key: K, state: &mut SymmetricSlidingState<K>) {
        let g = &self.generic;
        state.plain_key = key;
        self.decode_bare(key, &mut state.plain);
        let pieces = g.pieces;
        let slots = state.slots.chunks_exact_mut(pieces);
        let images = state.images.iter_mut().zip(&mut state.image_keys);
        for ((e, (img, img_key)), slots) in self.sym.elements.iter().zip(images).zip(slots) {
            self.image(e, &state.plain.pos, &mut state.pos);
            *img_key = self.encode(&state.pos, &mut state.cells);
            self.decode_bare(*img_key, img);
            for (ci, c) in g.classes.iter().enumerate() {
                let into = &g.classes[e.class[ci]];
                let there = &img.pos[into.offset..into.offset + into.count()];
                for i in 0..c.count() {
                    let a = e.anchor[ci][usize::from(state.plain.pos[c.offset + i])];
                    let j = there.iter().position(|&b| b == a);
                    slots[c.offset + i] =
                        j.expect("the image of a piece is a piece of the image") as u8;
                }
            }
        }
    }

    /// The class key of the decoded position with the `i`-th piece of
    /// class `ci` moved to anchor `to`, and that position's key: the same
    /// move made in each image gives each image of the successor.
    #[inline]
    fn class_key(
        &self,
        plain: &SlidingState,
        at: &Images<K>,
        ci: usize,
        i: usize,
        to: u16,
    ) -> (K, K) {
        let g = &self.generic;
        let key = self.moved(plain, at.plain_key, ci, i, to);
        let slot = g.classes[ci].offset + i;
        let (mut least, mut fixing) = (key, 1);
        let slots = at.slots.chunks_exact(g.pieces);
        let images = at.images.iter().zip(at.image_keys);
        for ((e, (img, &img_key)), slots) in self.sym.elements.iter().zip(images).zip(slots) {
            let j = usize::from(slots[slot]);
            let to = e.anchor[ci][usize::from(to)];
            let k = self.moved(img, img_key, e.class[ci], j, to);
            fixing += u64::from(k == key);
            least = least.min(k);
        }
        *least.word_mut(self.sym.word) += self.sym.digit(fixing) * self.sym.weight;
        (least, key)
    }

    /// The puzzle's key (tile keys for a tile puzzle) of the pieces at
    /// anchor indices `pos`.
    fn puzzle_key(&self, pos: &[u16]) -> K {
        match &self.puzzle.wide {
            Some(layout) => self.puzzle.encode_wide(layout, pos),
            None => one_word(self.puzzle.encode(pos)),
        }
    }

    /// The successors of the decoded class `state`'s representative, each
    /// pushed to `out` as `pick(class key, position's key)`.
    fn each_class<T>(
        &self,
        state: &mut SymmetricSlidingState<K>,
        out: &mut Vec<T>,
        pick: impl Fn((K, K)) -> T,
    ) {
        let at = Images {
            plain_key: state.plain_key,
            images: &state.images,
            image_keys: &state.image_keys,
            slots: &state.slots,
        };
        self.generic
            .each_successor(&mut state.plain, out, |p, ci, i, to| {
                pick(self.class_key(p, &at, ci, i, to))
            });
    }

    /// The positions of a path of class keys from the start: the start,
    /// then at each step the successor, by a move that reaches the next
    /// class, of the position reached so far. They are the puzzle's keys
    /// of real positions, one move apart: [`SlidingPuzzle::steps`] of them
    /// solves the real start.
    ///
    /// # Panics
    ///
    /// If two consecutive classes of `path` are not a move apart.
    pub fn real_path(&self, path: &[K]) -> Vec<K> {
        let mut state = self.new_state();
        let mut at = self.bare(self.start);
        self.decode_bare(at, &mut state.plain);
        let mut real = vec![self.puzzle_key(&state.plain.pos)];
        let mut pairs = Vec::new();
        for &class in path.iter().skip(1) {
            self.decode_position(at, &mut state);
            pairs.clear();
            self.each_class(&mut state, &mut pairs, |pair| pair);
            at = pairs
                .iter()
                .find(|p| p.0 == class)
                .expect("consecutive classes of a path are a move apart")
                .1;
            self.decode_bare(at, &mut state.plain);
            real.push(self.puzzle_key(&state.plain.pos));
        }
        real
    }

    /// The puzzle's keys (tile keys for a tile puzzle) of every position
    /// of `key`'s class, sorted.
    pub fn orbit(&self, key: K) -> Vec<K> {
        let mut state = self.new_state();
        self.decode_position(self.bare(key), &mut state);
        let mut keys: Vec<K> = std::iter::once(&state.plain)
            .chain(&state.images)
            .map(|s| self.puzzle_key(&s.pos))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }
}

impl<K: Key> Model for SymmetricSliding<'_, K> {
    type State = SymmetricSlidingState<K>;
    type Key = K;

    fn start(&self) -> K {
        self.start
    }

    fn key_space(&self) -> u64 {
        if K::WORDS == 1 {
            self.sym.weight * self.sym.fixing.len() as u64
        } else {
            // As every wide model's: past any array.
            u64::MAX
        }
    }

    fn new_state(&self) -> SymmetricSlidingState<K> {
        let g = &self.generic;
        SymmetricSlidingState {
            key: K::default(),
            plain: g.new_state(),
            plain_key: K::default(),
            images: self.sym.elements.iter().map(|_| g.new_state()).collect(),
            image_keys: vec![K::default(); self.sym.elements.len()],
            slots: vec![0; self.sym.elements.len() * g.pieces],
            pos: vec![0; g.pieces],
            cells: vec![0; g.classes.len()],
        }
    }

    fn decode(&self, key: K, state: &mut SymmetricSlidingState<K>) {
        state.key = key;
        self.decode_position(self.bare(key), state);
    }

    fn successors(&self, state: &mut SymmetricSlidingState<K>, out: &mut Vec<K>) {
        self.each_class(state, out, |(class, _)| class);
    }

    fn is_goal(&self, state: &SymmetricSlidingState<K>) -> bool {
        // Every motion kept maps the goal onto itself: a class's positions
        // all meet it or none does.
        self.generic.goal_met(&state.plain)
    }

    fn has_goal(&self) -> bool {
        self.generic.has_goal()
    }

    fn reversible(&self) -> bool {
        // A class's successors are the classes of its representative's
        // successors, and a move undone from a position is undone from its
        // image by the image of the move.
        true
    }

    fn bipartite(&self) -> bool {
        // A class's positions all lie at its depth (every motion kept fixes
        // the start), so an edge between two classes of one level would
        // join two positions of one level.
        self.puzzle.bipartite()
    }

    fn identity(&self) -> String {
        let words = if K::WORDS > 1 {
            format!("; key words {}", K::WORDS)
        } else {
            String::new()
        };
        format!(
            "{}; generic keys; symmetry of order {}: {}{words}",
            self.generic.describe(),
            self.sym.order(),
            self.sym.kept().join(", ")
        )
    }

    fn classes(&self) -> bool {
        true
    }

    fn positions(&self, key: K) -> u64 {
        let digit = key.word(self.sym.word) / self.sym.weight;
        self.sym.order() as u64 / self.sym.fixing[digit as usize]
    }

    fn orbit(&self, key: K) -> Vec<K> {
        SymmetricSliding::orbit(self, key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Report, Search, VisitedKind, Wide};
    use crate::puzzles::builtin;
    use crate::puzzles::sliding::WideSliding;

    use super::super::Metric;

    fn puzzle(text: &str) -> SlidingPuzzle {
        SlidingPuzzle::from_toml(text, "test").unwrap()
    }

    fn count<M: Model<Key = u64>>(m: &M, visited: VisitedKind) -> Report {
        Search::new(m).threads(2).visited(visited).count().unwrap()
    }

    /// Counts `p` with its symmetries and without, in every store that
    /// takes classes: the same levels of positions; returns the classes'.
    fn same_levels(p: &SlidingPuzzle, order: usize) -> Vec<u64> {
        let sym = BoardSymmetry::of(p);
        assert_eq!(sym.order(), order, "{}", sym.describe());
        same_levels_under(p, &sym)
    }

    fn same_levels_under(p: &SlidingPuzzle, sym: &BoardSymmetry) -> Vec<u64> {
        let m = SymmetricSliding::new(p, sym).expect("a symmetry");
        let plain = count(p, VisitedKind::Auto);
        let mut classes = None;
        for visited in [
            VisitedKind::Auto,
            VisitedKind::Bitmap,
            VisitedKind::DashMap,
            VisitedKind::Frontier,
        ] {
            let r = count(&m, visited);
            assert_eq!(r.levels, plain.levels, "{} by {visited:?}", p.name());
            let keys = r.class_levels.clone().expect("levels of classes");
            assert!(keys.iter().zip(&r.levels).all(|(k, n)| k <= n));
            assert_eq!(*classes.get_or_insert(keys.clone()), keys);
        }
        // Every thread count alike.
        for threads in [1, 3] {
            let r = Search::new(&m).threads(threads).count().unwrap();
            assert_eq!(r.levels, plain.levels, "{} at {threads} threads", p.name());
            assert_eq!(r.class_levels, classes, "{} at {threads} threads", p.name());
        }
        classes.unwrap()
    }

    const OTHER_SHAPE: &str =
        "it does not map the start onto itself: piece B lands on piece G, of another shape";

    #[test]
    fn klotski_keeps_each_mirror_pair_once_in_three_metrics() {
        let k = builtin::sliding("klotski").unwrap();
        for metric in [Metric::Step, Metric::Slide, Metric::Piece] {
            let p = k.clone().with_metric(metric);
            let classes = same_levels(&p, 2);
            let (keys, states) = (classes.iter().sum::<u64>(), 25955);
            assert!(keys * 2 > states && keys < states * 3 / 5, "{keys} classes");
        }
        let sym = BoardSymmetry::of(&k);
        assert_eq!(sym.kept(), ["identity", "left-right mirror"]);
        assert_eq!(
            sym.not_kept(),
            [
                ("top-bottom mirror", OTHER_SHAPE),
                ("half turn", OTHER_SHAPE),
            ]
        );
    }

    #[test]
    fn a_square_board_keeps_its_eight_motions_and_turns_rails_with_them() {
        // The pinwheel: four squares about a block, every motion.
        let pinwheel = puzzle("name = \"p\"\nboard = \"\"\"\nA..A\n.BB.\n.BB.\nA..A\n\"\"\"\n");
        same_levels(&pinwheel, 8);
        // A car that slides along the top row and one that slides down the
        // left column: the diagonal mirror maps each onto the other.
        let cars = puzzle(
            "name = \"cars\"\nboard = \"\"\"\n.AA.\nB...\nB.CC\n..CC\n\"\"\"\nhorizontal = \"A\"\nvertical = \"B\"\n",
        );
        let sym = BoardSymmetry::of(&cars);
        assert_eq!(
            sym.kept(),
            ["identity", "diagonal mirror"],
            "{}",
            sym.describe()
        );
        same_levels(&cars, 2);
        // Both cars sliding left and right: no motion maps the rails.
        let rails = cars_with("horizontal = \"AB\"");
        assert!(BoardSymmetry::of(&rails).is_trivial());
    }

    fn cars_with(rails: &str) -> SlidingPuzzle {
        puzzle(&format!(
            "name = \"cars\"\nboard = \"\"\"\n.AA.\nB...\nB.CC\n..CC\n\"\"\"\n{rails}\n"
        ))
    }

    #[test]
    fn a_mirror_may_swap_two_classes_and_a_tile_puzzle_relabels_its_tiles() {
        // Two distinct columns, each where the other's mirror image is.
        let swap =
            puzzle("name = \"s\"\ndistinct = \"*\"\nboard = \"\"\"\nAB.\nAB.\n...\n.C.\n\"\"\"\n");
        let sym = BoardSymmetry::of(&swap);
        assert!(
            sym.is_trivial(),
            "C's column is its own image, A's is not B's"
        );
        let swap =
            puzzle("name = \"s\"\ndistinct = \"*\"\nboard = \"\"\"\nA.B\nA.B\n...\n\"\"\"\n");
        same_levels(&swap, 2);
        // The 8-puzzle with its blank in the middle: its eight motions,
        // each relabelling the tiles.
        let eight =
            puzzle("name = \"e\"\ndistinct = \"*\"\nboard = \"\"\"\n123\n4.5\n678\n\"\"\"\n");
        same_levels(&eight, 8);
    }

    #[test]
    fn a_start_or_a_goal_that_is_not_symmetric_refuses_the_motion() {
        let pe766 = builtin::sliding("pe766").unwrap();
        let sym = BoardSymmetry::of(&pe766);
        assert!(sym.is_trivial(), "{}", sym.describe());
        assert!(SymmetricSliding::<u64>::new(&pe766, &sym).is_none());
        // Klotski with its block to go to the bottom left corner.
        let builtin::Kind::Sliding(k) = builtin::find("klotski").unwrap().kind else {
            unreachable!("klotski is a sliding-block puzzle")
        };
        let corner = k.replace(".BB.\n.BB.\n\"\"\"", "BB..\nBB..\n\"\"\"");
        assert_ne!(corner, k);
        let sym = BoardSymmetry::of(&puzzle(&corner));
        assert!(sym.is_trivial());
        assert!(
            sym.describe()
                .contains("not the left-right mirror: it does not map the goal onto itself")
        );
    }

    #[test]
    fn a_path_of_classes_is_walked_from_the_real_start_to_a_real_goal() {
        let k = builtin::sliding("klotski").unwrap();
        let sym = BoardSymmetry::of(&k);
        let m = SymmetricSliding::new(&k, &sym).unwrap();
        let path = Search::new(&m).threads(2).solve().unwrap().path.unwrap();
        let plain = Search::new(&k).threads(2).solve().unwrap().path.unwrap();
        assert_eq!(path.len(), plain.len());
        let real = m.real_path(&path);
        assert_eq!(real[0], k.start());
        let steps = k.steps(&real);
        assert_eq!(steps.len(), 116);
        let mut state = k.new_state();
        k.decode(*real.last().unwrap(), &mut state);
        assert!(k.is_goal(&state));
        // Each position's class is the path's.
        for (&r, &c) in real.iter().zip(&path) {
            assert!(m.orbit(c).contains(&r));
        }
    }

    #[test]
    fn of_the_built_ins_klotski_and_the_eight_puzzle_are_symmetric() {
        let symmetric: Vec<_> = builtin::ALL
            .iter()
            .filter_map(|b| builtin::sliding(b.name))
            .filter(|p| !BoardSymmetry::of(p).is_trivial())
            .collect();
        let names: Vec<_> = symmetric.iter().map(|p| p.name()).collect();
        assert_eq!(names, ["klotski", "eight"]);
        // The 8-puzzle's blank starts in a corner on the diagonal: its
        // mirror in that diagonal relabels the tiles.
        let eight = &symmetric[1];
        assert_eq!(
            BoardSymmetry::of(eight).kept(),
            ["identity", "diagonal mirror"]
        );
        // A position the mirror fixes holds the blank, 1 and 5 on the
        // diagonal (3! ways) and each of the pairs 2|4, 3|7, 6|8 on a pair
        // of cells the mirror swaps (3! 2^3 ways): 288, half of them of
        // the start's parity. Each other class is a pair.
        let classes = same_levels(eight, 2);
        assert_eq!(classes.iter().sum::<u64>(), (181_440 + 144) / 2);
    }

    /// A random board that its left-right mirror maps onto itself: walls,
    /// squares and dominoes placed on its left half and mirrored.
    fn mirrored(seed: u64) -> String {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let (rows, cols) = (2 + next(3) as usize, 2 * (1 + next(2) as usize));
        let half = cols / 2;
        let mut grid = vec![vec!['.'; cols]; rows];
        let mut labels = ('A'..='Z').chain('a'..='z');
        for r in 0..rows {
            for c in 0..half {
                if grid[r][c] != '.' {
                    continue;
                }
                let cells: Vec<(usize, usize)> = match next(10) {
                    0..=2 => continue,
                    3 => {
                        grid[r][c] = '#';
                        grid[r][cols - 1 - c] = '#';
                        continue;
                    }
                    7 | 8 if r + 1 < rows && grid[r + 1][c] == '.' => vec![(r, c), (r + 1, c)],
                    9 if c + 1 < half && grid[r][c + 1] == '.' => vec![(r, c), (r, c + 1)],
                    _ => vec![(r, c)],
                };
                let (a, b) = (labels.next().unwrap(), labels.next().unwrap());
                for (r, c) in cells {
                    grid[r][c] = a;
                    grid[r][cols - 1 - c] = b;
                }
            }
        }
        let board: String = grid
            .iter()
            .map(|row| row.iter().collect::<String>() + "\n")
            .collect();
        format!("name = \"m{seed}\"\nboard = \"\"\"\n{board}\"\"\"\n")
    }

    /// The classes of `p` searched with keys of `K`, under `sym`: levels
    /// of positions and of classes.
    fn classes_in<K: Key>(p: &SlidingPuzzle, sym: &BoardSymmetry) -> (Vec<u64>, Vec<u64>) {
        let m = SymmetricSliding::<K>::new(p, sym).expect("a symmetry in keys of K");
        let r = Search::new(&m).threads(2).count().unwrap();
        (r.levels, r.class_levels.expect("levels of classes"))
    }

    #[test]
    fn wide_keys_and_a_digit_in_a_word_of_its_own_keep_the_same_classes() {
        let k = builtin::sliding("klotski").unwrap();
        let eight =
            puzzle("name = \"e\"\ndistinct = \"*\"\nboard = \"\"\"\n123\n4.5\n678\n\"\"\"\n");
        let mut boards = vec![k.clone(), eight];
        boards
            .extend((0..12).filter_map(|seed| SlidingPuzzle::from_toml(&mirrored(seed), "m").ok()));
        for p in &boards {
            let sym = BoardSymmetry::of(p);
            let narrow = classes_in::<u64>(p, &sym);
            assert_eq!(narrow.0, count(p, VisitedKind::Auto).levels, "{}", p.name());
            // The digit above the one word, in a second word.
            let alone = sym.clone().with_digit_alone();
            assert_eq!(alone.key_words(), 2);
            assert!(SymmetricSliding::<u64>::new(p, &alone).is_none());
            assert_eq!(classes_in::<Wide<2>>(p, &alone), narrow, "{}", p.name());
            // Wide keys: the digit above the ranks in the top word, or
            // alone above them.
            let wide = p.widened();
            let sym = BoardSymmetry::of(&wide);
            assert_eq!((sym.order(), sym.key_words()), (alone.order(), 2));
            assert_eq!(classes_in::<Wide<2>>(&wide, &sym), narrow, "{}", p.name());
            let alone = sym.with_digit_alone();
            assert_eq!(alone.key_words(), 3);
            assert_eq!(classes_in::<Wide<4>>(&wide, &alone), narrow, "{}", p.name());
        }
        // A path of wide classes walks the real start to a real goal.
        let wide = k.widened();
        let sym = BoardSymmetry::of(&wide);
        let m = SymmetricSliding::<Wide<2>>::new(&wide, &sym).unwrap();
        let path = Search::new(&m).threads(2).solve().unwrap().path.unwrap();
        let real = m.real_path(&path);
        assert_eq!(wide.steps(&real).len(), 116);
        let w = WideSliding::<2>::new(&wide).unwrap();
        assert_eq!(real[0], w.start());
        let mut state = w.new_state();
        w.decode(*real.last().unwrap(), &mut state);
        assert!(w.is_goal(&state));
        for (&r, &c) in real.iter().zip(&path) {
            assert!(m.orbit(c).contains(&r));
        }
    }

    #[test]
    fn random_mirrored_boards_count_their_positions_in_three_metrics() {
        let mut checked = 0;
        for seed in 0..60 {
            let text = mirrored(seed);
            let Ok(p) = SlidingPuzzle::from_toml(&text, "random") else {
                continue;
            };
            for metric in [Metric::Step, Metric::Slide, Metric::Piece] {
                let p = p.clone().with_metric(metric);
                let sym = BoardSymmetry::of(&p);
                assert!(
                    sym.kept().contains(&"left-right mirror"),
                    "{text}{}",
                    sym.describe()
                );
                same_levels_under(&p, &sym);
            }
            checked += 1;
        }
        assert!(checked >= 40, "{checked} boards");
    }
}
