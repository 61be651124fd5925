//! Twisty puzzles (`.tws` and KPuzzle files) on the command line: the
//! options that only they take, and `solve`'s move sequences.

use std::process::ExitCode;

use anyhow::{Result, bail};
use serde_json::json;

use reach::engine::Model;
use reach::puzzles::sliding::Metric;
use reach::puzzles::twisty::{Definition, Options, Twisty, TwistyMetric};

use super::args::{MetricArg, SolveArgs};
use super::output::stdout;
use super::{Settings, Solved, say_solved, solve_search, unsolvable};

/// The twisty puzzle `def` under the command line's options.
pub(super) fn build(
    def: Definition,
    metric: Option<MetricArg>,
    moves: &Option<Vec<String>>,
    scramble: &Option<String>,
) -> Result<Twisty> {
    let metric = match metric {
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
        moves: moves.clone(),
        scramble: scramble.clone(),
    };
    Ok(Twisty::new(def, &options)?)
}

/// The sliding-block metric the command line asks for, refusing the
/// options that only twisty puzzles take.
pub(super) fn sliding_metric(
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
pub(super) fn no_metric(
    metric: Option<MetricArg>,
    moves: &Option<Vec<String>>,
    what: &str,
) -> Result<()> {
    if metric.is_some() {
        bail!("--metric applies to sliding-block and twisty puzzles; {what}");
    }
    if moves.is_some() {
        bail!("--moves applies to twisty puzzles (.tws or KPuzzle files); {what}");
    }
    Ok(())
}

/// `reach solve` on a twisty puzzle: the shortest move sequence from the
/// start (the file's ScrambleState or `--scramble`) to the solved state.
pub(super) fn solve(def: Definition, a: &SolveArgs, s: &Settings) -> Result<ExitCode> {
    if a.html.is_some() || a.svg.is_some() {
        bail!(
            "--html and --svg draw sliding-block boards; {} is a twisty puzzle\n  help: drop them: the solution prints as a move sequence",
            def.name
        );
    }
    if def.scramble.is_none() && a.scramble.is_none() {
        bail!(
            "{} starts solved: there is nothing to solve\n  help: give a start with --scramble \"R U2 F'\" (moves of the file), or a ScrambleState block in a .tws file",
            def.name
        );
    }
    let json = s.json;
    let puzzle = build(def, a.metric, &a.moves, &a.scramble)?;
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
    let spill = s.spill_until_printed(&a.puzzle)?;
    let (path, report) = match solve_search(
        &puzzle,
        puzzle.raw_name(),
        metric,
        "the solved state",
        &spill,
        s,
    )? {
        Solved::Path(path, report) => (path, report),
        Solved::Exit(code) => return Ok(code),
    };
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
    s.outputs_written(&spill, &report)?;
    Ok(ExitCode::SUCCESS)
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
            };
            json!({"set": def.sets[c.set].name, "positions": c.positions, "size": c.size, "what": kind})
        })
        .collect();
    json!({
        "puzzle": t.raw_name(),
        "format": match def.format {
            reach::puzzles::twisty::Format::Tws => "tws",
            reach::puzzles::twisty::Format::KPuzzle => "kpuzzle",
        },
        "sets": def.sets.iter().map(|s| json!({"name": s.name, "pieces": s.size, "orientations": s.orientations})).collect::<Vec<_>>(),
        "file_moves": def.moves.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
        "metric": t.metric().name(),
        "moves": t.moves().iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
        "reversible": t.reversible(),
        "coordinates": coords,
        "key_space": t.key_space(),
        "start": t.render(t.start()),
    })
}
