// RUN: transformer-opt %s --pass-pipeline='builtin.module(func.func(transformer-cpu-fuse-row-chains))' --split-input-file | FileCheck %s

// softmax's chain (max, exp, sum, division) in one loop over tiles of 32 rows
// of 128 (4096 elements), on the calling thread (under 64K elements); the
// division by the row sum is a multiplication by its reciprocal; each op
// writes a temporary of the tile's size, made once before the loop.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<384x128xf32>
// CHECK-DAG:     %[[MAXT:.*]] = tensor.empty() : tensor<32xf32>
// CHECK-DAG:     %[[EXPT:.*]] = tensor.empty() : tensor<32x128xf32>
// CHECK:         %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[O:.*]] = %{{.*}}) -> (tensor<384x128xf32>)
// CHECK:           %[[XS:.*]] = tensor.extract_slice %[[X]][%[[I]], 0] [32, 128] [1, 1]
// CHECK:           %[[M0:.*]] = linalg.fill {{.*}} outs(%[[MAXT]] : tensor<32xf32>)
// CHECK:           %[[M:.*]] = linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[XS]] : tensor<32x128xf32>) outs(%[[M0]] : tensor<32xf32>)
// CHECK:             arith.maxnumf
// CHECK:           %[[E:.*]] = linalg.generic {{.*}} ins(%[[XS]], %[[M]] : {{.*}}) outs(%[[EXPT]] : tensor<32x128xf32>)
// CHECK:             math.exp
// CHECK:           %[[S:.*]] = linalg.generic {{.*}}["parallel", "reduction"]{{.*}} ins(%[[E]] : tensor<32x128xf32>)
// CHECK:           %[[RS:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<32xf32>)
// CHECK:             arith.divf
// CHECK:           %[[OS:.*]] = tensor.extract_slice %[[O]][%[[I]], 0] [32, 128] [1, 1]
// CHECK:           %[[N:.*]] = linalg.generic {{.*}} ins(%[[E]], %[[RS]] : tensor<32x128xf32>, tensor<32xf32>) outs(%[[OS]] : tensor<32x128xf32>)
// CHECK-NEXT:      ^bb0
// CHECK-NEXT:        arith.mulf
// CHECK:           tensor.insert_slice %[[N]] into %[[O]][%[[I]], 0] [32, 128] [1, 1]
// CHECK:         } {transformer.kernel_root}
// CHECK:         return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<384x128xf32>) -> tensor<384x128xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<384xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<384xf32>) -> tensor<384xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<384x128xf32>) outs(%m0 : tensor<384xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.maxnumf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<384xf32>
  %e2 = tensor.empty() : tensor<384x128xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<384x128xf32>, tensor<384xf32>) outs(%e2 : tensor<384x128xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<384x128xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<384xf32>) -> tensor<384xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<384x128xf32>) outs(%s0 : tensor<384xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<384xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %s : tensor<384x128xf32>, tensor<384xf32>) outs(%e2 : tensor<384x128xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %v = arith.divf %in, %sum : f32
    linalg.yield %v : f32
  } -> tensor<384x128xf32>
  return %r : tensor<384x128xf32>
}

// -----

// A chain of dynamic shape (a layer_norm-like mean, centred square sum and
// scale) is left to the row strategy's separate passes.
// CHECK-LABEL: func.func @normalize_dynamic
// CHECK-NOT:     scf.forall
// CHECK-NOT:     scf.for
// CHECK:         linalg.generic {{.*}}["parallel", "parallel", "reduction"]
// CHECK:         linalg.generic {{.*}}["parallel", "parallel", "reduction"]
// CHECK:         linalg.generic {{.*}}["parallel", "parallel", "parallel"]
// CHECK:         return
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @normalize_dynamic(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %e1 = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<?x?x?xf32>) outs(%z : tensor<?x?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #row3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %sum : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%z : tensor<?x?xf32>) {
  ^bb0(%in: f32, %s: f32, %acc: f32):
    %c = arith.subf %in, %s : f32
    %c2v = arith.mulf %c, %c : f32
    %v = arith.addf %c2v, %acc : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  %e2 = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %r = linalg.generic {indexing_maps = [#id3, #row3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %sum, %sq : tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) outs(%e2 : tensor<?x?x?xf32>) {
  ^bb0(%in: f32, %s: f32, %q: f32, %out: f32):
    %c = arith.subf %in, %s : f32
    %v = arith.mulf %c, %q : f32
    linalg.yield %v : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// -----

// 2M elements: the tiles (4 rows of 1024) are split over the threads, each
// writing its temporaries of the tile's size.
// CHECK-LABEL: func.func @threaded
// CHECK:         scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (4, 512) step (1, 4)
// CHECK:           tensor.empty() : tensor<1x4xf32>
// CHECK:           linalg.generic {{.*}}["parallel", "parallel", "reduction"]
// CHECK:           tensor.parallel_insert_slice
// CHECK:         } {transformer.kernel_root}
#tid = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#trow = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @threaded(%x: tensor<4x512x1024xf32>) -> tensor<4x512x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x512xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x512xf32>) -> tensor<4x512xf32>
  %sum = linalg.generic {indexing_maps = [#tid, #trow], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<4x512x1024xf32>) outs(%z : tensor<4x512xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<4x512xf32>
  %e2 = tensor.empty() : tensor<4x512x1024xf32>
  %r = linalg.generic {indexing_maps = [#tid, #trow, #tid], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %sum : tensor<4x512x1024xf32>, tensor<4x512xf32>) outs(%e2 : tensor<4x512x1024xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %v = arith.subf %in, %s : f32
    linalg.yield %v : f32
  } -> tensor<4x512x1024xf32>
  return %r : tensor<4x512x1024xf32>
}

// -----

// An intermediate used outside the chain (the row max is also returned)
// stays a pass of its own before the loop; what only the chain uses is fused.
// CHECK-LABEL: func.func @shared_max
// CHECK:         %[[M:.*]] = linalg.generic {{.*}}["parallel", "reduction"]
// CHECK:         scf.for
// CHECK-NOT:       arith.maxnumf
// CHECK:           linalg.generic {{.*}}["parallel", "reduction"]
// CHECK:             arith.addf
// CHECK:         } {transformer.kernel_root}
// CHECK:         return %{{.*}}, %[[M]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @shared_max(%x: tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x128xf32>) outs(%m0 : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.maxnumf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %m : tensor<64x128xf32>, tensor<64xf32>) outs(%s0 : tensor<64xf32>) {
  ^bb0(%in: f32, %mx: f32, %acc: f32):
    %d = arith.subf %in, %mx : f32
    %v = arith.addf %d, %acc : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<64x128xf32>, tensor<64xf32>) outs(%e2 : tensor<64x128xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %v = arith.subf %in, %sum : f32
    linalg.yield %v : f32
  } -> tensor<64x128xf32>
  return %r, %m : tensor<64x128xf32>, tensor<64xf32>
}

// -----

// No reduction (a lone element-wise op) or rank 1 (one row): left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     scf.for
// CHECK-NOT:     kernel_root
// CHECK:         return
#id1 = affine_map<(d0) -> (d0)>
#scalar1 = affine_map<(d0) -> ()>
func.func @left_alone(%x: tensor<64x128xf32>, %v: tensor<128xf32>) -> (tensor<64x128xf32>, tensor<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<64x128xf32>
  %s0 = tensor.empty() : tensor<f32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id1, #scalar1], iterator_types = ["reduction"]} ins(%v : tensor<128xf32>) outs(%sz : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %y = arith.addf %in, %acc : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  %e1 = tensor.empty() : tensor<128xf32>
  %n = linalg.generic {indexing_maps = [#id1, #scalar1, #id1], iterator_types = ["parallel"]} ins(%v, %s : tensor<128xf32>, tensor<f32>) outs(%e1 : tensor<128xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %y = arith.divf %in, %t : f32
    linalg.yield %y : f32
  } -> tensor<128xf32>
  return %r, %n : tensor<64x128xf32>, tensor<128xf32>
}
