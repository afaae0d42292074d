// RUN: transformer-opt %s --lower-transformer -split-input-file | FileCheck %s

// softmax is upstream's linalg.softmax over the last dim (same semantics:
// no zero-row guard; the pipeline decomposes it).
// CHECK-LABEL: func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x8xf32>
// CHECK: %[[S:.*]] = linalg.softmax dimension(1) ins(%[[X]] : tensor<2x8xf32>) outs(%[[E]] : tensor<2x8xf32>)
// CHECK: return %[[S]]
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = transformer.softmax %x : tensor<2x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @softmax_dynamic
// CHECK-DAG: %[[D0:.*]] = tensor.dim %arg0, %c0
// CHECK-DAG: %[[D1:.*]] = tensor.dim %arg0, %c1
// CHECK: %[[E:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?xf32>
// CHECK: linalg.softmax dimension(1) ins(%arg0 : tensor<?x?xf32>) outs(%[[E]] : tensor<?x?xf32>)
func.func @softmax_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.softmax %x : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// masked_softmax: add the mask (broadcast: a linalg.generic), then a
// softmax whose fully masked rows are 0, which linalg.softmax does not give:
// linalg.reduce for the row max and sum, generics for the row-broadcast
// steps.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @masked_softmax
// CHECK: %[[Z:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<2x4x4xf32>, tensor<4x4xf32>)
// CHECK: arith.addf
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX0:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: %[[MAX:.*]] = linalg.reduce ins(%[[Z]] : tensor<2x4x4xf32>) outs(%[[MAX0]] : tensor<2x4xf32>) dimensions = [2]
// CHECK: arith.maximumf
// CHECK: %[[EXP:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], {{.*}} ins(%[[Z]], %[[MAX]] : tensor<2x4x4xf32>, tensor<2x4xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.cmpf oeq
// CHECK: arith.select
// CHECK: %[[SUM:.*]] = linalg.reduce ins(%[[EXP]] : tensor<2x4x4xf32>) outs(%{{.*}} : tensor<2x4xf32>) dimensions = [2]
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<2x4x4xf32>, tensor<2x4xf32>)
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

// layer_norm: mean (linalg.reduce, then linalg.map dividing by D), biased
// variance, normalise with gamma and beta.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @layer_norm
// CHECK-DAG: %[[D:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-DAG: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[TOTAL:.*]] = linalg.reduce ins(%arg0 : tensor<2x8xf32>) outs(%{{.*}} : tensor<2xf32>) dimensions = [1]
// CHECK: arith.addf
// CHECK: %[[MEAN:.*]] = linalg.map ins(%[[TOTAL]] : tensor<2xf32>) outs(%{{.*}} : tensor<2xf32>)
// CHECK: arith.divf %{{.*}}, %[[D]]
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%arg0, %[[MEAN]] : tensor<2x8xf32>, tensor<2xf32>)
// CHECK: %[[VAR:.*]] = linalg.map ins(%[[SQ]] : tensor<2xf32>)
// CHECK: arith.divf %{{.*}}, %[[D]]
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ROW]], #[[$COL]], #[[$COL]], #[[$ID]]], {{.*}} ins(%arg0, %[[MEAN]], %[[VAR]], %arg1, %arg2 : tensor<2x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[M:.*]]: f32, %[[V:.*]]: f32, %[[G:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[C:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK-NEXT: %[[VE:.*]] = arith.addf %[[V]], %[[EPS]] : f32
// CHECK-NEXT: %[[R:.*]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.mulf %[[C]], %[[R]] : f32
// CHECK-NEXT: %[[NG:.*]] = arith.mulf %[[N]], %[[G]] : f32
// CHECK-NEXT: %[[OUT:.*]] = arith.addf %[[NG]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[OUT]] : f32
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

// -----

// rms_norm: one reduction (the sum of squares), then x * rsqrt(sum / D +
// eps) * gamma; no mean, no beta.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @rms_norm
// CHECK-DAG: %[[D:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-DAG: %[[EPS:.*]] = arith.constant 9.99999997E-7 : f32
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2x8xf32>)
// CHECK-NEXT: ^bb0(%[[X0:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[XX:.*]] = arith.mulf %[[X0]], %[[X0]] : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[XX]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$COL]], #[[$ID]]], {{.*}} ins(%arg0, %[[SQ]], %arg1 : tensor<2x8xf32>, tensor<2xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[G:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[MS:.*]] = arith.divf %[[S]], %[[D]] : f32
// CHECK-NEXT: %[[ME:.*]] = arith.addf %[[MS]], %[[EPS]] : f32
// CHECK-NEXT: %[[R:.*]] = math.rsqrt %[[ME]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.mulf %[[X]], %[[R]] : f32
// CHECK-NEXT: %[[OUT:.*]] = arith.mulf %[[N]], %[[G]] : f32
// CHECK-NEXT: linalg.yield %[[OUT]] : f32
func.func @rms_norm(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = transformer.rms_norm %x, %g : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @rms_norm_dynamic
// CHECK: cf.assert %{{.*}}, "transformer.rms_norm: the size of gamma differs from the last dimension of the input"
// CHECK: arith.sitofp
func.func @rms_norm_dynamic(%x: tensor<?x?xf32>, %g: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.rms_norm %x, %g {epsilon = 1.0e-5 : f32} : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
