// The crash banner points at this project, not at LLVM's tracker. A crash
// is simulated with SIGSEGV while the tool waits for its input on stdin.
// UNSUPPORTED: asan
// RUN: sleep 3 | not timeout -s SEGV 1 transformer-opt 2>&1 | FileCheck %s
// RUN: sleep 3 | not timeout -s SEGV 1 transformer-run 2>&1 | FileCheck %s
// CHECK: PLEASE report this crash to the transformer-mlir project
// CHECK-NOT: https://github.com/llvm/llvm-project/issues
