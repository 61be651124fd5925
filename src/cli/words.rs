//! The library's words said as the command line's flags: the library's
//! errors, stop reasons and store choices name the options of its API (a
//! metric, the chosen moves, a spill directory, the memory limit); here
//! each becomes the flag that sets it. The one place that translates them:
//! every message the command line prints passes through [`flags`] or one
//! of the functions below it.

use reach::engine::{SearchError, StopReason};
use reach::puzzles::any::LoadError;

/// The library's phrases and the command line's for them. Each phrase is
/// one that only the message it translates holds (the tests of the
/// refusals pin both sides: `edges::refusals_name_the_command_lines_flags`).
const PHRASES: &[(&str, &str)] = &[
    // A twisty puzzle's moves and scramble (`twisty::OptionError`).
    ("the chosen moves list ", "--moves lists "),
    ("the chosen moves name no move", "--moves names no move"),
    ("the chosen moves: ", "--moves: "),
    ("error: the scramble \"", "error: --scramble \""),
    (
        "choose fewer moves, or split the puzzle",
        "restrict the moves (--moves) or split the puzzle",
    ),
    (
        "use the qtm metric (the move and its inverse) or the moves metric",
        "use --metric qtm (the move and its inverse) or --metric moves",
    ),
    // Levels on disk (`SpillError`).
    (
        "the directory that the run checkpointed to",
        "the directory that the run's --checkpoint named",
    ),
    (
        "(the memory limit does not bound disk use)",
        "(--memory-limit does not bound disk use)",
    ),
    ("or use fewer partitions", "or give fewer --partitions"),
    // The clocks' readings.
    ("(codes 0-3 are read with `codes`)", "(use --codes for 0-3)"),
    // Why a search keeps the store it keeps (`Report::store`).
    ("as asked (the visited set chosen)", "as asked (--visited)"),
    (
        "as asked (the dense store chosen)",
        "as asked (--visited dense)",
    ),
    (
        "keep every level on disk (as the spill asks)",
        "keep every level on disk (--keep)",
    ),
    (
        "; with a spill directory the array goes on disk",
        "; with --spill DIR the array goes on disk",
    ),
    (
        "is over half of the memory limit)",
        "is over half of --memory-limit)",
    ),
];

/// `text` (a message, or why a store was chosen) with the library's
/// phrases for options said as flags.
pub(super) fn flags(text: &str) -> String {
    let mut text = text.to_string();
    for (words, flag) in PHRASES {
        if text.contains(words) {
            text = text.replace(words, flag);
        }
    }
    text
}

/// A puzzle's error in the command line's words: the library's, with
/// the options it names said as flags.
pub(super) fn flagged(e: LoadError) -> anyhow::Error {
    let flags: &[(&str, &str)] = match &e {
        LoadError::ScrambleNotTwisty { .. } => &[("a scramble", "--scramble")],
        LoadError::MetricMismatch { .. } => &[
            ("the metric ", "--metric "),
            ("help: give ", "help: give --metric "),
        ],
        LoadError::MovesNotTwisty { .. } => &[("moves choose", "--moves chooses")],
        LoadError::OneKindOfMove { moves: false, .. } => &[("a metric", "--metric")],
        LoadError::OneKindOfMove { moves: true, .. } => &[("choosing moves", "--moves")],
        _ => return e.into(),
    };
    let mut text = e.to_string();
    for (words, flag) in flags {
        text = text.replacen(words, flag, 1);
    }
    anyhow::Error::msg(text)
}

/// A search's refusal in the command line's words, where the library's
/// help names an option that is a flag here (`None`: its own words do):
/// the library's message with the command line's help.
pub(super) fn refusal(e: &SearchError) -> Option<String> {
    let text = e.to_string();
    let message = text
        .split_once("\n  help: ")
        .map_or(text.as_str(), |(m, _)| m);
    let help = match e {
        SearchError::BitmapTooLarge { .. } => {
            "leave out --visited (the automatic choice), or use --visited dashmap"
        }
        SearchError::DenseUnsupported(_) => "leave out --visited (the automatic choice)",
        SearchError::WideUnsupported(_) => {
            "leave out --visited; with --spill DIR the levels go to disk, and --max-depth or --max-states bounds the search"
        }
        SearchError::DenseTooLarge { .. } => {
            "leave out --visited (the automatic choice), or use --spill DIR to keep levels on disk"
        }
        SearchError::NotReversible => {
            "leave out --visited (the automatic choice), or use --visited dashmap or bitmap"
        }
        SearchError::CheckpointUnsupported(_) => {
            "use --spill DIR to keep its levels on disk without a checkpoint"
        }
        SearchError::StoresDiffer { .. } => {
            "give every rank the same room (--memory-limit, and free disk in --spill DIR), or name the store with --visited"
        }
        SearchError::ResumeTooLarge { .. } => {
            return Some(format!(
                "{text} (reach resume DIR --memory-limit {}M)",
                e.roomy_limit_mib()?
            ));
        }
        SearchError::SpillNeedsFrontier => {
            return Some(text.replacen("levels on disk need", "--spill needs", 1));
        }
        _ => return None,
    };
    Some(format!("{message}\n  help: {help}"))
}

/// Why a search stopped, in the command line's words: the limits by their
/// flags (the library's own words name none).
pub(super) fn stop_words(r: &StopReason) -> String {
    let size = |b: &u64| StopReason::size(*b);
    match r {
        StopReason::MaxStates(n) => format!("the next level would exceed --max-states {n}"),
        StopReason::MaxDepth(d) => format!("the next level would exceed --max-depth {d}"),
        StopReason::MemoryLimit { limit, needed } => format!(
            "the next level would need about {}, over --memory-limit {}",
            size(needed),
            size(limit)
        ),
        other => other.to_string(),
    }
}
