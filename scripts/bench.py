"""The body of scripts/bench.sh: runs reach, checks, prints markdown tables."""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

BIN, MODE, THREADS = sys.argv[1], sys.argv[2], [int(t) for t in sys.argv[3:]]
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")

from bench_profiles import CUBE2_HTM, CUBE2_QTM, ELEVEN_PROFILE  # noqa: E402

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
    return f"{b / 2**20:.1f} MiB" if b is not None else "?"


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---:" if i else "---" for i in range(len(header))) + "|")
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")
    print()


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def side_by_side(name, n):
    """Wall time of n independent single-thread counts started together: what
    the machine gives n jobs that share nothing (its headroom)."""
    args = [BIN, "count", name, "--threads", "1", "--json"]
    start = time.perf_counter()
    procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
             for _ in range(n)]
    for p in procs:
        out, _ = p.communicate()
        if p.returncode != 0 or json.loads(out).get("states") != PUBLISHED[name][0]:
            failures.append(f"{name}: a side-by-side single-thread run failed or miscounted")
    return time.perf_counter() - start


# Repeats per configuration, interleaved so that a noisy stretch of the
# machine hits every configuration alike; the median is reported.
REPEATS = {"pe766": 5, "klotski": 3, "eight": 3, "clocks": 3, "eleven": 1}

puzzles = ["pe766", "klotski", "eight", "clocks"] + (["eleven"] if MODE == "full" else [])
rows = []
scaling = []
for name in puzzles:
    walls = {t: [] for t in THREADS}
    alone = {t: [] for t in THREADS if t > 1}
    last = {}
    for _ in range(REPEATS[name]):
        for t in THREADS:
            v, wall = count(name, t)
            if v:
                walls[t].append(wall)
                last[t] = v
            if t > 1 and name in ("pe766", "eleven"):
                alone[t].append(side_by_side(name, t))
    base = median(walls[THREADS[0]]) if walls[THREADS[0]] else None
    for t in THREADS:
        if t not in last:
            continue
        v, wall = last[t], median(walls[t])
        peak = v.get("peak_rss_bytes") or 0
        rows.append([
            name, t, v["states"], v["depth"], f"{wall:.3f}", f"{v['states'] / wall / 1e6:.2f} M",
            mib(peak), f"{peak / v['states']:.1f}", f"{base / wall:.2f}x", v["visited"],
            v.get("partitions", "?"),
        ])
        if t > 1 and alone.get(t):
            # The machine's headroom: t single-thread jobs side by side take
            # median(alone) instead of base if the machine scaled perfectly.
            headroom = t * base / median(alone[t])
            speedup = base / wall
            scaling.append([name, t, f"{base:.3f}", f"{wall:.3f}", f"{speedup:.2f}x",
                            f"{median(alone[t]):.3f}", f"{headroom:.2f}x",
                            f"{speedup / headroom:.0%}"])
print("### Counts (wall time includes process start; median of interleaved runs)\n")
table(["puzzle", "threads", "states", "depth", "wall s", "states/s", "peak RSS", "bytes/state",
       "speed-up", "visited set", "partitions"], rows)
print("### Parallel efficiency\n")
print("headroom = t x (one thread's wall) / (wall of t single-thread runs side by side);")
print("efficiency = speed-up / headroom: a noisy or shared machine lowers the headroom, not the efficiency.\n")
table(["puzzle", "threads", "1 thread s", "t threads s", "speed-up", "t side by side s", "headroom",
       "efficiency"], scaling)

# The seed C++ solver of Project Euler 766, built and timed side by side
# where ../shared (the project's shared folder) is present.
seed_src = os.path.join(HERE, "..", "..", "shared", "anchors", "pe766_seed.cpp")
if os.path.exists(seed_src) and subprocess.run(["which", "g++"], capture_output=True).returncode == 0:
    seed_bin = os.path.join(HERE, "..", "target", "pe766-seed")
    if not os.path.exists(seed_bin) or os.path.getmtime(seed_bin) < os.path.getmtime(seed_src):
        subprocess.run(["g++", "-O2", "-o", seed_bin, seed_src], check=True)
    # Five rounds, each the seed then reach at 1 and 2 threads, and the
    # medians: on a shared machine one slow run would otherwise set the
    # ratio.
    seed_walls, reach_walls = [], {1: [], 2: []}
    for _ in range(5):
        start = time.perf_counter()
        out = subprocess.run([seed_bin], capture_output=True, text=True).stdout.split()
        seed_walls.append(time.perf_counter() - start)
        if not out or out[-1] != "2613742":
            failures.append(f"the seed solver printed {out[-1:]}")
        for t in (1, 2):
            reach_walls[t].append(count("pe766", t)[1])
    seed = median(seed_walls)
    print("### Against the seed C++ solver (pe766, g++ -O2, same run)\n")
    table(["solver", "wall s", "seed / this"], [
        ["seed C++ (unordered_set, DFS)", f"{seed:.3f}", "1.00x"],
        ["reach --threads 1", f"{median(reach_walls[1]):.3f}", f"{seed / median(reach_walls[1]):.1f}x"],
        ["reach --threads 2", f"{median(reach_walls[2]):.3f}", f"{seed / median(reach_walls[2]):.1f}x"],
    ])

# Twisty puzzles: the 2x2x2 cube's God's-number tables from its .tws file,
# checked against OEIS; in full mode also all six faces (88 million
# positions). twips (twsearch's Rust successor) side by side when a binary
# is given as $TWIPS or found on PATH, skipped quietly otherwise.
def timed_rss(cmd):
    """Wall seconds and peak RSS bytes (None without /usr/bin/time) of cmd."""
    gnu_time = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        full = ([gnu_time, "-f", "%M", "-o", rss.name] if gnu_time else []) + cmd
        start = time.perf_counter()
        proc = subprocess.run(full, capture_output=True, text=True)
        wall = time.perf_counter() - start
        text = rss.read().strip().splitlines()
        peak = int(text[-1]) * 1024 if gnu_time and text and text[-1].isdigit() else None
    return proc, wall, peak


cube = os.path.join(DATA, "cube2.tws")
kpuzzle = os.path.join(DATA, "cube2.kpuzzle.json")
rows = []
cases = [("cube2.tws --moves U,F,R", [cube, "--moves", "U,F,R"], "htm", CUBE2_HTM),
         ("cube2.tws --moves U,F,R", [cube, "--moves", "U,F,R"], "qtm", CUBE2_QTM),
         ("cube2.kpuzzle.json --moves U,F,R", [kpuzzle, "--moves", "U,F,R"], "htm", CUBE2_HTM)]
if MODE == "full":
    cases.append(("cube2.tws, all six faces", [cube], "htm", None))
for label, args, metric, table_ in cases:
    for t in [1, 2]:
        walls, v = [], {}
        for _ in range(3 if table_ else 1):
            proc, wall = run(["count"] + args + ["--metric", metric, "--threads", str(t), "--json"])
            if proc.returncode != 0:
                continue
            v = json.loads(proc.stdout)
            walls.append(wall)
            if (table_ and v["levels"] != table_) or (not table_ and v["states"] != 88179840):
                failures.append(f"{label} {metric} at {t} threads: levels {v['levels']}")
        if walls:
            wall = median(walls)
            rows.append([label, metric, t, v["states"], v["depth"], f"{wall:.3f}",
                         f"{v['states'] / wall / 1e6:.2f} M", mib(v.get("peak_rss_bytes") or 0)])
twips = os.environ.get("TWIPS") or shutil.which("twips")
if twips and os.path.exists(twips):
    proc, wall, peak = timed_rss([twips, "gods-algorithm", "--generator-moves", "U,F,R",
                                  "--num-threads", "2", kpuzzle])
    out = proc.stdout + proc.stderr
    def after(marker):
        """The word after marker in twips's output ("Found 3_674_160 ...")."""
        rest = out.split(marker, 1)[1:]
        return rest[0].split()[0].replace("_", "") if rest and rest[0].split() else None
    if proc.returncode == 0 and after("Found ") == "3674160" and after("Maximum depth: ") == "11":
        rows.append(["twips gods-algorithm (same KPuzzle file)", "htm", 2, 3674160, 11,
                     f"{wall:.3f}", f"{3674160 / wall / 1e6:.2f} M", mib(peak or 0)])
    else:
        print(f"(twips at {twips} failed or counted otherwise: {out.strip()[-200:]})\n")
print("### Twisty puzzles: the 2x2x2 cube's God's-number tables (median of 3)\n")
table(["puzzle file", "metric", "threads", "states", "depth", "wall s", "states/s", "peak RSS"], rows)

# The dense store side by side (2 threads, interleaved): a tile puzzle from
# its file against the built-in tiles-RxC (the same keys and moves), and
# against the bitmap it took before; the 2x2x2 with all six faces on the
# dense store against the bitmap. Full mode: eleven's file and tiles-3x4
# (239,500,800 states), the full 2x2x2 (88,179,840); quick: the 2x5 board.
BUILTIN = os.path.join(HERE, "..", "src", "puzzles", "builtin")
tile_file = os.path.join(BUILTIN, "eleven.toml")
if MODE != "full":
    tile_file = os.path.join(tempfile.mkdtemp(prefix="reach-bench-"), "tiles-2x5.toml")
    with open(tile_file, "w") as f:
        f.write('distinct = "*"\nboard = """\n12345\n6789.\n"""\n')
dense_cases = [
    ("eleven's file (auto)" if MODE == "full" else "a 2x5 tile file (auto)", [tile_file]),
    ("tiles-3x4" if MODE == "full" else "tiles-2x5", ["tiles-3x4" if MODE == "full" else "tiles-2x5"]),
    ("the same file, --visited bitmap", [tile_file, "--visited", "bitmap"]),
    ("cube2.tws, six faces (auto)" if MODE == "full" else "cube2.tws --moves U,F,R (auto)",
     [cube] if MODE == "full" else [cube, "--moves", "U,F,R"]),
    ("the same, --visited bitmap",
     ([cube] if MODE == "full" else [cube, "--moves", "U,F,R"]) + ["--visited", "bitmap"]),
]
expected_states = [239500800, 239500800, 239500800, 88179840] if MODE == "full" else [1814400, 1814400, 1814400, 3674160]
expected_states.insert(4, expected_states[3])
walls = {label: [] for label, _ in dense_cases}
last = {}
for _ in range(3):
    for (label, args), states in zip(dense_cases, expected_states):
        proc, wall, peak = timed_rss([BIN, "count"] + args + ["--threads", "2", "--json"])
        v = json.loads(proc.stdout) if proc.returncode == 0 else {}
        if v.get("states") != states:
            failures.append(f"{label}: {v.get('states')} states, not {states}")
            continue
        if label.startswith("eleven") and v.get("levels") != ELEVEN_PROFILE:
            failures.append(f"{label}: the level profile differs from the published one")
        walls[label].append(wall)
        last[label] = (v, peak)
rows = []
for label, _ in dense_cases:
    if label in last:
        v, peak = last[label]
        wall = median(walls[label])
        rows.append([label, v["states"], f"{wall:.3f}", f"{v['states'] / wall / 1e6:.1f} M",
                     mib(peak), v["visited"]])
print("### The dense store side by side (2 threads, medians of 3 interleaved runs)\n")
table(["puzzle", "states", "wall s", "states/s", "peak RSS", "visited set"], rows)
if MODE == "full" and all(label in last for label, _ in dense_cases):
    file_wall, tiles_wall = median(walls[dense_cases[0][0]]), median(walls[dense_cases[1][0]])
    cube_wall, cube_peak = median(walls[dense_cases[3][0]]), last[dense_cases[3][0]][1] or 0
    eleven_peak = last[dense_cases[0][0]][1] or 0
    goals = [
        ("eleven's file at most 3 s", file_wall <= 3.0, f"{file_wall:.2f} s"),
        ("eleven's file at most 256 MiB", eleven_peak <= 256 << 20, mib(eleven_peak)),
        ("eleven's file within 1.15x of tiles-3x4", file_wall <= 1.15 * tiles_wall,
         f"{file_wall / tiles_wall:.2f}x"),
        ("the full 2x2x2 at most 2 s", cube_wall <= 2.0, f"{cube_wall:.2f} s"),
        ("the full 2x2x2 at most 64 MiB", cube_peak <= 64 << 20, mib(cube_peak)),
    ]
    table(["goal (issue 37)", "met", "measured"], [[g, "yes" if ok else "NO", m] for g, ok, m in goals])

# Partition counts side by side (pe766, 2 threads): the count never changes.
rows = []
for parts in [1, 16, 256]:
    ws = []
    for _ in range(3):
        proc, wall = run(["count", "pe766", "--threads", "2", "--partitions", str(parts), "--json"])
        if proc.returncode == 0 and json.loads(proc.stdout)["states"] != 2613742:
            failures.append(f"pe766 with {parts} partitions miscounted")
        ws.append(wall)
    rows.append(["pe766", 2, parts, f"{median(ws):.3f}"])
print("### Partition counts side by side\n")
table(["puzzle", "threads", "partitions", "wall s"], rows)

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

# Levels on disk: in memory vs --spill (and --checkpoint, which syncs every
# level), interleaved, every count checked. eleven (full mode) at two memory
# budgets: the budget bounds the candidates held, the disk holds the rest.
def spilled(name, extra, threads=2):
    d = tempfile.mkdtemp(prefix="reach-bench-")
    target = os.path.join(d, "levels")
    args = ["count", name, "--threads", str(threads), "--json"] + [a.replace("DIR", target) for a in extra]
    proc, wall = run(args)
    v = json.loads(proc.stdout) if proc.returncode == 0 else {}
    states, depth, profile = PUBLISHED[name]
    if v.get("states") != states or v.get("depth") != depth or (profile and v.get("levels") != profile):
        failures.append(f"`reach {' '.join(args)}`: {v.get('states')} states, depth {v.get('depth')}")
    if "--keep" in extra:
        shutil.rmtree(target, ignore_errors=True)
    elif os.path.exists(target):
        failures.append(f"`reach {' '.join(args)}` left {target} behind")
    os.rmdir(d)
    return v, wall


rows = []
configs = [("in memory", []), ("--spill", ["--spill", "DIR"]),
           ("--spill --keep (every level written as a file)", ["--spill", "DIR", "--keep"]),
           ("--checkpoint (every level synced)", ["--checkpoint", "DIR"])]
cases = [("pe766", configs, 3)]
if MODE == "full":
    cases.append(("eleven", [("in memory", []),
                             ("--spill, --memory-limit 1G", ["--spill", "DIR", "--memory-limit", "1G"]),
                             ("--spill, --memory-limit 256M", ["--spill", "DIR", "--memory-limit", "256M"])], 1))
for name, confs, repeats in cases:
    walls = {label: [] for label, _ in confs}
    last = {}
    for _ in range(repeats):
        for label, extra in confs:
            v, wall = spilled(name, extra)
            if v:
                walls[label].append(wall)
                last[label] = v
    base = median(walls["in memory"]) if walls["in memory"] else None
    for label, _ in confs:
        if label not in last:
            continue
        v, wall = last[label], median(walls[label])
        peak = v.get("peak_rss_bytes") or 0
        disk = v.get("disk_peak_bytes")
        rows.append([name, label, f"{wall:.3f}", f"{wall / base:.2f}x" if base else "?", mib(peak),
                     mib(disk) if disk is not None else "-",
                     f"{v['disk_bytes_per_state']:.2f}" if v.get("disk_bytes_per_state") is not None else "-",
                     f"{disk / v['states']:.2f}" if disk else "-"])
print("### Levels on disk (2 threads; medians of interleaved runs)\n")
print("bytes/state in level files: what a key costs on disk (Rice-coded blocks, index and checksums included);")
print("peak disk / state: the most the files held at once (levels and candidate runs) over all states.\n")
table(["puzzle", "storage", "wall s", "vs memory", "peak RSS", "peak disk", "bytes/state in level files",
       "peak disk / state"], rows)

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
