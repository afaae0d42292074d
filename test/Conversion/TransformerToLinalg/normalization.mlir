// RUN: transformer-opt %s --lower-transformer -split-input-file | FileCheck %s

// softmax: max, exp(x - max), sum, divide; no zero-row guard.
// CHECK-LABEL: func @softmax
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: arith.subf
// CHECK: math.exp
// CHECK-NOT: arith.select
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: arith.divf
// CHECK-NOT: arith.select
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = transformer.softmax %x : tensor<2x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @softmax_dynamic
// CHECK: tensor.dim
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK: math.exp
func.func @softmax_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.softmax %x : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// masked_softmax: add the mask, then a softmax whose fully masked rows are 0.
// CHECK-LABEL: func @masked_softmax
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<2x4x4xf32>, tensor<4x4xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.cmpf oeq
// CHECK: arith.select
// CHECK: arith.divf
// CHECK: arith.cmpf oeq
// CHECK: arith.select
func.func @masked_softmax(%x: tensor<2x4x4xf32>, %m: tensor<4x4xf32>) -> tensor<2x4x4xf32> {
  %0 = transformer.masked_softmax %x, %m : tensor<2x4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

// CHECK-LABEL: func @masked_softmax_dynamic
// CHECK: cf.assert %{{.*}}, "transformer.masked_softmax: operand 1: dimension 0 does not match the result (dynamic dimensions do not broadcast)"
func.func @masked_softmax_dynamic(%x: tensor<?x?xf32>, %m: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.masked_softmax %x, %m : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// layer_norm: mean, biased variance, normalise with gamma and beta.
// CHECK-LABEL: func @layer_norm
// CHECK-DAG: %[[D:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-DAG: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: arith.divf %{{.*}}, %[[D]]
// CHECK: arith.divf %{{.*}}, %[[D]]
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}}, %{{.*}}, %arg1, %arg2 : tensor<2x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK: arith.addf %{{.*}}, %[[EPS]]
// CHECK: math.rsqrt
func.func @layer_norm(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = transformer.layer_norm %x, %g, %b : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @layer_norm_dynamic
// CHECK: cf.assert %{{.*}}, "transformer.layer_norm: the size of gamma differs from the last dimension of the input"
// CHECK: cf.assert %{{.*}}, "transformer.layer_norm: the size of beta differs from the last dimension of the input"
// CHECK: arith.sitofp
func.func @layer_norm_dynamic(%x: tensor<?x?xf32>, %g: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.layer_norm %x, %g, %b {epsilon = 1.0e-3 : f32} : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
