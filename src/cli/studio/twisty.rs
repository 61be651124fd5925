//! The studio's twisty puzzles: a `.tws` or KPuzzle text in the page's
//! editor makes a job that counts from solved (the God's-number table,
//! as deep as the studio's work limits allow), then, from a scramble (the
//! page's, else the file's `ScrambleState`), finds the shortest solution
//! and plays it in the page that `solve --html` writes; or a job that
//! takes its census.

use serde_json::{Value, json};

use reach::engine::{Model, Progress, Report};
use reach::puzzles::twisty::{Format, Options, Twisty, TwistyMetric};

use super::jobs::{Job, Limits, limited, stopped, tell};
use crate::cli::args::SymmetryArg;
use crate::cli::summary::narrowed;
use crate::cli::twisty::{by_symmetric, by_width, sets_json, symmetry_of};
use crate::cli::twisty_page::{TwistyPage, page};

/// What a twisty job searches.
pub(super) struct Work {
    /// The puzzle from solved: its count is the table.
    solved: Twisty,
    /// The puzzle from its start, where it has one: the page's scramble,
    /// else the file's, as the page names it.
    scrambled: Option<(Twisty, String)>,
}

/// The error the page shows for `e`, a mistake of the options (no line:
/// the file is fine, the scramble or the metric is not).
fn option_error(e: &reach::puzzles::twisty::OptionError) -> Value {
    json!({"error": {"message": e.message, "help": e.help, "text": e.to_string()}})
}

/// The work `text` (a twisty puzzle file, called `origin` in messages)
/// asks for under `metric`, the page's `moves` (the generators, as
/// `--moves` takes them, separated by commas or spaces; blank: every move
/// of the file) and its `scramble` (blank: none), or the error the page
/// shows.
pub(super) fn prepare(
    text: &str,
    origin: &str,
    metric: TwistyMetric,
    moves: Option<&str>,
    scramble: Option<&str>,
) -> Result<Work, Value> {
    // The text's format is told by its content (the page may hold either
    // kind whatever the file is called); the file names it.
    let extension = match reach::puzzles::twisty::sniff(text, "") {
        Some(Format::KPuzzle) => "json",
        _ => "tws",
    };
    let origin = std::path::Path::new(origin).with_extension(extension);
    let def = Twisty::parse(text, &origin.display().to_string())
        .map_err(|e| super::jobs::error_json(&e))?;
    let scramble = scramble.map(str::trim).filter(|s| !s.is_empty());
    let moves: Option<Vec<String>> = moves
        .map(|m| {
            m.split([',', ' '])
                .filter(|m| !m.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter(|m| !m.is_empty());
    let options = |scramble: Option<&str>| Options {
        metric,
        moves: moves.clone(),
        scramble: scramble.map(str::to_string),
    };
    let mut bare = def.clone();
    bare.scramble = None;
    let solved = Twisty::new(bare, &options(None)).map_err(|e| option_error(&e))?;
    let named = scramble.map(str::to_string).or_else(|| {
        def.scramble
            .as_ref()
            .map(|_| "the file's ScrambleState".to_string())
    });
    let scrambled = match named {
        Some(named) => Some((
            Twisty::new(def, &options(scramble)).map_err(|e| option_error(&e))?,
            named,
        )),
        None => None,
    };
    Ok(Work { solved, scrambled })
}

/// What the page shows of the puzzle before any search: its name, metric,
/// sets and moves.
pub(super) fn fields(w: &Work) -> Value {
    let def = w.solved.definition();
    json!({
        "kind": "twisty",
        "name": w.solved.raw_name(),
        "metric": w.solved.metric().name(),
        "sets": sets_json(def),
        "moves": def.moves.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
        "generators": w.solved.moves().len(),
        "scramble": w.scrambled.as_ref().map(|(_, named)| named),
    })
}

/// The job: the count from solved, told as the God's-number table, then
/// the shortest solution from the start, if the puzzle has one.
pub(super) fn run(w: &Work, job: &Job, limits: Limits, id: u64) -> Result<(), String> {
    // One position a class of symmetric ones where the file declares
    // rotations, as `reach count` searches (the work limit still counts
    // positions, so the table ends where it would without them).
    let counting = tell(job, "count");
    let table = match symmetry_of(&w.solved, SymmetryArg::Auto, None, false) {
        Some(sym) => by_symmetric!(&w.solved, &sym, |m| count(m, job, limits, &counting)?),
        None => by_width!(&w.solved, |m| count(m, job, limits, &counting)?),
    };
    let depth = table.levels.len().saturating_sub(1);
    let complete = table.is_complete();
    job.push(
        "count",
        &json!({
            "states": table.levels.iter().sum::<u64>(), "depth": depth,
            "levels": table.levels, "class_levels": table.class_levels, "complete": complete,
            "stop_reason": stopped(&table.outcome),
            "limit": limits.states, "gods_number": complete.then_some(depth),
        }),
    );
    let Some((puzzle, scramble)) = &w.scrambled else {
        return Ok(());
    };
    if let Some(reason) = puzzle.goal_impossible() {
        job.push("solution", &json!({"length": null, "reason": reason}));
        return Ok(());
    }
    let solving = tell(job, "solve");
    // A path of classes is walked back to the puzzle's own positions.
    let found = match symmetry_of(puzzle, SymmetryArg::Auto, None, true) {
        Some(sym) => by_symmetric!(puzzle, &sym, |m| {
            solve(puzzle, m, |p| m.real_path(p), job, limits, &solving)?
        }),
        None => by_width!(puzzle, |m| {
            solve(puzzle, m, <[_]>::to_vec, job, limits, &solving)?
        }),
    };
    match found {
        (Some((moves, positions)), _) => {
            let metric = puzzle.metric().name();
            let plot = crate::cli::plot::profile_svg(puzzle.name(), Some(metric), &table, None)
                .map_err(|e| e.to_string())?;
            let html = page(&TwistyPage {
                name: puzzle.name(),
                metric,
                scramble: Some(scramble),
                moves: &moves,
                positions: &positions,
                table: &table,
                plot: &plot,
            });
            super::jobs::keep_page(job, html);
            job.push(
                "solution",
                &json!({"length": moves.len(), "moves": moves, "page": format!("/api/jobs/{id}/page")}),
            );
        }
        (None, Some(stopped)) => {
            job.push("solution", &json!({"length": null, "stop_reason": stopped}));
        }
        (None, None) => job.push("solution", &json!({"length": null})),
    }
    Ok(())
}

/// The count from solved under the studio's limits, its keys narrowed.
fn count<M: Model>(
    m: &M,
    job: &Job,
    limits: Limits,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Report, String> {
    let report = limited(m, job, limits, progress)
        .count()
        .map_err(|e| e.to_string())?;
    Ok(narrowed(report).0)
}

/// The shortest solution of `puzzle` searched as `m` (`real` walks a
/// path of `m`'s keys back to the puzzle's positions), and why the search
/// stopped short, if it did.
fn solve<M: Model>(
    puzzle: &Twisty,
    m: &M,
    real: impl Fn(&[M::Key]) -> Vec<M::Key>,
    job: &Job,
    limits: Limits,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Found, String> {
    let solution = limited(m, job, limits, progress)
        .solve()
        .map_err(|e| e.to_string())?;
    let path = solution.path.map(|p| real(&p));
    Ok((moves_of(puzzle, path), stopped(&solution.report.outcome)))
}

/// A solution's moves and positions, if found; why the search stopped
/// short, if it did.
type Found = (Option<(Vec<String>, Vec<String>)>, Option<String>);

/// A solution's moves, and the position before the first and after each.
fn moves_of<K: reach::engine::Key>(
    puzzle: &Twisty,
    path: Option<Vec<K>>,
) -> Option<(Vec<String>, Vec<String>)> {
    path.map(|p| {
        let positions = p.iter().map(|&k| puzzle.render(k)).collect();
        (puzzle.path_moves(&p), positions)
    })
}

/// The job of a census: every pattern of the pieces the moves move (as
/// `reach census FILE --moves` places them), from solved.
pub(super) fn census(w: &Work, job: &Job, limits: Limits) -> Result<(), String> {
    let t = &w.solved;
    if t.words() > 1 {
        return Err(format!(
            "{}'s key space passes 2^64 ({} words a key), and a census numbers its positions by keys of one word; fewer moves leave fewer pieces moving and a smaller key space",
            t.name(),
            t.words()
        ));
    }
    super::jobs::census(t, job, limits)
}
