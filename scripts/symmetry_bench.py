"""The body of scripts/symmetry-bench.sh."""
import json
import os
import re
import resource
import shutil
import signal
import tempfile
import statistics
import subprocess
import sys
import time

REACH, TWSEARCH, REPEATS, THREADS, FILE, DEPTH, PLAIN = sys.argv[1:8]
REPEATS, DEPTH = int(REPEATS), int(DEPTH)
TICKS = os.sysconf("SC_CLK_TCK")


def reach(symmetry, spill):
    """reach's count to DEPTH (levels on disk in `spill`, if given): wall s,
    CPU s, peak bytes, levels, classes; None where it stopped short."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    cmd = [REACH, "count", FILE, "--max-depth", str(DEPTH), "--symmetry", symmetry, "-j",
           THREADS, "--json", "-q"]
    if spill:
        shutil.rmtree(spill, ignore_errors=True)
        cmd += ["--spill", spill]
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode == 3:
        print(f"(reach --symmetry {symmetry} stopped short: {p.stderr.strip()[-300:]})")
        return None
    if p.returncode != 0:
        sys.exit(f"reach exited {p.returncode}: {p.stderr[-2000:]}")
    v = json.loads(p.stdout)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, v["peak_rss_bytes"], v["levels"], v.get("class_levels")


def twsearch():
    """twsearch -F -g until it prints depth DEPTH: wall s, CPU s and peak
    bytes at that line, levels, classes."""
    start = time.perf_counter()
    p = subprocess.Popen([TWSEARCH, "-F", "-g", "-t", THREADS, FILE], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    levels, classes = [], []
    for line in p.stdout:
        m = re.match(r"Dist (\d+) cnt (\d+) tot \d+ scnt (\d+)", line)
        if not m:
            continue
        classes.append(int(m.group(2)))
        levels.append(int(m.group(3)))
        if int(m.group(1)) == DEPTH:
            wall = time.perf_counter() - start
            with open(f"/proc/{p.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            cpu = (int(fields[11]) + int(fields[12])) / TICKS
            with open(f"/proc/{p.pid}/status") as f:
                peak = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)) * 1024
            p.send_signal(signal.SIGKILL)
            p.wait()
            return wall, cpu, peak, levels, classes
    p.wait()
    sys.exit(f"twsearch ended before depth {DEPTH}")


gib = lambda b: f"{b / 2**30:.2f} GiB"
print(f"{FILE} to depth {DEPTH}: {REPEATS} runs each, interleaved, medians; reach at "
      f"{THREADS} threads (--symmetry on), twsearch -F -g -t {THREADS} stopped at depth {DEPTH}\n")
scratch = tempfile.mkdtemp(prefix="reach-symmetry-bench-")
ours, disk, theirs = [], [], []
for _ in range(REPEATS):
    ours.append(reach("on", None))
    disk.append(reach("on", f"{scratch}/levels"))
    if TWSEARCH:
        theirs.append(twsearch())
med = lambda runs, i: statistics.median(r[i] for r in runs)
levels = ours[0][3]
failed = any(r[3] != levels for r in ours)
print("| | wall s | CPU s | peak | classes at the last depth |")
print("|---|---:|---:|---:|---:|")
ours = [r for r in ours if r]
disk = [r for r in disk if r]
if not ours or not disk:
    sys.exit("reach stopped short")
failed |= any(r[3] != levels for r in disk)
print(f"| reach | {med(ours, 0):.2f} | {med(ours, 1):.2f} | {gib(med(ours, 2))} | "
      f"{ours[0][4][-1]} |")
print(f"| reach --spill | {med(disk, 0):.2f} | {med(disk, 1):.2f} | {gib(med(disk, 2))} | "
      f"{disk[0][4][-1]} |")
if theirs:
    failed |= any(r[3] != levels for r in theirs)
    print(f"| twsearch -F | {med(theirs, 0):.2f} | {med(theirs, 1):.2f} | "
          f"{gib(med(theirs, 2))} | {theirs[0][4][-1]} |")
    for name, runs in [("reach", ours), ("reach --spill", disk)]:
        print(f"| {name} / twsearch | {med(runs, 0) / med(theirs, 0):.2f} | "
              f"{med(runs, 1) / med(theirs, 1):.2f} | {med(runs, 2) / med(theirs, 2):.2f} | |")
if PLAIN == "1":
    plain = reach("none", f"{scratch}/plain")
    if plain:
        failed |= plain[3] != levels
        print(f"| reach --spill, every position | {plain[0]:.2f} | {plain[1]:.2f} | "
              f"{gib(plain[2])} | |")
shutil.rmtree(scratch, ignore_errors=True)
print(f"\nlevels: {','.join(map(str, levels))}"
      f" ({'equal' if not failed else 'DIFFER'})")
if failed:
    sys.exit("levels differ")
