//! The command line's side of loading a puzzle: the library's
//! [`reach::puzzles::any`] reads it and checks a metric, moves and a
//! scramble once for every kind of puzzle; here `--metric`, `--moves` and
//! `--scramble` become its shape, and its errors name those flags. Also
//! the bounded reading of stdin for `clocks` and `sawtooth`.

use std::io::Read;

use anyhow::{Context, Result, bail};

use reach::puzzles::any::{self, AnyMetric};

use super::words::flagged;
pub(super) use reach::puzzles::any::{Loaded, Prepared, Puzzle};
use reach::puzzles::twisty::{Definition, Twisty};

use super::args::MetricArg;

/// What `reach list` says of the tile puzzles.
pub(super) const TILES_SUMMARY: &str = "R x C sliding tiles from solved, dense keys up to 16 cells (tiles-2x7 has 43589145600 states, depth 108: a count of a quarter of an hour), keys of 2-3 words up to 36 (tiles-5x5, tiles-6x6: count them to a depth with --max-depth)";

/// The options that shape a puzzle's moves and start, as the command line
/// gave them.
#[derive(Clone, Copy)]
pub(super) struct Shape<'a> {
    pub(super) metric: Option<MetricArg>,
    pub(super) moves: &'a Option<Vec<String>>,
    pub(super) scramble: &'a Option<String>,
}

impl Shape<'_> {
    /// The library's shape of the same options.
    fn any(self) -> any::Shape {
        any::Shape {
            metric: self.metric.map(|m| match (m.metric(), m.twisty()) {
                (Some(s), _) => AnyMetric::Sliding(s),
                (None, Some(t)) => AnyMetric::Twisty(t),
                (None, None) => unreachable!("every metric is of one kind"),
            }),
            moves: self.moves.clone(),
            scramble: self.scramble.clone(),
        }
    }
}

/// The puzzle `name` names (see [`Puzzle::load`]); a resumed run's file
/// text as it `recorded` it.
pub(super) fn load(name: &str, recorded: Option<&str>) -> Result<Puzzle> {
    Puzzle::load_recorded(name, recorded).map_err(flagged)
}

/// The puzzle `loaded` under the command line's `shape`.
pub(super) fn prepare(loaded: Loaded, shape: Shape) -> Result<Prepared> {
    loaded.prepare(&shape.any()).map_err(flagged)
}

/// The twisty puzzle `def` under the command line's options.
pub(super) fn twisty(def: Definition, shape: Shape) -> Result<Twisty> {
    any::twisty(def, &shape.any()).map_err(flagged)
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
