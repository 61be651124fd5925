"""The body of scripts/big-run.sh: the 2x7 count and the 3x4 count side by side."""

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = sys.argv[1]
args = sys.argv[2:]
quick = "--quick" in args
extra = args[args.index("--") + 1:] if "--" in args else []

with open(os.path.join(HERE, "..", "tests", "data", "tiles-2x7-levels.txt")) as f:
    PUBLISHED = [int(line) for line in f if line.strip() and not line.startswith("#")]
sys.path.insert(0, HERE)
from bench_profiles import ELEVEN_PROFILE  # noqa: E402

# The quick form stops after level 45 (the first 46 levels).
QUICK_DEPTH = 45


def run(argv):
    """Runs reach; its JSON report and wall seconds (the report carries the
    peak RSS and, with levels on disk, the peak disk)."""
    start = time.perf_counter()
    proc = subprocess.run([BIN] + argv, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 3):
        sys.exit(f"`reach {' '.join(argv)}` exited {proc.returncode}: {proc.stderr.strip()}")
    return json.loads(proc.stdout), wall


failures = []
eleven, _ = run(["count", "eleven", "-j", "2", "--json"])
eleven_rss = eleven.get("peak_rss_bytes", 0)
if eleven["levels"] != ELEVEN_PROFILE:
    failures.append("eleven: the profile differs from the published one")
argv = ["count", "tiles-2x7", "-j", "2", "--json"] + extra
if quick:
    argv += ["--max-depth", str(QUICK_DEPTH)]
big, _ = run(argv)
big_rss, big_disk = big.get("peak_rss_bytes", 0), big.get("disk_peak_bytes") or 0
expected = PUBLISHED[: QUICK_DEPTH + 1] if quick else PUBLISHED
exact = big["levels"] == expected
if not exact:
    failures.append("tiles-2x7: the level sizes differ from the published histogram")
if not quick and (big["states"] != 43589145600 or big["depth"] != 108 or big.get("antipodes") != 1):
    failures.append("tiles-2x7: states, depth or antipodes differ from 43589145600, 108, 1")

rate = big["states"] / big["seconds"]
eleven_rate = eleven["states"] / eleven["seconds"]
widest = max(big["levels"])
gib = 2**30
print(f"| run, 2 threads | states | depth | time | states/s | peak RSS | peak disk | peak disk / state | levels equal to published? |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
print(f"| eleven (3x4, in memory, bitmap) | {eleven['states']} | {eleven['depth']} | {eleven['seconds']:.1f} s "
      f"| {eleven_rate / 1e6:.1f} M | {eleven_rss / gib:.2f} GiB | - | - | {'yes' if eleven['levels'] == ELEVEN_PROFILE else 'NO'} |")
label = "tiles-2x7" + (f" (first {QUICK_DEPTH + 1} levels)" if quick else "") + (" " + " ".join(extra) if extra else "")
minutes = big["seconds"] / 60
print(f"| {label}, {big['visited']} | {big['states']} | {big['depth']} | {big['seconds']:.1f} s ({minutes:.1f} min) "
      f"| {rate / 1e6:.1f} M | {big_rss / gib:.2f} GiB | {big_disk / gib:.2f} GiB "
      f"| {big_disk / big['states']:.2f} | {'yes' if exact else 'NO'} |")
print()
print(f"states/s ratio, 2x7 : 3x4 = {rate / eleven_rate:.2f}x (widest 2x7 level: {widest} states)")
if failures:
    print("FAILURES:", *failures, sep="\n  ")
    sys.exit(1)
