// RUN: transformer-opt %s --transformer-to-llvm | mlir-translate --mlir-to-llvmir | FileCheck %s

// Transformer ops mixed with upstream tensor, linalg, arith and math ops,
// as the contract requires of every pipeline: split heads with
// tensor.expand_shape, attend, merge heads, then an upstream linalg op.
// CHECK-LABEL: define {{.*}} @mixed(
// CHECK: ret
func.func @mixed(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %qkv = transformer.linear %x, %w, %b : tensor<4x16xf32>, tensor<16x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %h = tensor.expand_shape %qkv [[0], [1, 2]] output_shape [4, 2, 8] : tensor<4x16xf32> into tensor<4x2x8xf32>
  %ht = transformer.transpose %h {permutation = array<i64: 1, 0, 2>} : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
  %a = transformer.attention %ht, %ht, %ht {causal} : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %at = transformer.transpose %a {permutation = array<i64: 1, 0, 2>} : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  %m = tensor.collapse_shape %at [[0], [1, 2]] : tensor<4x2x8xf32> into tensor<4x16xf32>
  %init = tensor.empty() : tensor<4x16xf32>
  %e = linalg.exp ins(%m : tensor<4x16xf32>) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %one = arith.constant 1.0 : f32
  %s = math.sqrt %one : f32
  %c = tensor.splat %s : tensor<4x16xf32>
  %r = transformer.add %e, %c : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
