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
//! to talk to: its collectives return at once; the ranks of an MPI job
//! ([`Mpi`](mpi::Mpi), feature `mpi`) talk through MPI.

mod alone;
#[cfg(feature = "mpi")]
pub mod mpi;
#[cfg(test)]
pub(crate) mod threads;

pub(crate) use alone::Alone;

/// How many processes the job's launcher says it started, and the variable
/// that says so (`mpiexec`'s PMI, Open MPI's, Slurm's `srun`), when one
/// does: a search started by a launcher but alone in its MPI job was built
/// against another MPI than the launcher's (or without MPI), and would do
/// the whole search once per process.
pub fn launcher_size() -> Option<(usize, &'static str)> {
    ["PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS"]
        .into_iter()
        .find_map(|var| {
            let n = std::env::var(var).ok()?.trim().parse::<usize>().ok()?;
            Some((n, var))
        })
}

/// Why a collective call failed: a process sent what the search cannot
/// have sent (a transfer of another length than announced, a key it does
/// not own). A process that dies or stops does not come back as an error:
/// the launcher ends the job, or the watchdog (see `mpi.rs`) aborts it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PeerError {
    /// A process broke the protocol.
    #[error("process {process} of the cluster: {what}")]
    Lost {
        /// Its rank.
        process: usize,
        /// What happened.
        what: String,
    },
}

/// Two processes were given different searches (another puzzle, file
/// contents, metric or options): found before the first level.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "process {process} of the cluster runs another search than process 0: {what}\n  help: give every process the same puzzle (file contents included) and options"
)]
pub struct Mismatch {
    /// The first process that differs from process 0.
    pub process: usize,
    /// What differs.
    pub what: String,
}

impl PeerError {
    /// The process at fault.
    pub fn process(&self) -> usize {
        match self {
            PeerError::Lost { process, .. } => *process,
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

    /// As [`Peers::exchange`], from `outgoing`'s slices into `incoming`
    /// (by process, empty at this one's), whose buffers a caller that
    /// exchanges many times keeps: a round's buffers then cost no fresh
    /// memory (which the kernel would fault in page by page).
    fn exchange_into(
        &self,
        outgoing: &[&[u64]],
        incoming: &mut Vec<Vec<u64>>,
    ) -> Result<(), PeerError> {
        *incoming = self.exchange(outgoing.iter().map(|o| o.to_vec()).collect())?;
        Ok(())
    }

    /// The sum of every process's `value`.
    fn sum(&self, value: u64) -> Result<u64, PeerError> {
        Ok(self.all_gather(&[value])?.iter().map(|v| v[0]).sum())
    }

    /// Whether any process's `value` is true.
    fn any(&self, value: bool) -> Result<bool, PeerError> {
        Ok(self.sum(u64::from(value))? > 0)
    }
}
