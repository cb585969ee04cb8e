#!/usr/bin/env bash
# CLI test: `culonx trace` on every shipped run (stage level) and on a small
# run at op level, each validated by tests/check_trace.py (a real JSON parser:
# no overlaps on a thread, every dependency respected). Usage: cli_trace.sh CULONX
set -euo pipefail
exe="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for run in configs/*.xml; do
  if grep -q "<serving" "$run"; then continue; fi # serving runs have no iteration
  "$exe" trace "$run" -o "$tmp/t.json"
  python3 tests/check_trace.py "$tmp/t.json"
done
# op level on a small pipeline, and every schedule at stage level
small="--set execution.tp=8 --set execution.pp=4 --set execution.dp=2 --set execution.gpus=64 --set execution.global-batch=64 --set execution.microbatch=4"
"$exe" trace configs/megatron-22b.xml $small --set model.layers=16 --detail op -o "$tmp/op.json"
python3 tests/check_trace.py "$tmp/op.json"
for s in gpipe 1f1b interleaved zb-h1 zb-h2 zb-v dualpipev; do
  vp=1; [ "$s" = interleaved ] && vp=2
  "$exe" trace configs/megatron-22b.xml $small --set model.layers=16 \
    --set execution.schedule=$s --set execution.vp=$vp -o "$tmp/s.json"
  python3 tests/check_trace.py "$tmp/s.json"
done
# mixture of experts at op level: the all-to-alls on their own EP stream
"$exe" trace configs/mixtral-8x7b-h100.xml --set execution.global-batch=64 --detail op -o "$tmp/ep.json"
python3 tests/check_trace.py "$tmp/ep.json"
python3 - "$tmp/ep.json" <<'PY' || { echo "MoE trace: no all-to-all on the EP comm thread"; exit 1; }
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
names = {e["tid"]: e["args"]["name"] for e in ev if e.get("name") == "thread_name" and e["pid"] == 0}
ep = [e for e in ev if e.get("cat") == "ep"]
sys.exit(0 if ep and all(names[e["tid"]] == "EP comm" for e in ep) else 1)
PY
# gzip (checked through python's gzip), --max-events, stdout
"$exe" trace configs/gpt3-175b.xml -o "$tmp/t.json.gz"
python3 tests/check_trace.py "$tmp/t.json.gz"
"$exe" trace configs/gpt3-175b.xml --max-events 100 -o "$tmp/m.json" 2>"$tmp/err"
grep -q "kept the first" "$tmp/err" || { echo "--max-events should say what it kept"; exit 1; }
python3 tests/check_trace.py "$tmp/m.json"
"$exe" trace configs/megatron-22b.xml -o - | python3 -c 'import json,sys; json.load(sys.stdin)'
[ -z "$(ls "$tmp" | grep tmp)" ] || { echo "temporary file left behind"; exit 1; }
# Chakra: a file per pipeline stage (when built with protobuf-c)
if "$exe" trace configs/gpt3-175b.xml --format chakra -o "$tmp/et" 2>"$tmp/err"; then
  [ "$(ls "$tmp/et" | wc -l)" -eq 12 ] || { echo "chakra: want 12 rank files"; ls "$tmp/et"; exit 1; }
else
  grep -q "without protobuf-c" "$tmp/err" || { cat "$tmp/err"; exit 1; }
fi
# usage errors
set +e
"$exe" trace configs/megatron-22b.xml >/dev/null 2>&1; [ $? -eq 2 ] || { echo "missing -o should be a usage error"; exit 1; }
"$exe" trace configs/megatron-22b.xml -o "$tmp/x" --detail layer >/dev/null 2>&1; [ $? -eq 2 ] || { echo "bad --detail should be a usage error"; exit 1; }
"$exe" trace configs/megatron-22b.xml -o "$tmp/x" --max-events 0 >/dev/null 2>&1; [ $? -eq 2 ] || { echo "bad --max-events should be a usage error"; exit 1; }
"$exe" trace configs/megatron-22b.xml -o /nonexistent/dir/t.json >/dev/null 2>&1; [ $? -eq 1 ] || { echo "unwritable output should be exit 1"; exit 1; }
echo "cli_trace: ok"
