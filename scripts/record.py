#!/usr/bin/env python3
"""Appends one benchmark run to docs/benchmarks.md's record: a dated
heading with the command, the commit and the machine, then the run's own
output (markdown tables) as it printed it.

    python3 scripts/record.py "scripts/bench.sh ARGS" OUTPUT_FILE

The benchmark scripts call it after a full run that passed its checks (not
their --quick forms, which CI runs); NO_RECORD=1 leaves the record alone.
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
    command, output = sys.argv[1], sys.argv[2]
    with open(output) as f:
        text = f.read().strip()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    section = f"\n### {when}: `{command.strip()}`\n\nCommit {commit()}; {machine()}.\n\n{text}\n"
    with open(DOC, "a") as f:
        f.write(section)
    print(f"recorded in docs/benchmarks.md ({when})", file=sys.stderr)


if __name__ == "__main__":
    main()
