// RUN: transformer-opt %s --transformer-fuse-attention -split-input-file | FileCheck %s

// The textbook chain: transpose, scale, softmax.
// CHECK-LABEL: func @basic
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8xf32>, %[[K:.*]]: tensor<2x6x8xf32>, %[[V:.*]]: tensor<2x6x3xf32>)
// CHECK-NEXT: %[[O:.*]] = transformer.attention %[[Q]], %[[K]], %[[V]] {scale = 0.35355{{[0-9]*}} : f32} : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x3xf32> -> tensor<2x4x3xf32>
// CHECK-NEXT: return %[[O]]
func.func @basic(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x3xf32>) -> tensor<2x4x3xf32> {
  %kt = transformer.transpose %k : tensor<2x6x8xf32> -> tensor<2x8x6xf32>
  %s = transformer.matmul %q, %kt : tensor<2x4x8xf32>, tensor<2x8x6xf32> -> tensor<2x4x6xf32>
  %ss = transformer.scale %s {factor = 0.35355339 : f32} : tensor<2x4x6xf32> -> tensor<2x4x6xf32>
  %p = transformer.softmax %ss : tensor<2x4x6xf32> -> tensor<2x4x6xf32>
  %o = transformer.matmul %p, %v : tensor<2x4x6xf32>, tensor<2x6x3xf32> -> tensor<2x4x3xf32>
  return %o : tensor<2x4x3xf32>
}

// -----

// transpose_b instead of a transpose; no scale means scale 1.0.
// CHECK-LABEL: func @transpose_b_no_scale
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[K:.*]]: tensor<6x8xf32>, %[[V:.*]]: tensor<6x8xf32>)
// CHECK-NEXT: %[[O:.*]] = transformer.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f32} : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[O]]
func.func @transpose_b_no_scale(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  %p = transformer.softmax %s : tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// Division by a splat constant, then multiplication by one: scales compose.
// CHECK-LABEL: func @div_and_mul_splats
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[K:.*]]: tensor<6x8xf32>, %[[V:.*]]: tensor<6x8xf32>)
// CHECK-NOT: transformer.
// CHECK: %[[O:.*]] = transformer.attention %[[Q]], %[[K]], %[[V]] {scale = 2.500000e-01 : f32}
// CHECK-NEXT: return %[[O]]
func.func @div_and_mul_splats(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %c8 = arith.constant dense<8.0> : tensor<1xf32>
  %c2 = arith.constant dense<2.0> : tensor<4x6xf32>
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  %d = transformer.div %s, %c8 : tensor<4x6xf32>, tensor<1xf32> -> tensor<4x6xf32>
  %m = transformer.mul %c2, %d : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x6xf32>
  %p = transformer.softmax %m : tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// masked_softmax with a causal mask of the scores' shape becomes {causal}.
// CHECK-LABEL: func @causal
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4x8xf32>, %[[K:.*]]: tensor<1x2x6x8xf32>, %[[V:.*]]: tensor<1x2x6x8xf32>)
// CHECK-NEXT: %[[O:.*]] = transformer.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 1.250000e-01 : f32} : tensor<1x2x4x8xf32>
// CHECK-NEXT: return %[[O]]
func.func @causal(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x2x4x8xf32> {
  %kt = transformer.transpose %k : tensor<1x2x6x8xf32> -> tensor<1x2x8x6xf32>
  %s = transformer.matmul %q, %kt : tensor<1x2x4x8xf32>, tensor<1x2x8x6xf32> -> tensor<1x2x4x6xf32>
  %ss = transformer.scale %s {factor = 0.125 : f32} : tensor<1x2x4x6xf32> -> tensor<1x2x4x6xf32>
  %m = transformer.create_causal_mask : tensor<4x6xf32>
  %p = transformer.masked_softmax %ss, %m : tensor<1x2x4x6xf32>, tensor<4x6xf32> -> tensor<1x2x4x6xf32>
  %o = transformer.matmul %p, %v : tensor<1x2x4x6xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// -----

// A windowed causal mask carries its window into the attention op.
// CHECK-LABEL: func @causal_window
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[K:.*]]: tensor<6x8xf32>, %[[V:.*]]: tensor<6x8xf32>)
// CHECK-NEXT: %[[O:.*]] = transformer.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 1.250000e-01 : f32, window = 2 : i64} : tensor<4x8xf32>
// CHECK-NEXT: return %[[O]]
func.func @causal_window(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %kt = transformer.transpose %k : tensor<6x8xf32> -> tensor<8x6xf32>
  %s = transformer.matmul %q, %kt : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  %ss = transformer.scale %s {factor = 0.125 : f32} : tensor<4x6xf32> -> tensor<4x6xf32>
  %m = transformer.create_causal_mask {window = 2 : i64} : tensor<4x6xf32>
  %p = transformer.masked_softmax %ss, %m : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// Any other mask becomes the mask operand.
// CHECK-LABEL: func @any_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[K:.*]]: tensor<6x8xf32>, %[[V:.*]]: tensor<6x8xf32>, %[[M:.*]]: tensor<6xf32>)
// CHECK-NEXT: %[[O:.*]] = transformer.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<6xf32>) {scale = 1.250000e-01 : f32}
// CHECK-NEXT: return %[[O]]
func.func @any_mask(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %mask: tensor<6xf32>) -> tensor<4x8xf32> {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  %ss = transformer.scale %s {factor = 0.125 : f32} : tensor<4x6xf32> -> tensor<4x6xf32>
  %p = transformer.masked_softmax %ss, %mask : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// A causal mask of another shape (broadcast along queries) is kept as a mask.
// CHECK-LABEL: func @causal_other_shape
// CHECK: %[[M:.*]] = transformer.create_causal_mask : tensor<1x6xf32>
// CHECK-NEXT: %[[O:.*]] = transformer.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%[[M]] : tensor<1x6xf32>) {scale = 1.000000e+00 : f32}
// CHECK-NEXT: return %[[O]]
func.func @causal_other_shape(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  %m = transformer.create_causal_mask : tensor<1x6xf32>
  %p = transformer.masked_softmax %s, %m : tensor<4x6xf32>, tensor<1x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// Not fused: the probabilities are also returned.
// CHECK-LABEL: func @probs_used_twice
// CHECK-NOT: transformer.attention
// CHECK: %[[P:.*]] = transformer.softmax
// CHECK: %[[O:.*]] = transformer.matmul %[[P]], %{{.*}}
// CHECK-NOT: transformer.attention
// CHECK: return %[[O]], %[[P]]
func.func @probs_used_twice(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> (tensor<4x8xf32>, tensor<4x6xf32>) {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  %p = transformer.softmax %s : tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o, %p : tensor<4x8xf32>, tensor<4x6xf32>
}

// -----

// Not fused: the scores feed another op too.
// CHECK-LABEL: func @scores_used_twice
// CHECK-NOT: transformer.attention
func.func @scores_used_twice(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> (tensor<4x8xf32>, tensor<4x6xf32>) {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  %ss = transformer.scale %s {factor = 0.5 : f32} : tensor<4x6xf32> -> tensor<4x6xf32>
  %p = transformer.softmax %ss : tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o, %s : tensor<4x8xf32>, tensor<4x6xf32>
}

// -----

// Not fused: the transposed key is used elsewhere.
// CHECK-LABEL: func @key_transpose_used_twice
// CHECK-NOT: transformer.attention
func.func @key_transpose_used_twice(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> (tensor<4x8xf32>, tensor<8x6xf32>) {
  %kt = transformer.transpose %k : tensor<6x8xf32> -> tensor<8x6xf32>
  %s = transformer.matmul %q, %kt : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  %p = transformer.softmax %s : tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o, %kt : tensor<4x8xf32>, tensor<8x6xf32>
}

// -----

// Not fused: no transpose of the key (q @ k is not attention).
// CHECK-LABEL: func @no_key_transpose
// CHECK-NOT: transformer.attention
func.func @no_key_transpose(%q: tensor<4x8xf32>, %k: tensor<8x6xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %s = transformer.matmul %q, %k : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  %p = transformer.softmax %s : tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// Not fused: a mul by a tensor that is not a splat constant.
// CHECK-LABEL: func @non_splat_scale
// CHECK-NOT: transformer.attention
func.func @non_splat_scale(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %w: tensor<4x6xf32>) -> tensor<4x8xf32> {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  %m = transformer.mul %s, %w : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x6xf32>
  %p = transformer.softmax %m : tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// Not fused: the key is broadcast (rank 2 against rank-3 queries).
// CHECK-LABEL: func @broadcast_key
// CHECK-NOT: transformer.attention
func.func @broadcast_key(%q: tensor<2x4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<2x4x8xf32> {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<2x4x8xf32>, tensor<6x8xf32> -> tensor<2x4x6xf32>
  %p = transformer.softmax %s : tensor<2x4x6xf32> -> tensor<2x4x6xf32>
  %o = transformer.matmul %p, %v : tensor<2x4x6xf32>, tensor<6x8xf32> -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Not fused: the key transpose permutes a batch dimension, not the last two.
// CHECK-LABEL: func @key_transpose_not_a_swap
// CHECK-NOT: transformer.attention
// CHECK: transformer.transpose %{{.*}} {permutation = array<i64: 1, 0, 2>}
// CHECK-NOT: transformer.attention
func.func @key_transpose_not_a_swap(%q: tensor<2x4x8xf32>, %k: tensor<8x2x6xf32>, %v: tensor<2x6x3xf32>) -> tensor<2x4x3xf32> {
  %kt = transformer.transpose %k {permutation = array<i64: 1, 0, 2>} : tensor<8x2x6xf32> -> tensor<2x8x6xf32>
  %s = transformer.matmul %q, %kt : tensor<2x4x8xf32>, tensor<2x8x6xf32> -> tensor<2x4x6xf32>
  %p = transformer.softmax %s : tensor<2x4x6xf32> -> tensor<2x4x6xf32>
  %o = transformer.matmul %p, %v : tensor<2x4x6xf32>, tensor<2x6x3xf32> -> tensor<2x4x3xf32>
  return %o : tensor<2x4x3xf32>
}

// -----

// Not fused: the value is transposed (p @ v^T is not attention).
// CHECK-LABEL: func @value_transposed
// CHECK-NOT: transformer.attention
// CHECK: transformer.matmul %{{.*}}, %{{.*}} {transpose_b} : tensor<4x6xf32>, tensor<8x6xf32>
// CHECK-NOT: transformer.attention
func.func @value_transposed(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<8x6xf32>) -> tensor<4x8xf32> {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  %p = transformer.softmax %s : tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v {transpose_b} : tensor<4x6xf32>, tensor<8x6xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// Not fused: a division by a splat zero has no finite scale.
// CHECK-LABEL: func @div_by_zero
// CHECK-NOT: transformer.attention
// CHECK: transformer.div
// CHECK-NOT: transformer.attention
func.func @div_by_zero(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant dense<0.0> : tensor<1xf32>
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  %d = transformer.div %s, %c0 : tensor<4x6xf32>, tensor<1xf32> -> tensor<4x6xf32>
  %p = transformer.softmax %d : tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// Not fused: the splat constant broadcasts the scores to a larger shape, so
// the multiplication is not a scale of them.
// CHECK-LABEL: func @mul_broadcasting_splat
// CHECK-NOT: transformer.attention
// CHECK: transformer.mul
// CHECK-NOT: transformer.attention
func.func @mul_broadcasting_splat(%q: tensor<1x4x8xf32>, %k: tensor<1x6x8xf32>, %v: tensor<2x6x8xf32>) -> tensor<2x4x8xf32> {
  %c2 = arith.constant dense<2.0> : tensor<2x4x6xf32>
  %s = transformer.matmul %q, %k {transpose_b} : tensor<1x4x8xf32>, tensor<1x6x8xf32> -> tensor<1x4x6xf32>
  %m = transformer.mul %s, %c2 : tensor<1x4x6xf32>, tensor<2x4x6xf32> -> tensor<2x4x6xf32>
  %p = transformer.softmax %m : tensor<2x4x6xf32> -> tensor<2x4x6xf32>
  %o = transformer.matmul %p, %v : tensor<2x4x6xf32>, tensor<2x6x8xf32> -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// Not fused: attention reads f32 keys and values; 16-bit ones (weights in a
// hand-written program) stay matmuls.
// CHECK-LABEL: func @half_values
// CHECK-NOT: transformer.attention
// CHECK: transformer.softmax
// CHECK: transformer.matmul
// CHECK-LABEL: func @half_keys
// CHECK-NOT: transformer.attention
// CHECK: transformer.softmax
func.func @half_values(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xbf16>) -> tensor<4x8xf32> {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  %p = transformer.softmax %s : tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xbf16> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}
func.func @half_keys(%q: tensor<4x8xf32>, %k: tensor<6x8xf16>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<6x8xf16> -> tensor<4x6xf32>
  %p = transformer.softmax %s : tensor<4x6xf32> -> tensor<4x6xf32>
  %o = transformer.matmul %p, %v : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}
