#!/usr/bin/env bash
# fuzz_long.sh — long fuzzing before a release: every input-parser harness
# for HOURS hours each (default 1), over its seed corpus, with new inputs
# kept in BUILD-DIR/tests/<harness>_corpus and crashes as
# BUILD-DIR/tests/<harness>-crash-*. Build first with
#   CC=clang cmake -S . -B build-fuzz -DCULONX_FUZZ=ON -DCULONX_MPI=OFF && cmake --build build-fuzz
# Usage (from the source root): tests/fuzz_long.sh build-fuzz [HOURS]
# A crash input found here goes into the harness's seed folder (tests/bad for
# configs, tests/fuzz/csv, configs/power-like XML into tests/fuzz/power,
# tests/fuzz/sweep) once fixed, so that every build replays it.
set -euo pipefail
build="${1:?usage: tests/fuzz_long.sh BUILD-DIR [HOURS]}"
secs=$(awk "BEGIN { print int(${2:-1} * 3600) }")
declare -A seeds=([fuzz_config]="configs tests/bad tests/data" [fuzz_dvfs_csv]="tests/fuzz/csv"
                  [fuzz_power_xml]="configs/power" [fuzz_sweep_options]="tests/fuzz/sweep")
for fz in fuzz_config fuzz_dvfs_csv fuzz_power_xml fuzz_sweep_options; do
  exe="$build/tests/$fz"
  [ -x "$exe" ] || { echo "missing $exe (build with -DCULONX_FUZZ=ON)"; exit 2; }
  corpus="$build/tests/${fz}_corpus"; mkdir -p "$corpus"
  echo "== $fz for $secs s"
  # shellcheck disable=SC2086
  "$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$build/tests/$fz-" "$corpus" ${seeds[$fz]}
done
