// RUN: transformer-opt %s --transformer-reshape-multi-dynamic-expands --split-input-file | FileCheck %s

// A group of two dynamic sizes: tensor.reshape with the output sizes.
// CHECK-LABEL: func.func @two_dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<?x8xf32>, %[[B:.*]]: index, %[[S:.*]]: index)
// CHECK:         %[[C8:.*]] = arith.constant 8 : index
// CHECK:         %[[SHAPE:.*]] = tensor.from_elements %[[B]], %[[S]], %[[C8]] : tensor<3xindex>
// CHECK:         %[[R:.*]] = tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<?x8xf32>, tensor<3xindex>) -> tensor<?x?x8xf32>
// CHECK:         return %[[R]]
// CHECK-NOT:     tensor.expand_shape
func.func @two_dynamic(%x: tensor<?x8xf32>, %b: index, %s: index) -> tensor<?x?x8xf32> {
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [%b, %s, 8] : tensor<?x8xf32> into tensor<?x?x8xf32>
  return %e : tensor<?x?x8xf32>
}

// -----

// At most one dynamic size per group: left alone.
// CHECK-LABEL: func.func @one_dynamic
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [%{{.*}}, 4, 8]
// CHECK-NOT:     tensor.reshape
func.func @one_dynamic(%x: tensor<?x8xf32>, %b: index) -> tensor<?x4x8xf32> {
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [%b, 4, 8] : tensor<?x8xf32> into tensor<?x4x8xf32>
  return %e : tensor<?x4x8xf32>
}
