#!/usr/bin/env bash
# Installs dependencies, builds, and compiles the bundled causal attention
# example all the way to LLVM IR.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
build/bin/transformer-opt examples/attention.mlir --transformer-to-llvm \
  | /usr/lib/llvm-22/bin/mlir-translate --mlir-to-llvmir
