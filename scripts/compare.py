"""Two builds of reach side by side: the same counts, interleaved, medians.

    python3 scripts/compare.py OLD_BINARY NEW_BINARY [--eleven] [--repeats N]
        [--puzzle "PUZZLE [COUNT OPTIONS]"]...

Runs `count pe766` (and with --eleven `count eleven`, and each --puzzle:
`--puzzle "tests/data/cube2.tws --visited bitmap"`) at 1 and 2 threads
with each binary in turn, so that a noisy stretch of a shared machine hits
both alike; checks that both print the same levels; prints a markdown table
of median wall seconds and peak RSS, and new/old ratios.
"""

import json
import shlex
import subprocess
import sys
import time

args = sys.argv[1:]
if len(args) < 2:
    sys.exit(__doc__)
old, new = args[0], args[1]
repeats = int(args[args.index("--repeats") + 1]) if "--repeats" in args else 3
puzzles = [["pe766"]] + ([["eleven"]] if "--eleven" in args else [])
puzzles += [shlex.split(args[i + 1]) for i, a in enumerate(args) if a == "--puzzle"]


def run(binary, puzzle, threads):
    start = time.perf_counter()
    proc = subprocess.run([binary, "count", *puzzle, "--threads", str(threads), "--json"],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{binary} count {shlex.join(puzzle)} exited {proc.returncode}: {proc.stderr}")
    return wall, json.loads(proc.stdout)


print("| puzzle | threads | old wall s | new wall s | new/old | old peak RSS | new peak RSS |")
print("|---|---:|---:|---:|---:|---:|---:|")
failed = False
for puzzle in puzzles:
    name = shlex.join(puzzle)
    for threads in (1, 2):
        walls = {old: [], new: []}
        last = {}
        for _ in range(1 if puzzle == ["eleven"] else repeats):
            for binary in (old, new):
                wall, v = run(binary, puzzle, threads)
                walls[binary].append(wall)
                last[binary] = v
        if last[old]["levels"] != last[new]["levels"]:
            print(f"LEVELS DIFFER: {name} at {threads} threads")
            failed = True
        med = {b: sorted(w)[len(w) // 2] for b, w in walls.items()}
        rss = {b: (last[b].get("peak_rss_bytes") or 0) / 2**20 for b in (old, new)}
        print(f"| {name} | {threads} | {med[old]:.3f} | {med[new]:.3f} | {med[new] / med[old]:.2f} "
              f"| {rss[old]:.1f} MiB | {rss[new]:.1f} MiB |")
sys.exit(1 if failed else 0)
