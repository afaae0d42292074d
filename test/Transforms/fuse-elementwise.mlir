// RUN: transformer-opt %s --lower-transformer --transformer-fuse-elementwise -split-input-file | FileCheck %s
// RUN: transformer-opt %s --lower-transformer --transformer-fuse-elementwise=max-body-ops=3 -split-input-file | FileCheck %s --check-prefix=BOUNDED

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

// -----

// A producer is not fused into a consumer that would evaluate it more than
// once per element: tanh(x) read by a matmul would be computed N times per
// element of x (this made -O2 code slower than -O0). An element-wise
// consumer of the matmul still takes its producer's body.
// CHECK-LABEL: func @no_recompute
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: math.tanh
// CHECK: %[[MM:.*]] = linalg.generic {{.*}}"reduction"]} ins(%[[T]], %{{.*}} :
// CHECK-NOT: math.tanh
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[MM]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @no_recompute(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %acc: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.tanh %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %mm = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%t, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %mm : tensor<4x16xf32>
}
