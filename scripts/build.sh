#!/usr/bin/env bash
# Configures (once) and builds into build/ with Ninja.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-2}"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja
fi
cmake --build build -j "$JOBS"
