//! A twisty puzzle's solution as a page (`reach solve FILE --scramble S
//! --html PAGE`): the moves to step through, the position after each as
//! the file's sets, and the God's-number table of the puzzle (a count from
//! solved, as deep as a budget of states allows) with its profile drawn.
//! Self-contained like the sliding-block page: no network, and a policy
//! that lets only its own script and style run.

use reach::engine::Report;

use super::watch::{escape, script_safe, with_policy};

/// What the page shows.
pub(super) struct TwistyPage<'a> {
    pub(super) name: &'a str,
    pub(super) metric: &'a str,
    pub(super) scramble: Option<&'a str>,
    /// The moves, and the position before the first and after each.
    pub(super) moves: &'a [String],
    pub(super) positions: &'a [String],
    /// The count from solved, complete or cut at a budget of states.
    pub(super) table: &'a Report,
    /// Its profile, an SVG document.
    pub(super) plot: &'a str,
}

/// The page's HTML.
pub(super) fn page(p: &TwistyPage) -> String {
    let n = p.moves.len();
    let title = escape(&format!(
        "{}: {n} {} move{}",
        p.name,
        p.metric,
        if n == 1 { "" } else { "s" }
    ));
    let data = serde_json::json!({"moves": p.moves, "positions": p.positions});
    let data = script_safe(&data.to_string());
    let levels = &p.table.levels;
    let mut rows = String::new();
    let mut total = 0u64;
    for (d, &n) in levels.iter().enumerate() {
        total += n;
        rows.push_str(&format!(
            "<tr><td>{d}</td><td>{n}</td><td>{total}</td></tr>\n"
        ));
    }
    let depth = levels.len().saturating_sub(1);
    let verdict = if p.table.is_complete() {
        format!(
            "Every position, counted from solved: God's number in the {} metric is {depth} ({total} positions).",
            escape(p.metric)
        )
    } else {
        format!(
            "Counted from solved to depth {depth} ({total} positions), where the page's budget of states ends: the puzzle goes deeper (<code>reach count</code> takes it further)."
        )
    };
    // The plot is plotters' SVG: shapes and text with presentation
    // attributes, no script and no style attribute.
    let plot = p
        .plot
        .find("<svg")
        .map_or(String::new(), |i| p.plot[i..].to_string());
    let scramble = p.scramble.map_or(String::new(), |s| {
        format!("<p>Scramble: <code>{}</code></p>", escape(s))
    });
    let values = [
        ("TITLE", title.as_str()),
        ("DATA", data.as_str()),
        ("SCRAMBLE", scramble.as_str()),
        ("ROWS", rows.as_str()),
        ("VERDICT", verdict.as_str()),
        ("PLOT", plot.as_str()),
    ];
    with_policy(PAGE, &values)
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
  #main { display: flex; gap: 2em; flex-wrap: wrap; align-items: flex-start; }
  #position { font: 15px/1.3 monospace; background: #f6f4ef; border: 1px solid #ccc; padding: .6em 1em; min-width: 18em; }
  #controls { display: flex; gap: .5em; align-items: center; flex-wrap: wrap; margin: .8em 0; }
  button { font-size: 1em; padding: .3em .8em; }
  #moves { margin: 0; padding-left: 2.8em; max-height: 30em; overflow-y: auto; min-width: 8em; }
  #moves button { font: .95em monospace; padding: .1em .4em; border: 1px solid transparent; background: none; cursor: pointer; }
  #moves li.current button { border-color: #2b2b2b; background: #fde68a; font-weight: bold; }
  table { border-collapse: collapse; margin: .5em 0; }
  td, th { border: 1px solid #ccc; padding: .15em .7em; text-align: right; }
  .hint { color: #666; font-size: .9em; }
  #plot svg { max-width: 100%; height: auto; }
</style>
</head>
<body>
<h1>{{TITLE}}</h1>
{{SCRAMBLE}}
<div id="main">
<div>
<div id="controls">
  <button id="first" title="the start (Home)">start</button>
  <button id="back" title="step back (left arrow)">&#9664; back</button>
  <button id="next" title="step forward (right arrow)">next &#9654;</button>
  <button id="last" title="solved (End)">solved</button>
  <span id="counter"></span>
</div>
<div id="move" aria-live="polite"></div>
<pre id="position" aria-label="the position: each set's permutation and orientations"></pre>
<p class="hint">Keys: left and right arrows step, Home and End jump to the ends. Each set of pieces shows which piece is in each place, then each place's twist.</p>
</div>
<ol id="moves" aria-label="the moves"></ol>
<div>
<h2>God's-number table</h2>
<p id="verdict">{{VERDICT}}</p>
<table id="table"><thead><tr><th>depth</th><th>positions</th><th>up to it</th></tr></thead>
<tbody>
{{ROWS}}</tbody></table>
</div>
</div>
<div id="plot">{{PLOT}}</div>
<script>
"use strict";
const DATA = {{DATA}};
const last = DATA.moves.length;
const position = document.getElementById("position");
const counter = document.getElementById("counter");
const moveText = document.getElementById("move");
const list = document.getElementById("moves");
const items = DATA.moves.map((m, i) => {
  const li = document.createElement("li");
  const b = document.createElement("button");
  b.textContent = m;
  b.addEventListener("click", () => show(i + 1));
  li.appendChild(b);
  list.appendChild(li);
  return li;
});
let at = 0;
function show(i) {
  at = Math.max(0, Math.min(last, i));
  position.textContent = DATA.positions[at];
  counter.textContent = "move " + at + " / " + last;
  moveText.textContent = at === 0 ? "the start" : "after " + DATA.moves[at - 1] + (at === last ? ": solved" : "");
  items.forEach((li, j) => li.classList.toggle("current", j === at - 1));
}
document.getElementById("first").addEventListener("click", () => show(0));
document.getElementById("back").addEventListener("click", () => show(at - 1));
document.getElementById("next").addEventListener("click", () => show(at + 1));
document.getElementById("last").addEventListener("click", () => show(last));
document.addEventListener("keydown", (e) => {
  const to = {ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: last}[e.key];
  if (to !== undefined) { e.preventDefault(); show(to); }
});
show(0);
</script>
</body>
</html>
"##;
