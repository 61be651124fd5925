//! Integration tests, in one binary to keep link times down.

mod cli;
mod cluster;
mod contest;
mod edges;
mod engine;
mod files;
mod peers;
mod replay;
mod resume;
mod sliding;
mod spill;
mod tiles;
mod twisty;
