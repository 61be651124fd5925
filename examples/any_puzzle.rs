//! Any puzzle reach knows, by name or file, searched by code of your own:
//! a [`Visit`] is handed the puzzle as the model its keys need (one word,
//! or several for the 3x3x3 and the 24-puzzle), and here prints the level
//! profile and the farthest positions.
//!
//! `cargo run --release --example any_puzzle -- klotski`
//! `cargo run --release --example any_puzzle -- tests/data/cube2.tws`

use reach::engine::{Model, Search};
use reach::puzzles::any::{Puzzle, Shape, View, Visit};

/// Counts a puzzle and draws its farthest positions.
struct Profile {
    threads: usize,
}

impl Visit for Profile {
    type Output = Result<(), reach::engine::SearchError>;

    fn visit<M: Model>(self, model: &M, view: &dyn View<M::Key>) -> Self::Output {
        let report = Search::new(model).threads(self.threads).count()?;
        println!(
            "{}: {} states, depth {}",
            view.name(),
            report.states(),
            report.depth()
        );
        for (depth, n) in report.levels.iter().enumerate() {
            println!("{depth:>4} {n}");
        }
        for &key in report.last_level.iter().take(2) {
            println!("farthest:\n{}", view.board(key));
        }
        Ok(())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let name = std::env::args().nth(1).unwrap_or_else(|| "klotski".into());
    let puzzle = Puzzle::load(&name)?;
    let prepared = puzzle.loaded.prepare(&Shape::default())?;
    prepared.visit(Profile { threads: 2 })?;
    Ok(())
}
