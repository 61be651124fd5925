"""The body of scripts/peer-bench.sh."""
import json
import re
import resource
import statistics
import subprocess
import sys
import time

REACH, TWSEARCH, REPEATS, THREADS = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
FILES = sys.argv[5:]


def timed(cmd):
    """Runs `cmd` to its end: wall and CPU seconds (user + system of the
    child), peak RSS in bytes, stdout and stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # ru_maxrss of children is the largest of any so far: read the
    # child's own from its report where it gives one.
    return wall, cpu, after.ru_maxrss * 1024, p.stdout, p.stderr


def reach(path):
    wall, cpu, _, out, _ = timed([REACH, "count", path, "-j", THREADS, "--json"])
    v = json.loads(out)
    return wall, cpu, v["peak_rss_bytes"], v["levels"], v["visited"]


def group_order(path):
    """The positions `reach show` gives as the group's order (found by
    Schreier-Sims, without a search), or None where it gives none."""
    out = subprocess.run([REACH, "show", path], capture_output=True, text=True).stdout
    m = re.search(r"^positions: (\d+) \(the order of the group", out, re.M)
    return int(m.group(1)) if m else None


def twsearch(path):
    cmd = ["/usr/bin/time", "-f", "maxrss %M", TWSEARCH, "-g", "-t", THREADS, path]
    wall, cpu, _, out, err = timed(cmd)
    levels = [int(n) for n in re.findall(r"^Dist \d+ cnt (\d+)", out + err, re.M)]
    while levels and levels[-1] == 0:
        levels.pop()
    rss = int(re.search(r"maxrss (\d+)", err).group(1)) * 1024
    return wall, cpu, rss, levels


print(f"{REPEATS} runs each, interleaved, medians; reach at {THREADS} threads, "
      f"twsearch -g -t {THREADS}\n")
print("| file | states | reach store | reach wall s | reach CPU s | reach peak | "
      "twsearch wall s | twsearch CPU s | twsearch peak | wall ratio | CPU ratio | levels |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
failed = False
for path in FILES:
    ours, theirs = [], []
    for _ in range(REPEATS):
        ours.append(reach(path))
        if TWSEARCH:
            theirs.append(twsearch(path))
    med = lambda runs, i: statistics.median(r[i] for r in runs)
    levels = ours[0][3]
    if any(r[3] != levels for r in ours):
        failed = True
    order = group_order(path)
    if order is not None and sum(levels) != order:
        print(f"{path}: {sum(levels)} positions counted, the group's order is {order}",
              file=sys.stderr)
        failed = True
    name = path.rsplit("/", 1)[-1]
    store = ours[0][4]
    mib = lambda b: f"{b / 2**20:.0f} MiB"
    row = [name, str(sum(levels)), store, f"{med(ours, 0):.2f}", f"{med(ours, 1):.2f}",
           mib(med(ours, 2))]
    if theirs:
        same = all(r[3] == levels for r in theirs)
        failed |= not same
        row += [f"{med(theirs, 0):.2f}", f"{med(theirs, 1):.2f}", mib(med(theirs, 2)),
                f"{med(ours, 0) / med(theirs, 0):.2f}", f"{med(ours, 1) / med(theirs, 1):.2f}",
                "equal" if same else "DIFFER"]
    else:
        row += ["", "", "", "", "", ""]
    print("| " + " | ".join(row) + " |", flush=True)
if failed:
    sys.exit("levels differ (between runs, from twsearch's, or from the group's order)")
