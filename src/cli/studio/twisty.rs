//! The studio's twisty puzzles: a `.tws` or KPuzzle text in the page's
//! editor makes a job that counts from solved (the God's-number table,
//! as deep as the studio's work limits allow), then, from a scramble (the
//! page's, else the file's `ScrambleState`), finds the shortest solution
//! and plays it in the page that `solve --html` writes.

use serde_json::{Value, json};

use reach::engine::Outcome;
use reach::puzzles::twisty::{Format, Options, Twisty, TwistyMetric};

use super::jobs::{Job, Limits, limited, tell};
use crate::cli::args::SymmetryArg;
use crate::cli::summary::narrowed;
use crate::cli::twisty::{by_symmetric, by_width, symmetry_of};
use crate::cli::twisty_page::{TwistyPage, page};
use crate::cli::words::stop_words;

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
    let scrambled = match (scramble, &def.scramble) {
        (Some(s), _) => Some(s.to_string()),
        (None, Some(_)) => Some("the file's ScrambleState".to_string()),
        (None, None) => None,
    };
    let scrambled = match scrambled {
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
        "sets": def.sets.iter().map(|s| json!({"name": s.name, "pieces": s.size, "orientations": s.orientations})).collect::<Vec<_>>(),
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
        Some(sym) => by_symmetric!(&w.solved, &sym, |m| {
            let report = limited(m, job, limits, &counting)
                .count()
                .map_err(|e| e.to_string())?;
            narrowed(report).0
        }),
        None => by_width!(&w.solved, |m| {
            let report = limited(m, job, limits, &counting)
                .count()
                .map_err(|e| e.to_string())?;
            narrowed(report).0
        }),
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
            let solution = limited(m, job, limits, &solving)
                .solve()
                .map_err(|e| e.to_string())?;
            let path = solution.path.map(|p| m.real_path(&p));
            (moves_of(puzzle, path), stopped(&solution.report.outcome))
        }),
        None => by_width!(puzzle, |m| {
            let solution = limited(m, job, limits, &solving)
                .solve()
                .map_err(|e| e.to_string())?;
            (
                moves_of(puzzle, solution.path),
                stopped(&solution.report.outcome),
            )
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

/// Why a search stopped short, in the command line's words.
fn stopped<K>(outcome: &Outcome<K>) -> Option<String> {
    match outcome {
        Outcome::Stopped(why) => Some(stop_words(why)),
        _ => None,
    }
}

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
