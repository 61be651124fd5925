//! `reach count` (and the bare `reach`): the states reachable from the
//! start, level by level.

use std::process::ExitCode;
use std::rc::Rc;

use anyhow::Result;

use reach::engine::{Key, Model, Outcome, Progress, Report, Spill};
use reach::puzzles::clocks;
use reach::puzzles::large_tiles::{LargeTiles, LargeTilesOf};
use reach::puzzles::sliding::SlidingPuzzle;
use reach::puzzles::twisty::Twisty;

use super::args::CountArgs;
use super::output::{ProgressLine, check_output};
use super::puzzle::{self, Prepared, Shape};
use super::settings::{Settings, Signals, check_memory_limit, run_count, search, spilled};
use super::summary::{Counted, narrowed, print_count};
use super::twisty::{by_symmetric, by_width, symmetry_json, symmetry_of};
use super::{exit, plot, sliding};

pub(super) fn count(a: &CountArgs, s: &Settings) -> Result<ExitCode> {
    check_memory_limit(s)?;
    let o = &a.options;
    let puzzle = puzzle::load(&a.puzzle, s.puzzle_text.as_deref())?;
    let shape = Shape {
        metric: o.metric,
        moves: &o.moves,
        scramble: &None,
    };
    let prepared = puzzle::prepare(puzzle.loaded, shape)?;
    // Outputs before work: a typo in a path must not cost the search.
    if let Some(file) = &o.plot {
        check_output(file)?;
    }
    let spill = s.spill_until_printed(puzzle.file_text.as_deref())?;
    let signals = Signals::install();
    let line = ProgressLine::new(s.verbose && s.process() == 0, s.quiet || s.process() != 0);
    let progress = |p: &Progress| line.update(p);
    let counted = |name: String, raw_name: String, metric, report, render| Counted {
        name,
        raw_name,
        metric,
        report,
        render,
        symmetry: None,
    };
    // The goal's depth, for the plot: a search that stops at the goal.
    let mut goal_depth = None;
    let c = match prepared {
        Prepared::Sliding(p) => {
            let p: Rc<SlidingPuzzle> = Rc::from(p);
            let plot_goal = o.plot.is_some()
                && p.goal_given()
                && p.goal_impossible().is_none()
                && s.peers.is_none();
            // The keys of any width as indices into a table of them.
            let (report, render) = sliding::by_width!(&p, |m| {
                let (report, keys) = narrowed(counting(m, s, &signals, &progress, &spill)?);
                if plot_goal {
                    let found = search(m, s, &signals, &progress).find_goal()?;
                    if let Outcome::Goal { depth, .. } = found.outcome {
                        goal_depth = Some(depth);
                    }
                }
                let p = Rc::clone(&p);
                let render: Box<dyn Fn(u64) -> String> =
                    Box::new(move |i| p.render(keys[i as usize]));
                (report, render)
            });
            let (name, raw) = (p.name().to_string(), p.raw_name().to_string());
            let metric = Some(p.metric().name());
            counted(name, raw, metric, report, render)
        }
        Prepared::Twisty(t) => {
            let t: Rc<Twisty> = Rc::from(t);
            let sym = symmetry_of(&t, o.symmetry, Some(s), false);
            // The keys of any width as indices into a table of them.
            let (report, render) = match &sym {
                Some(sym) => by_symmetric!(&t, sym, |m| {
                    let mut report = counting(m, s, &signals, &progress, &spill)?;
                    // The antipodes are positions: every one of each class.
                    report.last_level = if report.last_level_states <= ANTIPODES_MAX {
                        let mut all: Vec<_> =
                            report.last_level.iter().flat_map(|&k| m.orbit(k)).collect();
                        all.sort_unstable();
                        all
                    } else {
                        Vec::new()
                    };
                    twisty_table(&t, report)
                }),
                None => by_width!(&t, |m| {
                    twisty_table(&t, counting(m, s, &signals, &progress, &spill)?)
                }),
            };
            let (name, raw) = (t.name().to_string(), t.raw_name().to_string());
            let metric = Some(t.metric().name());
            let mut c = counted(name, raw, metric, report, render);
            c.symmetry = Some(symmetry_json(&t, sym.as_ref()));
            c
        }
        Prepared::Clocks(c) => {
            let report = counting(&c, s, &signals, &progress, &spill)?;
            let name = "clocks".to_string();
            counted(name.clone(), name, None, report, Box::new(clocks::board))
        }
        Prepared::Tiles(t) => {
            let report = counting(&*t, s, &signals, &progress, &spill)?;
            counted(
                t.name(),
                t.name(),
                None,
                report,
                Box::new(move |k| t.render(k)),
            )
        }
        Prepared::LargeTiles(t) => {
            let t: Rc<LargeTiles> = Rc::from(t);
            macro_rules! of_width {
                ($n:literal) => {{
                    let model = LargeTilesOf::<$n>::new(&t).expect("the width class holds the key");
                    let (report, keys) =
                        narrowed(counting(&model, s, &signals, &progress, &spill)?);
                    let t = Rc::clone(&t);
                    let render: Box<dyn Fn(u64) -> String> =
                        Box::new(move |i| t.render(keys[i as usize]));
                    (report, render)
                }};
            }
            let (report, render) = match t.words() {
                2 => of_width!(2),
                _ => of_width!(3),
            };
            counted(t.name(), t.name(), None, report, render)
        }
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
    s.outputs_written(&spill, &c.report)?;
    s.checkpoint_hint(&c.report);
    Ok(exit::of_count(&c.report))
}

/// The count of `model` (or the resumed count of it), its levels on disk
/// where `spill` says.
fn counting<M: Model>(
    model: &M,
    s: &Settings,
    signals: &Signals,
    progress: &(dyn Fn(&Progress) + Sync),
    spill: &Option<Spill>,
) -> Result<Report<M::Key>> {
    run_count(spilled(search(model, s, signals, progress), spill), s)
}

/// The most antipodes a count of classes lists, every position of each
/// class (a count of positions lists its last level if it holds it).
const ANTIPODES_MAX: u64 = 1 << 22;

/// A twisty count's report with its keys as indices into a table of them,
/// and how to draw one.
fn twisty_table<K: Key>(t: &Rc<Twisty>, report: Report<K>) -> (Report, Box<dyn Fn(u64) -> String>) {
    let (report, keys) = narrowed(report);
    let t = Rc::clone(t);
    (report, Box::new(move |i| t.render(keys[i as usize])))
}
