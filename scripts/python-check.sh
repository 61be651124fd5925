#!/usr/bin/env bash
# Builds the Python bindings' wheel (python/, PyO3 with maturin), installs
# it in a fresh virtual environment with pytest and pandas, and runs
# python/tests against it: pe766, klotski's levels against `reach count
# --json`, a solution replayed, errors with their line, Ctrl-C, threads,
# docs/python.md's example with its plot.
# Prints how long the wheel took to build. Needs python3 (3.9 or later)
# with venv, and pip's index (maturin, pytest, pandas, matplotlib for the
# guide's example).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
venv=target/python-check/venv
rm -rf target/python-check
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check 'maturin>=1.7,<2' pytest pandas matplotlib
start=$SECONDS
"$venv/bin/maturin" build --release --quiet -m python/Cargo.toml -o target/python-check/wheels
wheel=$(ls target/python-check/wheels/puzzle_reach-*.whl)
echo "wheel: $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB) built in $((SECONDS - start)) s"
"$venv/bin/pip" install --quiet --disable-pip-version-check "$wheel"
# From outside the source tree: the installed wheel, not python/puzzle_reach.
cd target/python-check
REACH_BIN="$PWD/../release/reach" venv/bin/python -m pytest -q --import-mode=importlib ../../python/tests
