//! `reach clocks`: IOI'94's clocks, read from stdin, solved in the fewest
//! moves.

use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::json;

use reach::puzzles::clocks::{self, Clocks};

use super::output::stdout;
use super::puzzle::read_stdin;

/// `reach clocks`: the fewest moves that set nine clocks to 12.
pub(super) fn clocks(codes: bool, json: bool) -> Result<ExitCode> {
    let dial = clocks::parse_input(&read_stdin()?, codes).context("stdin")?;
    let moves = Clocks::new(dial).solve();
    if json {
        stdout(&format!(
            "{}\n",
            json!({"moves": moves, "length": moves.len()})
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let words: Vec<String> = moves.iter().map(u8::to_string).collect();
    stdout(&format!("{}\n", words.join(" ")))?;
    Ok(ExitCode::SUCCESS)
}
