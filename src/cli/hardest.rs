//! `reach hardest`: the positions of a puzzle farthest from its goal.

use std::process::ExitCode;

use anyhow::{Result, anyhow, bail};
use serde_json::json;

use reach::engine::{Model, Progress, Search, positions_of};
use reach::puzzles::any::{View, Visit};
use reach::puzzles::sliding::SlidingPuzzle;

use super::args::HardestArgs;
use super::count::ANTIPODES_MAX;
use super::output::{ProgressLine, check_output, count_of, say, stdout, write_output};
use super::puzzle::{self, FromGoal, Loaded, Resolved, Shape};
use super::settings::{Settings, Signals, check_memory_limit, search, spilled};
use super::summary::{report_stopped, unsolvable};
use super::{exit, sliding, watch};

pub(super) fn hardest(a: &HardestArgs, s: &Settings) -> Result<ExitCode> {
    check_memory_limit(s)?;
    // Outputs before work.
    for file in [&a.toml, &a.html].into_iter().flatten() {
        check_output(file)?;
    }
    let puzzle = puzzle::load(&a.puzzle, s.puzzle_text.as_deref())?;
    if let Loaded::Twisty(def) = &puzzle.loaded
        && (a.toml.is_some() || a.html.is_some())
    {
        bail!(
            "--toml and --html write sliding-block puzzles; {} is a twisty puzzle\n  help: `reach count FILE --antipodes` prints its farthest positions as patterns",
            def.name
        );
    }
    let shape = Shape {
        metric: a.metric,
        moves: &a.moves,
        scramble: &None,
    };
    let puzzle = Resolved::new(puzzle, shape)?.with_symmetry(a.symmetry, s, false);
    puzzle.has_goal_for(FromGoal::Hardest)?;
    let text = puzzle.file_text.as_deref();
    if let Some(p) = puzzle.sliding()
        && !p.goal_given()
    {
        let help = if text.is_some() {
            format!(
                "add a goal to {}: goal = \"\"\"...\"\"\", the board as it should end, '.' for a cell that may hold anything (docs/puzzle-files.md)",
                a.puzzle
            )
        } else {
            format!(
                "write a puzzle file with a goal = \"\"\"...\"\"\" board: `reach show {}` prints this puzzle's board to start it from (docs/puzzle-files.md)",
                a.puzzle
            )
        };
        bail!("{} has no goal to measure from\n  help: {help}", p.name());
    }
    if let Some(t) = puzzle.twisty()
        && !t.reversible()
    {
        bail!(
            "{} under --metric {} has a move whose inverse is not a move: the distance to the solved state is not the distance from it\n  help: use --metric htm or qtm",
            t.name(),
            t.metric().name()
        );
    }
    let (name, raw_name) = (puzzle.name(), puzzle.raw_name());
    let named = Named {
        name: &name,
        raw_name: &raw_name,
        metric: puzzle.metric().unwrap_or_default(),
        impossible: puzzle.goal_impossible(),
        file_text: text,
        symmetry: puzzle.symmetry_json(),
    };
    let (code, first) = puzzle.visit(Hardest {
        named: &named,
        a,
        s,
    })?;
    if let (Some(board), Some(p)) = (first, puzzle.sliding()) {
        write_hardest(p, &board, puzzle.toml.as_deref(), a, s)?;
    }
    Ok(code)
}

/// `hardest` of any puzzle as the model its keys need: its exit code and
/// the board of the first hardest position, where one was found.
struct Hardest<'a> {
    named: &'a Named<'a>,
    a: &'a HardestArgs,
    s: &'a Settings,
}

impl Visit for Hardest<'_> {
    type Output = Result<(ExitCode, Option<String>)>;

    fn visit<M: Model>(self, m: &M, view: &dyn View<M::Key>) -> Self::Output {
        let (code, first) = hardest_of(m, self.named, &|k| view.board(k), self.a, self.s)?;
        Ok((code, first.map(|k| view.board(k))))
    }
}

/// The file and page of a sliding-block puzzle's first hardest position,
/// `board` (`--toml`, `--html`), rewritten from `toml`, the text it was
/// read from.
fn write_hardest(
    puzzle: &SlidingPuzzle,
    board: &str,
    toml: Option<&str>,
    a: &HardestArgs,
    s: &Settings,
) -> Result<()> {
    if a.toml.is_none() && a.html.is_none() {
        return Ok(());
    }
    let Some(toml) = toml else {
        bail!(
            "{} was read from no puzzle file: it has no board to rewrite",
            a.puzzle
        )
    };
    let name = puzzle.raw_name();
    let text = rewritten_file(
        toml,
        board,
        &format!("{name} (hardest)"),
        &format!("# The hardest position of {name}, written by `reach hardest`.\n"),
    )?;
    if let Some(file) = &a.toml {
        write_output(file, text.as_bytes())?;
    }
    if let Some(file) = &a.html {
        let name = a
            .toml
            .as_ref()
            .map_or("hardest.toml".into(), |f| f.display().to_string());
        let hard = SlidingPuzzle::from_toml(&text, &name)?.with_metric(puzzle.metric());
        let (steps, start) = sliding::by_width!(&hard, |m| {
            let solution = Search::new(m).threads(s.threads).solve()?;
            let path = solution
                .path
                .ok_or_else(|| anyhow!("the hardest position has no solution: a bug"))?;
            (hard.steps(&path), hard.render(path[0]))
        });
        let page = watch::solution_page(&hard, puzzle.metric().name(), &start, &steps);
        write_output(file, page.as_bytes())?;
    }
    Ok(())
}

/// The puzzle file of a position: the original file `text` (its rails,
/// colours, `distinct`, goal) with the board replaced by `board`, named
/// `name`, after the comment `header`.
pub(super) fn rewritten_file(text: &str, board: &str, name: &str, header: &str) -> Result<String> {
    let mut table: toml::Table = text.parse()?;
    table.insert("name".into(), toml::Value::String(name.to_string()));
    table.insert("board".into(), toml::Value::String(board.to_string()));
    let mut out = header.to_string();
    out.push_str(&toml::to_string(&table)?);
    Ok(out)
}

/// A puzzle whose hardest positions are sought, as the answer names it.
struct Named<'a> {
    /// For terminals.
    name: &'a str,
    /// As the file gives it (for JSON).
    raw_name: &'a str,
    metric: &'a str,
    /// Why no goal position can be reached, when that is known up front.
    impossible: Option<&'a str>,
    /// The puzzle file's text, for the spill's record.
    file_text: Option<&'a str>,
    /// What `--json` says of the symmetries searched (twisty and
    /// sliding-block puzzles).
    symmetry: Option<serde_json::Value>,
}

/// `hardest` of any model with a goal and reversible moves, its positions
/// drawn by `render`. Returns the exit code and, when found, the first
/// hardest position's key.
fn hardest_of<M: Model>(
    puzzle: &M,
    named: &Named,
    render: &dyn Fn(M::Key) -> String,
    a: &HardestArgs,
    s: &Settings,
) -> Result<(ExitCode, Option<M::Key>)> {
    let Named {
        name,
        raw_name,
        metric,
        impossible,
        file_text,
        ..
    } = *named;
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
    let line = ProgressLine::new(s.verbose && s.process() == 0, s.quiet || s.process() != 0);
    let progress = |p: &Progress| line.update(p);
    let spill = s.spill(file_text)?;
    let found = spilled(search(puzzle, s, &signals, &progress), &spill).hardest()?;
    line.finish();
    s.check_cluster(&found.report)?;
    if s.process() != 0 {
        return Ok((exit::follower(&found.report, found.goal_states > 0), None));
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
    let (states, top) = (report.last_level_states, a.top);
    let positions = positions_of(puzzle, found.positions, states, top, ANTIPODES_MAX);
    let examples: Vec<String> = positions.iter().take(a.top).map(|&k| render(k)).collect();
    say!(
        "{name}: {} in the start's component, {}; {} at the largest distance, {}; the start is {} from the goal",
        count_of(found.component, "state", "states"),
        count_of(found.goal_states, "goal position", "goal positions"),
        count_of(found.report.last_level_states, "position", "positions"),
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
        let mut v = json!({
            "puzzle": raw_name,
            "metric": metric,
            "component": found.component,
            "goal_states": found.goal_states,
            "distance": found.distance,
            "count": found.report.last_level_states,
            "start_distance": found.start_distance,
            "examples": examples,
            "levels": report.levels,
            "visited": report.visited.name(),
            "store": super::words::flags(&report.store),
            "run": super::provenance::run_json(report.threads),
        });
        if let Some(sym) = &named.symmetry {
            v["symmetry"] = sym.clone();
            v["class_levels"] = json!(report.class_levels);
        }
        stdout(&format!("{v}\n"))?;
    } else {
        let mut out = format!("{}\n", found.distance);
        for board in &examples {
            out.push('\n');
            out.push_str(board);
        }
        stdout(&out)?;
    }
    Ok((ExitCode::SUCCESS, positions.first().copied()))
}
