//! The exit codes (documented in `args::EXIT_CODES`) and the rules that
//! pick one: for an error, for a search a limit or a signal cut short, and
//! for the ranks of a cluster other than the first.

use std::process::ExitCode;

use reach::engine::{Outcome, Report, SearchError, SpillError, StopReason};

use super::output::{FileError, OutputError};

/// Solve: no solution; hardest: no goal in the start's component.
pub(super) const NO_SOLUTION: u8 = 1;
/// An error that is the user's input rather than a failure.
pub(super) const BAD_INPUT: u8 = 2;
/// A limit or a storage fault stopped the search: the report is partial.
pub(super) const LIMIT: u8 = 3;
/// Stdout or an output file could not be written (full disk, I/O error,
/// a path that cannot take a file).
pub(super) const OUTPUT: u8 = 4;
/// A cluster lost a process, never came up, or its processes disagree.
pub(super) const CLUSTER: u8 = 5;
/// A panic: a bug.
pub(super) const INTERNAL: u8 = 101;
pub(super) const SIGINT: u8 = 130;
pub(super) const SIGTERM: u8 = 143;

/// A cluster that failed (a rank that broke the protocol, a lost rank, or
/// ranks that disagree on the checkpoint they resume): exit code 5.
#[derive(Debug)]
pub(super) struct ClusterFailed(pub String);

impl std::fmt::Display for ClusterFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ClusterFailed {}

/// The exit code of a command that failed with `e`.
pub(super) fn of_error(e: &anyhow::Error) -> u8 {
    let search = e.downcast_ref::<SearchError>();
    let cluster = e.is::<ClusterFailed>()
        || search.is_some_and(|e| matches!(e, SearchError::Cluster(_) | SearchError::Peer(_)));
    // A storage fault before the first level was whole: nothing was saved,
    // and the run ends as a storage fault later would.
    // So is a cluster whose ranks have different room: one would keep the
    // dense array on disk, another in memory.
    let storage = search.is_some_and(|e| {
        matches!(
            e,
            SearchError::Spill(SpillError::Io { .. }) | SearchError::StoresDiffer { .. }
        )
    });
    if e.is::<OutputError>() || e.is::<FileError>() {
        OUTPUT
    } else if storage {
        LIMIT
    } else if cluster {
        CLUSTER
    } else {
        BAD_INPUT
    }
}

/// Whether every rank of a cluster met this error at the same point (the
/// ranks found by a collective that they run different searches, or would
/// keep different stores), so that
/// each can end normally with its code instead of aborting the job.
pub(super) fn every_rank_knows(e: &anyhow::Error) -> bool {
    e.downcast_ref::<SearchError>().is_some_and(|e| {
        matches!(
            e,
            SearchError::Cluster(_) | SearchError::StoresDiffer { .. }
        )
    })
}

/// The message of a failed command: the error and its causes, each said
/// once (a cause whose text the message already holds, an OS error that a
/// file's error quotes, is not repeated), and for a failure of the
/// system's what to do about it; the options it names said as flags.
pub(super) fn message(e: &anyhow::Error) -> String {
    let first = e
        .downcast_ref::<SearchError>()
        .and_then(super::words::refusal)
        .unwrap_or_else(|| e.to_string());
    let mut text = format!("error: {first}");
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    let help = e
        .chain()
        .find_map(|c| match c.downcast_ref::<SearchError>() {
            Some(SearchError::Spill(s)) => s.help(),
            _ => c.downcast_ref::<SpillError>()?.help(),
        });
    if let Some(help) = help
        && !text.contains("help:")
    {
        text.push_str(&format!("\n  help: {help}"));
    }
    super::words::flags(&text)
}

/// The number behind an exit code (the standard library shows none; every
/// code here is made from a `u8`).
pub(super) fn code_of(code: ExitCode) -> u8 {
    (0..=u8::MAX)
        .find(|&c| ExitCode::from(c) == code)
        .unwrap_or(BAD_INPUT)
}

/// The exit code of a finished search: `None` for a complete one, else
/// that of the limit or signal that stopped it.
pub(super) fn stopped<K>(report: &Report<K>) -> Option<u8> {
    match &report.outcome {
        Outcome::Stopped(StopReason::Interrupted) => Some(SIGINT),
        Outcome::Stopped(StopReason::Terminated) => Some(SIGTERM),
        Outcome::Stopped(_) => Some(LIMIT),
        _ => None,
    }
}

/// The exit code of a finished count: 0 when it is complete or stopped at
/// the `--max-depth` the user asked for (the table to that depth is the
/// whole answer asked), else that of the limit or signal that stopped it.
pub(super) fn of_count<K>(report: &Report<K>) -> ExitCode {
    if as_asked(report).is_some() {
        return ExitCode::SUCCESS;
    }
    ExitCode::from(stopped(report).unwrap_or(0))
}

/// The depth a count stopped at because `--max-depth` said so; `None` if
/// it is complete or something else stopped it.
pub(super) fn as_asked<K>(report: &Report<K>) -> Option<u32> {
    match report.outcome {
        Outcome::Stopped(StopReason::MaxDepth(d)) => Some(d),
        _ => None,
    }
}

/// The exit code of a process of a cluster other than process 0, which
/// prints nothing: that of the limit or signal that stopped the search, 1
/// when it found nothing, 0 otherwise.
pub(super) fn follower<K>(report: &Report<K>, found: bool) -> ExitCode {
    ExitCode::from(stopped(report).unwrap_or(if found { 0 } else { NO_SOLUTION }))
}
