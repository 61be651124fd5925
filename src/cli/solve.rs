//! `reach solve`: a shortest solution from the start to the goal; here the
//! command and a sliding-block puzzle's solution (`twisty.rs` prints a
//! twisty puzzle's; the search both share is `summary::solve_search`).

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};
use serde_json::json;

use reach::puzzles::builtin;
use reach::puzzles::sliding::SlidingPuzzle;

use super::args::SolveArgs;
use super::output::{check_output, stdout, write_output};
use super::puzzle::{self, FromGoal, Loaded, Resolved, Shape};
use super::settings::{Settings, check_memory_limit};
use super::summary::{Solved, narrowed, say_solved, solve_search, unsolvable};
use super::{sliding, twisty, watch};

pub(super) fn solve(a: &SolveArgs, s: &Settings) -> Result<ExitCode> {
    check_memory_limit(s)?;
    for file in [&a.html, &a.svg].into_iter().flatten() {
        check_output(file)?;
    }
    let puzzle = puzzle::load(&a.puzzle, s.puzzle_text.as_deref())?;
    match &puzzle.loaded {
        Loaded::Sliding(p) => has_goal(p, &a.puzzle)?,
        Loaded::Twisty(def) => twisty::check_solvable(def, a)?,
        Loaded::Clocks(_) | Loaded::Tiles(_) | Loaded::LargeTiles(_) => {}
    }
    let shape = Shape {
        metric: a.metric,
        moves: &a.moves,
        scramble: &a.scramble,
    };
    let puzzle = Resolved::new(puzzle, shape)?;
    puzzle.has_goal_for(FromGoal::Solve)?;
    let file_text = puzzle.file_text.as_deref();
    // Each kind prints its solution's moves as its own files write them.
    match (puzzle.sliding(), puzzle.twisty()) {
        (Some(p), _) => sliding(p, a, s, file_text),
        (_, Some(t)) => twisty::solve(t, a, s, file_text),
        (None, None) => unreachable!("the puzzles without a goal are refused above"),
    }
}

/// Refuses a sliding-block puzzle without a goal, saying how to give one.
fn has_goal(puzzle: &SlidingPuzzle, name: &str) -> Result<()> {
    if puzzle.goal_given() {
        return Ok(());
    }
    if builtin::find(name).is_some() {
        bail!(
            "the built-in {name} has no goal to solve for\n  help: `reach show {name}` prints its board: copy it into a puzzle file and add a goal = \"\"\"...\"\"\" board marking the cells a piece must cover"
        );
    }
    bail!(
        "{} has no goal\n  help: add a goal to the puzzle file, e.g. goal = \"\"\"\\n...\\n.BB\\n\"\"\", marking the cells a piece must cover",
        puzzle.name()
    );
}

/// A sliding-block puzzle's solution: the moves (and boards), and the
/// page and picture of `--html` and `--svg`.
fn sliding(
    puzzle: &SlidingPuzzle,
    a: &SolveArgs,
    s: &Settings,
    file_text: Option<&str>,
) -> Result<ExitCode> {
    let json = s.json;
    if let Some(reason) = puzzle.goal_impossible() {
        return unsolvable(
            json,
            &format!("no solution: {reason}"),
            json!({"puzzle": puzzle.raw_name(), "length": null, "moves": [], "reason": reason}),
            "no solution",
        );
    }
    let spill = s.spill_until_printed(file_text)?;
    let metric = puzzle.metric().name();
    // The solution's moves and start board, from keys of any width, or
    // from classes of mirror images walked from the real start.
    let symmetry = sliding::symmetry_of(puzzle, a.symmetry, Some(s), true);
    let (steps, start_board, report) = match &symmetry {
        Some(sym) => sliding::by_symmetric!(puzzle, sym, |m| {
            match solve_search(m, puzzle.raw_name(), metric, "the goal", &spill, s)? {
                Solved::Path(path, report) => {
                    let real = m.real_path(&path);
                    (
                        puzzle.steps(&real),
                        puzzle.render(real[0]),
                        narrowed(*report).0,
                    )
                }
                Solved::Exit(code) => return Ok(code),
            }
        }),
        None => sliding::by_width!(puzzle, |m| {
            match solve_search(m, puzzle.raw_name(), metric, "the goal", &spill, s)? {
                Solved::Path(path, report) => (
                    puzzle.steps(&path),
                    puzzle.render(path[0]),
                    narrowed(*report).0,
                ),
                Solved::Exit(code) => return Ok(code),
            }
        }),
    };
    let write =
        |file: &Path, text: String| -> Result<()> { Ok(write_output(file, text.as_bytes())?) };
    say_solved(puzzle.name(), steps.len(), metric, &report);
    if s.json {
        let moves: Vec<_> = steps
            .iter()
            .map(|st| {
                let mut m = json!({
                    "piece": st.mv.piece.to_string(),
                    "path": st.mv.path.iter().map(|d| d.name()).collect::<Vec<_>>(),
                });
                if a.boards {
                    m["board"] = json!(st.board);
                }
                m
            })
            .collect();
        let v = json!({
            "puzzle": puzzle.raw_name(),
            "metric": metric,
            "length": steps.len(),
            "moves": moves,
            "states": report.states(),
            "threads": report.threads,
            "seconds": report.seconds,
            "visited": report.visited.name(),
            "store": super::words::flags(&report.store),
            "symmetry": sliding::symmetry_json(puzzle, symmetry.as_ref()),
            "run": super::provenance::run_json(report.threads),
        });
        stdout(&format!("{v}\n"))?;
    } else {
        let mut out = format!("{}\n", steps.len());
        // With boards, a blank line between one move's board and the
        // next move: each move line, then the board it leaves.
        if a.boards {
            out.push_str(&start_board);
        }
        for st in &steps {
            if a.boards {
                out.push('\n');
            }
            out.push_str(&format!("{}\n", st.mv));
            if a.boards {
                out.push_str(&st.board);
            }
        }
        stdout(&out)?;
    }
    let write = |file: &Path, text: String| -> Result<()> {
        write(file, text).inspect_err(|_| s.outputs_failed(&spill))
    };
    if let Some(file) = &a.html {
        write(
            file,
            watch::solution_page(puzzle, metric, &start_board, &steps),
        )?;
    }
    if let Some(file) = &a.svg {
        let goal = puzzle.goal_board();
        write(
            file,
            watch::start_and_goal_svg(puzzle, &start_board, goal.as_deref()),
        )?;
    }
    s.outputs_written(&spill, report.is_complete())?;
    Ok(ExitCode::SUCCESS)
}
