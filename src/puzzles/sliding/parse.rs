//! Reading a puzzle file (TOML) into a [`SlidingPuzzle`], with every error
//! located at its file, line and column and told how to fix.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::{Class, Dir, Mobility, NONE, SlidingPuzzle};
use crate::puzzles::combinadic;

/// Puzzle files are small (a 64-cell board takes a few hundred bytes);
/// anything much larger is refused before it is parsed.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The most cells a board may have: a board is a `u64` bitmask.
pub const MAX_CELLS: usize = 64;

/// A puzzle file that cannot be used, and where and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PuzzleError {
    /// The file (or built-in) the error is in.
    pub origin: String,
    /// 1-based line and column, where the error has a place.
    pub location: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: String,
}

impl fmt::Display for PuzzleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Some((line, 0)) => write!(
                f,
                "{}:{line}: {} (the position within the string is approximate)",
                self.origin, self.message
            )?,
            Some((line, col)) => write!(f, "{}:{line}:{col}: {}", self.origin, self.message)?,
            None => write!(f, "{}: {}", self.origin, self.message)?,
        }
        if !self.help.is_empty() {
            write!(f, "\n  help: {}", self.help)?;
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    name: Option<String>,
    board: Spanned<String>,
    distinct: Option<Spanned<String>>,
    colors: Option<BTreeMap<String, Spanned<String>>>,
    horizontal: Option<Spanned<String>>,
    vertical: Option<Spanned<String>>,
    goal: Option<Spanned<String>>,
}

/// Turns byte offsets of the source into 1-based (line, column).
struct Source<'a> {
    origin: &'a str,
    text: &'a str,
}

impl Source<'_> {
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text[..self.text.floor_char_boundary(offset)];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }

    fn error(&self, at: Option<(usize, usize)>, message: String, help: &str) -> PuzzleError {
        PuzzleError {
            origin: self.origin.to_string(),
            location: at,
            message,
            help: help.to_string(),
        }
    }

    fn at(&self, offset: usize, message: String, help: &str) -> PuzzleError {
        self.error(Some(self.line_col(offset)), message, help)
    }

    /// The characters of a string value with the file position of each.
    /// Escapes in basic strings (`\u00e9`, `\n`, a line-ending backslash)
    /// are followed, so each character points at its own place in the
    /// file (an escaped one at its backslash). Should the file's text
    /// somehow not decode to the value, the positions are marked
    /// approximate (column 0) rather than wrong.
    fn chars_of(&self, value: &Spanned<String>) -> Vec<(char, (usize, usize))> {
        let span = value.span();
        let raw = &self.text[span.clone()];
        let literal = raw.starts_with('\'');
        let (quote, multi) = if raw.starts_with("\"\"\"") || raw.starts_with("\'\'\'") {
            (3, true)
        } else {
            (1, false)
        };
        let mut base = span.start + quote;
        if multi {
            if self.text[base..].starts_with("\r\n") {
                base += 2;
            } else if self.text[base..].starts_with('\n') {
                base += 1;
            }
        }
        let body = &self.text[base..span.end.saturating_sub(quote).max(base)];
        let (line, col) = self.line_col(base);
        match positions(body, line, col, !literal) {
            Some(v) if v.iter().map(|&(c, _)| c).eq(value.get_ref().chars()) => v,
            _ => value.get_ref().chars().map(|ch| (ch, (line, 0))).collect(),
        }
    }
}

/// The characters a string's text `body` decodes to, each with the line
/// and column of its source, starting at (`line`, `col`): in a basic
/// string (`escapes`) an escape decodes to one character placed at its
/// backslash; in a literal string a backslash is itself. `None` for an
/// escape this does not know.
fn positions(
    body: &str,
    line: usize,
    col: usize,
    escapes: bool,
) -> Option<Vec<(char, (usize, usize))>> {
    let (mut line, mut col) = (line, col);
    let mut out = Vec::new();
    let mut chars = body.chars().peekable();
    let step = |ch: char, line: &mut usize, col: &mut usize| {
        if ch == '\n' {
            (*line, *col) = (*line + 1, 1);
        } else {
            *col += 1;
        }
    };
    while let Some(ch) = chars.next() {
        let at = (line, col);
        step(ch, &mut line, &mut col);
        if ch != '\\' || !escapes {
            out.push((ch, at));
            continue;
        }
        let esc = chars.next()?;
        step(esc, &mut line, &mut col);
        let decoded = match esc {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'e' => '\u{1b}',
            '"' => '"',
            '\\' => '\\',
            'u' | 'U' | 'x' => {
                let n = match esc {
                    'u' => 4,
                    'U' => 8,
                    _ => 2,
                };
                let mut code = 0u32;
                for _ in 0..n {
                    let d = chars.next()?;
                    step(d, &mut line, &mut col);
                    code = code * 16 + d.to_digit(16)?;
                }
                char::from_u32(code)?
            }
            c if c.is_whitespace() => {
                // A line-ending backslash drops the whitespace after it.
                while let Some(&w) = chars.peek() {
                    if !w.is_whitespace() {
                        break;
                    }
                    step(w, &mut line, &mut col);
                    chars.next();
                }
                continue;
            }
            _ => return None,
        };
        out.push((decoded, at));
    }
    Some(out)
}

/// One row of a board or goal grid: its characters and where each is.
struct Row {
    cells: Vec<(char, (usize, usize))>,
    /// Where the row starts, for errors about the row as a whole.
    at: (usize, usize),
    /// Whether spaces around it were trimmed (a user who drew empty cells
    /// as spaces learns of '.' when the widths then differ).
    trimmed: bool,
}

/// Splits a grid value into rows, trimming blank lines at either end and
/// spaces around each row.
fn grid_rows(src: &Source, value: &Spanned<String>, what: &str) -> Result<Vec<Row>, PuzzleError> {
    let chars = src.chars_of(value);
    let mut rows: Vec<Row> = Vec::new();
    let mut line: Vec<(char, (usize, usize))> = Vec::new();
    let value_at = src.line_col(value.span().start);
    let mut flush = |line: &mut Vec<(char, (usize, usize))>, end: (usize, usize)| {
        let trimmed: Vec<_> = {
            let s = line
                .iter()
                .position(|(c, _)| !c.is_whitespace())
                .unwrap_or(line.len());
            let e = line
                .iter()
                .rposition(|(c, _)| !c.is_whitespace())
                .map_or(s, |e| e + 1);
            line[s..e].to_vec()
        };
        let at = trimmed.first().map_or(end, |&(_, p)| p);
        rows.push(Row {
            trimmed: trimmed.len() != line.len(),
            cells: trimmed,
            at,
        });
        line.clear();
    };
    let mut last = value_at;
    for (ch, p) in chars {
        last = p;
        if ch == '\n' {
            flush(&mut line, p);
        } else if ch != '\r' {
            line.push((ch, p));
        }
    }
    if !line.is_empty() {
        flush(&mut line, last);
    }
    while rows.last().is_some_and(|r| r.cells.is_empty()) {
        rows.pop();
    }
    let first = rows.iter().position(|r| !r.cells.is_empty());
    let rows: Vec<Row> = match first {
        Some(i) => rows.into_iter().skip(i).collect(),
        None => {
            return Err(src.error(
                Some(value_at),
                format!("the {what} is empty"),
                "write one row of the board a line, '.' for an empty cell",
            ));
        }
    };
    for row in &rows {
        if row.cells.is_empty() {
            return Err(src.error(
                Some(row.at),
                format!("blank line inside the {what}"),
                "remove the blank line; every row needs the same number of cells",
            ));
        }
        if let Some(&(ch, p)) = row.cells.iter().find(|(c, _)| c.is_whitespace()) {
            return Err(src.error(
                Some(p),
                format!("whitespace {ch:?} inside a row of the {what}"),
                "write rows without spaces: '.' is an empty cell, '#' a wall",
            ));
        }
    }
    Ok(rows)
}

/// `text` with control characters (escape sequences, the bell) written as
/// escapes, so that printing a name cannot drive the terminal.
pub fn printable(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// A label is one visible character: not blank, not a control, not `.`
/// or `#`, and not of zero width (a zero-width space, a combining accent:
/// they would make pieces no one can see, or split one letter in two).
fn valid_label(ch: char) -> bool {
    use unicode_width::UnicodeWidthChar;
    !ch.is_whitespace()
        && !ch.is_control()
        && ch != '.'
        && ch != '#'
        && ch.width().is_some_and(|w| w > 0)
}

struct Piece {
    label: char,
    cells: Vec<(usize, usize)>,
}

/// A puzzle file's text: at most 1 MiB (`MAX_FILE_BYTES`) of UTF-8, read from
/// anything (a pipe or device is read only that far), with errors that say
/// which file and what to do.
pub fn read_puzzle_text(path: &Path) -> Result<String, PuzzleError> {
    let origin = path.display().to_string();
    let fail = |message: String, help: &str| PuzzleError {
        origin: origin.clone(),
        location: None,
        message,
        help: help.to_string(),
    };
    let meta = std::fs::metadata(path).map_err(|e| {
        fail(
            format!("cannot read the puzzle file: {e}"),
            "give a built-in name (see `reach list`) or the path of a puzzle file",
        )
    })?;
    if meta.is_dir() {
        return Err(fail(
            "this is a directory, not a puzzle file".into(),
            "give the path of a puzzle file (.toml, .tws or KPuzzle .json)",
        ));
    }
    // Devices, pipes and /proc files report no length (or a wrong one):
    // read at most one byte past the limit from anything.
    let too_big = |len: u64| {
        fail(
            format!(
                "the file is {len} bytes or more; puzzle files are at most {MAX_FILE_BYTES} bytes"
            ),
            "puzzle files need far less: a board has at most 64 cells, and a twisty puzzle's definition takes some kilobytes",
        )
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_big(meta.len()));
    }
    let file = std::fs::File::open(path).map_err(|e| {
        fail(
            format!("cannot read the puzzle file: {e}"),
            "check the path",
        )
    })?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_FILE_BYTES + 1),
        &mut bytes,
    )
    .map_err(|e| {
        fail(
            format!("cannot read the puzzle file: {e}"),
            "check the path",
        )
    })?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        fail(
            format!(
                "the file is not UTF-8 text (bad byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
            "save the puzzle file as UTF-8",
        )
    })?;
    Ok(text)
}

/// A `"""` string left open, which TOML reports far from the cause (an
/// "invalid key" on the line after the next board): the opening quotes
/// that the next `"""` closes although a `key =` line stands between them,
/// or the last `"""` of the file when none closes it.
fn unclosed_quotes(src: &Source) -> Option<PuzzleError> {
    let quotes: Vec<usize> = src.text.match_indices("\"\"\"").map(|(i, _)| i).collect();
    let unclosed = |open: usize, swallowed: Option<usize>| {
        let (line, _) = src.line_col(open);
        let message = match swallowed {
            Some(key) => format!(
                "the \"\"\" opened on line {line} is not closed before line {}",
                src.line_col(key).0
            ),
            None => format!("the \"\"\" opened on line {line} is never closed"),
        };
        src.error(
            Some(src.line_col(open)),
            message,
            "end the board with a line holding only \"\"\"",
        )
    };
    for pair in quotes.chunks(2) {
        let [open, close] = *pair else {
            return Some(unclosed(pair[0], None));
        };
        // A line inside the string that reads as a key of the file.
        let inside = &src.text[open + 3..close];
        let mut offset = open + 3;
        for line in inside.split_inclusive('\n') {
            let word = line.trim_start();
            let key_len = word
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(word.len());
            if key_len > 0 && word[key_len..].trim_start().starts_with('=') {
                let key = offset + (line.len() - word.len());
                return Some(unclosed(open, Some(key)));
            }
            offset += line.len();
        }
    }
    None
}

impl SlidingPuzzle {
    /// Reads a puzzle file.
    pub fn from_path(path: &Path) -> Result<SlidingPuzzle, PuzzleError> {
        let text = read_puzzle_text(path)?;
        SlidingPuzzle::from_toml(&text, &path.display().to_string())
    }

    /// Reads a puzzle from TOML text; `origin` names it in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<SlidingPuzzle, PuzzleError> {
        let src = Source { origin, text };
        let raw: RawFile = toml::from_str(text).map_err(|e| {
            if let Some(e) = unclosed_quotes(&src) {
                return e;
            }
            let at = e.span().map(|s: Range<usize>| src.line_col(s.start));
            let message = e.message().trim().to_string();
            let help = if message.contains("unknown field") {
                "the keys are name, board, distinct, colors, horizontal, vertical and goal"
            } else if message.contains("missing field") {
                "every puzzle file needs a board, e.g. board = \"\"\"\\n.AA\\nBB.\\n\"\"\""
            } else {
                "see the puzzle file format in docs/puzzle-files.md"
            };
            src.error(at, message, help)
        })?;
        build(&src, raw)
    }
}

/// A puzzle file's parsed fields as a puzzle: the board's pieces, their
/// classes and keys, the start and the goal. Each step is a function below.
fn build(src: &Source, raw: RawFile) -> Result<SlidingPuzzle, PuzzleError> {
    let rows = grid_rows(src, &raw.board, "board")?;
    let (height, width) = board_size(src, &rows)?;
    let (walls, pieces, index) = board_pieces(src, &rows, width)?;
    let grid = Grid {
        height,
        width,
        walls,
    };
    let attrs = Attributes::read(src, &raw, &pieces, &index)?;
    let (members, class_of_piece) = group_classes(&pieces, &attrs);
    let (mut classes, sizes) = make_classes(&grid, &pieces, &members, &attrs);
    let key_space = narrow_key_space(&classes);
    let mut weight = 1u64;
    for class in &mut classes {
        class.weight = weight;
        weight = weight.wrapping_mul(class.radix);
    }
    let start_pos = start_positions(&grid, &pieces, &members, &mut classes);
    let (goal, goal_impossible) = match &raw.goal {
        None => (Vec::new(), None),
        Some(g) => parse_goal(
            src,
            g,
            &rows,
            &pieces,
            &index,
            &class_of_piece,
            &classes,
            walls,
        )?,
    };
    let raw_name = raw.name.unwrap_or_else(|| src.origin.to_string());
    let mut puzzle = SlidingPuzzle {
        slots: classes
            .iter()
            .enumerate()
            .flat_map(|(ci, c)| (0..c.count()).map(move |i| (ci as u8, i as u8)))
            .collect(),
        floor: grid.floor(),
        neighbour: grid.neighbours(),
        name: printable(&raw_name),
        raw_name,
        rows: height,
        cols: width,
        walls,
        pieces: start_pos.len(),
        classes,
        metric: super::Metric::Step,
        goal,
        goal_impossible,
        key_space: key_space.unwrap_or(u64::MAX),
        start: 0,
        first_free: 0,
        tile_groups: Vec::new(),
        floor_cell: Vec::new(),
        edge: grid.edges(),
        slot_dirs: Vec::new(),
        lone: None,
        blanks: None,
        tiled: None,
        wide: None,
    };
    derive_tables(&mut puzzle);
    if key_space.is_none() {
        // Past 2^64: keys of several words, and none of the one-word
        // fast paths.
        let layout = super::wide::Layout::new(&puzzle, &start_pos)
            .map_err(|why| too_wide(src, &rows, &classes_radices(&puzzle), &sizes, &why))?;
        puzzle.wide = Some(Box::new(layout));
        puzzle.lone = None;
        puzzle.blanks = None;
        return Ok(puzzle);
    }
    puzzle.tiled = super::tiled::Tiled::new(&puzzle, &start_pos).map(Box::new);
    puzzle.start = puzzle.encode(&start_pos);
    Ok(puzzle)
}

/// The classes' radices in one-word keys.
fn classes_radices(puzzle: &SlidingPuzzle) -> Vec<u64> {
    puzzle.classes.iter().map(|c| c.radix).collect()
}

/// The board's height and width, refusing ragged rows and boards over
/// [`MAX_CELLS`] cells.
fn board_size(src: &Source, rows: &[Row]) -> Result<(usize, usize), PuzzleError> {
    let height = rows.len();
    let width = rows[0].cells.len();
    let longest = rows.iter().map(|r| r.cells.len()).max().unwrap_or(0);
    if longest > MAX_CELLS || height > MAX_CELLS {
        return Err(src.error(
            Some(rows[0].at),
            format!(
                "the board is too large: {height} row(s), the longest of {longest} cells; boards have at most {MAX_CELLS} cells"
            ),
            "reach keeps a board in one 64-bit mask; use a smaller board",
        ));
    }
    for row in rows {
        if row.cells.len() != width {
            let help = if row.trimmed || rows[0].trimmed {
                "spaces around a row are not cells: draw an empty cell as '.', a cell outside an irregular board as '#', and give every row the same width"
            } else {
                "give every row the same width; use '#' for cells outside an irregular board"
            };
            return Err(src.error(
                Some(row.at),
                format!(
                    "this row has {} cell{} but the first row has {width}",
                    row.cells.len(),
                    if row.cells.len() == 1 { "" } else { "s" }
                ),
                help,
            ));
        }
    }
    if height * width > MAX_CELLS {
        return Err(src.error(
            Some(rows[0].at),
            format!(
                "the board has {height} rows of {width} cells = {} cells; at most {MAX_CELLS} are supported",
                height * width
            ),
            "reach keeps a board in one 64-bit mask; use a smaller board",
        ));
    }
    Ok((height, width))
}

/// The board's walls (a mask), its pieces in order of first appearance,
/// and each label's piece.
type BoardPieces = (u64, Vec<Piece>, HashMap<char, usize>);

/// The board's [`BoardPieces`].
fn board_pieces(src: &Source, rows: &[Row], width: usize) -> Result<BoardPieces, PuzzleError> {
    let mut walls = 0u64;
    let mut pieces: Vec<Piece> = Vec::new();
    let mut index: HashMap<char, usize> = HashMap::new();
    for (r, row) in rows.iter().enumerate() {
        for (c, &(ch, at)) in row.cells.iter().enumerate() {
            match ch {
                '.' => {}
                '#' => walls |= 1 << (r * width + c),
                ch if valid_label(ch) => {
                    let i = *index.entry(ch).or_insert_with(|| {
                        pieces.push(Piece {
                            label: ch,
                            cells: Vec::new(),
                        });
                        pieces.len() - 1
                    });
                    pieces[i].cells.push((r, c));
                }
                ch => {
                    return Err(src.error(
                        Some(at),
                        format!("{:?} (U+{:04X}) cannot label a piece", ch, ch as u32),
                        "labels are single visible characters other than space, '.' and '#' (no zero-width or combining characters: write é as one character, not e plus an accent)",
                    ));
                }
            }
        }
    }
    if pieces.is_empty() {
        return Err(src.error(
            Some(rows[0].at),
            "the board has no pieces".into(),
            "label each piece's cells with a character, e.g. 'A'",
        ));
    }
    Ok((walls, pieces, index))
}

/// The board's size and walls, and the cells that follow from them.
struct Grid {
    height: usize,
    width: usize,
    walls: u64,
}

impl Grid {
    /// The cell at row `r`, column `c`, if it is on the board.
    fn cell(&self, r: i32, c: i32) -> Option<usize> {
        let inside = r >= 0 && c >= 0 && (r as usize) < self.height && (c as usize) < self.width;
        inside.then(|| r as usize * self.width + c as usize)
    }

    /// Whether the cell at `r`, `c` is on the board and no wall.
    fn open(&self, r: i32, c: i32) -> bool {
        self.cell(r, c).is_some_and(|i| self.walls & (1 << i) == 0)
    }

    fn cells(&self) -> usize {
        self.height * self.width
    }

    /// The cells that are not walls, as a mask.
    fn floor(&self) -> u64 {
        let cells = self.cells();
        (if cells == 64 {
            u64::MAX
        } else {
            (1u64 << cells) - 1
        }) & !self.walls
    }

    /// Each cell's neighbour in each direction, or [`super::NO_CELL`].
    fn neighbours(&self) -> Vec<[u8; 4]> {
        (0..self.cells())
            .map(|cell| {
                let (r, c) = ((cell / self.width) as i32, (cell % self.width) as i32);
                Dir::ALL.map(|d| {
                    let (dr, dc) = d.delta();
                    self.cell(r + dr, c + dc)
                        .map_or(super::NO_CELL, |n| n as u8)
                })
            })
            .collect()
    }

    /// The cells on the board's edge in each direction: a piece covering
    /// one cannot move that way.
    fn edges(&self) -> [u64; 4] {
        let (height, width) = (self.height, self.width);
        let board = (0..self.cells()).fold(0u64, |m, c| m | 1 << c);
        let first_row = (0..width).fold(0u64, |m, c| m | 1 << c);
        let first_col = (0..height).fold(0u64, |m, r| m | 1 << (r * width));
        Dir::ALL.map(|d| match d {
            Dir::Up => first_row,
            Dir::Down => first_row << ((height - 1) * width),
            Dir::Left => first_col,
            Dir::Right => first_col << (width - 1),
        } & board)
    }
}

/// What the file says of each piece beyond its cells: `distinct`, its
/// colour, and its rail (`horizontal`, `vertical`).
struct Attributes {
    distinct: Vec<bool>,
    colour: Vec<Option<String>>,
    mobility: Vec<Mobility>,
}

impl Attributes {
    fn read(
        src: &Source,
        raw: &RawFile,
        pieces: &[Piece],
        index: &HashMap<char, usize>,
    ) -> Result<Attributes, PuzzleError> {
        let labels_in = |value: &Spanned<String>, key: &str| -> Result<Vec<char>, PuzzleError> {
            let mut out = Vec::new();
            for (ch, at) in src.chars_of(value) {
                if ch.is_whitespace() || ch == ',' {
                    continue;
                }
                if !index.contains_key(&ch) {
                    return Err(src.error(
                        Some(at),
                        format!("{key} names {ch:?}, which is not a piece on the board"),
                        "list only labels that appear on the board",
                    ));
                }
                out.push(ch);
            }
            Ok(out)
        };
        let mut distinct = vec![false; pieces.len()];
        if let Some(d) = &raw.distinct {
            if d.get_ref().trim() == "*" {
                distinct.iter_mut().for_each(|x| *x = true);
            } else {
                for ch in labels_in(d, "distinct")? {
                    distinct[index[&ch]] = true;
                }
            }
        }
        let mut colour: Vec<Option<String>> = vec![None; pieces.len()];
        for (name, value) in raw.colors.iter().flatten() {
            for ch in labels_in(value, &format!("colour {name:?}"))? {
                let i = index[&ch];
                if let Some(other) = &colour[i] {
                    return Err(src.at(
                        value.span().start,
                        format!("{ch:?} is given two colours, {other:?} and {name:?}"),
                        "give each piece at most one colour",
                    ));
                }
                colour[i] = Some(name.clone());
            }
        }
        let mut mobility = vec![Mobility::Free; pieces.len()];
        for (value, m, key) in [
            (&raw.horizontal, Mobility::Horizontal, "horizontal"),
            (&raw.vertical, Mobility::Vertical, "vertical"),
        ] {
            let Some(value) = value else { continue };
            for ch in labels_in(value, key)? {
                let i = index[&ch];
                if mobility[i] != Mobility::Free {
                    return Err(src.at(
                        value.span().start,
                        format!("{ch:?} is listed both as horizontal and vertical"),
                        "a piece that moves both ways is left out of both lists",
                    ));
                }
                mobility[i] = m;
            }
        }
        Ok(Attributes {
            distinct,
            colour,
            mobility,
        })
    }
}

/// A piece's shape: offsets from its anchor, the first cell in reading
/// order.
fn shape_of(cells: &[(usize, usize)]) -> Vec<(i32, i32)> {
    let (r0, c0) = cells[0];
    cells
        .iter()
        .map(|&(r, c)| (r as i32 - r0 as i32, c as i32 - c0 as i32))
        .collect()
}

/// Whether a class (its pieces, by index) is ranked among the free cells:
/// a class of single cells (pe766's six squares, a sliding tile). Its key
/// space shrinks to what the free cells allow (a tile puzzle's keys become
/// dense, 12!/1 for `eleven` instead of 12^11, so that a bitmap of them
/// fits in memory).
fn free_ranked(pieces: &[Piece], members: &[usize]) -> bool {
    pieces[members[0]].cells.len() == 1
}

/// The classes of interchangeable pieces (same shape, colour and rail,
/// unless distinct), each its pieces' indices, those ranked among the free
/// cells last and the others in order of appearance (see `mod.rs`); and
/// each piece's class.
fn group_classes(pieces: &[Piece], attrs: &Attributes) -> (Vec<Vec<usize>>, Vec<usize>) {
    type ClassKey = (Vec<(i32, i32)>, Option<String>, Mobility, Option<char>);
    let mut class_of_key: HashMap<ClassKey, usize> = HashMap::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (i, p) in pieces.iter().enumerate() {
        let key = (
            shape_of(&p.cells),
            attrs.colour[i].clone(),
            attrs.mobility[i],
            attrs.distinct[i].then_some(p.label),
        );
        let ci = *class_of_key.entry(key).or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        });
        members[ci].push(i);
    }
    // A stable sort: the order of appearance holds within each part.
    members.sort_by_key(|m| free_ranked(pieces, m));
    let mut class_of_piece = vec![0; pieces.len()];
    for (ci, m) in members.iter().enumerate() {
        for &i in m {
            class_of_piece[i] = ci;
        }
    }
    (members, class_of_piece)
}

/// Each class's positions, tables and radix, in `members`' order, and the
/// radixes as `C(n,k)` for an error that the key space is too large.
fn make_classes(
    grid: &Grid,
    pieces: &[Piece],
    members: &[Vec<usize>],
    attrs: &Attributes,
) -> (Vec<Class>, Vec<String>) {
    // Cells left to the classes ranked among free cells: every other piece
    // always covers as many cells as it has, so this is the same in every
    // state.
    let floor_cells = grid.cells() - grid.walls.count_ones() as usize;
    let mut free_left = floor_cells
        - members
            .iter()
            .filter(|m| !free_ranked(pieces, m))
            .map(|m| m.len() * pieces[m[0]].cells.len())
            .sum::<usize>();
    let mut classes = Vec::with_capacity(members.len());
    let mut sizes = Vec::new();
    let mut offset = 0;
    for m in members {
        let free = free_ranked(pieces, m);
        let count = m.len();
        // A single-cell class is ranked among the cells still free after
        // the classes before it, a larger one among its anchors.
        let free_cells = free.then(|| {
            free_left -= count;
            free_left + count
        });
        let class = make_class(grid, pieces, m, attrs, free_cells, offset);
        sizes.push(format!("C({},{count})", class.ranked_over));
        classes.push(class);
        offset += count;
    }
    (classes, sizes)
}

/// One class: `m` its pieces, `free_cells` the cells it is ranked among if
/// it is ranked among the free cells, `offset` its first slot.
fn make_class(
    grid: &Grid,
    pieces: &[Piece],
    m: &[usize],
    attrs: &Attributes,
    free_cells: Option<usize>,
    offset: usize,
) -> Class {
    let (height, width) = (grid.height as i32, grid.width as i32);
    let shape = shape_of(&pieces[m[0]].cells);
    let fits = |r: i32, c: i32| shape.iter().all(|&(dr, dc)| grid.open(r + dr, c + dc));
    let mobility = attrs.mobility[m[0]];
    // A class's positions: where its pieces can get to from their start on
    // the board without other pieces (its rails and the walls allow no
    // more), or for a class ranked among the free cells, wherever its shape
    // fits (its rank is over free cells, not positions). A car on a rail of
    // a 6x6 board has 4 or 5 positions, not 24 or 30: keys of boards with
    // many distinct cars then fit in 64 bits.
    let mut reach = vec![false; grid.cells()];
    let mut stack: Vec<(i32, i32)> = m
        .iter()
        .map(|&i| (pieces[i].cells[0].0 as i32, pieces[i].cells[0].1 as i32))
        .collect();
    for &(r, c) in &stack {
        reach[r as usize * grid.width + c as usize] = true;
    }
    while let Some((r, c)) = stack.pop() {
        for d in Dir::ALL {
            let (dr, dc) = d.delta();
            let (r2, c2) = (r + dr, c + dc);
            if mobility.allows(d) && fits(r2, c2) {
                let at = r2 as usize * grid.width + c2 as usize;
                if !reach[at] {
                    reach[at] = true;
                    stack.push((r2, c2));
                }
            }
        }
    }
    // The anchors the pieces reach alone: where a goal can be met.
    let reachable = (0..grid.cells())
        .filter(|&i| reach[i])
        .fold(0u64, |m, i| m | 1 << i);
    if free_cells.is_some() {
        for r in 0..height {
            for c in 0..width {
                reach[r as usize * grid.width + c as usize] = fits(r, c);
            }
        }
    }
    let mut anchors = Vec::new();
    let mut masks = Vec::new();
    let mut anchor_index = vec![NONE; grid.cells()];
    for r in 0..height {
        for c in 0..width {
            let at = r as usize * grid.width + c as usize;
            if reach[at] {
                let mask = shape.iter().fold(0u64, |m, &(dr, dc)| {
                    m | 1 << ((r + dr) as usize * grid.width + (c + dc) as usize)
                });
                anchor_index[at] = anchors.len() as u16;
                anchors.push(at as u8);
                masks.push(mask);
            }
        }
    }
    let step = anchors
        .iter()
        .map(|&a| {
            let (r, c) = (
                (a as usize / grid.width) as i32,
                (a as usize % grid.width) as i32,
            );
            Dir::ALL.map(|d| {
                let (dr, dc) = d.delta();
                grid.cell(r + dr, c + dc).map_or(NONE, |n| anchor_index[n])
            })
        })
        .collect();
    let count = m.len();
    let positions = free_cells.unwrap_or(anchors.len());
    let radix = combinadic::binomial(positions, count);
    let by_complement = free_cells.is_some() && positions - count < count;
    // The size of the set the rank describes: the pieces' cells, or the
    // free cells they leave.
    let ranked = if by_complement {
        positions - count
    } else {
        count
    };
    Class {
        labels: m.iter().map(|&i| pieces[i].label).collect(),
        shape,
        colour: attrs.colour[m[0]].clone(),
        mobility,
        distinct: attrs.distinct[m[0]],
        anchors,
        cells_at: masks
            .iter()
            .flat_map(|&m| {
                let mut cells: Vec<u8> = (0..64u8).filter(|&c| m >> c & 1 != 0).collect();
                cells.resize(cells.len().next_multiple_of(4), cells[0]);
                cells
            })
            .collect(),
        masks,
        step,
        free_ranked: free_cells.is_some(),
        reachable,
        tile: free_cells.is_some() && count == 1 && !by_complement,
        by_complement,
        ranked_over: positions,
        radix,
        divisor: combinadic::Divisor::new(radix),
        subsets: (count > 1 && ranked > 0 && radix <= combinadic::SUBSET_TABLE_MAX)
            .then(|| combinadic::subsets_in_rank_order(positions, ranked)),
        weight: 0,
        offset,
    }
}

/// The key space, the product of the classes' radixes, when it fits 64
/// bits (else the puzzle takes keys of several words).
fn narrow_key_space(classes: &[Class]) -> Option<u64> {
    let key_space = classes
        .iter()
        .fold(1u128, |k, c| k.saturating_mul(c.radix as u128));
    u64::try_from(key_space).ok()
}

/// The error for a key space past what keys of several words hold
/// (`why`), with its order of magnitude and a short form of a long
/// product of `radices`, written `sizes`.
fn too_wide(
    src: &Source,
    rows: &[Row],
    radices: &[u64],
    sizes: &[String],
    why: &str,
) -> PuzzleError {
    let log10: f64 = radices.iter().map(|&r| (r as f64).log10()).sum();
    let product = if sizes.len() > 8 {
        format!(
            "{}·…·{} ({} classes)",
            sizes[..4].join("·"),
            sizes[sizes.len() - 2..].join("·"),
            sizes.len()
        )
    } else {
        sizes.join("·")
    };
    src.error(
        Some(rows[0].at),
        format!("the key space is {product}, about 10^{log10:.1}: {why}"),
        "make more pieces interchangeable (drop `distinct` or `colors`) or use a smaller board",
    )
}

/// The start's anchor indices, slot by slot; each class's labels are put
/// in anchor order, so that rendering a state gives the start board back.
fn start_positions(
    grid: &Grid,
    pieces: &[Piece],
    members: &[Vec<usize>],
    classes: &mut [Class],
) -> Vec<u16> {
    let anchor_of = |class: &Class, cells: &[(usize, usize)]| -> u16 {
        let cell = (cells[0].0 * grid.width + cells[0].1) as u8;
        class
            .anchors
            .iter()
            .position(|&a| a == cell)
            .expect("a start piece sits at an admissible anchor") as u16
    };
    let mut start_pos = Vec::new();
    for (class, m) in classes.iter_mut().zip(members) {
        let mut by_anchor: Vec<(u16, char)> = m
            .iter()
            .map(|&i| (anchor_of(class, &pieces[i].cells), pieces[i].label))
            .collect();
        by_anchor.sort_unstable();
        start_pos.extend(by_anchor.iter().map(|&(a, _)| a));
        class.labels = by_anchor.into_iter().map(|(_, l)| l).collect();
    }
    start_pos
}

/// The tables a puzzle derives from its classes: each slot's directions,
/// the first class ranked among free cells, the floor's cells, the tile
/// decoder's groups and the fast paths of one and few blanks.
fn derive_tables(puzzle: &mut SlidingPuzzle) {
    puzzle.slot_dirs = puzzle
        .slots
        .iter()
        .map(|&(ci, _)| {
            let mobility = puzzle.classes[usize::from(ci)].mobility;
            Dir::ALL
                .iter()
                .filter(|&&d| mobility.allows(d))
                .fold(0u8, |m, &d| m | 1 << d as u8)
        })
        .collect();
    puzzle.first_free = puzzle
        .classes
        .iter()
        .position(|c| c.free_ranked)
        .unwrap_or(puzzle.classes.len());
    puzzle.floor_cell = (0..64u8).filter(|&c| puzzle.floor >> c & 1 != 0).collect();
    // Tiles (single pieces ranked among free cells) decode through a list
    // of the free cells, a nibble each: possible when every free-ranked
    // class is one piece and the floor has at most 16 cells.
    let free_classes = &puzzle.classes[puzzle.first_free..];
    let tile_list = !free_classes.is_empty()
        && puzzle.floor_cell.len() <= 16
        && free_classes.iter().all(|c| c.tile);
    if tile_list {
        puzzle.tile_groups = super::TileGroup::split(free_classes);
    }
    puzzle.lone = super::lone::LoneBlank::new(puzzle);
    puzzle.blanks = super::blanks::FewBlanks::new(puzzle);
}

/// The goal's pieces as (class, anchor index), and why no position can
/// meet it, if none can (then there are no pieces).
type ParsedGoal = (Vec<(usize, u16)>, Option<String>);

#[allow(clippy::too_many_arguments)]
fn parse_goal(
    src: &Source,
    value: &Spanned<String>,
    board: &[Row],
    pieces: &[Piece],
    index: &HashMap<char, usize>,
    class_of_piece: &[usize],
    classes: &[Class],
    walls: u64,
) -> Result<ParsedGoal, PuzzleError> {
    let rows = grid_rows(src, value, "goal")?;
    // A goal no position can meet is not a mistake in the file: `count`
    // still works, and `solve` says why there is no solution.
    let mut impossible: Option<String> = None;
    let (height, width) = (board.len(), board[0].cells.len());
    if rows.len() != height {
        return Err(src.error(
            Some(rows[0].at),
            format!(
                "the goal has {} rows but the board has {height}",
                rows.len()
            ),
            "draw the goal on a board of the same size, '.' for cells that may hold anything",
        ));
    }
    // Each goal label with its cells and where it first appears.
    type GoalPiece = (char, Vec<(usize, usize)>, (usize, usize));
    let mut cells: Vec<GoalPiece> = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        if row.cells.len() != width {
            return Err(src.error(
                Some(row.at),
                format!(
                    "this goal row has {} cells but the board is {width} wide",
                    row.cells.len()
                ),
                "draw the goal on a board of the same size",
            ));
        }
        for (c, &(ch, at)) in row.cells.iter().enumerate() {
            let wall = walls & (1 << (r * width + c)) != 0;
            match ch {
                '.' => {}
                '#' if wall => {}
                _ if wall => {
                    let (line, col) = at;
                    impossible.get_or_insert(format!(
                        "the goal puts {ch:?} on a wall (line {line}, column {col}), which no piece can cover"
                    ));
                    // Drawn as part of the piece, for the shape check.
                    match cells.iter_mut().find(|(l, _, _)| *l == ch) {
                        Some((_, v, _)) => v.push((r, c)),
                        None => cells.push((ch, vec![(r, c)], at)),
                    }
                }
                '#' => {
                    return Err(src.error(
                        Some(at),
                        "the goal has a wall where the board has none".into(),
                        "use '#' in the goal only where the board has one",
                    ));
                }
                ch if !index.contains_key(&ch) => {
                    return Err(src.error(
                        Some(at),
                        format!("the goal names {ch:?}, which is not a piece on the board"),
                        "label goal cells with the label of a piece on the board",
                    ));
                }
                ch => match cells.iter_mut().find(|(l, _, _)| *l == ch) {
                    Some((_, v, _)) => v.push((r, c)),
                    None => cells.push((ch, vec![(r, c)], at)),
                },
            }
        }
    }
    if cells.is_empty() {
        return Err(src.error(
            Some(rows[0].at),
            "the goal marks no piece".into(),
            "label the cells the goal piece must cover, e.g. with its label",
        ));
    }
    let mut goal = Vec::new();
    let mut used = vec![0usize; classes.len()];
    for (label, gcells, at) in cells {
        let pi = index[&label];
        let ci = class_of_piece[pi];
        let class = &classes[ci];
        let (r0, c0) = gcells[0];
        let shape: Vec<(i32, i32)> = gcells
            .iter()
            .map(|&(r, c)| (r as i32 - r0 as i32, c as i32 - c0 as i32))
            .collect();
        if shape != class.shape {
            return Err(src.error(
                Some(at),
                format!(
                    "the goal's {label:?} covers {} cell(s) in a shape that is not piece {label:?}'s ({} cell(s) on the board)",
                    gcells.len(),
                    pieces[pi].cells.len()
                ),
                "draw the goal piece with exactly the piece's shape",
            ));
        }
        let cell = (r0 * width + c0) as u8;
        let a = class.anchors.iter().position(|&x| x == cell);
        if a.is_none() || class.reachable >> cell & 1 == 0 {
            impossible.get_or_insert(format!(
                "no piece interchangeable with {label:?} can reach the goal's position (its rails and the walls keep it out)"
            ));
        }
        used[ci] += 1;
        if used[ci] > class.count() {
            return Err(src.error(
                Some(at),
                format!(
                    "the goal needs {} pieces interchangeable with {label:?} but the board has {}",
                    used[ci],
                    class.count()
                ),
                "mark at most as many goal pieces of a kind as the board has",
            ));
        }
        if let Some(a) = a {
            goal.push((ci, a as u16));
        }
    }
    if impossible.is_some() {
        goal.clear();
    }
    Ok((goal, impossible))
}
