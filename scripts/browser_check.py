"""Plays a solution page in headless Chromium and checks what it draws.

    python3 scripts/browser_check.py REACH_BINARY CHROMIUM OUT_DIR

Writes `reach solve klotski --metric piece --html`, then:
1. loads the page with Chromium's console logged, and fails on any
   console error or uncaught exception;
2. loads it in a harness page (same folder) that presses the page's own
   keyboard controls: nothing for the first position, then End, Home and
   the right arrow 81 times for the last; Chromium dumps the DOM (the move
   counter, the board's place on the page) and takes a screenshot of each;
3. decodes the screenshots (PNG, read here with zlib alone) and compares
   the pixel colour of every cell with what the start and goal boards say:
   a goal piece must be drawn where the goal puts it, in its class's colour;
4. checks that pieces are drawn as pieces: where two pieces of one class
   touch (A over D, G beside H), the boundary is not the class's colour;
5. checks the goal's outline, the move list (one entry a move) and that a
   click on a move shows that move's board;
6. checks that the page names nothing outside itself (no src, href, url(),
   fetch): it makes no network request;
7. does the same for a Rush Hour page (tests/data/rush-hour-17.toml).
Screenshots are left in OUT_DIR (first.png, last.png, click.png, rush.png).
"""

import colorsys
import json
import os
import re
import struct
import subprocess
import sys
import zlib

BIN, CHROMIUM, OUT = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
os.makedirs(OUT, exist_ok=True)
page = os.path.join(OUT, "klotski.html")
solve = subprocess.run([BIN, "solve", "klotski", "--metric", "piece", "--html", page, "--json"],
                       capture_output=True, text=True, check=True)
length = json.loads(solve.stdout)["length"]
failures = []

HARNESS = """<!DOCTYPE html><html><head><meta charset="utf-8">
<style>body{margin:0} iframe{border:0;width:900px;height:700px}</style></head><body>
<iframe id="f" src="%s"></iframe><pre id="out"></pre>
<script>
const keys = %s, click = %s;
document.getElementById("f").addEventListener("load", () => {
  const w = document.getElementById("f").contentWindow, d = w.document;
  for (const key of keys) d.dispatchEvent(new w.KeyboardEvent("keydown", {key, bubbles: true}));
  if (click !== null) d.querySelectorAll("#moves button")[click].click();
  const r = d.getElementById("board").getBoundingClientRect();
  const goal = d.getElementById("goal-outline");
  document.getElementById("out").textContent = JSON.stringify({
    counter: d.getElementById("counter").textContent,
    move: d.getElementById("move").textContent,
    moves: d.querySelectorAll("#moves li").length,
    current: Array.from(d.querySelectorAll("#moves li")).findIndex(li => li.classList.contains("current")),
    goal: goal ? goal.getAttribute("d").length : 0,
    x: r.left + 4, y: r.top + 4, cell: 48});
});
</script></body></html>"""


def chromium(*args):
    # Reduced motion: the page then moves its pieces without a transition
    # (its own media query), so a screenshot shows the board a move leads
    # to, not a frame of the quarter-second slide. With the slide, a
    # loaded machine once caught the click's jump of ten moves half-way
    # (nine cells off) although the DOM was right.
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                           "--force-prefers-reduced-motion",
                           "--allow-file-access-from-files", "--hide-scrollbars",
                           "--window-size=900,700", "--virtual-time-budget=3000", *args],
                          capture_output=True, text=True, timeout=120)


# 1. Console errors while loading and playing.
run = chromium("--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + page)
for line in run.stderr.splitlines():
    if "CONSOLE" in line and ("rror" in line or "Uncaught" in line):
        failures.append(f"console: {line}")
if "move 0 / %d" % length not in run.stdout:
    failures.append(f"the page did not draw its first position (counter missing)")


def shoot(name, keys, click=None, target="klotski.html"):
    harness = os.path.join(OUT, f"harness-{name}.html")
    with open(harness, "w") as f:
        f.write(HARNESS % (target, json.dumps(keys), json.dumps(click)))
    dom = chromium("--dump-dom", "file://" + harness).stdout
    m = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
    if not m or not m.group(1).strip():
        failures.append(f"{name}: the harness could not reach the page")
        return None, None
    info = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    png = os.path.join(OUT, f"{name}.png")
    chromium(f"--screenshot={png}", "file://" + harness)
    return info, png


def read_png(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), f"PNG depth {depth} colour type {ctype}"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    i = 0
    for _ in range(height):
        ftype, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return width, height, rows


NAMED = {"red": (255, 0, 0), "green": (0, 128, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0),
         "orange": (255, 165, 0), "purple": (128, 0, 128), "gray": (128, 128, 128)}


def rgb_of(colour):
    """RGB of a CSS colour as the page writes them: hsl(), #rrggbb or a name."""
    if colour.startswith("hsl("):
        h, s_, l = [float(v.rstrip("%")) for v in colour[4:-1].split(",")]
        r, g, b = colorsys.hls_to_rgb(h / 360, l / 100, s_ / 100)
        return (round(r * 255), round(g * 255), round(b * 255))
    if colour.startswith("#") and len(colour) == 7:
        return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return NAMED.get(colour)


def page_data(path):
    html = open(path).read()
    return json.loads(re.search(r"const DATA = (\{.*?\});\n", html, re.S).group(1)), html


def colours(path=page):
    """The page's colour per label, as RGB."""
    data, _ = page_data(path)
    return {p["label"]: rgb_of(p["colour"]) for p in data["pieces"]}


FLOOR, WALL = (0xEF, 0xE9, 0xDC), (0x4A, 0x4A, 0x4A)


def check(name, info, png, board, path=page):
    """Every cell of `board` (text rows) drawn in its colour, sampled at a
    point inside the cell clear of its label and rounded corners."""
    if info is None:
        return None
    _, _, rows = read_png(png)
    rgb = colours(path)
    for r, row in enumerate(board):
        for c, ch in enumerate(row):
            x = int(info["x"] + c * info["cell"] + 12)
            y = int(info["y"] + r * info["cell"] + 36)
            want = WALL if ch == "#" else FLOOR if ch == "." else rgb[ch]
            if want is None:
                continue
            got = rows[y][x]
            if max(abs(g - w) for g, w in zip(got, want)) > 12:
                failures.append(f"{name}: cell ({r},{c}) {ch!r} drawn {got}, expected {want}")
    return rows


def solve_boards(puzzle, extra):
    """The boards of `reach solve PUZZLE --boards --json` (text rows)."""
    out = subprocess.run([BIN, "solve", puzzle, "--boards", "--json", *extra],
                         capture_output=True, text=True, check=True).stdout
    v = json.loads(out)
    start = subprocess.run([BIN, "show", puzzle, "--json"], capture_output=True, text=True,
                           check=True).stdout
    first = json.loads(start)["board"].strip().split("\n")
    return [first] + [m["board"].strip().split("\n") for m in v["moves"]]


boards = solve_boards("klotski", ["--metric", "piece"])
first, first_png = shoot("first", [])
if first and first["counter"] != f"move 0 / {length}":
    failures.append(f"first: counter says {first['counter']!r}")
rows = check("first", first, first_png, boards[0])
# Pieces as pieces: where two pieces of one class meet, the boundary shows.
if rows is not None:
    rgb = colours()
    cell, x0, y0 = first["cell"], first["x"], first["y"]
    for a, b, (bx, by) in [("A", "D", (0.5, 2.0)), ("G", "H", (2.0, 3.5)), ("C", "F", (3.5, 2.0))]:
        x, y = int(x0 + bx * cell), int(y0 + by * cell)
        got = rows[y][x]
        if max(abs(g - w) for g, w in zip(got, rgb[a])) <= 12:
            failures.append(f"first: the boundary of {a} and {b} at ({x},{y}) is drawn in their colour {got}: "
                            "two pieces of one class run together")
    # ... and no grid inside a piece: where B's four cells meet, B's colour.
    for bx, by in [(1.5, 1.0), (2.0, 0.5), (2.5, 1.0)]:
        x, y = int(x0 + bx * cell), int(y0 + by * cell)
        got = rows[y][x]
        if max(abs(g - w) for g, w in zip(got, rgb["B"])) > 12:
            failures.append(f"first: inside B at ({x},{y}) the page draws {got}, not B's colour: a grid line inside a piece")
if first and first["goal"] == 0:
    failures.append("first: no goal outline on the page")
if first and first["moves"] != length:
    failures.append(f"first: the move list has {first['moves']} entries for {length} moves")
keys = ["End", "Home"] + ["ArrowRight"] * length
last, last_png = shoot("last", keys)
if last and last["counter"] != f"move {length} / {length}":
    failures.append(f"last: counter says {last['counter']!r} after {length} right arrows")
check("last", last, last_png, boards[-1])
# A click on the tenth move shows the board after it, and marks it.
clicked, click_png = shoot("click", [], click=9)
if clicked and (clicked["counter"] != f"move 10 / {length}" or clicked["current"] != 9):
    failures.append(f"click: a click on move 10 shows {clicked['counter']!r}, current entry {clicked['current']}")
check("click", clicked, click_png, boards[10])
# The goal: Klotski's 2x2 block B at the bottom middle of the last board.
goal = ["....", "....", "....", ".BB.", ".BB."]
final = boards[-1]
for r, row in enumerate(goal):
    for c, ch in enumerate(row):
        if ch != "." and final[r][c] != ch:
            failures.append(f"the last board has {final[r][c]!r} at ({r},{c}) where the goal puts {ch!r}")
# Self-contained: nothing on the page names anything outside it.
_, html = page_data(page)
for pattern in [r"\bsrc=", r"\bhref=", r"url\(", r"@import", r"fetch\(", r"XMLHttpRequest", r"https?://(?!www\.w3\.org/2000/svg)"]:
    if re.search(pattern, html):
        failures.append(f"the page names something outside itself ({pattern})")

# A Rush Hour page: drawn, its goal outlined, its list as long as its solution.
rush = os.path.join(OUT, "rush.html")
here = os.path.dirname(os.path.abspath(__file__))
rush_file = os.path.join(here, "..", "tests", "data", "rush-hour-17.toml")
v = json.loads(subprocess.run([BIN, "solve", rush_file, "--html", rush, "--json"],
                              capture_output=True, text=True, check=True).stdout)
rush_boards = solve_boards(rush_file, [])
info, png = shoot("rush", [], target="rush.html")
check("rush", info, png, rush_boards[0], path=rush)
if info and (info["moves"] != v["length"] or info["goal"] == 0):
    failures.append(f"rush: {info['moves']} list entries for {v['length']} moves, goal outline {info['goal']}")
run = chromium("--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + rush)
for line in run.stderr.splitlines():
    if "CONSOLE" in line and ("rror" in line or "Uncaught" in line):
        failures.append(f"rush console: {line}")

# 8. A hostile puzzle file (tests/data/hostile-page.toml: a name that is a
# placeholder and markup, labels that spell markup): its page runs none of
# its script (no title change, no console output of its own), and draws.
hostile = os.path.join(OUT, "hostile.html")
here = os.path.dirname(os.path.abspath(__file__))
subprocess.run([BIN, "solve", os.path.join(here, "..", "tests", "data", "hostile-page.toml"),
                "--html", hostile], capture_output=True, text=True, check=True)
run = chromium("--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + hostile)
if "pwned" in run.stderr or "alert" in run.stderr.lower():
    failures.append("hostile page: the puzzle's script ran (console output)")
title = re.search(r"<title>(.*?)</title>", run.stdout, re.S)
if not title or "pwned" == title.group(1).strip() or "{{DATA}}" not in title.group(1):
    failures.append(f"hostile page: the title is {title.group(1) if title else None!r}")
if "move 0 / 1" not in run.stdout:
    failures.append("hostile page: the page did not draw its first position")
for line in run.stderr.splitlines():
    if "CONSOLE" in line and ("rror" in line or "Uncaught" in line or "Refused" in line):
        failures.append(f"hostile page console: {line}")

if failures:
    print("FAILED:")
    for f in failures:
        print(f"- {f}")
    sys.exit(1)
print(f"browser check passed: {length} moves played by keyboard and one by a click; first.png, last.png, click.png "
      f"and rush.png in {OUT} match the boards; pieces of one class are drawn apart; the goal is outlined; "
      "the page names nothing outside itself; the hostile puzzle's page ran none of its script")
