// RUN: transformer-opt %s --lower-transformer -split-input-file | FileCheck %s

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

// CHECK-LABEL: func @mul_div
// CHECK: arith.mulf
// CHECK: arith.divf
func.func @mul_div(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.mul %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = transformer.div %0, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Dynamic dims do not broadcast: they must match, which is checked.
// CHECK-LABEL: func @add_dynamic
// CHECK: cf.assert %{{.*}}, "transformer.add: operand 1: dimension 0 does not match the result (dynamic dimensions do not broadcast)"
// CHECK: linalg.generic
func.func @add_dynamic(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = transformer.add %a, %b : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func @scale
// CHECK: linalg.generic
// CHECK: %[[F:.*]] = arith.constant 1.250000e-01 : f32
// CHECK: arith.mulf %{{.*}}, %[[F]] : f32
func.func @scale(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = transformer.scale %x {factor = 0.125 : f32} : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @relu
// CHECK: linalg.generic
// CHECK: arith.maximumf
func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.relu %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @gelu_tanh
// CHECK: linalg.generic
// CHECK: arith.constant 4.471500e-02
// CHECK: math.tanh
// CHECK-NOT: math.erf
func.func @gelu_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.gelu %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @gelu_erf
// CHECK: linalg.generic
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
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: arith.maximumf
func.func @dynamic_ops(%a: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.sub %a, %b : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  %1 = transformer.mul %0, %b : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  %2 = transformer.div %1, %b : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  %3 = transformer.relu %2 : tensor<?x?xf32> -> tensor<?x?xf32>
  return %3 : tensor<?x?xf32>
}
