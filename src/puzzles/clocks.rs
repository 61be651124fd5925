//! The Clocks (IOI'94): nine clocks in a 3x3 grid, nine moves that each turn
//! a fixed set of clocks a quarter turn clockwise, and the goal of setting
//! every clock to 12.
//!
//! A state is each clock's quarter turns past 12 (0-3), two bits a clock:
//! the key is `Σ turns_i · 4^i` with clock A at i = 0, a perfect rank of the
//! 4^9 = 262144 states.

use crate::engine::{Model, Search};

/// The clocks each move turns, as indices 0-8 of clocks A-I.
pub const MOVES: [&[usize]; 9] = [
    &[0, 1, 3, 4],    // 1 = ABDE
    &[0, 1, 2],       // 2 = ABC
    &[1, 2, 4, 5],    // 3 = BCEF
    &[0, 3, 6],       // 4 = ADG
    &[1, 3, 4, 5, 7], // 5 = BDEFH
    &[2, 5, 8],       // 6 = CFI
    &[3, 4, 6, 7],    // 7 = DEGH
    &[6, 7, 8],       // 8 = GHI
    &[4, 5, 7, 8],    // 9 = EFHI
];

/// The clocks puzzle from a given start.
#[derive(Clone, Debug)]
pub struct Clocks {
    start: u64,
    /// For each move, the key added to turn its clocks by one, digit by
    /// digit (see [`Clocks::apply`]).
    ones: [u64; 9],
}

/// Quarter turns past 12 of each clock A-I.
pub type Dial = [u8; 9];

/// The key of a dial.
pub fn encode(dial: &Dial) -> u64 {
    dial.iter()
        .rev()
        .fold(0, |k, &t| (k << 2) | u64::from(t & 3))
}

/// The dial of a key.
pub fn decode(key: u64) -> Dial {
    std::array::from_fn(|i| ((key >> (2 * i)) & 3) as u8)
}

impl Clocks {
    /// The puzzle starting from `dial`.
    pub fn new(dial: Dial) -> Clocks {
        let ones = std::array::from_fn(|m| MOVES[m].iter().map(|&c| 1u64 << (2 * c)).sum());
        Clocks {
            start: encode(&dial),
            ones,
        }
    }

    /// Applies move `m` (0-based) to `key`: adds one to each of its clocks'
    /// digits modulo 4, without carries between digits.
    #[inline]
    pub fn apply(&self, key: u64, m: usize) -> u64 {
        let one = self.ones[m];
        // Adding 01 to a digit: the low bit flips; the high bit flips where
        // the low bit was set.
        let carry = (key & one) << 1;
        key ^ one ^ carry
    }

    /// A shortest sequence of moves (numbered 1-9) that sets every clock to
    /// 12, in ascending order: the moves commute, so ascending order gives
    /// the lowest number when the moves are written one after another. The
    /// nine moves are independent modulo 4, so the shortest multiset of moves
    /// is unique.
    pub fn solve(&self) -> Vec<u8> {
        let solution = Search::new(self)
            .threads(1)
            .memory_guard(false)
            .solve()
            .expect("the clocks have a goal");
        let path = solution.path.expect("every dial can reach all-12");
        let mut moves: Vec<u8> = path
            .windows(2)
            .map(|w| {
                (0..9)
                    .find(|&m| self.apply(w[0], m) == w[1])
                    .expect("consecutive keys differ by one move") as u8
                    + 1
            })
            .collect();
        moves.sort_unstable();
        moves
    }
}

impl Model for Clocks {
    type State = u64;
    type Key = u64;

    fn start(&self) -> u64 {
        self.start
    }

    fn key_space(&self) -> u64 {
        1 << 18
    }

    fn new_state(&self) -> u64 {
        0
    }

    fn decode(&self, key: u64, state: &mut u64) {
        *state = key;
    }

    fn successors(&self, state: &mut u64, out: &mut Vec<u64>) {
        out.extend((0..9).map(|m| self.apply(*state, m)));
    }

    fn is_goal(&self, state: &u64) -> bool {
        *state == 0
    }

    fn has_goal(&self) -> bool {
        true
    }

    fn identity(&self) -> String {
        format!("clocks (IOI'94), start key {}", self.start)
    }
}

/// Input that is not nine clock readings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}\n  help: {help}")]
pub struct ClocksInputError {
    /// What is wrong, and where.
    pub message: String,
    /// How to fix it.
    pub help: &'static str,
}

/// Reads nine clock readings separated by whitespace: hours (3, 6, 9, 12)
/// or, with `codes`, IOI'94 codes (0 = 12, 1 = 3, 2 = 6, 3 = 9 o'clock).
pub fn parse_input(text: &str, codes: bool) -> Result<Dial, ClocksInputError> {
    let help = if codes {
        "give nine codes 0-3 (0 = 12, 1 = 3, 2 = 6, 3 = 9 o'clock), e.g. 3 3 0 / 2 2 2 / 2 1 2"
    } else {
        "give nine readings of 3, 6, 9 or 12, e.g. 9 9 12 / 6 6 6 / 6 3 6 (codes 0-3 are read with `codes`)"
    };
    let mut dial = [0u8; 9];
    let mut n = 0;
    for (line_no, line) in text.lines().enumerate() {
        for word in line.split_whitespace() {
            let fail = |what: String| ClocksInputError {
                message: format!("line {}: {what}", line_no + 1),
                help,
            };
            if n == 9 {
                return Err(fail(format!(
                    "{word:?} is a tenth value; the input is nine clocks"
                )));
            }
            let turns = match (codes, word) {
                (true, "0") | (false, "12") => 0,
                (true, "1") | (false, "3") => 1,
                (true, "2") | (false, "6") => 2,
                (true, "3") | (false, "9") => 3,
                _ => {
                    return Err(fail(format!(
                        "{word:?} (clock {}) is not a clock reading",
                        (b'A' + n as u8) as char
                    )));
                }
            };
            dial[n] = turns;
            n += 1;
        }
    }
    if n < 9 {
        return Err(ClocksInputError {
            message: format!("found {n} clock readings; the input is nine clocks"),
            help,
        });
    }
    Ok(dial)
}

/// The nine clocks of `key` as hours, three to a line.
pub fn board(key: u64) -> String {
    let hours = decode(key).map(|t| if t == 0 { 12 } else { 3 * t });
    hours
        .chunks(3)
        .map(|r| format!("{} {} {}\n", r[0], r[1], r[2]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_turns_each_clock_of_the_move_once() {
        let clocks = Clocks::new([0; 9]);
        for (m, turned) in MOVES.iter().enumerate() {
            let dial = decode(clocks.apply(0, m));
            for (c, &turns) in dial.iter().enumerate() {
                assert_eq!(
                    turns,
                    u8::from(turned.contains(&c)),
                    "move {} clock {c}",
                    m + 1
                );
            }
            // Four turns bring every clock back.
            let mut k = encode(&[3, 2, 1, 0, 3, 2, 1, 0, 3]);
            let k0 = k;
            for _ in 0..4 {
                k = clocks.apply(k, m);
            }
            assert_eq!(k, k0);
        }
    }

    #[test]
    fn encode_decode_round_trip() {
        for key in (0..1u64 << 18).step_by(97) {
            assert_eq!(encode(&decode(key)), key);
        }
    }
}
