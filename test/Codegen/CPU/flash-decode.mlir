// RUN: transformer-opt %s --transformer-cpu-select-target=cpu=skylake-avx512 --transformer-mask-sparsity --transformer-cpu-flash-attention=threads=2 --canonicalize --cse | FileCheck %s
// RUN: transformer-opt %s --transformer-cpu-select-target=cpu=skylake-avx512 --transformer-mask-sparsity --transformer-cpu-flash-attention=threads=1 --canonicalize --cse | FileCheck %s --check-prefix=ONE
// RUN: transformer-opt %s --transformer-cpu-select-target=cpu=haswell --transformer-mask-sparsity --transformer-cpu-flash-attention=threads=2 --canonicalize --cse | FileCheck %s --check-prefix=AVX2
// RUN: transformer-opt %s --transformer-to-llvm="threads=2" -o /dev/null
// RUN: transformer-opt %s --transformer-to-llvm="threads=1" -o /dev/null
// RUN: transformer-opt %s --transformer-to-llvm="threads=1" --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUF

// Decoding shapes (Sq <= 16, static head dims) call the decoding kernel,
// whose keys are on the vector lanes.
// CHECK-LABEL: func.func @decode(
// CHECK-NOT: transformer.attention
// CHECK: bufferization.to_buffer %arg1 read_only : tensor<1x12x1024x64xf32> to memref<1x12x1024x64xf32, strided<[?, ?, ?, 1], offset: ?>>
// CHECK: call @[[$DECODE:__transformer_flash_decode[_0-9]*]](
// CHECK-NOT: call @__transformer_flash_attention
// CHECK: return
func.func @decode(%q: tensor<1x12x1x64xf32>, %k: tensor<1x12x1024x64xf32>, %v: tensor<1x12x1024x64xf32>) -> tensor<1x12x1x64xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<1x12x1x64xf32>, tensor<1x12x1024x64xf32>, tensor<1x12x1024x64xf32> -> tensor<1x12x1x64xf32>
  return %o : tensor<1x12x1x64xf32>
}

// A dynamic Sq (GPT-2's decode step): Sq <= 16 is checked at run time.
// CHECK-LABEL: func.func @dynamic_sq(
// CHECK: %[[SMALL:.*]] = arith.cmpi ule, %{{.*}}, %c16 : index
// CHECK: scf.if %[[SMALL]] {
// CHECK-NEXT: func.call @__transformer_flash_decode{{[_0-9]*}}(
// CHECK-NEXT: } else {
// CHECK-NEXT: func.call @__transformer_flash_attention{{[_0-9]*}}(
func.func @dynamic_sq(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %o = transformer.attention %q, %k, %v : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32> -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// A dynamic head dim keeps the flash kernel (one vector of queries, keys
// split over the threads: three scratch buffers).
// CHECK-LABEL: func.func @dynamic_head_dim(
// CHECK-NOT: __transformer_flash_decode
// CHECK: call @__transformer_flash_attention{{[_0-9]*}}(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
func.func @dynamic_head_dim(%q: tensor<2x1x?xf32>, %k: tensor<2x100x?xf32>, %v: tensor<2x100x?xf32>) -> tensor<2x1x?xf32> {
  %o = transformer.attention %q, %k, %v : tensor<2x1x?xf32>, tensor<2x100x?xf32>, tensor<2x100x?xf32> -> tensor<2x1x?xf32>
  return %o : tensor<2x1x?xf32>
}

// A constant mask: key blocks 1 and 2 fully masked, 3 partial.
// CHECK-LABEL: func.func @mask_table(
// CHECK: call @[[$TABLE:__transformer_flash_decode[_0-9]*]](
func.func @mask_table(%q: tensor<2x3x64xf32>, %k: tensor<2x1024x64xf32>, %v: tensor<2x1024x64xf32>) -> tensor<2x3x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<3x1024xf32>
  %ninf0 = arith.constant dense<0xFF800000> : tensor<3x128xf32>
  %ninf1 = arith.constant dense<0xFF800000> : tensor<3x30xf32>
  %m0 = tensor.insert_slice %ninf0 into %zero[0, 64] [3, 128] [1, 1] : tensor<3x128xf32> into tensor<3x1024xf32>
  %m = tensor.insert_slice %ninf1 into %m0[0, 200] [3, 30] [1, 1] : tensor<3x30xf32> into tensor<3x1024xf32>
  %o = transformer.attention %q, %k, %v mask(%m : tensor<3x1024xf32>) : tensor<2x3x64xf32>, tensor<2x1024x64xf32>, tensor<2x1024x64xf32> -> tensor<2x3x64xf32>
  return %o : tensor<2x3x64xf32>
}

// Keys and values sliced from a KV cache are passed in place (strided
// buffers with offsets), not copied.
// BUF-LABEL: func.func @cache_slice(
// BUF-NOT: memref.copy
// BUF: call @__transformer_flash_decode
func.func @cache_slice(%q: tensor<1x4x1x16xf32>, %cache: tensor<2x1x4x128x16xf32>, %len: index) -> tensor<1x4x1x16xf32> {
  %k = tensor.extract_slice %cache[0, 0, 0, 0, 0] [1, 1, 4, %len, 16] [1, 1, 1, 1, 1] : tensor<2x1x4x128x16xf32> to tensor<1x4x?x16xf32>
  %v = tensor.extract_slice %cache[1, 0, 0, 0, 0] [1, 1, 4, %len, 16] [1, 1, 1, 1, 1] : tensor<2x1x4x128x16xf32> to tensor<1x4x?x16xf32>
  %o = transformer.attention %q, %k, %v : tensor<1x4x1x16xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32> -> tensor<1x4x1x16xf32>
  return %o : tensor<1x4x1x16xf32>
}

// With two threads: a parallel region of two threads, which forks only for
// 2^20 flops or more (the products of every query with the keys it sees),
// each thread taking tasks (head, key chunk) from a shared counter; per
// task and key block, the scores of 16 keys are reduced into one vector
// (keys on the lanes) by shuffles; the chunks are combined after the region
// on the calling thread (a plain loop, not a second parallel region).
// CHECK: func.func private @[[$DECODE]](
// CHECK: %[[COUNTER:.*]] = memref.alloca() : memref<i64>
// CHECK: %[[FORK:.*]] = arith.cmpi uge, %{{.*}}, %c1048576 : index
// CHECK: omp.parallel if(%[[FORK]]) num_threads(%c2_i32 : i32) {
// CHECK: scf.while
// CHECK: memref.atomic_rmw addi %{{.*}}, %[[COUNTER]][] : (i64, memref<i64>) -> i64
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23] : vector<16xf32>, vector<16xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<16xf32>, vector<16xf32>
// On AVX2, 8 keys per vector: 8 accumulators reduced in three levels.
// AVX2-NOT: vector<16xf32>
// AVX2: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11] : vector<8xf32>, vector<8xf32>
// AVX2: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 4, 5, 8, 9, 12, 13] : vector<8xf32>, vector<8xf32>
// AVX2: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
// CHECK: omp.terminator
// CHECK-NOT: omp.parallel
// CHECK: scf.for
// CHECK: return

// The class table of the constant mask (0 M, 1 V, 2 P per key block); M
// blocks are skipped before any load.
// CHECK: func.func private @[[$TABLE]](
// CHECK: %[[CLASSES:.*]] = arith.constant dense<[1, 0, 0, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]> : tensor<16xi8>
// CHECK: %[[CLS:.*]] = tensor.extract %[[CLASSES]]
// CHECK: %[[CLSI:.*]] = arith.index_cast %[[CLS]]
// CHECK: %[[SEEN:.*]] = arith.cmpi ne, %[[CLSI]], %c0 : index
// CHECK-NEXT: scf.if %[[SEEN]] {

// One thread: a forall over the tasks, no counter.
// ONE: func.func private @__transformer_flash_decode(
// ONE-NOT: memref.atomic_rmw
// ONE: scf.forall (%{{.*}}) in (%{{.*}}) {
// ONE-NOT: memref.atomic_rmw
// ONE: return
