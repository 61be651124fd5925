"""The body of scripts/scaling.sh: thread scaling and MPI ranks x threads.

    python3 scripts/scaling.py BIN MPI_BIN THREADS...

MPI_BIN may be "" (no MPI table). REACH_MPIEXEC names the launcher.
Every run's levels are checked against the published profile, and every
configuration's against one thread's: a wrong answer fails the run.
Tables are printed as each puzzle finishes, so a run cut short still
leaves what it measured.
"""

import json
import os
import resource
import subprocess
import sys
import time

BIN, MPI_BIN = sys.argv[1], sys.argv[2]
THREADS = [int(t) for t in sys.argv[3:]]
MPIEXEC = os.environ.get("REACH_MPIEXEC", "mpiexec")
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data")
sys.path.insert(0, HERE)

from bench_profiles import ELEVEN_PROFILE  # noqa: E402

# OEIS A080601: the 3x3x3's positions at each depth, half-turn metric.
CUBE3 = [1, 18, 243, 3240, 43239, 574908, 7618438, 100803036]

# label -> (arguments after `count`, published states, published levels or None)
CASES = {
    "pe766": (["pe766"], 2613742, None),
    "eleven": (["eleven"], 239500800, ELEVEN_PROFILE),
    "3x3x3 to depth 7, rotations": (
        [os.path.join(DATA, "cube3-rotations.tws"), "--max-depth", "7", "--symmetry", "on"],
        sum(CUBE3), CUBE3),
}
REPEATS = {"pe766": 3}
failures = []


def timed(argv):
    """Runs argv: wall s, CPU s of it and its children, the largest peak RSS
    among them (bytes), the parsed --json, the exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        failures.append(f"`{' '.join(argv)}` exited {p.returncode}: {err.strip()[-500:]}")
        return wall, cpu, 0, {}, p.returncode
    # ru_maxrss of RUSAGE_CHILDREN is the largest of any waited-for
    # descendant so far, so it is read from the report where there is one.
    v = json.loads(out)
    peak = v.get("peak_rss_bytes") or after.ru_maxrss * 1024
    return wall, cpu, peak, v, 0


def check(label, what, v):
    args, states, levels = CASES[label]
    if v.get("states") != states or (levels is not None and v.get("levels") != levels):
        failures.append(f"{label} ({what}): {v.get('states')} states, levels {v.get('levels')}; "
                        f"published {states}")
        return False
    return True


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---:" if i else "---" for i in range(len(header))) + "|")
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")
    print(flush=True)


def median(xs):
    return sorted(xs)[len(xs) // 2]


gib = lambda b: f"{b / 2**30:.2f} GiB"
print(f"machine: {os.cpu_count()} cores, "
      f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB\n", flush=True)
top = max(THREADS)
for label, (args, states, _) in CASES.items():
    # Interleaved repeats: a noisy stretch of the machine hits every thread
    # count alike.
    runs = {t: [] for t in THREADS}
    for _ in range(REPEATS.get(label, 1)):
        for t in THREADS:
            wall, cpu, peak, v, code = timed([BIN, "count"] + args + ["-j", str(t), "--json", "-q"])
            if code == 0:
                runs[t].append((wall, cpu, peak, check(label, f"{t} threads", v), v))
    if not runs[THREADS[0]]:
        continue
    base = median([r[0] for r in runs[THREADS[0]]])
    rows = []
    for t in THREADS:
        if not runs[t]:
            continue
        wall = median([r[0] for r in runs[t]])
        cpu = median([r[1] for r in runs[t]])
        peak = max(r[2] for r in runs[t])
        v = runs[t][0][4]
        rows.append([t, f"{wall:.2f}", f"{cpu:.1f}", f"{states / wall / 1e6:.1f} M",
                     f"{base / wall:.2f}x", f"{base / wall / t:.0%}", gib(peak), v.get("visited"),
                     "yes" if all(r[3] for r in runs[t]) else "NO"])
    print(f"### {label}: {states:,} states, threads (median of {REPEATS.get(label, 1)})\n")
    table(["threads", "wall s", "CPU s", "states/s", "speed-up", "efficiency", "peak RSS",
           "store", "published levels?"], rows)

    if not MPI_BIN:
        continue
    ref = median([r[0] for r in runs[top]]) if runs[top] else None
    rows = []
    ranks = 1
    while ranks <= top:
        workers = top // ranks
        wall, cpu, peak, v, code = timed([MPIEXEC, "-n", str(ranks), MPI_BIN, "count"] + args
                                         + ["-j", str(workers), "--json", "-q"])
        if code == 0:
            rows.append([f"{ranks} x {workers}", f"{wall:.2f}", f"{v.get('seconds', 0):.2f}",
                         f"{cpu:.1f}", f"{base / wall:.2f}x",
                         f"{wall / ref:.2f}" if ref else "?", gib(peak),
                         "yes" if check(label, f"MPI {ranks}x{workers}", v) else "NO"])
        ranks *= 2
    print(f"### {label}: MPI ranks x threads ({top} in all)\n")
    print(f"wall: launch to the last rank's exit; search: rank 0's report; "
          f"vs 1 process: wall over one process at {top} threads.\n")
    table(["ranks x threads", "wall s", "search s", "CPU s", "speed-up over 1 thread",
           "vs 1 process", "peak RSS (rank 0, or largest)", "published levels?"], rows)

if failures:
    print("FAILURES:\n" + "\n".join(failures))
    sys.exit(1)
