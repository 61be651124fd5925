"""The body of scripts/cube3-bench.sh: the 3x3x3 counted to a depth by
reach (levels on disk; in memory, coded and as keys) and by `twsearch -g`, side by side
in one run, with wall time and peak RSS; the levels must agree with each
other and with OEIS A080601.

Where reach searches by classes of symmetric positions (its default
`--symmetry auto`, on a file that declares the cube's rotations: twsearch's
samples/symm/3x3x3.tws, tests/data/cube3-rotations.tws), twsearch gets `-F`.
reach's default keeps the cube's 48 symmetries (rotations and mirror
images) with the inverse, twsearch the 24 rotations with the inverse
(it does no mirror reduction), so reach also runs `--symmetry rotations`,
whose classes a level must equal twsearch's."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REACH, FILE, DEPTH, TWSEARCH, THREADS = (
    sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
# OEIS A080601: the 3x3x3's positions at each depth, half-turn metric.
A080601 = [1, 18, 243, 3240, 43239, 574908, 7618438, 100803036, 1332343288,
           17596479795, 232248063316]


def reach(*extra, group="default"):
    start = time.perf_counter()
    p = subprocess.run([REACH, "count", FILE, "--max-depth", str(DEPTH), "-j", THREADS,
                        "--json", *extra], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"reach {' '.join(extra)} exited {p.returncode}: {p.stderr}")
    v = json.loads(p.stdout)
    per_state = v.get("disk_bytes_per_state") or v.get("memory_bytes_per_state")
    CLASSES.append((group, v.get("class_levels")))
    return wall, v["peak_rss_bytes"], v["levels"], per_state


# Each run's classes a level (None where reach searched every position).
CLASSES = []


def twsearch():
    """twsearch -g until it prints depth DEPTH's count: the seconds to
    that line, its peak RSS then (VmHWM), and the levels."""
    start = time.perf_counter()
    p = subprocess.Popen([TWSEARCH, *TWSEARCH_FLAGS, "-t", THREADS, FILE],
                         stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    levels, classes, wall, peak = [], [], None, 0
    for line in p.stdout:
        # With -F: "Dist d cnt CLASSES tot T scnt POSITIONS ...".
        m = re.match(r"^Dist (\d+) cnt (\d+)(?: tot \d+ scnt (\d+))?", line)
        if m:
            levels.append(int(m.group(3) or m.group(2)))
            if m.group(3):
                classes.append(int(m.group(2)))
            if int(m.group(1)) == DEPTH:
                wall = time.perf_counter() - start
                with open(f"/proc/{p.pid}/status") as f:
                    peak = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)) * 1024
                break
    p.kill()
    p.wait()
    if classes:
        CLASSES.append(("rotations", classes))
    return wall, peak, levels


rows = []
spill = tempfile.mkdtemp(prefix="reach-cube3-")
shutil.rmtree(spill)
try:
    wall, rss, levels, per_state = reach("--spill", spill)
finally:
    shutil.rmtree(spill, ignore_errors=True)
# Whether reach searched by classes: twsearch then searches with -F.
SYMMETRIC = CLASSES[0][1] is not None
TWSEARCH_FLAGS = ["-F", "-g"] if SYMMETRIC else ["-g"]
unit = "class" if SYMMETRIC else "state"
rows.append((f"reach count --max-depth {DEPTH} --spill DIR", wall, rss, levels,
             f"{per_state:.2f} bytes a {unit} on disk" if per_state else ""))
if DEPTH <= 7 or SYMMETRIC:
    wall, rss, levels, per_state = reach()
    rows.append((f"reach count --max-depth {DEPTH} (in memory, coded levels)", wall, rss,
                 levels, f"{per_state:.2f} bytes a {unit} in the levels"))
if SYMMETRIC:
    wall, rss, levels, per_state = reach("--symmetry", "rotations", group="rotations")
    rows.append((f"reach count --max-depth {DEPTH} --symmetry rotations (in memory; twsearch's reduction)",
                 wall, rss, levels, f"{per_state:.2f} bytes a {unit} in the levels"))
if DEPTH <= 7:
    wall, rss, levels, _ = reach("--plain-levels")
    rows.append((f"reach count --max-depth {DEPTH} --plain-levels", wall, rss, levels,
                 f"16 bytes a {unit} in the levels"))
if TWSEARCH:
    wall, rss, levels = twsearch()
    rows.append((f"twsearch {' '.join(TWSEARCH_FLAGS)} -t {THREADS} (depth {DEPTH} printed at)",
                 wall, rss, levels,
                 "" if wall else "stopped before the depth"))
print(f"The 3x3x3 ({os.path.basename(FILE)}) to depth {DEPTH}, {THREADS} threads each"
      + (", by classes of symmetric positions" if SYMMETRIC else "") + ":\n")
print("| run | wall s | peak RSS | |")
print("|---|---:|---:|---|")
failed = False
for name, wall, rss, levels, note in rows:
    wall = f"{wall:.1f}" if wall else "-"
    print(f"| {name} | {wall} | {rss / 2**30:.2f} GiB | {note} |")
    if levels[:DEPTH + 1] != A080601[:DEPTH + 1]:
        print(f"LEVELS DIFFER from A080601: {name}: {levels}")
        failed = True
if SYMMETRIC:
    for group in ["default", "rotations"]:
        runs = [c for g, c in CLASSES if g == group and c is not None]
        if not runs:
            continue
        print(f"\nclasses a level ({group}): {runs[0]}")
        if any(c[:DEPTH + 1] != runs[0][:DEPTH + 1] for c in runs):
            print(f"CLASSES DIFFER ({group}): {runs}")
            failed = True
sys.exit(1 if failed else 0)
