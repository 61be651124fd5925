//! The command line: turns arguments into library calls and reports. This
//! file parses the arguments and hands each command to its own file; what
//! the commands share is in `settings.rs` (how a search runs),
//! `puzzle.rs` (loading a puzzle by name or file, and `Resolved`: a puzzle
//! as every command reads it, resolved once), `summary.rs` (what a
//! finished search prints), `words.rs` (the library's words said as the
//! command line's flags) and `exit.rs` (the exit codes).

mod args;
mod census;
mod clocks;
mod cluster;
mod completions;
mod count;
mod exit;
mod hardest;
mod list;
mod output;
mod plot;
mod provenance;
mod puzzle;
mod resume;
mod sawtooth;
mod settings;
mod show;
mod sliding;
mod solve;
#[cfg(feature = "studio")]
mod studio;
mod summary;
mod twisty;
mod twisty_page;
mod watch;
mod words;

use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory, Parser};

use args::{Cli, Command, CountArgs, RunArgs};
use output::say;
use settings::Settings;

pub fn main() -> ExitCode {
    provenance::mark_start();
    let args = json_after_command(std::env::args_os().collect());
    // With --json every exit prints one document on stdout: the report,
    // or the error (checked on the raw words: the error may be clap's).
    let json = args
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    if json {
        output::json_errors(exit::INTERNAL);
    }
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) if !json || !e.use_stderr() => e.exit(),
        Err(e) => {
            let text = e.render().to_string();
            say!("{}", text.trim_end());
            output::json_error(&text, exit::BAD_INPUT);
            return ExitCode::from(exit::BAD_INPUT);
        }
    };
    let code = match run(cli) {
        Ok(code) => exit::code_of(code),
        Err(e) => {
            let code = exit::of_error(&e);
            let message = exit::message(&e);
            if cluster::rank() == 0 {
                output::json_error(&message, code);
            }
            if exit::every_rank_knows(&e) {
                // No abort (whose race ends the launcher with 5 or 9):
                // every rank ends here and agrees on the code.
                if cluster::rank() == 0 {
                    say!("{message}");
                }
            } else {
                cluster::fail(&message, code);
            }
            code
        }
    };
    ExitCode::from(cluster::finish(code))
}

/// One command, from its arguments to its exit code.
fn run(cli: Cli) -> Result<ExitCode> {
    let json = cli.json;
    let command = cli.command.unwrap_or(Command::Count(CountArgs {
        puzzle: "pe766".into(),
        options: cli.bare,
    }));
    match command {
        Command::Count(a) => {
            let mut s = Settings::of_count(&a.options, json);
            s.join_ranks(cluster::join(&a.options.cluster)?, &a.options.cluster);
            count::count(&a, &s)
        }
        Command::Solve(a) => {
            let mut s = Settings::of_solve(&a, json);
            s.join_ranks(cluster::join(&a.cluster)?, &a.cluster);
            solve::solve(&a, &s)
        }
        Command::Hardest(a) => {
            let mut s = Settings::of_hardest(&a, json);
            s.join_ranks(cluster::join(&a.cluster)?, &a.cluster);
            hardest::hardest(&a, &s)
        }
        Command::Census(a) => {
            let mut s = Settings::of_census(&a, json);
            s.join_ranks(cluster::join(&a.cluster)?, &a.cluster);
            census::census(&a, &s)
        }
        #[cfg(feature = "studio")]
        Command::Studio(a) => studio::studio(&a),
        Command::Resume(a) => resume::resume(a, json),
        Command::Show {
            puzzle,
            metric,
            moves,
        } => show::show(&puzzle, metric, &moves, json),
        Command::List => list::list(json),
        Command::Completions { shell } => completions::completions(shell),
        Command::Clocks { codes } => clocks::clocks(codes, json),
        Command::Sawtooth { count, threads } => {
            let run = RunArgs {
                threads,
                verbose: false,
                quiet: true,
            };
            sawtooth::sawtooth(count, &Settings::new(&run, json))
        }
    }
}

/// The arguments with a `--json` given before the command moved after it
/// (`reach --json list` as `reach list --json`): the bare run's options
/// conflict with a command, so clap would refuse the global flag there.
fn json_after_command(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let cli = Cli::command();
    let is_command = |a: &std::ffi::OsString| {
        a.to_str()
            .is_some_and(|a| cli.get_subcommands().any(|c| c.get_name() == a))
    };
    let Some(at) = args.iter().skip(1).position(is_command).map(|i| i + 1) else {
        return args;
    };
    if !args[..at].iter().any(|a| a == "--json") {
        return args;
    }
    let mut moved: Vec<_> = args[..at]
        .iter()
        .filter(|a| *a != "--json")
        .cloned()
        .collect();
    moved.extend(args[at..].iter().cloned());
    moved.push("--json".into());
    moved
}
