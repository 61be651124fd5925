//! The one trait a puzzle implements to be enumerated by the engine.

use crate::engine::Key;

/// A puzzle's state graph, as the engine sees it.
///
/// Every state is identified by a *key* ([`Model::Key`]: a `u64`, or a
/// [`Wide`](crate::engine::Wide) key of several words where the puzzle
/// needs more than 64 bits): a perfect, collision-free rank (or exact
/// packing) of the state's canonical form. Two states are the same iff their keys are
/// equal, so the engine never needs the states themselves, only their keys.
/// Keys are below [`Model::key_space`].
///
/// The engine gives each worker thread its own [`Model::State`], made once by
/// [`Model::new_state`] and reused for every key that worker expands: decoding
/// and expanding a state must not allocate.
pub trait Model: Sync {
    /// A decoded state, plus whatever scratch space expanding it needs.
    type State: Send;

    /// The key: `u64` wherever the key space fits 64 bits (every store
    /// serves it), else a [`Wide`](crate::engine::Wide) key of as many
    /// words as the puzzle needs (sorted levels in memory, on one process
    /// or several).
    type Key: Key;

    /// The key of the start state.
    fn start(&self) -> Self::Key;

    /// The number of possible keys: every key is below this. Small key spaces
    /// let the engine use a dense bitmap as its visited set. A model whose
    /// keys are wide says `u64::MAX` (at least that many).
    fn key_space(&self) -> u64;

    /// A fresh working state for one worker.
    fn new_state(&self) -> Self::State;

    /// Decodes `key` into `state`, overwriting it.
    fn decode(&self, key: Self::Key, state: &mut Self::State);

    /// Appends the keys of the decoded state's successors to `out`.
    ///
    /// `state` holds the last key given to [`Model::decode`]; an
    /// implementation may use it as scratch space, but must leave it holding
    /// the same state when it returns. Duplicates in `out` are allowed.
    fn successors(&self, state: &mut Self::State, out: &mut Vec<Self::Key>);

    /// Whether the decoded state is a goal. Models without goals keep the
    /// default, which says no.
    fn is_goal(&self, state: &Self::State) -> bool {
        let _ = state;
        false
    }

    /// Whether the model has a goal at all (so that `solve` can refuse early).
    fn has_goal(&self) -> bool {
        false
    }

    /// Whether every move can be undone by one move, so that a state's
    /// predecessors are exactly its successors. Path reconstruction then looks
    /// up a state's successors in the previous level instead of scanning it.
    fn reversible(&self) -> bool {
        false
    }

    /// Whether every move flips a parity of the state (the state graph is
    /// two-coloured, each move joining the two colours): a sliding-block
    /// puzzle under the step metric, whose moves each change the sum of
    /// the pieces' row and column by one. From a single start every level
    /// then holds one colour and its successors the other, so frontier
    /// search checks a level's candidates against the level before it
    /// only, not against the level itself. A wrong yes gives wrong counts;
    /// models that cannot tell keep the default, no.
    fn bipartite(&self) -> bool {
        false
    }

    /// Whether most keys below [`Model::key_space`] are states the search
    /// reaches (a perfect rank onto the reachable states, as the tile
    /// puzzles have): then a dense visited set of two bits a key, with no
    /// level kept anywhere else, is the smallest there is, and the engine
    /// picks it when it fits in memory. Models with sparse keys keep the
    /// default, no.
    fn dense(&self) -> bool {
        false
    }

    /// How many states a search from the start reaches, when the model
    /// knows without searching (a twisty puzzle whose group's order is
    /// known). The engine then weighs the dense store's two bits a key
    /// against what the other stores would take for that many states, and
    /// takes the dense store where it is the smaller, [`Model::dense`] or
    /// not (`show` and the summary give the estimates that decided).
    /// `None` (the default): not known, and only a dense model takes the
    /// dense store unasked. A wrong number costs memory, never a count.
    fn reachable_states(&self) -> Option<f64> {
        None
    }

    /// Every key below [`Model::key_space`] decodes to a state of the
    /// puzzle (reachable or not), and the moves are reversible: a state's
    /// successors are exactly the states it is a successor of. The dense
    /// store may then settle a wide level by looking at each key not yet
    /// seen and asking whether a successor of it is in the newest level
    /// (a pull), instead of expanding the newest level: far less work once
    /// most keys are seen. A model whose keys may decode to something that
    /// is no position (two pieces on one cell) keeps the default, no; a
    /// wrong yes gives wrong counts.
    fn keys_are_states(&self) -> bool {
        false
    }

    /// The goal's keys, when the goal is a few positions known in advance
    /// (a solved cube, a whole goal board): a store may then look for
    /// them in a level instead of testing every state of it. `None` (the
    /// default): test states with [`Model::is_goal`].
    fn goal_keys(&self) -> Option<Vec<Self::Key>> {
        None
    }

    /// Moves that change a key by exactly one, when they follow a pattern
    /// that repeats every few keys: a tile puzzle's blank moving along its
    /// row (key `rank * cells + blank`). The dense store settles these a
    /// word of keys at a time with a few shifts and masks, and asks
    /// [`Model::far_successors`] for the rest only. Models without such
    /// moves keep the default, none.
    fn adjacent_keys(&self) -> Option<AdjacentKeys> {
        None
    }

    /// The decoded state's successors other than those
    /// [`Model::adjacent_keys`] describes (those may be among them too:
    /// duplicates are allowed, so the default, every successor, is right,
    /// only slower). Same contract as [`Model::successors`] otherwise.
    fn far_successors(&self, state: &mut Self::State, out: &mut Vec<Self::Key>) {
        self.successors(state, out)
    }

    /// Whether a successor of the decoded state is one that `hit` accepts
    /// (only those of [`Model::far_successors`] when `far_only`): what a
    /// pull asks of each key not yet seen (see
    /// [`Model::keys_are_states`]). `hit` may be asked in any order and
    /// need not be asked again once it said yes. The default makes every
    /// successor first, into `scratch`; a model that can make them one at
    /// a time stops at the first `hit` accepts (a twisty puzzle: a key
    /// found in the newest level costs a pull one or two moves, not all).
    fn any_successor(
        &self,
        state: &mut Self::State,
        far_only: bool,
        scratch: &mut Vec<Self::Key>,
        hit: &mut dyn FnMut(Self::Key) -> bool,
    ) -> bool {
        any_of_all_successors(self, state, far_only, scratch, hit)
    }

    /// A description that tells this puzzle (and its metric) apart from
    /// every other one: checkpoints carry its digest and refuse to resume
    /// another puzzle. Models without one (the default, empty) can be
    /// spilled but not checkpointed.
    fn identity(&self) -> String {
        String::new()
    }

    /// Whether a key stands for a class of positions rather than one
    /// position: a model that keeps one representative of each class of
    /// positions that a symmetry of the puzzle maps onto each other (the
    /// least of a cube position's conjugates by the cube's rotations).
    /// The engine then weighs every level by [`Model::positions`], so that
    /// the level sizes it reports are numbers of positions, equal to a
    /// search without the symmetry, and the numbers of keys are the
    /// classes ([`Report::class_levels`](crate::engine::Report)). The
    /// dense store, which keeps no level as keys, does not take such a
    /// model. Models without classes keep the default, no.
    fn classes(&self) -> bool {
        false
    }

    /// How many positions `key` stands for: the size of its class (the
    /// symmetry group's order over the number of symmetries that fix it),
    /// which such a model writes into the key itself, so that weighing a
    /// level is a pass over its keys, with nothing decoded. Asked only when
    /// [`Model::classes`] says yes, of every key of every level; the
    /// default, 1.
    fn positions(&self, key: Self::Key) -> u64 {
        let _ = key;
        1
    }

    /// The keys of the positions `key` stands for, sorted: every position
    /// of its class where [`Model::classes`] says keys stand for classes
    /// (as many as [`Model::positions`] says), else `key` alone, the
    /// default. For printing a level's positions, never asked by a search.
    fn orbit(&self, key: Self::Key) -> Vec<Self::Key> {
        vec![key]
    }

    /// Why this model cannot be searched as it is, if it cannot: a search
    /// refuses it with this reason before it calls anything else (a
    /// twisty puzzle whose keys take several words, used as the one-word
    /// model, says which wider model to search instead). `None` (the
    /// default): it can.
    fn unsearchable(&self) -> Option<String> {
        None
    }
}

/// The positions, sorted by key, that `keys` (a level's keys, sorted;
/// `states` positions in all) stand for: `keys` themselves (not copied), or where
/// `model`'s keys stand for classes ([`Model::classes`]) every position of
/// every class when there are at most `max`, else those of the classes
/// with the least keys, at least `top` of them (each class listed by
/// [`Model::orbit`]).
pub fn positions_of<M: Model>(
    model: &M,
    keys: Vec<M::Key>,
    states: u64,
    top: usize,
    max: u64,
) -> Vec<M::Key> {
    if !model.classes() {
        return keys;
    }
    let mut positions = Vec::new();
    for k in keys {
        if states > max && positions.len() >= top.max(1) {
            break;
        }
        positions.extend(model.orbit(k));
    }
    positions.sort_unstable();
    positions
}

/// What [`Model::any_successor`] does unless a model makes its successors
/// one at a time: every successor (only the far ones when `far_only`)
/// made into `scratch`, then each asked of `hit` until one is accepted.
pub(crate) fn any_of_all_successors<M: Model + ?Sized>(
    model: &M,
    state: &mut M::State,
    far_only: bool,
    scratch: &mut Vec<M::Key>,
    hit: &mut dyn FnMut(M::Key) -> bool,
) -> bool {
    scratch.clear();
    if far_only {
        model.far_successors(state, scratch);
    } else {
        model.successors(state, scratch);
    }
    scratch.iter().any(|&s| hit(s))
}

/// Which keys have the key one above or one below as a successor, as a
/// pattern of period `period`: key `k` has successor `k + 1` exactly when
/// bit `k % period` of `up` is set, and `k - 1` exactly when that bit of
/// `down` is (never for key 0, nor for the last key below the key space).
/// A model that offers one promises that a state's successors are its
/// [`Model::far_successors`] and these, and nothing else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdjacentKeys {
    /// The pattern's length in keys: 1 to 64.
    pub period: u32,
    /// Bit `r`: keys `k` with `k % period == r` have `k + 1` as a successor.
    pub up: u64,
    /// Bit `r`: keys `k` with `k % period == r` have `k - 1` as a successor.
    pub down: u64,
    /// The keys' two colours, when every move (to a neighbouring key or
    /// far) joins a key of one colour to a key of the other: bit `r` set
    /// means keys `k` with `k % period == r` are of colour 1, the others
    /// of colour 0 (a tile puzzle: the colour of the blank's cell on a
    /// chessboard). From sources of one colour every level is then of one
    /// colour, the next of the other, and the dense store tells two levels
    /// apart by colour, which frees a code of its two bits for
    /// [`AdjacentKeys::one_far`]. `None`: not known. A wrong colouring
    /// gives wrong counts.
    pub colours: Option<u64>,
    /// Whether each key has at most one far successor
    /// ([`Model::far_successors`]), and that successor's far successor is
    /// the key itself (a tile puzzle of two rows: the one vertical move,
    /// undone by the vertical move back). With [`AdjacentKeys::colours`],
    /// the dense store then marks a key reached by a far move from the
    /// level before and does not decode it to look its far successor up:
    /// that is where it came from. A wrong yes gives wrong counts.
    pub one_far: bool,
}
