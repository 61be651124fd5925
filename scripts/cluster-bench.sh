#!/usr/bin/env bash
# The count and the census across the ranks of an MPI job on this
# machine: every configuration of ranks x workers, started by `mpiexec -n
# N`, the counts and level profiles (a census's components and hardest
# patterns too) checked against the single-process engine, with the
# largest rank's peak RSS. Needs an MPI (Debian: mpich libmpich-dev
# libclang-dev); builds with `--features mpi` into target/mpi.
#
#   scripts/cluster-bench.sh            pe766, eleven and the 2x2x2's censuses (about 10 minutes)
#   scripts/cluster-bench.sh --quick    pe766 and the census of the 2x2x2 in <U,F,R>
#
# A full run appends its tables to docs/benchmarks.md (scripts/record.py;
# NO_RECORD=1 does not).
#
# REACH_MPIEXEC names the launcher (default mpiexec). REACH_MESH_BIN, if
# set, is a build of the TCP mesh that MPI replaced (any commit before
# it): its runs go side by side with MPI's, for the before/after table.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --features mpi --target-dir target/mpi
run=(python3 scripts/cluster_bench.py target/mpi/release/reach "${1:-full}")
# A full run that passes goes into docs/benchmarks.md's record.
if [ "${1:-}" != "--quick" ]; then run=(python3 scripts/record.py "scripts/cluster-bench.sh $*" -- "${run[@]}"); fi
exec "${run[@]}"
