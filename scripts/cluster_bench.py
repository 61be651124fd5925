"""The body of scripts/cluster-bench.sh."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

BIN, MODE = sys.argv[1], sys.argv[2]
MPIEXEC = os.environ.get("REACH_MPIEXEC", "mpiexec")
MESH = os.environ.get("REACH_MESH_BIN")
failures = []


def timed(argv):
    """Runs argv: wall, stdout, exit code, the largest peak RSS of it and
    its children (KiB)."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    return time.perf_counter() - start, out, os.waitstatus_to_exitcode(status), usage.ru_maxrss


def command(puzzle):
    """The command line of a case: `count PUZZLE`, or a census's own."""
    return puzzle.split() if " " in puzzle else ["count", puzzle]


def single(puzzle, threads):
    wall, out, code, rss = timed([BIN, *command(puzzle), "--json", "-j", str(threads)])
    return wall, json.loads(out), rss


def mpi(puzzle, ranks, workers):
    wall, out, code, rss = timed([MPIEXEC, "-n", str(ranks), BIN, *command(puzzle), "--json",
                                  "-j", str(workers)])
    if code != 0:
        failures.append(f"{puzzle} MPI {ranks}x{workers}: exit {code}")
    return wall, json.loads(out), rss


# What a count's and a census's reports must agree on, and what they found.
CENSUS_FIELDS = ["positions", "components", "size_histogram", "start_component", "levels",
                 "hardest"]


def found(v):
    return v["positions"] if "positions" in v else v["states"]


def same(v, ref):
    if "positions" in ref:
        return all(v.get(k) == ref[k] for k in CENSUS_FIELDS)
    return v["levels"] == ref["levels"] and v["states"] == ref["states"]


def mesh(puzzle, processes, workers):
    """The TCP mesh that MPI replaced: every process from a hostfile."""
    socks = [socket.socket() for _ in range(processes)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("".join(f"127.0.0.1:{p}\n" for p in ports))
        hosts = f.name
    start = time.perf_counter()
    procs = [subprocess.Popen([MESH, "count", puzzle, "--json", "-j", str(workers),
                               "--cluster", hosts, "--process", str(i)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
             for i in range(processes)]
    out = procs[0].stdout.read()
    rss = 0
    for p in procs:
        _, status, usage = os.wait4(p.pid, 0)
        rss = max(rss, usage.ru_maxrss)
    wall = time.perf_counter() - start
    os.unlink(hosts)
    return wall, json.loads(out), rss


def mib(kib):
    return f"{kib / 1024:.0f} MiB"


rows = []
# A census (every pattern of the 2x2x2's pieces) runs on ranks too; the
# TCP mesh had none.
CUBE = "census tests/data/cube2.tws --top 5"
cases = [("pe766", [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)]),
         (CUBE + " --moves U,F,R", [(2, 1), (3, 1)])]
if MODE != "--quick":
    cases += [("eleven", [(1, 2), (2, 1)]), (CUBE, [(2, 1), (2, 2)])]
for puzzle, configs in cases:
    wall, ref, rss = single(puzzle, 2)
    rows.append([puzzle, "one process x 2 threads", found(ref), "reference", f"{wall:.2f}",
                 f"{ref['seconds']:.2f}", mib(rss)])
    for ranks, workers in configs:
        runs = [("MPI", mpi)] + ([("mesh", mesh)] if MESH and " " not in puzzle else [])
        for name, run in runs:
            wall, v, rss = run(puzzle, ranks, workers)
            equal = same(v, ref)
            if not equal:
                failures.append(f"{puzzle} {name} {ranks}x{workers}: levels differ")
            rows.append([puzzle, f"{name}, {ranks} x {workers}", found(v),
                         "yes" if equal else "NO", f"{wall:.2f}", f"{v['seconds']:.2f}", mib(rss)])

print("| puzzle | configuration (ranks x workers) | states | levels equal? | wall s | search s | largest peak RSS of a rank |")
print("|---|---|---:|---|---:|---:|---:|")
for r in rows:
    print("| " + " | ".join(str(c) for c in r) + " |")
print()
print("wall: from the launch to the last rank's exit (MPI's start included); search: rank 0's report.")
if failures:
    print("\nFAILURES:\n" + "\n".join(failures))
    sys.exit(1)
