//! The search engine: a level-synchronous parallel breadth-first search over
//! exact `u64` keys. See `README.md` beside this file for the design.

mod dense;
mod dense_disk;
mod dense_saves;
mod error;
mod frontier;
mod in_memory;
mod levels;
pub mod memory;
mod model;
mod on_disk;
mod partition;
mod peers;
pub mod reference;
mod report;
mod search;
mod spill;
mod visited;
mod workers;

pub use error::SearchError;
pub use model::{AdjacentKeys, Model};
pub use partition::MAX_PARTITIONS;
#[cfg(feature = "mpi")]
pub use peers::mpi::{Mpi, MpiError};
pub use peers::{Mismatch, PeerError, launcher_size};
pub use report::{Outcome, Progress, Report, StopReason};
pub use search::{Hardest, Search, Solution};
pub use spill::{Checkpoint, DiskUse, Spill, SpillError};
pub use visited::{BITMAP_MAX_KEYS, MixHasher, VisitedKind, mix64};

/// The level files' block codec, for `benches/codec.rs` (not a stable
/// interface).
#[doc(hidden)]
pub mod codec {
    /// Appends one Rice-coded block of `keys` (sorted, distinct, 1 to
    /// 16384 of them) to `out`.
    pub fn encode_block(keys: &[u64], out: &mut Vec<u8>) {
        super::spill::codec::encode_block(keys, out);
    }

    /// Checks the block at the start of `bytes` and appends its keys to
    /// `out`; the block's length in bytes.
    pub fn decode_block(bytes: &[u8], out: &mut Vec<u64>) -> Result<usize, String> {
        super::spill::codec::decode_block(bytes, out).map_err(|e| e.to_string())
    }
}
