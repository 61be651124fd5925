//! How keys travel between the processes of a search and how they agree at
//! a level boundary: the level loop's second seam.
//!
//! Every process runs the same level loop over its own partitions (those
//! whose index modulo the process count is its own), with rayon workers
//! inside it, and makes the same sequence of collective calls: candidates
//! for another process's partitions go to it in one `exchange` per level
//! (or per slice), and every decision (the level's size, a signal, a
//! memory limit, a goal, a path's next step) is taken on what an
//! `all_gather` handed every process alike, so that all stop at the same
//! boundary with the same report. One process alone ([`Alone`]) has no one
//! to talk to: its collectives return at once.

use super::spill::SpillError;

/// Why a collective call failed: a process was lost or stalled, or the
/// processes do not run the same search.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PeerError {
    /// A process closed its connection or stopped answering.
    #[error("lost process {process} of the cluster ({address}): {what}")]
    Lost {
        /// Its index.
        process: usize,
        /// Its address.
        address: String,
        /// What happened.
        what: String,
    },
    /// A process sent nothing, not even a heartbeat, for too long.
    #[error(
        "process {process} of the cluster ({address}) has not answered for {seconds} s (stopped or hung?)"
    )]
    Stalled {
        /// Its index.
        process: usize,
        /// Its address.
        address: String,
        /// The timeout that passed.
        seconds: u64,
    },
}

impl PeerError {
    /// The process that was lost or stopped answering.
    pub fn process(&self) -> usize {
        match self {
            PeerError::Lost { process, .. } | PeerError::Stalled { process, .. } => *process,
        }
    }
}

/// The processes of a search, as the level loop and its stores see them.
///
/// Every process calls the same collectives in the same order; each call
/// returns once every process's part of it has arrived.
pub(crate) trait Peers: Sync {
    /// How many processes take part.
    fn processes(&self) -> usize;

    /// This process's index.
    fn me(&self) -> usize;

    /// Every process's `words`, in process order (this one's included).
    fn all_gather(&self, words: &[u64]) -> Result<Vec<Vec<u64>>, PeerError>;

    /// Sends `outgoing[q]` to every other process q; what each other
    /// process sent this one, by process (empty at this one's index).
    fn exchange(&self, outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, PeerError>;

    /// Whether partition `p` of `partitions` is this process's.
    fn owns(&self, p: usize) -> bool {
        p % self.processes() == self.me()
    }

    /// The process that owns partition `p`.
    fn owner(&self, p: usize) -> usize {
        p % self.processes()
    }

    /// The sum of every process's `value`.
    fn sum(&self, value: u64) -> Result<u64, PeerError> {
        Ok(self.all_gather(&[value])?.iter().map(|v| v[0]).sum())
    }

    /// Whether any process's `value` is true.
    fn any(&self, value: bool) -> Result<bool, PeerError> {
        Ok(self.sum(u64::from(value))? > 0)
    }

    /// The smallest of every process's `value`.
    fn min(&self, value: Option<u64>) -> Result<Option<u64>, PeerError> {
        let words = value.map_or(vec![], |v| vec![v]);
        Ok(self.all_gather(&words)?.into_iter().flatten().min())
    }
}

/// One process: every partition is its own.
pub(crate) struct Alone;

impl Peers for Alone {
    fn processes(&self) -> usize {
        1
    }

    fn me(&self) -> usize {
        0
    }

    fn all_gather(&self, words: &[u64]) -> Result<Vec<Vec<u64>>, PeerError> {
        Ok(vec![words.to_vec()])
    }

    fn exchange(&self, _outgoing: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>, PeerError> {
        Ok(vec![Vec::new()])
    }

    #[inline]
    fn owns(&self, _p: usize) -> bool {
        true
    }
}

/// What ends a search before its levels do: its storage or its peers.
#[derive(Debug)]
pub(crate) enum Fault {
    /// A file could not be written or read.
    Storage(SpillError),
    /// A process was lost or stalled.
    Peer(PeerError),
}

impl From<SpillError> for Fault {
    fn from(e: SpillError) -> Fault {
        Fault::Storage(e)
    }
}

impl From<PeerError> for Fault {
    fn from(e: PeerError) -> Fault {
        Fault::Peer(e)
    }
}
