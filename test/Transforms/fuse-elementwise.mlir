// RUN: transformer-opt %s --lower-transformer --linalg-generalize-named-ops --transformer-fuse-elementwise -split-input-file | FileCheck %s
// RUN: transformer-opt %s --lower-transformer --linalg-generalize-named-ops --transformer-fuse-elementwise=max-body-ops=3 -split-input-file | FileCheck %s --check-prefix=BOUNDED

// relu(scale(x + b)) becomes one generic.
// CHECK-LABEL: func @chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: arith.maximumf
// With a bound of 3 body ops, the last op is not fused into the pair.
// BOUNDED-LABEL: func @chain
// BOUNDED-COUNT-2: linalg.generic
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = transformer.add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = transformer.scale %0 {factor = 2.0 : f32} : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = transformer.relu %1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A producer with two users is not fused (it would be computed twice).
// CHECK-LABEL: func @shared_producer
// CHECK-COUNT-3: linalg.generic
func.func @shared_producer(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = transformer.scale %x {factor = 2.0 : f32} : tensor<4xf32> -> tensor<4xf32>
  %1 = transformer.relu %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = transformer.gelu %0 : tensor<4xf32> -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}
