//===- ThreadPolicy.h - How the runner's OpenMP threads wait ----*- C++ -*-===//
//
// Compiled code at -O2 runs one OpenMP parallel region per kernel, many of
// them short and back to back (a GPT-2 decode step runs about a hundred).
// With OMP_WAIT_POLICY=PASSIVE (which a shared machine calls for, and which
// bench/ sets) libomp's threads go to sleep as soon as a region ends, and
// waking them costs 0.1-0.35 ms here, about as long as a decode step's
// kernels themselves: a GPT-2 decode step took 83 ms instead of 37.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_THREADPOLICY_H
#define TRANSFORMER_RUNNER_THREADPOLICY_H

namespace mlir::transformer::runner {

/// Lets libomp's idle threads spin for 1 ms before they sleep
/// (KMP_BLOCKTIME=1, which takes precedence over OMP_WAIT_POLICY=PASSIVE's
/// blocktime of 0), unless the user set KMP_BLOCKTIME. Call it at the start
/// of main(), before the OpenMP runtime is loaded.
void setDefaultThreadWaitPolicy();

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_THREADPOLICY_H
