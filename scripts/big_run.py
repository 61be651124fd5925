"""The body of scripts/big-run.sh: the 2x7 count from its built-in name and from
a puzzle file, side by side, and the 3x4 count; or (--kill-at D) the checkpointed
2x7 count killed with SIGKILL at level D and resumed; or (--twisty FILE --table
LEVELS --kill-at D) a twisty puzzle's count, checkpointed, killed at level D,
resumed, and checked against a published table."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = sys.argv[1]
args = sys.argv[2:]
extra = args[args.index("--") + 1:] if "--" in args else []
args = args[: args.index("--")] if "--" in args else args
quick = "--quick" in args
kill_at = int(args[args.index("--kill-at") + 1]) if "--kill-at" in args else None
processes = int(args[args.index("--processes") + 1]) if "--processes" in args else 1
twisty = args[args.index("--twisty") + 1] if "--twisty" in args else None
table_file = args[args.index("--table") + 1] if "--table" in args else None

with open(os.path.join(HERE, "..", "tests", "data", "tiles-2x7-levels.txt")) as f:
    PUBLISHED = [int(line) for line in f if line.strip() and not line.startswith("#")]
sys.path.insert(0, HERE)
from bench_profiles import ELEVEN_PROFILE  # noqa: E402

# The quick form stops after level 45 (the first 46 levels).
QUICK_DEPTH = 45


def sampled(proc, spill, peaks):
    """Until `proc` ends, the most memory all reach processes held at once
    (their summed RSS, sampled every second) and the most bytes under
    `spill` (a cluster's report carries process 0's figures only)."""
    while proc.poll() is None:
        ps = subprocess.run(["ps", "-C", "reach", "-o", "rss="], capture_output=True, text=True)
        rss = sum(int(x) for x in ps.stdout.split()) * 1024
        peaks["rss"] = max(peaks.get("rss", 0), rss)
        if spill:
            du = subprocess.run(["du", "-s", "-B1", spill], capture_output=True, text=True)
            if du.returncode == 0:
                peaks["disk"] = max(peaks.get("disk", 0), int(du.stdout.split()[0]))
        time.sleep(1)


def run(argv, peaks=None):
    """Runs reach; its JSON report and wall seconds (the report carries the
    peak RSS and, with levels on disk, the peak disk). With `peaks`, the
    processes' summed RSS and the spill directory are sampled into it."""
    start = time.perf_counter()
    proc = subprocess.Popen([BIN] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watcher = None
    if peaks is not None:
        spill = argv[argv.index("--spill") + 1] if "--spill" in argv else None
        watcher = threading.Thread(target=sampled, args=(proc, spill, peaks))
        watcher.start()
    stdout, stderr = proc.communicate()
    if watcher:
        watcher.join()
    proc.stdout, proc.stderr = stdout, stderr
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 3):
        sys.exit(f"`reach {' '.join(argv)}` exited {proc.returncode}: {proc.stderr.strip()}")
    return json.loads(proc.stdout), wall


def peak_rss(stderr):
    """The peak RSS in bytes that `/usr/bin/time -v` printed, if it did."""
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    return int(m.group(1)) * 1024 if m else 0


def kill_and_resume(depth, puzzle="tiles-2x7", published=None):
    """The checkpointed count of `puzzle`, killed (SIGKILL) once its progress
    line reports level `depth`, then resumed to its end; prints what each part
    took and whether the result is the published table."""
    published = published or PUBLISHED
    ck = os.environ.get("BIG_RUN_CHECKPOINT", os.path.join("target", "big-run-checkpoint"))
    shutil.rmtree(ck, ignore_errors=True)
    argv = [BIN, "count", puzzle, "-j", "2", "--checkpoint", ck, "--json", "-v"] + extra
    start = time.perf_counter()
    first = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in first.stderr:
        if re.match(rf"depth\s+{depth}:", line):
            first.send_signal(signal.SIGKILL)
            break
    first.wait()
    killed = time.perf_counter() - start
    with open(os.path.join(ck, "checkpoint.toml")) as f:
        saved = len(re.search(r"^levels = \[(.*?)\]", f.read(), re.M | re.S).group(1).split(",")) - 1
    start = time.perf_counter()
    # A count to a depth resumes to the same depth.
    depth_limit = extra[extra.index("--max-depth"):][:2] if "--max-depth" in extra else []
    resumed = subprocess.run(["/usr/bin/time", "-v", BIN, "resume", ck, "--json", "-v"] + depth_limit,
                             capture_output=True, text=True)
    wall = time.perf_counter() - start
    if resumed.returncode != 0:
        sys.exit(f"resume exited {resumed.returncode}: {resumed.stderr[-2000:]}")
    report = json.loads(resumed.stdout)
    # A count to a depth has no antipodes to check: its last level is not
    # the puzzle's last.
    exact = report["levels"] == published and (
        bool(depth_limit) or report.get("antipodes") == published[-1])
    gib = 2**30
    print("| part, 2 threads | wall | levels | peak RSS | peak disk | checkpoint writes | result |")
    print("|---|---:|---|---:|---:|---:|---|")
    print(f"| count {os.path.basename(puzzle)} --checkpoint ({report.get('visited')}), SIGKILL at level {depth} "
          f"| {killed:.1f} s | 0-{depth} (saved: 0-{saved}) | | | | |")
    print(f"| resume | {wall:.1f} s | {saved + 1}-{report['depth']} | {peak_rss(resumed.stderr) / gib:.2f} GiB "
          f"| {(report.get('disk_peak_bytes') or 0) / gib:.2f} GiB | {report.get('checkpoint_seconds', 0):.1f} s "
          f"of {report['seconds']:.1f} s searched | {report['states']} states, depth {report['depth']}, "
          f"{'equal to the published histogram' if exact else 'NOT EQUAL to the published histogram'} |")
    unit = "class" if report.get("class_levels") else "state"
    print(f"total wall {killed + wall:.1f} s; {report.get('disk_bytes_per_state') or 0:.2f} bytes a {unit} in level files")
    if report.get("class_levels"):
        print(f"classes a level: {report['class_levels']}")
    shutil.rmtree(ck, ignore_errors=True)
    if not exact:
        sys.exit(1)


if twisty is not None:
    # A published table: one level size a line, `#` lines are comments.
    with open(table_file) as f:
        table = [int(line) for line in f if line.strip() and not line.startswith("#")]
    # At the widest level when not told.
    kill_and_resume(kill_at if kill_at is not None else table.index(max(table)), twisty, table)
    sys.exit(0)

if kill_at is not None:
    kill_and_resume(kill_at)
    sys.exit(0)

failures = []
eleven, _ = run(["count", "eleven", "-j", "2", "--json"])
eleven_rss = eleven.get("peak_rss_bytes", 0)
if eleven["levels"] != ELEVEN_PROFILE:
    failures.append("eleven: the profile differs from the published one")
argv = ["count", "tiles-2x7", "-j", str(max(1, 2 // processes)), "--json"] + extra
if processes > 1:
    argv += ["--local-processes", str(processes)]
if quick:
    argv += ["--max-depth", str(QUICK_DEPTH)]
# A first count of 10 GiB pays for the kernel's reclaiming the page cache
# (on this machine the first of two such runs took 28.8 s to the second's
# 15.8 s): a short one that touches all of the array pays it for both.
if processes == 1:
    run(["count", "tiles-2x7", "-j", "2", "--json", "--max-depth", "40"] + extra)
peaks = {}
big, _ = run(argv, peaks if processes > 1 else None)
# The same puzzle from a puzzle file: it takes the same keys and moves.
tile_file = os.path.join("target", "tiles-2x7.toml")
with open(tile_file, "w") as f:
    f.write('# The 2x7 sliding-tile puzzle, as a puzzle file.\ndistinct = "*"\nboard = """\n1234567\n89ABCD.\n"""\n')
file_argv = [tile_file if a == "tiles-2x7" else a for a in argv]
from_file, _ = run(file_argv, None) if processes == 1 else (None, 0)
if from_file is not None and from_file["levels"] != (PUBLISHED[: QUICK_DEPTH + 1] if quick else PUBLISHED):
    failures.append("the 2x7 from its file: the level sizes differ from the published histogram")
big_rss, big_disk = big.get("peak_rss_bytes", 0), big.get("disk_peak_bytes") or 0
if processes > 1:
    # Every process's memory and disk, not process 0's alone.
    big_rss, big_disk = peaks.get("rss", 0), peaks.get("disk", 0)
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
print(f"| eleven (3x4, in memory, {eleven['visited']}) | {eleven['states']} | {eleven['depth']} | {eleven['seconds']:.1f} s "
      f"| {eleven_rate / 1e6:.1f} M | {eleven_rss / gib:.2f} GiB | - | - | {'yes' if eleven['levels'] == ELEVEN_PROFILE else 'NO'} |")
label = "tiles-2x7" + (f" (first {QUICK_DEPTH + 1} levels)" if quick else "") + (" " + " ".join(extra) if extra else "")
if processes > 1:
    label += f" --local-processes {processes} (RSS and disk: all processes, sampled each second)"
minutes = big["seconds"] / 60
print(f"| {label}, {big['visited']} | {big['states']} | {big['depth']} | {big['seconds']:.1f} s ({minutes:.1f} min) "
      f"| {rate / 1e6:.1f} M | {big_rss / gib:.2f} GiB | {big_disk / gib:.2f} GiB "
      f"| {big_disk / big['states']:.2f} | {'yes' if exact else 'NO'} |")
if from_file is not None:
    file_rss = from_file.get("peak_rss_bytes", 0)
    print(f"| {tile_file} (the same board from a file), {from_file['visited']} | {from_file['states']} "
          f"| {from_file['depth']} | {from_file['seconds']:.1f} s ({from_file['seconds'] / 60:.1f} min) "
          f"| {from_file['states'] / from_file['seconds'] / 1e6:.1f} M | {file_rss / gib:.2f} GiB | - | - "
          f"| {'yes' if from_file['levels'] == expected else 'NO'} |")
print()
print(f"states/s ratio, 2x7 : 3x4 = {rate / eleven_rate:.2f}x (widest 2x7 level: {widest} states)")
if from_file is not None:
    ratio = from_file["seconds"] / big["seconds"]
    print(f"the 2x7 from its file : tiles-2x7 = {ratio:.2f}x "
          f"(goal: within 1.1x; {'met' if ratio <= 1.1 else 'NOT met'})")
if not quick:
    print(f"tiles-2x7 in {minutes:.1f} min (goal: at most 12; {'met' if minutes <= 12 else 'NOT met'})")
if failures:
    print("FAILURES:", *failures, sep="\n  ")
    sys.exit(1)
