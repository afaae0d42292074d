// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=skylake-avx512 threads=2},func.func(transformer-cpu-prepare-contractions))' --split-input-file | FileCheck %s
// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=skylake-avx512 threads=2},func.func(transformer-cpu-prepare-contractions,canonicalize))' --split-input-file | FileCheck %s --check-prefix=CANON
// The register tile comes from the target: 4 x 16 with AVX2.
// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=haswell threads=2},func.func(transformer-cpu-prepare-contractions))' --split-input-file | FileCheck %s --check-prefix=AVX2
// The row form's task widths follow the threads: 8 threads.
// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=skylake-avx512 threads=8},func.func(transformer-cpu-prepare-contractions))' --split-input-file | FileCheck %s --check-prefix=THREADS8

// A generic contraction becomes a tagged linalg.contract with the same maps.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @generic_matmul
// CHECK:         linalg.contract indexing_maps = [#[[$A]], #[[$B]], #[[$C]]]
// CHECK-SAME:      {transformer.contraction = "mnk"}
// CHECK-NOT:     linalg.generic
func.func @generic_matmul(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Matched by what it computes, not by its name: named ops are tagged too.
// CHECK-LABEL: func.func @named
// CHECK:         linalg.matmul {transformer.contraction = "mnk"}
// CHECK:         linalg.batch_matmul {transformer.contraction = "bmnk"}
func.func @named(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<8x16xf32>,
                 %ba: tensor<2x8x4xf32>, %bb: tensor<2x4x16xf32>, %bc: tensor<2x8x16xf32>) -> (tensor<8x16xf32>, tensor<2x8x16xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = linalg.batch_matmul ins(%ba, %bb : tensor<2x8x4xf32>, tensor<2x4x16xf32>) outs(%bc : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %0, %1 : tensor<8x16xf32>, tensor<2x8x16xf32>
}

// -----

// x @ w^T with a 3-D x: the two m loops are collapsed into one; B (n x k) is
// read through a transposed k x n copy, so the contraction indexes it (k, n)
// like a plain matmul.
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func.func @linear_3d
// AVX2-LABEL: func.func @linear_3d
// AVX2-NOT:     tensor.pad %{{.*}} low[0, 0] high[{{[1-9]}}
// AVX2:         tensor.pad %{{.*}} low[0, 0] high[0, 11]
// CHECK:         %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// B (n x k) is read through a transposed k x n copy; then n (5) is padded
// with zeros to the 8x32 register tile; m (6) and k are not (the schedule
// runs rows past a multiple of 8 one by one).
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x5xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<5x4xf32>) outs(%[[E]] : tensor<4x5xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
// CHECK-NOT:     tensor.pad %[[X]]
// CHECK:         %[[TP:.*]] = tensor.pad %[[T]] low[0, 0] high[0, 27]
// CHECK:         %[[CP:.*]] = tensor.pad %{{.*}} low[0, 0] high[0, 27]
// CHECK:         %[[R:.*]] = linalg.contract indexing_maps = [#{{.*}}, #[[$B]], #{{.*}}] {transformer.contraction = "mnk"}
// CHECK-SAME:      ins(%[[X]], %[[TP]] : tensor<6x4xf32>, tensor<4x32xf32>) outs(%[[CP]] : tensor<6x32xf32>)
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[R]][0, 0] [6, 5] [1, 1]
// CHECK:         tensor.expand_shape %[[S]] {{\[}}[0, 1], [2]]
func.func @linear_3d(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %c: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<2x3x4xf32>, tensor<5x4xf32>) outs(%c : tensor<2x3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// With the m loops collapsed, the reshapes move across the element-wise ops
// next to the contraction: the bias broadcast into its accumulator and its
// consumer work on [128, 64] too, so that the epilogue fusion sees them;
// an op one further (the add) keeps its shape.
// CHECK-LABEL: func.func @linear_3d_neighbours
// CHECK:         %[[BIAS:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64xf32>) outs(%{{.*}} : tensor<128x64xf32>)
// CHECK:         %[[R:.*]] = linalg.contract {{.*}} {transformer.contraction = "mnk"}
// CHECK-SAME:      outs(%[[BIAS]] : tensor<128x64xf32>)
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<128x64xf32>)
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[G]] {{\[}}[0, 1], [2]] output_shape [1, 128, 64]
// CHECK:         linalg.generic {{.*}} ins(%[[E]], %{{.*}} : tensor<1x128x64xf32>, tensor<1x128x64xf32>)
func.func @linear_3d_neighbours(%x: tensor<1x128x64xf32>, %w: tensor<64x64xf32>, %bias: tensor<64xf32>) -> tensor<1x128x64xf32> {
  %e = tensor.empty() : tensor<1x128x64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias : tensor<64xf32>) outs(%e : tensor<1x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x128x64xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x128x64xf32>, tensor<64x64xf32>) outs(%b : tensor<1x128x64xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x128x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%0 : tensor<1x128x64xf32>) outs(%e : tensor<1x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<1x128x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g, %x : tensor<1x128x64xf32>, tensor<1x128x64xf32>) outs(%e : tensor<1x128x64xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %t = arith.addf %in, %in2 : f32
    linalg.yield %t : f32
  } -> tensor<1x128x64xf32>
  return %r : tensor<1x128x64xf32>
}

// -----

// Loops in another order (k before n), or a result indexed (n, m): left
// alone, lowered to loops.
// CHECK-LABEL: func.func @other_orders
// CHECK-NOT:     transformer.contraction
func.func @other_orders(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<8x16xf32>, %ct: tensor<16x8xf32>) -> (tensor<8x16xf32>, tensor<16x8xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d1, d0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%ct : tensor<16x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x8xf32>
  return %0, %1 : tensor<8x16xf32>, tensor<16x8xf32>
}

// -----

// Two dynamic loops in one role (m = ? x ?) are not collapsed: MLIR 22's
// --expand-strided-metadata crashes on the reshape that would need. The op
// keeps the simple lowering (untagged).
// CHECK-LABEL: func.func @two_dynamic_m_loops
// CHECK:         linalg.generic
// CHECK-NOT:     transformer.contraction
func.func @two_dynamic_m_loops(%a: tensor<?x?x4xf32>, %b: tensor<4x16xf32>, %c: tensor<?x?x16xf32>) -> tensor<?x?x16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<?x?x4xf32>, tensor<4x16xf32>) outs(%c : tensor<?x?x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x?x16xf32>
  return %0 : tensor<?x?x16xf32>
}

// -----

// Sizes that are multiples of the register tile: no padding. A dynamic n is
// padded to the next multiple at run time (B and C); a dynamic m is not (A is
// read as it is: the schedule computes the rows past the last multiple of 8
// row by row); k never is.
// CHECK-LABEL: func.func @padding
// CHECK-SAME:    %[[X:arg3]]: tensor<?x7xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.matmul {transformer.contraction = "mnk"} ins(%{{.*}}, %{{.*}} : tensor<24x3xf32>, tensor<3x64xf32>)
// CHECK-NOT:     tensor.pad %[[X]]
// CHECK:         %[[YP:.*]] = tensor.pad %{{.*}} low[0, 0] high[0, %{{.*}}]
// CHECK-NOT:     tensor.pad %[[X]]
// CHECK:         %[[ZP:.*]] = tensor.pad %{{.*}} low[0, 0] high[%{{.*}}, %{{.*}}]
// CHECK:         %[[D:.*]] = linalg.matmul {transformer.contraction = "mnk"} ins(%[[X]], %[[YP]] : tensor<?x7xf32>, tensor<7x?xf32>) outs(%[[ZP]] :
// CHECK:         tensor.extract_slice %[[D]]
func.func @padding(%a: tensor<24x3xf32>, %b: tensor<3x64xf32>, %c: tensor<24x64xf32>,
                   %x: tensor<?x7xf32>, %y: tensor<7x?xf32>, %z: tensor<?x?xf32>) -> (tensor<24x64xf32>, tensor<?x?xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<24x3xf32>, tensor<3x64xf32>) outs(%c : tensor<24x64xf32>) -> tensor<24x64xf32>
  %1 = linalg.matmul ins(%x, %y : tensor<?x7xf32>, tensor<7x?xf32>) outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0, %1 : tensor<24x64xf32>, tensor<?x?xf32>
}

// -----

// Two n loops that B does not see together and in order (a packed B,
// (no, k, ni)): they cannot be collapsed into one, so the op keeps the simple
// lowering (this used to build an invalid tensor.collapse_shape).
// CHECK-LABEL: func.func @packed_b
// CHECK:         linalg.generic
// CHECK-NOT:     transformer.contraction
// CHECK-NOT:     tensor.collapse_shape
func.func @packed_b(%a: tensor<16x8xf32>, %bp: tensor<2x8x32xf32>, %c: tensor<16x2x32xf32>) -> tensor<16x2x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, no, ni, k) -> (m, k)>, affine_map<(m, no, ni, k) -> (no, k, ni)>, affine_map<(m, no, ni, k) -> (m, no, ni)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %bp : tensor<16x8xf32>, tensor<2x8x32xf32>) outs(%c : tensor<16x2x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x2x32xf32>
  return %r : tensor<16x2x32xf32>
}

// -----

// transpose_b in a named op, batched, with dynamic sizes: B's last two
// dimensions are swapped into a copy sized from B.
// CHECK-LABEL: func.func @batched_transpose_b
// CHECK-SAME:    %{{[a-z0-9]+}}: tensor<?x?x?xf32>, %[[B:[a-z0-9]+]]: tensor<?x?x?xf32>
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %[[B]], %c0
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %[[B]], %c1
// CHECK-DAG:     %[[D2:.*]] = tensor.dim %[[B]], %c2
// CHECK:         %[[E:.*]] = tensor.empty(%[[D0]], %[[D2]], %[[D1]]) : tensor<?x?x?xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[B]] : tensor<?x?x?xf32>) outs(%[[E]] : tensor<?x?x?xf32>) permutation = [0, 2, 1] {transformer.contraction = "btranspose"}
// A dynamic n is then padded to the register tile (a dynamic m is not).
// CHECK:         %[[TP:.*]] = tensor.pad %[[T]]
// CHECK:         linalg.contract {{.*}} {transformer.contraction = "bmnk"} ins(%{{.*}}, %[[TP]] :
func.func @batched_transpose_b(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%c : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

// Few rows by B indexed (n, k), k a multiple of 16: the dot-product form,
// vector code on tensors with no transposed copy of B: column blocks over
// the threads, 8 accumulators of 16 lanes along k, then horizontal sums
// added to C.
// CHECK-LABEL: func.func @dot_rows
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.forall (%{{.*}}) in (%{{.*}}) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<2x40xf32>)
// CHECK:           scf.for {{.*}} step %c8
// CHECK:             scf.for
// CHECK:               scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-8:         vector.fma
// CHECK-COUNT-8:       vector.reduction <add>
// CHECK:               vector.from_elements {{.*}} : vector<8xf32>
// The columns left over from the register tiles of 8, one by one.
// CHECK:           scf.for
// CHECK:               vector.fma
// CHECK:             tensor.insert
// CHECK:           tensor.parallel_insert_slice
// CHECK-NOT:     linalg.transpose
func.func @dot_rows(%a: tensor<2x32xf32>, %b: tensor<40x32xf32>, %c: tensor<2x40xf32>) -> tensor<2x40xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<2x32xf32>, tensor<40x32xf32>) outs(%c : tensor<2x40xf32>) -> tensor<2x40xf32>
  return %0 : tensor<2x40xf32>
}

// -----

// A dynamic number of rows: the dot-product form for at most 16 rows, the
// transposed copy and the register tiles otherwise, chosen at run time.
// CHECK-LABEL: func.func @dot_dynamic_rows
// CHECK:         %[[ROWS:.*]] = tensor.dim %{{.*}}, %c0{{.*}} : tensor<?x32xf32>
// CHECK:         %[[FEW:.*]] = arith.cmpi ule, %[[ROWS]], %c16
// CHECK:         scf.if %[[FEW]] -> (tensor<?x40xf32>) {
// CHECK:           scf.forall
// CHECK:           vector.fma
// CHECK:         } else {
// CHECK:           linalg.transpose {{.*}} {transformer.contraction = "transpose"}
// CHECK:           linalg.contract {{.*}} {transformer.contraction = "mnk"}
func.func @dot_dynamic_rows(%a: tensor<?x32xf32>, %b: tensor<40x32xf32>, %c: tensor<?x40xf32>) -> tensor<?x40xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<?x32xf32>, tensor<40x32xf32>) outs(%c : tensor<?x40xf32>) -> tensor<?x40xf32>
  return %0 : tensor<?x40xf32>
}

// -----

// One row by B indexed (k, n), n a multiple of 64: the row form, vector code
// on tensors, no padding to 8 rows. Groups of 4 rows take 64 columns per
// register tile (none here); a single row takes as many columns as half the
// 32 zmm hold, here all 128 (8 accumulators along k, each step a broadcast
// of A and 8 loads of B's row). The few-rows forms are marked as kernels of
// their own for --transformer-outline-kernels.
// CHECK-LABEL: func.func @row_rows
// CHECK-NOT:     tensor.pad
// CHECK:         scf.forall (%{{.*}}) in (%{{.*}}) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<1x128xf32>)
// CHECK:           scf.for {{.*}} step %c128
// CHECK:             scf.for {{.*}} step %c64
// CHECK:               scf.for {{.*}} step %c4
// CHECK:             scf.for
// CHECK:               scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK:                 vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK-COUNT-8:         vector.fma
// CHECK-COUNT-8:       vector.transfer_write
// CHECK:         } {transformer.kernel_root}
func.func @row_rows(%a: tensor<1x32xf32>, %b: tensor<32x128xf32>, %c: tensor<1x128xf32>) -> tensor<1x128xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1x32xf32>, tensor<32x128xf32>) outs(%c : tensor<1x128xf32>) -> tensor<1x128xf32>
  return %0 : tensor<1x128xf32>
}

// -----

// Six rows by B indexed (k, n): the row form takes 4 rows at once with 32
// zmm (16 accumulators; each step 4 loads of B's row, shared, and a
// broadcast of A per row), in 64-column parts of the 128-column tile, then
// the other 2 one by one across the whole tile (8 accumulators). AVX2's 16
// ymm hold one row's 8 accumulators, so it takes the register tiles beyond
// 3 rows.
// CHECK-LABEL: func.func @row_groups
// CHECK:         scf.forall
// CHECK:           scf.for {{.*}} step %c128
// CHECK:             %[[PARTS:.*]] = scf.for {{.*}} step %c64
// CHECK:               scf.for {{.*}} step %c4
// CHECK:                 scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-4:           vector.transfer_read %{{.*}} : tensor<32x128xf32>, vector<16xf32>
// CHECK-COUNT-16:          vector.fma
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %[[PARTS]])
// CHECK:               scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-8:         vector.fma
// AVX2-LABEL: func.func @row_groups
// AVX2:         linalg.matmul {transformer.contraction = "mnk"}
func.func @row_groups(%a: tensor<6x32xf32>, %b: tensor<32x128xf32>, %c: tensor<6x128xf32>) -> tensor<6x128xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<6x32xf32>, tensor<32x128xf32>) outs(%c : tensor<6x128xf32>) -> tensor<6x128xf32>
  return %0 : tensor<6x128xf32>
}

// -----

// A dynamic number of rows with an epilogue: the accumulator's fill and the
// element-wise consumers (here a bias add, whose tensor.empty comes after the
// contraction) are cloned into both branches of the run-time choice, so that
// the tiled branch can fuse them into its cache tiles; nothing is padded and
// nothing is left after the scf.if.
// CHECK-LABEL: func.func @dynamic_rows_epilogue
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<?x32xf32>, %[[B:[a-z0-9]+]]: tensor<32x128xf32>, %[[BIAS:[a-z0-9]+]]: tensor<128xf32>
// CHECK:         %[[R:.*]] = scf.if %{{.*}} -> (tensor<?x128xf32>) {
// CHECK:           %[[FILL1:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x128xf32>)
// CHECK:           scf.forall {{.*}} shared_outs(%{{.*}} = %[[FILL1]])
// CHECK:           } {transformer.kernel_root}
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %[[BIAS]] : tensor<?x128xf32>, tensor<128xf32>)
// CHECK:         } else {
// CHECK-NOT:       tensor.pad
// CHECK:           %[[FILL2:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x128xf32>)
// CHECK:           %[[MM:.*]] = linalg.matmul {transformer.contraction = "mnk"} ins(%[[A]], %[[B]] : tensor<?x32xf32>, tensor<32x128xf32>) outs(%[[FILL2]] : tensor<?x128xf32>)
// CHECK:           %[[E:.*]] = linalg.generic {{.*}} ins(%[[MM]], %[[BIAS]] : tensor<?x128xf32>, tensor<128xf32>)
// CHECK:           scf.yield %[[E]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
func.func @dynamic_rows_epilogue(%a: tensor<?x32xf32>, %b: tensor<32x128xf32>, %bias: tensor<128xf32>) -> tensor<?x128xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x32xf32>
  %e = tensor.empty(%m) : tensor<?x128xf32>
  %zero = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x128xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<?x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x32xf32>, tensor<32x128xf32>) outs(%zero : tensor<?x128xf32>) -> tensor<?x128xf32>
  %e2 = tensor.empty(%m) : tensor<?x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<?x128xf32>, tensor<128xf32>) outs(%e2 : tensor<?x128xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  return %r : tensor<?x128xf32>
}

// -----

// The row form's tasks: the widest of 384, 256 and 128 columns that makes
// a multiple of the threads' number of them (two threads, 768 columns: 2
// tasks of 384 rather than 3 of 256, which left one of two threads idle for
// a third of the time; 1024: 4 of 256). A single row takes a task's columns
// in one register tile of up to 24 zmm accumulators; AVX2 keeps 64 columns
// (8 ymm) per tile. With 8 threads no width makes 8 tasks of 768 columns:
// the dot form's rule, 6 tasks of 128.
// THREADS8-DAG:   #[[$T128:.*]] = affine_map<()[s0] -> (s0 ceildiv 128)>
// THREADS8-LABEL: func.func @row_tasks
// THREADS8:         affine.apply #[[$T128]]()
// CHECK-DAG:   #[[$TASKS384:.*]] = affine_map<()[s0] -> (s0 ceildiv 384)>
// CHECK-DAG:   #[[$TASKS256:.*]] = affine_map<()[s0] -> (s0 ceildiv 256)>
// CHECK-LABEL: func.func @row_tasks
// CHECK:         affine.apply #[[$TASKS384]]()
// CHECK:         scf.forall
// CHECK:           scf.for {{.*}} step %c384
// CHECK:             scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-24:      vector.fma
// CHECK:         affine.apply #[[$TASKS256]]()
// CHECK:         scf.forall
// AVX2-LABEL: func.func @row_tasks
// AVX2:         scf.forall
// AVX2:           scf.for {{.*}} step %c64
// AVX2:             scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
func.func @row_tasks(%a: tensor<1x1024xf32>, %b: tensor<1024x768xf32>, %c: tensor<1x768xf32>,
                     %b2: tensor<1024x1024xf32>, %c2: tensor<1x1024xf32>) -> (tensor<1x768xf32>, tensor<1x1024xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<1x1024xf32>, tensor<1024x768xf32>) outs(%c : tensor<1x768xf32>) -> tensor<1x768xf32>
  %1 = linalg.matmul ins(%a, %b2 : tensor<1x1024xf32>, tensor<1024x1024xf32>) outs(%c2 : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  return %0, %1 : tensor<1x768xf32>, tensor<1x1024xf32>
}

// -----

// Less than 2^20 flops (kMinThreadedFlops) stays on the calling thread: one
// task of all the columns, a loop of one iteration that canonicalization
// removes (a dot form of 2 x 40 x 32 and a row form of 1 x 768 x 32).
// CHECK-DAG:   #[[$ONE40:.*]] = affine_map<()[s0] -> (s0 ceildiv 40)>
// CHECK-DAG:   #[[$ONE768:.*]] = affine_map<()[s0] -> (s0 ceildiv 768)>
// CHECK-LABEL: func.func @small_one_task
// CHECK:         affine.apply #[[$ONE40]]()
// CHECK:         scf.forall
// CHECK:         affine.apply #[[$ONE768]]()
// CHECK:         scf.forall
// CANON-LABEL: func.func @small_one_task
// CANON-NOT:     scf.forall
// CANON:         return
func.func @small_one_task(%a: tensor<2x32xf32>, %b: tensor<40x32xf32>, %c: tensor<2x40xf32>,
                          %a2: tensor<1x32xf32>, %b2: tensor<32x768xf32>, %c2: tensor<1x768xf32>) -> (tensor<2x40xf32>, tensor<1x768xf32>) {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<2x32xf32>, tensor<40x32xf32>) outs(%c : tensor<2x40xf32>) -> tensor<2x40xf32>
  %1 = linalg.matmul ins(%a2, %b2 : tensor<1x32xf32>, tensor<32x768xf32>) outs(%c2 : tensor<1x768xf32>) -> tensor<1x768xf32>
  return %0, %1 : tensor<2x40xf32>, tensor<1x768xf32>
}

// -----

// An element-wise consumer whose body uses a value defined after the
// contraction stays after the run-time choice (cloning it into the branches
// would use the value before its definition).
// CHECK-LABEL: func.func @dynamic_rows_late_value
// CHECK:         %[[R:.*]] = scf.if
// CHECK:         }
// CHECK:         %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         linalg.generic {{.*}} ins(%[[R]] : tensor<?x128xf32>)
// CHECK:           arith.mulf %{{.*}}, %[[HALF]]
func.func @dynamic_rows_late_value(%a: tensor<?x32xf32>, %b: tensor<32x128xf32>, %c: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<?x32xf32>, tensor<32x128xf32>) outs(%c : tensor<?x128xf32>) -> tensor<?x128xf32>
  %half = arith.constant 0.5 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<?x128xf32>) outs(%c : tensor<?x128xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.mulf %x, %half : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  return %r : tensor<?x128xf32>
}

// -----

// A bf16 B with few rows: the dot-product form loads B's rows as bf16
// vectors and widens them in registers; no f32 copy of B is made.
// CHECK-LABEL: func.func @dot_rows_bf16
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.forall
// CHECK:               %[[V:.*]] = vector.transfer_read %{{.*}} : tensor<40x32xbf16>, vector<16xbf16>
// CHECK:               %[[W:.*]] = arith.extf %[[V]] : vector<16xbf16> to vector<16xf32>
// CHECK:               vector.fma %{{.*}}, %[[W]]
// CHECK-NOT:     tensor<40x32xf32>
func.func @dot_rows_bf16(%a: tensor<2x32xf32>, %b: tensor<40x32xbf16>, %c: tensor<2x40xf32>) -> tensor<2x40xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<2x32xf32>, tensor<40x32xbf16>) outs(%c : tensor<2x40xf32>) -> tensor<2x40xf32>
  return %0 : tensor<2x40xf32>
}

// -----

// Many rows by an f16 B indexed (n, k): the transposed copy keeps B's type
// (half the bytes of f32), a linalg.contract widens it, and the pad of n to
// the register tile pads with an f16 zero.
// CHECK-LABEL: func.func @tiles_f16
// CHECK:         %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<70x32xf16>) outs(%{{.*}} : tensor<32x70xf16>) permutation = [1, 0] {transformer.contraction = "transpose"}
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK:         tensor.pad %[[T]] low[0, 0] high[0, 26]
// CHECK:           tensor.yield %[[ZERO]] : f16
// CHECK:         linalg.contract {{.*}} {transformer.contraction = "mnk"} ins(%{{.*}}, %{{.*}} : tensor<64x32xf32>, tensor<32x96xf16>)
func.func @tiles_f16(%a: tensor<64x32xf32>, %b: tensor<70x32xf16>, %c: tensor<64x70xf32>) -> tensor<64x70xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<64x32xf32>, tensor<70x32xf16>) outs(%c : tensor<64x70xf32>) -> tensor<64x70xf32>
  return %0 : tensor<64x70xf32>
}

// -----

// An accumulator made by a fill (of any value: the padding reaches only the
// columns that are sliced off) is filled at the padded size: no fill of its
// own size copied into a padded buffer (three passes over memory before the
// contraction). B, a function argument, is still padded. A fill the
// function also returns keeps its pad.
// CHECK-LABEL: func.func @padded_fill
// CHECK-SAME:    %{{[a-z0-9]+}}: tensor<16x8xf32>, %[[B:[a-z0-9]+]]: tensor<8x40xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<16x64xf32>
// CHECK:         %[[F:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<16x64xf32>)
// CHECK:         %[[BP:.*]] = tensor.pad %[[B]] low[0, 0] high[0, 24]
// CHECK:         linalg.matmul {transformer.contraction = "mnk"} ins(%{{.*}}, %[[BP]] : tensor<16x8xf32>, tensor<8x64xf32>) outs(%[[F]] : tensor<16x64xf32>)
// CHECK:         %[[G:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:         linalg.matmul {transformer.contraction = "mnk"} ins(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<8x64xf32>) outs(%[[G]] : tensor<16x64xf32>)
// CHECK:         %[[ONE:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:         linalg.matmul {transformer.contraction = "mnk"} ins(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<8x64xf32>) outs(%[[ONE]] : tensor<16x64xf32>)
// CHECK:         %[[KEPT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x40xf32>)
// CHECK:         tensor.pad %[[KEPT]] low[0, 0] high[0, 24]
func.func @padded_fill(%a: tensor<16x8xf32>, %b: tensor<8x40xf32>)
    -> (tensor<16x40xf32>, tensor<16x40xf32>, tensor<16x40xf32>, tensor<16x40xf32>, tensor<16x40xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<16x40xf32>
  %f0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<16x40xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  } -> tensor<16x40xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x40xf32>) outs(%f0 : tensor<16x40xf32>) -> tensor<16x40xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<16x40xf32>) -> tensor<16x40xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x40xf32>) outs(%f1 : tensor<16x40xf32>) -> tensor<16x40xf32>
  %f2 = linalg.fill ins(%one : f32) outs(%e : tensor<16x40xf32>) -> tensor<16x40xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x40xf32>) outs(%f2 : tensor<16x40xf32>) -> tensor<16x40xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e : tensor<16x40xf32>) -> tensor<16x40xf32>
  %3 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x40xf32>) outs(%f3 : tensor<16x40xf32>) -> tensor<16x40xf32>
  return %0, %1, %2, %3, %f3 : tensor<16x40xf32>, tensor<16x40xf32>, tensor<16x40xf32>, tensor<16x40xf32>, tensor<16x40xf32>
}

// -----

// A padded linear's bias broadcast is computed at the padded size (the bias
// padded, 40 -> 64), and the element-wise ops after the product (GELU's
// tanh, a second bias) move before the result's slice, so that all of them
// fuse into the contraction's cache tiles; the residual add, which would
// need its [16, 40] operand padded, stays after the slice.
// CHECK-LABEL: func.func @padded_epilogues
// CHECK-SAME:    %{{[a-z0-9]+}}: tensor<16x8xf32>, %{{[a-z0-9]+}}: tensor<8x40xf32>, %[[BIAS:[a-z0-9]+]]: tensor<40xf32>, %[[RES:[a-z0-9]+]]: tensor<16x40xf32>
// CHECK:         %[[BIASP:.*]] = tensor.pad %[[BIAS]] low[0] high[24]
// CHECK:         %[[ACC:.*]] = linalg.generic {{.*}} ins(%[[BIASP]] : tensor<64xf32>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:         %[[R:.*]] = linalg.matmul {transformer.contraction = "mnk"} {{.*}} outs(%[[ACC]] : tensor<16x64xf32>)
// CHECK:         %[[T:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<16x64xf32>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:           math.tanh
// CHECK:         %[[BIAS2P:.*]] = tensor.pad %[[BIAS]] low[0] high[24]
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%[[T]], %[[BIAS2P]] : tensor<16x64xf32>, tensor<64xf32>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:         %[[S:.*]] = tensor.extract_slice %[[A]][0, 0] [16, 40] [1, 1]
// CHECK:         linalg.generic {{.*}} ins(%[[S]], %[[RES]] : tensor<16x40xf32>, tensor<16x40xf32>)
func.func @padded_epilogues(%a: tensor<16x8xf32>, %b: tensor<8x40xf32>, %bias: tensor<40xf32>, %res: tensor<16x40xf32>) -> tensor<16x40xf32> {
  %e = tensor.empty() : tensor<16x40xf32>
  %acc = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<40xf32>) outs(%e : tensor<16x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x40xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x40xf32>) outs(%acc : tensor<16x40xf32>) -> tensor<16x40xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<16x40xf32>) outs(%e : tensor<16x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<16x40xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%1, %bias : tensor<16x40xf32>, tensor<40xf32>) outs(%e : tensor<16x40xf32>) {
  ^bb0(%in: f32, %b0: f32, %out: f32):
    %s = arith.addf %in, %b0 : f32
    linalg.yield %s : f32
  } -> tensor<16x40xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2, %res : tensor<16x40xf32>, tensor<16x40xf32>) outs(%e : tensor<16x40xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %s = arith.addf %in, %r : f32
    linalg.yield %s : f32
  } -> tensor<16x40xf32>
  return %3 : tensor<16x40xf32>
}

// -----

// Two contractions of the same rows whose products an element-wise op
// combines (a gated MLP: silu(x gate) * (x up), B in panels): each is split
// on the row count, and the two branches of the same test become one, so
// that each branch holds both contractions and their consumer: the row
// forms in the first, the tagged contractions in the second, which
// transformer-outline-kernels makes one kernel.
// CHECK-LABEL: func.func @gated_branches
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x64xf32>, %[[G:[a-z0-9]+]]: tensor<4x64x32xf32>, %[[U:[a-z0-9]+]]: tensor<4x64x32xf32>
// CHECK:         %[[R:.*]] = scf.if
// CHECK:           %[[GR:.*]] = scf.forall
// CHECK:           } {transformer.kernel_root}
// CHECK:           %[[UR:.*]] = scf.forall
// CHECK:           } {transformer.kernel_root}
// CHECK:           %[[MR:.*]] = linalg.generic {{.*}} ins(%[[GR]], %[[UR]] :
// CHECK:           scf.yield %[[MR]]
// CHECK:         } else {
// CHECK:           %[[GT:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[G]] : {{.*}} {transformer.contraction = "mnk"}
// CHECK:           %[[UT:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[U]] : {{.*}} {transformer.contraction = "mnk"}
// CHECK:           %[[MT:.*]] = linalg.generic {{.*}} ins(%[[GT]], %[[UT]] :
// CHECK:           scf.yield %[[MT]]
// CHECK-NOT:     scf.if
// CHECK:         return %[[R]]
#ga = affine_map<(m, n, k) -> (m, k)>
#gpanels = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#gc = affine_map<(m, n, k) -> (m, n)>
#gid = affine_map<(m, n) -> (m, n)>
func.func @gated_branches(%x: tensor<?x64xf32>, %g: tensor<4x64x32xf32>, %u: tensor<4x64x32xf32>) -> tensor<?x128xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%rows) : tensor<?x128xf32>
  %fill = linalg.generic {indexing_maps = [#gid], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x128xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  } -> tensor<?x128xf32>
  %gate = linalg.generic {indexing_maps = [#ga, #gpanels, #gc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %g : tensor<?x64xf32>, tensor<4x64x32xf32>) outs(%fill : tensor<?x128xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %p = arith.mulf %in, %w : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  %up = linalg.generic {indexing_maps = [#ga, #gpanels, #gc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %u : tensor<?x64xf32>, tensor<4x64x32xf32>) outs(%fill : tensor<?x128xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %p = arith.mulf %in, %w : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  %m = linalg.generic {indexing_maps = [#gid, #gid, #gid], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<?x128xf32>, tensor<?x128xf32>) outs(%e : tensor<?x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %n = arith.negf %a : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %s = arith.divf %a, %d : f32
    %r = arith.mulf %s, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x128xf32>
  return %m : tensor<?x128xf32>
}

// -----

// The same, but the function also returns the first product: its branch
// stays on its own (the merged branch would have to yield it too), and so
// do the contractions' kernels.
// CHECK-LABEL: func.func @shared_branches
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<?x64xf32>, %[[G:[a-z0-9]+]]: tensor<4x64x32xf32>, %[[U:[a-z0-9]+]]: tensor<4x64x32xf32>
// CHECK:         %[[GR:.*]] = scf.if
// CHECK:         } else {
// CHECK:           linalg.generic {{.*}} ins(%[[X]], %[[G]] : {{.*}} {transformer.contraction = "mnk"}
// CHECK:         %[[MR:.*]] = scf.if
// CHECK:         } else {
// CHECK:           linalg.generic {{.*}} ins(%[[X]], %[[U]] : {{.*}} {transformer.contraction = "mnk"}
// CHECK:         return %[[MR]], %[[GR]]
#sa = affine_map<(m, n, k) -> (m, k)>
#spanels = affine_map<(m, n, k) -> (n floordiv 32, k, n mod 32)>
#sc = affine_map<(m, n, k) -> (m, n)>
#sid = affine_map<(m, n) -> (m, n)>
func.func @shared_branches(%x: tensor<?x64xf32>, %g: tensor<4x64x32xf32>, %u: tensor<4x64x32xf32>) -> (tensor<?x128xf32>, tensor<?x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%rows) : tensor<?x128xf32>
  %fill = linalg.generic {indexing_maps = [#sid], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x128xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  } -> tensor<?x128xf32>
  %gate = linalg.generic {indexing_maps = [#sa, #spanels, #sc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %g : tensor<?x64xf32>, tensor<4x64x32xf32>) outs(%fill : tensor<?x128xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %p = arith.mulf %in, %w : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  %up = linalg.generic {indexing_maps = [#sa, #spanels, #sc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %u : tensor<?x64xf32>, tensor<4x64x32xf32>) outs(%fill : tensor<?x128xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %p = arith.mulf %in, %w : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  %m = linalg.generic {indexing_maps = [#sid, #sid, #sid], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<?x128xf32>, tensor<?x128xf32>) outs(%e : tensor<?x128xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %n = arith.negf %a : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %s = arith.divf %a, %d : f32
    %r = arith.mulf %s, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x128xf32>
  return %m, %gate : tensor<?x128xf32>, tensor<?x128xf32>
}

// -----

// Rows over more than one cache tile (258 on skylake-avx512): B is copied
// once per call into the register tiles' panels ([n / 32, k, 32]) by an
// scf.forall of 8-row tasks, k blocks outer and panels inner, a kernel of
// its own; the contraction reads the panels.
// CHECK-DAG:   #[[$PANEL:.*]] = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2, d1 mod 32)>
// CHECK-LABEL: func.func @pack_per_call
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<300x16xf32>, %[[B:[a-z0-9]+]]: tensor<16x64xf32>
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<2x16x32xf32>
// CHECK:         %[[P:.*]] = scf.forall (%[[KB:.*]], %[[PANEL:.*]]) in (2, 2) shared_outs(%[[OUT:.*]] = %[[INIT]])
// CHECK:           %[[SRC:.*]] = tensor.extract_slice %[[B]][%{{.*}}, %{{.*}}] [8, 32] [1, 1]
// CHECK:           %[[DST:.*]] = tensor.extract_slice %[[OUT]][%[[PANEL]], %{{.*}}, 0] [1, 8, 32] [1, 1, 1]
// CHECK:           linalg.copy {transformer.contraction = "panels"} ins(%[[SRC]] : tensor<8x32xf32>) outs(%[[DST]] : tensor<8x32xf32>)
// CHECK:           tensor.parallel_insert_slice
// CHECK:         } {transformer.kernel_root}
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[$PANEL]], #{{.*}}]
// CHECK-SAME:      ins(%[[A]], %[[P]] : tensor<300x16xf32>, tensor<2x16x32xf32>)
// CHECK-SAME:      transformer.contraction = "mnk"
// AVX2-LABEL:  func.func @pack_per_call
// AVX2:          tensor.empty() : tensor<4x16x16xf32>
// AVX2:          linalg.copy {transformer.contraction = "panels"} ins(%{{.*}} : tensor<8x16xf32>)
func.func @pack_per_call(%a: tensor<300x16xf32>, %b: tensor<16x64xf32>, %c: tensor<300x64xf32>) -> tensor<300x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<300x16xf32>, tensor<16x64xf32>) outs(%c : tensor<300x64xf32>) -> tensor<300x64xf32>
  return %0 : tensor<300x64xf32>
}

// -----

// One cache tile of rows: B's blocks are copied once anyway, per cache tile.
// CHECK-LABEL: func.func @one_row_of_cache_tiles
// CHECK-NOT:     scf.forall
// CHECK:         linalg.matmul {transformer.contraction = "mnk"}
func.func @one_row_of_cache_tiles(%a: tensor<256x16xf32>, %b: tensor<16x64xf32>, %c: tensor<256x64xf32>) -> tensor<256x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<256x16xf32>, tensor<16x64xf32>) outs(%c : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %0 : tensor<256x64xf32>
}

// -----

// B indexed (n, k) with n = 40: the full panel's tasks transpose 32 x 32
// blocks of B; the last panel is B's 8 remaining rows padded with zeros to
// 32, transposed; the result is padded to 64 columns and sliced.
// CHECK-LABEL: func.func @pack_transposed_partial_panel
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<300x32xf32>, %[[B:[a-z0-9]+]]: tensor<40x32xf32>
// CHECK-NOT:     tensor.pad %[[B]]
// CHECK:         %[[P:.*]] = scf.forall (%{{.*}}, %{{.*}}) in (1, 1) shared_outs
// CHECK:           %[[SRC:.*]] = tensor.extract_slice %[[B]][%{{.*}}, %{{.*}}] [32, 32] [1, 1]
// CHECK:           linalg.transpose ins(%[[SRC]] : tensor<32x32xf32>) {{.*}} permutation = [1, 0]  {transformer.contraction = "transpose_tile"}
// CHECK:         } {transformer.kernel_root}
// CHECK:         %[[REST:.*]] = tensor.extract_slice %[[B]][32, 0] [8, 32] [1, 1]
// CHECK:         %[[PADDED:.*]] = tensor.pad %[[REST]] low[0, 0] high[24, 0]
// CHECK:         %[[LAST:.*]] = tensor.extract_slice %[[P]][1, 0, 0] [1, 32, 32] [1, 1, 1]
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[PADDED]] : tensor<32x32xf32>) outs(%[[LAST]] : tensor<32x32xf32>) permutation = [1, 0]  {transformer.contraction = "transpose_tile"}
// CHECK:         %[[ALL:.*]] = tensor.insert_slice %[[T]] into %[[P]][1, 0, 0] [1, 32, 32] [1, 1, 1]
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[ALL]] : tensor<300x32xf32>, tensor<2x32x32xf32>) outs(%{{.*}} : tensor<300x64xf32>)
// CHECK:         tensor.extract_slice %[[R]][0, 0] [300, 40] [1, 1]
func.func @pack_transposed_partial_panel(%a: tensor<300x32xf32>, %b: tensor<40x32xf32>, %c: tensor<300x40xf32>) -> tensor<300x40xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<300x32xf32>, tensor<40x32xf32>) outs(%c : tensor<300x40xf32>) -> tensor<300x40xf32>
  return %0 : tensor<300x40xf32>
}

// -----

// B indexed (n, k) with k not a multiple of the lanes: no whole transposed
// tiles, so B keeps its transposed copy and the per-tile packing.
// CHECK-LABEL: func.func @transposed_odd_k
// CHECK-NOT:     scf.forall
// CHECK:         linalg.transpose {{.*}} {transformer.contraction = "transpose"}
// CHECK:         linalg.contract {{.*}} {transformer.contraction = "mnk"}
func.func @transposed_odd_k(%a: tensor<300x20xf32>, %b: tensor<64x20xf32>, %c: tensor<300x64xf32>) -> tensor<300x64xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<300x20xf32>, tensor<64x20xf32>) outs(%c : tensor<300x64xf32>) -> tensor<300x64xf32>
  return %0 : tensor<300x64xf32>
}

// -----

// A constant weight (or an argument of a private function, which its
// callers may bind to one) is copied once, by
// transformer-cpu-cache-constant-weights, not on every call.
// CHECK-LABEL: func.func @constant_weight
// CHECK-NOT:     scf.forall
// CHECK:         linalg.transpose {{.*}} {transformer.contraction = "transpose"}
// CHECK-LABEL: func.func private @layer
// CHECK-NOT:     scf.forall
// CHECK:         linalg.matmul {transformer.contraction = "mnk"}
func.func @constant_weight(%a: tensor<300x32xf32>, %w: tensor<64x32xf32> {transformer.constant}, %c: tensor<300x64xf32>) -> tensor<300x64xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %w : tensor<300x32xf32>, tensor<64x32xf32>) outs(%c : tensor<300x64xf32>) -> tensor<300x64xf32>
  return %0 : tensor<300x64xf32>
}
func.func private @layer(%a: tensor<300x16xf32>, %b: tensor<16x64xf32>, %c: tensor<300x64xf32>) -> tensor<300x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<300x16xf32>, tensor<16x64xf32>) outs(%c : tensor<300x64xf32>) -> tensor<300x64xf32>
  return %0 : tensor<300x64xf32>
}

// -----

// A's rows 8 KiB apart (2048 columns) would share L1 sets with each other
// and the panel: the contraction reads them from a copy whose rows are 16
// values further apart, made by its own scf.forall of 8 x 32 blocks.
// CHECK-LABEL: func.func @padded_rows_of_a
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<264x2048xf32>
// CHECK:         scf.forall {{.*}} -> (tensor<1x2048x32xf32>)
// CHECK:         } {transformer.kernel_root}
// CHECK:         %[[ROWS:.*]] = tensor.empty() : tensor<264x2064xf32>
// CHECK:         %[[COPY:.*]] = scf.forall (%{{.*}}, %{{.*}}) in (33, 64) shared_outs(%{{.*}} = %[[ROWS]])
// CHECK:           linalg.copy {transformer.contraction = "panels"} ins(%{{.*}} : tensor<8x32xf32>)
// CHECK:         } {transformer.kernel_root}
// CHECK:         %[[SLICE:.*]] = tensor.extract_slice %[[COPY]][0, 0] [264, 2048] [1, 1]
// CHECK:         linalg.generic {{.*}} ins(%[[SLICE]], %{{.*}} : tensor<264x2048xf32>, tensor<1x2048x32xf32>)
func.func @padded_rows_of_a(%a: tensor<264x2048xf32>, %b: tensor<2048x32xf32>, %c: tensor<264x32xf32>) -> tensor<264x32xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<264x2048xf32>, tensor<2048x32xf32>) outs(%c : tensor<264x32xf32>) -> tensor<264x32xf32>
  return %0 : tensor<264x32xf32>
}

// -----

// A dynamic number of rows by a weight in panels: the row form overwrites
// its whole result, and its sizes are read from the tensor.empty, not
// from the zero fill cloned into its branch (read there, they kept the fill
// alive outside the outlined kernel: a fill of the whole result, a kernel
// of its own, on every call of a decode step's projection).
// CHECK-LABEL: func.func @panel_dynamic_rows
// CHECK:         %[[EMPTY:.*]] = tensor.empty
// CHECK:         scf.if
// CHECK:           %[[FILL:.*]] = linalg.generic {{.*}} outs(%[[EMPTY]] : tensor<?x128xf32>)
// CHECK-NOT:       tensor.dim %[[FILL]]
// CHECK:           tensor.dim %[[EMPTY]], %c1
// CHECK-NOT:       tensor.dim %[[FILL]]
// CHECK:           scf.forall
#pa = affine_map<(d0, d1, d2) -> (d0, d2)>
#pb = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2, d1 mod 32)>
#pc = affine_map<(d0, d1, d2) -> (d0, d1)>
#pid = affine_map<(d0, d1) -> (d0, d1)>
func.func @panel_dynamic_rows(%x: tensor<?x64xf32>, %w: tensor<4x64x32xf32>) -> tensor<?x128xf32> {
  %c0 = arith.constant 0 : index
  %rows = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%rows) : tensor<?x128xf32>
  %zero = arith.constant 0.0 : f32
  %fill = linalg.generic {indexing_maps = [#pid], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x128xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  } -> tensor<?x128xf32>
  %y = linalg.generic {indexing_maps = [#pa, #pb, #pc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<?x64xf32>, tensor<4x64x32xf32>) outs(%fill : tensor<?x128xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %p = arith.mulf %in, %b : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}
