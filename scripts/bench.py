"""The body of scripts/bench.sh: runs reach, checks, prints markdown tables."""

import json
import os
import random
import subprocess
import sys
import tempfile
import time

BIN, MODE, THREADS = sys.argv[1], sys.argv[2], [int(t) for t in sys.argv[3:]]
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")

ELEVEN_PROFILE = [
    1, 2, 4, 9, 20, 37, 63, 122, 232, 431, 781, 1392, 2494, 4442, 7854, 13899, 24215, 41802,
    71167, 119888, 198363, 323206, 515778, 811000, 1248011, 1885279, 2782396, 4009722, 5621354,
    7647872, 10065800, 12760413, 15570786, 18171606, 20299876, 21587248, 21841159, 20906905,
    18899357, 16058335, 12772603, 9515217, 6583181, 4242753, 2503873, 1350268, 643245, 270303,
    92311, 27116, 5390, 1115, 86, 18,
]

# name -> (states, depth, full level profile or None)
PUBLISHED = {
    "pe766": (2613742, 1368, None),
    "klotski": (25955, 167, None),
    "eight": (181440, 31, None),
    "clocks": (262144, 27, None),
    "eleven": (239500800, 53, ELEVEN_PROFILE),
}

failures = []


def run(args, stdin=None):
    start = time.perf_counter()
    proc = subprocess.run([BIN] + args, input=stdin, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        failures.append(f"`reach {' '.join(args)}` exited {proc.returncode}: {proc.stderr.strip()}")
    return proc, wall


def count(name, threads, visited="auto"):
    proc, wall = run(["count", name, "--threads", str(threads), "--json", "--visited", visited])
    v = json.loads(proc.stdout) if proc.returncode == 0 else {}
    states, depth, profile = PUBLISHED[name]
    if v.get("states") != states or v.get("depth") != depth:
        failures.append(f"{name} at {threads} threads ({visited}): {v.get('states')} states, depth {v.get('depth')}; published {states}, {depth}")
    if profile is not None and v.get("levels") != profile:
        failures.append(f"{name} at {threads} threads ({visited}): the level profile differs from the published one")
    return v, wall


def mib(b):
    return f"{b / 2**20:.1f} MiB" if b else "?"


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---:" if i else "---" for i in range(len(header))) + "|")
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")
    print()


puzzles = ["pe766", "klotski", "eight", "clocks"] + (["eleven"] if MODE == "full" else [])
rows = []
for name in puzzles:
    base = None
    for t in THREADS:
        v, wall = count(name, t)
        if not v:
            continue
        base = base or wall
        peak = v.get("peak_rss_bytes") or 0
        rows.append([
            name, t, v["states"], v["depth"], f"{wall:.3f}", f"{v['states'] / wall / 1e6:.2f} M",
            mib(peak), f"{peak / v['states']:.1f}", f"{base / wall:.2f}x", v["visited"],
        ])
print("### Counts (wall time includes process start)\n")
table(["puzzle", "threads", "states", "depth", "wall s", "states/s", "peak RSS", "bytes/state",
       "speed-up", "visited set"], rows)

# Visited sets side by side, at 1 and 2 threads.
rows = []
for name in ["pe766"] + (["eleven"] if MODE == "full" else []):
    for visited in ["frontier", "dashmap"]:
        for t in [1, 2]:
            v, wall = count(name, t, visited)
            if v:
                peak = v.get("peak_rss_bytes") or 0
                rows.append([name, visited, t, f"{wall:.3f}", f"{v['states'] / wall / 1e6:.2f} M",
                             mib(peak), f"{peak / v['states']:.1f}"])
print("### Visited sets side by side\n")
table(["puzzle", "visited set", "threads", "wall s", "states/s", "peak RSS", "bytes/state"], rows)

# The contest commands: official samples, then a file of 100 cases.
sample = open(os.path.join(DATA, "sawtooth.sample.in")).read()
proc, _ = run(["sawtooth"], stdin=sample)
if proc.stdout != open(os.path.join(DATA, "sawtooth.sample.out")).read():
    failures.append(f"sawtooth sample printed {proc.stdout!r}")
proc, _ = run(["clocks"], stdin=open(os.path.join(DATA, "clocks.usaco-sample.in")).read())
if proc.stdout != open(os.path.join(DATA, "clocks.usaco-sample.out")).read():
    failures.append(f"clocks sample printed {proc.stdout!r}")

lines = sample.splitlines()
start_image = lines[1:27]


def rotate_cells(image, turns):
    """The 26-line image with cell i turned clockwise turns[i] times."""
    grid = [list(row.ljust(26)) for row in image]
    out = [row[:] for row in grid]
    for cell, t in enumerate(turns):
        r0, c0 = 9 * (cell // 3), 9 * (cell % 3)
        block = [[grid[r0 + r][c0 + c] for c in range(8)] for r in range(8)]
        for _ in range(t):
            block = [[block[7 - c][r] for c in range(8)] for r in range(8)]
        for r in range(8):
            for c in range(8):
                out[r0 + r][c0 + c] = block[r][c]
    return ["".join(row).rstrip() for row in out]


# Random edges and random targets (each cell of the start turned at random):
# many targets are unreachable, so those cases explore every reachable state.
rng = random.Random(3814)
cases = []
for _ in range(100):
    target = rotate_cells(start_image, [rng.randrange(4) for _ in range(9)])
    e = [" ".join(rng.choice("01") for _ in range(4)) for _ in range(9)]
    cases.append("\n".join(start_image) + "\n\n" + "\n".join(target) + "\n\n" + "\n".join(e))
hundred = f"{len(cases)}\n" + "\n\n".join(cases) + "\n"
proc, wall = run(["sawtooth", "--threads", "1"], stdin=hundred)
answers = proc.stdout.split()
if len(answers) != 100:
    failures.append(f"sawtooth on 100 cases printed {len(answers)} answers")
reached = sum(1 for a in answers if a != "-1")
clock_inputs = "".join(" ".join(str(rng.choice([3, 6, 9, 12])) for _ in range(9)) + "\n" for _ in range(20))
clock_wall = 0.0
for line in clock_inputs.splitlines():
    _, w = run(["clocks"], stdin=line)
    clock_wall += w
print("### Contest commands\n")
table(["input", "cases", "wall s", "per case"], [
    ["sawtooth: the sample's start, random targets and edges", 100, f"{wall:.3f}", f"{wall * 10:.2f} ms ({reached} reachable)"],
    ["clocks: 20 random dials, one process each", 20, f"{clock_wall:.3f}", f"{clock_wall / 20 * 1000:.2f} ms"],
])

if failures:
    print("FAILED:")
    for f in failures:
        print(f"- {f}")
    sys.exit(1)
print("all counts match their published figures")
