//! The one registry the commands load a puzzle through: a built-in name,
//! `tiles-RxC`, or a puzzle file (sliding-block TOML, `.tws` or KPuzzle
//! JSON), each interpreted once; then the command line's `--metric`,
//! `--moves` and `--scramble`, checked once for every kind of puzzle.
//! Also the bounded reading of stdin for `clocks` and `sawtooth`.

/// Evaluates `$body` with `$m` bound to the puzzle `$p` as the model its
/// keys need: `$p` itself where a key is one word (`$p.words()`), else
/// `$wide::<N>::new($p)` for the first width class `N` of `$n` that holds
/// its keys. `$body` is compiled once for each width class; the class is
/// chosen once per search, never per key.
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
pub(super) use of_width;

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail};

use reach::puzzles::builtin::{self, Kind};
use reach::puzzles::clocks::Clocks;
use reach::puzzles::large_tiles::LargeTiles;
use reach::puzzles::sliding::{self, Metric, SlidingPuzzle};
use reach::puzzles::tiles::{Tiles, TilesError};
use reach::puzzles::twisty::{self as tw, Definition, Options, Twisty, TwistyMetric};

use super::args::MetricArg;

/// What `reach list` says of the tile puzzles.
pub(super) const TILES_SUMMARY: &str = "R x C sliding tiles from solved, dense keys up to 16 cells (tiles-2x7 has 43589145600 states, depth 108: a count of a quarter of an hour), keys of 2-3 words up to 36 (tiles-5x5, tiles-6x6: count them to a depth with --max-depth)";

/// A puzzle as its name or file describes it, before the command's options.
pub(super) enum Loaded {
    Sliding(Box<SlidingPuzzle>),
    Clocks(Clocks),
    Tiles(Box<Tiles>),
    /// Tiles past 16 cells, keys of several words.
    LargeTiles(Box<LargeTiles>),
    /// A twisty puzzle's definition: the command's options make the
    /// search of it.
    Twisty(Box<Definition>),
}

/// A loaded puzzle and where it came from.
pub(super) struct Puzzle {
    pub(super) loaded: Loaded,
    /// The text of the puzzle file, as it was read (for a resumed run, as it
    /// was when the run began); `None` for a built-in. A checkpoint records
    /// it.
    pub(super) file_text: Option<String>,
    /// The TOML of a sliding-block built-in, which `hardest --toml`
    /// rewrites as a file's.
    builtin_toml: Option<&'static str>,
}

impl Puzzle {
    /// The puzzle `name` names: a built-in, else the file's text as a
    /// resumed run `recorded` it, else `tiles-RxC` where no file has that
    /// name, else a puzzle file.
    pub(super) fn load(name: &str, recorded: Option<&str>) -> Result<Puzzle> {
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
        let text = match recorded {
            Some(text) => text.to_string(),
            None => {
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
                    let names: Vec<&str> = builtin::ALL.iter().map(|b| b.name).collect();
                    bail!(
                        "unknown puzzle {name:?}: not a built-in and no such file\n  help: built-ins are {}, tiles-RxC; or give the path of a puzzle file",
                        names.join(", ")
                    );
                }
                sliding::read_puzzle_text(path)?
            }
        };
        // A twisty puzzle (`.tws` or KPuzzle JSON, by extension or
        // content), or else a sliding-block puzzle (TOML).
        let loaded = match tw::sniff(&text, name) {
            Some(_) => Loaded::Twisty(Box::new(Twisty::parse(&text, name)?)),
            None => Loaded::Sliding(Box::new(SlidingPuzzle::from_toml(&text, name)?)),
        };
        Ok(Puzzle {
            loaded,
            file_text: Some(text),
            builtin_toml: None,
        })
    }

    /// The TOML a sliding-block puzzle was read from: its file's, or a
    /// built-in's.
    pub(super) fn toml(&self) -> Option<&str> {
        self.builtin_toml.or(self.file_text.as_deref())
    }
}

/// A puzzle under the command line's options: the metric a sliding-block
/// or twisty puzzle searches in, the moves and start of a twisty one.
pub(super) enum Prepared {
    Sliding(Box<SlidingPuzzle>),
    Clocks(Clocks),
    Tiles(Box<Tiles>),
    LargeTiles(Box<LargeTiles>),
    Twisty(Box<Twisty>),
}

/// The options that shape a puzzle's moves and start, as the command line
/// gave them.
#[derive(Clone, Copy)]
pub(super) struct Shape<'a> {
    pub(super) metric: Option<MetricArg>,
    pub(super) moves: &'a Option<Vec<String>>,
    pub(super) scramble: &'a Option<String>,
}

impl Loaded {
    /// The puzzle under `shape`, each option refused where it does not
    /// apply, with what the puzzle takes instead.
    pub(super) fn prepare(self, shape: Shape) -> Result<Prepared> {
        if shape.scramble.is_some() && !matches!(self, Loaded::Twisty(_)) {
            bail!(
                "--scramble applies to twisty puzzles (.tws or KPuzzle files); {} is not one\n  help: a sliding-block puzzle starts from the board in its file",
                self.name()
            );
        }
        Ok(match self {
            Loaded::Sliding(p) => {
                let metric = sliding_metric(shape.metric, shape.moves, p.name())?;
                Prepared::Sliding(Box::new(p.with_metric(metric)))
            }
            Loaded::Twisty(def) => Prepared::Twisty(Box::new(twisty(*def, shape)?)),
            Loaded::Clocks(c) => {
                no_metric(
                    shape,
                    "the clocks have one kind of move (tests/data/clocks.tws has them as a twisty puzzle, with metrics)",
                )?;
                Prepared::Clocks(c)
            }
            Loaded::Tiles(t) => {
                no_metric(
                    shape,
                    &format!("{} moves one tile a cell at a time", t.name()),
                )?;
                Prepared::Tiles(t)
            }
            Loaded::LargeTiles(t) => {
                no_metric(
                    shape,
                    &format!("{} moves one tile a cell at a time", t.name()),
                )?;
                Prepared::LargeTiles(t)
            }
        })
    }

    /// The puzzle's name, for messages.
    pub(super) fn name(&self) -> String {
        match self {
            Loaded::Sliding(p) => p.name().to_string(),
            Loaded::Twisty(def) => def.name.clone(),
            Loaded::Clocks(_) => "clocks".to_string(),
            Loaded::Tiles(t) => t.name(),
            Loaded::LargeTiles(t) => t.name(),
        }
    }
}

/// The twisty puzzle `def` under the command line's options.
pub(super) fn twisty(def: Definition, shape: Shape) -> Result<Twisty> {
    let metric = match shape.metric {
        None => TwistyMetric::Htm,
        Some(m) => match m.twisty() {
            Some(t) => t,
            None => bail!(
                "--metric {} is a sliding-block metric; {} is a twisty puzzle\n  help: give --metric htm (each move and its powers, the default), qtm (each move and its inverse) or moves (the moves as written)",
                m.name(),
                def.name
            ),
        },
    };
    let options = Options {
        metric,
        moves: shape.moves.clone(),
        scramble: shape.scramble.clone(),
    };
    Ok(Twisty::new(def, &options)?)
}

/// The sliding-block metric the command line asks for, refusing the
/// options that only twisty puzzles take.
fn sliding_metric(
    metric: Option<MetricArg>,
    moves: &Option<Vec<String>>,
    name: &str,
) -> Result<Metric> {
    if moves.is_some() {
        bail!(
            "--moves chooses a twisty puzzle's generators; {name} is not a twisty puzzle (.tws or KPuzzle file)"
        );
    }
    match metric {
        None => Ok(Metric::Step),
        Some(m) => match m.metric() {
            Some(m) => Ok(m),
            None => bail!(
                "--metric {} is a twisty puzzle's metric; {name} is a sliding-block puzzle\n  help: give --metric step, slide or piece",
                m.name()
            ),
        },
    }
}

/// Refuses `--metric` and `--moves` for puzzles with one kind of move.
fn no_metric(shape: Shape, what: &str) -> Result<()> {
    if shape.metric.is_some() {
        bail!("--metric applies to sliding-block and twisty puzzles; {what}");
    }
    if shape.moves.is_some() {
        bail!("--moves applies to twisty puzzles (.tws or KPuzzle files); {what}");
    }
    Ok(())
}

/// The most that `clocks` and `sawtooth` read from stdin: 16 MiB, over
/// a hundred times a judge's largest input (ZOJ 3814's T cases of 26+26+9
/// short lines come to about 2 KiB a case).
pub(super) const MAX_STDIN_BYTES: u64 = 16 << 20;

/// Stdin as text, at most [`MAX_STDIN_BYTES`].
pub(super) fn read_stdin() -> Result<String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_STDIN_BYTES + 1)
        .read_to_end(&mut bytes)
        .context("cannot read stdin")?;
    if bytes.len() as u64 > MAX_STDIN_BYTES {
        bail!(
            "stdin holds more than {} MiB; contest input is far smaller\n  help: check that the right file is redirected to stdin",
            MAX_STDIN_BYTES >> 20
        );
    }
    String::from_utf8(bytes).context("stdin is not UTF-8 text")
}
