#!/usr/bin/env bash
# CLI bad-input and usage tests for estimate, trace, schedules, energy and serve:
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
expect 2 "needs a value, got option '--format'" "$exe" estimate $run --set --format json
expect 1 "error:" "$exe" estimate does-not-exist.xml
expect 1 "tp: expected a positive integer" "$exe" estimate $run --set execution.tp=abc
expect 1 "does not divide" "$exe" estimate $run --set execution.tp=3
expect 1 "error:" "$exe" estimate $run --set execution.clock-mhz=99999
expect 1 "tests/bad/09-heads-tp.xml:" "$exe" estimate tests/bad/09-heads-tp.xml
# mixture of experts through --set: the execution rules and the field types
expect 1 "ep 3 does not divide 8 experts" "$exe" estimate configs/mixtral-8x7b-h100.xml --set execution.ep=3
expect 1 "shared-experts: expected a non-negative integer" "$exe" estimate configs/mixtral-8x7b-h100.xml --set model.shared-experts=-1
expect 1 "does not divide the tp*cp*dp = 16 ranks" "$exe" sweep configs/mixtral-8x7b-h100.xml --set execution.etp=4
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
expect 2 "--plan must be a time in seconds" "$exe" trace $run --plan -1 -o /dev/null
expect 2 "--plan must be a time in seconds" "$exe" trace $run --plan abc -o /dev/null
expect 2 "--plan traces the stage-level DAG" "$exe" trace $run --plan 10 --detail op -o /dev/null
expect 2 "takes no value" "$exe" serve configs/llama2-70b-serve-h100.xml --plan=3
# numeric policy: conflicting explicit values and degenerate inputs are errors, never nonsense
expect 1 "gpus must equal tp*pp*dp" "$exe" estimate $run --set execution.gpus=8 --set execution.dp=4
expect 1 "must be at least 0.001" "$exe" estimate $run --set gpu.matrix16-tflops=1e-300
expect 1 "expected a positive number" "$exe" estimate $run --set gpu.hbm-gbps=0x10
expect 1 "expected a positive integer" "$exe" estimate $run --set execution.tp=0x8
# inputs must be regular files: a FIFO or a device never blocks or grows memory
mkfifo "$tmp/fifo"
expect 1 "is not a regular file" timeout 10 "$exe" calibrate "$tmp/fifo" -o "$tmp/p.xml"
expect 1 "is not a regular file" timeout 10 "$exe" calibrate /dev/zero -o "$tmp/p.xml"
expect 1 "is not a regular file" timeout 10 "$exe" dvfs-predict --power "$tmp/fifo" --profile bench/data/dvfs-v100-microbench.csv
expect 1 "is not a regular file" timeout 10 "$exe" estimate "$tmp/fifo"
# CSV and power XML: decimal numbers only, plausible ranges, exit 1 (never a fit failure "3")
hdr="gpu,benchmark,kernel,input,core_mhz,mem_mhz,time_ms,power_w,sm_active,sm_occupancy,dram_active,fp16_active,fp32_active,fp64_active,tensor_active"
printf '%s\nV,b,k,i,0x10,1,1,1,0.5,0.5,0.5,0,0,0,0\n' "$hdr" > "$tmp/hex.csv"
expect 1 "hex.csv:2: error: core_mhz: '0x10' is not a number" "$exe" calibrate "$tmp/hex.csv" -o "$tmp/p.xml"
printf '%s\nV,b,k,i,1000,1,1e308,1,0.5,0.5,0.5,0,0,0,0\n' "$hdr" > "$tmp/huge.csv"
expect 1 "time_ms = 1e+308 is outside the plausible range" "$exe" calibrate "$tmp/huge.csv" -o "$tmp/p.xml"
printf '%s\nV,b,k,i,1000,1,1,1,0.5,0.5,0.5,inf,0,0,0\n' "$hdr" > "$tmp/inf.csv"
expect 1 "fp16_active: 'inf' is not a number" "$exe" calibrate "$tmp/inf.csv" -o "$tmp/p.xml"
sed 's/time-exp="[0-9.e+-]*"/time-exp="1e308"/' configs/power/v100.xml > "$tmp/pw.xml"
expect 1 "time-exp = 1e+308 is outside the plausible range" "$exe" dvfs-predict --power "$tmp/pw.xml" --profile bench/data/dvfs-v100-microbench.csv
# JSON output is always valid UTF-8 JSON, whatever bytes a name holds
{ head -1 bench/data/dvfs-v100-microbench.csv; printf 'V100,b\377x,k\300\257,iq\\,1380,877,1,100,0.9,0.5,0.1,0,0.5,0,0\n'; } > "$tmp/utf.csv"
"$exe" dvfs-predict --power configs/power/v100.xml --profile "$tmp/utf.csv" --format json > "$tmp/utf.json" 2>"$tmp/err" || { echo "FAIL: dvfs-predict utf: $(cat "$tmp/err")"; fail=1; }
python3 -c "import json,sys; d=json.load(open(sys.argv[1],encoding='utf-8')); assert d['points'][0]['benchmark']=='b\ufffdx', d['points'][0]" "$tmp/utf.json" || { echo "FAIL: JSON not valid UTF-8"; fail=1; }
# serve: usage, runs without <serving>, plan options
srv=configs/llama2-70b-serve-h100.xml
expect 1 "no <serving> element" "$exe" serve $run
expect 1 "no <execution> (a serving run: use culonx serve)" "$exe" estimate $srv
expect 1 "no <execution>" "$exe" energy $srv
expect 2 "--plan needs --gpus N" "$exe" serve $srv --plan
expect 2 "--gpus is for --plan" "$exe" serve $srv --gpus 8
expect 2 "--gpus must be an integer" "$exe" serve $srv --plan --gpus 0
expect 2 "--gpus must be an integer" "$exe" serve $srv --plan --gpus 8x
expect 2 "--format must be" "$exe" serve $srv --format xml
expect 2 "--format must be" "$exe" serve $srv --plan --gpus 8 --format csv
expect 2 "--clocks must be MIN:MAX:STEP" "$exe" serve $srv --clocks 1:2
expect 1 "outside the GPU" "$exe" serve $srv --clocks 100:1980:15
expect 1 "load-tokens-per-s > 0" "$exe" serve $srv --plan --gpus 8 --set serving.load-tokens-per-s=0
expect 1 "3 does not divide 64 heads" "$exe" serve $srv --set serving.tp=3
expect 1 "the run has no <serving> element" "$exe" estimate $run --set serving.tp=8
expect 1 "tests/bad/54-serving-tp-heads.xml:6:" "$exe" serve tests/bad/54-serving-tp-heads.xml
expect 2 "--straggler must be a factor" "$exe" plan $run --straggler 0.5
expect 2 "--straggler must be a factor" "$exe" plan $run --straggler fast
expect 2 "--time must be a time" "$exe" plan $run --time -3
expect 2 "--points must be a count" "$exe" plan $run --points x
expect 2 "--exact-at must be a count" "$exe" plan $run --exact-at 0
expect 2 "--exact-cuts must be a count" "$exe" plan $run --exact-at 2 --exact-cuts -1
expect 2 "--exact-cuts needs --exact-at" "$exe" plan $run --exact-cuts 5
expect 2 "--exact and --exact-at exclude" "$exe" plan $run --exact --exact-at 2
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
expect 1 "give --cross-gpu" "$exe" dvfs-predict --power configs/power/v100.xml --profile bench/data/dvfs-rtx8000-microbench.csv
"$exe" dvfs-predict --power configs/power/v100.xml --profile bench/data/dvfs-rtx8000-microbench.csv --cross-gpu --format csv >"$tmp/x" 2>&1 \
  && head -1 "$tmp/x" | grep -q energy_millijoules || { echo "FAIL: --cross-gpu should predict (energy_millijoules column)"; fail=1; }
# CSV through libcsv: a UTF-8 BOM, CRLF and quoted fields are read; bad quoting is a file:line error
hdr="gpu,benchmark,kernel,input,core_mhz,mem_mhz,time_ms,power_w,sm_active,sm_occupancy,dram_active,fp16_active,fp32_active,fp64_active,tensor_active"
printf '\xef\xbb\xbf%s\r\n"V100","cache,bench","k ""x""",in,1380,877,1.5,200,0.5,0.5,0.1,0,0.2,0,0\r\n' "$hdr" > "$tmp/bom.csv"
"$exe" dvfs-predict --power configs/power/v100.xml --profile "$tmp/bom.csv" --format csv > "$tmp/x" 2>&1 \
  && grep -qF 'V100,"cache,bench","k ""x""",in,' "$tmp/x" || { echo "FAIL: BOM/CRLF/quoted CSV: $(head -3 "$tmp/x")"; fail=1; }
# a byte-order mark followed by blanks only: an empty header, not a read past the line (fuzz find)
printf '\xef\xbb\xbf\t\t\n' > "$tmp/bomtab.csv"
expect 1 "bomtab.csv:1: error: header lacks column 'gpu'" "$exe" dvfs-predict --power configs/power/v100.xml --profile "$tmp/bomtab.csv"
printf '%s\nV100,"cache,1,2,3,4,5,6,7,8,9,10,11,12,13,14\n' "$hdr" > "$tmp/q.csv"
expect 1 "q.csv:2: error: malformed quoting" "$exe" dvfs-predict --power configs/power/v100.xml --profile "$tmp/q.csv"
expect 2 "did you mean '--format'" "$exe" estimate $run --formt json
expect 2 "did you mean 'estimate'" "$exe" estmate $run
expect 1 "did you mean 'tp'?); keys: gpus, tp" "$exe" estimate $run --set execution.tpp=4
# every command answers --help (and `culonx help CMD`) with exit 0 and its usage
for c in estimate trace report schedules energy plan sweep serve calibrate dvfs-predict; do
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
# a cut cap the descent runs into is said, in text and JSON
"$exe" plan configs/llama2-7b-v100.xml --exact-at 2 --exact-cuts 3 > "$tmp/p.txt" &&
  grep -q "2 frontier times reached the --exact-cuts cap" "$tmp/p.txt" ||
  { echo "plan --exact-cuts: cap not reported"; fail=1; }
"$exe" plan configs/llama2-7b-v100.xml --exact-at 2 --exact-cuts 3 --format json |
  grep -q '"uncertified_points": 2' || { echo "plan json: uncertified_points"; fail=1; }
[ $fail -eq 0 ] && echo "cli_errors: ok"
exit $fail
