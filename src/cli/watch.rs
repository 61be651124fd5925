//! Solutions and boards to look at: a self-contained HTML page that plays
//! a solution, and an SVG of the start and goal boards.
//!
//! Boards travel as the text `SlidingPuzzle::render` prints (a label a
//! cell, `.` empty, `#` wall); each class of interchangeable pieces gets
//! its own colour, the same on the page and in the SVG.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use reach::puzzles::sliding::{Dir, SlidingPuzzle, Step};

/// The CSS colour names a puzzle file's `colors` may use (CSS Color
/// Module Level 4's named colours).
const CSS_COLOURS: &[&str] = &[
    "aliceblue",
    "antiquewhite",
    "aqua",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanchedalmond",
    "blue",
    "blueviolet",
    "brown",
    "burlywood",
    "cadetblue",
    "chartreuse",
    "chocolate",
    "coral",
    "cornflowerblue",
    "cornsilk",
    "crimson",
    "cyan",
    "darkblue",
    "darkcyan",
    "darkgoldenrod",
    "darkgray",
    "darkgreen",
    "darkgrey",
    "darkkhaki",
    "darkmagenta",
    "darkolivegreen",
    "darkorange",
    "darkorchid",
    "darkred",
    "darksalmon",
    "darkseagreen",
    "darkslateblue",
    "darkslategray",
    "darkslategrey",
    "darkturquoise",
    "darkviolet",
    "deeppink",
    "deepskyblue",
    "dimgray",
    "dimgrey",
    "dodgerblue",
    "firebrick",
    "floralwhite",
    "forestgreen",
    "fuchsia",
    "gainsboro",
    "ghostwhite",
    "gold",
    "goldenrod",
    "gray",
    "green",
    "greenyellow",
    "grey",
    "honeydew",
    "hotpink",
    "indianred",
    "indigo",
    "ivory",
    "khaki",
    "lavender",
    "lavenderblush",
    "lawngreen",
    "lemonchiffon",
    "lightblue",
    "lightcoral",
    "lightcyan",
    "lightgoldenrodyellow",
    "lightgray",
    "lightgreen",
    "lightgrey",
    "lightpink",
    "lightsalmon",
    "lightseagreen",
    "lightskyblue",
    "lightslategray",
    "lightslategrey",
    "lightsteelblue",
    "lightyellow",
    "lime",
    "limegreen",
    "linen",
    "magenta",
    "maroon",
    "mediumaquamarine",
    "mediumblue",
    "mediumorchid",
    "mediumpurple",
    "mediumseagreen",
    "mediumslateblue",
    "mediumspringgreen",
    "mediumturquoise",
    "mediumvioletred",
    "midnightblue",
    "mintcream",
    "mistyrose",
    "moccasin",
    "navajowhite",
    "navy",
    "oldlace",
    "olive",
    "olivedrab",
    "orange",
    "orangered",
    "orchid",
    "palegoldenrod",
    "palegreen",
    "paleturquoise",
    "palevioletred",
    "papayawhip",
    "peachpuff",
    "peru",
    "pink",
    "plum",
    "powderblue",
    "purple",
    "rebeccapurple",
    "red",
    "rosybrown",
    "royalblue",
    "saddlebrown",
    "salmon",
    "sandybrown",
    "seagreen",
    "seashell",
    "sienna",
    "silver",
    "skyblue",
    "slateblue",
    "slategray",
    "slategrey",
    "snow",
    "springgreen",
    "steelblue",
    "tan",
    "teal",
    "thistle",
    "tomato",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "whitesmoke",
    "yellow",
    "yellowgreen",
];

/// The colour that marks the goal's pieces when the file names none.
const GOAL_COLOUR: &str = "#d62728";

/// One class of interchangeable pieces as drawn: its colour and labels.
struct Swatch {
    colour: String,
    labels: Vec<char>,
    goal: bool,
}

/// A colour per class: the file's `colors` name when it is a CSS colour;
/// else the goal's classes in red and the others in soft hues spread
/// around the wheel by the golden angle (so neighbouring classes differ),
/// clear of red.
fn swatches(puzzle: &SlidingPuzzle) -> Vec<Swatch> {
    let goal = puzzle.goal_board().unwrap_or_default();
    let mut hues = 0;
    puzzle
        .classes()
        .iter()
        .map(|class| {
            let in_goal = class.labels.iter().any(|&l| goal.contains(l));
            let named = class
                .colour
                .as_deref()
                .map(str::to_ascii_lowercase)
                .filter(|c| CSS_COLOURS.contains(&c.as_str()));
            let colour = match named {
                Some(c) => c,
                None if in_goal => GOAL_COLOUR.to_string(),
                None => {
                    let hue = (40.0 + hues as f64 * 137.508) % 320.0 + 20.0;
                    hues += 1;
                    format!("hsl({hue:.0},55%,68%)")
                }
            };
            Swatch {
                colour,
                labels: class.labels.clone(),
                goal: in_goal,
            }
        })
        .collect()
}

/// The colour of `label`'s class.
fn colour_of(swatches: &[Swatch], label: char) -> &str {
    swatches
        .iter()
        .find(|s| s.labels.contains(&label))
        .map_or("#bbb", |s| s.colour.as_str())
}

/// A cell (row, column), or a grid point or step (x, y).
type Cell = (i32, i32);
/// A corner of an outline: the point, the step into it, the step out.
type Corner = (Cell, Cell, Cell);
/// A corner moved by the inset, in pixels, with its steps.
type Shifted = ((f64, f64), Cell, Cell);

/// The cells of each label on a board (`render`'s text), by label, and the
/// walls.
fn cells_of(board: &str) -> (BTreeMap<char, Vec<Cell>>, Vec<Cell>) {
    let mut pieces: BTreeMap<char, Vec<(i32, i32)>> = BTreeMap::new();
    let mut walls = Vec::new();
    for (r, row) in board.lines().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            let at = (r as i32, c as i32);
            match ch {
                '.' => {}
                '#' => walls.push(at),
                l => pieces.entry(l).or_default().push(at),
            }
        }
    }
    (pieces, walls)
}

/// The top-left corner of a piece's bounding box: where it is.
fn anchor(cells: &[(i32, i32)]) -> (i32, i32) {
    let r = cells.iter().map(|c| c.0).min().unwrap_or(0);
    let c = cells.iter().map(|c| c.1).min().unwrap_or(0);
    (r, c)
}

/// Where a piece's label goes, in cells from the grid's corner: the
/// centre of its cells when that lies on the piece (a block, a domino),
/// else the middle of its first cell (an L).
fn label_at(cells: &[(i32, i32)]) -> (f64, f64) {
    let n = cells.len() as f64;
    let y = cells.iter().map(|c| f64::from(c.0)).sum::<f64>() / n + 0.5;
    let x = cells.iter().map(|c| f64::from(c.1)).sum::<f64>() / n + 0.5;
    let inside = cells.contains(&(y.floor() as i32, x.floor() as i32));
    if inside {
        (x, y)
    } else {
        (f64::from(cells[0].1) + 0.5, f64::from(cells[0].0) + 0.5)
    }
}

/// The outline of a union of grid cells as an SVG path: each loop of its
/// boundary traced clockwise (interior on the right), moved `inset`
/// pixels inward (each corner by both of its edges' normals, which is
/// exact for right angles, convex or not) and rounded by `radius`.
/// Cells are `size` pixels; (0, 0) is the grid's corner.
pub fn outline(cells: &[(i32, i32)], size: f64, inset: f64, radius: f64) -> String {
    use std::collections::{HashMap, HashSet};
    let set: HashSet<(i32, i32)> = cells.iter().copied().collect();
    // Directed boundary edges between grid points (x, y) = (column, row).
    let mut from: HashMap<(i32, i32), Vec<(i32, i32)>> = HashMap::new();
    for &(r, c) in cells {
        let mut edge = |a: (i32, i32), b: (i32, i32)| {
            from.entry(a).or_default().push(b);
        };
        if !set.contains(&(r - 1, c)) {
            edge((c, r), (c + 1, r));
        }
        if !set.contains(&(r, c + 1)) {
            edge((c + 1, r), (c + 1, r + 1));
        }
        if !set.contains(&(r + 1, c)) {
            edge((c + 1, r + 1), (c, r + 1));
        }
        if !set.contains(&(r, c - 1)) {
            edge((c, r + 1), (c, r));
        }
    }
    let mut path = String::new();
    let mut starts: Vec<(i32, i32)> = from.keys().copied().collect();
    starts.sort_unstable();
    for start in starts {
        while from.get(&start).is_some_and(|v| !v.is_empty()) {
            // Walk one loop, keeping the corners.
            let mut corners: Vec<Corner> = Vec::new();
            let mut at = start;
            let mut dir: Option<(i32, i32)> = None;
            let mut points = Vec::new();
            loop {
                let outs = from.get_mut(&at).expect("a boundary point");
                if outs.is_empty() {
                    break;
                }
                // Where two loops touch at a corner, turn right: it keeps
                // each loop to its own piece of the boundary.
                let pick = match dir {
                    Some((dx, dy)) => outs
                        .iter()
                        .position(|&(x, y)| (x - at.0, y - at.1) == (-dy, dx))
                        .unwrap_or(0),
                    None => 0,
                };
                let next = outs.swap_remove(pick);
                let d = (next.0 - at.0, next.1 - at.1);
                points.push((at, d));
                dir = Some(d);
                at = next;
                if at == start {
                    break;
                }
            }
            let n = points.len();
            for i in 0..n {
                let (p, d_out) = points[i];
                let d_in = points[(i + n - 1) % n].1;
                if d_in != d_out {
                    corners.push((p, d_in, d_out));
                }
            }
            if corners.is_empty() {
                continue;
            }
            let right = |(dx, dy): (i32, i32)| (f64::from(-dy), f64::from(dx));
            let shifted: Vec<Shifted> = corners
                .iter()
                .map(|&((x, y), d_in, d_out)| {
                    let (n1, n2) = (right(d_in), right(d_out));
                    (
                        (
                            f64::from(x) * size + inset * (n1.0 + n2.0),
                            f64::from(y) * size + inset * (n1.1 + n2.1),
                        ),
                        d_in,
                        d_out,
                    )
                })
                .collect();
            let r = radius.min((size - 2.0 * inset) / 2.0).max(0.0);
            let off = |(x, y): (f64, f64), (dx, dy): (i32, i32), k: f64| {
                (x + f64::from(dx) * k, y + f64::from(dy) * k)
            };
            let m = shifted.len();
            for i in 0..=m {
                let (v, d_in, d_out) = shifted[i % m];
                let before = off(v, d_in, -r);
                let after = off(v, d_out, r);
                if i == 0 {
                    let _ = write!(path, "M{:.1} {:.1}", after.0, after.1);
                } else {
                    let _ = write!(
                        path,
                        "L{:.1} {:.1}Q{:.1} {:.1} {:.1} {:.1}",
                        before.0, before.1, v.0, v.1, after.0, after.1
                    );
                }
            }
            path.push('Z');
        }
    }
    path
}

/// A move in words: "B down 2", "C right 1, down 1".
pub fn move_words(piece: char, path: &[Dir]) -> String {
    let mut parts: Vec<(Dir, usize)> = Vec::new();
    for &d in path {
        match parts.last_mut() {
            Some((last, n)) if *last == d => *n += 1,
            _ => parts.push((d, 1)),
        }
    }
    let words: Vec<String> = parts
        .iter()
        .map(|(d, n)| format!("{} {n}", d.name()))
        .collect();
    format!("{piece} {}", words.join(", "))
}

/// Escapes text for HTML and SVG.
pub(super) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Cell size, the inset of a piece from its cells' edges (half the gap
/// between neighbours) and the rounding of its corners, in pixels.
const CELL: f64 = 48.0;
const INSET: f64 = 3.0;
const RADIUS: f64 = 8.0;
/// The floor and the walls.
const FLOOR: &str = "#efe9dc";
const WALL: &str = "#4a4a4a";

/// One board as SVG elements at (`x`, `y`): floor and walls cell by cell,
/// each piece one rounded shape with its label, and the goal's cells
/// outlined in dashes.
fn board_svg(board: &str, swatches: &[Swatch], goal: Option<&str>, x: f64, y: f64) -> String {
    let mut out = format!(r#"<g transform="translate({x},{y})">"#);
    let (pieces, walls) = cells_of(board);
    for (r, row) in board.lines().enumerate() {
        for c in 0..row.chars().count() {
            let wall = walls.contains(&(r as i32, c as i32));
            let _ = write!(
                out,
                r#"<rect x="{}" y="{}" width="{CELL}" height="{CELL}" fill="{}"/>"#,
                c as f64 * CELL,
                r as f64 * CELL,
                if wall { WALL } else { FLOOR }
            );
        }
    }
    for (label, cells) in &pieces {
        let _ = write!(
            out,
            r##"<path d="{}" fill="{}" stroke="#2b2b2b" stroke-width="1.5"/>"##,
            outline(cells, CELL, INSET, RADIUS),
            escape(colour_of(swatches, *label))
        );
        let (x, y) = label_at(cells);
        let _ = write!(
            out,
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="middle" dominant-baseline="central" font-family="sans-serif">{}</text>"#,
            x * CELL,
            y * CELL,
            CELL * 0.45,
            escape(&label.to_string())
        );
    }
    if let Some(goal) = goal {
        let (targets, _) = cells_of(goal);
        for cells in targets.values() {
            let _ = write!(
                out,
                r##"<path d="{}" fill="none" stroke="{GOAL_COLOUR}" stroke-width="3" stroke-dasharray="7 5"/>"##,
                outline(cells, CELL, 1.5, RADIUS)
            );
        }
    }
    out.push_str("</g>");
    out
}

/// The start and goal boards side by side, as an SVG document: pieces as
/// pieces, the goal's cells outlined on both, and a legend of the classes.
pub fn start_and_goal_svg(puzzle: &SlidingPuzzle, start: &str, goal: Option<&str>) -> String {
    let swatches = swatches(puzzle);
    let (w, h) = (puzzle.cols() as f64 * CELL, puzzle.rows() as f64 * CELL);
    let gap = 40.0;
    let total = if goal.is_some() { 2.0 * w + gap } else { w };
    let legend_h = 22.0 * swatches.len() as f64 + 10.0;
    let (width, height) = (total.max(260.0) + 20.0, h + 50.0 + legend_h);
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    );
    let _ = write!(
        out,
        r#"<text x="10" y="20" font-family="sans-serif" font-size="14">start</text>"#
    );
    out.push_str(&board_svg(start, &swatches, goal, 10.0, 30.0));
    if let Some(goal) = goal {
        let gx = 10.0 + w + gap;
        let _ = write!(
            out,
            r#"<text x="{gx}" y="20" font-family="sans-serif" font-size="14">goal (dashed: the cells to reach)</text>"#
        );
        // The goal board: the start's pieces where the goal puts its own,
        // the rest left out (the goal names only what must get there).
        out.push_str(&board_svg(goal, &swatches, Some(goal), gx, 30.0));
    }
    for (i, s) in swatches.iter().enumerate() {
        let y = h + 45.0 + 22.0 * i as f64;
        let _ = write!(
            out,
            r##"<rect x="10" y="{y}" width="16" height="16" rx="3" fill="{}" stroke="#2b2b2b"/><text x="32" y="{}" font-family="sans-serif" font-size="13">{}</text>"##,
            escape(&s.colour),
            y + 13.0,
            escape(&legend_text(s))
        );
    }
    out.push_str("</svg>\n");
    out
}

/// What the legend says of a class.
fn legend_text(s: &Swatch) -> String {
    let labels: String = s.labels.iter().collect();
    let what = match (s.labels.len(), s.goal) {
        (1, true) => "the goal's piece".to_string(),
        (1, false) => "a piece".to_string(),
        (n, true) => format!("{n} interchangeable pieces, the goal's"),
        (n, false) => format!("{n} interchangeable pieces"),
    };
    format!("{labels}: {what}")
}

/// A page that plays the solution from `start` through `steps`: the
/// pieces drawn as pieces, each sliding to its new place (and marked)
/// at every move; the goal's cells outlined; the move list beside the
/// board, the current move marked, a click on one jumps there; play and
/// pause, a step forward and back, a slider, arrow keys, space, Home and
/// End. No network, no external script or font.
pub fn solution_page(puzzle: &SlidingPuzzle, metric: &str, start: &str, steps: &[Step]) -> String {
    let swatches = swatches(puzzle);
    let mut boards = vec![start.to_string()];
    boards.extend(steps.iter().map(|s| s.board.clone()));
    let (first, walls) = cells_of(start);
    let labels: Vec<char> = first.keys().copied().collect();
    let pieces: Vec<serde_json::Value> = first
        .iter()
        .map(|(&label, cells)| {
            let (r0, c0) = anchor(cells);
            let shape: Vec<(i32, i32)> = cells.iter().map(|&(r, c)| (r - r0, c - c0)).collect();
            let (x, y) = label_at(&shape);
            serde_json::json!({
                "label": label.to_string(),
                "colour": colour_of(&swatches, label),
                "path": outline(&shape, CELL, INSET, RADIUS),
                "text": [x * CELL, y * CELL],
            })
        })
        .collect();
    let at: Vec<Vec<(i32, i32)>> = boards
        .iter()
        .map(|b| {
            let (cells, _) = cells_of(b);
            labels
                .iter()
                .map(|l| cells.get(l).map_or((0, 0), |c| anchor(c)))
                .collect()
        })
        .collect();
    let moves: Vec<serde_json::Value> = steps
        .iter()
        .map(|s| {
            serde_json::json!({
                "piece": labels.iter().position(|&l| l == s.mv.piece),
                "text": move_words(s.mv.piece, &s.mv.path),
            })
        })
        .collect();
    let goal = puzzle.goal_board().map(|g| {
        let (targets, _) = cells_of(&g);
        targets
            .values()
            .map(|cells| outline(cells, CELL, 1.5, RADIUS))
            .collect::<String>()
    });
    let legend: Vec<serde_json::Value> = swatches
        .iter()
        .map(|s| serde_json::json!({"colour": s.colour, "text": legend_text(s)}))
        .collect();
    let data = serde_json::json!({
        "rows": puzzle.rows(),
        "cols": puzzle.cols(),
        "cell": CELL,
        "floor": FLOOR,
        "wall": WALL,
        "walls": walls,
        "pieces": pieces,
        "at": at,
        "moves": moves,
        "goal": goal,
        "legend": legend,
    });
    let data = script_safe(&data.to_string());
    let n = steps.len();
    let title = escape(&format!(
        "{}: {n} {metric} move{}",
        puzzle.name(),
        if n == 1 { "" } else { "s" }
    ));
    let values = [("TITLE", title.as_str()), ("DATA", data.as_str())];
    with_policy(PAGE, &values)
}

/// The page `template` filled with `values`, its `{{CSP}}` replaced by a
/// policy that names the page's own script and style by their hashes:
/// nothing else may run or style the page, whatever it holds.
pub(super) fn with_policy(template: &str, values: &[(&str, &str)]) -> String {
    let (head, body) = template
        .split_once("{{CSP}}")
        .expect("the page has a policy");
    let (head, body) = (fill(head, values), fill(body, values));
    let csp = format!(
        "default-src 'none'; script-src '{}'; style-src '{}'",
        sha256_source(between(&body, "<script>", "</script>")),
        sha256_source(between(&body, "<style>", "</style>")),
    );
    format!("{head}{csp}{body}")
}

/// `template` with every `{{NAME}}` of `values` replaced, in one pass: what
/// a value holds is never read as a placeholder (a puzzle named `{{DATA}}`
/// stays a name).
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        match after.find("}}").and_then(|close| {
            let name = &after[..close];
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (close, *v))
        }) {
            Some((close, value)) => {
                out.push_str(value);
                rest = &after[close + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// JSON made safe inside a `<script>` element: `<`, `>` and `&` (which
/// could close the element or open a comment) and the two line separators
/// JavaScript once took for line ends become `\u` escapes, which mean the
/// same inside the JSON's strings, the only place they occur.
pub(super) fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The text between the first `open` and the next `close`.
fn between<'t>(text: &'t str, open: &str, close: &str) -> &'t str {
    let start = text.find(open).map_or(0, |i| i + open.len());
    let end = text[start..].find(close).map_or(text.len(), |i| start + i);
    &text[start..end]
}

/// A CSP hash source for `text`: `sha256-` and its digest in base64.
fn sha256_source(text: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "sha256-{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

const PAGE: &str = r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{{CSP}}">
<title>{{TITLE}}</title>
<style>
  body { font-family: sans-serif; margin: 1.5em; background: #fff; color: #222; }
  #main { display: flex; gap: 1.5em; flex-wrap: wrap; align-items: flex-start; }
  #main > div { max-width: 34em; }
  #board { display: block; max-width: 100%; height: auto; }
  #controls { display: flex; gap: .5em; align-items: center; flex-wrap: wrap; margin-top: .8em; }
  button { font-size: 1em; padding: .3em .8em; }
  #slider { width: 20em; max-width: 100%; }
  #move { font-size: 1.2em; min-height: 1.5em; margin-top: .5em; }
  #moves { margin: 0; padding-left: 2.8em; max-height: 30em; overflow-y: auto; min-width: 12em; }
  #moves button { font-size: .95em; padding: .1em .4em; border: 1px solid transparent; background: none; cursor: pointer; text-align: left; }
  #moves li.current button { border-color: #2b2b2b; background: #fde68a; font-weight: bold; }
  #legend { list-style: none; padding: 0; margin: .8em 0 0 0; }
  #legend li { margin: .2em 0; }
  .swatch { display: inline-block; width: 1em; height: 1em; border: 1px solid #2b2b2b; border-radius: 3px; vertical-align: middle; margin-right: .4em; }
  .piece { transition: transform .25s ease-in-out; }
  .piece path { stroke: #2b2b2b; stroke-width: 1.5; }
  .piece.moved path { stroke: #000; stroke-width: 4; }
  #goal-outline { fill: none; stroke: #d62728; stroke-width: 3; stroke-dasharray: 7 5; pointer-events: none; }
  .hint { color: #666; font-size: .9em; }
  @media (prefers-reduced-motion: reduce) { .piece { transition: none; } }
</style>
</head>
<body>
<h1>{{TITLE}}</h1>
<div id="main">
<div>
<svg id="board" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="the board"></svg>
<div id="controls">
  <button id="back" title="step back (left arrow)">&#9664; back</button>
  <button id="play" title="play or pause (space)">play</button>
  <button id="next" title="step forward (right arrow)">next &#9654;</button>
  <input id="slider" type="range" min="0" value="0" aria-label="position in the solution">
  <span id="counter"></span>
</div>
<div id="move" aria-live="polite"></div>
<ul id="legend"></ul>
<p class="hint">Keys: left and right arrows step, space plays and pauses, Home and End jump to the ends. The dashed outline marks the goal's cells; the piece that just moved is outlined in black.</p>
</div>
<ol id="moves" aria-label="the moves"></ol>
</div>
<script>
"use strict";
const DATA = {{DATA}};
const CELL = DATA.cell, PAD = 4, NS = "http://www.w3.org/2000/svg";
const svg = document.getElementById("board");
const slider = document.getElementById("slider");
const counter = document.getElementById("counter");
const moveText = document.getElementById("move");
const playButton = document.getElementById("play");
const list = document.getElementById("moves");
const last = DATA.at.length - 1;
const W = DATA.cols * CELL + 2 * PAD, H = DATA.rows * CELL + 2 * PAD;
svg.setAttribute("width", W);
svg.setAttribute("height", H);
svg.setAttribute("viewBox", "0 0 " + W + " " + H);
slider.max = last;
let at = 0, timer = null;

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  parent.appendChild(e);
  return e;
}

// The floor and walls, drawn once.
const root = el("g", {transform: "translate(" + PAD + "," + PAD + ")"}, svg);
const walls = new Set(DATA.walls.map(w => w[0] + "," + w[1]));
for (let r = 0; r < DATA.rows; r++) {
  for (let c = 0; c < DATA.cols; c++) {
    const wall = walls.has(r + "," + c);
    el("rect", {x: c * CELL, y: r * CELL, width: CELL, height: CELL,
                fill: wall ? DATA.wall : DATA.floor, "data-cell": r + "," + c}, root);
  }
}
// One shape per piece, moved as a whole: its colour and label follow it.
const shapes = DATA.pieces.map((p, i) => {
  const g = el("g", {"class": "piece", "data-piece": p.label}, root);
  el("path", {d: p.path, fill: p.colour}, g);
  const t = el("text", {x: p.text[0], y: p.text[1], "text-anchor": "middle",
                        "dominant-baseline": "central", "font-size": CELL * 0.45}, g);
  t.textContent = p.label;
  return g;
});
if (DATA.goal) el("path", {id: "goal-outline", d: DATA.goal}, root);
// The legend and the move list.
const legend = document.getElementById("legend");
for (const s of DATA.legend) {
  const li = document.createElement("li");
  const sw = document.createElement("span");
  sw.className = "swatch";
  sw.style.background = s.colour;
  li.appendChild(sw);
  li.appendChild(document.createTextNode(s.text));
  legend.appendChild(li);
}
const items = DATA.moves.map((m, i) => {
  const li = document.createElement("li");
  const b = document.createElement("button");
  b.textContent = m.text;
  b.addEventListener("click", () => { pause(); go(i + 1); });
  li.appendChild(b);
  list.appendChild(li);
  return li;
});

function draw() {
  DATA.at[at].forEach((rc, i) => {
    shapes[i].style.transform = "translate(" + rc[1] * CELL + "px," + rc[0] * CELL + "px)";
    shapes[i].classList.remove("moved");
  });
  if (at > 0 && DATA.moves[at - 1].piece !== null) shapes[DATA.moves[at - 1].piece].classList.add("moved");
  items.forEach((li, i) => {
    const current = i === at - 1;
    li.classList.toggle("current", current);
    if (current) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
  });
  if (at > 0) items[at - 1].scrollIntoView({block: "nearest"});
  slider.value = at;
  counter.textContent = "move " + at + " / " + last;
  moveText.textContent = at === 0 ? "the start" : DATA.moves[at - 1].text;
}

function go(i) {
  at = Math.max(0, Math.min(last, i));
  draw();
}

function pause() {
  if (timer !== null) { clearInterval(timer); timer = null; }
  playButton.textContent = "play";
}

function play() {
  if (timer !== null) { pause(); return; }
  if (at === last) go(0);
  playButton.textContent = "pause";
  timer = setInterval(() => {
    if (at >= last) { pause(); return; }
    go(at + 1);
  }, 600);
}

document.getElementById("back").addEventListener("click", () => { pause(); go(at - 1); });
document.getElementById("next").addEventListener("click", () => { pause(); go(at + 1); });
playButton.addEventListener("click", play);
slider.addEventListener("input", () => { pause(); go(Number(slider.value)); });
document.addEventListener("keydown", e => {
  if (e.target === slider && (e.key === "ArrowLeft" || e.key === "ArrowRight")) e.preventDefault();
  if (e.key === "ArrowRight") { pause(); go(at + 1); }
  else if (e.key === "ArrowLeft") { pause(); go(at - 1); }
  else if (e.key === " ") { e.preventDefault(); play(); }
  else if (e.key === "Home") { pause(); go(0); }
  else if (e.key === "End") { pause(); go(last); }
  else return;
});
draw();
</script>
</body>
</html>
"##;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_read_as_words() {
        assert_eq!(move_words('B', &[Dir::Down, Dir::Down]), "B down 2");
        assert_eq!(
            move_words('C', &[Dir::Right, Dir::Down, Dir::Down]),
            "C right 1, down 2"
        );
    }

    #[test]
    fn a_named_css_colour_is_honoured_and_the_goal_stands_out() {
        let toml = "board = \"\"\"\nXX.\nYZ.\n\"\"\"\ncolors = { red = \"X\", sunrise = \"Z\" }\ngoal = \"\"\"\n...\n..Y\n\"\"\"\n";
        let p = SlidingPuzzle::from_toml(toml, "t").unwrap();
        let s = swatches(&p);
        assert_eq!(colour_of(&s, 'X'), "red");
        // Not a CSS colour: a hue of its own; the goal's piece: red.
        assert!(colour_of(&s, 'Z').starts_with("hsl("));
        assert_eq!(colour_of(&s, 'Y'), GOAL_COLOUR);
    }

    #[test]
    fn outlines_are_one_loop_a_piece_with_its_corners() {
        // A 2x2 block: one loop, four rounded corners.
        let block = outline(&[(0, 0), (0, 1), (1, 0), (1, 1)], 10.0, 1.0, 2.0);
        assert_eq!(
            (block.matches('M').count(), block.matches('Q').count()),
            (1, 4)
        );
        assert!(block.starts_with("M3.0 1.0"), "{block}");
        // An L: six corners, the inner one moved out by the inset too.
        let l = outline(&[(0, 0), (1, 0), (1, 1)], 10.0, 1.0, 2.0);
        assert_eq!((l.matches('M').count(), l.matches('Q').count()), (1, 6));
        assert!(l.contains("Q9.0 11.0"), "the inner corner at (9, 11): {l}");
        // Two cells that touch only at a corner: two loops.
        let two = outline(&[(0, 0), (1, 1)], 10.0, 1.0, 2.0);
        assert_eq!(two.matches('M').count(), 2, "{two}");
    }

    #[test]
    fn markup_is_escaped() {
        assert_eq!(escape("<a&\"b\">"), "&lt;a&amp;&quot;b&quot;&gt;");
    }
}
