//! Why a search could not start, in the library's words: a command line
//! that names its options by flags says them its own way (`reach`:
//! `cli::exit::flagged`).

/// Errors that keep a search from starting.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The worker pool could not be built.
    #[error("could not start {threads} worker threads: {source}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// Why rayon refused.
        source: rayon::ThreadPoolBuildError,
    },
    /// The model says why it cannot be searched ([`Model::unsearchable`](crate::engine::Model::unsearchable)).
    #[error("{0}")]
    Unsearchable(String),
    /// A bitmap visited set was asked for on a key space too large for one.
    #[error(
        "the bitmap visited set needs one bit per possible key, and this puzzle has {key_space} keys (the bitmap takes at most {max})\n  help: leave the visited set to the automatic choice, or take the hash set (dashmap)"
    )]
    BitmapTooLarge {
        /// The model's key space.
        key_space: u64,
        /// The largest key space a bitmap takes.
        max: u64,
    },
    /// The dense visited set was asked for where it cannot serve.
    #[error(
        "the dense visited set (two bits a key) keeps no level as keys, so it cannot {0}\n  help: leave the visited set to the automatic choice"
    )]
    DenseUnsupported(&'static str),
    /// A store that indexes an array by key (the bitmap, the dense store)
    /// was asked of a puzzle whose keys are wider than 64 bits.
    #[error(
        "this puzzle's keys are over 64 bits, and a search of them cannot {0}: its levels are kept as sorted keys, in memory or on disk\n  help: leave the visited set to the automatic choice; with a spill directory the levels go to disk, and a depth or state limit bounds the search"
    )]
    WideUnsupported(&'static str),
    /// The dense visited set does not fit in memory.
    #[error(
        "the dense visited set needs {need} MiB (two bits for each of {key_space} keys) and {room} MiB are left\n  help: leave the visited set to the automatic choice, or give a spill directory to keep the levels on disk"
    )]
    DenseTooLarge {
        /// MiB the two-bit array takes.
        need: u64,
        /// MiB of memory left to take.
        room: u64,
        /// The model's key space.
        key_space: u64,
    },
    /// A resumed search would hold more than its memory limit before its
    /// first level: its visited set, rebuilt from the checkpoint.
    #[error(
        "resuming needs about {} MiB before its first level ({what}), over the memory limit of {} MiB\n  help: give it room for a level's work too: a memory limit of {}M or more",
        need >> 20, limit >> 20, roomy(*need)
    )]
    ResumeTooLarge {
        /// Bytes the process would hold: what it holds now, and the set.
        need: u64,
        /// The limit, in bytes.
        limit: u64,
        /// What it holds.
        what: String,
    },
    /// The memory for the dense visited set could not be mapped.
    #[error("could not map {mib} MiB for the dense visited set: {source}")]
    DenseMap {
        /// MiB asked for.
        mib: u64,
        /// Why the kernel refused.
        source: std::io::Error,
    },
    /// The partition count is not a power of two up to [`MAX_PARTITIONS`](crate::engine::MAX_PARTITIONS).
    #[error("the partition count must be a power of two from 1 to {max}, not {partitions}")]
    Partitions {
        /// The count asked for.
        partitions: usize,
        /// The largest count accepted.
        max: usize,
    },
    /// Frontier search was asked for on a model whose moves are not all
    /// reversible.
    #[error(
        "frontier search needs moves that can be undone, and this puzzle's cannot\n  help: leave the visited set to the automatic choice, or take the hash set (dashmap) or a bitmap"
    )]
    NotReversible,
    /// `solve` was asked of a model without a goal.
    #[error("this puzzle has no goal to solve for")]
    NoGoal,
    /// A checkpoint was asked for on a model without an identity.
    #[error(
        "this puzzle cannot be checkpointed: its model gives no identity to check a checkpoint against"
    )]
    NoIdentity,
    /// Spilling was asked for where a hash set would hold every key in memory.
    #[error(
        "levels on disk need frontier search (moves that can be undone) or a key space small enough for a bitmap; this puzzle needs a hash set that holds every state in memory"
    )]
    SpillNeedsFrontier,
    /// A checkpoint was asked of a search that cannot be resumed.
    #[error(
        "{0} cannot be checkpointed: its two searches are not resumable\n  help: give a spill directory without a checkpoint to keep its levels on disk"
    )]
    CheckpointUnsupported(&'static str),
    /// The spill directory or a checkpoint failed before the search began.
    #[error(transparent)]
    Spill(#[from] crate::engine::files::SpillError),
    /// The processes of a cluster would keep different stores (each
    /// measures its own memory and disk).
    #[error(
        "the processes would keep different stores: process {process}: {theirs}; process 0: {ours}\n  help: give every rank the same room (its memory limit, and free disk in the spill directory), or name the visited set"
    )]
    StoresDiffer {
        /// The first process whose store differs from process 0's.
        process: usize,
        /// Its store and why.
        theirs: String,
        /// Process 0's.
        ours: String,
    },
    /// The processes of a cluster were given different searches.
    #[error(transparent)]
    Cluster(#[from] crate::engine::peers::Mismatch),
    /// A process of the cluster was lost while the search was set up.
    #[error(transparent)]
    Peer(#[from] crate::engine::peers::PeerError),
    /// A checkpoint was written by another kind of search.
    #[error("{0}")]
    Checkpoint(String),
}

impl SearchError {
    /// For a resume over its memory limit: a limit, in MiB, that gives it
    /// room for a level's work too.
    pub fn roomy_limit_mib(&self) -> Option<u64> {
        match self {
            SearchError::ResumeTooLarge { need, .. } => Some(roomy(*need)),
            _ => None,
        }
    }
}

impl From<crate::engine::levels::Fault> for SearchError {
    fn from(fault: crate::engine::levels::Fault) -> SearchError {
        match fault {
            crate::engine::levels::Fault::Storage(e) => SearchError::Spill(e),
            crate::engine::levels::Fault::Peer(e) => SearchError::Peer(e),
        }
    }
}

/// MiB to suggest for a search that holds `need` bytes before it starts:
/// a quarter more, and at least 16 MiB more, for a level's work.
fn roomy(need: u64) -> u64 {
    (need + (need / 4).max(16 << 20)).div_ceil(1 << 20)
}
