//! A sequential breadth-first search over a plain `HashSet`: slow, obviously
//! correct, and the oracle the parallel engine is tested against.

use std::collections::HashSet;

use crate::engine::Model;

/// The number of states at each BFS distance from the start.
pub fn level_sizes<M: Model>(model: &M) -> Vec<u64> {
    let mut seen = HashSet::new();
    let mut state = model.new_state();
    let mut successors = Vec::new();
    seen.insert(model.start());
    let mut frontier = vec![model.start()];
    let mut levels = Vec::new();
    while !frontier.is_empty() {
        levels.push(frontier.len() as u64);
        let mut next = Vec::new();
        for &key in &frontier {
            model.decode(key, &mut state);
            successors.clear();
            model.successors(&mut state, &mut successors);
            for &s in &successors {
                if seen.insert(s) {
                    next.push(s);
                }
            }
        }
        frontier = next;
    }
    levels
}
