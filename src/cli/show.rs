//! `reach show`: the puzzle as the engine sees it (board, classes, moves,
//! key space), as text or JSON.

use std::process::ExitCode;

use anyhow::{Result, bail};
use serde_json::json;

use reach::engine::{Model, Search};
use reach::puzzles::any::{Prepared, Symmetries, View, Visit};
use reach::puzzles::clocks;
use reach::puzzles::sliding::{BoardSymmetry, SlidingPuzzle};
use reach::puzzles::twisty::Symmetry;

use super::args::{MetricArg, SymmetryArg};
use super::output::{count_of, stdout};
use super::puzzle::{self, Loaded, Shape};
use super::{sliding, twisty};

/// Which store a count (and a solve, for a puzzle with a goal) takes on
/// this machine with every option left to its default, and why.
fn stores<M: Model>(model: &M) -> String {
    let mut out = String::new();
    let search = Search::new(model);
    let tasks: &[(&str, bool)] = if model.has_goal() {
        &[("count", false), ("solve", true)]
    } else {
        &[("count", false)]
    };
    for &(task, solve) in tasks {
        if let Ok((kind, why)) = search.store(solve) {
            out.push_str(&format!(
                "store ({task}): {}: {}\n",
                kind.name(),
                super::words::flags(&why)
            ));
        }
    }
    out
}

/// `reach show`: the puzzle as the engine sees it.
pub(super) fn show(
    name: &str,
    metric: Option<MetricArg>,
    moves: &Option<Vec<String>>,
    json: bool,
) -> Result<ExitCode> {
    let loaded = puzzle::load(name, None)?.loaded;
    if !matches!(loaded, Loaded::Twisty(_)) && (metric.is_some() || moves.is_some()) {
        bail!(
            "show takes --metric and --moves for twisty puzzles (.tws or KPuzzle files), whose moves and key space they change"
        );
    }
    match loaded {
        Loaded::Sliding(p) if json => {
            let classes: Vec<_> = p
                .classes()
                .iter()
                .map(|c| {
                    json!({
                        "labels": c.labels.iter().collect::<String>(),
                        "cells": c.shape.len(),
                        "pieces": c.count(),
                        "positions": c.ranked_over(),
                        "radix": c.radix(),
                        "colour": c.colour,
                        "mobility": format!("{:?}", c.mobility).to_lowercase(),
                        "distinct": c.distinct,
                    })
                })
                .collect();
            let v = json!({
                "puzzle": p.raw_name(),
                "rows": p.rows(),
                "cols": p.cols(),
                "board": p.start_board(),
                "classes": classes,
                "key_space": (p.words() == 1).then(|| p.key_space()),
                "key_words": p.words(),
                "goal": p.goal_board(),
                "symmetry": sliding_symmetry_json(&p),
            });
            stdout(&format!("{v}\n"))?;
        }
        Loaded::Sliding(p) => stdout(&sliding_text(&p))?,
        Loaded::Twisty(def) => {
            let shape = Shape {
                metric,
                moves,
                scramble: &None,
            };
            let t = puzzle::twisty(*def, shape)?;
            // What a count would use (`--symmetry auto`), and what the
            // file's rotations give.
            let used = twisty::symmetry_of(&t, SymmetryArg::Auto, None, false);
            // The same group when a count uses it: found once.
            let sym = used.clone().unwrap_or_else(|| Symmetry::of(&t));
            let used = used.as_ref();
            if json {
                let mut v = twisty::show_json(&t);
                v["symmetry"] = twisty::symmetry_json(&t, Some(&sym));
                // Whether a count uses it by default.
                v["symmetry"]["used"] = json!(used.is_some());
                stdout(&format!("{v}\n"))?;
            } else {
                // The store a count takes: over classes, where a symmetry
                // is used.
                let stores = match used {
                    Some(sym) => twisty::by_symmetric!(&t, sym, |m| stores(m)),
                    None => twisty::by_width!(&t, |m| stores(m)),
                };
                let unused = match (used, sym.is_trivial()) {
                    (None, false) => format!("\n  {NOT_USED}"),
                    _ => String::new(),
                };
                stdout(&format!(
                    "{}{}{unused}\n{}",
                    t.describe(),
                    sym.describe(),
                    stores
                ))?;
            }
        }
        Loaded::Clocks(_) if json => stdout(&format!(
            "{}\n",
            json!({"puzzle": "clocks", "clocks": 9, "key_space": 262_144,
                   "moves": clocks::MOVES.iter().map(|m| m.iter().map(|&c| (b'A' + c as u8) as char).collect::<String>()).collect::<Vec<_>>()})
        ))?,
        Loaded::Tiles(t) if json => stdout(&format!(
            "{}\n",
            json!({"puzzle": t.name(), "rows": t.rows(), "cols": t.cols(),
                   "board": t.render(t.start()), "key_space": t.key_space(),
                   "symmetry": tiles_symmetry_json(&Prepared::Tiles(t.clone()))})
        ))?,
        Loaded::Tiles(t) => stdout(&format!(
            "puzzle: {}\n{}x{} sliding tiles, counted from the solved position:\n{}key space: {}!/2 = {} (dense ranks: the sequence of tiles and the blank's cell; every key is reachable)\n{}",
            t.name(),
            t.rows(),
            t.cols(),
            t.render(t.start()),
            t.rows() * t.cols(),
            t.key_space(),
            tiles_symmetry_text(&Prepared::Tiles(t.clone()))
        ))?,
        Loaded::LargeTiles(t) if json => stdout(&format!(
            "{}\n",
            json!({"puzzle": t.name(), "rows": t.rows(), "cols": t.cols(),
                   "board": t.start_board(),
                   "positions": t.positions_text(), "key_words": t.words(),
                   "symmetry": tiles_symmetry_json(&Prepared::LargeTiles(t.clone()))})
        ))?,
        Loaded::LargeTiles(t) => stdout(&format!(
            "puzzle: {}\n{}x{} sliding tiles, counted from the solved position:\n{}positions: {}!/2 = {}\nkey: {} (the Lehmer code of the cells, its digits packed whole into words: half the keys are boards of the other parity, which no move reaches)\n{}",
            t.name(),
            t.rows(),
            t.cols(),
            t.start_board(),
            t.rows() * t.cols(),
            t.positions_text(),
            count_of(t.words() as u64, "64-bit word", "64-bit words"),
            tiles_symmetry_text(&Prepared::LargeTiles(t.clone())),
        ))?,
        Loaded::Clocks(_) => stdout(
            "puzzle: clocks\nnine clocks A-I in a 3x3 grid, each at 12, 3, 6 or 9 o'clock\n\
             moves: 1 ABDE, 2 ABC, 3 BCEF, 4 ADG, 5 BDEFH, 6 CFI, 7 DEGH, 8 GHI, 9 EFHI\n\
             key space: 4^9 = 262144 (two bits a clock)\n",
        )?,
    }
    Ok(ExitCode::SUCCESS)
}

/// What `show --json` says of a sliding-block puzzle's symmetries: those
/// found, and whether a count uses them by default.
fn sliding_symmetry_json(p: &SlidingPuzzle) -> serde_json::Value {
    let used = sliding::symmetry_of(p, SymmetryArg::Auto, None, false);
    let mut v = sliding::symmetry_json(
        p,
        Some(&used.clone().unwrap_or_else(|| BoardSymmetry::of(p))),
    );
    v["used"] = json!(used.is_some());
    v
}

/// The store a search takes ([`stores`]), of the model a puzzle is
/// visited as.
struct StoresOf;

impl Visit for StoresOf {
    type Output = String;
    fn visit<M: Model>(self, model: &M, _: &dyn View<M::Key>) -> String {
        stores(model)
    }
}

/// Why symmetries found are not used by a count with every option left to
/// its default.
const NOT_USED: &str = "not used by default: every position takes the dense store, faster and smaller (--symmetry on uses it)";

/// A tile puzzle's symmetries: those a count uses by default, and those
/// found on the board of its tiles ([`reach::puzzles::any::tile_board`]),
/// with that board.
fn tile_symmetries(prepared: &Prepared) -> (Option<Symmetries>, BoardSymmetry, SlidingPuzzle) {
    let board = prepared.tile_board().expect("a tile puzzle");
    let used = prepared.symmetries(SymmetryArg::Auto.choice(), None, false);
    let found = match &used {
        Some(Symmetries::Tiles(ts)) => ts.sym.clone(),
        _ => BoardSymmetry::of(&board),
    };
    (used, found, board)
}

/// What `show` prints of a tile puzzle's symmetries and the store a count
/// takes (over classes where a count uses them).
fn tiles_symmetry_text(prepared: &Prepared) -> String {
    let (used, found, _) = tile_symmetries(prepared);
    let stores = prepared.visit_classes(used.as_ref(), StoresOf);
    let unused = match used.is_none() && !found.is_trivial() {
        true => format!("  {NOT_USED}\n"),
        false => String::new(),
    };
    format!("{}{unused}{stores}", found.describe())
}

/// What `show --json` says of a tile puzzle's symmetries.
fn tiles_symmetry_json(prepared: &Prepared) -> serde_json::Value {
    let (used, found, board) = tile_symmetries(prepared);
    let mut v = sliding::symmetry_json(&board, Some(&found));
    v["used"] = json!(used.is_some());
    v
}

/// What `show` prints of a sliding-block puzzle: its description, the
/// symmetries of its board, and the stores a count and a solve take
/// (over classes, where a count uses the symmetries).
fn sliding_text(p: &SlidingPuzzle) -> String {
    let used = sliding::symmetry_of(p, SymmetryArg::Auto, None, false);
    let stores = match used.as_ref() {
        Some(sym) => sliding::by_symmetric!(p, sym, |m| stores(m)),
        None => sliding::by_width!(p, |m| stores(m)),
    };
    let in_use = used.is_some();
    let sym = used.unwrap_or_else(|| BoardSymmetry::of(p));
    // Found, and left out by `auto` for the dense store.
    let unused = match in_use || sym.is_trivial() {
        false => format!("  {NOT_USED}\n"),
        true => String::new(),
    };
    format!("{}{}{unused}{}", p.describe(), sym.describe(), stores)
}
