#!/usr/bin/env bash
# browser_report.sh CULONX OUTDIR — opens the HTML reports in a real browser
# (headless Chromium, Debian package `chromium`, installed by .ci/setup):
# a training report (`culonx report`) and a sweep report (`culonx sweep
# --report`). Fails on any console message or uncaught error, and when the
# page's own check (#cx-status, see core/output/html_report.c) does not say
# "ok" with the expected number of non-empty charts. Saves PNG screenshots in
# OUTDIR. A page with an error and an empty chart must fail the same check
# (the check checks itself). Exits 77 (ctest SKIP) with the reason when no
# Chromium is installed.
set -euo pipefail
exe="$1"
outdir="$2"
browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser="$b"; break; fi
done
if [ -z "$browser" ]; then
  echo "SKIP: no Chromium found (chromium, chromium-browser, google-chrome); .ci/setup installs Debian's chromium"
  exit 77
fi
mkdir -p "$outdir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# open URL: DOM on stdout, browser log in $tmp/log
open_page() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 \
    --dump-dom "file://$1" 2>"$tmp/log"
}
shoot() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size="$2" --screenshot="$3" "file://$1" >/dev/null 2>&1
  [ -s "$3" ] || { echo "no screenshot $3"; exit 1; }
}
# check PAGE CHARTS: the page's status says ok with CHARTS charts, no console output
check() {
  local page="$1" want="$2" dom status
  dom=$(open_page "$page")
  if grep -q "CONSOLE" "$tmp/log"; then
    echo "console output from $page:"; grep "CONSOLE" "$tmp/log"; return 1
  fi
  status=$(printf '%s' "$dom" | grep -o 'id="cx-status">[^<]*' | sed 's/.*>//')
  if [ "$status" != "ok charts=$want empty= errors=" ]; then
    echo "$page: status '$status', want 'ok charts=$want empty= errors='"; return 1
  fi
  echo "ok $page: $status"
}
# the check must catch a broken page
"$exe" report configs/gpt3-175b.xml -o "$tmp/training.html"
cp "$tmp/training.html" "$tmp/broken.html"
sed -i 's|<h2>Pipeline timeline</h2>|<figure class="chart" data-chart="broken"><svg></svg></figure><script>undefined_fn();</script>&|' "$tmp/broken.html"
if check "$tmp/broken.html" 8 >/dev/null; then echo "a broken page passed the check"; exit 1; fi
check "$tmp/training.html" 7
shoot "$tmp/training.html" 1100,2700 "$outdir/training-report.png"
"$exe" sweep configs/gpt3-175b.xml --quiet --report "$tmp/sweep.html" >/dev/null
check "$tmp/sweep.html" 3
shoot "$tmp/sweep.html" 1100,2000 "$outdir/sweep-report.png"
# the 64-stage, 512-microbatch 1T run (17 MB of SVG): a screenshot only (its
# DOM dump alone takes ~25 s on 2 cores; the page code is the same as above)
"$exe" report configs/megatron-1t.xml -o "$tmp/megatron-1t.html"
shoot "$tmp/megatron-1t.html" 1100,2700 "$outdir/megatron-1t-report.png"
echo "browser_report: ok, screenshots in $outdir"
