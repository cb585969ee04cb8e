#!/usr/bin/env bash
# CLI golden tests: `culonx estimate RUN --format json` (closed form and
# graph engine), `culonx schedules` and `culonx energy` on every shipped run
# (`culonx serve` and `serve --plan` on the serving runs)
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
  if grep -q "<serving" "$run"; then # serving runs: culonx serve (and its plan)
    check "serve-$b" "$exe" serve "$run" --clocks 810:1980:90 --format json
    check "serve-plan-$b" "$exe" serve "$run" --plan --gpus 8 --format json
    continue
  fi
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
"$exe" serve configs/llama2-70b-serve-h100.xml --clocks 810:1980:90 > "$tmp/s.txt"
for s in "TTFT ms" "TPOT ms" "J/token" "least energy within SLOs" "KV cache"; do
  grep -q "$s" "$tmp/s.txt" || { echo "serve report lacks '$s'"; fail=1; }
done
"$exe" serve configs/llama2-70b-serve-h100.xml --plan --gpus 8 > "$tmp/p.txt"
for s in "instances" "baseline" "saving"; do
  grep -q "$s" "$tmp/p.txt" || { echo "serve plan report lacks '$s'"; fail=1; }
done
exit $fail
