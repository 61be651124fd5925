//! Sliding-block puzzles on the command line: the model their keys need,
//! and the symmetries of their boards that a search uses.

use serde_json::json;

use reach::puzzles::any;
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

/// Evaluates `$body` with `$m` bound to the sliding-block puzzle `$p`
/// searched by classes of the positions `$sym` (not trivial) maps onto
/// each other, with keys as wide as the classes need (see the library's
/// macro).
pub(super) use reach::sliding_classes_of_width as by_symmetric;

/// The symmetries a search of `p` uses under `--symmetry` and the
/// command line's settings (`None`: the defaults); `solve`: a solve's
/// store (see [`any::sliding_symmetry`]).
pub(super) fn symmetry_of(
    p: &SlidingPuzzle,
    arg: SymmetryArg,
    s: Option<&Settings>,
    solve: bool,
) -> Option<BoardSymmetry> {
    let store = s.map(Settings::store_settings);
    any::sliding_symmetry(p, arg.choice(), store.as_ref(), solve)
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
    })
}
