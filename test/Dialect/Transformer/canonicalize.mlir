// RUN: transformer-opt %s -pass-pipeline='builtin.module(func.func(canonicalize{test-convergence}))' -split-input-file | FileCheck %s

// CHECK-LABEL: func @transpose_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = transformer.transpose %x : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %1 = transformer.transpose %0 : tensor<2x4x3xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// Permutations compose: (1,0,2) then (0,2,1) is one transpose by (1,2,0).
// CHECK-LABEL: func @transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = transformer.transpose %[[X]] {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = transformer.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = transformer.transpose %0 : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// A permutation and its inverse cancel.
// CHECK-LABEL: func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = transformer.transpose %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = transformer.transpose %0 {permutation = array<i64: 2, 0, 1>} : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = transformer.transpose %x {permutation = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Scales that multiply to 1.0 vanish.
// CHECK-LABEL: func @scale_scale_to_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @scale_scale_to_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.scale %x {factor = 2.0 : f32} : tensor<4xf32> -> tensor<4xf32>
  %1 = transformer.scale %0 {factor = 0.5 : f32} : tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @scale_scale
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[S:.*]] = transformer.scale %[[X]] {factor = 7.500000e-01 : f32}
// CHECK-NEXT: return %[[S]]
func.func @scale_scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.scale %x {factor = 1.5 : f32} : tensor<4xf32> -> tensor<4xf32>
  %1 = transformer.scale %0 {factor = 0.5 : f32} : tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @scale_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @scale_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.scale %x {factor = 1.0 : f32} : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Not folded: the result type differs from the input type.
// CHECK-LABEL: func @scale_one_type_change
// CHECK: transformer.scale
func.func @scale_one_type_change(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = transformer.scale %x {factor = 1.0 : f32} : tensor<4xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @add_zero(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %0 = transformer.add %x, %zero : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  %1 = transformer.add %zero, %x : tensor<4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Not folded: adding the zeros broadcasts x to a larger shape.
// CHECK-LABEL: func @add_zero_broadcasting
// CHECK: transformer.add
func.func @add_zero_broadcasting(%x: tensor<4xf32>) -> tensor<3x4xf32> {
  %zero = arith.constant dense<0.0> : tensor<3x4xf32>
  %0 = transformer.add %x, %zero : tensor<4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Not folded: the constant is not all zeros.
// CHECK-LABEL: func @add_nonzero
// CHECK: transformer.add
func.func @add_nonzero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[0.0, 1.0, 0.0, 0.0]> : tensor<4xf32>
  %0 = transformer.add %x, %c : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @mul_one(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %0 = transformer.mul %x, %one : tensor<2x4xf32>, tensor<1xf32> -> tensor<2x4xf32>
  %1 = transformer.mul %one, %x : tensor<1xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Not folded: x * 2.
// CHECK-LABEL: func @mul_two
// CHECK: transformer.mul
func.func @mul_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = arith.constant dense<2.0> : tensor<4xf32>
  %0 = transformer.mul %x, %two : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @matmul_transpose_b
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x5x4xf32>)
// CHECK-NEXT: %[[M:.*]] = transformer.matmul %[[A]], %[[B]] {transpose_b} : tensor<2x3x4xf32>, tensor<2x5x4xf32> -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_transpose_b(%a: tensor<2x3x4xf32>, %b: tensor<2x5x4xf32>) -> tensor<2x3x5xf32> {
  %bt = transformer.transpose %b : tensor<2x5x4xf32> -> tensor<2x4x5xf32>
  %0 = transformer.matmul %a, %bt : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// An explicit permutation that swaps the last two dims counts too.
// CHECK-LABEL: func @matmul_transpose_b_explicit
// CHECK: transformer.matmul %{{.*}}, %{{.*}} {transpose_b}
// CHECK-NOT: transformer.transpose
func.func @matmul_transpose_b_explicit(%a: tensor<3x4xf32>, %b: tensor<5x4xf32>) -> tensor<3x5xf32> {
  %bt = transformer.transpose %b {permutation = array<i64: 1, 0>} : tensor<5x4xf32> -> tensor<4x5xf32>
  %0 = transformer.matmul %a, %bt : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Not rewritten: the transpose permutes a batch dimension.
// CHECK-LABEL: func @matmul_other_transpose
// CHECK: transformer.transpose
// CHECK: transformer.matmul
// CHECK-NOT: transpose_b
func.func @matmul_other_transpose(%a: tensor<2x3x2xf32>, %b: tensor<2x2x4xf32>) -> tensor<2x3x4xf32> {
  %bt = transformer.transpose %b {permutation = array<i64: 1, 0, 2>} : tensor<2x2x4xf32> -> tensor<2x2x4xf32>
  %0 = transformer.matmul %a, %bt : tensor<2x3x2xf32>, tensor<2x2x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Not rewritten: the transpose swaps the last two dims but also permutes the
// batch dims.
// CHECK-LABEL: func @matmul_swap_and_batch_transpose
// CHECK-SAME: (%[[A:.*]]: tensor<3x2x6x4xf32>, %[[B:.*]]: tensor<2x3x5x4xf32>)
// CHECK-NEXT: %[[T:.*]] = transformer.transpose %[[B]] {permutation = array<i64: 1, 0, 3, 2>}
// CHECK-NEXT: %[[M:.*]] = transformer.matmul %[[A]], %[[T]] : tensor<3x2x6x4xf32>, tensor<3x2x4x5xf32> -> tensor<3x2x6x5xf32>
// CHECK-NEXT: return %[[M]]
func.func @matmul_swap_and_batch_transpose(%a: tensor<3x2x6x4xf32>, %b: tensor<2x3x5x4xf32>) -> tensor<3x2x6x5xf32> {
  %bt = transformer.transpose %b {permutation = array<i64: 1, 0, 3, 2>} : tensor<2x3x5x4xf32> -> tensor<3x2x4x5xf32>
  %0 = transformer.matmul %a, %bt : tensor<3x2x6x4xf32>, tensor<3x2x4x5xf32> -> tensor<3x2x6x5xf32>
  return %0 : tensor<3x2x6x5xf32>
}

// -----

// Not rewritten: the matmul already has transpose_b.
// CHECK-LABEL: func @matmul_already_transposed
// CHECK: transformer.transpose
// CHECK: transformer.matmul %{{.*}}, %{{.*}} {transpose_b}
func.func @matmul_already_transposed(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %bt = transformer.transpose %b : tensor<4x5xf32> -> tensor<5x4xf32>
  %0 = transformer.matmul %a, %bt {transpose_b} : tensor<3x4xf32>, tensor<5x4xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func @masked_softmax_zero_mask
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[S:.*]] = transformer.softmax %[[X]] : tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[S]]
func.func @masked_softmax_zero_mask(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %0 = transformer.masked_softmax %x, %zero : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Not rewritten: a causal mask is not all zeros.
// CHECK-LABEL: func @masked_softmax_causal
// CHECK: transformer.masked_softmax
func.func @masked_softmax_causal(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = transformer.create_causal_mask : tensor<4x4xf32>
  %0 = transformer.masked_softmax %x, %m : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
