//! `--json`'s `run` object: what a reader of a published table needs to
//! know how it was made (reach's version and commit, the command line,
//! the host's CPU and cores, the threads, when it started and how long it
//! took).

use std::sync::OnceLock;
use std::time::{Instant, SystemTime};

use serde_json::{Value, json};

/// When the command started, on both clocks.
static STARTED: OnceLock<(SystemTime, Instant)> = OnceLock::new();

/// Notes the command's start: called first thing in `main`.
pub(super) fn mark_start() {
    STARTED.get_or_init(|| (SystemTime::now(), Instant::now()));
}

/// The CPU's model name, from `/proc/cpuinfo` (Linux); `None` elsewhere.
fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, name)| name.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The `run` object of a search run with `threads` workers.
pub(super) fn run_json(threads: usize) -> Value {
    let (start, clock) = *STARTED.get_or_init(|| (SystemTime::now(), Instant::now()));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    json!({
        "reach": env!("CARGO_PKG_VERSION"),
        "commit": option_env!("REACH_COMMIT"),
        "command": std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>(),
        "host": {"cpu": cpu_model(), "cores": cores},
        "threads": threads,
        "started": humantime::format_rfc3339_seconds(start).to_string(),
        "wall_seconds": clock.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_object_says_what_made_the_table() {
        mark_start();
        let v = run_json(3);
        assert_eq!(v["reach"], env!("CARGO_PKG_VERSION"));
        assert_eq!(v["threads"], 3);
        assert!(v["host"]["cores"].as_u64().unwrap() >= 1);
        let started = v["started"].as_str().unwrap();
        assert!(humantime::parse_rfc3339(started).is_ok(), "{started}");
        assert!(started.ends_with('Z'), "UTC: {started}");
        assert!(v["wall_seconds"].as_f64().unwrap() >= 0.0);
    }
}
