//! `reach census`: every position of a puzzle's pieces, split into
//! components, with the hardest starts of all: a sliding-block puzzle's
//! every placement on its board (`tiles-RxC` as the board of its tiles),
//! a twisty puzzle's every pattern of its key space.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use reach::engine::{Census, EveryPosition, Progress, StopReason, memory};
use reach::puzzles::sliding::SlidingPuzzle;
use reach::puzzles::twisty::Twisty;

use super::args::CensusArgs;
use super::exit;
use super::output::{ProgressLine, bytes, count_of, say, stdout, write_output};
use super::puzzle::{self, Loaded, Resolved, Shape};
use super::settings::{Settings, Signals, check_memory_limit, search, spilled};

/// Sizes of components the text lists before it says how many more.
const SIZES_SHOWN: usize = 8;

pub(super) fn census(a: &CensusArgs, s: &Settings) -> Result<ExitCode> {
    check_memory_limit(s)?;
    if let Some(dir) = &a.toml {
        check_dir(dir)?;
    }
    let mut puzzle = puzzle::load(&a.puzzle, s.puzzle_text.as_deref())?;
    let shape = Shape {
        metric: a.metric,
        moves: &a.moves,
        scramble: &None,
    };
    match &puzzle.loaded {
        Loaded::Sliding(_) => {}
        Loaded::Tiles(t) => puzzle = tile_board(&a.puzzle, t.rows(), t.cols())?,
        Loaded::LargeTiles(t) => puzzle = tile_board(&a.puzzle, t.rows(), t.cols())?,
        Loaded::Twisty(_) => return twisty(a, s, puzzle, shape),
        Loaded::Clocks(_) => bail!(
            "a census places a puzzle's pieces every way they fit; the clocks are counted from all at twelve\n  help: `reach count clocks` counts the positions reachable from it"
        ),
    }
    let puzzle = Resolved::new(puzzle, shape)?;
    let toml = puzzle.toml.clone();
    let p = puzzle
        .sliding()
        .expect("a sliding-block puzzle resolves as one");
    let model = p.census_model().map_err(anyhow::Error::msg)?;
    if a.toml.is_some() && !p.goal_given() {
        bail!(
            "--toml writes the hardest starts, and {} has no goal to measure them from\n  help: add a goal = \"\"\"...\"\"\" board to the puzzle file (docs/puzzle-files.md)",
            p.name()
        );
    }
    let file_text = puzzle.file_text.as_deref();
    run(a, s, &model, file_text, |found| {
        write_hardest(a, &model, toml.as_deref(), found)
    })
}

/// `tiles-RxC` as the board of its tiles, with the solved board its goal:
/// what its census places (both parities) and measures from. Its TOML is
/// what a checkpoint records as the puzzle's file.
fn tile_board(name: &str, rows: usize, cols: usize) -> Result<puzzle::Puzzle> {
    let text = reach::puzzles::any::tile_board_toml(rows, cols, true);
    puzzle::Puzzle::from_text(&text, name).map_err(super::words::flagged)
}

/// The census of a twisty puzzle's patterns (one-word keys; no `--toml`:
/// its hardest starts are printed as patterns).
fn twisty(a: &CensusArgs, s: &Settings, puzzle: puzzle::Puzzle, shape: Shape) -> Result<ExitCode> {
    if a.toml.is_some() {
        bail!(
            "--toml writes sliding-block puzzle files; {} is a twisty puzzle, whose hardest starts the census prints as patterns (ScrambleState bodies)",
            puzzle.loaded.name()
        );
    }
    let file_text = puzzle.file_text.clone();
    let puzzle = Resolved::new(puzzle, shape)?;
    let t = puzzle.twisty().expect("a twisty puzzle resolves as one");
    if t.words() > 1 {
        bail!(
            "{}'s key space passes 2^64 ({} words a key), and a census numbers its positions by keys of one word\n  help: fewer moves (--moves) leave fewer pieces moving and a smaller key space",
            t.name(),
            t.words()
        );
    }
    run(a, s, t, file_text.as_deref(), |_| Ok(()))
}

/// What a census report says of its puzzle.
pub(super) trait Censused: EveryPosition {
    /// Its name, for a person, and as its file gives it (for JSON).
    fn name(&self) -> &str;
    fn raw_name(&self) -> &str;
    /// The metric's name.
    fn metric_name(&self) -> &'static str;
    /// A position, as the puzzle's files write one.
    fn picture(&self, key: u64) -> String;
}

/// Both kinds name themselves, their metric and a position alike.
macro_rules! censused {
    ($($t:ty),*) => {$(
        impl Censused for $t {
            fn name(&self) -> &str {
                <$t>::name(self)
            }

            fn raw_name(&self) -> &str {
                <$t>::raw_name(self)
            }

            fn metric_name(&self) -> &'static str {
                self.metric().name()
            }

            fn picture(&self, key: u64) -> String {
                self.render(key)
            }
        }
    )*};
}

censused!(SlidingPuzzle, Twisty);

/// Runs (or resumes) the census of `model` and reports it; `outputs`
/// writes what the report's files need once it is complete.
fn run<M: Censused>(
    a: &CensusArgs,
    s: &Settings,
    model: &M,
    file_text: Option<&str>,
    outputs: impl FnOnce(&Census) -> Result<()>,
) -> Result<ExitCode> {
    let spill = s.spill_until_printed(file_text)?;
    let signals = Signals::install();
    let first = s.process() == 0;
    let line = ProgressLine::new(s.verbose && first, s.quiet || !first);
    let progress = |p: &Progress| line.update(p);
    let walk = spilled(search(model, s, &signals, &progress), &spill);
    let found = match &s.resume {
        Some(cp) => walk.resume_census(a.top, cp)?,
        None => walk.census(a.top)?,
    };
    line.finish();
    if !first {
        return Ok(exit_code(&found));
    }
    let mut doc = document(model, &found);
    if let Some((processes, workers)) = s.cluster() {
        doc["processes"] = json!(processes);
        doc["workers_per_process"] = json!(workers);
    }
    if let Some(reason) = &found.stopped {
        say!(
            "PARTIAL: the census stopped ({}): what it found so far follows",
            stop_text(reason)
        );
    }
    if !s.quiet {
        let (on, whose) = match s.cluster() {
            Some((processes, workers)) => (
                format!(
                    "on {} x {}",
                    count_of(processes as u64, "process", "processes"),
                    count_of(workers as u64, "worker", "workers")
                ),
                " (process 0's)",
            ),
            None => (format!("at {} threads", found.threads), ""),
        };
        say!(
            "census of {}{} positions in {:.2} s {on}, peak memory {}{whose}",
            if found.all_listed { "" } else { "at least " },
            found.positions,
            found.seconds,
            memory::peak_rss_bytes().map_or("?".into(), bytes)
        );
    }
    if s.json {
        stdout(&format!("{doc}\n"))?;
    } else {
        stdout(&text(model, &found))?;
    }
    outputs(&found).inspect_err(|_| s.outputs_failed(&spill))?;
    s.outputs_written(&spill, found.stopped.is_none())?;
    if let Some(reason) = &found.stopped {
        s.stop_hint(reason);
    }
    Ok(exit_code(&found))
}

/// A census's exit code: 0 when complete (or complete but for
/// `--max-depth`'s distances), else the stop's.
fn exit_code(found: &Census) -> ExitCode {
    match &found.stopped {
        None => ExitCode::SUCCESS,
        Some(StopReason::Interrupted) => ExitCode::from(exit::SIGINT),
        Some(StopReason::Terminated) => ExitCode::from(exit::SIGTERM),
        Some(StopReason::MaxDepth(_)) if found.components.is_some() => ExitCode::SUCCESS,
        Some(_) => ExitCode::from(exit::LIMIT),
    }
}

/// `--toml DIR`: each hardest start as a puzzle file.
fn write_hardest(
    a: &CensusArgs,
    model: &SlidingPuzzle,
    toml: Option<&str>,
    found: &Census,
) -> Result<()> {
    if let (Some(dir), Some(goal)) = (&a.toml, &found.goal)
        && found.stopped.is_none()
    {
        let Some(toml) = toml else {
            bail!(
                "{} was read from no puzzle file: it has no board to rewrite",
                a.puzzle
            )
        };
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not make the directory {}", dir.display()))?;
        for (i, hard) in goal.hardest.iter().enumerate() {
            let name = format!(
                "{} (hardest start {} of its census)",
                model.raw_name(),
                i + 1
            );
            let header = format!(
                "# A hardest start of {}'s pieces: {} from the goal, in a component of {}; written by `reach census`.\n",
                model.raw_name(),
                count_of(
                    u64::from(hard.distance),
                    &format!("{} move", model.metric().name()),
                    &format!("{} moves", model.metric().name())
                ),
                count_of(hard.component, "position", "positions"),
            );
            let text =
                super::hardest::rewritten_file(toml, &model.render(hard.key), &name, &header)?;
            write_output(
                &dir.join(format!("hardest-{}.toml", i + 1)),
                text.as_bytes(),
            )?;
        }
    }
    Ok(())
}

/// Why a census stopped, in its own words (a memory stop's need is the
/// whole census's, not a level's).
fn stop_text(reason: &StopReason) -> String {
    match reason {
        StopReason::MemoryLimit { limit, needed } => format!(
            "it would need about {}, over --memory-limit {}",
            bytes(*needed),
            bytes(*limit)
        ),
        StopReason::MemoryAvailable {
            available,
            needed,
            bound,
        } => format!(
            "it would need about {} more, and {} {}",
            bytes(*needed),
            bound.name(),
            bytes(*available)
        ),
        other => super::words::stop_words(other),
    }
}

/// Refuses a `--toml` directory that is a file, before the work.
fn check_dir(dir: &Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!(
            "--toml {} names a file; it takes a directory, which the hardest starts are written into as hardest-1.toml, hardest-2.toml, …",
            dir.display()
        );
    }
    Ok(())
}

/// `--json`'s document.
pub(super) fn document<M: Censused>(model: &M, c: &Census) -> Value {
    let mut v = json!({
        "puzzle": model.raw_name(),
        "metric": model.metric_name(),
        "complete": c.stopped.is_none(),
        "positions": c.positions,
        "positions_exact": c.all_listed,
        "components": c.components.as_ref().map(|k| k.count),
        "size_histogram": c.components.as_ref().map(|k| &k.size_histogram),
        "start_component": c.components.as_ref().map(|k| k.start),
        "seconds": c.seconds,
        "peak_rss_bytes": memory::peak_rss_bytes(),
        "run": super::provenance::run_json(c.threads),
    });
    if let Some(reason) = &c.stopped {
        v["stop_reason"] = json!(stop_text(reason));
    }
    match &c.goal {
        Some(g) => {
            v["goal_positions"] = json!(g.goal_positions);
            v["goal_components"] = json!(g.goal_components);
            v["solvable"] = json!(g.solvable);
            v["unsolvable"] = json!(c.positions - g.solvable);
            v["levels"] = json!(g.levels);
            // The largest distance, once every distance is known.
            v["distance"] = json!(c.stopped.is_none().then(|| g.levels.len() - 1));
            v["hardest"] = g
                .hardest
                .iter()
                .map(|h| {
                    json!({"distance": h.distance, "board": model.picture(h.key), "component_size": h.component})
                })
                .collect();
        }
        None => v["hardest"] = json!([]),
    }
    v
}

/// What a person reads.
fn text<M: Censused>(model: &M, c: &Census) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: every position of its pieces, {} metric",
        model.name(),
        model.metric_name()
    );
    if c.all_listed {
        let _ = writeln!(out, "positions          {}", c.positions);
    } else {
        let _ = writeln!(
            out,
            "positions          at least {} (the census stopped while it listed them)",
            c.positions
        );
    }
    let Some(k) = &c.components else {
        return out;
    };
    let _ = writeln!(out, "components         {}", k.count);
    let _ = writeln!(
        out,
        "start's component  {}",
        count_of(k.start, "position", "positions")
    );
    let sizes: Vec<String> = k
        .size_histogram
        .iter()
        .rev()
        .take(SIZES_SHOWN)
        .map(|&(size, n)| format!("{size} x {n}"))
        .collect();
    let more = if k.size_histogram.len() > SIZES_SHOWN {
        format!(", …; {} sizes, all with --json", k.size_histogram.len())
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "component sizes    {}{more} (size x how many, largest first)",
        sizes.join(", ")
    );
    let Some(g) = &c.goal else {
        return out;
    };
    let _ = writeln!(
        out,
        "goal               {} in {}; {} can reach one, {} cannot",
        count_of(g.goal_positions, "position", "positions"),
        count_of(g.goal_components, "component", "components"),
        g.solvable,
        c.positions - g.solvable
    );
    let _ = writeln!(
        out,
        "distances          {} (positions at each distance from the goal)",
        super::summary::short_profile(&g.levels)
    );
    let Some(first) = g.hardest.first() else {
        return out;
    };
    let metric = model.metric_name();
    let _ = writeln!(
        out,
        "hardest            {} from the goal: {} at that distance",
        count_of(
            u64::from(first.distance),
            &format!("{metric} move"),
            &format!("{metric} moves")
        ),
        g.levels.last().copied().unwrap_or(0)
    );
    for h in &g.hardest {
        let _ = write!(
            out,
            "\n{} from the goal, in a component of {}:\n{}",
            count_of(u64::from(h.distance), "move", "moves"),
            count_of(h.component, "position", "positions"),
            model.picture(h.key)
        );
    }
    out
}
