#!/usr/bin/env python3
"""Runs a benchmark's command, printing its output as it comes, and when
it passes (exit 0) appends that output to docs/benchmarks.md's record: a
dated heading with the label, the commit and the machine, then the run's
own markdown tables.

    python3 scripts/record.py "scripts/bench.sh ARGS" -- COMMAND ARGS...

The benchmark scripts run their full forms through it (not their --quick
forms, which CI runs); NO_RECORD=1 runs the command alone.
"""
import datetime
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "docs", "benchmarks.md")


def machine():
    cores = os.cpu_count()
    mem = 0
    model = "unknown CPU"
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) / 1048576
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{cores} cores, {mem:.0f} GiB, {model}"


def commit():
    try:
        out = subprocess.run(["git", "-C", HERE, "describe", "--always", "--dirty"],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"


def main():
    label, command = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
    if os.environ.get("NO_RECORD"):
        os.execvp(command[0], command)
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        lines.append(line)
    if proc.wait() != 0:
        sys.exit(proc.returncode)
    text = "".join(lines).strip()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    section = f"\n### {when}: `{label.strip()}`\n\nCommit {commit()}; {machine()}.\n\n{text}\n"
    with open(DOC, "a") as f:
        f.write(section)
    print(f"recorded in docs/benchmarks.md ({when})", file=sys.stderr)


if __name__ == "__main__":
    main()
