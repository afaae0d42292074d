// The k block and the unrolled k loops of the built-in schedule. haswell's
// k block is 256 (a 256 x 16 panel of B in two thirds of its 32 KiB L1).
// RUN: transformer-opt %s --transformer-cpu-select-target=cpu=haswell --transformer-cpu-codegen --split-input-file | FileCheck %s

// K = 896 is 3 x 256 + 128, but 4 x 224: the k block is the largest
// multiple of 8 down to half the target's that divides K, so that no
// remainder block (a second copy of every register tile) is made. The
// register tiles' k loops run 224 steps, 4 per iteration (24 FMAs of the 6
// x 16 tile).
// CHECK-LABEL: func.func @dividing
// CHECK:         scf.for {{.*}} = %c0 to %c896 step %c224
// CHECK:           scf.for {{.*}} = %c0 to %c224 step %c4 iter_args({{.*}}) -> (vector<6x16xf32>)
// CHECK-COUNT-24:    vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT:       step %c256
// CHECK-NOT:     transformer.unroll_k
func.func @dividing(%a: memref<96x896xf32>, %b: memref<896x64xf32>, %c: memref<96x64xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<96x896xf32>, memref<896x64xf32>) outs(%c : memref<96x64xf32>)
  return
}

// -----

// K = 1000 is 5 x 200.
// CHECK-LABEL: func.func @five_blocks
// CHECK:         scf.for {{.*}} = %c0 to %c1000 step %c200
// CHECK:           scf.for {{.*}} = %c0 to %c200 step %c4 iter_args({{.*}}) -> (vector<6x16xf32>)
// CHECK-NOT:       step %c256
func.func @five_blocks(%a: memref<96x1000xf32>, %b: memref<1000x64xf32>, %c: memref<96x64xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<96x1000xf32>, memref<1000x64xf32>) outs(%c : memref<96x64xf32>)
  return
}

// -----

// K = 1004 (4 x 251) has no multiple of 8 from 256 down to 128 that divides
// it: the target's k block stays, and the remainder block of 236 steps is
// unrolled too (4 divides it).
// CHECK-LABEL: func.func @kept
// CHECK:         scf.for {{.*}} step %c256
// CHECK:           scf.for {{.*}} = %c0 to %c256 step %c4 iter_args({{.*}}) -> (vector<6x16xf32>)
// CHECK:           scf.for {{.*}} = %c0 to %c236 step %c4 iter_args({{.*}}) -> (vector<6x16xf32>)
func.func @kept(%a: memref<96x1004xf32>, %b: memref<1004x64xf32>, %c: memref<96x64xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<96x1004xf32>, memref<1004x64xf32>) outs(%c : memref<96x64xf32>)
  return
}

// -----

// 7 rows: one full tile of 6 rows, its k loop unrolled, and a remainder
// row of 1 x 16 tiles, whose k loop stays rolled.
// CHECK-LABEL: func.func @one_row
// CHECK:         scf.for {{.*}} = %c0 to %c128 step %c4 iter_args({{.*}}) -> (vector<6x16xf32>)
// CHECK:         scf.for {{.*}} = %c0 to %c128 step %c1 iter_args({{.*}}) -> (vector<1x16xf32>)
// CHECK-NOT:     transformer.unroll_k
func.func @one_row(%a: memref<7x128xf32>, %b: memref<128x64xf32>, %c: memref<7x64xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<7x128xf32>, memref<128x64xf32>) outs(%c : memref<7x64xf32>)
  return
}

// -----

// A k of 130 steps, which 4 does not divide, stays rolled.
// CHECK-LABEL: func.func @odd_depth
// CHECK:         scf.for {{.*}} = %c0 to %c130 step %c1 iter_args({{.*}}) -> (vector<6x16xf32>)
// CHECK-NOT:     step %c4 iter_args
func.func @odd_depth(%a: memref<6x130xf32>, %b: memref<130x64xf32>, %c: memref<6x64xf32>) {
  linalg.matmul {transformer.contraction = "mnk"} ins(%a, %b : memref<6x130xf32>, memref<130x64xf32>) outs(%c : memref<6x64xf32>)
  return
}
