//! Where a search's levels live: each store answers the level loop's
//! [`Store`](crate::engine::levels::Store) questions for this process's
//! share of the search. No store imports another; what two share (routing
//! keys to partitions, merging runs, visited sets) is in [`sets`].

pub(crate) mod dense;
pub(crate) mod disk;
pub(crate) mod memory;
pub(crate) mod sets;
