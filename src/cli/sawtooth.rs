//! `reach sawtooth`: the Sawtooth Puzzle of ZOJ 3814, read from stdin in the
//! judge's format.

use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::json;

use reach::engine::Search;
use reach::puzzles::sawtooth::{self, Sawtooth};

use super::output::{say, stdout};
use super::puzzle::read_stdin;
use super::settings::Settings;

/// `reach sawtooth`: each case's fewest steps, or with `count` its
/// reachable states.
pub(super) fn sawtooth(count: bool, s: &Settings) -> Result<ExitCode> {
    let cases = sawtooth::parse_input(&read_stdin()?).context("stdin")?;
    let mut out = String::new();
    let mut records = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let model = Sawtooth::new(case);
        if count {
            let report = Search::new(&model)
                .threads(s.threads.max(1))
                .memory_guard(false)
                .count()?;
            if s.json {
                records.push(
                    json!({"case": i + 1, "states": report.states(), "depth": report.depth(),
                                    "levels": report.levels, "antipodes": report.last_level.len()}),
                );
            } else {
                let levels: Vec<String> = report.levels.iter().map(u64::to_string).collect();
                say!(
                    "case {}: {} states, depth {}, levels {}",
                    i + 1,
                    report.states(),
                    report.depth(),
                    levels.join(",")
                );
                out.push_str(&format!("{}\n", report.states()));
            }
        } else {
            let steps = model.min_steps().map_or(-1, i64::from);
            if s.json {
                records.push(json!({"case": i + 1, "steps": steps}));
            } else {
                out.push_str(&format!("{steps}\n"));
            }
        }
    }
    if s.json {
        out = format!("{}\n", json!({ "cases": records }));
    }
    stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}
