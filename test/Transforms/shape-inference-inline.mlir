// RUN: transformer-opt %s --inline --symbol-dce --transformer-shape-inference --canonicalize | FileCheck %s

// With --inline first, shapes flow from the caller's arguments through the
// callee's body (through the tensor.casts that inlining leaves).
// CHECK-LABEL: func @main
// CHECK-SAME: -> tensor<3x5xf32>
// CHECK: transformer.matmul {{.*}} -> tensor<3x5xf32>
// CHECK: transformer.gelu {{.*}} : tensor<3x5xf32> -> tensor<3x5xf32>
// CHECK-NOT: func.call
func.func private @mlp(%x: tensor<*xf32>, %w: tensor<*xf32>) -> tensor<*xf32> {
  %0 = transformer.matmul %x, %w : tensor<*xf32>, tensor<*xf32> -> tensor<*xf32>
  %1 = transformer.gelu %0 : tensor<*xf32> -> tensor<*xf32>
  return %1 : tensor<*xf32>
}
func.func @main(%x: tensor<3x4xf32>, %w: tensor<4x5xf32>) -> tensor<*xf32> {
  %xc = tensor.cast %x : tensor<3x4xf32> to tensor<*xf32>
  %wc = tensor.cast %w : tensor<4x5xf32> to tensor<*xf32>
  %0 = func.call @mlp(%xc, %wc) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
