//! Solutions and boards to look at: a self-contained HTML page that plays
//! a solution, and an SVG of the start and goal boards.
//!
//! Boards travel as the text `SlidingPuzzle::render` prints (a label a
//! cell, `.` empty, `#` wall); each class of interchangeable pieces gets
//! its own colour, the same on the page and in the SVG.

use std::fmt::Write as _;

use reach::puzzles::sliding::{Dir, SlidingPuzzle, Step};

/// A colour per class of interchangeable pieces: hues spread around the
/// wheel by the golden angle, so neighbouring classes differ.
fn class_colours(puzzle: &SlidingPuzzle) -> Vec<(char, String)> {
    let mut out = Vec::new();
    for (i, class) in puzzle.classes().iter().enumerate() {
        let hue = (i as f64 * 137.508) % 360.0;
        for &label in &class.labels {
            out.push((label, format!("hsl({hue:.0},65%,62%)")));
        }
    }
    out
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
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One board as SVG elements at (`x`, `y`), cells of `size` pixels.
fn board_svg(board: &str, colours: &[(char, String)], x: f64, y: f64, size: f64) -> String {
    let mut out = String::new();
    for (r, row) in board.lines().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            let (cx, cy) = (x + c as f64 * size, y + r as f64 * size);
            let (fill, text) = match ch {
                '#' => ("#333".to_string(), None),
                '.' => ("#f4f1ea".to_string(), None),
                l => (
                    colours
                        .iter()
                        .find(|(k, _)| *k == l)
                        .map_or("#bbb".to_string(), |(_, c)| c.clone()),
                    Some(l),
                ),
            };
            let _ = write!(
                out,
                r##"<rect x="{cx}" y="{cy}" width="{size}" height="{size}" fill="{fill}" stroke="#888" stroke-width="1"/>"##
            );
            if let Some(l) = text {
                let _ = write!(
                    out,
                    r#"<text x="{}" y="{}" font-size="{}" text-anchor="middle" dominant-baseline="central" font-family="sans-serif">{}</text>"#,
                    cx + size / 2.0,
                    cy + size / 2.0,
                    size * 0.5,
                    escape(&l.to_string())
                );
            }
        }
    }
    out
}

/// The start and goal boards side by side, as an SVG document.
pub fn start_and_goal_svg(puzzle: &SlidingPuzzle, start: &str, goal: Option<&str>) -> String {
    let colours = class_colours(puzzle);
    let size = 40.0;
    let (w, h) = (puzzle.cols() as f64 * size, puzzle.rows() as f64 * size);
    let gap = 40.0;
    let total = if goal.is_some() { 2.0 * w + gap } else { w };
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}">"#,
        total + 20.0,
        h + 50.0,
        total + 20.0,
        h + 50.0
    );
    let _ = write!(
        out,
        r#"<text x="10" y="20" font-family="sans-serif" font-size="14">start</text>"#
    );
    out.push_str(&board_svg(start, &colours, 10.0, 30.0, size));
    if let Some(goal) = goal {
        let gx = 10.0 + w + gap;
        let _ = write!(
            out,
            r#"<text x="{gx}" y="20" font-family="sans-serif" font-size="14">goal</text>"#
        );
        out.push_str(&board_svg(goal, &colours, gx, 30.0, size));
    }
    out.push_str("</svg>\n");
    out
}

/// A page that plays the solution from `start` through `steps`: play and
/// pause, a step forward and back, a slider, the move counter and the move
/// in words; arrow keys, space, Home and End. No network, no external
/// script or font.
pub fn solution_page(puzzle: &SlidingPuzzle, metric: &str, start: &str, steps: &[Step]) -> String {
    let colours = class_colours(puzzle);
    let mut boards = vec![start.to_string()];
    boards.extend(steps.iter().map(|s| s.board.clone()));
    let words: Vec<String> = steps
        .iter()
        .map(|s| move_words(s.mv.piece, &s.mv.path))
        .collect();
    let js_string = |s: &str| serde_json::to_string(s).expect("a string serialises");
    let data = format!(
        "{{\"boards\":[{}],\"moves\":[{}],\"colours\":{{{}}}}}",
        boards
            .iter()
            .map(|b| js_string(b))
            .collect::<Vec<_>>()
            .join(","),
        words
            .iter()
            .map(|w| js_string(w))
            .collect::<Vec<_>>()
            .join(","),
        colours
            .iter()
            .map(|(l, c)| format!("{}:{}", js_string(&l.to_string()), js_string(c)))
            .collect::<Vec<_>>()
            .join(",")
    );
    let data = script_safe(&data);
    let title = escape(&format!(
        "{}: {} {metric} move(s)",
        puzzle.name(),
        steps.len()
    ));
    let (rows, cols) = (puzzle.rows().to_string(), puzzle.cols().to_string());
    let values = [
        ("TITLE", title.as_str()),
        ("DATA", data.as_str()),
        ("ROWS", rows.as_str()),
        ("COLS", cols.as_str()),
    ];
    // The policy names the page's own script and style by their hashes:
    // nothing else may run or style the page, whatever it holds.
    let (head, body) = PAGE.split_once("{{CSP}}").expect("the page has a policy");
    let (head, body) = (fill(head, &values), fill(body, &values));
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
fn script_safe(json: &str) -> String {
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
  #board { display: block; margin: 1em 0; }
  #controls { display: flex; gap: .5em; align-items: center; flex-wrap: wrap; }
  button { font-size: 1em; padding: .3em .8em; }
  #slider { width: 20em; }
  #move { font-size: 1.2em; min-height: 1.5em; margin-top: .5em; }
  .hint { color: #666; font-size: .9em; }
</style>
</head>
<body>
<h1>{{TITLE}}</h1>
<svg id="board" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="the board"></svg>
<div id="controls">
  <button id="back" title="step back (left arrow)">&#9664; back</button>
  <button id="play" title="play or pause (space)">play</button>
  <button id="next" title="step forward (right arrow)">next &#9654;</button>
  <input id="slider" type="range" min="0" value="0" aria-label="position in the solution">
  <span id="counter"></span>
</div>
<div id="move" aria-live="polite"></div>
<p class="hint">Keys: left and right arrows step, space plays and pauses, Home and End jump to the ends.</p>
<script>
"use strict";
const DATA = {{DATA}};
const ROWS = {{ROWS}}, COLS = {{COLS}}, CELL = 48;
const svg = document.getElementById("board");
const slider = document.getElementById("slider");
const counter = document.getElementById("counter");
const moveText = document.getElementById("move");
const playButton = document.getElementById("play");
const NS = "http://www.w3.org/2000/svg";
svg.setAttribute("width", COLS * CELL + 2);
svg.setAttribute("height", ROWS * CELL + 2);
slider.max = DATA.boards.length - 1;
let at = 0, timer = null;

function draw() {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const rows = DATA.boards[at].split("\n").filter(r => r.length > 0);
  rows.forEach((row, r) => {
    Array.from(row).forEach((ch, c) => {
      const rect = document.createElementNS(NS, "rect");
      rect.setAttribute("x", 1 + c * CELL);
      rect.setAttribute("y", 1 + r * CELL);
      rect.setAttribute("width", CELL);
      rect.setAttribute("height", CELL);
      rect.setAttribute("stroke", "#888");
      const fill = ch === "#" ? "#333" : ch === "." ? "#f4f1ea" : (DATA.colours[ch] || "#bbb");
      rect.setAttribute("fill", fill);
      rect.setAttribute("data-cell", r + "," + c);
      svg.appendChild(rect);
      if (ch !== "#" && ch !== ".") {
        const text = document.createElementNS(NS, "text");
        text.setAttribute("x", 1 + c * CELL + CELL / 2);
        text.setAttribute("y", 1 + r * CELL + CELL / 2);
        text.setAttribute("text-anchor", "middle");
        text.setAttribute("dominant-baseline", "central");
        text.setAttribute("font-size", CELL / 2);
        text.textContent = ch;
        svg.appendChild(text);
      }
    });
  });
  slider.value = at;
  counter.textContent = "move " + at + " / " + (DATA.boards.length - 1);
  moveText.textContent = at === 0 ? "the start" : DATA.moves[at - 1];
}

function go(i) {
  at = Math.max(0, Math.min(DATA.boards.length - 1, i));
  draw();
}

function pause() {
  if (timer !== null) { clearInterval(timer); timer = null; }
  playButton.textContent = "play";
}

function play() {
  if (timer !== null) { pause(); return; }
  if (at === DATA.boards.length - 1) go(0);
  playButton.textContent = "pause";
  timer = setInterval(() => {
    if (at >= DATA.boards.length - 1) { pause(); return; }
    go(at + 1);
  }, 500);
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
  else if (e.key === "End") { pause(); go(DATA.boards.length - 1); }
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
    fn markup_is_escaped() {
        assert_eq!(escape("<a&\"b\">"), "&lt;a&amp;&quot;b&quot;&gt;");
    }
}
