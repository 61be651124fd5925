//! `reach completions SHELL`: a completion script for the shell, made by
//! clap from the grammar in `args.rs`.

use std::process::ExitCode;

use anyhow::Result;
use clap::CommandFactory;

use super::args::Cli;
use super::output::stdout;

pub(super) fn completions(shell: clap_complete::Shell) -> Result<ExitCode> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "reach", &mut out);
    stdout(&String::from_utf8_lossy(&out))?;
    Ok(ExitCode::SUCCESS)
}
