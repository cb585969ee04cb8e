#!/bin/bash
# cli_sweep.sh — `culonx sweep` from the command line: usage errors exit 2,
# bad values against the run exit 1, output byte-identical for 1, 2 and 3
# threads (report, JSON, --all CSV and JSON lines), --set fixes a swept field.
# $1: the culonx executable; run from the source root.
set -u
X=$1
RUN=configs/megatron-1t.xml
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
expect() { # expected-rc description command...
    local want=$1 what=$2
    shift 2
    "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL: $what: exit $rc, expected $want"; cat "$T/err"; fail=1
    elif [ "$want" != 0 ] && [ ! -s "$T/err" ]; then
        echo "FAIL: $what: no message on stderr"; fail=1
    fi
}
expect 2 "missing RUN" "$X" sweep
expect 2 "tp 0" "$X" sweep $RUN --tp 0
expect 2 "tp negative" "$X" sweep $RUN --tp -8
expect 2 "bad list" "$X" sweep $RUN --tp 8,,16
expect 2 "bad range" "$X" sweep $RUN --pp 8:2
expect 2 "unknown objective" "$X" sweep $RUN --objective speed
expect 2 "unknown schedule" "$X" sweep $RUN --schedule zigzag
expect 2 "threads 0" "$X" sweep $RUN --threads 0
expect 2 "top 0" "$X" sweep $RUN --top 0
expect 2 "memory negative" "$X" sweep $RUN --max-memory-gib -5
expect 2 "format" "$X" sweep $RUN --format xml
expect 2 "all without file" "$X" sweep $RUN --all
expect 2 "unknown option" "$X" sweep $RUN --frobnicate
expect 1 "missing file" "$X" sweep configs/no-such-run.xml
expect 1 "clock outside the GPU range" "$X" sweep $RUN --clocks 100:200:50
expect 1 "--all unwritable" "$X" sweep $RUN --all /nonexistent/dir/x.csv
grep -q "outside" "$T/err" 2>/dev/null || true

# a small space: 4096 GPUs, a few clocks
ARGS=(sweep $RUN --gpus 4096 --pp 16,32,64 --clocks 1410,1200 --dp-overlap on,off --top 5)
for t in 1 2 3; do
    expect 0 "threads $t" "$X" "${ARGS[@]}" --threads $t --all "$T/all$t.csv"
    cp "$T/out" "$T/text$t"
    expect 0 "threads $t json" "$X" "${ARGS[@]}" --threads $t --format json --all "$T/all$t.jsonl"
    cp "$T/out" "$T/json$t"
done
for t in 2 3; do
    for f in text json all; do
        a="$T/${f}1"; b="$T/${f}$t"
        [ $f = all ] && a="$T/all1.csv" && b="$T/all$t.csv"
        cmp -s "$a" "$b" || { echo "FAIL: $f differs between 1 and $t threads"; fail=1; }
    done
    cmp -s "$T/all1.jsonl" "$T/all$t.jsonl" || { echo "FAIL: jsonl differs (1 vs $t)"; fail=1; }
done
grep -q "^enumerated [0-9]*, evaluated [0-9]*, feasible" "$T/text1" || { echo "FAIL: no summary"; fail=1; }
grep -q "Pareto frontier" "$T/text1" || { echo "FAIL: no frontier"; fail=1; }
head -1 "$T/all1.csv" | grep -q "^index,gpus," || { echo "FAIL: CSV header"; fail=1; }
[ "$(wc -l <"$T/all1.csv")" -gt 100 ] || { echo "FAIL: too few --all rows"; fail=1; }
head -1 "$T/all1.jsonl" | grep -q '^{"index":' || { echo "FAIL: JSON lines"; fail=1; }

# pruning by bounds changes no reported result: the top K and the frontier
# (from the "top" line on) are byte-identical with --no-prune, for time and
# energy objectives, 1 and 2 threads, on two models and systems
section() { sed -n '/^top /,$p' "$1"; }
for run in "$RUN --gpus 4096 --pp 16,32 --clocks 1410,1100" "configs/llama3-8b-h100.xml --clocks 1980,1200"; do
    for obj in time energy; do
        for t in 1 2; do
            # shellcheck disable=SC2086
            expect 0 "pruned $obj $t" "$X" sweep $run --objective $obj --threads $t --top 6
            cp "$T/out" "$T/pruned"
            # shellcheck disable=SC2086
            expect 0 "--no-prune $obj $t" "$X" sweep $run --objective $obj --threads $t --top 6 --no-prune
            grep -q "^pruned by bounds" "$T/pruned" || { echo "FAIL: no pruned line"; fail=1; }
            grep -q "^pruned by bounds" "$T/out" && { echo "FAIL: pruned line with --no-prune"; fail=1; }
            [ -n "$(section "$T/pruned")" ] || { echo "FAIL: no top K ($run $obj)"; fail=1; }
            cmp -s <(section "$T/pruned") <(section "$T/out") ||
                { echo "FAIL: --no-prune changes the results ($run, $obj, $t threads)"; fail=1; }
        done
    done
done

# --set execution.tp=4 fixes tp in the sweep
expect 0 "--set fixes tp" "$X" sweep $RUN --gpus 4096 --set execution.tp=4 --format json --top 3
if grep -o '"tp": [0-9]*' "$T/out" | grep -qv '"tp": 4'; then echo "FAIL: --set tp"; fail=1; fi
# energy objectives run when the power model gives energy (shipped A100)
expect 0 "energy objective" "$X" sweep $RUN --gpus 4096 --objective tokens-per-joule --top 2
# --verify shows both engines
expect 0 "verify" "$X" sweep $RUN --gpus 4096 --top 2 --verify 2
grep -q "graph engine" "$T/out" || { echo "FAIL: verify output"; fail=1; }
# no progress on a non-terminal stderr: only the closing summary (counts
# and rate); --quiet: nothing
expect 0 "summary" "$X" sweep $RUN --gpus 4096 --top 1
[ "$(wc -l <"$T/err")" = 1 ] && grep -q "^sweep: [0-9]* candidates, [0-9]* evaluated, .* evaluations/s$" "$T/err" ||
    { echo "FAIL: closing summary on stderr"; cat "$T/err"; fail=1; }
expect 0 "quiet" "$X" sweep $RUN --gpus 4096 --top 1 --quiet
[ -s "$T/err" ] && { echo "FAIL: stderr not empty with --quiet"; fail=1; }
# --progress plain: newline-terminated progress lines, the last at 100%
expect 0 "progress plain" "$X" sweep $RUN --gpus 4096 --top 1 --progress plain
grep -q "^sweep: progress [0-9]*/[0-9]* candidates (100.0%)" "$T/err" ||
    { echo "FAIL: --progress plain"; cat "$T/err"; fail=1; }
grep -q $'\r' "$T/err" && { echo "FAIL: carriage return with --progress plain"; fail=1; }
expect 2 "progress mode" "$X" sweep $RUN --progress fancy
# nothing feasible: exit 1, the reasons on stderr
expect 1 "nothing feasible" "$X" sweep $RUN --gpus 4096 --max-memory-gib 1 --quiet
grep -q "no feasible configuration.*does not fit in memory" "$T/err" ||
    { echo "FAIL: no reasons for nothing feasible"; cat "$T/err"; fail=1; }
# the dimensions of modern dense training (issue 9): cp, attention, tp-overlap
L8=configs/llama3-8b-h100.xml
expect 0 "cp list" "$X" sweep $L8 --cp 1,2 --tp 8 --pp 1 --top 20 --format json --quiet
grep -q '"cp": 2' "$T/out" && grep -q '"cp": 1' "$T/out" || { echo "FAIL: --cp 1,2 entries"; fail=1; }
expect 1 "tp-overlap needs sp" "$X" sweep $L8 --tp-overlap pipe --sp off --quiet
grep -q "tp-overlap without sequence parallel" "$T/err" || { echo "FAIL: tp-overlap reason"; fail=1; }
expect 1 "cp needs flash" "$X" sweep $L8 --cp 2 --attention naive --quiet
grep -q "cp: seq % (2\*cp) or naive attention" "$T/err" || { echo "FAIL: cp reason"; fail=1; }
expect 2 "bad attention" "$X" sweep $L8 --attention sdpa
expect 0 "cp rows" "$X" sweep $L8 --cp 2 --tp 8 --top 1 --quiet --all "$T/cp.csv"
head -1 "$T/cp.csv" | grep -q ',cp,attention,tp_overlap,ep,etp,zero,shard_group,offload$' || { echo "FAIL: CSV cp columns"; fail=1; }
awk -F, 'NR > 1 && $21 != 2 { bad = 1 } END { exit bad }' "$T/cp.csv" || { echo "FAIL: CSV cp value"; fail=1; }
# the text table: a cp column always; attn and tpo columns only where the space varies them
expect 0 "cp text" "$X" sweep $L8 --cp 2 --tp 8 --tp-overlap pipe --top 1 --quiet
grep -q '^ *# *gpus *tp *cp *pp *dp schedule' "$T/out" || { echo "FAIL: text cp column"; fail=1; }
awk '$1 == "1" && $4 != 2 { bad = 1 } END { exit bad }' "$T/out" || { echo "FAIL: text cp value"; fail=1; }
grep -q 'attention flash in every row; tp-overlap pipe in every row' "$T/out" ||
    { echo "FAIL: text legend of fixed attention/tp-overlap"; fail=1; }
grep -q ' attn tpo ' "$T/out" && { echo "FAIL: attn/tpo columns of a fixed space"; fail=1; }
expect 0 "attn text" "$X" sweep $L8 --tp 8 --attention flash,naive --tp-overlap none,pipe --top 3 --quiet
grep -q ' ovl attn  tpo  *MHz ' "$T/out" || { echo "FAIL: text attn/tpo columns"; fail=1; }
# mixture of experts (issue 10): ep and etp levels, their reject reasons, columns
MX=configs/mixtral-8x7b-h100.xml
expect 0 "ep list" "$X" sweep $MX --ep 1,2,4,8 --etp 1,2 --pp 4 --tp 1,2 --top 30 --format json --quiet
grep -q '"ep": 8' "$T/out" && grep -q '"ep": 4' "$T/out" || { echo "FAIL: --ep entries"; fail=1; }
expect 0 "ep reasons" "$X" sweep $MX --ep 3,8 --tp 1,2 --sp off --pp 4
grep -q "ep/etp do not split the experts or the ranks" "$T/out" || { echo "FAIL: ep reason"; fail=1; }
grep -q "MoE with tp > 1 needs sequence parallel" "$T/out" || { echo "FAIL: moe sp reason"; fail=1; }
grep -q "^   #  ep etp   gpus" "$T/out" || { echo "FAIL: ep columns in text"; fail=1; }
expect 0 "ep rows" "$X" sweep $MX --ep 4 --pp 4 --tp 1 --top 1 --quiet --all "$T/ep.csv"
awk -F, 'NR > 1 && ($24 != 4 || $25 != 1) { bad = 1 } END { exit bad }' "$T/ep.csv" || { echo "FAIL: CSV ep value"; fail=1; }
expect 1 "ep on a dense model" "$X" sweep $L8 --ep 2 --quiet
grep -q "ep/etp do not split" "$T/err" || { echo "FAIL: dense ep reason"; fail=1; }
# sharding (issue 10): FSDP, HSDP and 3D strategies of llama3-70b on 512 H100s
# ranked side by side (zero 3 over all of dp, zero 3 in groups of 8, zero
# <= 1 with tp or pp); --zero/--shard-group/--offload as dimensions
F70=configs/llama3-70b-fsdp-h100.xml
expect 0 "fsdp hsdp 3d" "$X" sweep $F70 --zero 0,1,3 --shard-group full,8 --recompute full --sp on \
    --top 40 --format json --quiet
python3 - "$T/out" <<'PY' || { echo "FAIL: FSDP, HSDP and 3D not ranked side by side"; fail=1; }
import json, sys
top = json.load(open(sys.argv[1]))["top"]
kinds = set()
for e in top:
    if e["zero"] == 3 and e["shard_group"] == e["dp"] and e["tp"] == 1 and e["pp"] == 1:
        kinds.add("fsdp")
    if e["zero"] == 3 and e["shard_group"] < e["dp"]:
        kinds.add("hsdp")
    if e["zero"] <= 1 and (e["tp"] > 1 or e["pp"] > 1):
        kinds.add("3d")
sys.exit(0 if kinds == {"fsdp", "hsdp", "3d"} else 1)
PY
expect 0 "sharding column" "$X" sweep $F70 --zero 3 --shard-group full,8 --tp 8 --pp 1 --top 4 --quiet
grep -q "sharding" "$T/out" && grep -q " z3/8 " "$T/out" && grep -q " z3 " "$T/out" ||
    { echo "FAIL: sharding column"; fail=1; }
expect 0 "default space unchanged" "$X" sweep $L8 --tp 8 --pp 1 --top 1 --quiet
grep -q "sharding" "$T/out" && { echo "FAIL: sharding column without sharding"; fail=1; }
expect 0 "offload rows" "$X" sweep $F70 --zero 3 --tp 1 --pp 1 --offload none,optimizer,weights+optimizer \
    --top 3 --quiet --all "$T/off.csv"
grep -q ',weights,optimizer$' "$T/off.csv" && grep -q ',3,512,optimizer$' "$T/off.csv" ||
    { echo "FAIL: offload column"; fail=1; }
expect 1 "offload needs host" "$X" sweep configs/llama2-7b-v100.xml --offload weights --quiet
grep -q "offload without a <host> memory tier" "$T/err" || { echo "FAIL: offload reason"; fail=1; }
expect 1 "shard-group needs zero" "$X" sweep $L8 --zero 0 --dist-opt off --shard-group 2 --quiet
grep -q "shard-group with zero 0" "$T/err" || { echo "FAIL: shard-group reason"; fail=1; }
expect 2 "bad zero" "$X" sweep $F70 --zero 4
expect 2 "bad shard-group" "$X" sweep $F70 --shard-group -8
expect 2 "bad offload" "$X" sweep $F70 --offload disk
expect 1 "set zero" "$X" estimate $F70 --set execution.zero=5
expect 1 "set offload" "$X" estimate $F70 --set execution.offload=gpu
exit $fail
