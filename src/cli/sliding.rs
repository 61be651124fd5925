//! Sliding-block puzzles on the command line: the model their keys need,
//! and the symmetries of their boards that a search uses.

use serde_json::json;

use reach::puzzles::sliding::{BoardSymmetry, SlidingPuzzle};

use super::args::SymmetryArg;
use super::settings::Settings;

/// Evaluates `$body` with `$m` bound to the sliding-block puzzle `$p` as
/// the model its keys need: the puzzle itself where a key is one word,
/// else a [`WideSliding`](reach::puzzles::sliding::WideSliding) of 2, 3,
/// 4, 6, 8 or 16 words (the most a board of 64 cells needs). `$body` is
/// compiled once for each width class; the class is chosen once per
/// search, never per key. The library's, which
/// [`Prepared::visit`](reach::puzzles::any::Prepared::visit) uses too.
pub(super) use reach::sliding_of_width as by_width;

/// The symmetries a search of `p` uses: the motions of its board that
/// map it, its start and its goal onto themselves (see
/// [`BoardSymmetry`]), unless `--symmetry none` or there are none but
/// the identity; with `auto`, not where the puzzle takes the dense store
/// position by position (a tile puzzle: `solve`, a solve's store), which
/// is faster and smaller than classes where it fits.
pub(super) fn symmetry_of(
    p: &SlidingPuzzle,
    arg: SymmetryArg,
    s: Option<&Settings>,
    solve: bool,
) -> Option<BoardSymmetry> {
    if arg == SymmetryArg::None || p.words() > 1 {
        return None;
    }
    if arg == SymmetryArg::Auto && super::puzzle::takes_dense(p, s, solve) {
        return None;
    }
    let sym = BoardSymmetry::of(p);
    (!sym.is_trivial()).then_some(sym)
}

/// What `--json` says of the symmetries a search of `p` used (`None`:
/// none, every position searched).
pub(super) fn symmetry_json(p: &SlidingPuzzle, sym: Option<&BoardSymmetry>) -> serde_json::Value {
    let found;
    let (sym, used) = match sym {
        Some(sym) => (sym, true),
        None => {
            found = BoardSymmetry::of(p);
            (&found, false)
        }
    };
    json!({
        "order": if used { sym.order() } else { 1 },
        "used": used,
        "motions": sym.kept(),
        "not_kept": sym.not_kept().iter().map(|(m, why)| json!({"motion": m, "why": why})).collect::<Vec<_>>(),
        "refused": sym.refused(),
    })
}
