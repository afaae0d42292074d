// The row strategy (transformer-cpu-vectorize-rows) on bufferized IR: ops are
// matched by structure (element-wise, or one innermost reduction), tiled into
// rows (an scf.forall when large enough for threads) and 64-wide vector tiles along the row, and
// exp/tanh/erf become polynomials (no math call left).
// RUN: transformer-opt %s --transformer-cpu-vectorize-rows --split-input-file | FileCheck %s

// A softmax row: max, exp-sum, normalize, each pass vectorized; 4096 rows
// of 768 are large enough to split over threads (scf.forall).
// CHECK-LABEL: func.func @softmax_row
// CHECK-NOT:     math.exp
// CHECK:         scf.forall (%[[R:.*]]) in (4096) {
// CHECK:           scf.for {{.*}} step %c64
// CHECK:             vector.transfer_read {{.*}} vector<64xf32>
// The max of a vector: a tree of element-wise max on halves, not LLVM's
// sequential expansion of llvm.vector.reduce.fmax.
// CHECK-NOT:         vector.reduction <maximumf>
// CHECK:             vector.shuffle {{.*}} : vector<64xf32>, vector<64xf32>
// CHECK:             arith.maximumf {{.*}} : vector<32xf32>
// CHECK:             arith.maximumf {{.*}} : vector<16xf32>
// CHECK:             arith.maximumf {{.*}} : vector<1xf32>
// CHECK:             arith.maximumf {{.*}} : f32
// CHECK:         scf.forall
// CHECK:           scf.for {{.*}} step %c64
// CHECK:             arith.subf {{.*}} : vector<64xf32>
// CHECK:             math.fma {{.*}} : vector<64xf32>
// CHECK:             arith.bitcast {{.*}} : vector<64xi32> to vector<64xf32>
// CHECK:             vector.reduction <add>, {{.*}} : vector<64xf32> into f32
// CHECK:         scf.forall
// CHECK:           scf.for {{.*}} step %c64
// CHECK:             arith.divf {{.*}} : vector<64xf32>
// CHECK:             vector.transfer_write {{.*}} vector<64xf32>
// CHECK-NOT:     math.exp
// CHECK-NOT:     linalg.
// CHECK:         return
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @softmax_row(%x: memref<4096x768xf32>, %max: memref<4096xf32>, %sum: memref<4096xf32>, %y: memref<4096x768xf32>) {
  linalg.generic {indexing_maps = [#row, #col], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4096x768xf32>) outs(%max : memref<4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %out : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#row, #col, #row, #col], iterator_types = ["parallel", "reduction"]} ins(%x, %max : memref<4096x768xf32>, memref<4096xf32>) outs(%y, %sum : memref<4096x768xf32>, memref<4096xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32, %s: f32):
    %0 = arith.subf %in, %m : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %s : f32
    linalg.yield %1, %2 : f32, f32
  }
  linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%y, %sum : memref<4096x768xf32>, memref<4096xf32>) outs(%y : memref<4096x768xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.divf %in, %s : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A gelu (tanh form) row of odd length 100 with a named op: one full vector
// tile of 64 and a peeled remainder vectorized at its static size 36.
// CHECK-LABEL: func.func @gelu_odd
// CHECK-NOT:     math.tanh
// A small op (1500 elements) stays on the calling thread: waking an OpenMP
// thread would cost more than the op.
// CHECK-NOT:     scf.forall
// CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1 {
// CHECK:           scf.for %{{.*}} = %c0 to %c5 step %c1 {
// CHECK:           vector.transfer_read {{.*}} vector<64xf32>
// CHECK:           math.fma {{.*}} : vector<64xf32>
// CHECK:           vector.transfer_write {{.*}} vector<64xf32>
// CHECK:           vector.transfer_read {{.*}} vector<36xf32>
// CHECK:           vector.transfer_write {{.*}} vector<36xf32>
// CHECK-NOT:     math.tanh
// CHECK:         linalg.transpose
// CHECK-NOT:     math.tanh
func.func @gelu_odd(%x: memref<3x5x100xf32>, %y: memref<3x5x100xf32>, %t: memref<4x3xf32>, %u: memref<3x4xf32>) {
  linalg.map ins(%x : memref<3x5x100xf32>) outs(%y : memref<3x5x100xf32>)
    (%in: f32, %out: f32) {
      %c = arith.constant 0.797884583 : f32
      %h = arith.constant 5.000000e-01 : f32
      %one = arith.constant 1.000000e+00 : f32
      %0 = arith.mulf %in, %c : f32
      %1 = math.tanh %0 : f32
      %2 = arith.addf %1, %one : f32
      %3 = arith.mulf %in, %h : f32
      %4 = arith.mulf %3, %2 : f32
      linalg.yield %4 : f32
    }
  // A transpose is not a row op: left to the loops.
  linalg.transpose ins(%t : memref<4x3xf32>) outs(%u : memref<3x4xf32>) permutation = [1, 0]
  return
}

// -----

// The erf form, with a dynamic row length: the 64-wide tiles are vectorized,
// the dynamic remainder stays a linalg op (scalar loops later), and erf is a
// polynomial in both.
// CHECK-LABEL: func.func @gelu_erf_dynamic
// CHECK-NOT:     math.erf
// CHECK:         scf.forall
// CHECK:           vector.transfer_read {{.*}} vector<64xf32>
// CHECK:           linalg.generic {{.*}} memref<1x?xf32
// CHECK-NOT:     math.erf
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gelu_erf_dynamic(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.erf %in : f32
    linalg.yield %0 : f32
  }
  return
}
