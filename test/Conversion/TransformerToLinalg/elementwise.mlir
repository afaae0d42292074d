// RUN: transformer-opt %s --lower-transformer -split-input-file | FileCheck %s

// Broadcasting stays a linalg.generic: no named op reads a stretched operand
// without materialising it.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @add_broadcast
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = transformer.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A static 1 broadcasts through a constant index.
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func @sub_unit_dim
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$COL]], #{{.*}}]
// CHECK: arith.subf
func.func @sub_unit_dim(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %0 = transformer.sub %a, %b : tensor<2x3xf32>, tensor<2x1xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Operands of the result's shape: the named linalg.mul and linalg.div.
// CHECK-LABEL: func @mul_div
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[M:.*]] = linalg.mul ins(%[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>) outs(%[[E0]] : tensor<4xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[D:.*]] = linalg.div ins(%[[M]], %[[B]] : tensor<4xf32>, tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
// CHECK: return %[[D]]
func.func @mul_div(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.mul %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = transformer.div %0, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Dynamic dims do not broadcast: they must match, which is checked.
// CHECK-LABEL: func @add_dynamic
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: cf.assert %{{.*}}, "transformer.add: operand 1: dimension 0 does not match the result (dynamic dimensions do not broadcast)"
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: linalg.add ins(%arg0, %arg1 : tensor<?xf32>, tensor<?xf32>) outs(%[[E]] : tensor<?xf32>)
func.func @add_dynamic(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = transformer.add %a, %b : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Unary ops are linalg.map ops.
// CHECK-LABEL: func @scale
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CHECK: linalg.map ins(%arg0 : tensor<?x4xf32>) outs(%[[E]] : tensor<?x4xf32>)
// CHECK-NEXT: (%[[IN:.*]]: f32, %{{.*}}: f32) {
// CHECK-NEXT: %[[F:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[IN]], %[[F]] : f32
// CHECK-NEXT: linalg.yield %[[P]] : f32
func.func @scale(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = transformer.scale %x {factor = 0.125 : f32} : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @relu
// CHECK: linalg.map ins(%arg0 : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT: (%[[IN:.*]]: f32, %{{.*}}: f32) {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[IN]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.relu %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @gelu_tanh
// CHECK: linalg.map ins(%arg0 : tensor<4xf32>)
// CHECK: arith.constant 4.471500e-02
// CHECK: math.tanh
// CHECK-NOT: math.erf
func.func @gelu_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.gelu %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @gelu_erf
// CHECK: linalg.map ins(%arg0 : tensor<?xf32>)
// CHECK: math.erf
// CHECK-NOT: math.tanh
func.func @gelu_erf(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = transformer.gelu %x {approximate = "none"} : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Every element-wise op with dynamic shapes: sizes come from tensor.dim and
// mismatches are checked.
// CHECK-LABEL: func @dynamic_ops
// CHECK: cf.assert %{{.*}}, "transformer.sub: operand 1: dimension 0
// CHECK: arith.subf
// CHECK: cf.assert %{{.*}}, "transformer.mul: operand 1: dimension 0
// CHECK: arith.mulf
// CHECK: cf.assert %{{.*}}, "transformer.div: operand 1: dimension 0
// CHECK: arith.divf
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: linalg.map ins(%{{.*}} : tensor<?x?xf32>) outs(%[[E]] : tensor<?x?xf32>)
// CHECK: arith.maximumf
func.func @dynamic_ops(%a: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.sub %a, %b : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  %1 = transformer.mul %0, %b : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  %2 = transformer.div %1, %b : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  %3 = transformer.relu %2 : tensor<?x?xf32> -> tensor<?x?xf32>
  return %3 : tensor<?x?xf32>
}

// -----

// silu: x / (1 + exp(-x)).
// CHECK-LABEL: func @silu
// CHECK: linalg.map ins(%arg0 : tensor<?x4xf32>)
// CHECK-NEXT: (%[[X:.*]]: f32, %{{.*}}: f32) {
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[DEN:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.divf %[[X]], %[[DEN]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @silu(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = transformer.silu %x : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
