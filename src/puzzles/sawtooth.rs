//! The Sawtooth Puzzle (ZOJ 3814): nine cells in a 3x3 grid, each with an
//! 8x8 image and four edges, smooth or saw-toothed. Turning a cell turns
//! every cell meshed with it, in alternating directions along chains of
//! meshed cells. The goal is a target image.
//!
//! A state is each cell's quarter turns clockwise from the start (0-3), two
//! bits a cell: the key is `Σ turns_i · 4^i`, cells in reading order.

use crate::engine::{Model, Outcome, Search};

/// Sides in clockwise order, as the input gives them.
const LEFT: usize = 0;
const TOP: usize = 1;
const RIGHT: usize = 2;
const BOTTOM: usize = 3;

/// One case of the puzzle: images and edges of the nine cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// Each cell's start image, bit `8 * row + col` set for black.
    pub start: [u64; 9],
    /// Each cell's target image.
    pub target: [u64; 9],
    /// Each cell's edges in the order LEFT, TOP, RIGHT, BOTTOM: saw-toothed?
    pub edges: [[bool; 4]; 9],
}

/// Rotates an 8x8 image a quarter turn clockwise.
pub fn rotate(image: u64) -> u64 {
    let mut out = 0;
    for r in 0..8 {
        for c in 0..8 {
            // The new row r, column c shows the old row 7 - c, column r.
            if image >> (8 * (7 - c) + r) & 1 != 0 {
                out |= 1 << (8 * r + c);
            }
        }
    }
    out
}

/// The cell pairs that touch: (cell, its side, neighbour, the neighbour's side).
const PAIRS: [(usize, usize, usize, usize); 12] = {
    let mut p = [(0, 0, 0, 0); 12];
    let mut n = 0;
    let mut i = 0;
    while i < 9 {
        if i % 3 < 2 {
            p[n] = (i, RIGHT, i + 1, LEFT);
            n += 1;
        }
        if i < 6 {
            p[n] = (i, BOTTOM, i + 3, TOP);
            n += 1;
        }
        i += 1;
    }
    p
};

/// The puzzle of one case, as a model.
#[derive(Clone, Debug)]
pub struct Sawtooth {
    /// For each touching pair, bit `4 * turns_a + turns_b` set when the
    /// pair is meshed in those orientations.
    meshed: [u16; 12],
    /// Each cell's orientations that show its target image.
    goal: [u8; 9],
}

/// Even cells of the grid's checkerboard: a driven cell turns the other
/// way from its driver, and the grid is bipartite, so a cell's direction is
/// fixed by its colour.
const EVEN: u64 = 0b101_010_101;

/// Each 9-bit cell set spread to the low bits of 2-bit digits.
static DIGITS: [u64; 512] = {
    let mut t = [0u64; 512];
    let mut cells = 0;
    while cells < 512 {
        let mut i = 0;
        while i < 9 {
            t[cells] |= ((cells as u64 >> i) & 1) << (2 * i);
            i += 1;
        }
        cells += 1;
    }
    t
};

fn digits(cells: u64) -> u64 {
    DIGITS[(cells & 0x1ff) as usize]
}

impl Sawtooth {
    /// The model of `case`.
    pub fn new(case: &Case) -> Sawtooth {
        let side = |cell: usize, s: usize, turns: usize| case.edges[cell][(s + 4 - turns) % 4];
        let meshed = PAIRS.map(|(a, sa, b, sb)| {
            let mut bits = 0u16;
            for ta in 0..4 {
                for tb in 0..4 {
                    if side(a, sa, ta) && side(b, sb, tb) {
                        bits |= 1 << (4 * ta + tb);
                    }
                }
            }
            bits
        });
        let goal = std::array::from_fn(|i| {
            let mut image = case.start[i];
            let mut ok = 0u8;
            for t in 0..4 {
                if image == case.target[i] {
                    ok |= 1 << t;
                }
                image = rotate(image);
            }
            ok
        });
        Sawtooth { meshed, goal }
    }

    /// Whether every cell can show its target in some orientation (if not,
    /// no sequence of steps reaches the target).
    pub fn target_possible(&self) -> bool {
        self.goal.iter().all(|&g| g != 0)
    }

    /// The fewest steps to the target, or `None` when it cannot be reached.
    pub fn min_steps(&self) -> Option<u32> {
        if !self.target_possible() {
            return None;
        }
        let report = Search::new(self)
            .threads(1)
            .memory_guard(false)
            .find_goal()
            .expect("the sawtooth puzzle has a goal");
        match report.outcome {
            Outcome::Goal { depth, .. } => Some(depth),
            _ => None,
        }
    }

    /// The key after turning `cell` clockwise in the state `key`.
    pub fn turn(&self, key: u64, cell: usize) -> u64 {
        let adjacent = self.adjacency(key);
        self.turn_component(key, component(&adjacent, cell), cell)
    }

    /// Each cell's meshed neighbours in state `key`, as 9-bit sets.
    fn adjacency(&self, key: u64) -> [u16; 9] {
        let mut adjacent = [0u16; 9];
        for (p, &(a, _, b, _)) in PAIRS.iter().enumerate() {
            let (ta, tb) = ((key >> (2 * a)) & 3, (key >> (2 * b)) & 3);
            if self.meshed[p] >> (4 * ta + tb) & 1 != 0 {
                adjacent[a] |= 1 << b;
                adjacent[b] |= 1 << a;
            }
        }
        adjacent
    }

    /// Turns the cells of `comp` when `driver` (one of them) turns clockwise.
    fn turn_component(&self, key: u64, comp: u16, driver: usize) -> u64 {
        let comp = u64::from(comp);
        let same = if EVEN >> driver & 1 != 0 {
            EVEN
        } else {
            !EVEN & 0x1ff
        };
        let cw = digits(comp & same);
        let ccw = digits(comp & !same);
        // +1 on a digit: the low bit flips, the high bit flips where the low
        // bit was 1. -1: the low bit flips, the high bit flips where it was 0.
        let key = key ^ cw ^ ((key & cw) << 1);
        key ^ ccw ^ ((!key & ccw) << 1)
    }
}

/// The cells connected to `cell` through meshed pairs.
fn component(adjacent: &[u16; 9], cell: usize) -> u16 {
    let mut comp = 1u16 << cell;
    let mut todo = comp;
    while todo != 0 {
        let i = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        let new = adjacent[i] & !comp;
        comp |= new;
        todo |= new;
    }
    comp
}

impl Model for Sawtooth {
    type State = u64;
    type Key = u64;

    fn start(&self) -> u64 {
        0
    }

    fn identity(&self) -> String {
        format!(
            "sawtooth (ZOJ 3814), meshed {:?}, goal {:?}",
            self.meshed, self.goal
        )
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
        let key = *state;
        let adjacent = self.adjacency(key);
        // Turning any cell of a component clockwise turns the component one
        // of two ways, fixed by the driver's colour: emit each way once.
        let (mut done_even, mut done_odd) = (0u16, 0u16);
        for cell in 0..9 {
            let done = if EVEN >> cell & 1 != 0 {
                &mut done_even
            } else {
                &mut done_odd
            };
            if *done >> cell & 1 != 0 {
                continue;
            }
            let comp = component(&adjacent, cell);
            *done |= comp;
            out.push(self.turn_component(key, comp, cell));
        }
    }

    fn is_goal(&self, state: &u64) -> bool {
        (0..9).all(|i| self.goal[i] >> ((*state >> (2 * i)) & 3) & 1 != 0)
    }

    fn has_goal(&self) -> bool {
        true
    }
}

/// Input that does not follow the ZOJ 3814 format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {}{message}\n  help: {help}", if *case > 0 { format!("case {case}: ") } else { String::new() })]
pub struct SawtoothInputError {
    /// 1-based line of the input.
    pub line: usize,
    /// 1-based case number (0 before the first case).
    pub case: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: &'static str,
}

/// Reads the ZOJ 3814 input: T, then T cases of a start image, a target
/// image and nine lines of four edge types. Pixels and integers are read as
/// tokens, so blank separator rows and columns, trailing spaces and CRLF line
/// ends are all accepted.
pub fn parse_input(text: &str) -> Result<Vec<Case>, SawtoothInputError> {
    let mut reader = Reader {
        chars: text.chars().peekable(),
        line: 1,
        case: 0,
    };
    let t = reader.integer("the number of cases T")?;
    if t == 0 {
        return Err(reader.error(
            "T is 0: there are no cases".into(),
            "the first line is the number of cases that follow, at least 1",
        ));
    }
    let mut cases = Vec::new();
    for case in 1..=t {
        reader.case = case as usize;
        if reader.at_end() {
            return Err(reader.error(
                format!("the input ends after {} case(s) but T says {t}", case - 1),
                "give as many cases as the first line says",
            ));
        }
        let start = reader.image("start image")?;
        let target = reader.image("target image")?;
        let mut edges = [[false; 4]; 9];
        for cell in &mut edges {
            for side in cell.iter_mut() {
                *side = match reader.integer("an edge type")? {
                    0 => false,
                    1 => true,
                    n => {
                        return Err(reader.error(
                            format!("edge type {n} is neither 0 (smooth) nor 1 (saw-toothed)"),
                            "give nine lines of four 0s and 1s: LEFT TOP RIGHT BOTTOM",
                        ));
                    }
                };
            }
        }
        cases.push(Case {
            start,
            target,
            edges,
        });
    }
    if !reader.at_end() {
        return Err(reader.error(
            format!("more input follows the {t} case(s) that T announces"),
            "make T the number of cases, or remove what follows the last case",
        ));
    }
    Ok(cases)
}

struct Reader<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    case: usize,
}

impl Reader<'_> {
    fn error(&self, message: String, help: &'static str) -> SawtoothInputError {
        SawtoothInputError {
            line: self.line,
            case: self.case,
            message,
            help,
        }
    }

    fn skip_space(&mut self) {
        while let Some(&c) = self.chars.peek() {
            if !c.is_whitespace() {
                break;
            }
            if c == '\n' {
                self.line += 1;
            }
            self.chars.next();
        }
    }

    fn at_end(&mut self) -> bool {
        self.skip_space();
        self.chars.peek().is_none()
    }

    fn integer(&mut self, what: &str) -> Result<u64, SawtoothInputError> {
        self.skip_space();
        let mut word = String::new();
        while let Some(&c) = self.chars.peek() {
            if c.is_whitespace() || word.len() > 20 {
                break;
            }
            word.push(c);
            self.chars.next();
        }
        if word.is_empty() {
            return Err(self.error(
                format!("the input ends where {what} should be"),
                "the input is cut short",
            ));
        }
        if let Some(digits) = word.strip_prefix('-')
            && !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(self.error(
                format!("{word} is negative (expected {what})"),
                "T and the edge types are non-negative: T at least 1, edges 0 or 1",
            ));
        }
        word.parse().map_err(|_| {
            self.error(
                format!("{word:?} is not a number (expected {what})"),
                "check the case's layout: T, two images of 26 lines, nine lines of edge types",
            )
        })
    }

    fn image(&mut self, what: &str) -> Result<[u64; 9], SawtoothInputError> {
        let mut cells = [0u64; 9];
        for n in 0..24 * 24 {
            self.skip_space();
            let (r, c) = (n / 24, n % 24);
            match self.chars.next() {
                Some('#') => cells[(r / 8) * 3 + c / 8] |= 1 << (8 * (r % 8) + c % 8),
                Some('.') => {}
                Some(ch) => {
                    return Err(self.error(
                        format!("{ch:?} in the {what} (pixel {} of row {}) is not a pixel", c + 1, r + 1),
                        "pixels are '#' (black) and '.' (white); each image is 24 rows of 24 pixels",
                    ));
                }
                None => {
                    return Err(self.error(
                        format!(
                            "the {what} is short: the input ends in its pixel row {}",
                            r + 1
                        ),
                        "each image is 24 rows of 24 pixels, in 3x3 cells of 8x8",
                    ));
                }
            }
        }
        Ok(cells)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_rotations_are_the_identity() {
        let image = 0x0123_4567_89ab_cdef;
        assert_ne!(rotate(image), image);
        assert_eq!(rotate(rotate(rotate(rotate(image)))), image);
        // The top-left pixel goes to the top-right corner.
        assert_eq!(rotate(1), 1 << 7);
    }

    #[test]
    fn pairs_cover_the_grid() {
        assert_eq!(PAIRS.len(), 12);
        assert!(PAIRS.contains(&(4, RIGHT, 5, LEFT)));
        assert!(PAIRS.contains(&(4, BOTTOM, 7, TOP)));
    }
}
