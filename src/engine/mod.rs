//! The search engine: a level-synchronous parallel breadth-first search over
//! exact keys (`u64`, or [`Wide`] where a puzzle needs more bits). See `README.md` beside this file for the design.
//!
//! - [`levels`]: the level loop, its limits and workers, and the one place
//!   that talks to other processes;
//! - [`stores`]: where the levels live (in memory, on disk, two bits a key);
//! - [`files`]: the run files, their codec and the checkpoint's manifest;
//! - [`peers`]: the processes of a search (one alone, or MPI ranks).

pub mod census;
mod error;
mod files;
mod key;
mod levels;
mod model;
mod peers;
pub mod reference;
mod report;
mod search;
mod stores;

pub use census::{Census, Components, Distances, EveryPosition, HardStart};
pub use error::SearchError;
pub use files::{Checkpoint, DiskUse, Spill, SpillError};
pub use key::{Key, Wide};
pub use levels::memory;
pub(crate) use model::any_of_all_successors;
pub use model::{AdjacentKeys, Model, positions_of};
#[cfg(feature = "mpi")]
pub use peers::mpi::{Mpi, MpiError};
pub use peers::{Mismatch, PeerError, launcher_size};
pub use report::{Outcome, Progress, Report, StopReason};
pub use search::{Hardest, Search, Solution};
pub use stores::sets::partition::MAX_PARTITIONS;
pub use stores::sets::visited::{BITMAP_MAX_KEYS, MixHasher, VisitedKind, mix64};

/// The level files' block codec, for `benches/codec.rs` (not a stable
/// interface).
#[doc(hidden)]
pub mod codec {
    /// Appends one Rice-coded block of `keys` (sorted, distinct, 1 to
    /// 16384 of them) to `out`.
    pub fn encode_block(keys: &[u64], out: &mut Vec<u8>) {
        super::files::codec::encode_block(keys, out);
    }

    /// Checks the block at the start of `bytes` and appends its keys to
    /// `out`; the block's length in bytes.
    pub fn decode_block(bytes: &[u8], out: &mut Vec<u64>) -> Result<usize, String> {
        super::files::codec::decode_block(bytes, out).map_err(|e| e.to_string())
    }
}
