//! The search engine: a level-synchronous parallel breadth-first search over
//! exact `u64` keys. See `README.md` beside this file for the design.

pub mod cluster;
mod frontier;
pub mod memory;
mod model;
mod partition;
pub mod reference;
mod report;
mod search;
mod spill;
mod visited;

pub use model::Model;
pub use partition::MAX_PARTITIONS;
pub use report::{Outcome, Progress, Report, StopReason};
pub use search::{Hardest, Search, SearchError, Solution};
pub use spill::{Checkpoint, DiskUse, Spill, SpillError};
pub use visited::{BITMAP_MAX_KEYS, MixHasher, VisitedKind, mix64};
