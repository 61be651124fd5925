//! `reach hardest`: the positions of a puzzle farthest from its goal.

use std::process::ExitCode;

use anyhow::{Result, bail};
use serde_json::json;

use reach::engine::Model;

use super::args::HardestArgs;
use super::output::{ProgressLine, count_of, say, stdout};
use super::{Loaded, Settings, Signals, load, report_stopped, search, spilled, unsolvable};
use reach::puzzles::sliding::SlidingPuzzle;

pub(super) fn hardest(a: &HardestArgs, s: &Settings) -> Result<ExitCode> {
    super::check_memory_limit(s)?;
    // Outputs before work.
    for file in [&a.toml, &a.html].into_iter().flatten() {
        super::output::check_output(file)?;
    }
    let puzzle = match load(&a.puzzle)? {
        Loaded::Sliding(p) => p,
        Loaded::Twisty(def) => {
            if a.toml.is_some() || a.html.is_some() {
                bail!(
                    "--toml and --html write sliding-block puzzles; {} is a twisty puzzle\n  help: `reach count FILE --antipodes` prints its farthest positions as patterns",
                    def.name
                );
            }
            let t = super::twisty::build(*def, a.metric, &a.moves, &None)?;
            if !t.reversible() {
                bail!(
                    "{} under --metric {} has a move whose inverse is not a move: the distance to the solved state is not the distance from it\n  help: use --metric htm or qtm",
                    t.name(),
                    t.metric().name()
                );
            }
            return hardest_of(
                &t,
                (t.name(), t.raw_name()),
                t.metric().name(),
                t.goal_impossible(),
                &|k| t.render(k),
                a,
                s,
            )
            .map(|(code, _)| code);
        }
        Loaded::Clocks(_) => bail!(
            "the clocks have no goal position to measure from\n  help: `reach count clocks` gives the depth from all at 12"
        ),
        Loaded::Tiles(t) => bail!(
            "{} is counted from its solved position, and `reach count {}` names the hardest positions (its antipodes) when they are few",
            t.name(),
            t.name()
        ),
    };
    if !puzzle.goal_given() {
        bail!(
            "{} has no goal to measure from\n  help: give a puzzle file with a goal = \"\"\"...\"\"\" board (`reach show {}` prints a built-in's board to copy)",
            puzzle.name(),
            a.puzzle
        );
    }
    let metric = super::twisty::sliding_metric(a.metric, &a.moves, puzzle.name())?;
    let puzzle = puzzle.with_metric(metric);
    let metric_name = puzzle.metric().name();
    let (code, first) = hardest_of(
        &puzzle,
        (puzzle.name(), puzzle.raw_name()),
        metric_name,
        puzzle.goal_impossible(),
        &|k| puzzle.render(k),
        a,
        s,
    )?;
    if let Some(key) = first {
        let text = hardest_file(&a.puzzle, s, &puzzle.render(key), puzzle.raw_name())?;
        if let Some(file) = &a.toml {
            super::output::write_output(file, text.as_bytes())?;
        }
        if let Some(file) = &a.html {
            let name = a
                .toml
                .as_ref()
                .map_or("hardest.toml".into(), |f| f.display().to_string());
            let hard = SlidingPuzzle::from_toml(&text, &name)?.with_metric(metric);
            let solution = reach::engine::Search::new(&hard)
                .threads(s.threads)
                .solve()?;
            let path = solution
                .path
                .ok_or_else(|| anyhow::anyhow!("the hardest position has no solution: a bug"))?;
            let steps = hard.steps(&path);
            let page =
                super::watch::solution_page(&hard, metric_name, &hard.render(path[0]), &steps);
            super::output::write_output(file, page.as_bytes())?;
        }
    }
    Ok(code)
}

/// The puzzle file of the hardest position: the original file (its rails,
/// colours, `distinct`, goal) with the board replaced by `board` and the
/// name marked "(hardest)".
fn hardest_file(puzzle: &str, s: &Settings, board: &str, name: &str) -> Result<String> {
    let text = match (reach::puzzles::builtin::find(puzzle), &s.puzzle_text) {
        (Some(b), _) => match b.kind {
            reach::puzzles::builtin::Kind::Sliding(text) => text.to_string(),
            reach::puzzles::builtin::Kind::Clocks => bail!("the clocks have no board"),
        },
        (None, Some(text)) => text.clone(),
        (None, None) => reach::puzzles::sliding::read_puzzle_text(std::path::Path::new(puzzle))?,
    };
    let mut table: toml::Table = text.parse()?;
    table.insert(
        "name".into(),
        toml::Value::String(format!("{name} (hardest)")),
    );
    table.insert("board".into(), toml::Value::String(board.to_string()));
    let mut out = format!("# The hardest position of {name}, written by `reach hardest`.\n");
    out.push_str(&toml::to_string(&table)?);
    Ok(out)
}

/// `hardest` of any model with a goal and reversible moves.
/// `names`: for terminals, and as the file gives it (for JSON). Returns
/// the exit code and, when found, the first hardest position's key.
fn hardest_of<M: Model>(
    puzzle: &M,
    (name, raw_name): (&str, &str),
    metric: &str,
    impossible: Option<&str>,
    render: &dyn Fn(u64) -> String,
    a: &HardestArgs,
    s: &Settings,
) -> Result<(ExitCode, Option<u64>)> {
    if let Some(reason) = impossible {
        return Ok((
            unsolvable(
                s.json,
                &format!("no goal position in the start's component: {reason}"),
                json!({"puzzle": raw_name, "metric": metric, "goal_states": 0, "reason": reason}),
                "no goal",
            )?,
            None,
        ));
    }
    let signals = Signals::install();
    let line = ProgressLine::new(s.verbose && s.process() == 0);
    let progress = |p: &reach::engine::Progress| line.update(p);
    let spill = s.spill(&a.puzzle)?;
    let found = spilled(search(puzzle, s, &signals, &progress), &spill).hardest()?;
    line.finish();
    super::cluster::check(&found.report, s)?;
    if s.process() != 0 {
        return Ok((
            super::follower_code(&found.report, found.goal_states > 0),
            None,
        ));
    }
    let report = &found.report;
    if let Some(code) = report_stopped(report, s, raw_name, metric, "so no distance is known")? {
        return Ok((code, None));
    }
    if found.goal_states == 0 {
        return Ok((
            unsolvable(
                s.json,
                &format!(
                    "no goal position in the start's component ({} states): no position has a distance to the goal",
                    found.component
                ),
                json!({"puzzle": raw_name, "metric": metric, "component": found.component, "goal_states": 0}),
                "no goal",
            )?,
            None,
        ));
    }
    let examples: Vec<String> = found
        .positions
        .iter()
        .take(a.top)
        .map(|&k| render(k))
        .collect();
    say!(
        "{name}: {} in the start's component, {}; {} at the largest distance, {}; the start is {} from the goal",
        count_of(found.component, "state", "states"),
        count_of(found.goal_states, "goal position", "goal positions"),
        count_of(found.positions.len() as u64, "position", "positions"),
        count_of(
            u64::from(found.distance),
            &format!("{metric} move"),
            &format!("{metric} moves")
        ),
        found
            .start_distance
            .map_or("?".to_string(), |d| count_of(u64::from(d), "move", "moves"))
    );
    if s.json {
        let v = json!({
            "puzzle": raw_name,
            "metric": metric,
            "component": found.component,
            "goal_states": found.goal_states,
            "distance": found.distance,
            "count": found.positions.len(),
            "start_distance": found.start_distance,
            "examples": examples,
            "levels": report.levels,
        });
        stdout(&format!("{v}\n"))?;
    } else {
        let mut out = format!("{}\n", found.distance);
        for board in &examples {
            out.push('\n');
            out.push_str(board);
        }
        stdout(&out)?;
    }
    Ok((ExitCode::SUCCESS, found.positions.first().copied()))
}
