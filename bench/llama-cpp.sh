#!/usr/bin/env bash
# Builds llama.cpp's llama-bench (CPU only, -march=native without AMX) for bench/gpt2.py's
# llama.cpp baseline, from the source npm's node-llama-cpp package carries
# (llama/gitRelease.bundle): npm is reachable where GitHub may not be.
# Idempotent; prints the path of llama-bench. Needs npm, git, cmake, ninja.
set -euo pipefail
cd "$(dirname "$0")"
DIR="$PWD/.llama"
BENCH="$DIR/llama.cpp/build/bin/llama-bench"
if [ -x "$BENCH" ]; then
  echo "$BENCH"
  exit 0
fi
mkdir -p "$DIR"
if [ ! -f "$DIR/node_modules/node-llama-cpp/llama/gitRelease.bundle" ]; then
  npm install --prefix "$DIR" --ignore-scripts --no-audit --no-fund \
    node-llama-cpp >/dev/null
fi
if [ ! -d "$DIR/llama.cpp" ]; then
  git clone -q "$DIR/node_modules/node-llama-cpp/llama/gitRelease.bundle" \
    "$DIR/llama.cpp" 2>/dev/null
fi
# Its AMX kernels (compiled in by -march=native on AMX hosts) die with SIGILL
# or SIGSEGV in prompt processing of Q8_0/Q4_0 models on the Xeon VMs we
# measure on; the AVX-512 kernels are what it runs everywhere else.
NO_AMX="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
cmake -S "$DIR/llama.cpp" -B "$DIR/llama.cpp/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF \
  -DCMAKE_C_FLAGS="$NO_AMX" -DCMAKE_CXX_FLAGS="$NO_AMX" \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF >/dev/null
ninja -C "$DIR/llama.cpp/build" -j"$(nproc)" llama-bench llama-quantize >/dev/null
echo "$BENCH"
