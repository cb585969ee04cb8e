#!/usr/bin/env bash
# CLI test: `culonx import calculon APP EXE SYS -o RUN.xml` on the megatron-1T
# files of tests/data/calculon/ gives a run whose estimate has the iteration
# time of configs/megatron-1t.xml; usage errors exit 2, bad input 1 with
# file:line. Usage: cli_import.sh CULONX
set -euo pipefail
exe="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
d=tests/data/calculon
"$exe" import calculon $d/megatron-1T.json $d/3072_t8_p64_d6_mbs1_full.json $d/a100_80g.json -o "$tmp/run.xml"
a=$("$exe" estimate "$tmp/run.xml" | grep "^Iteration time")
b=$("$exe" estimate configs/megatron-1t.xml | grep "^Iteration time")
[ "$a" = "$b" ] || { echo "imported: $a, shipped: $b"; exit 1; }
[ -z "$(ls "$tmp" | grep '\.tmp\.')" ] || { echo "temporary file left"; exit 1; }
set +e
expect() { # code, stderr substring, args...
  local code="$1" msg="$2"; shift 2
  "$exe" "$@" >/dev/null 2>"$tmp/err"; local rc=$?
  if [ $rc -ne "$code" ] || ! grep -qF -- "$msg" "$tmp/err"; then
    echo "FAIL: $* -> rc $rc (want $code): $(head -c 300 "$tmp/err") (want '$msg')"; exit 1
  fi
}
expect 2 "missing FORMAT" import
expect 2 "unknown format" import onnx a b c -o x
expect 2 "needs APP.json" import calculon $d/megatron-1T.json -o x
expect 2 "missing -o" import calculon $d/megatron-1T.json $d/3072_t8_p64_d6_mbs1_full.json $d/a100_80g.json
expect 2 "unknown option" import calculon --bogus
printf '{"hidden": 1,\n "num_blocks": }' > "$tmp/bad.json"
expect 1 "$tmp/bad.json:2: error: bad JSON" import calculon "$tmp/bad.json" $d/3072_t8_p64_d6_mbs1_full.json $d/a100_80g.json -o "$tmp/x.xml"
expect 1 "cannot read" import calculon $tmp/none.json $d/3072_t8_p64_d6_mbs1_full.json $d/a100_80g.json -o "$tmp/x.xml"
[ ! -e "$tmp/x.xml" ] || { echo "failed import left a file"; exit 1; }
"$exe" import --help | grep -q "usage: culonx import calculon" || { echo "no --help"; exit 1; }
echo "cli_import: ok"
