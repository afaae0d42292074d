// The KV cache is written in place: after one-shot bufferization @generate
// allocates the cache once (prefill) and every decode step of its loop
// passes the loop-carried cache buffer to the layer function, once per
// layer, which copies one position of keys and values into a subview of it
// at its layer index and returns it unchanged: no cache-sized allocation or
// copy per step or per layer.
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
// DECODE:         call @layer_decode({{.*}}, %[[CACHE]], {{.*}}) : (
// DECODE:         call @layer_decode({{.*}}, %[[CACHE]], {{.*}}) : (
// DECODE-NOT:     bufferization.clone %[[CACHE]]
// DECODE:         return %{{.*}}, %[[CACHE]] : memref<?x1000xf32>, memref<2x2x?x4x32x16xf32>
// The layer function writes its keys, then its values, into the caller's
// cache at [layer, 0 or 1, 0, 0, pos, 0], and returns only its rows.
// DECODE-LABEL: func.func private @layer_decode(
// DECODE-SAME:    %{{.*}}: memref<?x64xf32>, %[[BATCH:arg1]]: index, %[[POS:arg2]]: index, %[[LAYER:arg3]]: index, %[[C:arg4]]: memref<2x2x?x4x32x16xf32>,
// DECODE-NOT:     memref.alloc({{.*}}) {{.*}}: memref<2x2x?x4x32x16xf32>
// DECODE:         %[[K:.*]] = memref.subview %[[C]][%[[LAYER]], 0, 0, 0, %[[POS]], 0] [1, 1, %[[BATCH]], 4, 1, 16]
// DECODE-NEXT:    memref.copy %{{.*}}, %[[K]]
// DECODE:         %[[V:.*]] = memref.subview %[[C]][%[[LAYER]], 1, 0, 0, %[[POS]], 0] [1, 1, %[[BATCH]], 4, 1, 16]
// DECODE-NEXT:    memref.copy %{{.*}}, %[[V]]
// DECODE-NOT:     memref.alloc({{.*}}) {{.*}}: memref<2x2x?x4x32x16xf32>
// DECODE:         return %{{.*}} : memref<?x64xf32>

// CHECK-LABEL: func.func @generate(
// CHECK: %[[ALLOC:alloc[_0-9]*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<2x2x?x4x32x16xf32>
// CHECK-NOT: memref<2x2x?x4x32x16xf32> to memref<2x2x?x4x32x16xf32>
// CHECK-NOT: memref.alloc({{.*}}) {{.*}}: memref<2x2x?x4x32x16xf32>
// CHECK: %[[P0:.*]]:2 = call @layer_prefill({{.*}}, %[[ALLOC]], {{.*}}) : (
// CHECK: %[[P1:.*]]:2 = call @layer_prefill({{.*}}, %[[P0]]#1, {{.*}}) : (
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[CACHE:.*]] = %[[P1]]#1, %{{.*}} = %{{.*}}) -> (memref<?x?xi64>, memref<2x2x?x4x32x16xf32>, memref<?x1xi64>)
// CHECK-NOT: memref.alloc({{.*}}) {{.*}}: memref<2x2x?x4x32x16xf32>
// CHECK-NOT: memref<2x2x?x4x32x16xf32> to memref<2x2x?x4x32x16xf32>
// CHECK: %[[D0:.*]]:2 = func.call @layer_decode({{.*}}, %[[CACHE]], {{.*}}) : (
// CHECK: %[[D1:.*]]:2 = func.call @layer_decode({{.*}}, %[[D0]]#1, {{.*}}) : (
// CHECK-NOT: memref.alloc({{.*}}) {{.*}}: memref<2x2x?x4x32x16xf32>
// CHECK-NOT: memref<2x2x?x4x32x16xf32> to memref<2x2x?x4x32x16xf32>
// CHECK: scf.yield %[[D1]]#1, %{{.*}} : memref<2x2x?x4x32x16xf32>, memref<?x1xi64>
// CHECK: scf.yield %[[CACHE]], %{{.*}} : memref<2x2x?x4x32x16xf32>, memref<?x1xi64>
// The layer functions return the cache they were given.
// CHECK-LABEL: func.func private @layer_prefill(
// CHECK-SAME: %[[PC:arg4]]: memref<2x2x?x4x32x16xf32>
// CHECK-NOT: memref.alloc({{.*}}) {{.*}}: memref<2x2x?x4x32x16xf32>
// CHECK: return %{{.*}}, %[[PC]] : memref<?x64xf32>, memref<2x2x?x4x32x16xf32>
// CHECK-LABEL: func.func private @layer_decode(
// CHECK-SAME: %[[DC:arg4]]: memref<2x2x?x4x32x16xf32>
// CHECK-NOT: memref.alloc({{.*}}) {{.*}}: memref<2x2x?x4x32x16xf32>
// CHECK: return %{{.*}}, %[[DC]] : memref<?x64xf32>, memref<2x2x?x4x32x16xf32>
