"""The body of scripts/twsearch-samples.sh."""
import glob
import json
import os
import re
import subprocess
import sys

BIN, DIR, LIMIT, TWSEARCH = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]


def run(cmd, limit):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", ""


def twsearch_levels(path):
    code, out, err = run([TWSEARCH, "-g", path], LIMIT)
    if code is None:
        return None
    levels = [int(n) for n in re.findall(r"^Dist \d+ cnt (\d+)", out + err, re.M)]
    while levels and levels[-1] == 0:
        levels.pop()
    return levels or None


rows, read, counted, same, differ = [], 0, 0, 0, 0
files = sorted(glob.glob(os.path.join(DIR, "*.tws")))
for path in files:
    name = os.path.basename(path)
    code, out, err = run([BIN, "show", path, "--json"], 60)
    if code != 0:
        why = next((l for l in err.splitlines() if l.startswith("error:")), err.strip()[:120])
        why = why.replace("error: ", "").replace(path + ":", "").replace("|", "\\|")
        rows.append(f"| {name} | no: {why} | | | |")
        continue
    read += 1
    space = json.loads(out)["key_space"]
    code, out, _ = run([BIN, "count", path, "--json", "-j", "2"], LIMIT)
    if code != 0:
        rows.append(f"| {name} | yes | {space} | not within {LIMIT} s | |")
        continue
    counted += 1
    report = json.loads(out)
    check = ""
    if TWSEARCH:
        theirs = twsearch_levels(path)
        if theirs is None:
            check = f"twsearch: not within {LIMIT} s"
        elif theirs == report["levels"]:
            check, same = "twsearch's table, level by level", same + 1
        else:
            check, differ = f"DIFFERS from twsearch's {theirs}", differ + 1
    rows.append(f"| {name} | yes | {space} | {report['states']} (depth {report['depth']}, {report['seconds']:.1f} s) | {check} |")

print(f"{len(files)} files in {DIR}: {read} read, {counted} counted within {LIMIT} s" +
      (f"; {same} equal to twsearch's table, {differ} different" if TWSEARCH else ""))
print()
print("| file | read | key space | positions | against twsearch |")
print("|---|---|---:|---:|---|")
for r in rows:
    print(r)
sys.exit(1 if differ else 0)
