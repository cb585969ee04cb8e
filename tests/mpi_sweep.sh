#!/bin/bash
# mpi_sweep.sh — `mpirun -np 2 culonx sweep` prints byte-identical output to
# one process (text and JSON, and text with an energy objective), with the
# default pruning (phase-1 results are shared by every rank). $1: culonx,
# $2: mpiexec. Registered only when CMake found MPI; runs on localhost as
# root (CI) without ssh.
set -u
X=$1
MPIEXEC=${2:-mpirun}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export OMPI_MCA_plm=isolated OMPI_MCA_btl_vader_single_copy_mechanism=none
ARGS=(sweep configs/megatron-1t.xml --gpus 4096 --clocks 1410,1200 --dp-overlap on,off --top 8)
fail=0
for fmt in text json energy; do
    [ $fmt = energy ] && ARGS+=(--objective energy) && fmt=text
    "$X" "${ARGS[@]}" --format $fmt --threads 2 >"$T/one.$fmt" || { echo "FAIL: 1 process"; exit 1; }
    "$MPIEXEC" --allow-run-as-root --oversubscribe -np 2 "$X" "${ARGS[@]}" --format $fmt \
        --threads 1 >"$T/two.$fmt" 2>"$T/err" || { echo "FAIL: mpirun"; cat "$T/err"; exit 1; }
    cmp "$T/one.$fmt" "$T/two.$fmt" || { echo "FAIL: $fmt differs with 2 ranks"; fail=1; }
done
exit $fail
