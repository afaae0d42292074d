// The KV cache is written in place: after one-shot bufferization @generate
// allocates the cache once (prefill) and every decode step of its loop
// copies one position of keys and values into a subview of the loop-carried
// cache buffer, which it yields unchanged: no cache-sized allocation or copy
// per step.
// RUN: transformer-translate --import-hf-config %S/Inputs/gpt2-tiny.json --max-seq=32 \
// RUN:   | transformer-opt --transformer-to-llvm --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 \
// RUN:   | FileCheck %s
// @decode called from outside: its cache argument is marked
// transformer.in_place, so the step writes the caller's cache and returns it
// as it is, with no clone (a 75 MB copy per token for GPT-2 small).
// RUN: transformer-translate --import-hf-config %S/Inputs/gpt2-tiny.json --max-seq=32 \
// RUN:   | transformer-opt --transformer-to-llvm --mlir-print-ir-after=transformer-return-in-place-arguments -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DECODE

// DECODE-LABEL: func.func @decode(
// DECODE-SAME:    %[[CACHE:arg2]]: memref<2x2x?x4x32x16xf32> {transformer.in_place}
// DECODE-NOT:     bufferization.clone %[[CACHE]]
// DECODE-NOT:     memref.alloc({{.*}}) {{.*}}: memref<2x2x?x4x32x16xf32>
// DECODE:         memref.subview %[[CACHE]][0, 0, 0, 0, %{{.*}}, 0] [1, 1, %{{.*}}, 4, 1, 16]
// DECODE-NOT:     bufferization.clone %[[CACHE]]
// DECODE:         return %{{.*}}, %[[CACHE]] : memref<?x1000xf32>, memref<2x2x?x4x32x16xf32>

// CHECK-LABEL: func.func @generate(
// CHECK: %[[ALLOC:alloc[_0-9]*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<2x2x?x4x32x16xf32>
// CHECK-NOT: memref<2x2x?x4x32x16xf32> to memref<2x2x?x4x32x16xf32>
// CHECK-NOT: memref.alloc({{.*}}) {{.*}}: memref<2x2x?x4x32x16xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[CACHE:.*]] = %[[ALLOC]], %{{.*}} = %{{.*}}) -> (memref<?x?xi64>, memref<2x2x?x4x32x16xf32>, memref<?x1xi64>)
// CHECK-NOT: memref.alloc({{.*}}) {{.*}}: memref<2x2x?x4x32x16xf32>
// CHECK-NOT: memref<2x2x?x4x32x16xf32> to memref<2x2x?x4x32x16xf32>
// Layer 0 keys, then values, at the step's position.
// CHECK: %[[K0:.*]] = memref.subview %[[CACHE]][0, 0, 0, 0, %[[POS:.*]], 0] [1, 1, %{{.*}}, 4, 1, 16]
// CHECK-NEXT: memref.copy %{{.*}}, %[[K0]]
// CHECK: %[[V0:.*]] = memref.subview %[[CACHE]][0, 1, 0, 0, %[[POS]], 0] [1, 1, %{{.*}}, 4, 1, 16]
// CHECK-NEXT: memref.copy %{{.*}}, %[[V0]]
// Layer 1.
// CHECK: memref.subview %[[CACHE]][1, 0, 0, 0, %[[POS]], 0]
// CHECK-NOT: memref.alloc({{.*}}) {{.*}}: memref<2x2x?x4x32x16xf32>
// CHECK-NOT: memref<2x2x?x4x32x16xf32> to memref<2x2x?x4x32x16xf32>
// CHECK: scf.yield %[[CACHE]], %{{.*}} : memref<2x2x?x4x32x16xf32>, memref<?x1xi64>
// CHECK: scf.yield %[[CACHE]], %{{.*}} : memref<2x2x?x4x32x16xf32>, memref<?x1xi64>
