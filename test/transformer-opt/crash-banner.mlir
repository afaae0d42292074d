// The crash banner points at this project, not at LLVM's tracker. A crash
// is simulated with SIGSEGV while the tool waits for its input on stdin. The
// signal comes 4 s after the start and stdin stays open 2 s longer: the
// tools reach the read in about 50 ms, but with the signal at 1 s a run on a
// loaded shared VM once printed nothing.
// UNSUPPORTED: asan
// RUN: sleep 6 | not timeout -s SEGV 4 transformer-opt 2>&1 | FileCheck %s
// RUN: sleep 6 | not timeout -s SEGV 4 transformer-run 2>&1 | FileCheck %s
// CHECK: PLEASE report this crash to the transformer-mlir project
// CHECK-NOT: https://github.com/llvm/llvm-project/issues
