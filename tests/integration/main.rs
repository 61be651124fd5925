//! Integration tests, in one binary to keep link times down.

mod cli;
mod contest;
mod engine;
mod replay;
mod sliding;
mod spill;
