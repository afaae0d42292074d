// RUN: transformer-opt %s --transformer-stack-task-temporaries --split-input-file --allow-unregistered-dialect | FileCheck %s

// A task's small static temporary goes on the stack, in an alloca_scope
// that holds the task's ops; its deallocation goes away.
// CHECK-LABEL: func.func @small
// CHECK:         scf.forall
// CHECK-NEXT:      memref.alloca_scope {
// CHECK-NEXT:        %[[T:.*]] = memref.alloca() {alignment = 64 : i64} : memref<32x128xf32>
// CHECK:             linalg.copy ins({{.*}}) outs(%[[T]] : memref<32x128xf32>)
// CHECK-NOT:         memref.dealloc
// CHECK:           }
// CHECK-NEXT:    }
func.func @small(%in: memref<64x128xf32>, %out: memref<64x128xf32>) {
  scf.forall (%i) in (2) {
    %t = memref.alloc() {alignment = 64 : i64} : memref<32x128xf32>
    %row = affine.apply affine_map<(d0) -> (d0 * 32)>(%i)
    %src = memref.subview %in[%row, 0] [32, 128] [1, 1] : memref<64x128xf32> to memref<32x128xf32, strided<[128, 1], offset: ?>>
    %dst = memref.subview %out[%row, 0] [32, 128] [1, 1] : memref<64x128xf32> to memref<32x128xf32, strided<[128, 1], offset: ?>>
    linalg.copy ins(%src : memref<32x128xf32, strided<[128, 1], offset: ?>>) outs(%t : memref<32x128xf32>)
    linalg.copy ins(%t : memref<32x128xf32>) outs(%dst : memref<32x128xf32, strided<[128, 1], offset: ?>>)
    memref.dealloc %t : memref<32x128xf32>
  }
  return
}

// -----

// More than 64 KiB, or a dynamic size, stays on the heap; so does a buffer
// made outside the forall.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     memref.alloca
// CHECK-NOT:     memref.alloca_scope
// CHECK:         memref.alloc() : memref<4xf32>
// CHECK:         scf.forall
// CHECK:           memref.alloc() : memref<256x128xf32>
// CHECK:           memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:           memref.dealloc
// CHECK:           memref.dealloc
func.func @left_alone(%n: index, %out: memref<4xf32>) {
  %shared = memref.alloc() : memref<4xf32>
  scf.forall (%i) in (2) {
    %big = memref.alloc() : memref<256x128xf32>
    %dyn = memref.alloc(%n) : memref<?xf32>
    "test.use"(%big, %dyn, %shared) : (memref<256x128xf32>, memref<?xf32>, memref<4xf32>) -> ()
    memref.dealloc %big : memref<256x128xf32>
    memref.dealloc %dyn : memref<?xf32>
  }
  memref.dealloc %shared : memref<4xf32>
  return
}
