#!/usr/bin/env bash
# Builds the project with AddressSanitizer + UndefinedBehaviorSanitizer into
# build-asan/ and runs the whole lit suite with it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
JOBS="${JOBS:-2}"
if [ ! -f build-asan/build.ninja ]; then
  cmake -S . -B build-asan -G Ninja -DTRANSFORMER_ENABLE_SANITIZERS=ON
fi
cmake --build build-asan -j "$JOBS"
# The JIT-compiled code is not instrumented; leaks and errors in ours are.
# use_sigaltstack=0: LLVM's signal handlers install their own alternate
# signal stack, which ASan then fails to unmap when a thread exits.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:use_sigaltstack=0}"
# Buffers of compiled code abandoned by a failed run-time check are a known
# leak (scripts/lsan-jit-error-path.supp).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan-jit-error-path.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
/usr/lib/llvm-22/bin/lit -sv build-asan/test
