#!/usr/bin/env bash
# check_format.sh — every C source and header is formatted by .clang-format
# (clang-format --dry-run --Werror). SKIP (77) when clang-format is absent.
# Run from the source root. Fix with: clang-format -i $(git ls-files '*.c' '*.h')
set -uo pipefail
command -v clang-format >/dev/null || { echo "SKIP: clang-format not installed"; exit 77; }
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find core hw models schedules bench tests -name '*.[ch]')
if ! clang-format --dry-run --Werror $files; then
  echo "FAIL: files above differ from .clang-format (clang-format -i FILE fixes them)"
  exit 1
fi
echo "check_format: ok ($(echo $files | wc -w) files)"
