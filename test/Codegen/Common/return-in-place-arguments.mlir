// RUN: transformer-opt %s --transformer-return-in-place-arguments --split-input-file | FileCheck %s

// The clone of an in-place argument that is only returned: the argument
// itself is returned.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME:    (%[[ARG:.*]]: memref<4xf32> {transformer.in_place})
// CHECK-NOT:     bufferization.clone
// CHECK:         return %[[ARG]] : memref<4xf32>
func.func @in_place(%arg: memref<4xf32> {transformer.in_place}) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %arg[%c0] : memref<4xf32>
  %0 = bufferization.clone %arg : memref<4xf32> to memref<4xf32>
  return %0 : memref<4xf32>
}

// -----

// Without the attribute, the caller owns a copy.
// CHECK-LABEL: func.func @not_marked
// CHECK:         %[[C:.*]] = bufferization.clone
// CHECK:         return %[[C]]
func.func @not_marked(%arg: memref<4xf32>) -> memref<4xf32> {
  %0 = bufferization.clone %arg : memref<4xf32> to memref<4xf32>
  return %0 : memref<4xf32>
}

// -----

// A clone that is also written is a copy the program needs.
// CHECK-LABEL: func.func @clone_written
// CHECK:         %[[C:.*]] = bufferization.clone
// CHECK:         memref.store %{{.*}}, %[[C]]
// CHECK:         return %[[C]]
func.func @clone_written(%arg: memref<4xf32> {transformer.in_place}) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %0 = bufferization.clone %arg : memref<4xf32> to memref<4xf32>
  memref.store %one, %0[%c0] : memref<4xf32>
  return %0 : memref<4xf32>
}
