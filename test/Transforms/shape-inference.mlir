// RUN: transformer-opt %s --transformer-shape-inference -split-input-file | FileCheck %s

// Unranked results are refined through a chain, and the signature follows.
// CHECK-LABEL: func @chain
// CHECK-SAME: -> tensor<2x4x6xf32>
// CHECK: transformer.matmul %{{.*}}, %{{.*}} : tensor<2x4x8xf32>, tensor<2x8x6xf32> -> tensor<2x4x6xf32>
// CHECK: transformer.scale %{{.*}} {factor = 5.000000e-01 : f32} : tensor<2x4x6xf32> -> tensor<2x4x6xf32>
// CHECK: transformer.softmax %{{.*}} : tensor<2x4x6xf32> -> tensor<2x4x6xf32>
// CHECK: return %{{.*}} : tensor<2x4x6xf32>
func.func @chain(%a: tensor<2x4x8xf32>, %b: tensor<2x8x6xf32>) -> tensor<*xf32> {
  %0 = transformer.matmul %a, %b : tensor<2x4x8xf32>, tensor<2x8x6xf32> -> tensor<*xf32>
  %1 = transformer.scale %0 {factor = 0.5 : f32} : tensor<*xf32> -> tensor<*xf32>
  %2 = transformer.softmax %1 : tensor<*xf32> -> tensor<*xf32>
  return %2 : tensor<*xf32>
}

// -----

// Dynamic dims are refined from static operands.
// CHECK-LABEL: func @dynamic
// CHECK: transformer.add %{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<4xf32> -> tensor<3x4xf32>
// CHECK: return %{{.*}} : tensor<3x4xf32>
func.func @dynamic(%a: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<?x?xf32> {
  %0 = transformer.add %a, %b : tensor<3x4xf32>, tensor<4xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Every op infers its result type.
// CHECK-LABEL: func @every_op
// CHECK: transformer.transpose {{.*}} -> tensor<2x8x4xf32>
// CHECK: transformer.transpose {{.*}} -> tensor<8x2x4xf32>
// CHECK: transformer.relu {{.*}} -> tensor<2x4x8xf32>
// CHECK: transformer.gelu {{.*}} -> tensor<2x4x8xf32>
// CHECK: transformer.sub {{.*}} -> tensor<2x4x8xf32>
// CHECK: transformer.mul {{.*}} -> tensor<2x4x8xf32>
// CHECK: transformer.div {{.*}} -> tensor<2x4x8xf32>
// CHECK: transformer.layer_norm {{.*}} -> tensor<2x4x8xf32>
// CHECK: transformer.linear {{.*}} -> tensor<2x4x3xf32>
// CHECK: transformer.embedding {{.*}} -> tensor<5x8xf32>
// CHECK: transformer.rope {{.*}} -> tensor<2x4x8xf32>
// CHECK: transformer.masked_softmax {{.*}} -> tensor<2x4x8xf32>
// CHECK: transformer.attention {{.*}} -> tensor<2x4x8xf32>
// CHECK: transformer.create_causal_mask : tensor<4x4xf32>
func.func @every_op(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %w: tensor<3x8xf32>,
                    %b: tensor<3xf32>, %ids: tensor<5xi64>, %t: tensor<10x8xf32>,
                    %m: tensor<4x8xf32>, %pos: index) {
  %0 = transformer.transpose %x : tensor<2x4x8xf32> -> tensor<*xf32>
  %1 = transformer.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<*xf32>
  %2 = transformer.relu %x : tensor<2x4x8xf32> -> tensor<*xf32>
  %3 = transformer.gelu %2 : tensor<*xf32> -> tensor<*xf32>
  %4 = transformer.sub %3, %g : tensor<*xf32>, tensor<8xf32> -> tensor<*xf32>
  %5 = transformer.mul %4, %x : tensor<*xf32>, tensor<2x4x8xf32> -> tensor<*xf32>
  %6 = transformer.div %5, %g : tensor<*xf32>, tensor<8xf32> -> tensor<*xf32>
  %7 = transformer.layer_norm %6, %g, %g : tensor<*xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<*xf32>
  %8 = transformer.linear %7, %w, %b : tensor<*xf32>, tensor<3x8xf32>, tensor<3xf32> -> tensor<*xf32>
  %9 = transformer.embedding %ids, %t : tensor<5xi64>, tensor<10x8xf32> -> tensor<*xf32>
  %10 = transformer.rope %x at %pos : tensor<2x4x8xf32> -> tensor<*xf32>
  %11 = transformer.masked_softmax %10, %m : tensor<*xf32>, tensor<4x8xf32> -> tensor<*xf32>
  %12 = transformer.attention %11, %x, %x : tensor<*xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<*xf32>
  %13 = transformer.create_causal_mask : tensor<4x4xf32>
  return
}

// -----

// A refined value that feeds an op of another dialect is cast back to the
// type that op was written against.
// CHECK-LABEL: func @foreign_user
// CHECK: %[[S:.*]] = transformer.softmax %{{.*}} : tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[S]] : tensor<2x4xf32> to tensor<?x4xf32>
// CHECK: tensor.dim %[[C]]
func.func @foreign_user(%x: tensor<2x4xf32>) -> index {
  %c0 = arith.constant 0 : index
  %0 = transformer.softmax %x : tensor<2x4xf32> -> tensor<?x4xf32>
  %d = tensor.dim %0, %c0 : tensor<?x4xf32>
  return %d : index
}

// -----

// A function that is still called keeps its signature and casts its
// results back to the declared (ranked) types; the caller is untouched.
// CHECK-LABEL: func private @callee
// CHECK-SAME: -> tensor<?xf32>
// CHECK: %[[R:.*]] = transformer.relu %{{.*}} : tensor<4xf32> -> tensor<4xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[R]] : tensor<4xf32> to tensor<?xf32>
// CHECK: return %[[C]]
// CHECK-LABEL: func @caller
// CHECK-SAME: -> tensor<?xf32>
func.func private @callee(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = transformer.relu %x : tensor<4xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = func.call @callee(%x) : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Functions in a nested module are refined too.
// CHECK-LABEL: module @inner
// CHECK: func.func @nested(%{{.*}}: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: transformer.softmax %{{.*}} : tensor<2x3xf32> -> tensor<2x3xf32>
module @inner {
  func.func @nested(%x: tensor<2x3xf32>) -> tensor<*xf32> {
    %0 = transformer.softmax %x : tensor<2x3xf32> -> tensor<*xf32>
    return %0 : tensor<*xf32>
  }
}

// -----

// A refined value used by a tensor.cast is given to it directly, with no
// cast back to the unranked type.
// CHECK-LABEL: func @cast_user
// CHECK: %[[S:.*]] = transformer.gelu %{{.*}} : tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT: tensor.cast %[[S]] : tensor<3xf32> to tensor<?xf32>
func.func @cast_user(%x: tensor<3xf32>) -> tensor<?xf32> {
  %0 = transformer.gelu %x : tensor<3xf32> -> tensor<*xf32>
  %1 = tensor.cast %0 : tensor<*xf32> to tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// A tensor.cast that makes a type more precise is kept: inference starts
// from its static result, not from the dynamic source.
// CHECK-LABEL: func @refining_cast_kept
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.cast %[[X]] : tensor<?x4xf32> to tensor<2x4xf32>
// CHECK-NEXT: %[[S:.*]] = transformer.softmax %[[C]] : tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[S]] : tensor<2x4xf32>
func.func @refining_cast_kept(%x: tensor<?x4xf32>) -> tensor<*xf32> {
  %c = tensor.cast %x : tensor<?x4xf32> to tensor<2x4xf32>
  %0 = transformer.softmax %c : tensor<2x4xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Static dims of the other operands pin the dynamic dims of the input: the
// mask's (not 1) dims, gamma's size, the key's and value's batch dims.
// CHECK-LABEL: func @dims_from_other_operands
// CHECK: transformer.masked_softmax %{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<4x6xf32> -> tensor<4x6xf32>
// CHECK: transformer.masked_softmax %{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<1x6xf32> -> tensor<?x6xf32>
// CHECK: transformer.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x?xf32>, tensor<8xf32>, tensor<?xf32> -> tensor<2x8xf32>
// CHECK: transformer.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x?xf32>, tensor<?xf32>, tensor<8xf32> -> tensor<2x8xf32>
// CHECK: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4x8xf32>, tensor<2x6x8xf32>, tensor<?x6x3xf32> -> tensor<2x4x3xf32>
// CHECK: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4x8xf32>, tensor<?x6x8xf32>, tensor<5x6x3xf32> -> tensor<5x4x3xf32>
func.func @dims_from_other_operands(%x: tensor<?x?xf32>, %m: tensor<4x6xf32>, %m1: tensor<1x6xf32>,
                                    %y: tensor<2x?xf32>, %g: tensor<8xf32>, %gd: tensor<?xf32>,
                                    %q: tensor<?x4x8xf32>, %k: tensor<2x6x8xf32>, %kd: tensor<?x6x8xf32>,
                                    %v: tensor<?x6x3xf32>, %v5: tensor<5x6x3xf32>) {
  %0 = transformer.masked_softmax %x, %m : tensor<?x?xf32>, tensor<4x6xf32> -> tensor<*xf32>
  %1 = transformer.masked_softmax %x, %m1 : tensor<?x?xf32>, tensor<1x6xf32> -> tensor<*xf32>
  %2 = transformer.layer_norm %y, %g, %gd : tensor<2x?xf32>, tensor<8xf32>, tensor<?xf32> -> tensor<*xf32>
  %3 = transformer.layer_norm %y, %gd, %g : tensor<2x?xf32>, tensor<?xf32>, tensor<8xf32> -> tensor<*xf32>
  %4 = transformer.attention %q, %k, %v : tensor<?x4x8xf32>, tensor<2x6x8xf32>, tensor<?x6x3xf32> -> tensor<*xf32>
  %5 = transformer.attention %q, %kd, %v5 : tensor<?x4x8xf32>, tensor<?x6x8xf32>, tensor<5x6x3xf32> -> tensor<*xf32>
  return
}
