//! What a search found.

use std::fmt;

use crate::engine::VisitedKind;

/// Why a search ended before it had seen every reachable state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The next level would have taken the count past `--max-states`.
    MaxStates(u64),
    /// The next level would have been deeper than `--max-depth`.
    MaxDepth(u32),
    /// The next level was estimated to need more memory than allowed.
    MemoryLimit {
        /// The limit, in bytes.
        limit: u64,
        /// The estimated use after the next level, in bytes.
        needed: u64,
    },
    /// The next level was estimated to need more memory than this process
    /// may still take (no explicit limit was given): the machine's
    /// available memory, a cgroup limit or `ulimit -v`/`-d`, whichever is
    /// least.
    MemoryAvailable {
        /// Bytes this process may still take.
        available: u64,
        /// The estimated growth of the next level, in bytes.
        needed: u64,
        /// What bounds it.
        bound: crate::engine::levels::memory::Bound,
    },
    /// The caller's stop flag was raised (Ctrl-C).
    Interrupted,
    /// The caller's stop flag was raised with its termination flag
    /// ([`Search::terminated_flag`](crate::engine::Search::terminated_flag):
    /// SIGTERM), in this process or another of the cluster.
    Terminated,
    /// Spilled levels could not be written or read (a full disk, an I/O
    /// error, a damaged file): what failed, and how to go on.
    Storage(String),
    /// A process of the cluster was lost or stopped answering: which, and
    /// how to go on.
    Cluster(String),
}

impl StopReason {
    /// A size as a stop's message gives it: in MiB below a GiB (a small
    /// limit must not read as 0.00 GiB), else in GiB.
    pub fn size(bytes: u64) -> String {
        if bytes < 1 << 30 {
            format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
        } else {
            format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
        }
    }
}

/// The library's words for why a search stopped; a command line that
/// names its limits by flags says them its own way (`reach`: the next
/// level would exceed `--max-depth 10`).
impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = |b: &u64| StopReason::size(*b);
        match self {
            StopReason::MaxStates(n) => {
                write!(f, "the next level would pass the limit of {n} states")
            }
            StopReason::MaxDepth(d) => write!(f, "the next level would pass the depth limit {d}"),
            StopReason::MemoryLimit { limit, needed } => write!(
                f,
                "the next level would need about {}, over the memory limit of {}",
                size(needed),
                size(limit)
            ),
            StopReason::MemoryAvailable {
                available,
                needed,
                bound,
            } => write!(
                f,
                "the next level would need about {} more, and {} {}",
                size(needed),
                bound.name(),
                size(available)
            ),
            StopReason::Interrupted => write!(f, "interrupted"),
            StopReason::Terminated => write!(f, "terminated"),
            StopReason::Storage(what) => write!(f, "the disk failed: {what}"),
            StopReason::Cluster(what) => write!(f, "{what}"),
        }
    }
}

/// How a search ended (`K`: the model's key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<K = u64> {
    /// Every reachable state was seen.
    Complete,
    /// A goal state was found at `depth` (searches for a goal stop there).
    Goal {
        /// The goal's BFS distance from the start.
        depth: u32,
        /// The smallest key among the goal states of that level.
        key: K,
    },
    /// The search stopped early; the counts cover the complete levels only.
    Stopped(StopReason),
}

/// The result of a search: counts per BFS level and how the search ended
/// (`K`: the model's key).
#[derive(Clone, Debug)]
pub struct Report<K = u64> {
    /// States in every complete level, index = BFS distance from the start
    /// (positions, when the model's keys stand for classes of them).
    pub levels: Vec<u64>,
    /// The classes of symmetric positions in every complete level, when
    /// the model keeps one key a class ([`Model::classes`](crate::engine::Model)):
    /// the keys the search stored; `None` otherwise.
    pub class_levels: Option<Vec<u64>>,
    /// The keys of the deepest complete level (the antipodes when a count is
    /// complete), sorted except after [`crate::engine::Search::find_goal`].
    /// A spilled search leaves it empty when the level is too large to
    /// read back (over 4 Mi keys).
    pub last_level: Vec<K>,
    /// States in the deepest complete level (positions, with classes).
    pub last_level_states: u64,
    /// How the search ended.
    pub outcome: Outcome<K>,
    /// Wall-clock seconds of the search itself.
    pub seconds: f64,
    /// Worker threads used.
    pub threads: usize,
    /// The visited set that was used.
    pub visited: VisitedKind,
    /// Why the search took that visited set (and where its levels lived).
    pub store: String,
    /// The partitions the key space was split into.
    pub partitions: usize,
    /// What a spilled search's files took on disk.
    pub disk: Option<crate::engine::files::DiskUse>,
    /// Bytes a key takes in memory (8 a 64-bit word): what a state costs
    /// in the workers' buffers and in a level kept as keys in memory (on
    /// disk a level's keys are coded: [`DiskUse::bytes_per_key`](crate::engine::DiskUse)).
    pub key_bytes: usize,
    /// Bytes a state took in the levels held in memory as coded runs (keys
    /// of several words without a spill directory: each coded by its gap
    /// to the one before, as in the run files), when any level was.
    pub coded_bytes_per_state: Option<f64>,
}

impl<K> Report<K> {
    /// Total states found (the sum of the levels).
    pub fn states(&self) -> u64 {
        self.levels.iter().sum()
    }

    /// The largest BFS distance seen.
    pub fn depth(&self) -> u32 {
        self.levels.len().saturating_sub(1) as u32
    }

    /// Whether every reachable state (or, for a goal search, the goal) was found.
    pub fn is_complete(&self) -> bool {
        !matches!(self.outcome, Outcome::Stopped(_))
    }

    /// States per second of wall time.
    pub fn states_per_second(&self) -> f64 {
        self.states() as f64 / self.seconds.max(1e-9)
    }
}

/// Sent to the progress callback after each level.
#[derive(Clone, Debug)]
pub struct Progress {
    /// The BFS distance of the level just completed.
    pub depth: u32,
    /// States in that level.
    pub level_states: u64,
    /// States found so far, that level included.
    pub total_states: u64,
    /// Seconds since the search began.
    pub seconds: f64,
    /// The states the whole search will have found, where the model says
    /// so in advance (a model with dense keys: its key space), for an
    /// estimate of the time left.
    pub expected_states: Option<u64>,
    /// What the run is doing: empty for a search's level. A census
    /// ([`Search::census`](crate::engine::Search::census)) names its stage
    /// ("listing positions", "joining components", "distances from the
    /// goal"), and counts the positions done so far in `total_states` (of
    /// `expected_states`, where known).
    pub stage: &'static str,
}
