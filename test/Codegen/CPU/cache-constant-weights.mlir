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
// CHECK:   func.call @[[$TRANSPOSE:__transformer_weight_transpose[_0-9]*]](%[[IN]], %[[COPY]]) : (memref<96x64xf32>, memref<64x96xf32>) -> ()
// CHECK:   memref.store %[[P64]], %[[KEYBUF]][] : memref<i64>
// CHECK: }
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[COPY]] restrict : memref<64x96xf32> to tensor<64x96xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return %[[T]], %[[T]]
// The copy is made by a function of its own, which is never inlined.
// CHECK: func.func private @[[$TRANSPOSE]](%[[A:.*]]: memref<96x64xf32>, %[[B:.*]]: memref<64x96xf32>) attributes {no_inline, passthrough = ["noinline"]}
// CHECK-NEXT: linalg.transpose ins(%[[A]] : memref<96x64xf32>) outs(%[[B]] : memref<64x96xf32>) permutation = [1, 0]  {transformer.contraction = "transpose"}
// CHECK-NEXT: return
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

// The functions of a module share one copy of a weight bound by name (a
// model's @prefill and @generate), and the weights of one shape share one
// transpose function (the layers of a model): two copies, one function.
// CHECK-COUNT-4: memref.global
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @first(
// CHECK: memref.get_global @[[$K0:__transformer_weight_cache_key[_0-9]*]]
// CHECK: memref.get_global @[[$C0:__transformer_weight_cache[_0-9]*]]
// CHECK: call @[[$T:__transformer_weight_transpose[_0-9]*]](
// CHECK: memref.get_global @[[$K1:__transformer_weight_cache_key[_0-9]*]]
// CHECK: memref.get_global @[[$C1:__transformer_weight_cache[_0-9]*]]
// CHECK: call @[[$T]](
// CHECK-LABEL: func.func @second(
// CHECK: memref.get_global @[[$K0]]
// CHECK: memref.get_global @[[$C0]]
// CHECK: call @[[$T]](
// CHECK-COUNT-1: func.func private @__transformer_weight_transpose
// CHECK-NOT: func.func private
func.func @first(%w0: tensor<32x16xf32> {transformer.parameter = "h.0.w"}, %w1: tensor<32x16xf32> {transformer.parameter = "h.1.w"}) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %e = tensor.empty() : tensor<16x32xf32>
  %t0 = linalg.transpose ins(%w0 : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  %t1 = linalg.transpose ins(%w1 : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  return %t0, %t1 : tensor<16x32xf32>, tensor<16x32xf32>
}
func.func @second(%w: tensor<32x16xf32> {transformer.parameter = "h.0.w"}) -> tensor<16x32xf32> {
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
// CHECK:          call @__transformer_weight_transpose
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

// -----

// A private function whose every caller passes it constant arguments (a
// model's layer function, called once per layer): one copy per distinct set
// of weights passed, in a slot of one global per weight, and each call
// passes its slot as a new last argument. The slots are bytes (a subview
// at a dynamic offset would not have the identity layout the kernels
// take), viewed one at a time. Two functions whose slots bind the same
// weights (a model's prefill and decode layers) share the globals.
// CHECK-DAG: memref.global "private" @[[$CACHE:__transformer_weight_cache[_0-9]*]] : memref<4096xi8> = uninitialized {alignment = 64 : i64}
// CHECK-DAG: memref.global "private" @[[$KEY:__transformer_weight_cache_key[_0-9]*]] : memref<2xi64> = dense<0>
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @model(
// CHECK: %[[S0:.*]] = arith.constant 0 : index
// CHECK: call @layer(%{{.*}}, %arg1, %[[S0]]) : (tensor<4x16xf32>, tensor<32x16xf32>, index) -> tensor<4x32xf32>
// CHECK: %[[S1:.*]] = arith.constant 1 : index
// CHECK: call @layer(%{{.*}}, %arg2, %[[S1]])
// CHECK: %[[S0B:.*]] = arith.constant 0 : index
// CHECK: call @layer_decode(%{{.*}}, %arg1, %[[S0B]])
// CHECK-LABEL: func.func @model_again(
// The same weight bound again: the same slot.
// CHECK: %[[S0C:.*]] = arith.constant 0 : index
// CHECK: call @layer(%{{.*}}, %arg1, %[[S0C]])
// CHECK-LABEL: func.func private @layer(
// CHECK-SAME: %[[W:arg1]]: tensor<32x16xf32>, %[[SLOT:arg2]]: index)
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[W]] read_only
// CHECK: %[[KEYBUF:.*]] = memref.get_global @[[$KEY]] : memref<2xi64>
// CHECK: %[[LAST:.*]] = memref.load %[[KEYBUF]][%[[SLOT]]] : memref<2xi64>
// CHECK: %[[BYTES:.*]] = memref.get_global @[[$CACHE]] : memref<4096xi8>
// CHECK: %[[SIZE:.*]] = arith.constant 2048 : index
// CHECK: %[[SHIFT:.*]] = arith.muli %[[SLOT]], %[[SIZE]] : index
// CHECK: %[[COPY:.*]] = memref.view %[[BYTES]][%[[SHIFT]]][] : memref<4096xi8> to memref<16x32xf32>
// CHECK: scf.if
// CHECK:   func.call @__transformer_weight_transpose{{.*}}(%[[IN]], %[[COPY]]) : (memref<32x16xf32>, memref<16x32xf32>) -> ()
// CHECK:   memref.store %{{.*}}, %[[KEYBUF]][%[[SLOT]]] : memref<2xi64>
// CHECK: bufferization.to_tensor %[[COPY]] restrict : memref<16x32xf32> to tensor<16x32xf32>
// CHECK-LABEL: func.func private @layer_decode(
// CHECK-SAME: %arg1: tensor<32x16xf32>, %{{.*}}: index)
// CHECK: memref.get_global @[[$KEY]] : memref<2xi64>
// CHECK: memref.get_global @[[$CACHE]] : memref<4096xi8>
func.func @model(%x: tensor<4x16xf32>, %w0: tensor<32x16xf32> {transformer.parameter = "h.0.w"}, %w1: tensor<32x16xf32> {transformer.parameter = "h.1.w"}) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %y0 = call @layer(%x, %w0) : (tensor<4x16xf32>, tensor<32x16xf32>) -> tensor<4x32xf32>
  %y1 = call @layer(%x, %w1) : (tensor<4x16xf32>, tensor<32x16xf32>) -> tensor<4x32xf32>
  %y2 = call @layer_decode(%x, %w0) : (tensor<4x16xf32>, tensor<32x16xf32>) -> tensor<4x32xf32>
  %y3 = call @layer_decode(%x, %w1) : (tensor<4x16xf32>, tensor<32x16xf32>) -> tensor<4x32xf32>
  return %y1, %y3 : tensor<4x32xf32>, tensor<4x32xf32>
}
func.func @model_again(%x: tensor<4x16xf32>, %w0: tensor<32x16xf32> {transformer.parameter = "h.0.w"}) -> tensor<4x32xf32> {
  %y = call @layer(%x, %w0) : (tensor<4x16xf32>, tensor<32x16xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}
func.func private @layer(%x: tensor<4x16xf32>, %w: tensor<32x16xf32>) -> tensor<4x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  %z = tensor.empty() : tensor<4x32xf32>
  %y = linalg.matmul ins(%x, %t : tensor<4x16xf32>, tensor<16x32xf32>) outs(%z : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}
func.func private @layer_decode(%x: tensor<4x16xf32>, %w: tensor<32x16xf32>) -> tensor<4x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  %z = tensor.empty() : tensor<4x32xf32>
  %y = linalg.matmul ins(%x, %t : tensor<4x16xf32>, tensor<16x32xf32>) outs(%z : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// Left alone: a private function called with an argument that is not
// constant in one of its callers, and a public one (callers outside the
// module are not known).
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @caller(
// CHECK: call @helper(%{{.*}}) : (tensor<32x16xf32>) -> tensor<16x32xf32>
// CHECK: call @helper(%{{.*}}) : (tensor<32x16xf32>) -> tensor<16x32xf32>
// CHECK-LABEL: func.func private @helper(
// CHECK: linalg.transpose
// CHECK-LABEL: func.func @public_helper(
// CHECK: linalg.transpose
func.func @caller(%w0: tensor<32x16xf32> {transformer.parameter = "h.0.w"}, %w1: tensor<32x16xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) {
  %a = call @helper(%w0) : (tensor<32x16xf32>) -> tensor<16x32xf32>
  %b = call @helper(%w1) : (tensor<32x16xf32>) -> tensor<16x32xf32>
  %c = call @public_helper(%w0) : (tensor<32x16xf32>) -> tensor<16x32xf32>
  return %a, %b, %c : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>
}
func.func private @helper(%w: tensor<32x16xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  return %t : tensor<16x32xf32>
}
func.func @public_helper(%w: tensor<32x16xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0] {transformer.contraction = "transpose"}
  return %t : tensor<16x32xf32>
}
