#!/usr/bin/env bash
# Thread scaling (1, 2, 4, 8, 16 threads, up to the machine's cores) and MPI
# ranks x threads at the largest count (16 = 1x16, 2x8, 4x4, 8x2, 16x1) on
# pe766 (1,369 thin levels), eleven (240 million states, two bits a key) and
# the 3x3x3 to depth 7 with its rotations (classes, 128-bit keys): wall, CPU,
# speed-up, efficiency and peak RSS, every run's levels checked against the
# published ones. Markdown tables on stdout.
#
#   scripts/scaling.sh                  builds, then runs
#   THREADS="1 2 4 8 16" scripts/scaling.sh
#   REACH_BIN=path REACH_MPI_BIN=path scripts/scaling.sh
#                                       prebuilt binaries (a machine
#                                       without cargo); REACH_MPI_BIN=""
#                                       leaves MPI out
#
# MPI needs an MPI (Debian: mpich libmpich-dev libclang-dev); without one the
# MPI tables are left out. REACH_MPIEXEC names the launcher.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${REACH_BIN:-}" ]; then
  cargo build --release --quiet
  REACH_BIN=target/release/reach
fi
if [ -z "${REACH_MPI_BIN+set}" ]; then
  REACH_MPI_BIN=""
  if command -v "${REACH_MPIEXEC:-mpiexec}" >/dev/null; then
    cargo build --release --quiet --features mpi --target-dir target/mpi
    REACH_MPI_BIN=target/mpi/release/reach
  fi
fi
if [ -z "${THREADS:-}" ]; then
  THREADS="1"
  for t in 2 4 8 16; do
    if [ "$t" -le "$(nproc)" ]; then THREADS="$THREADS $t"; fi
  done
fi
exec python3 scripts/scaling.py "$REACH_BIN" "$REACH_MPI_BIN" $THREADS
