//! Twisty puzzles: any permutation-and-orientation puzzle described in
//! KSolve's `.tws` text format (read by twsearch) or cubing.js's KPuzzle
//! JSON (read by twips): the 2x2x2 cube, the Skewb, Top-Spin, the nine
//! clocks.
//!
//! The key is a mixed-radix number of independent coordinates (see
//! [`coord`]): one for the arrangement of each orbit of positions and one
//! for its orientations, each reduced by what the moves provably keep (a
//! fixed orientation sum, a fixed parity, pieces that never move). For the
//! 2x2x2 with a fixed corner, that is exactly its 3,674,160 positions.
//!
//! Where the coordinates multiply past 2^64 (the 3x3x3's 4.3e19, the
//! megaminx's 1e68), the key is several 64-bit words: the coordinates (and
//! the parts of those over 2^64 each) are packed, smallest first, into a
//! word until the next would not fit, then into the next word. The search
//! then runs on [`Wider`], the same puzzle with keys of that many words
//! ([`Twisty::words`]); a puzzle of one word is its own model.
//!
//! Metrics follow the cube's: `htm` counts each move and each of its
//! powers as one move; `qtm` each move and its inverse; `moves` only the
//! moves as written (a directed graph when a move is not its own inverse).

mod census;
pub mod coord;
pub mod def;
pub mod group;
mod illegal;
mod kpuzzle;
mod lanes;
mod mirror;
pub mod symmetry;
mod tws;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use crate::engine::{Key, Model, Wide, any_of_all_successors};
use crate::puzzles::sliding::PuzzleError;
use coord::{Coord, Kind};
pub use def::{Definition, Format, MoveDef, Pattern, Set, Transform, WILD};
pub use symmetry::{Mirrors, Symmetric, Symmetry};

/// What counts as one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TwistyMetric {
    /// Half-turn metric: every power of a move is one move.
    #[default]
    Htm,
    /// Quarter-turn metric: a move and its inverse.
    Qtm,
    /// The moves as written, no inverses and no powers.
    Moves,
}

impl TwistyMetric {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TwistyMetric::Htm => "htm",
            TwistyMetric::Qtm => "qtm",
            TwistyMetric::Moves => "moves",
        }
    }
}

/// How a definition becomes a search.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// What counts as one move.
    pub metric: TwistyMetric,
    /// Only these of the file's moves generate (`--moves U,F,R`).
    pub moves: Option<Vec<String>>,
    /// Start from the solved pattern after these moves (`R U2 F'`)
    /// instead of the file's start.
    pub scramble: Option<String>,
}

/// Options that do not fit the definition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}\n  help: {help}")]
pub struct OptionError {
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

fn option_error(message: String, help: impl Into<String>) -> OptionError {
    OptionError {
        message,
        help: help.into(),
    }
}

/// The share of its keys a puzzle's positions must be for the dense store
/// (two bits a key, so at most 16 bits a position).
pub const DENSE_SHARE: f64 = 1.0 / 8.0;

/// The highest move order whose powers `htm` lists.
pub const MAX_HTM_ORDER: u32 = 64;

/// The most table entries (value x move) all coordinates may have: 64 MiB.
const TABLE_ENTRIES: u64 = 1 << 24;

/// Positions an orbit may have (its ranks count pieces in bytes).
pub const MAX_ORBIT: usize = 255;

/// Points (places times orientations) past which the group's order of a
/// puzzle whose key takes several words is not computed: the 5x5x5's 120
/// take 4 s.
pub const WIDE_ORDER_POINTS: usize = 128;

/// The name PuzzleGeometry gives every puzzle file it writes (twsearch's
/// samples): a file of that name is named by its file name instead.
pub const GENERIC_NAME: &str = "PuzzleGeometryPuzzle";

/// The most 64-bit words a key may take (8,192 bits: the 20x20x20 cube
/// takes about 80).
pub const MAX_WORDS: usize = 128;

/// One part of the key: a whole coordinate's value, or one part of a
/// split coordinate's (see [`coord::Split`]), at a place in a word.
#[derive(Clone, Copy, Debug)]
struct Part {
    /// Its number of values.
    size: u64,
    /// The word it is in, counted from the least significant.
    word: usize,
    /// Its place value in that word.
    weight: u64,
}

/// A move that generates the search's moves: one of the file's, an
/// alias's, or a power of one (`--moves U,R2`: R2 and its powers).
#[derive(Clone, Debug)]
pub struct Generator {
    /// Its name.
    pub name: String,
    /// What it does.
    pub transform: Transform,
    /// The file's move it is, when it is one (for errors' places).
    pub file_move: Option<usize>,
}

/// A move of the search: a power of one of the generators.
#[derive(Clone, Debug)]
pub struct Generated {
    /// Its name in solutions (`U`, `U2`, `U'`).
    pub name: String,
    /// The generator it is a power of.
    pub base: usize,
    /// Which power.
    pub power: u32,
    /// What it does.
    pub transform: Transform,
}

/// A permutation puzzle, ready to search.
#[derive(Clone, Debug)]
pub struct Twisty {
    def: Definition,
    /// The name with control characters escaped, for terminals.
    name: String,
    metric: TwistyMetric,
    /// The moves that generate: the file's, or those `--moves` names.
    bases: Vec<Generator>,
    moves: Vec<Generated>,
    coords: Vec<Coord>,
    /// The parts of the key, in the order of the words and of their place
    /// values (the whole coordinates first, in the coordinates' order).
    parts: Vec<Part>,
    /// Each coordinate's first part.
    first_part: Vec<usize>,
    /// For each word of the key, the part after its last.
    word_ends: Vec<usize>,
    /// The keys below this are the key space (`u64::MAX` for keys of
    /// several words).
    key_space: u64,
    start: Pattern,
    /// The start's key, its words from the least significant.
    start_key: Vec<u64>,
    /// The solved pattern's key, or why the start cannot reach it.
    goal: Result<Vec<u64>, String>,
    reversible: bool,
    /// The order of the group the moves generate (see [`group`]), once
    /// asked for.
    order: std::sync::OnceLock<Option<Vec<u64>>>,
    /// What the file's `Illegal` lines forbid (see [`illegal`]).
    illegal: Vec<illegal::Check>,
    /// Whether a successor's key can be made alone, a move at a time
    /// ([`Twisty::moves_one_at_a_time`], settled once the tables are).
    one_at_a_time: bool,
}

/// A decoded key: its parts' values, and the values of the coordinates
/// without a move table.
pub struct TwistyState<K = u64> {
    key: K,
    values: Vec<u64>,
    local: Vec<Vec<u8>>,
    scratch: Vec<u8>,
    /// Room for a split coordinate's parts and digits.
    wide: Vec<u64>,
}

/// Room a split coordinate's parts and digits take.
const WIDE_SCRATCH: usize = 4 * MAX_ORBIT + 8;

/// A key of any width from its words, the least significant first.
fn key_from<K: Key>(words: &[u64]) -> K {
    let mut k = K::default();
    for (i, &w) in words.iter().enumerate() {
        *k.word_mut(i) = w;
    }
    k
}

impl Twisty {
    /// Reads a `.tws` or KPuzzle JSON file (told apart by extension, then
    /// by content).
    pub fn from_path(path: &std::path::Path) -> Result<Definition, PuzzleError> {
        let text = crate::puzzles::sliding::read_puzzle_text(path)?;
        Twisty::parse(&text, &path.display().to_string())
    }

    /// Reads a definition from text; `origin` names it in errors and tells
    /// the format by its extension when the content does not.
    pub fn parse(text: &str, origin: &str) -> Result<Definition, PuzzleError> {
        let mut def = match sniff(text, origin) {
            Some(Format::KPuzzle) => kpuzzle::parse(text, origin),
            _ => tws::parse(text, origin),
        }?;
        // PuzzleGeometry names every puzzle it writes so: the file's name
        // tells them apart.
        if def.name == GENERIC_NAME
            && let Some(stem) = std::path::Path::new(origin).file_stem()
        {
            def.name = stem.to_string_lossy().into_owned();
        }
        Ok(def)
    }

    /// The search `options` make of `def`.
    pub fn new(def: Definition, options: &Options) -> Result<Twisty, OptionError> {
        let sets = &def.sets;
        let bases = generators(&def, options.moves.as_deref())?;
        let moves = generate(&def, &bases, options.metric)?;
        let names: HashSet<&str> = moves.iter().map(|m| m.name.as_str()).collect();
        if names.len() < moves.len() {
            return Err(clash(&def, &bases, &moves, options));
        }
        let start = match (&options.scramble, &def.scramble) {
            (Some(alg), _) => {
                let t = parse_alg(&def, alg).map_err(|e| {
                    option_error(
                        format!("the scramble {alg:?}: {e}"),
                        format!(
                            "write moves of the file ({}) separated by spaces, each with an optional power and ', e.g. \"R U2 F'\"",
                            move_names(&def)
                        ),
                    )
                })?;
                def.solved.apply(&t, sets)
            }
            (None, Some(p)) => p.clone(),
            (None, None) => def.solved.clone(),
        };
        let mut coords = coordinates(&def, &bases, &moves, &start)?;
        // The smallest coordinates weigh least: a scan in key order then
        // changes the largest one least often, and the successors of a run
        // of keys that share it fall, move by move, in a window of the
        // others' size (the 2x2x2: 2187 twists, half a KiB of two-bit
        // slots), which the caches hold.
        // Whole coordinates first (so that coordinate `c` of those is
        // part `c`), split ones last.
        coords.sort_by(|a, b| {
            (a.split.is_some(), a.size)
                .cmp(&(b.split.is_some(), b.size))
                .then(a.bits().total_cmp(&b.bits()))
        });
        // The parts, packed into words: a word takes parts while their
        // values multiply within 2^64.
        let mut parts: Vec<Part> = Vec::new();
        let mut first_part = Vec::with_capacity(coords.len());
        let (mut word, mut weight) = (0usize, 1u64);
        for c in &mut coords {
            first_part.push(parts.len());
            let sizes = match &mut c.split {
                Some(split) => {
                    // Its first part takes what this word has left.
                    split.cut(u64::MAX / weight);
                    split.sizes().to_vec()
                }
                None => vec![c.size],
            };
            for (i, &size) in sizes.iter().enumerate() {
                if weight.checked_mul(size).is_none() {
                    word += 1;
                    weight = 1;
                }
                if i == 0 {
                    c.word = word;
                    c.weight = weight;
                }
                parts.push(Part { size, word, weight });
                weight *= size;
            }
        }
        let words = word + 1;
        if words > MAX_WORDS {
            return Err(option_error(
                format!(
                    "{}'s positions take {words} words of 64 bits a key ({:.0} bits); at most {MAX_WORDS} are supported",
                    def.name,
                    coords.iter().map(Coord::bits).sum::<f64>()
                ),
                "choose fewer moves, or split the puzzle",
            ));
        }
        let word_ends = (0..words)
            .map(|w| parts.iter().take_while(|p| p.word <= w).count())
            .collect();
        let key_space = if words == 1 { weight } else { u64::MAX };
        let reversible = {
            let all: HashSet<&Transform> = moves.iter().map(|m| &m.transform).collect();
            moves
                .iter()
                .all(|m| all.contains(&inverse(&m.transform, sets)))
        };
        let mut twisty = Twisty {
            name: crate::puzzles::sliding::printable(&def.name),
            metric: options.metric,
            bases,
            moves,
            coords,
            parts,
            first_part,
            word_ends,
            key_space,
            start_key: Vec::new(),
            start,
            goal: Ok(Vec::new()),
            reversible,
            order: std::sync::OnceLock::new(),
            illegal: Vec::new(),
            one_at_a_time: false,
            def,
        };
        // Move tables for the smallest coordinates first, within budget.
        let nm = twisty.moves.len() as u64;
        let mut order: Vec<usize> = (0..twisty.coords.len()).collect();
        order.sort_by_key(|&c| twisty.coords[c].size);
        let mut budget = TABLE_ENTRIES;
        for c in order {
            let entries = twisty.coords[c].size.saturating_mul(nm);
            if entries <= budget {
                twisty.coords[c].tabulate(budget);
                if twisty.coords[c].table.is_some() {
                    budget -= entries;
                }
            }
        }
        twisty.start_key = twisty
            .words_of(&twisty.start)
            .expect("the coordinates are those of the start");
        twisty.goal = twisty.words_of(&twisty.def.solved);
        twisty.illegal = illegal::checks(&twisty);
        twisty.one_at_a_time = twisty.moves_one_at_a_time();
        let start: &[u64] = &twisty.start_key;
        if !twisty.legal_words(start) {
            return Err(option_error(
                "the scramble ends on a position that the file's Illegal lines forbid".into(),
                "give a scramble that keeps the puzzle legal",
            ));
        }
        Ok(twisty)
    }

    /// Whether the key of `words` meets none of the file's `Illegal`
    /// lines.
    fn legal_words(&self, words: &[u64]) -> bool {
        let mut scratch = vec![0u8; 2 * MAX_ORBIT];
        let mut wide = vec![0u64; WIDE_SCRATCH];
        illegal::legal(self, |w| words[w], &mut scratch, &mut wide)
    }

    /// How many 64-bit words a key takes: 1 where the key space fits
    /// 2^64, and the puzzle is its own [`Model`]; more, and it searches
    /// as a [`Wider`] of at least that many.
    pub fn words(&self) -> usize {
        self.word_ends.len()
    }

    /// The bits a key holds: log2 of the coordinates' values multiplied
    /// (what a perfect rank of them would take).
    pub fn key_bits(&self) -> f64 {
        self.coords.iter().map(Coord::bits).sum()
    }

    /// The number of keys, in decimal (exact, however many words).
    pub fn key_space_text(&self) -> String {
        coord::product_text(self.parts.iter().map(|p| p.size))
    }

    /// The start's key, as a key of any width of at least
    /// [`Twisty::words`] words.
    pub fn start_key<K: Key>(&self) -> K {
        key_from(&self.start_key)
    }

    /// The definition.
    pub fn definition(&self) -> &Definition {
        &self.def
    }

    /// The puzzle's name, with control characters written as escapes (safe
    /// to print on a terminal).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The puzzle's name as its file gives it (for JSON).
    pub fn raw_name(&self) -> &str {
        &self.def.name
    }

    /// The metric.
    pub fn metric(&self) -> TwistyMetric {
        self.metric
    }

    /// The moves of the search, in the order successors list them.
    pub fn moves(&self) -> &[Generated] {
        &self.moves
    }

    /// Why the start cannot reach the solved pattern, if it cannot be
    /// told without a search.
    pub fn goal_impossible(&self) -> Option<&str> {
        self.goal.as_ref().err().map(String::as_str)
    }

    /// The coordinates (for `show`).
    pub fn coords(&self) -> &[Coord] {
        &self.coords
    }

    /// The order of the group the search's moves generate: the positions
    /// the puzzle has with every piece told apart (by Schreier–Sims;
    /// saturated at `u128::MAX`), or `None` for a puzzle of more than
    /// [`group::MAX_POINTS`] places and orientations, or of more than
    /// [`WIDE_ORDER_POINTS`] when its key takes several words (its order
    /// only informs `show` then, and the 6x6x6's 168 points take a minute).
    pub fn group_order(&self) -> Option<u128> {
        Some(
            self.orbit_sizes()?
                .iter()
                .fold(1u128, |acc, &o| acc.saturating_mul(u128::from(o))),
        )
    }

    /// [`Twisty::group_order`] in decimal, exact however large.
    pub fn group_order_text(&self) -> Option<String> {
        Some(coord::product_text(self.orbit_sizes()?.iter().copied()))
    }

    /// The sizes of the orbits of the group's stabiliser chain, once
    /// computed (see [`Twisty::group_order`]).
    fn orbit_sizes(&self) -> Option<&[u64]> {
        self.order
            .get_or_init(|| {
                if self.words() > 1 && self.points() > WIDE_ORDER_POINTS {
                    return None;
                }
                let moves: Vec<&Transform> = self.bases.iter().map(|g| &g.transform).collect();
                group::orbit_sizes(&self.def.sets, &moves)
            })
            .as_deref()
    }

    /// The points the moves act on: each place with each orientation.
    pub fn points(&self) -> usize {
        self.def
            .sets
            .iter()
            .map(|s| s.size * usize::from(s.orientations.max(1)))
            .sum()
    }

    /// The puzzle with no move table: every coordinate moved and ranked
    /// per successor (in lanes where it is an arrangement of at most 16
    /// distinct pieces). For tests, which search small puzzles through
    /// the paths that only large ones take otherwise.
    #[doc(hidden)]
    pub fn without_tables(mut self) -> Twisty {
        for c in &mut self.coords {
            c.table = None;
        }
        self.one_at_a_time = self.moves_one_at_a_time();
        self
    }

    /// Whether every orbit's pieces are told apart: the positions are
    /// then exactly the group's order.
    pub fn pieces_distinct(&self) -> bool {
        self.start.pieces.iter().all(|pieces| {
            let mut seen = pieces.clone();
            seen.sort_unstable();
            seen.windows(2).all(|w| w[0] != w[1])
        })
    }

    /// The share of the keys that are positions the moves reach, as far as
    /// the group's order tells: exact when every piece is told apart (the
    /// order over the key space), otherwise the same share for the puzzle
    /// with its pieces told apart. `None` when the order is not known.
    pub fn density(&self) -> Option<f64> {
        if !self.def.illegal.is_empty() {
            // The positions are no group's: not known.
            return None;
        }
        let order: f64 = self.orbit_sizes()?.iter().map(|&o| o as f64).product();
        let told_apart: f64 = self
            .coords
            .iter()
            .map(|c| match &c.kind {
                Kind::Perm {
                    distinct: false, ..
                } => factorial(c.positions.len()),
                _ => c.size_f64(),
            })
            .product();
        // Orbits of one kind of piece have no coordinate at all.
        let alike: f64 = orbits(&self.def, &self.bases)
            .iter()
            .enumerate()
            .flat_map(|(s, orbits)| orbits.iter().map(move |o| (s, o)))
            .filter(|(s, o)| {
                o.len() > 1
                    && o.iter()
                        .all(|&p| self.start.pieces[*s][p] == self.start.pieces[*s][o[0]])
            })
            .map(|(_, o)| factorial(o.len()))
            .product();
        Some((order / (told_apart * alike)).min(1.0))
    }

    /// The values of coordinate `c` in the key whose words `word` gives,
    /// into `local`; `wide` is room for its parts and digits.
    fn coord_values(
        &self,
        c: usize,
        word: impl Fn(usize) -> u64,
        local: &mut [u8],
        wide: &mut [u64],
    ) {
        let coord = &self.coords[c];
        let first = self.first_part[c];
        let n = coord.parts();
        let (values, digits) = wide.split_at_mut(n);
        for (v, part) in values.iter_mut().zip(&self.parts[first..first + n]) {
            *v = (word(part.word) / part.weight) % part.size;
        }
        coord.unrank_parts(values, local, digits);
    }

    /// The pattern of a key.
    pub fn pattern<K: Key>(&self, key: K) -> Pattern {
        self.pattern_of(|w| key.word(w))
    }

    /// The pattern of the key whose words `word` gives.
    fn pattern_of(&self, word: impl Fn(usize) -> u64) -> Pattern {
        let mut p = self.start.clone();
        let mut local = vec![0u8; 2 * MAX_ORBIT];
        let mut wide = vec![0u64; WIDE_SCRATCH];
        for (i, c) in self.coords.iter().enumerate() {
            let k = c.local_len();
            self.coord_values(i, &word, &mut local[..k], &mut wide);
            inject(c, &local[..k], &mut p);
        }
        p
    }

    /// The key of a pattern, or why it is not one the start can reach by
    /// what the moves keep.
    pub fn key_of<K: Key>(&self, p: &Pattern) -> Result<K, String> {
        if K::WORDS < self.words() {
            return Err(format!(
                "a key of {} takes {} words; this one has {}",
                self.name,
                self.words(),
                K::WORDS
            ));
        }
        Ok(key_from(&self.words_of(p)?))
    }

    /// The words of a pattern's key, the least significant first, or why
    /// it is not one the start can reach by what the moves keep.
    fn words_of(&self, p: &Pattern) -> Result<Vec<u64>, String> {
        let mut key = vec![0u64; self.words()];
        let mut local = vec![0u8; 2 * MAX_ORBIT];
        let mut wide = vec![0u64; WIDE_SCRATCH];
        for (ci, c) in self.coords.iter().enumerate() {
            let k = c.local_len();
            let set = &self.def.sets[c.set].name;
            if let Some((values, counts)) = c.pieces() {
                let mut seen = vec![0u8; counts.len()];
                for (a, &pos) in c.positions.iter().enumerate() {
                    let piece = p.pieces[c.set][pos];
                    let Ok(kind) = values.binary_search(&piece) else {
                        return Err(format!(
                            "set {set}: piece {} cannot reach position {} from the start",
                            self.piece_name(piece),
                            self.position_name(pos)
                        ));
                    };
                    local[a] = kind as u8;
                    seen[kind] += 1;
                }
                if seen != counts {
                    return Err(format!(
                        "set {set}: positions {} hold other pieces than at the start, and no move takes a piece out of them",
                        self.positions_text(&c.positions)
                    ));
                }
            }
            match &c.kind {
                Kind::Ori { .. } => {
                    for (a, &pos) in c.positions.iter().enumerate() {
                        local[a] = p.ori[c.set][pos];
                    }
                }
                Kind::Wild { wild, .. } => {
                    let n = c.positions.len();
                    for (a, &pos) in c.positions.iter().enumerate() {
                        let d = p.ori[c.set][pos];
                        let is_wild = wild[usize::from(local[a])];
                        if is_wild != (d == WILD) {
                            return Err(format!(
                                "set {set}: position {} holds piece {} with {} orientation, but that piece's orientation {}",
                                self.position_name(pos),
                                self.piece_name(p.pieces[c.set][pos]),
                                if d == WILD {
                                    "a ? (wildcard)"
                                } else {
                                    "a numbered"
                                },
                                if is_wild {
                                    "does not matter (? in the solved state)"
                                } else {
                                    "matters"
                                }
                            ));
                        }
                        local[n + a] = if is_wild { 0 } else { d };
                    }
                }
                Kind::Perm { .. } => {}
            }
            let (first, n) = (self.first_part[ci], c.parts());
            let (values, digits) = wide.split_at_mut(n);
            c.rank_parts(&local[..k], values, digits);
            for (v, part) in values.iter().zip(&self.parts[first..first + n]) {
                key[part.word] += v * part.weight;
            }
        }
        // What the coordinates cannot hold (a fixed parity, sum, piece or
        // orientation) must be as at the start.
        let back = self.pattern_of(|w| key[w]);
        let coord_at = |s: usize, pos: usize, perm: bool| {
            self.coords.iter().find(|c| {
                c.set == s
                    && c.positions.contains(&pos)
                    && matches!(c.kind, Kind::Perm { .. } | Kind::Wild { .. }) == perm
            })
        };
        for (s, set) in self.def.sets.iter().enumerate() {
            for pos in 0..set.size {
                if back.pieces[s][pos] != p.pieces[s][pos] {
                    return Err(match coord_at(s, pos, true) {
                        Some(c) => format!(
                            "set {}: positions {} hold their pieces an odd permutation away from the start's arrangement, and every move is an even permutation there",
                            set.name,
                            self.positions_text(&c.positions)
                        ),
                        None => format!(
                            "set {}: position {} holds piece {} and no move moves a piece there (the start has {})",
                            set.name,
                            self.position_name(pos),
                            self.piece_name(p.pieces[s][pos]),
                            self.piece_name(back.pieces[s][pos])
                        ),
                    });
                }
                if back.ori[s][pos] != p.ori[s][pos] {
                    return Err(match coord_at(s, pos, false) {
                        Some(c) => format!(
                            "set {}: the orientations at positions {} sum to another value (mod {}) than at the start, and every move keeps that sum",
                            set.name,
                            self.positions_text(&c.positions),
                            set.orientations
                        ),
                        None => format!(
                            "set {}: position {} has orientation {} and no move turns it (the start has {})",
                            set.name,
                            self.position_name(pos),
                            p.ori[s][pos],
                            back.ori[s][pos]
                        ),
                    });
                }
            }
        }
        Ok(key)
    }

    fn piece_name(&self, piece: u16) -> String {
        match self.def.format {
            Format::Tws => (piece + 1).to_string(),
            Format::KPuzzle => piece.to_string(),
        }
    }

    fn position_name(&self, pos: usize) -> String {
        match self.def.format {
            Format::Tws => (pos + 1).to_string(),
            Format::KPuzzle => pos.to_string(),
        }
    }

    fn positions_text(&self, positions: &[usize]) -> String {
        positions
            .iter()
            .map(|&p| self.position_name(p))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The index of the move that takes `from` to `to`, when `to` is a
    /// legal position: the index into [`Twisty::moves`], whatever the
    /// file's Illegal lines drop from the successors of `from`.
    pub fn move_between<K: Key>(&self, from: K, to: K) -> Option<usize> {
        if !self.legal_words(&(0..self.words()).map(|w| to.word(w)).collect::<Vec<_>>()) {
            return None;
        }
        let mut state = self.state_of::<K>();
        self.decode_key(from, &mut state);
        let mut out = Vec::new();
        self.each_move(&mut state, &mut out);
        out.iter().position(|&k| k == to)
    }

    /// A fresh working state for keys `K`.
    fn state_of<K: Key>(&self) -> TwistyState<K> {
        TwistyState {
            key: K::default(),
            values: vec![0; self.parts.len()],
            local: self
                .coords
                .iter()
                .map(|c| vec![0; if c.table.is_some() { 0 } else { c.local_len() }])
                .collect(),
            scratch: vec![0; 2 * MAX_ORBIT],
            wide: vec![0; WIDE_SCRATCH],
        }
    }

    /// Decodes `key` into `state`: the parts' values, word by word, then
    /// the values of the coordinates without a move table.
    #[inline]
    fn decode_key<K: Key>(&self, key: K, state: &mut TwistyState<K>) {
        state.key = key;
        if K::WORDS == 1 {
            // One word holds every coordinate whole (none is split), one
            // part each: one pass, as for every narrow puzzle.
            let mut rest = key.word(0);
            for (c, coord) in self.coords.iter().enumerate() {
                let v;
                (rest, v) = coord.size_divisor.div_rem(rest);
                state.values[c] = v;
                if coord.table.is_none() {
                    coord.unrank(v, &mut state.local[c]);
                }
            }
            return;
        }
        let mut p = 0;
        for (w, &end) in self.word_ends.iter().enumerate() {
            let mut rest = key.word(w);
            while p < end {
                let size = self.parts[p].size;
                state.values[p] = rest % size;
                rest /= size;
                p += 1;
            }
        }
        for (c, coord) in self.coords.iter().enumerate() {
            if coord.table.is_none() {
                let first = self.first_part[c];
                coord.unrank_parts(
                    &state.values[first..first + coord.parts()],
                    &mut state.local[c],
                    &mut state.wide,
                );
            }
        }
    }

    /// Appends one successor for each move of [`Twisty::moves`], in
    /// their order, legal or not.
    #[inline]
    fn each_move<K: Key>(&self, state: &mut TwistyState<K>, out: &mut Vec<K>) {
        let nm = self.moves.len();
        let base = out.len();
        out.resize(base + nm, K::default());
        let next = &mut out[base..];
        for (c, coord) in self.coords.iter().enumerate() {
            let w = coord.word;
            match (&coord.table, &coord.lanes) {
                (Some(table), _) => {
                    // A tabulated coordinate is whole: its part is `c`.
                    let v = state.values[c];
                    let row = &table[v as usize * nm..][..nm];
                    for (k, &t) in next.iter_mut().zip(row) {
                        *k.word_mut(w) += u64::from(t) * coord.weight;
                    }
                }
                (None, Some(lanes)) => {
                    // A distinct arrangement of at most 16 pieces: moved
                    // and ranked in a register.
                    let x = lanes.load(&state.local[c]);
                    for (m, k) in next.iter_mut().enumerate() {
                        *k.word_mut(w) += lanes.rank(lanes.apply(m, x)) * coord.weight;
                    }
                }
                (None, None) if coord.split.is_none() => {
                    let len = coord.local_len();
                    let dst = &mut state.scratch[..len];
                    for (m, k) in next.iter_mut().enumerate() {
                        coord.apply(m, &state.local[c], dst);
                        *k.word_mut(w) += coord.rank(dst) * coord.weight;
                    }
                }
                (None, None) => {
                    let len = coord.local_len();
                    let dst = &mut state.scratch[..len];
                    let (first, n) = (self.first_part[c], coord.parts());
                    let parts = &self.parts[first..first + n];
                    let (values, digits) = state.wide.split_at_mut(n);
                    for (m, k) in next.iter_mut().enumerate() {
                        coord.apply(m, &state.local[c], dst);
                        coord.rank_parts(dst, values, digits);
                        for (v, part) in values.iter().zip(parts) {
                            *k.word_mut(part.word) += v * part.weight;
                        }
                    }
                }
            }
        }
    }

    /// Whether the successors can be made a move at a time: no Illegal
    /// line to check, and every coordinate with a move table or in lanes.
    fn moves_one_at_a_time(&self) -> bool {
        self.illegal.is_empty()
            && self
                .coords
                .iter()
                .all(|c| c.table.is_some() || c.lanes.is_some())
    }

    /// The key after generated move `m` of the decoded state, one word
    /// wide (`one_at_a_time` must hold).
    #[inline]
    fn key_after(&self, state: &TwistyState, m: usize) -> u64 {
        let nm = self.moves.len();
        let mut key = 0;
        for (c, coord) in self.coords.iter().enumerate() {
            let v = match (&coord.table, &coord.lanes) {
                (Some(table), _) => u64::from(table[state.values[c] as usize * nm + m]),
                (None, Some(lanes)) => lanes.rank(lanes.apply(m, lanes.load(&state.local[c]))),
                (None, None) => unreachable!("a coordinate without a table or lanes"),
            };
            key += v * coord.weight;
        }
        key
    }

    /// The successors of the decoded state that the file's Illegal lines
    /// allow.
    #[inline]
    fn legal_successors<K: Key>(&self, state: &mut TwistyState<K>, out: &mut Vec<K>) {
        let base = out.len();
        self.each_move(state, out);
        if !self.illegal.is_empty() {
            // The successors the file's Illegal lines forbid are dropped
            // (so the list no longer lines up with the moves: a move's
            // name comes from `move_between`, never from a place here).
            let mut kept = base;
            for i in base..out.len() {
                let key = out[i];
                if illegal::legal(self, |w| key.word(w), &mut state.scratch, &mut state.wide) {
                    out[kept] = key;
                    kept += 1;
                }
            }
            out.truncate(kept);
        }
    }

    /// Whether the decoded state is the solved pattern.
    #[inline]
    fn is_solved<K: Key>(&self, state: &TwistyState<K>) -> bool {
        self.goal
            .as_ref()
            .is_ok_and(|g| g.iter().enumerate().all(|(w, &v)| state.key.word(w) == v))
    }

    /// The moves of a path of keys, by name.
    pub fn path_moves<K: Key>(&self, path: &[K]) -> Vec<String> {
        path.windows(2)
            .map(|w| {
                let m = self
                    .move_between(w[0], w[1])
                    .expect("consecutive keys of a path differ by one move");
                self.moves[m].name.clone()
            })
            .collect()
    }

    /// A key's pattern in the file's format: a `.tws` `ScrambleState`
    /// body (1-based) or a KPuzzle pattern (JSON).
    pub fn render<K: Key>(&self, key: K) -> String {
        self.pattern_text(&(0..self.words()).map(|w| key.word(w)).collect::<Vec<_>>())
    }

    /// [`Twisty::render`] of the key of `words`.
    fn pattern_text(&self, words: &[u64]) -> String {
        let p = self.pattern_of(|w| words[w]);
        let join = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(" ");
        match self.def.format {
            Format::Tws => {
                let mut out = String::new();
                for (s, set) in self.def.sets.iter().enumerate() {
                    let _ = writeln!(out, "{}", set.name);
                    let _ = writeln!(
                        out,
                        "{}",
                        join(&mut p.pieces[s].iter().map(|&x| (x + 1).to_string()))
                    );
                    if set.orientations > 1 {
                        let _ = writeln!(
                            out,
                            "{}",
                            join(&mut p.ori[s].iter().map(|&d| match d {
                                WILD => "?".to_string(),
                                d => d.to_string(),
                            }))
                        );
                    }
                }
                out
            }
            Format::KPuzzle => {
                let mut out = String::from("{");
                for (s, set) in self.def.sets.iter().enumerate() {
                    if s > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(
                        out,
                        "{}: {{\"pieces\": {:?}, \"orientation\": {:?}}}",
                        json_string(&set.name),
                        p.pieces[s],
                        p.ori[s]
                    );
                }
                out.push_str("}\n");
                out
            }
        }
    }

    /// `show`'s lines for a file's rotations, aliases and illegal positions.
    fn describe_extras(&self, out: &mut String) {
        let def = &self.def;
        fn named(list: &[MoveDef]) -> String {
            list.iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        }
        if !def.rotations.is_empty() {
            let _ = writeln!(
                out,
                "rotations: {} (they turn the whole puzzle: no moves of the search)",
                named(&def.rotations)
            );
        }
        if !def.aliases.is_empty() {
            let _ = writeln!(out, "aliases: {}", named(&def.aliases));
        }
        if !def.illegal.is_empty() {
            let _ = writeln!(
                out,
                "illegal: {} (piece, set, position) that the search never enters",
                def.illegal
                    .iter()
                    .map(|&(s, pos, piece)| format!(
                        "{} in {} at {}",
                        self.piece_name(piece),
                        def.sets[s].name,
                        self.position_name(pos)
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }

    /// `show`'s lines for the key's coordinates.
    fn describe_coords(&self, out: &mut String) {
        let def = &self.def;
        let _ = writeln!(out, "coordinates:");
        for c in &self.coords {
            let set = &def.sets[c.set].name;
            let k = c.positions.len();
            let what = match &c.kind {
                Kind::Perm {
                    distinct: true,
                    parity,
                    ..
                } => format!(
                    "arrangement of {k} distinct pieces, {k}!{}",
                    if parity.is_some() {
                        "/2 (every move is even here: parity fixed)"
                    } else {
                        ""
                    }
                ),
                Kind::Perm { counts, .. } => format!(
                    "arrangement of {k} pieces of {} kinds (identical pieces: {k}! / {})",
                    counts.len(),
                    counts
                        .iter()
                        .map(|c| format!("{c}!"))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                Kind::Ori { o, sum } => match sum {
                    Some(_) => format!(
                        "orientations, {o}^{} (every move keeps their sum: the last is implied)",
                        k - 1
                    ),
                    None => format!("orientations, {o}^{k}"),
                },
                Kind::Wild {
                    arrangement,
                    o,
                    counted,
                    ..
                } => format!(
                    "arrangement ({} values) and the orientations of the {counted} pieces whose orientation matters (the others' is a ? wildcard), x {o}^{counted}",
                    arrangement.size_text()
                ),
            };
            let _ = writeln!(
                out,
                "  {set} positions {}: {what} = {}{}",
                self.positions_text(&c.positions),
                c.size_text(),
                match (&c.table, &c.split) {
                    (Some(_), _) => ", move table".to_string(),
                    (None, Some(split)) =>
                        format!(" (over 2^64: {} parts of the key)", split.sizes().len()),
                    (None, None) => String::new(),
                }
            );
        }
    }

    /// What `reach show` prints: sets, moves, coordinates, key space.
    pub fn describe(&self) -> String {
        let def = &self.def;
        let mut out = String::new();
        let format = match def.format {
            Format::Tws => "KSolve/twsearch .tws",
            Format::KPuzzle => "KPuzzle JSON",
        };
        let _ = writeln!(out, "puzzle: {} ({format})", self.name);
        let _ = writeln!(out, "sets:");
        for set in &def.sets {
            let _ = writeln!(
                out,
                "  {:<10} {} piece{}, {} orientation{}",
                set.name,
                set.size,
                plural(set.size as u64),
                set.orientations,
                plural(u64::from(set.orientations))
            );
        }
        let bases: Vec<&str> = self.bases.iter().map(|g| g.name.as_str()).collect();
        let _ = writeln!(
            out,
            "moves: {} of the file's {} ({})",
            bases.len(),
            def.moves.len(),
            bases.join(" ")
        );
        self.describe_extras(&mut out);
        let names: Vec<&str> = self.moves.iter().map(|m| m.name.as_str()).collect();
        let _ = writeln!(
            out,
            "metric: {}, {} move{} a position: {}{}",
            self.metric.name(),
            names.len(),
            plural(names.len() as u64),
            names.join(" "),
            if self.reversible {
                ""
            } else {
                " (not closed under inverses: a directed graph)"
            }
        );
        self.describe_coords(&mut out);
        let _ = writeln!(
            out,
            "key space: {} (positions no move changes, and parities and sums moves keep, are left out)",
            coord::product_text(self.parts.iter().map(|p| p.size))
        );
        let _ = writeln!(
            out,
            "key: {} ({:.1} bits{})",
            match self.words() {
                1 => "one 64-bit word".to_string(),
                w => format!("{w} 64-bit words"),
            },
            self.key_bits(),
            if self.words() > 1 {
                ", its coordinates packed into words, smallest first"
            } else {
                ""
            }
        );
        let share = |d: Option<f64>| match d.unwrap_or(0.0) {
            d if d >= 0.001 => format!("{:.1}%", 100.0 * d),
            d => format!("{d:.1e}"),
        };
        match (self.group_order_text(), self.pieces_distinct()) {
            (Some(order), true) => {
                let _ = writeln!(
                    out,
                    "positions: {order} (the order of the group the moves generate, by Schreier-Sims: {} of the keys)",
                    share(self.density())
                );
            }
            (Some(order), false) => {
                let _ = writeln!(
                    out,
                    "positions with every piece told apart: {order} (the group's order, by Schreier-Sims: about {} of the keys are positions)",
                    share(self.density())
                );
            }
            (None, _) => {
                let _ = writeln!(
                    out,
                    "positions: not computed (Schreier-Sims is given at most {} places and orientations, {} for a key of several words, and about 5 s; this puzzle has {})",
                    group::MAX_POINTS,
                    WIDE_ORDER_POINTS,
                    self.points()
                );
            }
        }
        let _ = write!(out, "start:\n{}", self.pattern_text(&self.start_key));
        match &self.goal {
            Ok(g) if *g == self.start_key => {
                let _ = writeln!(out, "goal: the start (the solved pattern)");
            }
            Ok(g) => {
                let _ = write!(out, "goal (the solved pattern):\n{}", self.pattern_text(g));
            }
            Err(e) => {
                let _ = writeln!(out, "goal: unreachable from the start: {e}");
            }
        }
        out
    }
}

/// `n!`, as a float (an estimate's factor).
fn factorial(n: usize) -> f64 {
    (1..=n).map(|k| k as f64).product()
}

/// "s" unless `n` is one.
fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A string as a JSON literal.
fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

/// The file's move names, for help texts.
fn move_names(def: &Definition) -> String {
    def.moves
        .iter()
        .map(|m| m.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The format of a file: KPuzzle when its first character is `{` (or it is
/// called `.json`), `.tws` when its first word is a `.tws` keyword (or it
/// is called `.tws` or `.ksolve`), `None` otherwise (a sliding puzzle).
pub fn sniff(text: &str, origin: &str) -> Option<Format> {
    let lower = origin.to_ascii_lowercase();
    if lower.ends_with(".json") {
        return Some(Format::KPuzzle);
    }
    if lower.ends_with(".tws") || lower.ends_with(".ksolve") {
        return Some(Format::Tws);
    }
    let body = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .find(|l| !l.is_empty())?;
    if body.starts_with('{') {
        return Some(Format::KPuzzle);
    }
    let word = body.split_whitespace().next()?;
    matches!(word, "Name" | "Set").then_some(Format::Tws)
}

/// The inverse of `t`.
pub fn inverse(t: &Transform, sets: &[Set]) -> Transform {
    let mut inv = Transform::identity(sets);
    for (s, set) in sets.iter().enumerate() {
        let o = u16::from(set.orientations);
        for j in 0..set.size {
            let i = usize::from(t.perm[s][j]);
            inv.perm[s][i] = j as u16;
            inv.ori[s][i] = ((o - u16::from(t.ori[s][j]) % o) % o) as u8;
        }
    }
    inv
}

/// The name of power `p` of a move of order `k` called `name`: `U`, `U2`,
/// `U'`, `U2'`: powers past half the order are written as inverses.
fn power_name(name: &str, p: u32, k: u32) -> String {
    let (q, prime) = if p <= k / 2 { (p, "") } else { (k - p, "'") };
    if q == 1 {
        format!("{name}{prime}")
    } else {
        format!("{name}{q}{prime}")
    }
}

/// The moves of the search: the generators' powers the metric counts.
fn generate(
    def: &Definition,
    bases: &[Generator],
    metric: TwistyMetric,
) -> Result<Vec<Generated>, OptionError> {
    let sets = &def.sets;
    let mut out = Vec::new();
    for (b, m) in bases.iter().enumerate() {
        let t = &m.transform;
        let one = |power: u32, name: String, transform: Transform| Generated {
            name,
            base: b,
            power,
            transform,
        };
        match metric {
            TwistyMetric::Moves => out.push(one(1, m.name.clone(), t.clone())),
            TwistyMetric::Qtm => {
                out.push(one(1, m.name.clone(), t.clone()));
                let inv = inverse(t, sets);
                if inv != *t {
                    out.push(one(u32::MAX, format!("{}'", m.name), inv));
                }
            }
            TwistyMetric::Htm => {
                let Some(k) = t.order(sets, MAX_HTM_ORDER) else {
                    let place = m
                        .file_move
                        .map_or(def.origin.clone(), |i| def.move_place(i));
                    return Err(option_error(
                        format!(
                            "{place}: move {} has an order over {MAX_HTM_ORDER}: the half-turn metric would count each of its powers as one move",
                            m.name
                        ),
                        "use the qtm metric (the move and its inverse) or the moves metric",
                    ));
                };
                let mut power = t.clone();
                for p in 1..k {
                    out.push(one(p, power_name(&m.name, p, k), power.clone()));
                    power = power.then(t, sets);
                }
            }
        }
    }
    Ok(out)
}

/// Two moves of the metric with one name (`R2` both a power of `R` and a
/// move of its own), said where they come from: the two lines of the file
/// that define them, or `--moves` when it lists a move and a power or
/// alias of it.
fn clash(
    def: &Definition,
    bases: &[Generator],
    moves: &[Generated],
    options: &Options,
) -> OptionError {
    let metric = options.metric.name();
    let (i, j) = (0..moves.len())
        .flat_map(|i| (i + 1..moves.len()).map(move |j| (i, j)))
        .find(|&(i, j)| moves[i].name == moves[j].name)
        .expect("two moves share a name");
    let (a, b) = (&moves[i], &moves[j]);
    let (ga, gb) = (&bases[a.base], &bases[b.base]);
    let what = |m: &Generated, g: &Generator| {
        if m.power == 1 {
            format!("the move {}", g.name)
        } else {
            format!("a power of {}", g.name)
        }
    };
    match (ga.file_move, gb.file_move) {
        (Some(fa), Some(fb)) => option_error(
            format!(
                "{}: move {} and {}: move {} both give a move called {:?} in the {metric} metric ({} and {})",
                def.move_place(fa),
                ga.name,
                def.move_place(fb),
                gb.name,
                a.name,
                what(a, ga),
                what(b, gb)
            ),
            "rename one of them in the file: no move's name may be another's with a power (2, 3, ') after it",
        ),
        _ => option_error(
            format!(
                "the chosen moves list {} and {}, which both give a move called {:?} in the {metric} metric ({} and {})",
                ga.name,
                gb.name,
                a.name,
                what(a, ga),
                what(b, gb)
            ),
            format!(
                "list each move once: {} alone gives its powers in the {metric} metric",
                if a.power == 1 { &gb.name } else { &ga.name }
            ),
        ),
    }
}

/// The moves, rotations and aliases a scramble's or `--moves`' step may
/// name.
fn nameable(def: &Definition) -> Vec<&MoveDef> {
    def.moves
        .iter()
        .chain(&def.rotations)
        .chain(&def.aliases)
        .collect()
}

/// A sequence of the file's moves (`R U2 F'`; rotations and aliases too)
/// as one transform.
fn parse_alg(def: &Definition, alg: &str) -> Result<Transform, String> {
    let sets = &def.sets;
    let known = nameable(def);
    let mut total = Transform::identity(sets);
    for token in alg.split_whitespace() {
        let t = tws::step(&known, token, sets).map_err(|e| match e {
            tws::Unread::TooHigh(m) => {
                let (what, help) = tws::too_high(&m);
                format!("{token:?}: {what} ({help})")
            }
            tws::Unread::Unknown => format!("{token:?} is not a move of {}", def.name),
        })?;
        total = total.then(&t, sets);
    }
    Ok(total)
}

/// The generators `--moves` names (a move, an alias, or a power of one:
/// `R2` generates R2 and its powers, as twsearch's `--moves` does), or
/// every move of the file.
fn generators(def: &Definition, names: Option<&[String]>) -> Result<Vec<Generator>, OptionError> {
    let Some(names) = names else {
        return Ok(def
            .moves
            .iter()
            .enumerate()
            .map(|(i, m)| Generator {
                name: m.name.clone(),
                transform: m.transform.clone(),
                file_move: Some(i),
            })
            .collect());
    };
    let moves_and_aliases: Vec<&MoveDef> = def.moves.iter().chain(&def.aliases).collect();
    let mut out: Vec<Generator> = Vec::new();
    for name in names {
        let file_move = def.moves.iter().position(|m| m.name == *name);
        let transform = match file_move {
            Some(i) => Ok(def.moves[i].transform.clone()),
            None => tws::step(&moves_and_aliases, name, &def.sets),
        };
        let transform = match transform {
            Ok(t) if !t.is_identity() => t,
            unread => {
                let rotation = def.rotations.iter().any(|r| r.name == *name);
                if let Err(tws::Unread::TooHigh(m)) = unread {
                    let (what, help) = tws::too_high(&m);
                    return Err(option_error(
                        format!("the chosen moves: {name}: {what}"),
                        help,
                    ));
                }
                return Err(option_error(
                    if rotation {
                        format!(
                            "the chosen moves: {name} is a rotation of {}: it turns the whole puzzle and is no move of the search",
                            def.name
                        )
                    } else {
                        format!("the chosen moves: {} has no move {name:?}", def.name)
                    },
                    format!(
                        "its moves are {} (a power of one, as R2, generates that power and its own)",
                        move_names(def)
                    ),
                ));
            }
        };
        if !out.iter().any(|g| g.name == *name) {
            out.push(Generator {
                name: name.clone(),
                transform,
                file_move,
            });
        }
    }
    if out.is_empty() {
        return Err(option_error(
            "the chosen moves name no move".into(),
            format!("give some of {}", move_names(def)),
        ));
    }
    Ok(out)
}

/// Each set's orbits under the generators: positions pieces can travel
/// between, each ascending, in order of their first position.
fn orbits(def: &Definition, bases: &[Generator]) -> Vec<Vec<Vec<usize>>> {
    def.sets
        .iter()
        .enumerate()
        .map(|(s, set)| {
            let mut parent: Vec<usize> = (0..set.size).collect();
            fn root(parent: &mut [usize], mut a: usize) -> usize {
                while parent[a] != a {
                    parent[a] = parent[parent[a]];
                    a = parent[a];
                }
                a
            }
            for g in bases {
                for (i, &j) in g.transform.perm[s].iter().enumerate() {
                    let (ri, rj) = (root(&mut parent, i), root(&mut parent, usize::from(j)));
                    parent[ri.max(rj)] = ri.min(rj);
                }
            }
            let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
            for i in 0..set.size {
                let r = root(&mut parent, i);
                groups.entry(r).or_default().push(i);
            }
            let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
            groups.sort_by_key(|g| g[0]);
            groups
        })
        .collect()
}

/// The coordinates of the key: per set and orbit, the arrangement and the
/// orientations, each reduced by what the generators keep (checked from
/// the moves, not assumed); those of size 1 left out.
fn coordinates(
    def: &Definition,
    bases: &[Generator],
    moves: &[Generated],
    start: &Pattern,
) -> Result<Vec<Coord>, OptionError> {
    let mut coords = Vec::new();
    for (s, orbits) in orbits(def, bases).into_iter().enumerate() {
        let set = &def.sets[s];
        for positions in orbits {
            let k = positions.len();
            if k > MAX_ORBIT {
                return Err(option_error(
                    format!(
                        "{}: set {}: {k} positions that pieces travel between; at most {MAX_ORBIT} are supported",
                        def.place(s),
                        set.name
                    ),
                    "split the set into smaller ones",
                ));
            }
            let mut index = vec![u8::MAX; set.size];
            for (a, &p) in positions.iter().enumerate() {
                index[p] = a as u8;
            }
            let local = |t: &Transform| -> (Vec<u8>, Vec<u8>) {
                positions
                    .iter()
                    .map(|&p| (index[usize::from(t.perm[s][p])], t.ori[s][p]))
                    .unzip()
            };
            let (perm, twist): (Vec<_>, Vec<_>) = moves.iter().map(|m| local(&m.transform)).unzip();
            let generators: Vec<(Vec<u8>, Vec<u8>)> =
                bases.iter().map(|g| local(&g.transform)).collect();
            let too_big = || {
                option_error(
                    format!(
                        "{}: set {}: the {k} positions of one orbit have more arrangements or orientations than a u64 holds",
                        def.place(s),
                        set.name
                    ),
                    "a key is one u64: split the puzzle or restrict its moves",
                )
            };
            // The arrangement.
            let mut values: Vec<u16> = positions.iter().map(|&p| start.pieces[s][p]).collect();
            values.sort_unstable();
            values.dedup();
            // Each position's kind (its piece's place among the orbit's
            // pieces), and how many of each kind.
            let kinds: Vec<u8> = positions
                .iter()
                .map(|&p| {
                    values
                        .binary_search(&start.pieces[s][p])
                        .expect("the orbit's own piece") as u8
                })
                .collect();
            let mut counts = vec![0u8; values.len()];
            for &kind in &kinds {
                counts[usize::from(kind)] += 1;
            }
            let kind_count = values.len();
            let distinct = kind_count == k;
            let even = generators.iter().all(|(p, _)| coord::parity(p) == 0);
            let parity = (distinct && even).then(|| coord::parity(&kinds));
            let arrangement = Kind::Perm {
                values,
                counts,
                distinct,
                parity,
            };
            let o = set.orientations;
            // Pieces whose orientation does not matter (twsearch's `?`), by
            // kind; identical pieces are all such or none.
            let mut wild = vec![false; kind_count];
            for (a, &p) in positions.iter().enumerate() {
                if start.ori[s][p] == WILD {
                    wild[usize::from(kinds[a])] = true;
                }
            }
            let counted = kinds
                .iter()
                .filter(|&&kind| !wild[usize::from(kind)])
                .count();
            if o > 1 && counted > 0 && counted < k {
                // The arrangement and the orientations that count, as one.
                let arrangement = Coord::new(
                    s,
                    positions.clone(),
                    arrangement,
                    perm.clone(),
                    twist.clone(),
                )
                .ok_or_else(too_big)?;
                let kind = Kind::Wild {
                    arrangement: Box::new(arrangement),
                    o,
                    wild,
                    counted,
                };
                coords
                    .push(Coord::new(s, positions.clone(), kind, perm, twist).ok_or_else(too_big)?);
                continue;
            }
            if kind_count > 1 {
                let c = Coord::new(
                    s,
                    positions.clone(),
                    arrangement,
                    perm.clone(),
                    twist.clone(),
                )
                .ok_or_else(too_big)?;
                coords.push(c);
            }
            // The orientations, unless none matters, or no move twists the
            // orbit and its pieces all start alike (nothing then changes).
            let twisted = generators.iter().any(|(_, t)| t.iter().any(|&d| d != 0));
            let alike = positions
                .iter()
                .all(|&p| start.ori[s][p] == start.ori[s][positions[0]]);
            if o > 1 && counted == k && (twisted || !alike) {
                let kept = generators
                    .iter()
                    .all(|(_, t)| t.iter().map(|&d| u32::from(d)).sum::<u32>() % u32::from(o) == 0);
                let sum = kept.then(|| {
                    (positions
                        .iter()
                        .map(|&p| u32::from(start.ori[s][p]))
                        .sum::<u32>()
                        % u32::from(o)) as u8
                });
                let c = Coord::new(s, positions.clone(), Kind::Ori { o, sum }, perm, twist)
                    .ok_or_else(too_big)?;
                if c.size > 1 {
                    coords.push(c);
                }
            }
        }
    }
    Ok(coords)
}

/// Writes a coordinate's values into a pattern.
fn inject(c: &Coord, local: &[u8], p: &mut Pattern) {
    if let Some((values, _)) = c.pieces() {
        for (&pos, &kind) in c.positions.iter().zip(local) {
            p.pieces[c.set][pos] = values[usize::from(kind)];
        }
    }
    match &c.kind {
        Kind::Perm { .. } => {}
        Kind::Ori { .. } => {
            for (&pos, &d) in c.positions.iter().zip(local) {
                p.ori[c.set][pos] = d;
            }
        }
        Kind::Wild { wild, .. } => {
            let k = c.positions.len();
            for (a, &pos) in c.positions.iter().enumerate() {
                p.ori[c.set][pos] = if wild[usize::from(local[a])] {
                    WILD
                } else {
                    local[k + a]
                };
            }
        }
    }
}

impl Model for Twisty {
    type State = TwistyState;
    type Key = u64;

    fn start(&self) -> u64 {
        self.start_key()
    }

    fn key_space(&self) -> u64 {
        self.key_space
    }

    fn new_state(&self) -> TwistyState {
        // A search checks `unsearchable` first.
        assert_eq!(
            self.words(),
            1,
            "{}",
            self.unsearchable().unwrap_or_default()
        );
        self.state_of()
    }

    fn unsearchable(&self) -> Option<String> {
        (self.words() > 1).then(|| {
            format!(
                "{}'s keys take {} 64-bit words, and `Twisty` is the model of one-word keys\n  help: search `reach::puzzles::twisty::Wider::<N>::new(&twisty)` with N at least {}",
                self.name,
                self.words(),
                self.words()
            )
        })
    }

    fn decode(&self, key: u64, state: &mut TwistyState) {
        self.decode_key(key, state);
    }

    fn successors(&self, state: &mut TwistyState, out: &mut Vec<u64>) {
        self.legal_successors(state, out);
    }

    fn is_goal(&self, state: &TwistyState) -> bool {
        self.is_solved(state)
    }

    fn has_goal(&self) -> bool {
        true
    }

    fn reversible(&self) -> bool {
        self.reversible
    }

    fn dense(&self) -> bool {
        // Two bits a key beat eight bytes a kept state when at least one
        // key in eight is a position (and the array is all the memory).
        self.density().is_some_and(|d| d >= DENSE_SHARE)
    }

    fn reachable_states(&self) -> Option<f64> {
        // The share of the keys that are positions, of every key.
        Some(self.density()? * self.key_space() as f64)
    }

    fn keys_are_states(&self) -> bool {
        // Every key is a pattern (each coordinate's every value is one),
        // unless the file makes some illegal.
        self.reversible && self.illegal.is_empty()
    }

    fn any_successor(
        &self,
        state: &mut TwistyState,
        far_only: bool,
        scratch: &mut Vec<u64>,
        hit: &mut dyn FnMut(u64) -> bool,
    ) -> bool {
        if !self.one_at_a_time {
            return any_of_all_successors(self, state, far_only, scratch, hit);
        }
        (0..self.moves.len()).any(|m| hit(self.key_after(state, m)))
    }

    fn goal_keys(&self) -> Option<Vec<u64>> {
        Some(
            self.goal
                .as_ref()
                .map_or_else(|_| Vec::new(), |g| vec![key_from(g)]),
        )
    }

    fn identity(&self) -> String {
        let moves: Vec<String> = self
            .moves
            .iter()
            .map(|m| format!("{} {:?} {:?}", m.name, m.transform.perm, m.transform.ori))
            .collect();
        format!(
            "twisty {:?}; metric {}; coordinates {:?}; sets {:?}; start {:?} {:?}; solved {:?} {:?}; illegal {:?}; moves {}",
            self.def.name,
            self.metric.name(),
            self.coords.iter().map(Coord::size_text).collect::<Vec<_>>(),
            self.def
                .sets
                .iter()
                .map(|s| (&s.name, s.size, s.orientations))
                .collect::<Vec<_>>(),
            self.start.pieces,
            self.start.ori,
            self.def.solved.pieces,
            self.def.solved.ori,
            self.def.illegal,
            moves.join("; ")
        )
    }
}

/// A twisty puzzle whose keys take more than one word, searched with keys
/// of `N` words (at least [`Twisty::words`]): sorted levels in memory, on
/// one process or several (see [`crate::engine::Wide`]).
#[derive(Clone, Copy, Debug)]
pub struct Wider<'t, const N: usize>(&'t Twisty);

impl<'t, const N: usize> Wider<'t, N> {
    /// The puzzle with keys of `N` words, or `None` when its keys take
    /// more.
    pub fn new(twisty: &'t Twisty) -> Option<Self> {
        (twisty.words() <= N).then_some(Wider(twisty))
    }

    /// The puzzle.
    pub fn twisty(&self) -> &'t Twisty {
        self.0
    }
}

impl<const N: usize> Model for Wider<'_, N> {
    type State = TwistyState<Wide<N>>;
    type Key = Wide<N>;

    fn start(&self) -> Wide<N> {
        self.0.start_key()
    }

    fn key_space(&self) -> u64 {
        u64::MAX
    }

    fn new_state(&self) -> Self::State {
        self.0.state_of()
    }

    fn decode(&self, key: Wide<N>, state: &mut Self::State) {
        self.0.decode_key(key, state);
    }

    fn successors(&self, state: &mut Self::State, out: &mut Vec<Wide<N>>) {
        self.0.legal_successors(state, out);
    }

    fn is_goal(&self, state: &Self::State) -> bool {
        self.0.is_solved(state)
    }

    fn has_goal(&self) -> bool {
        true
    }

    fn reversible(&self) -> bool {
        self.0.reversible
    }

    fn goal_keys(&self) -> Option<Vec<Wide<N>>> {
        Some(
            self.0
                .goal
                .as_ref()
                .map_or_else(|_| Vec::new(), |g| vec![key_from(g)]),
        )
    }

    fn identity(&self) -> String {
        format!("{}; key words {N}", self.0.identity())
    }
}
