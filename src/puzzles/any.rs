//! Any puzzle `reach` knows, by its name or its file: a built-in,
//! `tiles-RxC`, or a puzzle file's text (sliding blocks in TOML, twisty
//! puzzles in `.tws` or KPuzzle JSON), each read once; then shaped by a
//! metric, a twisty puzzle's moves and its scramble, each checked once for
//! every kind of puzzle; then searched by a [`Visit`], which
//! [`Prepared::visit`] hands the puzzle as the model its keys need (one
//! word, or as many as the puzzle takes).
//!
//! ```
//! use reach::engine::{Model, Search};
//! use reach::puzzles::any::{Puzzle, Shape, View, Visit};
//!
//! /// Counts the states of whatever puzzle it is given.
//! struct Count;
//!
//! impl Visit for Count {
//!     type Output = u64;
//!     fn visit<M: Model>(self, model: &M, _view: &dyn View<M::Key>) -> u64 {
//!         Search::new(model).threads(2).count().unwrap().states()
//!     }
//! }
//!
//! let puzzle = Puzzle::load("tiles-2x3").unwrap();
//! let prepared = puzzle.loaded.prepare(&Shape::default()).unwrap();
//! assert_eq!(prepared.visit(Count), 360);
//! ```

use std::path::Path;

use crate::engine::Model;
use crate::puzzles::builtin::{self, Kind};
use crate::puzzles::clocks::{self, Clocks};
use crate::puzzles::large_tiles::{LargeTiles, LargeTilesOf};
use crate::puzzles::sliding::{self, Metric, SlidingPuzzle};
use crate::puzzles::tiles::{Tiles, TilesError};
use crate::puzzles::twisty::{self as tw, Definition, Options, Twisty, TwistyMetric};

/// Why a puzzle could not be loaded or shaped. Each says what is wrong
/// and, after `\n  help: `, how to fix it, in the library's words (a
/// command line says the same with its flags' names).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Not a built-in, not `tiles-RxC` and no such file.
    #[error(
        "unknown puzzle {name:?}: not a built-in and no such file\n  help: built-ins are {}, tiles-RxC; or give the path of a puzzle file",
        builtins.join(", ")
    )]
    Unknown {
        /// The name asked for.
        name: String,
        /// The built-ins' names.
        builtins: Vec<&'static str>,
    },
    /// A puzzle file that cannot be read or is not a puzzle (with its
    /// line where it has one).
    #[error(transparent)]
    File(#[from] sliding::PuzzleError),
    /// A `tiles-RxC` outside the sizes tiles take.
    #[error(transparent)]
    Tiles(#[from] TilesError),
    /// A twisty puzzle's moves or scramble that do not fit its file.
    #[error(transparent)]
    Twisty(#[from] tw::OptionError),
    /// A scramble given for a puzzle that is not twisty.
    #[error(
        "a scramble applies to twisty puzzles (.tws or KPuzzle files); {name} is not one\n  help: a sliding-block puzzle starts from the board in its file"
    )]
    ScrambleNotTwisty {
        /// The puzzle's name.
        name: String,
    },
    /// A metric of the other kind of puzzle.
    #[error("{}", metric_mismatch(metric, name, *twisty))]
    MetricMismatch {
        /// The metric asked for.
        metric: &'static str,
        /// The puzzle's name.
        name: String,
        /// Whether the puzzle is twisty (the metric a sliding-block one).
        twisty: bool,
    },
    /// Moves chosen for a puzzle that is not twisty.
    #[error(
        "moves choose a twisty puzzle's generators; {name} is not a twisty puzzle (.tws or KPuzzle file)"
    )]
    MovesNotTwisty {
        /// The puzzle's name.
        name: String,
    },
    /// A metric, or a choice of moves, for a puzzle with one kind of
    /// move.
    #[error("{} applies to {}; {what}", if *moves { "choosing moves" } else { "a metric" }, if *moves { "twisty puzzles (.tws or KPuzzle files)" } else { "sliding-block and twisty puzzles" })]
    OneKindOfMove {
        /// The puzzle, and what its moves are.
        what: String,
        /// Whether moves were chosen (else a metric was given).
        moves: bool,
    },
}

fn metric_mismatch(metric: &str, name: &str, twisty: bool) -> String {
    if twisty {
        format!(
            "the metric {metric} is a sliding-block metric; {name} is a twisty puzzle\n  help: give htm (each move and its powers, the default), qtm (each move and its inverse) or moves (the moves as written)"
        )
    } else {
        format!(
            "the metric {metric} is a twisty puzzle's metric; {name} is a sliding-block puzzle\n  help: give step, slide or piece"
        )
    }
}

/// A metric of either kind of puzzle, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyMetric {
    /// A sliding-block puzzle's: `step`, `slide`, `piece`.
    Sliding(Metric),
    /// A twisty puzzle's: `htm`, `qtm`, `moves`.
    Twisty(TwistyMetric),
}

impl AnyMetric {
    /// The metric named `name`, of either kind.
    pub fn from_name(name: &str) -> Option<AnyMetric> {
        match name {
            "htm" => Some(AnyMetric::Twisty(TwistyMetric::Htm)),
            "qtm" => Some(AnyMetric::Twisty(TwistyMetric::Qtm)),
            "moves" => Some(AnyMetric::Twisty(TwistyMetric::Moves)),
            _ => Metric::from_name(name).map(AnyMetric::Sliding),
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            AnyMetric::Sliding(m) => m.name(),
            AnyMetric::Twisty(m) => m.name(),
        }
    }
}

/// A puzzle as its name or file describes it, before a metric, moves or
/// a scramble shape it.
pub enum Loaded {
    /// A sliding-block puzzle (a built-in or a TOML file).
    Sliding(Box<SlidingPuzzle>),
    /// The nine clocks of IOI'94, from all at twelve.
    Clocks(Clocks),
    /// `tiles-RxC` up to 16 cells: dense keys.
    Tiles(Box<Tiles>),
    /// Tiles past 16 cells, keys of several words.
    LargeTiles(Box<LargeTiles>),
    /// A twisty puzzle's definition: its metric, moves and scramble make
    /// the search of it.
    Twisty(Box<Definition>),
}

/// A loaded puzzle and where it came from.
pub struct Puzzle {
    /// The puzzle.
    pub loaded: Loaded,
    /// The text of the puzzle file as it was read; `None` for a built-in
    /// or `tiles-RxC`.
    pub file_text: Option<String>,
    /// The TOML of a sliding-block built-in.
    builtin_toml: Option<&'static str>,
}

impl Puzzle {
    /// The puzzle `name` names: a built-in, else `tiles-RxC` where no
    /// file has that name, else the puzzle file at that path.
    pub fn load(name: &str) -> Result<Puzzle, LoadError> {
        Puzzle::load_recorded(name, None)
    }

    /// As [`Puzzle::load`], except that a puzzle file's text is
    /// `recorded` (as a checkpoint kept it) rather than read.
    pub fn load_recorded(name: &str, recorded: Option<&str>) -> Result<Puzzle, LoadError> {
        if let Some(b) = builtin::find(name) {
            let (loaded, builtin_toml) = match b.kind {
                Kind::Sliding(text) => (
                    Loaded::Sliding(Box::new(
                        builtin::sliding(name).expect("a sliding built-in"),
                    )),
                    Some(text),
                ),
                Kind::Clocks => (Loaded::Clocks(Clocks::new([0; 9])), None),
            };
            return Ok(Puzzle {
                loaded,
                file_text: None,
                builtin_toml,
            });
        }
        if let Some(text) = recorded {
            return Puzzle::from_text(text, name);
        }
        let path = Path::new(name);
        if !path.exists()
            && let Some(tiles) = Tiles::from_name(name)
        {
            let loaded = match tiles {
                Err(TilesError::Large(r, c)) => {
                    Loaded::LargeTiles(Box::new(LargeTiles::new(r, c)?))
                }
                tiles => Loaded::Tiles(Box::new(tiles?)),
            };
            return Ok(Puzzle {
                loaded,
                file_text: None,
                builtin_toml: None,
            });
        }
        if !path.exists() && !name.contains(['/', '.']) {
            return Err(LoadError::Unknown {
                name: name.to_string(),
                builtins: builtin::ALL.iter().map(|b| b.name).collect(),
            });
        }
        Puzzle::from_text(&sliding::read_puzzle_text(path)?, name)
    }

    /// The puzzle a file's `text` describes: a twisty puzzle (`.tws` or
    /// KPuzzle JSON, by `origin`'s extension or by the text), or else a
    /// sliding-block puzzle (TOML). `origin` names it in messages.
    pub fn from_text(text: &str, origin: &str) -> Result<Puzzle, LoadError> {
        let loaded = match tw::sniff(text, origin) {
            Some(_) => Loaded::Twisty(Box::new(Twisty::parse(text, origin)?)),
            None => Loaded::Sliding(Box::new(SlidingPuzzle::from_toml(text, origin)?)),
        };
        Ok(Puzzle {
            loaded,
            file_text: Some(text.to_string()),
            builtin_toml: None,
        })
    }

    /// The TOML a sliding-block puzzle was read from: its file's, or a
    /// built-in's.
    pub fn toml(&self) -> Option<&str> {
        self.builtin_toml.or(self.file_text.as_deref())
    }
}

/// What shapes a puzzle's moves and start: its metric (the puzzle's
/// default where `None`), a twisty puzzle's generators and its scramble.
#[derive(Clone, Debug, Default)]
pub struct Shape {
    /// The metric (`step` for sliding blocks, `htm` for twisty puzzles,
    /// where `None`).
    pub metric: Option<AnyMetric>,
    /// A twisty puzzle's generators (every move of its file, where `None`).
    pub moves: Option<Vec<String>>,
    /// A twisty puzzle's start, as moves from solved.
    pub scramble: Option<String>,
}

/// A puzzle shaped by a [`Shape`], ready to search.
pub enum Prepared {
    /// A sliding-block puzzle under its metric.
    Sliding(Box<SlidingPuzzle>),
    /// The nine clocks.
    Clocks(Clocks),
    /// `tiles-RxC` up to 16 cells.
    Tiles(Box<Tiles>),
    /// Tiles past 16 cells.
    LargeTiles(Box<LargeTiles>),
    /// A twisty puzzle under its metric, moves and scramble.
    Twisty(Box<Twisty>),
}

impl Loaded {
    /// The puzzle under `shape`, each part of it refused where it does not
    /// apply, with what the puzzle takes instead.
    pub fn prepare(self, shape: &Shape) -> Result<Prepared, LoadError> {
        if shape.scramble.is_some() && !matches!(self, Loaded::Twisty(_)) {
            return Err(LoadError::ScrambleNotTwisty { name: self.name() });
        }
        let one_kind = |what: String| -> Result<(), LoadError> {
            if shape.metric.is_some() || shape.moves.is_some() {
                let moves = shape.metric.is_none();
                return Err(LoadError::OneKindOfMove { what, moves });
            }
            Ok(())
        };
        Ok(match self {
            Loaded::Sliding(p) => {
                if shape.moves.is_some() {
                    return Err(LoadError::MovesNotTwisty {
                        name: p.name().to_string(),
                    });
                }
                let metric = match shape.metric {
                    None => Metric::Step,
                    Some(AnyMetric::Sliding(m)) => m,
                    Some(m @ AnyMetric::Twisty(_)) => {
                        return Err(LoadError::MetricMismatch {
                            metric: m.name(),
                            name: p.name().to_string(),
                            twisty: false,
                        });
                    }
                };
                Prepared::Sliding(Box::new(p.with_metric(metric)))
            }
            Loaded::Twisty(def) => Prepared::Twisty(Box::new(twisty(*def, shape)?)),
            Loaded::Clocks(c) => {
                one_kind(
                    "the clocks have one kind of move (tests/data/clocks.tws has them as a twisty puzzle, with metrics)".into(),
                )?;
                Prepared::Clocks(c)
            }
            Loaded::Tiles(t) => {
                one_kind(format!("{} moves one tile a cell at a time", t.name()))?;
                Prepared::Tiles(t)
            }
            Loaded::LargeTiles(t) => {
                one_kind(format!("{} moves one tile a cell at a time", t.name()))?;
                Prepared::LargeTiles(t)
            }
        })
    }

    /// The puzzle's name, for messages.
    pub fn name(&self) -> String {
        match self {
            Loaded::Sliding(p) => p.name().to_string(),
            Loaded::Twisty(def) => def.name.clone(),
            Loaded::Clocks(_) => "clocks".to_string(),
            Loaded::Tiles(t) => t.name(),
            Loaded::LargeTiles(t) => t.name(),
        }
    }
}

/// The twisty puzzle `def` under `shape` (the metric `htm` where it names
/// none).
pub fn twisty(def: Definition, shape: &Shape) -> Result<Twisty, LoadError> {
    let metric = match shape.metric {
        None => TwistyMetric::Htm,
        Some(AnyMetric::Twisty(t)) => t,
        Some(m @ AnyMetric::Sliding(_)) => {
            return Err(LoadError::MetricMismatch {
                metric: m.name(),
                name: def.name.clone(),
                twisty: true,
            });
        }
    };
    let options = Options {
        metric,
        moves: shape.moves.clone(),
        scramble: shape.scramble.clone(),
    };
    Ok(Twisty::new(def, &options)?)
}

/// What a search of a prepared puzzle does with it: [`Prepared::visit`]
/// calls `visit` with the puzzle as the model its keys need, compiled
/// once for each width of key.
pub trait Visit {
    /// What the visit gives.
    type Output;

    /// Searches `model`; `view` draws its keys and names the moves between
    /// them.
    fn visit<M: Model>(self, model: &M, view: &dyn View<M::Key>) -> Self::Output;
}

/// How a puzzle's keys read to a person.
pub trait View<K: Copy> {
    /// The puzzle's name.
    fn name(&self) -> String;
    /// The position of `key`, drawn as the puzzle's files write it.
    fn board(&self, key: K) -> String;
    /// The moves along `path` (each key a successor of the one before), as
    /// `solve` prints them.
    fn moves(&self, path: &[K]) -> Vec<String>;
    /// The moves along `path` and the positions it passes, drawn so that
    /// each piece keeps its label from the start to the end (a key stands
    /// for a position in which interchangeable pieces are not told apart;
    /// the moves name the pieces by these labels). By default each key's
    /// board.
    fn walk(&self, path: &[K]) -> Walk {
        Walk {
            moves: self.moves(path),
            boards: path.iter().map(|&k| self.board(k)).collect(),
        }
    }
}

/// A path as a person reads it: [`View::walk`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Walk {
    /// The moves, one fewer than the positions.
    pub moves: Vec<String>,
    /// The positions from the path's first to its last.
    pub boards: Vec<String>,
}

/// Evaluates `$body` with `$m` bound to the puzzle `$p` as the model its
/// keys need: `$p` itself where a key is one word (`$p.words()`), else
/// `$wide::<N>::new($p)` for the first width class `N` of `$n` that holds
/// its keys. `$body` is compiled once for each width class; the class is
/// chosen once per search, never per key.
#[doc(hidden)]
#[macro_export]
macro_rules! of_width {
    ($p:expr, $wide:ident, [$($n:literal),+], |$m:ident| $body:expr) => {{
        let p = $p;
        let words = p.words();
        if words == 1 {
            let $m = p;
            $body
        } $(else if words <= $n {
            let w = $wide::<$n>::new(p).expect("the width class holds the key");
            let $m = &w;
            $body
        })+ else {
            unreachable!("no width class holds a key of {words} words")
        }
    }};
}

/// Evaluates `$body` with `$m` bound to the sliding-block puzzle `$p` as
/// the model its keys need: the puzzle itself, or a
/// [`WideSliding`](crate::puzzles::sliding::WideSliding) of 2, 3, 4, 6, 8
/// or 16 words.
#[doc(hidden)]
#[macro_export]
macro_rules! sliding_of_width {
    ($p:expr, |$m:ident| $body:expr) => {{
        use $crate::puzzles::sliding::WideSliding;
        let p: &$crate::puzzles::sliding::SlidingPuzzle = $p;
        $crate::of_width!(p, WideSliding, [2, 3, 4, 6, 8, 16], |$m| $body)
    }};
}

/// Evaluates `$body` with `$m` bound to the sliding-block puzzle `$p`
/// searched one class of the positions `$sym` maps onto each other at a
/// time: a [`SymmetricSliding`](crate::puzzles::sliding::SymmetricSliding)
/// with keys of one word, or of 2, 4 or 16 words, as its class keys need
/// ([`BoardSymmetry::key_words`](crate::puzzles::sliding::BoardSymmetry::key_words)).
/// `$sym` must keep a motion besides the identity. Each width is compiled
/// once; `$m` is of a concrete type, so `$body` may call what the model
/// adds (the real path, a class's positions).
#[doc(hidden)]
#[macro_export]
macro_rules! sliding_classes_of_width {
    ($p:expr, $sym:expr, |$m:ident| $body:expr) => {{
        use $crate::engine::Wide;
        let (p, sym): (
            &$crate::puzzles::sliding::SlidingPuzzle,
            &$crate::puzzles::sliding::BoardSymmetry,
        ) = ($p, $sym);
        match sym.key_words() {
            1 => $crate::sliding_classes_of_width!(@as u64, p, sym, |$m| $body),
            2 => $crate::sliding_classes_of_width!(@as Wide<2>, p, sym, |$m| $body),
            3 | 4 => $crate::sliding_classes_of_width!(@as Wide<4>, p, sym, |$m| $body),
            _ => $crate::sliding_classes_of_width!(@as Wide<16>, p, sym, |$m| $body),
        }
    }};
    (@as $k:ty, $p:ident, $sym:ident, |$m:ident| $body:expr) => {{
        let w = $crate::puzzles::sliding::SymmetricSliding::<$k>::new($p, $sym)
            .expect("a symmetry besides the identity, in a width class that holds its keys");
        let $m = &w;
        $body
    }};
}

/// Evaluates `$body` with `$m` bound to the twisty puzzle `$t` as the
/// model its keys need: the puzzle itself, or a
/// [`Wider`](crate::puzzles::twisty::Wider) of 2, 3, 4, 6, 8, 16, 32 or
/// 128 words.
#[doc(hidden)]
#[macro_export]
macro_rules! twisty_of_width {
    ($t:expr, |$m:ident| $body:expr) => {{
        use $crate::puzzles::twisty::Wider;
        let t: &$crate::puzzles::twisty::Twisty = $t;
        $crate::of_width!(t, Wider, [2, 3, 4, 6, 8, 16, 32, 128], |$m| $body)
    }};
}

impl Prepared {
    /// Runs `v` on the puzzle as the model its keys need.
    pub fn visit<V: Visit>(&self, v: V) -> V::Output {
        match self {
            Prepared::Sliding(p) => {
                let view = SlidingView(p);
                crate::sliding_of_width!(p, |m| v.visit(m, &view))
            }
            Prepared::Twisty(t) => {
                let view = TwistyView(t);
                crate::twisty_of_width!(t, |m| v.visit(m, &view))
            }
            Prepared::Clocks(c) => v.visit(c, &ClocksView),
            Prepared::Tiles(t) => v.visit(&**t, &TilesView(t)),
            Prepared::LargeTiles(t) => {
                let view = LargeTilesView(t);
                match t.words() {
                    // One word too: the levels of wide keys are kept coded
                    // in memory (4 bytes a position of tiles-4x5 against 8
                    // as plain words, and a third of the peak).
                    1 | 2 => v.visit(
                        &LargeTilesOf::<crate::engine::Wide<2>>::new(t).expect("two words"),
                        &view,
                    ),
                    _ => v.visit(
                        &LargeTilesOf::<crate::engine::Wide<3>>::new(t).expect("three words"),
                        &view,
                    ),
                }
            }
        }
    }

    /// As [`Prepared::visit`], with the keys standing for classes of the
    /// positions `symmetry` maps onto each other (a twisty puzzle's
    /// [`Symmetric`](tw::Symmetric) model, a sliding-block puzzle's
    /// [`SymmetricSliding`](sliding::SymmetricSliding), whose levels still
    /// count positions). `None`, or symmetries of another kind of puzzle
    /// than this one: every position its own key.
    pub fn visit_classes<V: Visit>(&self, symmetry: Option<&Symmetries>, v: V) -> V::Output {
        match (self, symmetry) {
            (Prepared::Twisty(t), Some(Symmetries::Twisty(sym))) => twisty_classes(t, sym, v),
            (Prepared::Sliding(p), Some(Symmetries::Sliding(sym))) if !sym.is_trivial() => {
                sliding_classes(p, sym, false, v)
            }
            (Prepared::Tiles(_) | Prepared::LargeTiles(_), Some(Symmetries::Tiles(ts))) => {
                sliding_classes(&ts.puzzle, &ts.sym, true, v)
            }
            _ => self.visit(v),
        }
    }

    /// The puzzle's name, as its file or name gives it.
    pub fn name(&self) -> String {
        match self {
            Prepared::Sliding(p) => p.name().to_string(),
            Prepared::Twisty(t) => t.name().to_string(),
            Prepared::Clocks(_) => "clocks".to_string(),
            Prepared::Tiles(t) => t.name(),
            Prepared::LargeTiles(t) => t.name(),
        }
    }

    /// The metric searched, for the puzzles that have more than one.
    pub fn metric(&self) -> Option<&'static str> {
        match self {
            Prepared::Sliding(p) => Some(p.metric().name()),
            Prepared::Twisty(t) => Some(t.metric().name()),
            _ => None,
        }
    }
}

/// Whether a search keeps one position a class of symmetric positions
/// (the command line's `--symmetry`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SymmetryChoice {
    /// Wherever the puzzle has a symmetry, unless a search of every
    /// position takes the dense store (two bits a key, faster and smaller
    /// than classes where it fits).
    #[default]
    Auto,
    /// Wherever the puzzle has a symmetry.
    On,
    /// Wherever the puzzle has a symmetry, but no mirror image: a twisty
    /// file's rotations (twsearch's reduction), a board's half and
    /// quarter turns.
    Rotations,
    /// Never: every position is searched.
    None,
}

impl SymmetryChoice {
    /// The choice named `name` (`auto`, `on`, `rotations` or `none`).
    pub fn from_name(name: &str) -> Option<SymmetryChoice> {
        match name {
            "auto" => Some(SymmetryChoice::Auto),
            "on" => Some(SymmetryChoice::On),
            "rotations" => Some(SymmetryChoice::Rotations),
            "none" => Some(SymmetryChoice::None),
            _ => None,
        }
    }
}

/// What decides the store of a search position by position, for
/// [`SymmetryChoice::Auto`]'s test: the search's threads, visited set
/// and memory limit as it will be made.
#[derive(Clone, Copy, Debug, Default)]
pub struct StoreSettings {
    /// Worker threads (0: every core).
    pub threads: usize,
    /// The visited set asked for.
    pub visited: crate::engine::VisitedKind,
    /// The memory limit, in bytes.
    pub memory_limit: Option<u64>,
}

/// Whether a search of `model`, every position its own key, made with
/// `settings` (`None`: the defaults), takes the dense store (`solve`: a
/// solve's store): there two bits a key are faster and smaller than
/// classes of symmetric positions, which [`SymmetryChoice::Auto`] then
/// leaves out.
pub fn takes_dense<M: Model>(model: &M, settings: Option<&StoreSettings>, solve: bool) -> bool {
    let plain = crate::engine::Search::new(model);
    let plain = match settings {
        Some(s) => plain
            .threads(s.threads)
            .visited(s.visited)
            .memory_limit(s.memory_limit),
        None => plain,
    };
    plain
        .store(solve)
        .is_ok_and(|(kind, _)| kind == crate::engine::VisitedKind::Dense)
}

/// The symmetries a search of sliding-block puzzle `p` keeps one position
/// a class of under `choice`: the motions of its board that map it, its
/// start and its goal onto themselves ([`sliding::BoardSymmetry`]), or
/// `None` (every position its own key) where there are none but the
/// identity, or [`SymmetryChoice::Auto`]
/// finds that it takes the dense store ([`takes_dense`]; `solve`: a
/// solve's).
pub fn sliding_symmetry(
    p: &SlidingPuzzle,
    choice: SymmetryChoice,
    settings: Option<&StoreSettings>,
    solve: bool,
) -> Option<sliding::BoardSymmetry> {
    if choice == SymmetryChoice::None {
        return None;
    }
    if choice == SymmetryChoice::Auto && takes_dense(p, settings, solve) {
        return None;
    }
    let sym = match choice {
        SymmetryChoice::Rotations => sliding::BoardSymmetry::of_rotations(p),
        _ => sliding::BoardSymmetry::of(p),
    };
    (!sym.is_trivial()).then_some(sym)
}

/// The symmetries a search of twisty puzzle `t` keeps one position a
/// class of under `choice`: the elements of the group its file's
/// rotations generate that map it onto itself, with their mirror images
/// where a mirror does too, unless `choice` is
/// [`SymmetryChoice::Rotations`] ([`tw::Symmetry::of`]),
/// without the inverse position for a `solve` (a path of moves does not
/// respect it); `None` where the file declares no rotations, no symmetry
/// but the identity is left, or [`SymmetryChoice::Auto`] finds that its
/// one-word keys take the dense store ([`takes_dense`]), faster and
/// smaller where it fits (the 2x2x2: 1.5 s and 35 MiB against 3.8 s and
/// 336 MiB for its classes; the pyraminx: 16.4 s and 877 MiB against
/// 28.0 s and 1.1 GiB).
pub fn twisty_symmetry(
    t: &Twisty,
    choice: SymmetryChoice,
    settings: Option<&StoreSettings>,
    solve: bool,
) -> Option<tw::Symmetry> {
    if choice == SymmetryChoice::None || t.definition().rotations.is_empty() {
        return None;
    }
    if choice == SymmetryChoice::Auto && t.words() == 1 && takes_dense(t, settings, solve) {
        return None;
    }
    let sym = match choice {
        SymmetryChoice::Rotations => tw::Symmetry::of_rotations(t),
        _ => tw::Symmetry::of(t),
    };
    let sym = if solve { sym.without_inverse(t) } else { sym };
    // A class's size may take a word beyond the widest class compiled.
    (!sym.is_trivial() && sym.key_words() <= 128).then_some(sym)
}

impl Prepared {
    /// The symmetries a search of the puzzle keeps one position a class
    /// of under `choice` (a twisty puzzle's, see [`twisty_symmetry`]; a
    /// sliding-block puzzle's, see [`sliding_symmetry`]; none for the
    /// others), for [`Prepared::visit_classes`].
    pub fn symmetries(
        &self,
        choice: SymmetryChoice,
        settings: Option<&StoreSettings>,
        solve: bool,
    ) -> Option<Symmetries> {
        match self {
            Prepared::Twisty(t) => twisty_symmetry(t, choice, settings, solve)
                .map(|sym| Symmetries::Twisty(Box::new(sym))),
            Prepared::Sliding(p) => {
                sliding_symmetry(p, choice, settings, solve).map(Symmetries::Sliding)
            }
            Prepared::Tiles(_) | Prepared::LargeTiles(_) => {
                self.tiles_symmetry(choice, settings, solve)
            }
            Prepared::Clocks(_) => None,
        }
    }

    /// The symmetries a search of a tile puzzle (`tiles-RxC`) keeps one
    /// position a class of under `choice`: its board's motions that fix
    /// the blank's start (the diagonal mirror of a square board, which
    /// relabels the tiles), found on its [`tile_board`] and searched as
    /// that puzzle's classes; `None` where there are none, or
    /// [`SymmetryChoice::Auto`] finds that the tile model takes the dense
    /// store (`solve`: a solve's).
    fn tiles_symmetry(
        &self,
        choice: SymmetryChoice,
        settings: Option<&StoreSettings>,
        solve: bool,
    ) -> Option<Symmetries> {
        let dense = || match self {
            Prepared::Tiles(t) => takes_dense(&**t, settings, solve),
            _ => false,
        };
        if choice == SymmetryChoice::None || choice == SymmetryChoice::Auto && dense() {
            return None;
        }
        let puzzle = self.tile_board()?;
        let sym = match choice {
            SymmetryChoice::Rotations => sliding::BoardSymmetry::of_rotations(&puzzle),
            _ => sliding::BoardSymmetry::of(&puzzle),
        };
        (!sym.is_trivial()).then(|| Symmetries::Tiles(Box::new(TileSymmetry { puzzle, sym })))
    }

    /// A tile puzzle (`tiles-RxC`) as the board of its tiles, on which its
    /// symmetries are found ([`tile_board`]); `None` for the others.
    pub fn tile_board(&self) -> Option<SlidingPuzzle> {
        match self {
            Prepared::Tiles(t) => Some(tile_board(t.rows(), t.cols())),
            Prepared::LargeTiles(t) => Some(tile_board(t.rows(), t.cols())),
            _ => None,
        }
    }
}

/// The tile puzzle `tiles-RxC` as the sliding-block puzzle of its tiles:
/// each a distinct piece of one cell, labelled 1-9 and then A-Z in reading
/// order as the tile puzzle draws them, the blank in the last cell. Its
/// keys are other than the tile puzzle's past 16 cells (each tile's cell
/// in mixed radix), and its board's symmetries are found as any board's.
pub fn tile_board(rows: usize, cols: usize) -> SlidingPuzzle {
    SlidingPuzzle::from_toml(&tile_board_toml(rows, cols, false), "tiles")
        .expect("a board of distinct tiles")
}

/// The TOML of [`tile_board`], with the solved board as its goal where
/// `goal` says so (what a census of the tiles measures from).
pub fn tile_board_toml(rows: usize, cols: usize, goal: bool) -> String {
    let n = rows * cols;
    let mut board = String::new();
    for cell in 0..n {
        board.push(match cell + 1 {
            t if t == n => '.',
            t => char::from_digit(t as u32, 36)
                .expect("at most 36 cells")
                .to_ascii_uppercase(),
        });
        if cell % cols == cols - 1 {
            board.push('\n');
        }
    }
    let mut text = format!(
        "name = \"tiles-{rows}x{cols}\"\ndistinct = \"*\"\nboard = \"\"\"\n{board}\"\"\"\n"
    );
    if goal {
        text.push_str(&format!("goal = \"\"\"\n{board}\"\"\"\n"));
    }
    text
}

/// A tile puzzle's symmetries (see [`Prepared::symmetries`]): the sliding-block
/// puzzle of its tiles ([`tile_board`]), whose classes are searched, and
/// the motions of its board kept.
#[derive(Clone, Debug)]
pub struct TileSymmetry {
    /// The tile puzzle as a board of distinct tiles.
    pub puzzle: SlidingPuzzle,
    /// The motions of its board that fix the blank's start.
    pub sym: sliding::BoardSymmetry,
}

/// The symmetries a search of a puzzle keeps one position a class of
/// ([`Prepared::visit_classes`]).
#[derive(Clone, Debug)]
pub enum Symmetries {
    /// A twisty puzzle's rotations (and inverse).
    Twisty(Box<tw::Symmetry>),
    /// A sliding-block puzzle's motions of its board.
    Sliding(sliding::BoardSymmetry),
    /// A tile puzzle's, found and searched on the board of its tiles.
    Tiles(Box<TileSymmetry>),
}

/// [`Prepared::visit_classes`] of sliding-block puzzle `p` under `sym`
/// (not trivial), with keys as wide as its classes need; drawn as a tile
/// puzzle draws its boards and names its moves where `p` is the board of
/// one's tiles (`tiles`, see [`tile_board`]).
fn sliding_classes<V: Visit>(
    p: &SlidingPuzzle,
    sym: &sliding::BoardSymmetry,
    tiles: bool,
    v: V,
) -> V::Output {
    crate::sliding_classes_of_width!(p, sym, |m| {
        let real = |path: &[_]| m.real_path(path);
        let (board, tile) = (SlidingView(p), TileBoardView(p));
        let puzzle: &dyn View<_> = if tiles { &tile } else { &board };
        v.visit(
            m,
            &ClassView {
                puzzle,
                real: &real,
            },
        )
    })
}

/// [`Prepared::visit_classes`] of twisty puzzle `t` under `sym`, with
/// keys as wide as its classes need.
fn twisty_classes<V: Visit>(t: &Twisty, sym: &tw::Symmetry, v: V) -> V::Output {
    macro_rules! classes_of {
        ($k:ty) => {{
            let m = tw::Symmetric::<$k>::new(t, sym).expect("the width class holds the key");
            let real = |path: &[$k]| m.real_path(path);
            let view = ClassView {
                puzzle: &TwistyView(t),
                real: &real,
            };
            v.visit(&m, &view)
        }};
    }
    match sym.key_words() {
        1 => classes_of!(u64),
        2 => classes_of!(crate::engine::Wide<2>),
        3 | 4 => classes_of!(crate::engine::Wide<4>),
        5..=8 => classes_of!(crate::engine::Wide<8>),
        9..=32 => classes_of!(crate::engine::Wide<32>),
        33..=128 => classes_of!(crate::engine::Wide<128>),
        words => unreachable!("no width class holds a key of {words} words"),
    }
}

struct SlidingView<'a>(&'a SlidingPuzzle);
struct TwistyView<'a>(&'a Twisty);
struct ClocksView;
struct TilesView<'a>(&'a Tiles);
struct LargeTilesView<'a>(&'a LargeTiles);
/// A tile puzzle drawn and its moves named from the board of its tiles
/// ([`tile_board`]), as the tile puzzle draws and names them.
struct TileBoardView<'a>(&'a SlidingPuzzle);

impl<K: crate::engine::Key> View<K> for SlidingView<'_> {
    fn name(&self) -> String {
        self.0.name().to_string()
    }
    fn board(&self, key: K) -> String {
        self.0.render(key)
    }
    fn moves(&self, path: &[K]) -> Vec<String> {
        self.walk(path).moves
    }
    fn walk(&self, path: &[K]) -> Walk {
        let steps = self.0.steps(path);
        Walk {
            moves: steps.iter().map(|st| st.mv.to_string()).collect(),
            boards: path
                .first()
                .map(|&k| self.0.render(k))
                .into_iter()
                .chain(steps.into_iter().map(|st| st.board))
                .collect(),
        }
    }
}

impl<K: crate::engine::Key> View<K> for TwistyView<'_> {
    fn name(&self) -> String {
        self.0.name().to_string()
    }
    fn board(&self, key: K) -> String {
        self.0.render(key)
    }
    fn moves(&self, path: &[K]) -> Vec<String> {
        self.0.path_moves(path)
    }
}

/// A view of the classes of symmetric positions: keys (the positions
/// [`Model::orbit`] lists) drawn as the puzzle's own view draws them, and
/// a path of classes walked as that view walks the real path `real`
/// makes of it, from the real start (the models' `real_path`).
struct ClassView<'a, K> {
    puzzle: &'a dyn View<K>,
    real: &'a dyn Fn(&[K]) -> Vec<K>,
}

impl<K: Copy> View<K> for ClassView<'_, K> {
    fn name(&self) -> String {
        self.puzzle.name()
    }
    fn board(&self, key: K) -> String {
        self.puzzle.board(key)
    }
    fn moves(&self, path: &[K]) -> Vec<String> {
        self.puzzle.moves(&(self.real)(path))
    }
    fn walk(&self, path: &[K]) -> Walk {
        self.puzzle.walk(&(self.real)(path))
    }
}

impl View<u64> for ClocksView {
    fn name(&self) -> String {
        "clocks".to_string()
    }
    fn board(&self, key: u64) -> String {
        clocks::board(key)
    }
    fn moves(&self, path: &[u64]) -> Vec<String> {
        let c = Clocks::new([0; 9]);
        path.windows(2)
            .map(|w| {
                let m = (0..9)
                    .find(|&m| c.apply(w[0], m) == w[1])
                    .expect("consecutive keys of a path differ by one move");
                (m + 1).to_string()
            })
            .collect()
    }
}

/// The tiles moved along `path`, whose boards `render` draws a cell a
/// character (`.` the blank): each the one that stood where the blank
/// then is.
fn tiles_moved<K: Copy>(path: &[K], render: impl Fn(K) -> String) -> Vec<String> {
    path.windows(2)
        .map(|w| {
            let (before, after) = (render(w[0]), render(w[1]));
            before
                .chars()
                .zip(after.chars())
                .find(|&(_, a)| a == '.')
                .map_or_else(String::new, |(b, _)| b.to_string())
        })
        .collect()
}

impl View<u64> for TilesView<'_> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn board(&self, key: u64) -> String {
        self.0.render(key)
    }
    fn moves(&self, path: &[u64]) -> Vec<String> {
        tiles_moved(path, |k| self.0.render(k))
    }
}

impl<K: crate::engine::Key> View<K> for LargeTilesView<'_> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn board(&self, key: K) -> String {
        self.0.render(key)
    }
    fn moves(&self, path: &[K]) -> Vec<String> {
        tiles_moved(path, |k| self.0.render(k))
    }
}

impl<K: crate::engine::Key> View<K> for TileBoardView<'_> {
    fn name(&self) -> String {
        self.0.name().to_string()
    }
    fn board(&self, key: K) -> String {
        self.0.render(key)
    }
    fn moves(&self, path: &[K]) -> Vec<String> {
        tiles_moved(path, |k| self.0.render(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each refusal of a shape says what is wrong in the library's words:
    /// no command line's flag.
    #[test]
    fn refusals_name_no_flag() {
        let shapes = [
            Shape {
                metric: AnyMetric::from_name("qtm"),
                ..Shape::default()
            },
            Shape {
                moves: Some(vec!["U".into()]),
                ..Shape::default()
            },
            Shape {
                scramble: Some("U".into()),
                ..Shape::default()
            },
        ];
        for name in ["klotski", "clocks", "tiles-3x3"] {
            for shape in &shapes {
                let loaded = Puzzle::load(name).unwrap().loaded;
                let Err(e) = loaded.prepare(shape) else {
                    panic!("{name} took {shape:?}");
                };
                let text = e.to_string();
                assert!(!text.contains("--"), "{name}, {shape:?}: {text}");
            }
        }
        // A twisty puzzle's moves and scramble that do not fit its file.
        let cube = "Name cube\nSet C 4 1\nSolved\nC\n1 2 3 4\nEnd\nMove U\nC\n2 3 4 1\nEnd\n";
        let twisty = [
            Shape {
                moves: Some(vec!["Q".into()]),
                ..Shape::default()
            },
            Shape {
                moves: Some(vec!["U".into(), "U2".into()]),
                ..Shape::default()
            },
            Shape {
                moves: Some(Vec::new()),
                ..Shape::default()
            },
            Shape {
                scramble: Some("U Q".into()),
                ..Shape::default()
            },
        ];
        for shape in &twisty {
            let loaded = Puzzle::from_text(cube, "cube.tws").unwrap().loaded;
            let Err(e) = loaded.prepare(shape) else {
                panic!("the cube took {shape:?}");
            };
            let text = e.to_string();
            assert!(!text.contains("--"), "{shape:?}: {text}");
        }
    }
}
