//! `reach count` (and the bare `reach`): the states reachable from the
//! start, level by level.

use std::process::ExitCode;

use anyhow::Result;

use reach::engine::{Model, Outcome, Progress, Report, Spill, positions_of};
use reach::puzzles::any::{View, Visit};

use super::args::CountArgs;
use super::output::{ProgressLine, check_output};
use super::puzzle::{self, Resolved, Shape};
use super::settings::{Settings, Signals, check_memory_limit, run_count, search, spilled};
use super::summary::{Counted, narrowed, print_count};
use super::{exit, plot};

pub(super) fn count(a: &CountArgs, s: &Settings) -> Result<ExitCode> {
    check_memory_limit(s)?;
    let o = &a.options;
    let puzzle = puzzle::load(&a.puzzle, s.puzzle_text.as_deref())?;
    let shape = Shape {
        metric: o.metric,
        moves: &o.moves,
        scramble: &None,
    };
    let puzzle = Resolved::new(puzzle, shape)?.with_symmetry(o.symmetry, s, false);
    // Outputs before work: a typo in a path must not cost the search.
    if let Some(file) = &o.plot {
        check_output(file)?;
    }
    let spill = s.spill_until_printed(puzzle.file_text.as_deref())?;
    let signals = Signals::install();
    let line = ProgressLine::new(s.verbose && s.process() == 0, s.quiet || s.process() != 0);
    let progress = |p: &Progress| line.update(p);
    // The plot marks the goal's depth: a sliding-block puzzle's, where it
    // has a goal that can be reached.
    let plot_goal = o.plot.is_some()
        && s.peers.is_none()
        && puzzle
            .sliding()
            .is_some_and(|p| p.goal_given() && p.goal_impossible().is_none());
    let (report, boards, goal_depth) = puzzle.visit(Counting {
        s,
        signals: &signals,
        progress: &progress,
        spill: &spill,
        plot_goal,
        antipodes: o.antipodes,
    })?;
    let c = Counted {
        name: puzzle.name(),
        raw_name: puzzle.raw_name(),
        metric: puzzle.metric(),
        report,
        boards,
        symmetry: puzzle.symmetry_json(),
    };
    line.finish();
    s.check_cluster(&c.report)?;
    if s.process() != 0 {
        return Ok(exit::of_count(&c.report));
    }
    // Results before outputs: the report is on stdout before a picture
    // can fail.
    print_count(&c, o.antipodes, s)?;
    if let Some(file) = &o.plot {
        plot::profile(file, &c.name, c.metric, &c.report, goal_depth)
            .inspect_err(|_| s.outputs_failed(&spill))?;
    }
    s.outputs_written(&spill, c.report.is_complete())?;
    s.checkpoint_hint(&c.report);
    Ok(exit::of_count(&c.report))
}

/// A count of any puzzle as the model its keys need (the count, or the
/// resumed count, its levels on disk where `spill` says): the report with
/// its last level's keys as indices, the boards of that level's positions
/// when they are asked for (`antipodes`), and with `plot_goal` the goal's
/// depth, from a second search that stops at the goal.
struct Counting<'a> {
    s: &'a Settings,
    signals: &'a Signals,
    progress: &'a (dyn Fn(&Progress) + Sync),
    spill: &'a Option<Spill>,
    plot_goal: bool,
    antipodes: bool,
}

impl Visit for Counting<'_> {
    type Output = Result<(Report, Vec<String>, Option<u32>)>;

    fn visit<M: Model>(self, m: &M, view: &dyn View<M::Key>) -> Self::Output {
        let Counting {
            s,
            signals,
            progress,
            spill,
            ..
        } = self;
        let mut report = run_count(spilled(search(m, s, signals, progress), spill), s)?;
        if m.classes() {
            // The antipodes are positions: every one of each class.
            let states = report.last_level_states;
            report.last_level = if states <= ANTIPODES_MAX {
                positions_of(
                    m,
                    std::mem::take(&mut report.last_level),
                    states,
                    0,
                    ANTIPODES_MAX,
                )
            } else {
                Vec::new()
            };
        }
        let mut goal_depth = None;
        if self.plot_goal
            && let Outcome::Goal { depth, .. } =
                search(m, s, signals, progress).find_goal()?.outcome
        {
            goal_depth = Some(depth);
        }
        let (report, keys) = narrowed(report);
        let boards = match self.antipodes {
            true => report
                .last_level
                .iter()
                .map(|&i| view.board(keys[i as usize]))
                .collect(),
            false => Vec::new(),
        };
        Ok((report, boards, goal_depth))
    }
}

/// The most antipodes a count of classes lists, every position of each
/// class (a count of positions lists its last level if it holds it).
pub(super) const ANTIPODES_MAX: u64 = 1 << 22;
