#!/usr/bin/env bash
# CLI golden tests: `culonx estimate RUN --format json` (closed form and
# graph engine), `culonx schedules` and `culonx energy` on every shipped run
# against tests/golden/, numbers to 1e-9 relative. After an intended model
# change, regenerate with: bash tests/cli_golden.sh build/culonx --update
set -euo pipefail
exe="$1"; update="${2:-}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # name, command...
  local name="$1"; shift
  "$@" > "$tmp/out.json"
  if [ "$update" = "--update" ]; then cp "$tmp/out.json" "tests/golden/$name.json"; return; fi
  if ! python3 tests/compare_json.py "$tmp/out.json" "tests/golden/$name.json"; then
    echo "golden mismatch: $name ($*)"; fail=1
  fi
}
for run in configs/*.xml; do
  b=$(basename "$run" .xml)
  check "estimate-$b" "$exe" estimate "$run" --format json
  check "schedules-$b" "$exe" schedules "$run" --format json
done
check "estimate-graph-megatron-1t" "$exe" estimate configs/megatron-1t.xml --engine graph --format json
check "energy-megatron-1t" "$exe" energy configs/megatron-1t.xml --clocks 810:1410:60 --format json
# the text report is what users read: it must name every part
"$exe" estimate configs/megatron-1t.xml > "$tmp/t.txt"
for s in "Iteration time" "pipeline bubble" "Memory per GPU" "optimizer state" "MFU" "HFU" \
         "Energy per iteration" "Training budget"; do
  grep -q "$s" "$tmp/t.txt" || { echo "text report lacks '$s'"; fail=1; }
done
exit $fail
