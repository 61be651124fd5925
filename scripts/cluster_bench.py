"""The body of scripts/cluster-bench.sh."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

BIN, MODE = sys.argv[1], sys.argv[2]
failures = []


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def single(puzzle, threads):
    """The single-process engine: wall, report, peak RSS (KiB)."""
    start = time.perf_counter()
    p = subprocess.Popen([BIN, "count", puzzle, "--json", "-j", str(threads)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    v = json.loads(p.stdout.read())
    return wall, v, [usage.ru_maxrss]


def cluster(puzzle, processes, workers):
    """Every process started from a hostfile, each measured on its own."""
    ports = free_ports(processes)
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("".join(f"127.0.0.1:{p}\n" for p in ports))
        hosts = f.name
    start = time.perf_counter()
    procs = [subprocess.Popen([BIN, "count", puzzle, "--json", "-j", str(workers),
                               "--cluster", hosts, "--process", str(i)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
             for i in range(processes)]
    rss = []
    for p in procs:
        _, status, usage = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            failures.append(f"{puzzle} {processes}x{workers}: a process exited {status}")
        rss.append(usage.ru_maxrss)
    wall = time.perf_counter() - start
    os.unlink(hosts)
    out = procs[0].stdout.read()
    for p in procs[1:]:
        if p.stdout.read():
            failures.append(f"{puzzle} {processes}x{workers}: process >0 printed on stdout")
    return wall, json.loads(out), rss


def mib(kib):
    return f"{kib / 1024:.0f} MiB"


rows = []
cases = [("pe766", [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)])]
if MODE != "--quick":
    cases.append(("eleven", [(1, 2), (2, 1)]))
for puzzle, configs in cases:
    wall, ref, rss = single(puzzle, 2)
    rows.append([puzzle, "engine, 1 process x 2 threads", ref["states"], "reference", f"{wall:.2f}",
                 f"{ref['seconds']:.2f}", " / ".join(mib(r) for r in rss)])
    base_rss = rss[0]
    for processes, workers in configs:
        wall, v, rss = cluster(puzzle, processes, workers)
        equal = v["levels"] == ref["levels"] and v["states"] == ref["states"]
        if not equal:
            failures.append(f"{puzzle} {processes}x{workers}: levels differ")
        share = " (" + ", ".join(f"{r / base_rss:.0%}" for r in rss) + " of the engine's)" if puzzle == "eleven" else ""
        rows.append([puzzle, f"cluster, {processes} x {workers}", v["states"], "yes" if equal else "NO",
                     f"{wall:.2f}", f"{v['seconds']:.2f}", " / ".join(mib(r) for r in rss) + share])
    # Fixed cost per level: pe766 has 1369 levels, most of them thin.

print("| puzzle | configuration (processes x workers) | states | levels equal? | wall s | search s | peak RSS per process |")
print("|---|---|---:|---|---:|---:|---|")
for r in rows:
    print("| " + " | ".join(str(c) for c in r) + " |")
print()
print("wall: from starting the processes to the last one's exit (connecting included); search: process 0's report.")
if failures:
    print("\nFAILURES:\n" + "\n".join(failures))
    sys.exit(1)
