//===- ThreadPolicy.cpp - How the runner's OpenMP threads wait ------------===//

#include "Transformer/Runner/ThreadPolicy.h"

#include <cstdlib>

void mlir::transformer::runner::setDefaultThreadWaitPolicy() {
  // A short spin, then sleep: the idle threads cost at most 1 ms of CPU
  // after each region on a shared machine, and a region that follows within
  // 1 ms (the next kernel) finds them awake.
  setenv("KMP_BLOCKTIME", "1", /*overwrite=*/0);
}
