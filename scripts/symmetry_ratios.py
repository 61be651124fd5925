"""The body of scripts/symmetry-ratios.sh."""
import json
import resource
import statistics
import subprocess
import sys
import time

REACH, REPEATS, THREADS, QUICK = sys.argv[1:5]
REPEATS = int(REPEATS)
PUZZLES = [
    ("klotski", []),
    ("tests/data/mirror-5x5.toml", []),
]
if QUICK != "1":
    PUZZLES += [
        ("tests/data/cube2-rotations.tws", []),
        ("tests/data/skewb-rotations.tws", []),
    ]


def run(puzzle, args, symmetry):
    """One count: wall s, CPU s, peak bytes, levels, classes, store."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    cmd = [REACH, "count", puzzle, *args, "--symmetry", symmetry, "-j", THREADS, "--json",
           "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
    v = json.loads(p.stdout)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, v["peak_rss_bytes"], v["levels"], v.get("class_levels"), v["visited"]


mib = lambda b: f"{b / 2**20:.0f} MiB"
print(f"reach count PUZZLE --symmetry on | none, {THREADS} threads, {REPEATS} runs each, "
      "interleaved, medians\n")
print("| puzzle | positions | classes | on: wall s, CPU s, peak | none: wall s, CPU s, peak "
      "| on / none: wall, CPU, peak | CPU a class / CPU a position |")
print("|---|---:|---:|---|---|---|---:|")
failed = False
for puzzle, args in PUZZLES:
    on, off = [], []
    for _ in range(REPEATS):
        on.append(run(puzzle, args, "on"))
        off.append(run(puzzle, args, "none"))
    levels = off[0][3]
    if any(r[3] != levels for r in on + off):
        failed = True
        print(f"{puzzle}: levels DIFFER")
    med = lambda runs, i: statistics.median(r[i] for r in runs)
    positions, classes = sum(levels), sum(on[0][4])
    per = (med(on, 1) / classes) / (med(off, 1) / positions)
    name = puzzle.rsplit("/", 1)[-1]
    print(f"| {name} | {positions:,} | {classes:,} | "
          f"{med(on, 0):.2f}, {med(on, 1):.2f}, {mib(med(on, 2))} ({on[0][5]}) | "
          f"{med(off, 0):.2f}, {med(off, 1):.2f}, {mib(med(off, 2))} ({off[0][5]}) | "
          f"{med(on, 0) / med(off, 0):.2f}, {med(on, 1) / med(off, 1):.2f}, "
          f"{med(on, 2) / med(off, 2):.2f} | {per:.2f} |")
print(f"\nlevels {'equal' if not failed else 'DIFFER'} with and without symmetry")
if failed:
    sys.exit("levels differ")
