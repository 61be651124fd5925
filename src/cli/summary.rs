//! What the commands print when a search ends: a count's summary (stderr)
//! and answer (stdout) or JSON document, a solve's line, and the endings
//! every command shares (a search cut short, no solution), with the
//! search every puzzle's solve runs (`solve_search`).

use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use reach::engine::{Model, Outcome, Progress, Report, Spill, StopReason, memory};

use super::exit;
use super::output::{self, ProgressLine, bytes, count_of, say, stdout};
use super::settings::{Settings, Signals, run_solve, search, spilled};

/// A search that a limit or a signal cut short: says so on stderr (and in
/// JSON on stdout, with the puzzle, metric and what is left unknown) and
/// gives the exit code; `None` if the search was not cut short.
pub(super) fn report_stopped<K>(
    report: &Report<K>,
    s: &Settings,
    puzzle: &str,
    metric: &str,
    unknown: &str,
) -> Result<Option<ExitCode>> {
    let Some(code) = exit::stopped(report) else {
        return Ok(None);
    };
    let reason = stop_text(report, s).unwrap_or_default();
    say!(
        "PARTIAL: stopped ({reason}) after {} states to depth {}, {unknown}",
        report.states(),
        report.depth()
    );
    if s.json {
        stdout(&format!(
            "{}\n",
            json!({"puzzle": puzzle, "metric": metric, "complete": false,
                   "stop_reason": reason, "states": report.states(), "depth": report.depth(),
                   "run": super::provenance::run_json(report.threads)})
        ))?;
    }
    Ok(Some(ExitCode::from(code)))
}

/// A report of keys of any width as a report of `u64` keys, each key
/// (of the last level, and a goal's) replaced by its index in the table
/// returned with it: for the printers, which take `u64` keys.
pub(super) fn narrowed<K: Copy>(report: Report<K>) -> (Report, Vec<K>) {
    let Report {
        levels,
        class_levels,
        last_level,
        last_level_states,
        outcome,
        seconds,
        threads,
        visited,
        store,
        partitions,
        disk,
        key_bytes,
        coded_bytes_per_state,
    } = report;
    let mut keys = last_level;
    let last_level = (0..keys.len() as u64).collect();
    let outcome = match outcome {
        Outcome::Complete => Outcome::Complete,
        Outcome::Stopped(why) => Outcome::Stopped(why),
        Outcome::Goal { depth, key } => {
            keys.push(key);
            Outcome::Goal {
                depth,
                key: keys.len() as u64 - 1,
            }
        }
    };
    let report = Report {
        levels,
        class_levels,
        last_level,
        last_level_states,
        outcome,
        seconds,
        threads,
        visited,
        store,
        partitions,
        disk,
        key_bytes,
        coded_bytes_per_state,
    };
    (report, keys)
}

/// No solution, or no goal to measure from: `message` on stderr, `value`
/// (with `--json`) or the line `text` on stdout, exit code 1.
pub(super) fn unsolvable(
    json: bool,
    message: &str,
    value: serde_json::Value,
    text: &str,
) -> Result<ExitCode> {
    say!("{message}");
    if json {
        stdout(&format!("{value}\n"))?;
    } else {
        stdout(&format!("{text}\n"))?;
    }
    Ok(ExitCode::from(exit::NO_SOLUTION))
}

/// The line on stderr that says a solve succeeded.
pub(super) fn say_solved<K>(name: &str, moves: usize, metric: &str, report: &Report<K>) {
    say!(
        "solved {name} in {}: {} searched in {:.3} s, {}, {} visited set",
        count_of(
            moves as u64,
            &format!("{metric} move"),
            &format!("{metric} moves")
        ),
        count_of(report.states(), "state", "states"),
        report.seconds,
        count_of(report.threads as u64, "thread", "threads"),
        report.visited.name()
    );
}

/// Why a search stopped early, in words: `terminated` after SIGTERM,
/// `interrupted` after SIGINT, the limit otherwise; `None` if it did not.
fn stop_text<K>(report: &Report<K>, s: &Settings) -> Option<String> {
    // What this run could do about a memory stop: a run with its levels in
    // memory can spill (every searching command takes --spill; a resumed
    // run always has its levels on disk already).
    let spilling = s.checkpointed() || s.storage.spill.is_some();
    let hint = |available: bool| match (spilling, available) {
        (false, false) => " (--spill DIR keeps the levels on disk instead)",
        (false, true) => {
            " (--spill DIR keeps the levels on disk instead; or set --memory-limit to override, at your own risk)"
        }
        (true, false) => " (give a larger --memory-limit)",
        (true, true) => " (set --memory-limit to override, at your own risk)",
    };
    match &report.outcome {
        Outcome::Stopped(r @ StopReason::MemoryLimit { .. }) => {
            Some(format!("{}{}", super::words::stop_words(r), hint(false)))
        }
        Outcome::Stopped(r @ StopReason::MemoryAvailable { .. }) => {
            Some(format!("{}{}", super::words::stop_words(r), hint(true)))
        }
        Outcome::Stopped(r) => Some(super::words::stop_words(r)),
        _ => None,
    }
}

/// The level profile in a line a person can read: every level when there
/// are few, else the first and last few and the widest (the full profile
/// is in `--json` and `--verbose`).
pub(super) fn short_profile(levels: &[u64]) -> String {
    let join = |ls: &[u64]| ls.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    if levels.len() <= 16 {
        return join(levels);
    }
    let (widest_at, widest) = levels
        .iter()
        .enumerate()
        .max_by_key(|&(i, &n)| (n, std::cmp::Reverse(i)))
        .expect("levels");
    format!(
        "{},…,{} (widest: {widest} at depth {widest_at}; all {} with --json or --verbose)",
        join(&levels[..8]),
        join(&levels[levels.len() - 4..]),
        levels.len()
    )
}

/// A finished count: the puzzle's names (for terminals, and as the file
/// gives it, for JSON), its metric, the report and its antipodes' boards.
pub(super) struct Counted {
    pub(super) name: String,
    pub(super) raw_name: String,
    pub(super) metric: Option<&'static str>,
    pub(super) report: Report,
    /// The boards of the last level's positions, where they were asked
    /// for (`--antipodes`) and the level is held.
    pub(super) boards: Vec<String>,
    /// The symmetries used (twisty puzzles), as `--json` gives them.
    pub(super) symmetry: Option<serde_json::Value>,
}

/// A count's answer: the JSON document, or the summary on stderr and the
/// number (after the antipodes' boards, with `antipodes`) on stdout.
pub(super) fn print_count(c: &Counted, antipodes: bool, s: &Settings) -> Result<()> {
    if s.json {
        // stderr says why a partial document is partial, as solve's and
        // hardest's do.
        if let Some(r) = stop_text(&c.report, s)
            && exit::as_asked(&c.report).is_none()
        {
            say!(
                "PARTIAL: stopped ({r}) after {} states to depth {}; the report covers complete levels only",
                c.report.states(),
                c.report.depth()
            );
        }
        return Ok(stdout(&format!("{}\n", count_json(c, antipodes, s)))?);
    }
    output::stderr(&count_summary(c, s));
    let mut out = String::new();
    if antipodes {
        for board in &c.boards {
            out.push_str(board);
            out.push('\n');
        }
    }
    match (stop_text(&c.report, s), exit::as_asked(&c.report)) {
        (_, Some(d)) => out.push_str(&format!("{} (to depth {d}, as asked)\n", c.report.states())),
        (None, None) => out.push_str(&format!("{}\n", c.report.states())),
        (Some(r), None) => out.push_str(&format!("{} (partial: {r})\n", c.report.states())),
    }
    Ok(stdout(&out)?)
}

/// `count --json`'s document.
fn count_json(c: &Counted, antipodes: bool, s: &Settings) -> serde_json::Value {
    let report = &c.report;
    let mut v = json!({
        "puzzle": c.raw_name,
        "metric": c.metric,
        "states": report.states(),
        "depth": report.depth(),
        "levels": report.levels,
        "antipodes": report.last_level_states,
        "complete": report.is_complete(),
        "stop_reason": stop_text(report, s),
        "threads": report.threads,
        "seconds": report.seconds,
        "states_per_second": report.states_per_second(),
        "peak_rss_bytes": memory::peak_rss_bytes(),
        "visited": report.visited.name(),
        "store": super::words::flags(&report.store),
        "partitions": report.partitions,
        "run": super::provenance::run_json(report.threads),
    });
    if let Some(sym) = &c.symmetry {
        v["symmetry"] = sym.clone();
        v["class_levels"] = json!(report.class_levels);
    }
    if let Some((processes, workers)) = s.cluster() {
        v["processes"] = json!(processes);
        v["workers_per_process"] = json!(workers);
    }
    v["key_bytes"] = json!(report.key_bytes);
    if let Some(b) = report.coded_bytes_per_state {
        v["memory_bytes_per_state"] = json!(b);
    }
    if let Some(disk) = &report.disk {
        v["disk_peak_bytes"] = json!(disk.peak_bytes);
        v["disk_written_bytes"] = json!(disk.written_bytes);
        // No figure a state when no level file was written.
        v["disk_bytes_per_state"] = if disk.written_bytes == 0 || disk.bytes_per_key == 0.0 {
            json!(null)
        } else {
            json!(disk.bytes_per_key)
        };
        if let Some(t) = disk.checkpoint_seconds {
            v["checkpoint_seconds"] = json!(t);
        }
    }
    if antipodes {
        v["antipode_boards"] = json!(c.boards);
    }
    v
}

/// A count's summary for a person, a figure a line.
fn count_summary(c: &Counted, s: &Settings) -> String {
    let report = &c.report;
    let mut err = String::new();
    err.push_str(&format!("puzzle      {}\n", c.name));
    if let Some(m) = c.metric {
        err.push_str(&format!("metric      {m}\n"));
    }
    if let Some(d) = exit::as_asked(report) {
        err.push_str(&format!(
            "limit       to depth {d}, as asked (--max-depth {d}): deeper levels were not searched\n"
        ));
    } else if let Some(r) = stop_text(report, s) {
        err.push_str(&format!(
            "PARTIAL     stopped: {r}; the figures below cover complete levels only\n"
        ));
    }
    err.push_str(&format!("states      {}\n", report.states()));
    err.push_str(&format!(
        "depth       {} ({}), {} at depth {}\n",
        report.depth(),
        count_of(report.levels.len() as u64, "level", "levels"),
        count_of(report.last_level_states, "state", "states"),
        report.depth()
    ));
    err.push_str(&format!("levels      {}\n", short_profile(&report.levels)));
    if let Some(classes) = &report.class_levels {
        let order = c.symmetry.as_ref().and_then(|v| v["order"].as_u64());
        err.push_str(&format!(
            "classes     {} of symmetric positions{}, kept one a class: {}\n",
            classes.iter().sum::<u64>(),
            order.map_or(String::new(), |n| format!(" under {n} symmetries")),
            short_profile(classes)
        ));
    }
    err.push_str(&format!(
        "time        {:.3} s, {:.2} M states/s, {}, {} visited set\n",
        report.seconds,
        report.states_per_second() / 1e6,
        count_of(report.threads as u64, "thread", "threads"),
        report.visited.name()
    ));
    if !report.store.is_empty() {
        err.push_str(&format!(
            "store       {}: {}\n",
            report.visited.name(),
            super::words::flags(&report.store)
        ));
    }
    if let Some(p) = memory::peak_rss_bytes() {
        // A wide key's cost in memory, which levels on disk code down.
        let keys = match (report.disk, report.coded_bytes_per_state) {
            (None, Some(b)) => format!(", {b:.2} bytes a state in the coded levels"),
            (None, None) if report.key_bytes > 8 => format!(
                ", {} bytes a key in the levels and buffers (--spill DIR codes levels by their gaps)",
                report.key_bytes
            ),
            _ => String::new(),
        };
        err.push_str(&format!("peak memory {}{keys}\n", bytes(p)));
    }

    if let Some((processes, workers)) = s.cluster() {
        err.push_str(&format!(
            "cluster     {} x {}; peak memory above is process 0's\n",
            count_of(processes as u64, "process", "processes"),
            count_of(workers as u64, "worker", "workers")
        ));
    }
    if let Some(disk) = &report.disk {
        // A resume's figures cover what it did, not the run before it.
        let part = if s.resume.is_some() {
            " by this resume"
        } else {
            ""
        };
        let saving = disk.checkpoint_seconds.map_or(String::new(), |t| {
            format!(
                "; checkpoint writes {t:.1} s ({:.1} % of the search)",
                100.0 * t / report.seconds.max(1e-9)
            )
        });
        if disk.written_bytes == 0 && disk.checkpoint_seconds.is_some() {
            err.push_str(&format!("disk        nothing written{part}\n"));
        } else if disk.written_bytes == 0 {
            err.push_str(&format!(
                "disk        nothing written{part}: every level stayed in memory (levels under 1 MiB do)\n"
            ));
        } else if disk.bytes_per_key == 0.0 {
            err.push_str(&format!(
                "disk        peak {}, {} written{part} (no level file)\n",
                bytes(disk.peak_bytes),
                bytes(disk.written_bytes),
            ));
        } else {
            err.push_str(&format!(
                "disk        peak {}, {} written{part}, {:.2} bytes a state in level files{saving}\n",
                bytes(disk.peak_bytes),
                bytes(disk.written_bytes),
                disk.bytes_per_key
            ));
        }
    }
    err
}

/// How a solve's search ended, once the endings every puzzle shares are
/// dealt with: a path to print, or the exit code already decided.
pub(super) enum Solved<K = u64> {
    Path(Vec<K>, Box<Report<K>>),
    Exit(ExitCode),
}

/// Runs a solve (or resumes it) and deals with the endings every puzzle
/// shares: a cluster follower's exit, the checkpoint hint, a stop by a
/// limit or a signal, no solution (`goal` names what could not be reached).
pub(super) fn solve_search<M: Model>(
    model: &M,
    raw_name: &str,
    metric: &str,
    goal: &str,
    spill: &Option<Spill>,
    s: &Settings,
) -> Result<Solved<M::Key>> {
    let signals = Signals::install();
    let line = ProgressLine::new(s.verbose && s.process() == 0, s.quiet || s.process() != 0);
    let progress = |p: &Progress| line.update(p);
    let solution = run_solve(spilled(search(model, s, &signals, &progress), spill), s)?;
    line.finish();
    s.check_cluster(&solution.report)?;
    if s.process() != 0 {
        let found = solution.path.is_some();
        return Ok(Solved::Exit(exit::follower(&solution.report, found)));
    }
    s.checkpoint_hint(&solution.report);
    let report = solution.report;
    let Some(path) = solution.path else {
        if let Some(code) =
            report_stopped(&report, s, raw_name, metric, "without reaching the goal")?
        {
            return Ok(Solved::Exit(code));
        }
        return Ok(Solved::Exit(unsolvable(
            s.json,
            &format!(
                "no solution: {goal} cannot be reached ({} states searched, depth {})",
                report.states(),
                report.depth()
            ),
            json!({"puzzle": raw_name, "metric": metric, "length": null, "moves": [], "states": report.states()}),
            "no solution",
        )?));
    };
    Ok(Solved::Path(path, Box::new(report)))
}
