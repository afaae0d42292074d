// The crash banner points at this project, not at LLVM's tracker. A crash
// is simulated with SIGSEGV once the tool waits for its input on stdin (the
// helper watches /proc, so no fixed delay depends on the machine's speed).
// UNSUPPORTED: asan
// RUN: %python %test_lib/crash_when_reading.py transformer-opt 2>&1 | FileCheck %s
// RUN: %python %test_lib/crash_when_reading.py transformer-run 2>&1 | FileCheck %s
// CHECK: PLEASE report this crash to the transformer-mlir project
// CHECK-NOT: https://github.com/llvm/llvm-project/issues
