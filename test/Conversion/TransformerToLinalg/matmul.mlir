// RUN: transformer-opt %s --lower-transformer -split-input-file | FileCheck %s
// RUN: transformer-opt %s --convert-transformer-to-linalg -split-input-file | FileCheck %s

// CHECK-DAG: #[[$LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @matmul_batched
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x4x5xf32>)
// CHECK-NOT: cf.assert
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x3x5xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%[[INIT]] : tensor<2x3x5xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: transformer.
func.func @matmul_batched(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = transformer.matmul %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// A rank-2 rhs is broadcast over the batch; transpose_b reads it as NxK.
// CHECK-DAG: #[[$RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func @matmul_broadcast_transpose_b
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$RHS]], #{{.*}}]
func.func @matmul_broadcast_transpose_b(%a: tensor<2x3x4xf32>, %b: tensor<5x4xf32>) -> tensor<2x3x5xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<2x3x4xf32>, tensor<5x4xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Dynamic inner and batch dims are checked at run time.
// CHECK-LABEL: func @matmul_dynamic
// CHECK-DAG: %[[K_A:.*]] = tensor.dim %arg0, %c2
// CHECK-DAG: %[[K_B:.*]] = tensor.dim %arg1, %c1
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[K_A]], %[[K_B]] : index
// CHECK: %[[NE:.*]] = arith.xori %[[EQ]], %true
// CHECK: scf.if %[[NE]] {
// CHECK: cf.assert %false, "transformer.matmul: the inner dimensions of lhs and rhs differ"
// CHECK-NEXT: } {transformer.runtime_check}
// CHECK: cf.assert %false, "transformer.matmul: batch dimension 0 of lhs and rhs differ"
// CHECK: tensor.empty(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<?x?x?xf32>
// CHECK: linalg.generic
func.func @matmul_dynamic(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = transformer.matmul %a, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
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

// linear: the bias is broadcast into the accumulator, then x @ w^T.
// CHECK-DAG: #[[$BIAS:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func @linear
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[$BIAS]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg2 : tensor<5xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$X]], #[[$W]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x3x4xf32>, tensor<5x4xf32>) outs(%[[ACC]] : tensor<2x3x5xf32>)
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// CHECK-LABEL: func @linear_dynamic
// CHECK: cf.assert %{{.*}}, "transformer.linear: the last dimension of the input differs from K of the weight"
// CHECK: cf.assert %{{.*}}, "transformer.linear: the bias size differs from N of the weight"
func.func @linear_dynamic(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
