//! Why a search could not start.

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
        "the bitmap visited set needs one bit per possible key, and this puzzle has {key_space} keys (the bitmap takes at most {max})\n  help: leave out --visited (the automatic choice), or use --visited dashmap"
    )]
    BitmapTooLarge {
        /// The model's key space.
        key_space: u64,
        /// The largest key space a bitmap takes.
        max: u64,
    },
    /// The dense visited set was asked for where it cannot serve.
    #[error(
        "the dense visited set (two bits a key) keeps no level as keys, so it cannot {0}\n  help: leave out --visited (the automatic choice)"
    )]
    DenseUnsupported(&'static str),
    /// A store that indexes an array by key (the bitmap, the dense store)
    /// was asked of a puzzle whose keys are wider than 64 bits.
    #[error(
        "this puzzle's keys are over 64 bits, and a search of them cannot {0}: its levels are kept as sorted keys, in memory or on disk\n  help: leave out --visited; with --spill DIR the levels go to disk, and --max-depth or --max-states bounds the search"
    )]
    WideUnsupported(&'static str),
    /// The dense visited set does not fit in memory.
    #[error(
        "the dense visited set needs {need} MiB (two bits for each of {key_space} keys) and {room} MiB are left\n  help: leave out --visited (the automatic choice), or use --spill DIR to keep levels on disk"
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
        "resuming needs about {} MiB before its first level ({what}), over the memory limit of {} MiB\n  help: give it room for a level's work too: a memory limit of {}M or more (reach resume DIR --memory-limit {}M)",
        need >> 20, limit >> 20, roomy(*need), roomy(*need)
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
        "frontier search needs moves that can be undone, and this puzzle's cannot\n  help: leave out --visited (the automatic choice), or use --visited dashmap or bitmap"
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
        "--spill needs frontier search (moves that can be undone) or a key space small enough for a bitmap; this puzzle needs a hash set that holds every state in memory"
    )]
    SpillNeedsFrontier,
    /// A checkpoint was asked of a search that cannot be resumed.
    #[error(
        "{0} cannot be checkpointed: its two searches are not resumable\n  help: use --spill DIR to keep its levels on disk without a checkpoint"
    )]
    CheckpointUnsupported(&'static str),
    /// The spill directory or a checkpoint failed before the search began.
    #[error(transparent)]
    Spill(#[from] crate::engine::files::SpillError),
    /// The processes of a cluster would keep different stores (each
    /// measures its own memory and disk).
    #[error(
        "the processes would keep different stores: process {process}: {theirs}; process 0: {ours}\n  help: give every rank the same room (--memory-limit, and free disk in --spill DIR), or name the store with --visited"
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
