// RUN: transformer-opt %s --transformer-buffer-deallocation --split-input-file | FileCheck %s

// A function that frees nothing gets its deallocations from upstream's
// ownership-based pipeline.
// CHECK-LABEL: func.func @temporary
// CHECK:       %[[BUF:.*]] = memref.alloc()
// CHECK:       memref.dealloc %[[BUF]]
// CHECK:       return
func.func @temporary(%x: memref<4xf32>) {
  %buf = memref.alloc() : memref<4xf32>
  memref.copy %x, %buf : memref<4xf32> to memref<4xf32>
  memref.copy %buf, %x : memref<4xf32> to memref<4xf32>
  return
}

// -----

// One that frees memory itself is left as written (the ownership-based
// pass would reject its memref.dealloc), visibility included; a function
// returning its allocation still passes it to the caller.
// CHECK-LABEL: func.func @alloc_filled
// CHECK:       %[[BUF:.*]] = memref.alloc
// CHECK-NOT:   memref.dealloc
// CHECK:       return %[[BUF]]
func.func @alloc_filled(%value: f32) -> memref<4xf32> {
  %buf = memref.alloc() : memref<4xf32>
  linalg.fill ins(%value : f32) outs(%buf : memref<4xf32>)
  return %buf : memref<4xf32>
}
// CHECK-LABEL: func.func @main
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant
// CHECK-NEXT:  %[[A:.*]] = call @alloc_filled(%[[ONE]])
// CHECK-NEXT:  %[[B:.*]] = memref.alloc()
// CHECK-NEXT:  memref.copy %[[A]], %[[B]]
// CHECK-NEXT:  memref.dealloc %[[A]]
// CHECK-NEXT:  memref.dealloc %[[B]]
// CHECK-NEXT:  return
func.func @main() {
  %one = arith.constant 1.0 : f32
  %a = call @alloc_filled(%one) : (f32) -> memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}
