// RUN: transformer-opt %s --lower-transformer --linalg-generalize-named-ops --transformer-fuse-elementwise -split-input-file | FileCheck %s
// RUN: transformer-opt %s --lower-transformer --linalg-generalize-named-ops --transformer-fuse-elementwise=max-body-ops=4 -split-input-file | FileCheck %s --check-prefix=BOUND4
// RUN: transformer-opt %s --lower-transformer --linalg-generalize-named-ops --transformer-fuse-elementwise=max-body-ops=3 -split-input-file | FileCheck %s --check-prefix=BOUND3
// Without the pass every op stays its own generic (what the checks below
// must tell apart from a fused chain).
// RUN: transformer-opt %s --lower-transformer --linalg-generalize-named-ops -split-input-file | FileCheck %s --check-prefix=NOFUSE

// relu(scale(x + b)) becomes one generic that reads x and b (with b
// broadcast along rows) and computes add, mul, max in order on one value.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[IX:.*]]: f32, %[[IB:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[IX]], %[[IB]] : f32
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %[[SUM]], %[[TWO]] : f32
// CHECK-NEXT: %[[RELU:.*]] = arith.maximumf %[[SCALED]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[RELU]] : f32
// CHECK-NEXT: } -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x8xf32>
// With a bound of 4 body ops (the yield counts), add+yield and mul+yield
// would make 4 but the max would make 5: the chain fuses into two generics,
// the add alone and then mul+max.
// BOUND4-LABEL: func @chain
// BOUND4: %[[A:.*]] = linalg.generic
// BOUND4-NEXT: ^bb0
// BOUND4-NEXT: arith.addf
// BOUND4-NEXT: linalg.yield
// BOUND4: %[[M:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4x8xf32>)
// BOUND4-NEXT: ^bb0
// BOUND4-NEXT: arith.mulf
// BOUND4-NEXT: arith.maximumf
// BOUND4-NEXT: linalg.yield
// BOUND4-NOT: linalg.generic
// BOUND4: return %[[M]]
// With a bound of 3 nothing fuses: each pair has 4 body ops.
// BOUND3-LABEL: func @chain
// BOUND3-COUNT-3: linalg.generic
// BOUND3-NOT: linalg.generic
// BOUND3: return
// NOFUSE-LABEL: func @chain
// NOFUSE-COUNT-3: linalg.generic
// NOFUSE-NOT: linalg.generic
// NOFUSE: return
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = transformer.add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = transformer.scale %0 {factor = 2.0 : f32} : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = transformer.relu %1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A producer with two users is not fused (it would be computed twice): the
// scale stays one generic that both the relu and the gelu read.
// CHECK-LABEL: func @shared_producer
// CHECK: %[[S:.*]] = linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: linalg.yield
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<4xf32>)
// CHECK: arith.maximumf
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<4xf32>)
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]], %[[G]]
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
