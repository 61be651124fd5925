"""The body of scripts/kill-resume.sh."""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BIN, PUZZLE, KILLS = sys.argv[1], sys.argv[2], int(sys.argv[3])
seed = int(os.environ.get("SEED", time.time_ns() % 2**32))
rng = random.Random(seed)
essentials = ("states", "depth", "levels")

start = time.perf_counter()
reference = json.loads(subprocess.run([BIN, "count", PUZZLE, "--json", "-j", "2"],
                                      capture_output=True, text=True, check=True).stdout)
full = time.perf_counter() - start
print(f"{PUZZLE}: uninterrupted {full:.1f} s, {reference['states']} states, depth {reference['depth']}; seed {seed}")

work = tempfile.mkdtemp(prefix="reach-kill-")
cp = os.path.join(work, "cp")
rows = []
result = None
try:
    for i in range(KILLS + 1):
        resumed = os.path.exists(os.path.join(cp, "checkpoint.toml"))
        if resumed:
            args = [BIN, "resume", cp, "--json"]
        else:
            shutil.rmtree(cp, ignore_errors=True)
            args = [BIN, "count", PUZZLE, "--checkpoint", cp, "--json", "-j", "2"]
        # A moment within the first quarter of an uninterrupted run's time.
        moment = rng.uniform(0.03, 0.25) * full if i < KILLS else None
        t0 = time.perf_counter()
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            out, _ = proc.communicate(timeout=moment)
            result = json.loads(out)
            rows.append((" ".join(args[1:3]), f"finished after {time.perf_counter() - t0:.1f} s"))
            break
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            saved = "none"
            manifest = os.path.join(cp, "checkpoint.toml")
            if os.path.exists(manifest):
                text = open(manifest).read()
                saved = text.split("levels = [", 1)[1].split("]", 1)[0].count(",") + 1
            rows.append((" ".join(args[1:3]), f"SIGKILL at {moment:.1f} s; levels saved: {saved}"))
finally:
    shutil.rmtree(work, ignore_errors=True)

print("| run | what happened |")
print("|---|---|")
for r in rows:
    print(f"| {r[0]} | {r[1]} |")
same = result is not None and all(result[k] == reference[k] for k in essentials)
print(f"\nfinal report equals the uninterrupted one (states, depth, levels): {same}")
sys.exit(0 if same else 1)
