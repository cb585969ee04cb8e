#!/usr/bin/env bash
# fit_reproduces.sh — the shipped H100 efficiencies are what the fits print:
# bench_fit_kernels (kernels timed on an H100, bench/data/h100-kernels.csv)
# gives the fused-attention curves that bench/fit.c fixes, and
# bench_fit --h100 prints the <perf> element of configs/systems/h100-80g.xml
# and h200-141g.xml (same die); bench_fit (the A100 fit) prints the
# FIT_* defines of hw/perf.c, whose half size and mem_eff bench/fit.c
# mirrors for the H100 fit; bench_fit_power (board power measured on an H100,
# bench/data/h100-power.csv) prints the <power> element of
# configs/power/h100.xml. Fails when a constant is edited by hand.
# usage: fit_reproduces.sh BENCH_FIT_KERNELS BENCH_FIT [BENCH_FIT_POWER]
set -u
kern="$1"; fit="$2"; fitp="${3:-}"; fail=0
out=$("$kern"); rc=$?
[ $rc -eq 77 ] && { echo "SKIP: $out"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: bench_fit_kernels exit $rc"; exit 1; }
echo "$out"
get() { echo "$out" | awk -v w="$1" '$0 ~ w { for (i=1;i<=NF;i++) if ($i=="'"$2"'") print $(i+1) }'; }
check() { # name, printed value, define in bench/fit.c
  local want; want=$(grep -E "^#define $3 " bench/fit.c | awk '{print $3}')
  if awk -v a="$2" -v b="$want" 'BEGIN{exit !(sprintf("%.4f",a)+0==sprintf("%.4f",b)+0 || sprintf("%.2f",a)+0==sprintf("%.2f",b)+0)}'; then
    echo "ok   $1: fit $2, bench/fit.c $want"
  else echo "FAIL $1: fit $2, bench/fit.c $want"; fail=1; fi
}
check "attention fwd e_max" "$(get 'attention fwd cudnn' e_max)" H100_ATTN_EFF
check "attention fwd g_half" "$(get 'attention fwd cudnn' g_half)" H100_ATTN_HALF_GFLOP
check "attention bwd e_max" "$(get 'attention bwd cudnn' e_max)" H100_ATTN_BWD_EFF
check "attention bwd g_half" "$(get 'attention bwd cudnn' g_half)" H100_ATTN_BWD_HALF_GFLOP
perf=$("$fit" --h100 | grep '^<perf') || { echo "FAIL: bench_fit --h100 printed no <perf>"; exit 1; }
for f in configs/systems/h100-80g.xml configs/systems/h200-141g.xml; do
  if grep -qF "  $perf" "$f"; then echo "ok   $f carries $perf"
  else echo "FAIL $f: <perf> differs from bench_fit --h100: $perf"; fail=1; fi
done
a100=$("$fit" | grep '^#define FIT_') || { echo "FAIL: bench_fit printed no defines"; exit 1; }
while read -r line; do
  if grep -qxF "$line" hw/perf.c; then echo "ok   hw/perf.c: $line"
  else echo "FAIL hw/perf.c lacks: $line"; fail=1; fi
done <<< "$a100"
for pair in "FIT_MATMUL_HALF_DIM A100_HALF_DIM_GFLOP" "FIT_MEM_EFF A100_MEM_EFF"; do
  set -- $pair
  v=$(echo "$a100" | awk -v k="$1" '$2 == k { print $3 }')
  w=$(grep -E "^#define $2 " bench/fit.c | awk '{print $3}')
  if [ "$v" = "$w" ]; then echo "ok   bench/fit.c $2 = $w"
  else echo "FAIL bench/fit.c $2 = $w, bench_fit prints $1 $v"; fail=1; fi
done
if [ -n "$fitp" ]; then
  pw=$("$fitp"); rc=$?
  if [ $rc -eq 77 ]; then echo "SKIP power: $pw"
  elif [ $rc -ne 0 ]; then echo "FAIL: bench_fit_power exit $rc"; fail=1
  else
    while read -r line; do
      if grep -qF "$line" configs/power/h100.xml; then echo "ok   configs/power/h100.xml: $line"
      else echo "FAIL configs/power/h100.xml lacks (bench_fit_power): $line"; fail=1; fi
    done < <(echo "$pw" | sed -n '/^<power/,$p' | sed 's/^ *//')
  fi
fi
exit $fail
