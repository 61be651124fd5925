//! The registry of built-in puzzles.

use super::sliding::SlidingPuzzle;

/// What kind of model a built-in is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A sliding-block puzzle, kept as a puzzle file.
    Sliding(&'static str),
    /// The nine clocks, counted from all at 12.
    Clocks,
}

/// A built-in puzzle.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// Its name on the command line.
    pub name: &'static str,
    /// One line about it, with its published figure.
    pub summary: &'static str,
    /// The model behind it.
    pub kind: Kind,
}

/// Every built-in, in the order `reach list` shows them.
pub const ALL: &[Builtin] = &[
    Builtin {
        name: "pe766",
        summary: "Project Euler 766, 5x6 sliding blocks: 2613742 states",
        kind: Kind::Sliding(include_str!("builtin/pe766.toml")),
    },
    Builtin {
        name: "pe766-example",
        summary: "Project Euler 766's 3x4 example: 208 states",
        kind: Kind::Sliding(include_str!("builtin/pe766-example.toml")),
    },
    Builtin {
        name: "klotski",
        summary: "Klotski (Huarong Dao): 25955 states, solved in 116 steps / 90 slides / 81 moves",
        kind: Kind::Sliding(include_str!("builtin/klotski.toml")),
    },
    Builtin {
        name: "rush-hour",
        summary: "a Rush Hour card: 24132 states, solved in 93 steps / 49 slides",
        kind: Kind::Sliding(include_str!("builtin/rush-hour.toml")),
    },
    Builtin {
        name: "mas",
        summary: "Ma's puzzle, 5x5: 110804 states",
        kind: Kind::Sliding(include_str!("builtin/mas.toml")),
    },
    Builtin {
        name: "eight",
        summary: "the 8-puzzle (3x3 tiles): 181440 states, depth 31",
        kind: Kind::Sliding(include_str!("builtin/eight.toml")),
    },
    Builtin {
        name: "eleven",
        summary: "the 3x4 sliding-tile puzzle: 239500800 states, depth 53 (a benchmark)",
        kind: Kind::Sliding(include_str!("builtin/eleven.toml")),
    },
    Builtin {
        name: "clocks",
        summary: "the nine clocks of IOI'94 from all at 12: 262144 states, depth 27",
        kind: Kind::Clocks,
    },
];

/// The built-in called `name`.
pub fn find(name: &str) -> Option<&'static Builtin> {
    ALL.iter().find(|b| b.name == name)
}

/// The built-in sliding-block puzzle called `name`.
pub fn sliding(name: &str) -> Option<SlidingPuzzle> {
    match find(name)?.kind {
        Kind::Sliding(text) => Some(
            SlidingPuzzle::from_toml(text, name).expect("built-in puzzle files are valid (tested)"),
        ),
        Kind::Clocks => None,
    }
}
