// RUN: transformer-opt %s --lower-transformer -split-input-file | FileCheck %s
// RUN: transformer-opt %s --convert-transformer-to-linalg -split-input-file | FileCheck %s

// Rank 2: linalg.matmul with its default maps, into a zero-filled result.
// CHECK-LABEL: func @matmul_2d
// CHECK-SAME: (%[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<4x5xf32>)
// CHECK-NOT: cf.assert
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x5xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<3x5xf32>)
// CHECK: %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<3x4xf32>, tensor<4x5xf32>) outs(%[[INIT]] : tensor<3x5xf32>)
// CHECK: return %[[R]]
// CHECK-NOT: transformer.
func.func @matmul_2d(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = transformer.matmul %a, %b : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// transpose_b: the rhs is read as NxK through linalg.matmul's indexing_maps.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @matmul_transpose_b
// CHECK-SAME: (%[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<5x4xf32>)
// CHECK: %[[INIT:.*]] = linalg.fill {{.*}} -> tensor<3x5xf32>
// CHECK: linalg.matmul indexing_maps = [#[[$A]], #[[$BT]], #[[$C]]] ins(%[[A]], %[[B]] : tensor<3x4xf32>, tensor<5x4xf32>) outs(%[[INIT]] : tensor<3x5xf32>)
func.func @matmul_transpose_b(%a: tensor<3x4xf32>, %b: tensor<5x4xf32>) -> tensor<3x5xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<3x4xf32>, tensor<5x4xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Rank 3 with equal batch dims: linalg.batch_matmul.
// CHECK-LABEL: func @matmul_batched
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x4x5xf32>)
// CHECK: %[[INIT:.*]] = linalg.fill {{.*}} outs(%{{.*}} : tensor<2x3x5xf32>)
// CHECK: %[[R:.*]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%[[INIT]] : tensor<2x3x5xf32>)
// CHECK: return %[[R]]
func.func @matmul_batched(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = transformer.matmul %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @matmul_batched_transpose_b
// CHECK: linalg.batch_matmul indexing_maps = [#[[$A]], #[[$BT]], #[[$C]]] ins(%arg0, %arg1 : tensor<2x3x4xf32>, tensor<2x5x4xf32>) outs(%{{.*}} : tensor<2x3x5xf32>)
func.func @matmul_batched_transpose_b(%a: tensor<2x3x4xf32>, %b: tensor<2x5x4xf32>) -> tensor<2x3x5xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<2x3x4xf32>, tensor<2x5x4xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// A rank-2 rhs shared by the batch (no named op says that but
// linalg.contract); transpose_b reads it as NxK.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @matmul_broadcast_transpose_b
// CHECK: linalg.contract indexing_maps = [#[[$A]], #[[$BT]], #[[$C]]] ins(%arg0, %arg1 : tensor<2x3x4xf32>, tensor<5x4xf32>) outs(%{{.*}} : tensor<2x3x5xf32>)
func.func @matmul_broadcast_transpose_b(%a: tensor<2x3x4xf32>, %b: tensor<5x4xf32>) -> tensor<2x3x5xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<2x3x4xf32>, tensor<5x4xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Two batch dims: linalg.contract over (b0, b1, m, n, k).
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @matmul_rank4
// CHECK: linalg.contract indexing_maps = [#[[$A]], #[[$B]], #[[$C]]] ins(%arg0, %arg1 : tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32>) outs(%{{.*}} : tensor<2x2x3x5xf32>)
func.func @matmul_rank4(%a: tensor<2x2x3x4xf32>, %b: tensor<2x2x4x5xf32>) -> tensor<2x2x3x5xf32> {
  %0 = transformer.matmul %a, %b : tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32> -> tensor<2x2x3x5xf32>
  return %0 : tensor<2x2x3x5xf32>
}

// -----

// Dynamic inner and batch dims are checked at run time.
// CHECK-LABEL: func @matmul_dynamic
// CHECK-DAG: %[[K_A:.*]] = tensor.dim %arg0, %c2
// CHECK-DAG: %[[K_B:.*]] = tensor.dim %arg1, %c1
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[K_A]], %[[K_B]] : index
// CHECK: %[[NE:.*]] = arith.xori %[[EQ]], %true
// CHECK: scf.if %[[NE]] {
// CHECK: cf.assert %false, "transformer.matmul: the inner dimensions of lhs and rhs differ" {transformer.runtime_check}
// CHECK-NEXT: }
// CHECK: cf.assert %false, "transformer.matmul: batch dimension 0 of lhs and rhs differ"
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<?x?x?xf32>
// CHECK: %[[INIT:.*]] = linalg.fill {{.*}} outs(%[[E]] : tensor<?x?x?xf32>)
// CHECK: linalg.batch_matmul ins(%arg0, %arg1 : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%[[INIT]] : tensor<?x?x?xf32>)
func.func @matmul_dynamic(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = transformer.matmul %a, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

// A declared result more static than the operands: the product is cast to
// it after a run-time check.
// CHECK-LABEL: func @matmul_dynamic_to_static
// CHECK: %[[R:.*]] = linalg.matmul ins(%arg0, %arg1 : tensor<?x4xf32>, tensor<4x5xf32>) outs(%{{.*}} : tensor<?x5xf32>)
// CHECK: cf.assert %{{.*}}, "transformer.matmul: dimension 0 of the result does not match its declared type"
// CHECK: %[[C:.*]] = tensor.cast %[[R]] : tensor<?x5xf32> to tensor<3x5xf32>
// CHECK: return %[[C]]
func.func @matmul_dynamic_to_static(%a: tensor<?x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = transformer.matmul %a, %b : tensor<?x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4x3xf32>
// CHECK: linalg.transpose ins(%arg0 : tensor<2x3x4xf32>) outs(%[[E]] : tensor<2x4x3xf32>) permutation = [0, 2, 1]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<2x4x3xf32> {
  %0 = transformer.transpose %x : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// CHECK-LABEL: func @transpose_dynamic_permutation
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c1
// CHECK: tensor.empty(%[[D]]) : tensor<?x2x4xf32>
// CHECK: linalg.transpose {{.*}} permutation = [1, 0, 2]
func.func @transpose_dynamic_permutation(%x: tensor<2x?x4xf32>) -> tensor<?x2x4xf32> {
  %0 = transformer.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<2x?x4xf32> -> tensor<?x2x4xf32>
  return %0 : tensor<?x2x4xf32>
}

// -----

// linear: the bias is broadcast into the accumulator (linalg.broadcast),
// then x @ w^T accumulates into it (the weight read as NxK).
// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @linear_2d
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>, %[[W:.*]]: tensor<5x4xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x5xf32>
// CHECK: %[[ACC:.*]] = linalg.broadcast ins(%[[B]] : tensor<5xf32>) outs(%[[E]] : tensor<3x5xf32>) dimensions = [0]
// CHECK: %[[R:.*]] = linalg.matmul indexing_maps = [#[[$X]], #[[$W]], #[[$C]]] ins(%[[X]], %[[W]] : tensor<3x4xf32>, tensor<5x4xf32>) outs(%[[ACC]] : tensor<3x5xf32>)
// CHECK: return %[[R]]
func.func @linear_2d(%x: tensor<3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> tensor<3x5xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @linear_batched
// CHECK: %[[ACC:.*]] = linalg.broadcast ins(%arg2 : tensor<5xf32>) outs(%{{.*}} : tensor<2x3x5xf32>) dimensions = [0, 1]
// CHECK: linalg.contract indexing_maps = [#[[$X]], #[[$W]], #[[$C]]] ins(%arg0, %arg1 : tensor<2x3x4xf32>, tensor<5x4xf32>) outs(%[[ACC]] : tensor<2x3x5xf32>)
func.func @linear_batched(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// A rank-1 input: w x + b as linalg.matvec into the bias.
// CHECK-LABEL: func @linear_vector
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<5x4xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK: %[[ACC:.*]] = linalg.broadcast ins(%[[B]] : tensor<5xf32>) outs(%{{.*}} : tensor<5xf32>) dimensions = []
// CHECK: %[[R:.*]] = linalg.matvec ins(%[[W]], %[[X]] : tensor<5x4xf32>, tensor<4xf32>) outs(%[[ACC]] : tensor<5xf32>)
// CHECK: return %[[R]]
func.func @linear_vector(%x: tensor<4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> tensor<5xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<4xf32>, tensor<5x4xf32>, tensor<5xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// CHECK-LABEL: func @linear_dynamic
// CHECK: cf.assert %{{.*}}, "transformer.linear: the last dimension of the input differs from K of the weight"
// CHECK: cf.assert %{{.*}}, "transformer.linear: the bias size differs from N of the weight"
// CHECK: %[[ACC:.*]] = linalg.broadcast ins(%arg2 : tensor<?xf32>) outs(%{{.*}} : tensor<?x?xf32>) dimensions = [0]
// CHECK: linalg.matmul indexing_maps = {{.*}} ins(%arg0, %arg1 : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[ACC]] : tensor<?x?xf32>)
func.func @linear_dynamic(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A bf16 weight stays bf16: linalg.matmul's body widens each element (no
// f32 copy of the weight).
// CHECK-LABEL: func @linear_bf16
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>, %[[W:.*]]: tensor<5x4xbf16>, %[[B:.*]]: tensor<5xf32>)
// CHECK: %[[INIT:.*]] = linalg.broadcast ins(%[[B]] : tensor<5xf32>)
// CHECK: linalg.matmul indexing_maps = [{{.*}}] ins(%[[X]], %[[W]] : tensor<3x4xf32>, tensor<5x4xbf16>) outs(%[[INIT]] : tensor<3x5xf32>)
// CHECK-NOT: arith.extf
func.func @linear_bf16(%x: tensor<3x4xf32>, %w: tensor<5x4xbf16>, %b: tensor<5xf32>) -> tensor<3x5xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<3x4xf32>, tensor<5x4xbf16>, tensor<5xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func @matmul_f16
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<4x5xf16>) outs(%{{.*}} : tensor<3x5xf32>)
func.func @matmul_f16(%a: tensor<3x4xf32>, %b: tensor<4x5xf16>) -> tensor<3x5xf32> {
  %0 = transformer.matmul %a, %b : tensor<3x4xf32>, tensor<4x5xf16> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
