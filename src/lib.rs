//! `reach` enumerates puzzle state spaces exactly: how many states are
//! reachable from a start (and how many at each BFS distance), a shortest way
//! to a goal, and how far the farthest states are.
//!
//! The [`engine`] is a level-synchronous parallel breadth-first search over
//! `u64` keys, each a perfect rank of a state's canonical form; the
//! [`puzzles`] are models of it. A new puzzle is one type implementing
//! [`engine::Model`]:
//!
//! ```
//! use reach::engine::{Model, Search};
//!
//! /// A counter modulo 1000 with moves +1 and +7.
//! struct Counter;
//!
//! impl Model for Counter {
//!     type State = u64;
//!     type Key = u64;
//!     fn start(&self) -> u64 { 0 }
//!     fn key_space(&self) -> u64 { 1000 }
//!     fn new_state(&self) -> u64 { 0 }
//!     fn decode(&self, key: u64, state: &mut u64) { *state = key; }
//!     fn successors(&self, state: &mut u64, out: &mut Vec<u64>) {
//!         out.push((*state + 1) % 1000);
//!         out.push((*state + 7) % 1000);
//!     }
//! }
//!
//! let report = Search::new(&Counter).threads(2).count().unwrap();
//! assert_eq!(report.states(), 1000);
//! assert_eq!(report.levels[..3], [1, 2, 3]);
//! ```

pub mod engine;
pub mod puzzles;
