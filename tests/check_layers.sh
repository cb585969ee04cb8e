#!/usr/bin/env bash
# check_layers.sh — the shape of the source tree, checked (issue 8):
#  1. includes flow one way, downwards:
#       core/include (public API) and culonx_types.h (public types)
#       core/base < hw, models, schedules < core/layout < core/eval
#       < core/output < core/search < core/input, core/cli
#     hw/, models/, schedules/ and core/base see only culonx_types.h, never
#     the API header culonx.h; the CLI sees only the public API;
#  2. no source file over 800 lines without a "Long file:" reason atop;
#  3. schedule names are written in one place (each schedule's own file),
#     degree products in one place (core/layout/layout.c).
# Run from the source root.
set -uo pipefail
fail=0
rank() {
  case "$1" in
    core/include) echo 0 ;; core/base) echo 1 ;; hw|models|schedules) echo 2 ;;
    core/layout) echo 3 ;; core/eval) echo 4 ;; core/output) echo 5 ;; core/search) echo 6 ;;
    core/input|core/cli) echo 7 ;; *) echo -1 ;;
  esac
}
for f in $(git ls-files 'core/*.[ch]' 'hw/*.[ch]' 'models/*.[ch]' 'schedules/*.[ch]' 2>/dev/null ||
           find core hw models schedules -name '*.[ch]'); do
  d=$(dirname "$f"); rd=$(rank "$d")
  [ "$rd" = -1 ] && { echo "FAIL: $f is in no layer"; fail=1; continue; }
  while read -r h; do
    case "$h" in
      culonx_types.h) continue ;;
      culonx.h) if [ "$rd" -le 2 ]; then echo "FAIL: $f ($d) includes the API header culonx.h; use culonx_types.h"; fail=1; fi; continue ;;
    esac
    hd=$(dirname "$h")
    [ "$hd" = "$d" ] && continue
    if [ "$d" = core/cli ]; then echo "FAIL: $f: the CLI includes $h (only the public API)"; fail=1; continue; fi
    rh=$(rank "$hd")
    if [ "$rh" = -1 ] || [ "$rh" -ge "$rd" ]; then
      echo "FAIL: $f ($d) includes $h: not a lower layer"; fail=1
    fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
for f in $(git ls-files '*.c' '*.h' 2>/dev/null); do
  n=$(wc -l < "$f")
  if [ "$n" -gt 800 ] && ! head -40 "$f" | grep -q "Long file:"; then
    echo "FAIL: $f has $n lines and states no reason (\"Long file:\") atop"; fail=1
  fi
done
# schedule names: only in schedules/<file>.c (the .name of its descriptor)
for name in gpipe 1f1b interleaved zb-h1 zb-h2 zb-v dualpipev; do
  hits=$(grep -rln "\"$name\"" core hw models schedules --include='*.[ch]' | grep -v '^schedules/[a-z0-9_]*\.c$')
  [ -n "$hits" ] && { echo "FAIL: schedule name \"$name\" written outside schedules/: $hits"; fail=1; }
done
# degree products: only the layout multiplies degrees
hits=$(grep -rnE '\b(tp|ex->tp|e->tp|exec\.tp) ?\* ?(\(?(ex->|e->|exec\.)?(pp|dp|cp|ep))\b|\b(pp|dp) ?\* ?(ex->|e->)?(tp|dp|pp)\b' \
       core hw models schedules --include='*.c' | grep -v '^core/layout/layout.c' | grep -v '^\S*: *\(/\*\|\*\)' | grep -v '"[^"]*\*[^"]*"')
[ -n "$hits" ] && { echo "FAIL: degree products outside core/layout/layout.c:"; echo "$hits"; fail=1; }
[ $fail -eq 0 ] && echo "check_layers: ok"
exit $fail
