#!/usr/bin/env bash
# CLI bad-input and usage tests for estimate, trace, schedules and energy:
# exit code 2 for usage errors, 1 for bad input with "file:line: error:" (or
# the option named) on stderr, never a crash. Usage: cli_errors.sh CULONX
set -uo pipefail
exe="$1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # code, stderr substring, command...
  local code="$1" msg="$2"; shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"; local rc=$?
  if [ $rc -ne "$code" ] || ! grep -qF -- "$msg" "$tmp/err"; then
    echo "FAIL: $* -> rc $rc (want $code), stderr: $(head -c 300 "$tmp/err") (want '$msg')"
    fail=1
  fi
}
run=configs/megatron-22b.xml
expect 2 "usage" "$exe"
expect 2 "unknown command" "$exe" frobnicate
expect 2 "missing RUN.xml" "$exe" estimate
expect 2 "unknown option" "$exe" estimate $run --bogus
expect 2 "--format must be" "$exe" estimate $run --format yaml
expect 2 "--engine must be" "$exe" estimate $run --engine quantum
expect 2 "needs a value" "$exe" estimate $run --set
expect 1 "error:" "$exe" estimate does-not-exist.xml
expect 1 "tp: expected a positive integer" "$exe" estimate $run --set execution.tp=abc
expect 1 "does not divide" "$exe" estimate $run --set execution.tp=3
expect 1 "error:" "$exe" estimate $run --set execution.clock-mhz=99999
expect 1 "tests/bad/09-heads-tp.xml:" "$exe" estimate tests/bad/09-heads-tp.xml
expect 1 "interleaved needs at least" "$exe" estimate tests/bad/52-interleaved-microbatches.xml --engine graph
expect 2 "--format must be" "$exe" schedules $run --format csv
expect 1 "error:" "$exe" schedules tests/bad/01-malformed.xml
expect 2 "--clocks must be MIN:MAX:STEP" "$exe" energy $run --clocks 100:200
expect 2 "--clocks must be MIN:MAX:STEP" "$exe" energy $run --clocks 300:200:15
expect 2 "--clocks must be MIN:MAX:STEP" "$exe" energy $run --clocks a:b:c
expect 2 "--clocks must be MIN:MAX:STEP" "$exe" energy $run --clocks 100:200:0
expect 1 "outside the GPU" "$exe" energy $run --clocks 100:5000:15
expect 2 "--format must be" "$exe" energy $run --format xml
expect 2 "missing -o" "$exe" trace $run
expect 2 "--straggler must be a factor" "$exe" plan $run --straggler 0.5
expect 2 "--straggler must be a factor" "$exe" plan $run --straggler fast
expect 2 "--time must be a time" "$exe" plan $run --time -3
expect 2 "--points must be a count" "$exe" plan $run --points x
expect 2 "--format must be" "$exe" plan $run --format xml
expect 1 "error:" "$exe" plan tests/bad/01-malformed.xml
expect 2 "--power-limit must be" "$exe" plan $run --power-limit 0
expect 2 "--carbon-g-per-kwh must be" "$exe" plan $run --carbon-g-per-kwh -5
expect 2 "power-cap-mw" "$exe" sweep $run --power-cap-mw -1
expect 2 "power-cap-mw" "$exe" sweep $run --power-cap-mw lots
# absurd microbatch counts: a clear error, not gigabytes of replay or graph
big="--set execution.global-batch=6000000 --set execution.schedule=interleaved --set execution.vp=2"
expect 1 "too many to replay" "$exe" estimate configs/megatron-1t.xml $big
expect 1 "graph too large" "$exe" estimate configs/megatron-1t.xml $big --engine graph
# calibrate / dvfs-predict
printf 'gpu,benchmark\nV100,x\n' > "$tmp/short.csv"
expect 1 "short.csv:" "$exe" calibrate "$tmp/short.csv" -o "$tmp/p.xml"
expect 1 "cannot open" "$exe" dvfs-predict --power configs/power/v100.xml --profile /nonexistent.csv
expect 1 "error:" "$exe" dvfs-predict --power /nonexistent.xml --profile bench/data/dvfs-v100-microbench.csv
expect 2 "" "$exe" calibrate
expect 2 "" "$exe" dvfs-predict --power configs/power/v100.xml
# every command answers --help (and `culonx help CMD`) with exit 0 and its usage
for c in estimate trace schedules energy sweep calibrate dvfs-predict; do
  "$exe" $c --help > "$tmp/h" 2> "$tmp/err"; rc=$?
  { [ $rc -eq 0 ] && grep -q "^usage: culonx $c" "$tmp/h" && grep -q -- "--help" "$tmp/h"; } || { echo "FAIL: $c --help (rc $rc)"; fail=1; }
  "$exe" help $c | cmp -s - "$tmp/h" || { echo "FAIL: help $c differs from $c --help"; fail=1; }
done
"$exe" --help | grep -q "^usage: culonx" || { echo "FAIL: --help"; fail=1; }
expect 2 "unknown command" "$exe" help frobnicate
expect 2 "unknown option" "$exe" energy $run --engine graph
expect 2 "takes no value" "$exe" sweep $run --quiet=1
expect 2 "missing -o POWER.xml" "$exe" calibrate x.csv
expect 2 "missing --profile" "$exe" dvfs-predict --power configs/power/v100.xml
# valid commands succeed and print something parseable
"$exe" energy $run --clocks 1200:1410:30 --format csv > "$tmp/e.csv" || { echo "energy csv failed"; fail=1; }
[ "$(head -1 "$tmp/e.csv" | cut -d, -f1)" = "clock_mhz" ] || { echo "energy csv header"; fail=1; }
[ "$(wc -l < "$tmp/e.csv")" -eq 9 ] || { echo "energy csv rows: $(wc -l < "$tmp/e.csv")"; fail=1; }
"$exe" schedules $run > /dev/null || { echo "schedules failed"; fail=1; }
"$exe" version | grep -q "culonx" || { echo "version"; fail=1; }
[ $fail -eq 0 ] && echo "cli_errors: ok"
exit $fail
