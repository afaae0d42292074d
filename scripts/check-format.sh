#!/usr/bin/env bash
# Checks that every C++ file tracked by git is formatted as .clang-format says
# (LLVM style), with clang-format-22; lists the files that are not and exits 1.
# `scripts/check-format.sh --fix` formats them in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT="${CLANG_FORMAT:-clang-format-22}"
if ! command -v "$CLANG_FORMAT" > /dev/null; then
  echo "Error: $CLANG_FORMAT not found (bash scripts/install-deps.sh installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "${1:-}" = "--fix" ]; then
  "$CLANG_FORMAT" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$CLANG_FORMAT" --dry-run --Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -ne 0 ]; then
  echo "Error: ${#bad[@]} file(s) not formatted (run scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "All ${#files[@]} C++ files are formatted."
