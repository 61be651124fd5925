// reach studio: draw a sliding-block puzzle or edit its file, and see its
// count, solution, hardest position and census as you go; or edit a twisty
// puzzle's .tws or KPuzzle text and see its God's-number table and the
// solution of a scramble. Everything is computed by the reach process that
// served this page.
"use strict";

const $ = (id) => document.getElementById(id);
const HUES = ["#e4572e", "#17bebb", "#ffc914", "#76b041", "#a06cd5", "#f78fb3",
  "#4e8098", "#e8871e", "#7cb518", "#c17c74", "#5d737e", "#d4a373"];
const LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

// The puzzle as the page edits it.
let P = { name: "my puzzle", board: [["."]], goal: null, distinct: "", horizontal: "", vertical: "", colors: {} };
let selected = null;     // the label of the selected piece
let job = null;          // the job under way: its id and event source
let censusJob = null;
let timer = null;
let kind = "sliding";     // what the text is: "sliding" or "twisty"

const METRICS = { sliding: ["step", "slide", "piece"], twisty: ["htm", "qtm", "moves"] };

// ---- the file's text, both ways ----

function rowsOf(text) {
  return (text || "").split("\n").filter((l) => l.length > 0).map((l) => Array.from(l));
}

function fromFields(f) {
  const board = rowsOf(f.board);
  if (board.length === 0) return;
  P = {
    name: f.name || "my puzzle",
    board,
    goal: f.goal ? rowsOf(f.goal) : null,
    distinct: f.distinct || "",
    horizontal: f.horizontal || "",
    vertical: f.vertical || "",
    colors: f.colors || {},
  };
}

function quoted(s) {
  return JSON.stringify(s);
}

function toToml() {
  const lines = [`name = ${quoted(P.name)}`, 'board = """'];
  P.board.forEach((r) => lines.push(r.join("")));
  lines.push('"""');
  const labels = pieceLabels();
  const keep = (s) => Array.from(s).filter((c) => c === "*" || labels.includes(c)).join("");
  for (const key of ["distinct", "horizontal", "vertical"]) {
    const v = keep(P[key]);
    if (v) lines.push(`${key} = ${quoted(v)}`);
  }
  const colours = Object.entries(P.colors)
    .map(([c, ls]) => [c, keep(ls)]).filter(([, ls]) => ls);
  if (colours.length) {
    lines.push(`colors = { ${colours.map(([c, ls]) => `${c} = ${quoted(ls)}`).join(", ")} }`);
  }
  if (P.goal && P.goal.some((r) => r.some((c) => c !== "."))) {
    lines.push('goal = """');
    P.goal.forEach((r) => lines.push(r.join("")));
    lines.push('"""');
  }
  return lines.join("\n") + "\n";
}

function pieceLabels() {
  const seen = [];
  P.board.forEach((r) => r.forEach((c) => { if (c !== "." && c !== "#" && !seen.includes(c)) seen.push(c); }));
  return seen;
}

// ---- drawing ----

// What makes pieces one class of interchangeable pieces (as reach reads
// the file): shape, rails, colour, and a distinct piece's own label.
function classOf(label) {
  const cells = cellsOf(label);
  const [r0, c0] = cells[0] || [0, 0];
  const rails = P.horizontal.includes(label) ? "h" : P.vertical.includes(label) ? "v" : "";
  const distinct = P.distinct === "*" || P.distinct.includes(label) ? label : "";
  const named = Object.entries(P.colors).find(([, ls]) => ls.includes(label));
  return JSON.stringify([cells.map(([r, c]) => [r - r0, c - c0]), rails, distinct, named ? named[0] : ""]);
}

// A named colour, else a hue for each class, so that interchangeable
// pieces look alike.
function colourOf(label) {
  for (const [c, ls] of Object.entries(P.colors)) if (ls.includes(label)) return c;
  const classes = [];
  for (const l of pieceLabels()) {
    const k = classOf(l);
    if (!classes.includes(k)) classes.push(k);
  }
  return HUES[Math.max(0, classes.indexOf(classOf(label))) % HUES.length];
}

function drawGrid(el, rows, goal) {
  el.replaceChildren();
  el.style.gridTemplateColumns = `repeat(${rows[0].length}, 40px)`;
  rows.forEach((row, r) => row.forEach((ch, c) => {
    const cell = document.createElement("div");
    cell.className = "cell";
    cell.dataset.r = r;
    cell.dataset.c = c;
    const wall = P.board[r] && P.board[r][c] === "#";
    if (wall) cell.classList.add("wall");
    else if (ch !== "." && ch !== "#") {
      cell.classList.add("piece");
      cell.textContent = ch;
      cell.style.background = colourOf(ch);
      if (ch === selected) cell.classList.add("selected");
    }
    if (goal) cell.classList.add("goal-cell");
    el.appendChild(cell);
  }));
}

function redraw() {
  $("rows").value = P.board.length;
  $("cols").value = P.board[0].length;
  drawGrid($("board"), P.board, false);
  drawGrid($("goal"), P.goal || P.board.map((r) => r.map(() => ".")), true);
  const sel = selected && pieceLabels().includes(selected);
  $("selected").textContent = sel ? selected : "(none)";
  $("rails").value = sel && P.horizontal.includes(selected) ? "horizontal"
    : sel && P.vertical.includes(selected) ? "vertical" : "free";
  $("distinct").checked = !!sel && (P.distinct === "*" || P.distinct.includes(selected));
  $("colour").value = sel ? (Object.entries(P.colors).find(([, ls]) => ls.includes(selected)) || [""])[0] : "";
}

function cellAt(x, y, grid) {
  const el = document.elementFromPoint(x, y);
  if (!el || !el.classList.contains("cell") || el.parentElement !== grid) return null;
  return [Number(el.dataset.r), Number(el.dataset.c)];
}

function tool() {
  return document.querySelector('input[name="tool"]:checked').value;
}

function cellsOf(label) {
  const out = [];
  P.board.forEach((row, r) => row.forEach((ch, c) => { if (ch === label) out.push([r, c]); }));
  return out;
}

// A drag on the board: draws a piece, moves one, or paints walls.
let drag = null;

function boardDown(e) {
  const at = cellAt(e.clientX, e.clientY, $("board"));
  if (!at) return;
  e.preventDefault();
  $("board").setPointerCapture(e.pointerId);
  const ch = P.board[at[0]][at[1]];
  const t = tool();
  if (t === "piece" && ch !== "." && ch !== "#") {
    selected = ch;
    drag = { kind: "move", label: ch, from: at, to: at };
  } else if (t === "piece" && ch === ".") {
    const label = Array.from(LABELS).find((l) => !pieceLabels().includes(l));
    if (!label) return;
    drag = { kind: "draw", label, cells: [at] };
  } else {
    drag = { kind: t, cells: [at] };
  }
  paintDrag();
}

function boardMove(e) {
  if (!drag) return;
  const at = cellAt(e.clientX, e.clientY, $("board"));
  if (!at) return;
  if (drag.kind === "move") drag.to = at;
  else if (!drag.cells.some(([r, c]) => r === at[0] && c === at[1])) {
    if (drag.kind === "draw" && P.board[at[0]][at[1]] !== ".") return;
    drag.cells.push(at);
  }
  paintDrag();
}

function paintDrag() {
  for (const cell of $("board").children) cell.classList.remove("drawing");
  const mark = ([r, c]) => $("board").children[r * P.board[0].length + c].classList.add("drawing");
  if (drag.kind === "move") {
    const [dr, dc] = [drag.to[0] - drag.from[0], drag.to[1] - drag.from[1]];
    cellsOf(drag.label).forEach(([r, c]) => {
      if (P.board[r + dr] && P.board[r + dr][c + dc] !== undefined) mark([r + dr, c + dc]);
    });
  } else drag.cells.forEach(mark);
}

function boardUp() {
  if (!drag) return;
  const d = drag;
  drag = null;
  if (d.kind === "draw") {
    d.cells.forEach(([r, c]) => { P.board[r][c] = d.label; });
    selected = d.label;
  } else if (d.kind === "move") {
    const [dr, dc] = [d.to[0] - d.from[0], d.to[1] - d.from[1]];
    const cells = cellsOf(d.label);
    const fits = cells.every(([r, c]) => P.board[r + dr] && [".", d.label].includes(P.board[r + dr][c + dc]));
    if ((dr || dc) && fits) {
      cells.forEach(([r, c]) => { P.board[r][c] = "."; });
      cells.forEach(([r, c]) => { P.board[r + dr][c + dc] = d.label; });
    }
  } else {
    d.cells.forEach(([r, c]) => { P.board[r][c] = d.kind === "wall" ? "#" : "."; });
  }
  edited();
}

function goalClick(e) {
  const at = cellAt(e.clientX, e.clientY, $("goal"));
  if (!at || !selected) return;
  const cells = cellsOf(selected);
  if (!cells.length) return;
  if (!P.goal) P.goal = P.board.map((r) => r.map(() => "."));
  P.goal = P.goal.map((r) => r.map((c) => (c === selected ? "." : c)));
  const [r0, c0] = cells[0];
  const target = cells.map(([r, c]) => [r - r0 + at[0], c - c0 + at[1]]);
  if (!target.every(([r, c]) => P.goal[r] && P.goal[r][c] === "." && P.board[r][c] !== "#")) return;
  target.forEach(([r, c]) => { P.goal[r][c] = selected; });
  edited();
}

function resize() {
  const rows = Math.max(1, Math.min(8, Number($("rows").value) || 1));
  const cols = Math.max(1, Math.min(8, Number($("cols").value) || 1));
  const fit = (g) => Array.from({ length: rows }, (_, r) =>
    Array.from({ length: cols }, (_, c) => (g && g[r] && g[r][c] !== undefined ? g[r][c] : ".")));
  P.board = fit(P.board);
  if (P.goal) P.goal = fit(P.goal);
  edited();
}

function setAttribute() {
  if (!selected) return;
  const drop = (s) => s.split("").filter((c) => c !== selected).join("");
  P.horizontal = drop(P.horizontal);
  P.vertical = drop(P.vertical);
  if ($("rails").value === "horizontal") P.horizontal += selected;
  if ($("rails").value === "vertical") P.vertical += selected;
  if (P.distinct === "*") P.distinct = pieceLabels().join("");
  P.distinct = drop(P.distinct) + ($("distinct").checked ? selected : "");
  for (const c of Object.keys(P.colors)) {
    P.colors[c] = drop(P.colors[c]);
    if (!P.colors[c]) delete P.colors[c];
  }
  const colour = $("colour").value;
  if (colour) P.colors[colour] = (P.colors[colour] || "") + selected;
  edited();
}

function deletePiece() {
  if (!selected) return;
  P.board = P.board.map((r) => r.map((c) => (c === selected ? "." : c)));
  if (P.goal) P.goal = P.goal.map((r) => r.map((c) => (c === selected ? "." : c)));
  selected = null;
  edited();
}

// The board changed: rewrite the text and ask again.
function edited() {
  $("toml").value = toToml();
  redraw();
  analyze(false);
}

// ---- asking reach ----

function number(n) {
  return Number(n).toLocaleString("en-US");
}

// `n` and `word`, made plural unless `n` is one.
function counted(n, word) {
  return `${number(n)} ${word}${Number(n) === 1 ? "" : "s"}`;
}

function showError(err) {
  const box = $("error");
  if (!err) { box.hidden = true; box.textContent = ""; return; }
  box.hidden = false;
  box.textContent = (err.line ? `line ${err.line}${err.column ? `, column ${err.column}` : ""}: ` : "")
    + err.message + (err.help ? `\nhelp: ${err.help}` : "");
  box.dataset.line = err.line || "";
}

async function post(url, request) {
  const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request) });
  const body = await r.json();
  return { ok: r.ok && !body.error, body };
}

function clearResults() {
  $("count").textContent = "";
  delete $("count").dataset.states;
  delete $("solution").dataset.length;
  $("profile").replaceChildren();
  $("solution").textContent = "";
  $("player").hidden = true;
  $("player").removeAttribute("src");
  $("hardest").replaceChildren();
  $("solution-moves").textContent = "";
  $("gods").tBodies[0].replaceChildren();
  $("gods-verdict").textContent = "";
}

// The page shows what the text is: the board editor and the census for a
// sliding-block puzzle, the scramble and the table for a twisty one; each
// with its own metrics, `metric` the one reach used.
function setKind(k, metric) {
  if (k !== kind) {
    kind = k;
    document.body.classList.toggle("twisty", k === "twisty");
    const select = $("metric");
    select.replaceChildren(...METRICS[k].map((m) => { const o = document.createElement("option"); o.value = m; o.textContent = m; return o; }));
  }
  $("metric").value = metric;
}

function showTwisty(p) {
  const sets = p.sets.map((s) => `${s.name} (${s.pieces} pieces${s.orientations > 1 ? `, ${s.orientations} orientations` : ""})`).join(", ");
  $("twisty-about").textContent = `${p.name}: ${sets}; the file's moves ${p.moves.join(" ")} (${p.generators} generators in the ${p.metric} metric)`
    + (p.scramble ? `; start: ${p.scramble}` : "; starts solved (give a scramble to solve)");
}

function setStatus(text, running) {
  $("status").textContent = text;
  $("cancel").disabled = !running;
}

// Starts a count, solve and hardest of the text; `fromText`: the text was
// edited, so the board is redrawn from what reach read of it.
async function analyze(fromText) {
  if (job) { job.source.close(); post(`/api/jobs/${job.id}/cancel`, {}); job = null; }
  const text = $("toml").value;
  const { ok, body } = await post("/api/jobs", { kind: "analyze", text, metric: $("metric").value, moves: $("moves").value, scramble: $("scramble").value });
  if (!ok) { showError(body.error); setStatus(body.error.line ? "the file has a mistake" : "the request has a mistake", false); return; }
  showError(null);
  setKind(body.puzzle.kind, body.puzzle.metric);
  if (kind === "twisty") showTwisty(body.puzzle);
  else if (fromText) { fromFields(body.puzzle); redraw(); }
  clearResults();
  follow(body.job, false);
}

function follow(id, census) {
  const source = new EventSource(`/api/jobs/${id}/events`);
  const me = { id, source };
  if (census) censusJob = me; else job = me;
  // For scripts that drive the page: the newest job, and the last one done.
  document.body.dataset.job = id;
  setStatus(census ? "census: starting" : "counting", true);
  const on = (name, f) => source.addEventListener(name, (e) => f(JSON.parse(e.data)));
  on("progress", (p) => setStatus(`${p.stage}: depth ${p.depth}, ${number(p.states)}${p.of ? ` of ${number(p.of)}` : ""} ${p.stage.startsWith("count") || p.stage === "solve" || p.stage === "hardest" ? "states" : "positions"}`, true));
  on("count", showCount);
  on("solution", showSolution);
  on("hardest", showHardest);
  on("census", showCensus);
  on("failed", (f) => setStatus(`failed: ${f.message}`, false));
  on("done", () => {
    source.close();
    if (!$("status").textContent.startsWith("failed")) setStatus("done", false);
    if (census) censusJob = null; else job = null;
    document.body.dataset.done = id;
  });
}

function showCount(c) {
  const what = kind === "twisty" ? "positions from solved" : "states";
  $("count").textContent = `${number(c.states)} ${what}, depth ${c.depth}`
    + (c.complete ? "" : ` (stopped: ${c.stop_reason})`);
  $("count").dataset.states = c.states;
  const svg = $("profile");
  const w = Number(svg.getAttribute("width")), h = Number(svg.getAttribute("height")) - 14;
  const max = Math.max(...c.levels);
  const bw = w / c.levels.length;
  c.levels.forEach((n, i) => {
    const bar = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    const bh = Math.max(1, (n / max) * h);
    bar.setAttribute("x", i * bw);
    bar.setAttribute("y", h - bh);
    bar.setAttribute("width", Math.max(1, bw - 1));
    bar.setAttribute("height", bh);
    const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
    title.textContent = `depth ${i}: ${n}`;
    bar.appendChild(title);
    svg.appendChild(bar);
  });
  const label = document.createElementNS("http://www.w3.org/2000/svg", "text");
  label.setAttribute("x", 0);
  label.setAttribute("y", h + 12);
  label.textContent = `${kind === "twisty" ? "positions" : "states"} at each depth, 0 to ${c.depth} (widest ${number(max)})`;
  svg.appendChild(label);
  if (kind === "twisty") showTable(c);
}

// A twisty puzzle's count from solved, as the God's-number table.
function showTable(c) {
  let total = 0;
  $("gods").tBodies[0].replaceChildren(...c.levels.map((n, d) => {
    total += n;
    const tr = document.createElement("tr");
    for (const v of [d, number(n), number(total)]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    return tr;
  }));
  const metric = $("metric").value;
  $("gods-verdict").textContent = c.gods_number !== null && c.gods_number !== undefined
    ? `Every position, counted from solved: God's number in the ${metric} metric is ${c.gods_number} (${number(c.states)} positions).`
    : `Counted from solved to depth ${c.depth} (${number(c.states)} positions), where the studio's work limit ended the count (${c.stop_reason}): the puzzle goes deeper (reach count takes it further).`;
  if (c.class_levels) {
    const classes = c.class_levels.reduce((a, b) => a + b, 0);
    $("gods-verdict").textContent += ` Searched as ${number(classes)} classes of symmetric positions (the file's rotations).`;
  }
}

function showSolution(s) {
  if (s.length === null) {
    $("solution").textContent = s.stop_reason ? `No solution found within the studio's work limits (${s.stop_reason}).`
      : s.reason ? `No solution: ${s.reason}.` : "No solution: the goal cannot be reached from the start.";
    return;
  }
  $("solution").textContent = `Shortest solution: ${s.length} moves.`;
  if (s.moves) $("solution-moves").textContent = s.moves.join(" ");
  $("solution").dataset.length = s.length;
  $("player").hidden = false;
  $("player").src = s.page;
}

function boardBlock(board, caption, open, onOpen = openBoard, label = "Open as the board") {
  const div = document.createElement("div");
  div.className = "start";
  const p = document.createElement("p");
  p.textContent = caption;
  const pre = document.createElement("pre");
  pre.className = "board";
  pre.textContent = board;
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = label;
  button.className = open;
  button.addEventListener("click", () => onOpen(board));
  div.append(p, pre);
  if (onOpen) div.append(button);
  return div;
}

function showHardest(h) {
  $("hardest").replaceChildren(boardBlock(h.board,
    `Hardest position of the start's component: ${h.distance} moves from the goal (${number(h.count)} such; the start is ${h.start_distance}).`,
    "open-hardest"));
}

function showCensus(c) {
  const out = $("census");
  out.replaceChildren();
  const p = document.createElement("p");
  p.id = "census-summary";
  p.textContent = `${counted(c.positions, "position")} in ${counted(c.components, "component")}; the start's holds ${number(c.start_component)}.`
    + (c.goal_positions !== undefined ? ` ${counted(c.goal_positions, "goal position")}; ${number(c.solvable)} can reach the goal, ${number(c.unsolvable)} cannot.` : "")
    + (c.complete ? "" : ` (stopped: ${c.stop_reason})`);
  out.appendChild(p);
  // A twisty puzzle's hardest patterns open as its .tws file's start (a
  // KPuzzle file's text has no place for one: they are shown only).
  const twisty = kind === "twisty";
  const open = !twisty ? openBoard : isKPuzzle() ? null : openPattern;
  (c.hardest || []).forEach((h, i) => out.appendChild(boardBlock(h.board,
    `${i + 1}. ${h.distance} moves from the goal, in a ${twisty ? "coset" : "component"} of ${number(h.component_size)}`,
    "open-census", open, twisty ? "Open as the start" : "Open as the board")));
}

function isKPuzzle() {
  return $("toml").value.trimStart().startsWith("{");
}

// A twisty census's hardest pattern, opened as the file's start: its
// ScrambleState (any other removed), the page's scramble cleared.
function openPattern(pattern) {
  const t = $("toml");
  const rest = t.value.replace(/^ScrambleState\b[\s\S]*?^End[ \t]*(\n|$)/gm, "").trimEnd();
  t.value = `${rest}\n\nScrambleState hardest\n${pattern}End\n`;
  $("scramble").value = "";
  analyze(true);
}

function openBoard(board) {
  P.board = rowsOf(board);
  edited();
}

async function runCensus() {
  if (censusJob) { censusJob.source.close(); post(`/api/jobs/${censusJob.id}/cancel`, {}); }
  $("census").replaceChildren();
  const { ok, body } = await post("/api/jobs", { kind: "census", text: $("toml").value, metric: $("metric").value, moves: $("moves").value });
  if (!ok) { showError(body.error); return; }
  follow(body.job, true);
}

async function save() {
  const { ok, body } = await post("/api/save", { text: $("toml").value });
  if (ok) $("saved").textContent = `saved to ${body.saved}`;
  else if (body.error) {
    if (body.error.line) showError(body.error);
    else download();
  }
}

function download() {
  const blob = new Blob([$("toml").value], { type: kind === "twisty" ? "text/plain" : "application/toml" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  const twisty = kind === "twisty";
  const name = twisty ? ($("twisty-about").textContent.split(":")[0] || "puzzle") : P.name;
  const extension = !twisty ? "toml" : $("toml").value.trimStart().startsWith("{") ? "json" : "tws";
  a.download = `${name.replace(/[^A-Za-z0-9_-]+/g, "-") || "puzzle"}.${extension}`;
  a.click();
  URL.revokeObjectURL(a.href);
  $("saved").textContent = `downloaded ${a.download}`;
}

async function start() {
  const r = await fetch("/api/start");
  const s = await r.json();
  $("file").textContent = s.file ? s.file : "(no file: Download saves it)";
  $("toml").value = s.text;
  $("board").addEventListener("pointerdown", boardDown);
  $("board").addEventListener("pointermove", boardMove);
  $("board").addEventListener("pointerup", boardUp);
  $("goal").addEventListener("click", goalClick);
  $("rows").addEventListener("change", resize);
  $("cols").addEventListener("change", resize);
  for (const id of ["rails", "distinct", "colour"]) $(id).addEventListener("change", setAttribute);
  $("delete").addEventListener("click", deletePiece);
  $("clear-goal").addEventListener("click", () => { P.goal = null; edited(); });
  $("toml").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => analyze(true), 300); });
  $("metric").addEventListener("change", () => analyze(false));
  $("moves").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => analyze(false), 500); });
  $("scramble").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => analyze(false), 500); });
  $("cancel").addEventListener("click", () => {
    for (const j of [job, censusJob]) if (j) post(`/api/jobs/${j.id}/cancel`, {});
  });
  $("census-run").addEventListener("click", runCensus);
  $("save").addEventListener("click", save);
  $("download").addEventListener("click", download);
  analyze(true);
}

start();
