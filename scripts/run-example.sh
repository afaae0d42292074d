#!/usr/bin/env bash
# Installs dependencies, builds, and runs the bundled causal attention
# example (examples/attention.mlir) with transformer-run, printing its result.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
build/bin/transformer-run examples/attention.mlir \
  --input="4x8xf32=[[1 0 0 0 0 0 0 0][0 1 0 0 0 0 0 0][0 0 1 0 0 0 0 0][0 0 0 1 0 0 0 0]]" \
  --input="4x8xf32=[[1 0 0 0 0 0 0 0][0 1 0 0 0 0 0 0][0 0 1 0 0 0 0 0][0 0 0 1 0 0 0 0]]" \
  --input="4x8xf32=[[1 2 3 4 5 6 7 8][2 3 4 5 6 7 8 9][3 4 5 6 7 8 9 10][4 5 6 7 8 9 10 11]]"
