//! A model of your own, counted and solved: a lock of three dials, each
//! 0-9, where a move turns one dial up or down by one, or turns the first
//! two together. How many combinations are reachable from 000 (all of
//! them), how far is the farthest, and what is a shortest way to 379?
//!
//! `cargo run --release --example own_model`

use reach::engine::{Model, Search};

/// The lock: a state is its three dials.
struct Lock {
    goal: [u8; 3],
}

fn key(d: [u8; 3]) -> u64 {
    u64::from(d[0]) * 100 + u64::from(d[1]) * 10 + u64::from(d[2])
}

impl Model for Lock {
    type State = [u8; 3];
    type Key = u64;

    fn start(&self) -> u64 {
        0
    }
    fn key_space(&self) -> u64 {
        1000
    }
    fn new_state(&self) -> [u8; 3] {
        [0; 3]
    }
    fn decode(&self, key: u64, state: &mut [u8; 3]) {
        *state = [(key / 100) as u8, (key / 10 % 10) as u8, (key % 10) as u8];
    }
    fn successors(&self, state: &mut [u8; 3], out: &mut Vec<u64>) {
        for turn in [1, 9] {
            for dial in 0..3 {
                let mut d = *state;
                d[dial] = (d[dial] + turn) % 10;
                out.push(key(d));
            }
            let mut d = *state;
            d[0] = (d[0] + turn) % 10;
            d[1] = (d[1] + turn) % 10;
            out.push(key(d));
        }
    }
    fn is_goal(&self, state: &[u8; 3]) -> bool {
        *state == self.goal
    }
    fn has_goal(&self) -> bool {
        true
    }
    fn reversible(&self) -> bool {
        true
    }
}

fn main() -> Result<(), reach::engine::SearchError> {
    let lock = Lock { goal: [3, 7, 9] };
    let report = Search::new(&lock).threads(2).count()?;
    println!(
        "{} combinations, the farthest {} turns away; levels {:?}",
        report.states(),
        report.depth(),
        report.levels
    );
    let solution = Search::new(&lock).threads(2).solve()?;
    let path = solution.path.expect("every combination is reachable");
    let dials: Vec<String> = path.iter().map(|k| format!("{k:03}")).collect();
    println!("{} turns: {}", path.len() - 1, dials.join(" -> "));
    assert_eq!(report.states(), 1000);
    Ok(())
}
