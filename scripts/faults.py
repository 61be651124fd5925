"""The body of scripts/faults.sh: crashes and failures at every kind of
moment, each followed by `reach resume` until the answer is in, which must
be the uninterrupted run's.

Two loops:
- kill -9 at random moments of checkpointed counts (and resumes);
- strace-injected faults at the N-th call of a kind: SIGKILL at a rename,
  an unlink or an fsync; ENOSPC at a write; EIO at an fsync.

Every try ends in one of: the answer printed (and exact), a checkpoint that
resumes to the exact answer, or (a fault before level 0 was saved) no
checkpoint, and the run started again is exact. Anything else fails."""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1]
QUICK = "--quick" in sys.argv[2:]
seed = int(os.environ.get("SEED", time.time_ns() % 2**32))
rng = random.Random(seed)
STRACE = shutil.which("strace")


def essentials(v):
    """What must not depend on how the run was cut up."""
    if "length" in v:
        return (v["length"], json.dumps(v["moves"]))
    return (v["states"], v["depth"], json.dumps(v["levels"]))


def run(args, prefix=(), timeout=600):
    p = subprocess.run(list(prefix) + [BIN] + args, capture_output=True, text=True,
                       timeout=timeout)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = None
    return p.returncode, doc, p.stderr


def finished(doc):
    return doc is not None and "error" not in doc and doc.get("complete", True) is not False


def settle(args, cp, first, label):
    """Resumes until the answer is in (at most five times); the answer and
    how it came."""
    code, doc, err = first
    how = "printed"
    for _ in range(5):
        # A whole answer on stdout stands, even from a run killed after it
        # printed (in its cleanup).
        if finished(doc):
            return doc, how if code in (0, 1) else "printed, then killed"
        if os.path.exists(os.path.join(cp, "checkpoint.toml")):
            code, doc, err = run(["resume", cp, "--json"])
            how = "resumed"
        else:
            shutil.rmtree(cp, ignore_errors=True)
            code, doc, err = run(args + ["--checkpoint", cp])
            how = "started again (nothing was saved)"
    raise SystemExit(f"FAIL: {label}: no answer after five resumes: exit {code}: {err.strip()[-300:]}")


CASES = [
    # The disk store keeping every level (a bitmap), and only the last two.
    ["count", "klotski", "-j", "2", "--json"],
    ["count", "klotski", "--visited", "frontier", "-j", "2", "--json"],
    # The dense store's saves.
    ["count", "tiles-2x5", "-j", "2", "--json"],
    ["solve", "rush-hour", "--metric", "slide", "-j", "2", "--json"],
]
if not QUICK:
    CASES.append(["count", "pe766", "-j", "2", "--json"])

FAULTS = [
    ("rename,renameat,renameat2", "signal=KILL", "SIGKILL at a rename"),
    ("unlink,unlinkat", "signal=KILL", "SIGKILL at an unlink"),
    ("fsync,fdatasync", "signal=KILL", "SIGKILL at an fsync"),
    ("write,pwrite64,writev", "error=ENOSPC", "ENOSPC at a write"),
    ("fsync,fdatasync", "error=EIO", "EIO at an fsync"),
]

work = tempfile.mkdtemp(prefix="reach-faults-")
rows = []


def row(*r):
    """A finished row: kept for the table, and said at once (a long run
    that is cut short still shows what it did)."""
    rows.append(r)
    print(" | ".join(str(x) for x in r), file=sys.stderr, flush=True)

failures = 0
try:
    for args in CASES:
        code, ref, err = run(args)
        assert finished(ref), f"{args}: {err}"
        want = essentials(ref)
        name = " ".join(a for a in args if a not in ("-j", "2", "--json"))
        # kill -9 at random moments: within the first part of a run.
        t0 = time.perf_counter()
        run(args + ["--checkpoint", os.path.join(work, "timing")])
        full = time.perf_counter() - t0
        shutil.rmtree(os.path.join(work, "timing"), ignore_errors=True)
        tally, bad = {}, 0
        for i in range(4 if QUICK else 8):
            cp = os.path.join(work, f"kill-{i}")
            proc = subprocess.Popen([BIN] + args + ["--checkpoint", cp], stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
            moment = rng.uniform(0.05, 1.0) * full
            try:
                out, _ = proc.communicate(timeout=moment)
                first = (proc.returncode, json.loads(out), "")
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                first = (137, None, "killed")
            doc, how = settle(args, cp, first, f"{name}, kill -9 at {moment:.2f} s")
            if essentials(doc) != want:
                bad += 1
                print(f"MISMATCH: {name}, kill -9 at {moment:.2f} s: {how}")
            tally[how] = tally.get(how, 0) + 1
            shutil.rmtree(cp, ignore_errors=True)
        row(name, "kill -9 at a random moment", sum(tally.values()),
                     ", ".join(f"{n} {h}" for h, n in sorted(tally.items())),
                     "exact" if not bad else f"{bad} MISMATCHED")
        failures += bad
        if not STRACE:
            continue
        for calls, action, what in FAULTS:
            tally, hit, bad = {}, 0, 0
            n = 1
            while True:
                cp = os.path.join(work, f"inject-{n}")
                prefix = [STRACE, "-f", "-qq", "-o", "/dev/null", "-e", f"trace={calls}",
                          "-e", f"inject={calls}:{action}:when={n}"]
                first = run(args + ["--checkpoint", cp], prefix)
                doc, how = settle(args, cp, first, f"{name}, {what} #{n}")
                shutil.rmtree(cp, ignore_errors=True)
                if essentials(doc) != want:
                    bad += 1
                    print(f"MISMATCH: {name}, {what} #{n}: {how}")
                clean = first[0] == 0 and how == "printed"
                if clean and not first[2].strip().startswith("error"):
                    # Past the last such call (or one that changed nothing).
                    if action.startswith("signal") or n > 64:
                        break
                hit += 1
                tally[how] = tally.get(how, 0) + 1
                # Every early call, then a spread of later ones.
                n = n + 1 if n < 8 else n + rng.randint(1, n // 2 if QUICK else n // 4 + 1)
                if n > (100 if QUICK else 400):
                    break
            row(name, what, hit,
                ", ".join(f"{n} {h}" for h, n in sorted(tally.items())),
                "exact" if not bad else f"{bad} MISMATCHED")
            failures += bad
finally:
    shutil.rmtree(work, ignore_errors=True)

print(f"seed {seed}; {sum(r[2] for r in rows)} tries" + ("" if STRACE else "; strace not found: the injected faults are left out"))
print("| run | fault | tries | ended | answer |")
print("|---|---|---:|---|---|")
for r in rows:
    print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} |")
if failures:
    raise SystemExit(f"FAIL: {failures} answers differ from the uninterrupted run's")
print("every answer equals the uninterrupted run's")
