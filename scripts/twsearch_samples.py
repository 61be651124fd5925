"""The body of scripts/twsearch-samples.sh."""
import glob
import json
import os
import re
import signal
import subprocess
import sys

BIN, DIR, LIMIT, TWSEARCH = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]


def run(cmd, limit):
    """Runs `cmd`; past `limit` seconds sends SIGTERM (reach then reports
    the levels it completed) and waits as long again before killing it.
    Returns (exit code or None when killed, stdout, stderr, whether the
    limit was reached). A level in flight when the signal comes is
    finished first, which may take some multiple of the limit: the wait
    after the signal is six times the limit."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=limit)
        return p.returncode, out, err, False
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        try:
            out, err = p.communicate(timeout=6 * limit)
            return p.returncode, out, err, True
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            return None, out, err, True


def twsearch_levels(path):
    """twsearch -g's levels within the limit (the levels it printed when
    it is stopped), and whether it finished."""
    _, out, err, stopped = run([TWSEARCH, "-g", path], LIMIT)
    levels = [int(n) for n in re.findall(r"^Dist \d+ cnt (\d+)", out + err, re.M)]
    while levels and levels[-1] == 0:
        levels.pop()
    return levels, not stopped


rows, read, complete, to_depth, same, differ = [], 0, 0, 0, 0, 0
files = sorted(glob.glob(os.path.join(DIR, "*.tws")))
for path in files:
    name = os.path.basename(path)
    code, out, err, _ = run([BIN, "show", path, "--json"], 60)
    if code != 0:
        why = next((l for l in err.splitlines() if l.startswith("error:")), err.strip()[:120])
        why = why.replace("error: ", "").replace(path + ":", "").replace("|", "\\|")
        rows.append(f"| {name} | no: {why} | | | | |")
        continue
    read += 1
    shown = json.loads(out)
    space, words = shown["key_space"], shown.get("key_words", 1)
    if isinstance(space, str) and len(space) > 12:
        space = f"{space[0]}.{space[1:3]}e{len(space) - 1}"
    code, out, _, _ = run([BIN, "count", path, "--json", "-j", "2"], LIMIT)
    try:
        report = json.loads(out)
    except json.JSONDecodeError:
        rows.append(f"| {name} | yes | {space} | {words} | no level within {LIMIT} s | |")
        continue
    if report.get("complete", True) and code == 0:
        complete += 1
        what = f"{report['states']} (all, depth {report['depth']}, {report['seconds']:.1f} s)"
    else:
        to_depth += 1
        what = f"{report['states']} to depth {report['depth']} ({report['seconds']:.1f} s)"
    check = ""
    if TWSEARCH:
        theirs, finished = twsearch_levels(path)
        ours = report["levels"]
        n = min(len(ours), len(theirs))
        if finished and code == 0 and report.get("complete", True) and theirs != ours:
            check, differ = f"DIFFERS from twsearch's {theirs}", differ + 1
        elif n == 0:
            check = f"twsearch: no level within {LIMIT} s"
        elif theirs[:n] == ours[:n]:
            check, same = f"equal to depth {n - 1}", same + 1
        else:
            check, differ = f"DIFFERS from twsearch's {theirs}", differ + 1
    rows.append(f"| {name} | yes | {space} | {words} | {what} | {check} |")

print(f"{len(files)} files in {DIR}: {read} read, {len(files) - read} refused; "
      f"{complete} counted whole and {to_depth} to a depth within {LIMIT} s" +
      (f"; {same} equal to twsearch's levels, {differ} different" if TWSEARCH else ""))
print()
print("| file | read | key space | key words | positions | against twsearch -g |")
print("|---|---|---:|---:|---:|---|")
for r in rows:
    print(r)
sys.exit(1 if differ else 0)
