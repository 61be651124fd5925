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
   a goal piece must be drawn where the goal puts it, in its class's colour.
Screenshots are left in OUT_DIR as first.png and last.png.
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
<iframe id="f" src="klotski.html"></iframe><pre id="out"></pre>
<script>
const keys = %s;
document.getElementById("f").addEventListener("load", () => {
  const w = document.getElementById("f").contentWindow, d = w.document;
  for (const key of keys) d.dispatchEvent(new w.KeyboardEvent("keydown", {key, bubbles: true}));
  const r = d.getElementById("board").getBoundingClientRect();
  document.getElementById("out").textContent = JSON.stringify({
    counter: d.getElementById("counter").textContent,
    move: d.getElementById("move").textContent,
    x: r.left, y: r.top, cell: 48});
});
</script></body></html>"""


def chromium(*args):
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
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


def shoot(name, keys):
    harness = os.path.join(OUT, f"harness-{name}.html")
    with open(harness, "w") as f:
        f.write(HARNESS % json.dumps(keys))
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


def colours():
    """The page's colour per label, as RGB."""
    html = open(page).read()
    data = json.loads(re.search(r"const DATA = (\{.*?\});\n", html, re.S).group(1).replace("<\\/", "</"))
    out = {}
    for label, hsl in data["colours"].items():
        h, s, l = [float(v.rstrip("%")) for v in hsl[4:-1].split(",")]
        r, g, b = colorsys.hls_to_rgb(h / 360, l / 100, s / 100)
        out[label] = (round(r * 255), round(g * 255), round(b * 255))
    return out, data["boards"]


def check(name, info, png, board):
    if info is None:
        return
    _, _, rows = read_png(png)
    rgb, _ = colours()
    for r, row in enumerate(board.strip().split("\n")):
        for c, ch in enumerate(row):
            # A point inside the cell, clear of its border and its label.
            x = int(info["x"] + 1 + c * info["cell"] + 6)
            y = int(info["y"] + 1 + r * info["cell"] + 6)
            want = (0x33, 0x33, 0x33) if ch == "#" else (0xF4, 0xF1, 0xEA) if ch == "." else rgb[ch]
            got = rows[y][x]
            if max(abs(g - w) for g, w in zip(got, want)) > 12:
                failures.append(f"{name}: cell ({r},{c}) {ch!r} drawn {got}, expected {want}")


_, boards = colours()
first, first_png = shoot("first", [])
if first and first["counter"] != f"move 0 / {length}":
    failures.append(f"first: counter says {first['counter']!r}")
check("first", first, first_png, boards[0])
keys = ["End", "Home"] + ["ArrowRight"] * length
last, last_png = shoot("last", keys)
if last and last["counter"] != f"move {length} / {length}":
    failures.append(f"last: counter says {last['counter']!r} after {length} right arrows")
check("last", last, last_png, boards[-1])
# The goal: Klotski's 2x2 block B at the bottom middle of the last board.
goal = ["....", "....", "....", ".BB.", ".BB."]
final = boards[-1].strip().split("\n")
for r, row in enumerate(goal):
    for c, ch in enumerate(row):
        if ch != "." and final[r][c] != ch:
            failures.append(f"the last board has {final[r][c]!r} at ({r},{c}) where the goal puts {ch!r}")

# 4. A hostile puzzle file (tests/data/hostile-page.toml: a name that is a
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
print(f"browser check passed: {length} moves played by keyboard; first.png and last.png in {OUT} match the boards; "
      "the hostile puzzle's page ran none of its script")
