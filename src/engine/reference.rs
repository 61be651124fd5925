//! A sequential breadth-first search over a plain `HashSet`: slow, obviously
//! correct, and the oracle the parallel engine is tested against.

use std::collections::HashSet;

use crate::engine::stores::sets::visited::mix64;
use crate::engine::{Model, Wide};

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

/// A model's states under keys of `N` words (`N` at least 2), for tests of
/// the wide-key paths on puzzles small enough for the oracle: key `k` is
/// written `[mix64(k), 0, ..., 0, k]` (most significant word first), a
/// bijection, so every key stays exact, and both the first word and the
/// last decide its order and its partition.
#[doc(hidden)]
pub struct Widened<'m, M, const N: usize>(pub &'m M);

impl<M: Model<Key = u64>, const N: usize> Widened<'_, M, N> {
    /// The wide key of narrow key `k`.
    pub fn widen(k: u64) -> Wide<N> {
        assert!(N >= 2, "a widened key has at least two words");
        let mut words = [0; N];
        words[0] = mix64(k);
        words[N - 1] = k;
        Wide(words)
    }

    /// The narrow key of wide key `w`.
    pub fn narrow(w: Wide<N>) -> u64 {
        w.0[N - 1]
    }
}

impl<M: Model<Key = u64>, const N: usize> Model for Widened<'_, M, N> {
    type State = (M::State, Vec<u64>);
    type Key = Wide<N>;

    fn start(&self) -> Wide<N> {
        Self::widen(self.0.start())
    }

    fn key_space(&self) -> u64 {
        u64::MAX
    }

    fn new_state(&self) -> Self::State {
        (self.0.new_state(), Vec::new())
    }

    fn decode(&self, key: Wide<N>, state: &mut Self::State) {
        self.0.decode(Self::narrow(key), &mut state.0);
    }

    fn successors(&self, state: &mut Self::State, out: &mut Vec<Wide<N>>) {
        state.1.clear();
        self.0.successors(&mut state.0, &mut state.1);
        out.extend(state.1.iter().map(|&k| Self::widen(k)));
    }

    fn is_goal(&self, state: &Self::State) -> bool {
        self.0.is_goal(&state.0)
    }

    fn has_goal(&self) -> bool {
        self.0.has_goal()
    }

    fn reversible(&self) -> bool {
        self.0.reversible()
    }

    fn bipartite(&self) -> bool {
        self.0.bipartite()
    }

    fn classes(&self) -> bool {
        self.0.classes()
    }

    fn positions(&self, key: Wide<N>) -> u64 {
        self.0.positions(Self::narrow(key))
    }

    fn goal_keys(&self) -> Option<Vec<Wide<N>>> {
        self.0
            .goal_keys()
            .map(|keys| keys.into_iter().map(Self::widen).collect())
    }

    fn identity(&self) -> String {
        format!("widened to {N} words: {}", self.0.identity())
    }
}
