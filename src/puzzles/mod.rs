//! Puzzle models: each implements [`crate::engine::Model`].

pub mod any;
pub mod builtin;
pub mod clocks;
pub mod combinadic;
pub mod large_tiles;
pub mod sawtooth;
pub mod sliding;
pub mod tiles;
pub mod twisty;
