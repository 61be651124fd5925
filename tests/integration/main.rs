//! Integration tests, in one binary to keep link times down.

mod cli;
mod contest;
mod engine;
mod replay;
mod resume;
mod sliding;
mod spill;
