#!/usr/bin/env bash
# CLI test: `culonx report` and `culonx sweep --report` write one
# self-contained HTML file (no external script, stylesheet, image or URL
# other than the SVG namespace) with every chart figure, through a temporary
# file; usage errors exit 2, bad input 1. The pictures themselves are
# checked in a browser by browser_report.sh. Usage: cli_report.sh CULONX
set -euo pipefail
exe="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
selfcontained() {
  if grep -Eo '(src|href)=|<link|https?://[^"]*' "$1" | grep -v '^http://www.w3.org/2000/svg$' | grep -q .; then
    echo "$1 refers to something outside itself:"; grep -Eo '(src|href)=|<link|https?://[^" ]*' "$1" | sort -u | head; exit 1
  fi
}
"$exe" report configs/megatron-22b.xml -o "$tmp/r.html"
selfcontained "$tmp/r.html"
for c in time-breakdown memory-breakdown energy-breakdown energy-clock timeline-overview timeline-detail schedules; do
  grep -q "data-chart=\"$c\"" "$tmp/r.html" || { echo "report lacks chart $c"; exit 1; }
done
"$exe" sweep configs/megatron-22b.xml --quiet --top 3 --report "$tmp/s.html" >/dev/null
selfcontained "$tmp/s.html"
for c in pareto pareto-zoom rejects; do
  grep -q "data-chart=\"$c\"" "$tmp/s.html" || { echo "sweep report lacks chart $c"; exit 1; }
done
[ -z "$(ls "$tmp" | grep '\.tmp\.')" ] || { echo "temporary file left"; exit 1; }
set +e
"$exe" report configs/megatron-22b.xml >/dev/null 2>&1; [ $? -eq 2 ] || { echo "missing -o should be a usage error"; exit 1; }
"$exe" report configs/megatron-22b.xml -o "$tmp/x.html" --format pdf >/dev/null 2>&1; [ $? -eq 2 ] || { echo "bad --format should be a usage error"; exit 1; }
"$exe" report tests/bad/09-heads-tp.xml -o "$tmp/x.html" 2>"$tmp/err"; [ $? -eq 1 ] && grep -q "09-heads-tp.xml:" "$tmp/err" || { echo "bad run should be exit 1 with file:line"; exit 1; }
[ ! -e "$tmp/x.html" ] || { echo "a failed report left a file"; exit 1; }
"$exe" report configs/megatron-22b.xml -o /nonexistent/dir/r.html >/dev/null 2>&1; [ $? -eq 1 ] || { echo "unwritable output should be exit 1"; exit 1; }
echo "cli_report: ok"
