//! Twisty puzzles (`.tws` and KPuzzle files) on the command line: what
//! `solve` checks and prints of them, and `show --json`.

use std::process::ExitCode;

use anyhow::{Result, bail};
use serde_json::json;

use reach::engine::Model;
use reach::puzzles::any;
use reach::puzzles::twisty::{Definition, Mirrors, Symmetry, Twisty};

use super::args::{SolveArgs, SymmetryArg};
use super::output::stdout;
use super::settings::Settings;
use super::summary::{Solved, say_solved, solve_search, unsolvable};

/// Evaluates `$body` with `$m` bound to the twisty puzzle `$t` as the
/// model its keys need: the puzzle itself where a key is one word, else a
/// [`Wider`](reach::puzzles::twisty::Wider) of 2, 3, 4, 6, 8, 16, 32 or
/// 128 words. `$body` is compiled once for each width class; the class
/// is chosen once per search, never per key. The library's, which
/// [`Prepared::visit`](reach::puzzles::any::Prepared::visit) uses too.
pub(super) use reach::twisty_of_width as by_width;

/// Evaluates `$body` with `$m` bound to the twisty puzzle `$t` searched
/// one class of symmetric positions at a time under `$sym`
/// ([`Symmetric`](reach::puzzles::twisty::Symmetric)), with keys as wide
/// as it needs: `u64`, or 2, 4, 8, 32 or 128 words. Each width is
/// compiled once; `$m` is of a concrete type, so `$body` may call what
/// `Symmetric` adds to a model (the real path, a class's positions).
macro_rules! by_symmetric {
    ($t:expr, $sym:expr, |$m:ident| $body:expr) => {{
        let (t, sym): (
            &reach::puzzles::twisty::Twisty,
            &reach::puzzles::twisty::Symmetry,
        ) = ($t, $sym);
        let words = sym.key_words();
        if words == 1 {
            $crate::cli::twisty::by_symmetric!(@as u64, t, sym, |$m| $body)
        } else {
            $crate::cli::twisty::by_symmetric!(@wide words, [2, 4, 8, 32, 128], t, sym, |$m| $body)
        }
    }};
    (@wide $words:ident, [$($n:literal),+], $t:ident, $sym:ident, |$m:ident| $body:expr) => {
        $(if $words <= $n {
            $crate::cli::twisty::by_symmetric!(@as reach::engine::Wide<$n>, $t, $sym, |$m| $body)
        } else)+ {
            unreachable!("no width class holds a key of {} words", $words)
        }
    };
    (@as $k:ty, $t:ident, $sym:ident, |$m:ident| $body:expr) => {{
        let w = reach::puzzles::twisty::Symmetric::<$k>::new($t, $sym)
            .expect("the width class holds the key");
        let $m = &w;
        $body
    }};
}
pub(super) use by_symmetric;

/// The symmetries a search of `t` uses under `--symmetry` and the
/// command line's settings (`None`: the defaults); `solve`: a solve's,
/// without the inverse position (see [`any::twisty_symmetry`]).
pub(super) fn symmetry_of(
    t: &Twisty,
    arg: SymmetryArg,
    s: Option<&Settings>,
    solve: bool,
) -> Option<Symmetry> {
    let store = s.map(Settings::store_settings);
    any::twisty_symmetry(t, arg.choice(), store.as_ref(), solve)
}

/// What `--json` says of the symmetries a search of `t` used (`None`:
/// none, every position searched).
pub(super) fn symmetry_json(t: &Twisty, sym: Option<&Symmetry>) -> serde_json::Value {
    match sym {
        None => json!({
            "order": 1,
            "used": false,
            "rotations": t.definition().rotations.iter().map(|r| &r.name).collect::<Vec<_>>(),
        }),
        Some(sym) => json!({
            "order": sym.order(),
            "used": !sym.is_trivial(),
            "inverse": sym.inverse(),
            "rotations": sym.rotations(),
            "generated": sym.generated(),
            "dropped": sym.dropped(),
            "mirrors": match sym.mirrors() {
                Mirrors::Found { mirrors, .. } => *mirrors,
                _ => 0,
            },
            "other_elements": match sym.mirrors() {
                Mirrors::Found { others, .. } => *others,
                _ => 0,
            },
            "mirrors_not_used": match sym.mirrors() {
                Mirrors::NotFound(why) => Some(why.as_str()),
                _ => None,
            },
        }),
    }
}

/// Refuses a twisty `solve` that has nothing to solve or asks for a
/// sliding-block puzzle's pictures.
pub(super) fn check_solvable(def: &Definition, a: &SolveArgs) -> Result<()> {
    if a.svg.is_some() {
        bail!(
            "--svg draws sliding-block boards; {} is a twisty puzzle\n  help: --html FILE writes a page that steps through the solution, with the puzzle's God's-number table",
            def.name
        );
    }
    if def.scramble.is_none() && a.scramble.is_none() {
        bail!(
            "{} starts solved: there is nothing to solve\n  help: give a start with --scramble \"R U2 F'\" (moves of the file), or a ScrambleState block in a .tws file",
            def.name
        );
    }
    Ok(())
}

/// `reach solve` on a twisty puzzle: the shortest move sequence from the
/// start (the file's ScrambleState or `--scramble`) to the solved state.
pub(super) fn solve(
    puzzle: &Twisty,
    a: &SolveArgs,
    s: &Settings,
    file_text: Option<&str>,
) -> Result<ExitCode> {
    match symmetry_of(puzzle, a.symmetry, Some(s), true) {
        Some(sym) => by_symmetric!(puzzle, &sym, |m| {
            solve_with(puzzle, m, &|path| m.real_path(path), a, s, file_text)
        }),
        None => by_width!(puzzle, |m| {
            solve_with(puzzle, m, &|path| path.to_vec(), a, s, file_text)
        }),
    }
}

/// What turns a search's path into the puzzle's positions.
type RealPath<'a, K> = dyn Fn(&[K]) -> Vec<K> + 'a;

/// [`solve`] with `model`, the puzzle with keys as wide as it needs;
/// `real` turns the path the search found into the positions of the
/// puzzle it passes (a search of classes finds their representatives).
fn solve_with<M: Model>(
    puzzle: &Twisty,
    model: &M,
    real: &RealPath<'_, M::Key>,
    a: &SolveArgs,
    s: &Settings,
    file_text: Option<&str>,
) -> Result<ExitCode> {
    let json = s.json;
    let metric = puzzle.metric().name();
    if let Some(reason) = puzzle.goal_impossible() {
        return unsolvable(
            json,
            &format!(
                "no solution: the solved state is not in the start's part of the puzzle: {reason}"
            ),
            json!({"puzzle": puzzle.raw_name(), "metric": metric, "length": null, "moves": [], "reason": reason}),
            "no solution",
        );
    }
    let spill = s.spill_until_printed(file_text)?;
    let (path, report) = match solve_search(
        model,
        puzzle.raw_name(),
        metric,
        "the solved state",
        &spill,
        s,
    )? {
        Solved::Path(path, report) => (path, *report),
        Solved::Exit(code) => return Ok(code),
    };
    let path = real(&path);
    let moves = puzzle.path_moves(&path);
    say_solved(puzzle.name(), moves.len(), metric, &report);
    if json {
        let mut v = json!({
            "puzzle": puzzle.raw_name(),
            "metric": metric,
            "length": moves.len(),
            "moves": moves,
            "states": report.states(),
            "threads": report.threads,
            "seconds": report.seconds,
            "visited": report.visited.name(),
            "store": super::words::flags(&report.store),
            "run": super::provenance::run_json(report.threads),
        });
        if a.boards {
            v["boards"] = json!(path.iter().map(|&k| puzzle.render(k)).collect::<Vec<_>>());
        }
        stdout(&format!("{v}\n"))?;
    } else {
        let mut out = format!("{}\n{}\n", moves.len(), moves.join(" "));
        if a.boards {
            out.push_str(&format!("\nstart\n{}", puzzle.render(path[0])));
            for (m, &k) in moves.iter().zip(&path[1..]) {
                out.push_str(&format!("\n{m}\n{}", puzzle.render(k)));
            }
        }
        stdout(&out)?;
    }
    if let Some(file) = &a.html {
        let positions: Vec<String> = path.iter().map(|&k| puzzle.render(k)).collect();
        let page = solution_page(puzzle, a, s, &moves, &positions)?;
        super::output::write_output(file, page.as_bytes())?;
    }
    s.outputs_written(&spill, report.is_complete())?;
    Ok(ExitCode::SUCCESS)
}

/// The most states the page's God's-number table counts (the 2x2x2's
/// 3,674,160 fit; a larger puzzle's table stops at the depth it reached).
const TABLE_STATES: u64 = 8_000_000;

/// The page of `solve --html` for a twisty puzzle: the solution, and the
/// God's-number table of a count from solved under the same moves.
fn solution_page(
    puzzle: &Twisty,
    a: &SolveArgs,
    s: &Settings,
    moves: &[String],
    positions: &[String],
) -> Result<String> {
    let mut def = puzzle.definition().clone();
    def.scramble = None;
    let options = reach::puzzles::twisty::Options {
        metric: puzzle.metric(),
        moves: a.moves.clone(),
        scramble: None,
    };
    let solved = Twisty::new(def, &options)?;
    let table = by_width!(&solved, |m| {
        let report = reach::engine::Search::new(m)
            .threads(s.threads)
            .max_states(Some(TABLE_STATES))
            .count()?;
        super::summary::narrowed(report).0
    });
    let metric = puzzle.metric().name();
    let plot = super::plot::profile_svg(puzzle.name(), Some(metric), &table, None)?;
    let scramble = a.scramble.clone().or_else(|| {
        puzzle
            .definition()
            .scramble
            .as_ref()
            .map(|_| "the file's ScrambleState".to_string())
    });
    Ok(super::twisty_page::page(&super::twisty_page::TwistyPage {
        name: puzzle.name(),
        metric,
        scramble: scramble.as_deref(),
        moves,
        positions,
        table: &table,
        plot: &plot,
    }))
}

/// A twisty puzzle's sets as `show --json` and the studio give them.
pub(super) fn sets_json(def: &Definition) -> serde_json::Value {
    def.sets
        .iter()
        .map(|s| json!({"name": s.name, "pieces": s.size, "orientations": s.orientations}))
        .collect()
}

/// `reach show --json` of a twisty puzzle.
pub(super) fn show_json(t: &Twisty) -> serde_json::Value {
    use reach::puzzles::twisty::coord::Kind;
    let def = t.definition();
    let coords: Vec<_> = t
        .coords()
        .iter()
        .map(|c| {
            let kind = match &c.kind {
                Kind::Perm { distinct, parity, .. } => json!({
                    "kind": "arrangement", "distinct": distinct, "parity_fixed": parity.is_some()}),
                Kind::Ori { o, sum } => json!({
                    "kind": "orientations", "orientations": o, "sum_fixed": sum.is_some()}),
                Kind::Wild { o, counted, .. } => json!({
                    "kind": "arrangement and orientations", "orientations": o,
                    "oriented_pieces": counted}),
            };
            // A split coordinate's size is past a JSON number: a string.
            let size = match &c.split {
                Some(_) => json!(c.size_text()),
                None => json!(c.size),
            };
            json!({"set": def.sets[c.set].name, "positions": c.positions, "size": size, "what": kind})
        })
        .collect();
    json!({
        "puzzle": t.raw_name(),
        "format": match def.format {
            reach::puzzles::twisty::Format::Tws => "tws",
            reach::puzzles::twisty::Format::KPuzzle => "kpuzzle",
        },
        "sets": sets_json(def),
        "file_moves": def.moves.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
        "metric": t.metric().name(),
        "moves": t.moves().iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
        "reversible": t.reversible(),
        "coordinates": coords,
        "key_space": if t.words() == 1 {
            json!(t.key_space())
        } else {
            json!(t.key_space_text())
        },
        "key_words": t.words(),
        "key_bits": t.key_bits(),
        "start": t.render(t.start_key::<reach::engine::Wide<128>>()),
    })
}
