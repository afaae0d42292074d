// RUN: transformer-opt %s --transformer-cpu-cache-constant-weights --split-input-file | FileCheck %s

// The transposed copy of a constant weight goes into a global on the first
// call, keyed by the weight's data pointer; a weight read twice has one
// copy.
// CHECK-DAG: memref.global "private" @[[$CACHE:__transformer_weight_cache[_0-9]*]] : memref<64x96xf32> = uninitialized {alignment = 64 : i64}
// CHECK-DAG: memref.global "private" @[[$KEY:__transformer_weight_cache_key[_0-9]*]] : memref<i64> = dense<0>
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @constant(
// CHECK-SAME: %[[W:[^:]*]]: tensor<96x64xf32> {transformer.constant}
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<96x64xf32> to memref<96x64xf32>
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK: %[[P64:.*]] = arith.index_cast %[[PTR]] : index to i64
// CHECK: %[[KEYBUF:.*]] = memref.get_global @[[$KEY]] : memref<i64>
// CHECK: %[[LAST:.*]] = memref.load %[[KEYBUF]][] : memref<i64>
// CHECK: %[[STALE:.*]] = arith.cmpi ne, %[[LAST]], %[[P64]] : i64
// CHECK: %[[COPY:.*]] = memref.get_global @[[$CACHE]] : memref<64x96xf32>
// CHECK: scf.if %[[STALE]] {
// CHECK:   linalg.transpose ins(%[[IN]] : memref<96x64xf32>) outs(%[[COPY]] : memref<64x96xf32>) permutation = [1, 0]  {transformer.contraction = "transpose"}
// CHECK:   memref.store %[[P64]], %[[KEYBUF]][] : memref<i64>
// CHECK: }
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[COPY]] restrict : memref<64x96xf32> to tensor<64x96xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return %[[T]], %[[T]]
func.func @constant(%x: tensor<128x64xf32>, %w: tensor<96x64xf32> {transformer.constant}) -> (tensor<64x96xf32>, tensor<64x96xf32>) {
  %e = tensor.empty() : tensor<64x96xf32>
  %t = linalg.transpose ins(%w : tensor<96x64xf32>) outs(%e : tensor<64x96xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  %e2 = tensor.empty() : tensor<64x96xf32>
  %t2 = linalg.transpose ins(%w : tensor<96x64xf32>) outs(%e2 : tensor<64x96xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  return %t, %t2 : tensor<64x96xf32>, tensor<64x96xf32>
}

// -----

// A weight bound from a file (transformer.parameter) is constant too.
// CHECK-LABEL: func.func @parameter(
// CHECK: scf.if
// CHECK: bufferization.to_tensor
func.func @parameter(%w: tensor<32x16xf32> {transformer.parameter = "h.0.w"}) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  return %t : tensor<16x32xf32>
}

// -----

// Left alone: a weight not marked constant, one of dynamic shape, and a
// transpose that is not a contraction's copy of B.
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @not_constant(
// CHECK-NOT: scf.if
// CHECK: linalg.transpose ins(%{{.*}} : tensor<32x16xf32>)
// CHECK-LABEL: func.func @dynamic(
// CHECK: linalg.transpose ins(%{{.*}} : tensor<?x16xf32>)
// CHECK-LABEL: func.func @untagged(
// CHECK: linalg.transpose ins(%{{.*}} : tensor<32x16xf32>)
func.func @not_constant(%w: tensor<32x16xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  return %t : tensor<16x32xf32>
}
func.func @dynamic(%w: tensor<?x16xf32> {transformer.constant}, %n: index) -> tensor<16x?xf32> {
  %e = tensor.empty(%n) : tensor<16x?xf32>
  %t = linalg.transpose ins(%w : tensor<?x16xf32>) outs(%e : tensor<16x?xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  return %t : tensor<16x?xf32>
}
func.func @untagged(%w: tensor<32x16xf32> {transformer.constant}) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0]
  return %t : tensor<16x32xf32>
}

// -----

// The copy is made where the transpose was: in a branch (the many-rows side
// of a dynamic row count), only when that branch runs.
// CHECK-LABEL: func.func @in_branch(
// CHECK:      scf.if %{{.*}} -> (tensor<16x32xf32>) {
// CHECK:        bufferization.to_buffer %{{.*}} read_only
// CHECK:        scf.if
// CHECK:          linalg.transpose
// CHECK:        bufferization.to_tensor
// CHECK:      } else {
func.func @in_branch(%w: tensor<32x16xf32> {transformer.constant}, %many: i1) -> tensor<16x32xf32> {
  %r = scf.if %many -> (tensor<16x32xf32>) {
    %e = tensor.empty() : tensor<16x32xf32>
    %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
    scf.yield %t : tensor<16x32xf32>
  } else {
    %z = tensor.empty() : tensor<16x32xf32>
    scf.yield %z : tensor<16x32xf32>
  }
  return %r : tensor<16x32xf32>
}
