// RUN: not transformer-opt %s --transformer-cpu-prefetch-next-k-block=locality=4 2>&1 | FileCheck %s --check-prefix=LOCALITY
// RUN: not transformer-opt %s --transformer-cpu-prefetch-next-k-block=distance=-8 2>&1 | FileCheck %s --check-prefix=DISTANCE
// LOCALITY: error: transformer-cpu-prefetch-next-k-block: locality must be 0 to 3, got 4
// LOCALITY-NOT: func.func
// DISTANCE: error: transformer-cpu-prefetch-next-k-block: distance must be 0 (the next k block) or a positive number of rows, got -8
// DISTANCE-NOT: func.func

func.func @f() {
  return
}
