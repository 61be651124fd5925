//! What the memory and disk stores share: partitions and their routing,
//! the merge that settles a level, and the visited sets.

pub(crate) mod frontier;
pub(crate) mod partition;
pub(crate) mod visited;
