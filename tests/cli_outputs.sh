#!/usr/bin/env bash
# cli_outputs.sh — output files are never lost or damaged (issue 15): every
# output is written to a temporary file and renamed into place on success,
# so a failing run, SIGINT/SIGTERM or SIGKILL mid-write leaves the previous
# file untouched; an output naming an input is refused with exit 1; a full
# disk is exit 1. Usage: cli_outputs.sh CULONX (from the source root).
set -uo pipefail
exe="$1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
run=configs/megatron-22b.xml
good() { printf 'previous good content\n' > "$1"; }
same() { # file, what
  if ! cmp -s "$1" <(printf 'previous good content\n'); then echo "FAIL: $2 damaged $1"; fail=1; fi
}
# a failing run keeps the previous file (trace, sweep --all, calibrate)
good "$tmp/t.json"
"$exe" trace $run -o "$tmp/t.json" --set execution.tp=3 2>/dev/null; [ $? -eq 1 ] || { echo "FAIL: bad trace rc"; fail=1; }
same "$tmp/t.json" "failing trace"
good "$tmp/all.csv"
"$exe" sweep $run --all "$tmp/all.csv" --set execution.tp=abc 2>/dev/null; [ $? -ne 0 ] || { echo "FAIL: bad sweep rc"; fail=1; }
same "$tmp/all.csv" "failing sweep"
good "$tmp/p.xml"
printf 'gpu,benchmark\nV100,x\n' > "$tmp/short.csv"
"$exe" calibrate "$tmp/short.csv" -o "$tmp/p.xml" 2>/dev/null; [ $? -eq 1 ] || { echo "FAIL: bad calibrate rc"; fail=1; }
same "$tmp/p.xml" "failing calibrate"
# an output naming an input is refused (exit 1) and the input is untouched
cp $run "$tmp/run.xml"; sed -i "s|file=\"|file=\"$PWD/configs/|g" "$tmp/run.xml"
cp "$tmp/run.xml" "$tmp/run.bak"
"$exe" trace "$tmp/run.xml" -o "$tmp/run.xml" 2>"$tmp/err"; rc=$?
{ [ $rc -eq 1 ] && grep -q "refusing to overwrite an input" "$tmp/err"; } || { echo "FAIL: trace -o INPUT rc $rc: $(cat "$tmp/err")"; fail=1; }
cmp -s "$tmp/run.xml" "$tmp/run.bak" || { echo "FAIL: trace overwrote its input"; fail=1; }
"$exe" sweep "$tmp/run.xml" --all "$tmp/run.xml" --quiet >/dev/null 2>&1; [ $? -eq 1 ] || { echo "FAIL: sweep --all INPUT"; fail=1; }
cmp -s "$tmp/run.xml" "$tmp/run.bak" || { echo "FAIL: sweep overwrote its input"; fail=1; }
sum=$(md5sum < configs/models/megatron-22b.xml)
"$exe" trace $run -o configs/models/megatron-22b.xml >/dev/null 2>&1; [ $? -eq 1 ] || { echo "FAIL: trace -o the model file"; fail=1; }
[ "$(md5sum < configs/models/megatron-22b.xml)" = "$sum" ] || { echo "FAIL: the model file changed"; fail=1; }
# interrupted mid-write (op-level trace of a 1T run takes a while): the old
# file stays, no temporary file stays after SIGINT/SIGTERM
for sig in INT TERM KILL; do
  good "$tmp/big.json"
  "$exe" trace configs/megatron-1t.xml --detail op -o "$tmp/big.json" 2>/dev/null &
  pid=$!
  for _ in $(seq 1 100); do ls "$tmp"/big.json.tmp* >/dev/null 2>&1 && break; sleep 0.05; done
  sleep 0.3
  kill -s $sig $pid 2>/dev/null; wait $pid 2>/dev/null
  same "$tmp/big.json" "SIG$sig mid-write"
  if [ $sig != KILL ] && ls "$tmp"/big.json.tmp* >/dev/null 2>&1; then
    echo "FAIL: SIG$sig left a temporary file"; fail=1
  fi
  rm -f "$tmp"/big.json.tmp*
done
# a successful run replaces the file with a complete one
good "$tmp/t.json"
"$exe" trace $run -o "$tmp/t.json" || { echo "FAIL: trace"; fail=1; }
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/t.json" || { echo "FAIL: trace not JSON"; fail=1; }
# a full disk is bad input/environment (exit 1), never "internal" (3)
if [ -w /dev/full ]; then
  "$exe" estimate $run > /dev/full 2>/dev/null; rc=$?
  [ $rc -eq 1 ] || { echo "FAIL: estimate > /dev/full rc $rc (want 1)"; fail=1; }
  "$exe" trace $run -o - > /dev/full 2>/dev/null; rc=$?
  [ $rc -eq 1 ] || { echo "FAIL: trace -o - > /dev/full rc $rc (want 1)"; fail=1; }
fi
[ $fail -eq 0 ] && echo "cli_outputs: ok"
exit $fail
