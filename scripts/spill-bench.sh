#!/usr/bin/env bash
# eleven (240 million states) in memory and with its levels on disk at two
# memory budgets, side by side: wall time, peak RSS, peak disk, bytes a state.
# Every count is checked against the published profile. About 5 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 - target/release/reach <<'PY'
import json, os, shutil, subprocess, sys, tempfile, time
sys.path.insert(0, "scripts")
BIN = sys.argv[1]
from bench_profiles import ELEVEN_PROFILE
rows, failures = [], []
configs = [("in memory", []), ("--spill, --memory-limit 1G", ["--memory-limit", "1G"]),
           ("--spill, --memory-limit 256M", ["--memory-limit", "256M"])]
base = None
for label, extra in configs:
    d = tempfile.mkdtemp(prefix="reach-spill-")
    args = [BIN, "count", "eleven", "-j", "2", "--json"] + extra + (["--spill", os.path.join(d, "levels")] if extra else [])
    start = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    v = json.loads(p.stdout.read())
    shutil.rmtree(d, ignore_errors=True)
    if v["levels"] != ELEVEN_PROFILE:
        failures.append(f"{label}: the profile differs")
    base = base or wall
    disk = v.get("disk_peak_bytes")
    rows.append([label, f"{wall:.1f}", f"{wall / base:.2f}x", f"{usage.ru_maxrss / 1024:.0f} MiB",
                 f"{disk / 2**20:.0f} MiB" if disk else "-",
                 f"{v['disk_bytes_per_state']:.2f}" if disk else "-",
                 f"{disk / v['states']:.2f}" if disk else "-", "yes" if v["levels"] == ELEVEN_PROFILE else "NO"])
print("| eleven, 2 threads | wall s | vs memory | peak RSS | peak disk | bytes/state in level files | peak disk / state | profile exact? |")
print("|---|---:|---:|---:|---:|---:|---:|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")
if failures:
    print("FAILURES:", failures)
    sys.exit(1)
PY
