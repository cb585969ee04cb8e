#!/usr/bin/env bash
# lib_symbols.sh LIBCULONX.so culonx.h — libculonx.so exports exactly the
# functions core/include/culonx.h declares with CULONX_API (the library is built with
# -fvisibility=hidden), every public function is declared with CULONX_API,
# and the soname carries the version.
set -euo pipefail
lib="$1"; header="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
nm -D --defined-only "$lib" | awk 'NF >= 3 {print $3}' | sort -u > "$tmp/exported"
# linker-defined markers some toolchains add to .dynsym
grep -vxE '_init|_fini|_edata|_end|__bss_start' "$tmp/exported" > "$tmp/ours" || true
if grep -v '^culonx_' "$tmp/ours" > "$tmp/leaked"; then
  echo "libculonx.so exports symbols outside the culonx_ namespace:"; sed 's/^/  /' "$tmp/leaked"; fail=1
fi
# function declarations of the header, one per line (no preprocessor lines,
# comments dropped, continuation lines joined)
grep -v '^[[:space:]]*#' "$header" | tr '\n' ' ' | sed 's|/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/||g' | tr ';{}' '\n\n\n' \
  | grep -E '\bculonx_[a-z0-9_]+[[:space:]]*\(' | grep -v '#define' > "$tmp/decls" || true
grep -v '^[[:space:]]*CULONX_API ' "$tmp/decls" | sed 's/^[[:space:]]*//' > "$tmp/bare" || true
if [ -s "$tmp/bare" ]; then
  echo "culonx.h declares functions without CULONX_API (not exported from libculonx.so):"
  sed 's/^/  /' "$tmp/bare"; fail=1
fi
grep -oE '\bculonx_[a-z0-9_]+[[:space:]]*\(' "$tmp/decls" | tr -d ' (' | sort -u > "$tmp/declared"
if ! diff -u "$tmp/declared" "$tmp/ours" > "$tmp/diff"; then
  echo "exported functions differ from those culonx.h declares (- declared only, + exported only):"
  cat "$tmp/diff"; fail=1
fi
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
case "$soname" in
  libculonx.so.[0-9]*) ;;
  *) echo "unexpected soname '$soname'"; fail=1 ;;
esac
[ $fail -eq 0 ] && echo "libculonx.so ($soname): $(wc -l < "$tmp/ours") symbols, all culonx_* and declared"
exit $fail
