//! KSolve's `.tws` text format, as twsearch reads it:
//!
//! ```text
//! Name 2x2x2
//! Set CORNERS 8 3          # a set: name, pieces, orientations
//! Solved                   # (or StartState)
//! CORNERS
//! 1 2 3 4 5 6 7 8          # the piece at each position (1-based;
//! 0 0 0 0 0 0 0 0          #   repeats are identical pieces), orientations
//! End
//! Move U
//! CORNERS
//! 4 1 2 3 5 6 7 8          # new[i] = old[perm[i]]
//! 0 0 0 0 0 0 0 0          # (optional) twists, ksolve's way: new.ori[i] = old.ori[perm[i]] + ori[perm[i]]
//! End
//! ```
//!
//! A `Move`'s twists are written piece by piece, as ksolve and twsearch
//! read them (twsearch's docs/architecture.md: "for moves, ksolve maps
//! cubie numbers to orientations"); `MoveTransformation` is twsearch's
//! newer form, zero-based, whose twist at `i` is the one position `i`
//! receives. `StartState` is `Solved` with pieces from 0.
//!
//! Sets a block does not name are unchanged (a move) or solved (a
//! pattern). A `ScrambleState` block gives a start other than solved.
//!
//! The rest of twsearch's grammar, with twsearch's meaning
//! (`src/cpp/readksolve.cpp` on its `forked-cpp-main` branch):
//!
//! - `?` as an orientation in a state block: the piece's orientation does
//!   not matter, wherever it goes ([`WILD`]); identical pieces are all
//!   wildcards or none, and a `ScrambleState` has them where `Solved` does.
//! - `Illegal SET POS PIECE...`: a position with one of those pieces at
//!   `POS` is never entered (bandaged puzzles: Square-1, Nautilus).
//! - `MoveSequence NAME m1 m2 ...`: a move that is the product of others
//!   (moves, rotations, sequences; each with a power and `'`);
//!   `MoveAlias NAME m`: another name for `m`, no move of its own.
//! - A `Move` whose name is a rotation's (capitals or `_` then `v`, as
//!   `Fv`; or `x`, `y`, `z`) turns the whole puzzle: it is no move of the
//!   search, only a step of sequences and scrambles. So is a
//!   `MoveSequence` or `MoveAlias` with such a name, as twsearch reads it.

use super::def::{Definition, Format, MoveDef, Pattern, Set, Transform, WILD};
use crate::puzzles::sliding::PuzzleError;

/// A word of the file and its 1-based line and column.
#[derive(Clone, Copy)]
struct Word<'a> {
    text: &'a str,
    line: usize,
    col: usize,
}

/// One set of a block: its index, its name's word, its numbers and its
/// orientations.
type Entry<'a> = (usize, Word<'a>, Vec<u32>, Option<Vec<u32>>);

struct Reader<'a> {
    origin: &'a str,
    /// The non-empty lines, comments removed.
    lines: Vec<Vec<Word<'a>>>,
    at: usize,
}

/// ksolve keywords that twsearch does not read either (reach says so).
const UNSUPPORTED: &[&str] = &[
    "Block",
    "ForbiddenPairs",
    "ForbiddenGroups",
    "Ignore",
    "IgnoreOri",
    "MovePruneAlias",
];

/// A number that stands for twsearch's `?` orientation wildcard while a
/// block is read.
const WILDCARD: u32 = u32::MAX;

impl<'a> Reader<'a> {
    fn error(&self, at: Option<Word<'_>>, message: String, help: &str) -> PuzzleError {
        PuzzleError {
            origin: self.origin.to_string(),
            location: at.map(|w| (w.line, w.col)),
            message,
            help: help.to_string(),
        }
    }

    fn next(&mut self) -> Option<Vec<Word<'a>>> {
        let line = self.lines.get(self.at)?.clone();
        self.at += 1;
        Some(line)
    }

    fn peek(&self) -> Option<&[Word<'a>]> {
        self.lines.get(self.at).map(Vec::as_slice)
    }

    /// A line of `size` numbers below `bound` (from `low`); with `wild`,
    /// `?` too, as [`WILDCARD`].
    fn numbers(
        &self,
        line: &[Word<'_>],
        set: &Set,
        what: &str,
        low: u32,
        bound: u32,
        wild: bool,
    ) -> Result<Vec<u32>, PuzzleError> {
        if line.len() != set.size {
            return Err(self.error(
                Some(line[0]),
                format!(
                    "set {} has {} positions, but this {what} line has {} number{}",
                    set.name,
                    set.size,
                    line.len(),
                    if line.len() == 1 { "" } else { "s" }
                ),
                "give one number for each position of the set",
            ));
        }
        line.iter()
            .map(|w| match w.text.parse::<u32>() {
                Ok(v) if (low..low + bound).contains(&v) => Ok(v),
                Ok(v) => Err(self.error(
                    Some(*w),
                    format!(
                        "{what} {v} is out of range: set {} takes {} to {}",
                        set.name,
                        low,
                        low + bound - 1
                    ),
                    &if what == "orientation" {
                        "orientations count from 0 to the set's orientations minus one".to_string()
                    } else if low == 0 {
                        "pieces and positions count from 0 in this block (StartState and MoveTransformation are zero-based, as in twsearch)".to_string()
                    } else {
                        "pieces and positions count from 1 to the set's size".to_string()
                    },
                )),
                Err(_) if w.text == "?" && what == "orientation" && wild => Ok(WILDCARD),
                Err(_) if w.text == "?" && what == "orientation" => Err(self.error(
                    Some(*w),
                    "\"?\" in a move: twsearch's wildcard marks a piece of a state whose orientation does not matter, and a move's twists are numbers".into(),
                    "give the move's twist as a number; put ? in the Solved (or StartState) block's orientations",
                )),
                Err(_) if w.text == "?" => Err(self.error(
                    Some(*w),
                    format!("\"?\" is not a {what} of set {}: twsearch's wildcard stands for an orientation only", set.name),
                    "pieces and positions count from 1 to the set's size",
                )),
                Err(_) if w.text.parse::<i64>().is_ok() => Err(self.error(
                    Some(*w),
                    format!("{what} {} of set {} is negative", w.text, set.name),
                    if what == "orientation" {
                        "orientations count from 0 to the set's orientations minus one: write a twist of -k as orientations - k"
                    } else {
                        "pieces and positions count from 1 to the set's size"
                    },
                )),
                Err(_) => Err(self.error(
                    Some(*w),
                    format!("{:?} is not a number ({what} of set {})", w.text, set.name),
                    "a set's lines are numbers separated by spaces",
                )),
            })
            .collect()
    }

    /// Refuses a state's set whose identical pieces are not all wildcards
    /// or all numbers (twsearch's rule: whether a piece's orientation
    /// matters is the piece's).
    fn wildcards_agree(
        &self,
        line: &[Word<'_>],
        set: &Set,
        pieces: &[u32],
        ori: &[u32],
    ) -> Result<(), PuzzleError> {
        for j in 0..pieces.len() {
            for k in j + 1..pieces.len() {
                if pieces[j] == pieces[k] && (ori[j] == WILDCARD) != (ori[k] == WILDCARD) {
                    let at = if ori[k] == WILDCARD { k } else { j };
                    return Err(self.error(
                        Some(line[at]),
                        format!(
                            "set {}: the identical pieces at positions {} and {} (piece {}) are one a ? wildcard and one not",
                            set.name,
                            j + 1,
                            k + 1,
                            pieces[j]
                        ),
                        "whether a piece's orientation matters is the piece's: give identical pieces ? together, or numbers together",
                    ));
                }
            }
        }
        Ok(())
    }

    /// A block's body up to `End`: each set's numbers and optional
    /// orientations. `header` is the block's first word, for errors;
    /// `base` the number of the first piece or position (1, or 0 in
    /// twsearch's zero-based StartState and MoveTransformation); the
    /// numbers are returned as read.
    fn block(
        &mut self,
        sets: &[Set],
        header: Word<'_>,
        is_move: bool,
        base: u32,
    ) -> Result<Vec<Entry<'a>>, PuzzleError> {
        let mut out: Vec<Entry<'a>> = Vec::new();
        loop {
            let Some(line) = self.next() else {
                return Err(self.error(
                    Some(header),
                    format!("this {} block has no End", header.text),
                    "close each block with a line End",
                ));
            };
            let first = line[0];
            if first.text == "End" {
                if line.len() > 1 {
                    return Err(self.error(
                        Some(line[1]),
                        format!("{:?} after End", line[1].text),
                        "End stands alone on its line",
                    ));
                }
                return Ok(out);
            }
            if first.text.parse::<u32>().is_ok() {
                return Err(self.error(
                    Some(first),
                    "numbers before a set's name".into(),
                    "name the set on its own line, then its numbers (and orientations) below",
                ));
            }
            let Some(s) = sets.iter().position(|set| set.name == first.text) else {
                let names: Vec<&str> = sets.iter().map(|s| s.name.as_str()).collect();
                return Err(self.error(
                    Some(first),
                    format!("unknown set {:?}", first.text),
                    &format!(
                        "the sets are {} (declared with Set NAME SIZE ORIENTATIONS before any block); or end the block with End",
                        names.join(", ")
                    ),
                ));
            };
            if line.len() > 1 {
                return Err(self.error(
                    Some(line[1]),
                    format!("{:?} after the set's name", line[1].text),
                    "put the set's name on its own line and its numbers on the next",
                ));
            }
            if let Some(earlier) = out.iter().find(|e| e.0 == s) {
                return Err(self.error(
                    Some(first),
                    format!(
                        "set {} appears twice in this block (also on line {})",
                        first.text, earlier.1.line
                    ),
                    "give each set once a block",
                ));
            }
            let set = &sets[s];
            let Some(perm_line) = self.next() else {
                return Err(self.error(
                    Some(first),
                    format!("set {} has no numbers", set.name),
                    "give a line of the set's pieces after its name",
                ));
            };
            let perm = self.numbers(
                &perm_line,
                set,
                if is_move { "permutation" } else { "piece" },
                base,
                set.size as u32,
                false,
            )?;
            if is_move {
                let mut seen = vec![None; set.size];
                for (w, &v) in perm_line.iter().zip(&perm) {
                    if let Some(first) = seen[(v - base) as usize] {
                        let first: Word<'_> = first;
                        return Err(self.error(
                            Some(*w),
                            format!(
                                "{v} appears twice in a move's permutation of set {} (also at column {}): this is not a permutation",
                                set.name, first.col
                            ),
                            "a move's line lists each position of the set exactly once",
                        ));
                    }
                    seen[(v - base) as usize] = Some(*w);
                }
            }
            let ori = match self.peek() {
                // A line of numbers (a negative one too, refused as such,
                // and twsearch's `?` wildcard, refused by name).
                Some(next) if next[0].text.parse::<i64>().is_ok() || next[0].text == "?" => {
                    let line = self.next().expect("peeked");
                    let ori = self.numbers(
                        &line,
                        set,
                        "orientation",
                        0,
                        u32::from(set.orientations),
                        !is_move,
                    )?;
                    if !is_move {
                        self.wildcards_agree(&line, set, &perm, &ori)?;
                    }
                    Some(ori)
                }
                _ => None,
            };
            out.push((s, first, perm, ori));
        }
    }
}

/// Reads a `.tws` file's text; `origin` names it in errors.
pub(super) fn parse(text: &str, origin: &str) -> Result<Definition, PuzzleError> {
    let mut r = Reader {
        origin,
        lines: words(text),
        at: 0,
    };
    let mut parts = Parts::default();
    while let Some(line) = r.next() {
        let key = line[0];
        match key.text {
            "Name" => parts.name(&r, &line)?,
            "Set" => parts.set(&r, &line)?,
            "Solved" | "StartState" | "ScrambleState" => parts.state(&mut r, &line)?,
            "Move" | "MoveTransformation" => parts.move_block(&mut r, &line)?,
            "Illegal" => parts.illegal(&r, &line)?,
            "MoveSequence" | "MoveAlias" => parts.sequence(&r, &line)?,
            "End" => {
                return Err(r.error(
                    Some(key),
                    "End outside a block".into(),
                    "End closes a Solved, ScrambleState or Move block",
                ));
            }
            other if UNSUPPORTED.contains(&other) => {
                return Err(r.error(
                    Some(key),
                    format!("{other} is a ksolve feature that twsearch does not read, nor reach"),
                    "remove it: reach reads twsearch's grammar: Name, Set, Solved (or StartState), ScrambleState, Move, MoveTransformation, MoveSequence, MoveAlias and Illegal",
                ));
            }
            other => {
                return Err(r.error(
                    Some(key),
                    format!("unknown keyword {other:?}"),
                    "a .tws file is made of Name, Set, Solved (or StartState), ScrambleState, Move, MoveTransformation, MoveSequence, MoveAlias and Illegal lines and blocks",
                ));
            }
        }
    }
    parts.definition(&r)
}

/// The file's non-empty lines as words, comments (`#` to the line's end)
/// removed.
fn words(text: &str) -> Vec<Vec<Word<'_>>> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let code = line.split('#').next().unwrap_or("");
            let mut words = Vec::new();
            let mut col = 1;
            let mut rest = code;
            while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
                col += rest[..start].chars().count();
                rest = &rest[start..];
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                words.push(Word {
                    text: &rest[..end],
                    line: i + 1,
                    col,
                });
                col += rest[..end].chars().count();
                rest = &rest[end..];
            }
            (!words.is_empty()).then_some(words)
        })
        .collect()
}

/// What a file has said so far, a line or block at a time.
#[derive(Default)]
struct Parts<'a> {
    name: Option<String>,
    sets: Vec<Set>,
    set_at: Vec<(usize, usize)>,
    solved: Option<(Word<'a>, Pattern)>,
    scramble: Option<(Word<'a>, Pattern)>,
    moves: Vec<(Word<'a>, MoveDef)>,
    /// Whole-puzzle rotations (`Move Fv`), with their names' words.
    rotations: Vec<(Word<'a>, MoveDef)>,
    /// `MoveSequence` and `MoveAlias` lines: the name's word, the steps'
    /// words, and whether it is an alias.
    sequences: Vec<(Word<'a>, Vec<Word<'a>>, bool)>,
    /// `Illegal` lines: (set, position, piece), 0-based.
    illegal: Vec<(usize, usize, u16)>,
    /// Each one's line, by its first word.
    illegal_at: Vec<Word<'a>>,
}

impl<'a> Parts<'a> {
    /// `Name PUZZLE`.
    fn name(&mut self, r: &Reader, line: &[Word<'a>]) -> Result<(), PuzzleError> {
        if line.len() < 2 {
            return Err(r.error(
                Some(line[0]),
                "Name without a name".into(),
                "write Name PUZZLE",
            ));
        }
        let words: Vec<&str> = line[1..].iter().map(|w| w.text).collect();
        self.name = Some(words.join(" "));
        Ok(())
    }

    /// `Set NAME SIZE ORIENTATIONS`.
    fn set(&mut self, r: &Reader, line: &[Word<'a>]) -> Result<(), PuzzleError> {
        let key = line[0];
        if !self.moves.is_empty() || self.solved.is_some() {
            return Err(r.error(
                Some(key),
                "a Set after a block".into(),
                "declare every set before Solved and the moves",
            ));
        }
        if line.len() != 4 {
            return Err(r.error(
                Some(key),
                format!(
                    "Set takes a name, a size and orientations; this line has {} word(s) after Set",
                    line.len() - 1
                ),
                "write e.g. Set CORNERS 8 3",
            ));
        }
        let set_name = line[1].text;
        if set_name.parse::<u32>().is_ok() {
            return Err(r.error(
                Some(line[1]),
                format!("a set cannot be called {set_name:?}: a number"),
                "give the set a name that is not a number",
            ));
        }
        if let Some(i) = self.sets.iter().position(|s| s.name == set_name) {
            return Err(r.error(
                Some(line[1]),
                format!(
                    "set {set_name} is declared twice (also on line {})",
                    self.set_at[i].0
                ),
                "give each set a name of its own",
            ));
        }
        let size = match line[2].text.parse::<usize>() {
            Ok(n) if (1..=u16::MAX as usize).contains(&n) => n,
            _ => {
                return Err(r.error(
                    Some(line[2]),
                    format!(
                        "set {set_name}'s size {:?} is not a number from 1 to 65535",
                        line[2].text
                    ),
                    "give the number of pieces in the set",
                ));
            }
        };
        let orientations = match line[3].text.parse::<u8>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(r.error(
                    Some(line[3]),
                    format!(
                        "set {set_name}'s orientations {:?} is not a number from 1 to 255",
                        line[3].text
                    ),
                    "give how many ways a piece can be turned (1 when it does not matter)",
                ));
            }
        };
        self.sets.push(Set {
            name: set_name.to_string(),
            size,
            orientations,
        });
        self.set_at.push((key.line, key.col));
        Ok(())
    }

    /// A `Solved`, `StartState` or `ScrambleState` block.
    fn state(&mut self, r: &mut Reader<'a>, line: &[Word<'a>]) -> Result<(), PuzzleError> {
        let key = line[0];
        let scr = key.text == "ScrambleState";
        if line.len() > 1 + usize::from(scr) {
            return Err(r.error(
                Some(line[1]),
                format!("{:?} after {}", line[1].text, key.text),
                "the block's sets start on the next line",
            ));
        }
        let slot = if scr { &self.scramble } else { &self.solved };
        if let Some((first, _)) = slot {
            return Err(r.error(
                Some(key),
                format!(
                    "a second {} block (the first is on line {})",
                    key.text, first.line
                ),
                if scr {
                    "give one ScrambleState: the start of the search"
                } else {
                    "give one Solved (or StartState) block"
                },
            ));
        }
        if self.sets.is_empty() {
            return Err(r.error(
                Some(key),
                format!("{} before any Set", key.text),
                "declare the sets first: Set NAME SIZE ORIENTATIONS",
            ));
        }
        // twsearch reads StartState's pieces from 0, Solved's from 1.
        let base = u32::from(key.text != "StartState");
        let body = r.block(&self.sets, key, false, base)?;
        let mut p = Pattern {
            pieces: self
                .sets
                .iter()
                .map(|s| (0..s.size as u16).collect())
                .collect(),
            ori: self.sets.iter().map(|s| vec![0; s.size]).collect(),
        };
        for (s, _, perm, ori) in body {
            p.pieces[s] = perm.iter().map(|&v| (v - base) as u16).collect();
            if let Some(ori) = ori {
                // A set of one orientation has nothing for ? to leave out.
                let one = self.sets[s].orientations == 1;
                p.ori[s] = ori
                    .iter()
                    .map(|&v| match v {
                        WILDCARD if one => 0,
                        WILDCARD => WILD,
                        v => v as u8,
                    })
                    .collect();
            }
        }
        if scr {
            self.scramble = Some((key, p));
        } else {
            self.solved = Some((key, p));
        }
        Ok(())
    }

    /// A `Move NAME` or `MoveTransformation NAME` block. A `Move` is read
    /// as ksolve and twsearch read it: positions from 1, and its twists
    /// given piece by piece (the twist of the piece that comes to position
    /// `i` is the one written at the position it comes from, `perm[i]`). A
    /// `MoveTransformation` is twsearch's newer form: positions from 0, and
    /// the twist written at `i` is the one the piece arriving at `i` gets.
    fn move_block(&mut self, r: &mut Reader<'a>, line: &[Word<'a>]) -> Result<(), PuzzleError> {
        let key = line[0];
        if line.len() != 2 {
            return Err(r.error(
                Some(key),
                format!("{} takes one name", key.text),
                "write e.g. Move U, then the sets it changes, then End",
            ));
        }
        let move_name = line[1].text;
        if let Some(w) = self.defined(move_name) {
            return Err(r.error(
                Some(line[1]),
                format!(
                    "move {move_name} is defined twice (also on line {})",
                    w.line
                ),
                "give each move a name of its own",
            ));
        }
        // A leading digit is a slice (twsearch's `2R`): its powers are
        // suffixes (`2R2`, `2R'`), so only ' is kept out.
        if move_name.contains('\'') {
            return Err(r.error(
                Some(line[1]),
                format!("a move cannot be called {move_name:?}: ' marks an inverse"),
                "name moves without ', e.g. U, R, 2R, Rw, ABDE",
            ));
        }
        if self.sets.is_empty() {
            return Err(r.error(
                Some(key),
                "Move before any Set".into(),
                "declare the sets first: Set NAME SIZE ORIENTATIONS",
            ));
        }
        let ksolve = key.text == "Move";
        let base = u32::from(ksolve);
        let body = r.block(&self.sets, key, true, base)?;
        let mut t = Transform::identity(&self.sets);
        for (s, _, perm, ori) in body {
            t.perm[s] = perm.iter().map(|&v| (v - base) as u16).collect();
            if let Some(ori) = ori {
                t.ori[s] = if ksolve {
                    t.perm[s]
                        .iter()
                        .map(|&from| ori[from as usize] as u8)
                        .collect()
                } else {
                    ori.iter().map(|&v| v as u8).collect()
                };
            }
        }
        if t.is_identity() {
            return Err(r.error(
                Some(line[1]),
                format!("move {move_name} changes nothing"),
                "give the move's permutation (and twists) for the sets it changes, or remove it",
            ));
        }
        let def = MoveDef {
            name: move_name.to_string(),
            transform: t,
        };
        if is_rotation(move_name) {
            self.rotations.push((line[1], def));
        } else {
            self.moves.push((key, def));
        }
        Ok(())
    }

    /// Where a move, rotation, sequence or alias called `name` is defined,
    /// if one is.
    fn defined(&self, name: &str) -> Option<Word<'a>> {
        self.moves
            .iter()
            .chain(&self.rotations)
            .find(|(_, m)| m.name == name)
            .map(|(w, _)| *w)
            .or_else(|| {
                self.sequences
                    .iter()
                    .find(|(w, _, _)| w.text == name)
                    .map(|(w, _, _)| *w)
            })
    }

    /// `Illegal SET POS PIECE...`: positions with one of those pieces at
    /// `POS` are never entered.
    fn illegal(&mut self, r: &Reader, line: &[Word<'a>]) -> Result<(), PuzzleError> {
        let key = line[0];
        let Some((_, solved)) = &self.solved else {
            return Err(r.error(
                Some(key),
                "Illegal before the Solved block".into(),
                "give Illegal lines after Solved (twsearch's order): an illegal piece is one of the solved state's",
            ));
        };
        if line.len() < 4 {
            return Err(r.error(
                Some(key),
                "Illegal takes a set, a position and at least one piece".into(),
                "write e.g. Illegal SLICE 3 17: piece 17 never stands at position 3 of set SLICE",
            ));
        }
        let Some(s) = self.sets.iter().position(|set| set.name == line[1].text) else {
            let names: Vec<&str> = self.sets.iter().map(|s| s.name.as_str()).collect();
            return Err(r.error(
                Some(line[1]),
                format!("Illegal names an unknown set {:?}", line[1].text),
                &format!("the sets are {}", names.join(", ")),
            ));
        };
        let set = &self.sets[s];
        let number = |w: Word<'_>, what: &str| -> Result<usize, PuzzleError> {
            match w.text.parse::<usize>() {
                Ok(v) if (1..=set.size).contains(&v) => Ok(v - 1),
                _ => Err(r.error(
                    Some(w),
                    format!(
                        "{what} {:?} is not one of set {}'s, 1 to {}",
                        w.text, set.name, set.size
                    ),
                    "Illegal SET POS PIECE...: positions and pieces count from 1",
                )),
            }
        };
        let pos = number(line[2], "position")?;
        for &w in &line[3..] {
            let piece = number(w, "piece")? as u16;
            if !solved.pieces[s].contains(&piece) {
                return Err(r.error(
                    Some(w),
                    format!(
                        "set {} has no piece {} in its solved state",
                        set.name, w.text
                    ),
                    "an illegal piece is one of the set's pieces, numbered as in the Solved block",
                ));
            }
            self.illegal.push((s, pos, piece));
            self.illegal_at.push(key);
        }
        Ok(())
    }

    /// `MoveSequence NAME m1 m2 ...` or `MoveAlias NAME m`, resolved once
    /// the whole file is read (a sequence may use moves defined later).
    fn sequence(&mut self, r: &Reader, line: &[Word<'a>]) -> Result<(), PuzzleError> {
        let key = line[0];
        let alias = key.text == "MoveAlias";
        if line.len() < 3 || (alias && line.len() != 3) {
            return Err(r.error(
                Some(key),
                format!(
                    "{} takes a name and {}",
                    key.text,
                    if alias {
                        "the move it stands for"
                    } else {
                        "the moves it is made of"
                    }
                ),
                if alias {
                    "write e.g. MoveAlias Rw r"
                } else {
                    "write e.g. MoveSequence R Fv L Fv'"
                },
            ));
        }
        let name = line[1];
        if let Some(w) = self.defined(name.text) {
            return Err(r.error(
                Some(name),
                format!(
                    "move {} is defined twice (also on line {})",
                    name.text, w.line
                ),
                "give each move, rotation, sequence and alias a name of its own",
            ));
        }
        if name.text.contains('\'') {
            return Err(r.error(
                Some(name),
                format!(
                    "a move cannot be called {:?}: ' marks an inverse",
                    name.text
                ),
                "name moves without ', e.g. U, R, 2R, Rw, ABDE",
            ));
        }
        self.sequences.push((name, line[2..].to_vec(), alias));
        Ok(())
    }

    /// The whole file's definition, once it is read: a solved state and
    /// moves are needed, a scramble must hold the solved state's pieces
    /// (and its wildcards), sequences are resolved, and no start stands on
    /// an illegal position.
    fn definition(mut self, r: &Reader) -> Result<Definition, PuzzleError> {
        let Some((_, solved)) = self.solved.clone() else {
            return Err(r.error(
                None,
                "no Solved block".into(),
                "give the solved state: Solved, then each set's name, pieces and orientations, then End",
            ));
        };
        let aliases = self.resolve_sequences(r)?;
        if self.moves.is_empty() {
            return Err(r.error(
                None,
                "no moves".into(),
                "give each move as a block: Move NAME, the sets it changes, End (a rotation such as Fv is no move of the search)",
            ));
        }
        if let Some((at, p)) = &self.scramble {
            self.scramble_agrees(r, *at, p, &solved)?;
        }
        for (at, p) in [
            Some((None, &solved)),
            self.scramble.as_ref().map(|(w, p)| (Some(*w), p)),
        ]
        .into_iter()
        .flatten()
        {
            if let Some((i, &(s, pos, piece))) = self
                .illegal
                .iter()
                .enumerate()
                .find(|&(_, &(s, pos, piece))| p.pieces[s][pos] == piece)
            {
                // Located at the Illegal line; the state's own line named.
                let (what, state_line) = match at {
                    Some(w) => ("ScrambleState", w.line),
                    None => ("Solved", self.solved.as_ref().map_or(0, |(w, _)| w.line)),
                };
                return Err(r.error(
                    Some(self.illegal_at[i]),
                    format!(
                        "this Illegal line forbids the {what} block of line {state_line}: it has piece {} at position {} of set {}",
                        piece + 1,
                        pos + 1,
                        self.sets[s].name
                    ),
                    "the search never enters an illegal position: start and solve from legal ones (remove the piece from this line, or fix the state)",
                ));
            }
        }
        Ok(Definition {
            name: self.name.unwrap_or_else(|| stem(r.origin)),
            format: Format::Tws,
            sets: self.sets,
            solved,
            scramble: self.scramble.map(|(_, p)| p),
            move_at: self.moves.iter().map(|(w, _)| (w.line, w.col)).collect(),
            moves: self.moves.into_iter().map(|(_, m)| m).collect(),
            origin: r.origin.to_string(),
            set_at: self.set_at,
            rotations: self.rotations.into_iter().map(|(_, m)| m).collect(),
            aliases,
            illegal: self.illegal,
        })
    }

    /// A scramble holds the solved state's pieces, with the wildcards
    /// where those pieces have them.
    fn scramble_agrees(
        &self,
        r: &Reader,
        at: Word<'_>,
        p: &Pattern,
        solved: &Pattern,
    ) -> Result<(), PuzzleError> {
        for (s, set) in self.sets.iter().enumerate() {
            let mut a = p.pieces[s].clone();
            let mut b = solved.pieces[s].clone();
            a.sort_unstable();
            b.sort_unstable();
            if a != b {
                return Err(r.error(
                    Some(at),
                    format!(
                        "set {} holds other pieces here than in the solved state",
                        set.name
                    ),
                    "a scramble rearranges the solved state's pieces: give each piece as often as Solved does",
                ));
            }
            for (i, &piece) in p.pieces[s].iter().enumerate() {
                let wild = |q: &Pattern| {
                    q.pieces[s]
                        .iter()
                        .zip(&q.ori[s])
                        .any(|(&x, &o)| x == piece && o == WILD)
                };
                let (here, there) = (p.ori[s][i] == WILD, wild(solved));
                if here != there {
                    return Err(r.error(
                        Some(at),
                        format!(
                            "set {}: piece {} at position {} is {} here but {} in the solved state",
                            set.name,
                            piece + 1,
                            i + 1,
                            if here { "a ? wildcard" } else { "oriented" },
                            if there { "a ? wildcard" } else { "oriented" }
                        ),
                        "give a piece's orientation as ? in the scramble exactly where Solved does",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Resolves the `MoveSequence` and `MoveAlias` lines, in any order of
    /// dependence, in one depth-first pass (each line once, a sequence's
    /// steps before it; a name is looked up in a map, longest first): each
    /// sequence joins the moves (or the rotations, named like one), each
    /// alias is returned. Thousands of lines in reverse order resolve in
    /// milliseconds (issue 50: a pass per line took 27 s for 2,000).
    fn resolve_sequences(&mut self, r: &Reader) -> Result<Vec<MoveDef>, PuzzleError> {
        use std::collections::HashMap;
        let pending = std::mem::take(&mut self.sequences);
        // What a step may name: moves, rotations, then what resolves.
        let mut known: HashMap<String, Transform> = self
            .moves
            .iter()
            .chain(&self.rotations)
            .map(|(_, m)| (m.name.clone(), m.transform.clone()))
            .collect();
        let mut waiting: HashMap<&str, usize> = HashMap::new();
        for (i, (name, ..)) in pending.iter().enumerate() {
            waiting.entry(name.text).or_insert(i);
        }
        // 0: not begun; 1: on the stack; 2: resolved.
        let mut state = vec![0u8; pending.len()];
        let mut aliases: Vec<(Word<'a>, MoveDef)> = Vec::new();
        for root in 0..pending.len() {
            if state[root] != 0 {
                continue;
            }
            // (line, next step, product so far)
            let mut stack = vec![(root, 0usize, Transform::identity(&self.sets))];
            state[root] = 1;
            while let Some((i, k, t)) = stack.last_mut() {
                let (name, steps, alias) = &pending[*i];
                let Some(&w) = steps.get(*k) else {
                    let (i, _, t) = stack.pop().expect("the top");
                    state[i] = 2;
                    if t.is_identity() {
                        return Err(r.error(
                            Some(*name),
                            format!("move {} changes nothing", name.text),
                            "a sequence whose moves undo each other is no move: remove it",
                        ));
                    }
                    known.insert(name.text.to_string(), t.clone());
                    let def = MoveDef {
                        name: name.text.to_string(),
                        transform: t,
                    };
                    if is_rotation(name.text) {
                        // twsearch makes every name that looks like a
                        // rotation's one (`isrotation`), a sequence's or an
                        // alias's too: no move of the search.
                        self.rotations.push((*name, def));
                    } else if *alias {
                        aliases.push((*name, def));
                    } else {
                        self.moves.push((*name, def));
                    }
                    continue;
                };
                match lookup(&known, &waiting, &state, w.text, &self.sets) {
                    Lookup::Known(step) => {
                        *t = t.then(&step, &self.sets);
                        *k += 1;
                    }
                    Lookup::Waiting(j) if state[j] == 0 => {
                        state[j] = 1;
                        stack.push((j, 0, Transform::identity(&self.sets)));
                    }
                    Lookup::Waiting(j) => {
                        // On the stack: the lines from it to here refer
                        // to each other in a cycle, said at the first
                        // line's step into the next.
                        let from = stack.iter().position(|&(l, ..)| l == j).unwrap_or(0);
                        let cycle: Vec<&str> = stack[from..]
                            .iter()
                            .map(|&(l, ..)| pending[l].0.text)
                            .collect();
                        let (first, k) = (stack[from].0, stack[from].1);
                        let (first, at) = (pending[first].0, pending[first].1[k]);
                        return Err(r.error(
                            Some(at),
                            format!(
                                "{} refers to {}, and these sequences or aliases refer to each other in a cycle: {}",
                                first.text,
                                at.text,
                                cycle.join(", ")
                            ),
                            "define each sequence from moves, rotations and sequences that do not lead back to it",
                        ));
                    }
                    Lookup::TooHigh(m) => {
                        let (what, help) = too_high(&m);
                        return Err(r.error(
                            Some(w),
                            format!("{}'s step {}: {what}", name.text, w.text),
                            &help,
                        ));
                    }
                    Lookup::Nothing => {
                        return Err(r.error(
                            Some(w),
                            format!(
                                "{} names no move, rotation, sequence or alias {:?}",
                                name.text, w.text
                            ),
                            "a step is a move of the file (with a power and ' if wanted, as R2 or R'), a rotation, or another sequence",
                        ));
                    }
                }
            }
        }
        Ok(aliases.into_iter().map(|(_, m)| m).collect())
    }
}

/// What a step of a sequence names.
enum Lookup {
    /// A known move's power (or its inverse).
    Known(Transform),
    /// A sequence or alias not yet resolved: line `.0`.
    Waiting(usize),
    /// A known move or line with a power over [`MAX_POWER`]: its name.
    TooHigh(String),
    /// Nothing.
    Nothing,
}

/// The largest power a step takes (`R1000`): powers repeat with a move's
/// order, and a larger number is more likely a typing slip.
pub(super) const MAX_POWER: u32 = 1000;

/// What follows a move's name in a step (`2'` in `R2'`): its power, 1
/// when no digits are given (`None` when they pass [`MAX_POWER`]), and
/// whether it ends in `'`; `None` outside when it is not digits and `'`.
fn power_after(rest: &str) -> Option<(Option<u32>, bool)> {
    let (digits, prime) = match rest.strip_suffix('\'') {
        Some(d) => (d, true),
        None => (rest, false),
    };
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let power = if digits.is_empty() {
        Some(1)
    } else {
        digits.parse().ok().filter(|&p| p <= MAX_POWER)
    };
    Some((power, prime))
}

/// The power `power` of `t`, inverted with `prime`.
fn raised(t: &Transform, power: u32, prime: bool, sets: &[Set]) -> Transform {
    let t = t.power(power, sets);
    if prime { super::inverse(&t, sets) } else { t }
}

/// The step `token`: the longest name that fits (a known move, or a line
/// still to resolve), then a power (digits) and `'`.
fn lookup(
    known: &std::collections::HashMap<String, Transform>,
    waiting: &std::collections::HashMap<&str, usize>,
    state: &[u8],
    token: &str,
    sets: &[Set],
) -> Lookup {
    for cut in (1..=token.len())
        .rev()
        .filter(|&c| token.is_char_boundary(c))
    {
        let (name, rest) = token.split_at(cut);
        let Some((power, prime)) = power_after(rest) else {
            continue;
        };
        if let Some(&j) = waiting.get(name).filter(|&&j| state[j] != 2) {
            return Lookup::Waiting(j);
        }
        if let Some(t) = known.get(name) {
            return match power {
                Some(p) => Lookup::Known(raised(t, p, prime, sets)),
                None => Lookup::TooHigh(name.to_string()),
            };
        }
    }
    Lookup::Nothing
}

/// Whether a move's name is a rotation's, as twsearch tells them: capitals
/// or underscores followed by `v` (`Fv`, `DRFv`), or `x`, `y`, `z`
/// (optionally with 2).
pub(super) fn is_rotation(name: &str) -> bool {
    let body = name.strip_suffix('v').unwrap_or("");
    (!body.is_empty() && body.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        || matches!(name, "x" | "y" | "z" | "x2" | "y2" | "z2")
}

/// Why a step reads as no move.
pub(super) enum Unread {
    /// No name of the moves fits it.
    Unknown,
    /// It raises the named move to a power over [`MAX_POWER`].
    TooHigh(String),
}

/// What a step that raises `m` past [`MAX_POWER`] is told, and the help.
pub(super) fn too_high(m: &str) -> (String, String) {
    (
        format!("the power of {m} is over {MAX_POWER}, the most a step takes"),
        format!("a move's powers repeat: write the power modulo {m}'s order"),
    )
}

/// What one step of a sequence or scramble does: a move of `known` by its
/// name, then a power (digits) and `'` (the inverse), the longest name
/// that fits winning.
pub(super) fn step(known: &[&MoveDef], token: &str, sets: &[Set]) -> Result<Transform, Unread> {
    let (m, power, prime) = known
        .iter()
        .filter_map(|m| {
            let (power, prime) = power_after(token.strip_prefix(m.name.as_str())?)?;
            Some((*m, power, prime))
        })
        .max_by_key(|(m, _, _)| m.name.len())
        .ok_or(Unread::Unknown)?;
    let power = power.ok_or_else(|| Unread::TooHigh(m.name.clone()))?;
    Ok(raised(&m.transform, power, prime, sets))
}

/// A file's name without its directory and extension.
pub(super) fn stem(origin: &str) -> String {
    std::path::Path::new(origin)
        .file_stem()
        .map_or_else(|| origin.to_string(), |s| s.to_string_lossy().into_owned())
}
