#!/usr/bin/env bash
# install_tree.sh SOURCE_DIR [CMAKE] [CC] — the installed tree stands alone.
# Copies the source tree (no build dirs, no .git) to a temporary directory,
# configures, builds and installs libculonx + culonx (+ the man page) to a
# temporary prefix P, deletes the copied sources and the build dir, then:
#  (a) P/bin/culonx estimate P/share/culonx/configs/.../megatron-1t.xml
#      matches tests/golden/estimate-megatron-1t.json (the schema is the one
#      built into the binary: no source tree is left to find it in);
#  (b) tests/data/estimate_iteration.c built with
#      `cc prog.c $(pkg-config --cflags --libs culonx)` (libculonx.so), and
#      statically with `pkg-config --static`, prints the CLI's iteration time;
#  (c) tests/data/find_package/ (find_package(culonx)) builds the same
#      program against culonx::culonx and culonx::culonx_static, same number;
#  (d) the man page, when help2man was found, renders with groff.
set -euo pipefail
src=$(cd "$1" && pwd); cmake="${2:-cmake}"; cc="${3:-${CC:-cc}}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P="$tmp/prefix"; fail=0
jobs=$(nproc 2>/dev/null || echo 2); [ "$jobs" -gt 2 ] && jobs=2

mkdir "$tmp/src"
for e in CMakeLists.txt CMakePresets.json README.md LICENSE .clang-format core schedules hw models configs bench; do
  [ -e "$src/$e" ] && cp -R "$src/$e" "$tmp/src/"
done
"$cmake" -S "$tmp/src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_INSTALL_PREFIX="$P" > "$tmp/configure.log" 2>&1 \
  || { cat "$tmp/configure.log"; exit 1; }
"$cmake" --build "$tmp/build" -j"$jobs" --target culonx culonx_shared culonx_man \
  > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
"$cmake" --install "$tmp/build" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
rm -rf "$tmp/src" "$tmp/build"

for f in bin/culonx lib/libculonx.a lib/libculonx.so include/culonx.h lib/pkgconfig/culonx.pc \
         lib/cmake/culonx/culonxConfig.cmake lib/cmake/culonx/culonxConfigVersion.cmake \
         lib/cmake/culonx/culonxTargets.cmake share/culonx/culonx.xsd; do
  [ -e "$P/$f" ] || { echo "not installed: $f"; fail=1; }
done
[ $fail -eq 0 ] || exit 1

# (a) the installed CLI on the installed run file, away from any source tree
run=""
while IFS= read -r f; do
  grep -q '<run' "$f" && run="$f"
done < <(find "$P/share/culonx/configs" -name megatron-1t.xml)
[ -n "$run" ] || { echo "no megatron-1t run file under $P/share/culonx/configs"; exit 1; }
(cd "$tmp" && "$P/bin/culonx" estimate "$run" --format json) > "$tmp/cli.json"
if ! python3 "$src/tests/compare_json.py" "$tmp/cli.json" "$src/tests/golden/estimate-megatron-1t.json"; then
  echo "installed culonx: golden mismatch on $run"; fail=1
fi
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["iteration_time_s"])' "$tmp/cli.json")

same() { # label, printed number
  if python3 -c 'import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))' "$2" "$want"; then
    echo "$1: iteration time $2 s (= culonx estimate)"
  else
    echo "$1: iteration time '$2', culonx estimate says $want"; fail=1
  fi
}

# (b) pkg-config, shared then static
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
prog="$src/tests/data/estimate_iteration.c"
warn="-std=c11 -Wall -Wextra -Wpedantic -Werror"
# shellcheck disable=SC2046
"$cc" $warn "$prog" -o "$tmp/prog_shared" $(pkg-config --cflags --libs culonx)
same "pkg-config (libculonx.so)" "$(cd "$tmp" && LD_LIBRARY_PATH="$P/lib" ./prog_shared "$run")"
static_libs=$(pkg-config --static --libs culonx | sed 's/-lculonx/-Wl,-Bstatic -lculonx -Wl,-Bdynamic/')
# shellcheck disable=SC2046
"$cc" $warn "$prog" -o "$tmp/prog_static" $(pkg-config --cflags culonx) $static_libs
if readelf -d "$tmp/prog_static" | grep -q 'NEEDED.*libculonx'; then
  echo "pkg-config --static: program still needs libculonx.so"; fail=1
fi
same "pkg-config --static (libculonx.a)" "$(cd "$tmp" && ./prog_static "$run")"

# (c) find_package(culonx)
"$cmake" -S "$src/tests/data/find_package" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$P" \
  -DCMAKE_C_COMPILER="$cc" > "$tmp/consumer.log" 2>&1 \
  && "$cmake" --build "$tmp/consumer" -j"$jobs" >> "$tmp/consumer.log" 2>&1 \
  || { cat "$tmp/consumer.log"; echo "find_package(culonx) project failed"; exit 1; }
same "find_package culonx::culonx" "$(cd "$tmp" && "$tmp/consumer/estimate_shared" "$run")"
same "find_package culonx::culonx_static" "$(cd "$tmp" && "$tmp/consumer/estimate_static" "$run")"

# (d) the man page
man="$P/share/man/man1/culonx.1"
if [ -f "$man" ] && ! command -v groff > /dev/null; then
  echo "man page: installed; groff not found, not rendered"
elif [ -f "$man" ]; then
  if groff -man -Tutf8 -ww -z "$man" 2> "$tmp/groff.err" && [ ! -s "$tmp/groff.err" ] \
     && groff -man -Tutf8 "$man" 2>/dev/null | grep -q 'estimate'; then
    echo "man page: $man renders"
  else
    echo "man page: groff problems:"; cat "$tmp/groff.err"; fail=1
  fi
else
  echo "man page: not installed (help2man was not found when building)"
fi
exit $fail
