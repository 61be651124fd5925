//! `reach list`: the built-in puzzles, a line each (or as JSON).

use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use reach::puzzles::builtin;

use super::output::stdout;
use super::puzzle::TILES_SUMMARY;

pub(super) fn list(json: bool) -> Result<ExitCode> {
    if json {
        let list: Vec<_> = builtin::ALL
            .iter()
            .map(|b| json!({"name": b.name, "summary": b.summary}))
            .chain(std::iter::once(
                json!({"name": "tiles-RxC", "summary": TILES_SUMMARY}),
            ))
            .collect();
        stdout(&format!("{}\n", json!({ "puzzles": list })))?;
    } else {
        let mut text = String::new();
        for b in builtin::ALL {
            text.push_str(&format!("{:<14} {}\n", b.name, b.summary));
        }
        text.push_str(&format!("{:<14} {TILES_SUMMARY}\n", "tiles-RxC"));
        stdout(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}
