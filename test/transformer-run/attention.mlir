// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O0 --no-fuse-attention | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @additive_bias: result[0] 2x5x8
// CHECK: PASS @book_example: result[0] 4x2
// CHECK: PASS @causal_heads: result[0] 2x3x8x16
// CHECK: PASS @decode_causal: result[0] 1x4x1x8
// CHECK: PASS @dynamic_causal: result[0] 2x5x8
// CHECK: PASS @mask_and_causal: result[0] 9x4
// CHECK: PASS @primitive_chain: result[0] 6x8
// CHECK: PASS @sliding_window: result[0] 2x12x8
// CHECK: PASS @sliding_window_decode: result[0] 3x8
// CHECK: PASS @windowed_mask_chain: result[0] 6x8

// The book's worked example. The book prints [[2.62, 3.62], ...], which is
// wrong; numpy gives [[3.64, 4.64], [3.96, 4.96], [4.27, 5.27], [3.99, 4.99]].
// PY: def case_book_example(rng):
// PY:     q = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.3, 0.3, 0.3]], np.float32)
// PY:     v = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)
// PY:     s = np.float64(q) @ np.float64(q).T / np.sqrt(3.0)
// PY:     p = np.exp(s - s.max(axis=1, keepdims=True)); p /= p.sum(axis=1, keepdims=True)
// PY:     want = p @ v
// PY:     assert np.allclose(want, [[3.64, 4.64], [3.96, 4.96], [4.27, 5.27], [3.99, 4.99]], atol=0.01)
// PY:     return [q, q, v], [want]
func.func @book_example(%q: tensor<4x3xf32>, %k: tensor<4x3xf32>, %v: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %o = transformer.attention %q, %k, %v : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  return %o : tensor<4x2xf32>
}

// PY: def case_causal_heads(rng):
// PY:     q, k, v = (rng.standard_normal((2, 3, 8, 16), np.float32) for _ in range(3))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @causal_heads(%q: tensor<2x3x8x16xf32>, %k: tensor<2x3x8x16xf32>, %v: tensor<2x3x8x16xf32>) -> tensor<2x3x8x16xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<2x3x8x16xf32>, tensor<2x3x8x16xf32>, tensor<2x3x8x16xf32> -> tensor<2x3x8x16xf32>
  return %o : tensor<2x3x8x16xf32>
}

// Decoding with a KV cache: one query against 12 keys; causal is aligned
// bottom-right so the query sees every key.
// PY: def case_decode_causal(rng):
// PY:     q = rng.standard_normal((1, 4, 1, 8), np.float32)
// PY:     k, v = rng.standard_normal((1, 4, 12, 8), np.float32), rng.standard_normal((1, 4, 12, 8), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @decode_causal(%q: tensor<1x4x1x8xf32>, %k: tensor<1x4x12x8xf32>, %v: tensor<1x4x12x8xf32>) -> tensor<1x4x1x8xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<1x4x1x8xf32>, tensor<1x4x12x8xf32>, tensor<1x4x12x8xf32> -> tensor<1x4x1x8xf32>
  return %o : tensor<1x4x1x8xf32>
}

// A mask of finite values (a relative-position bias), which is added after
// the scale: with masks of only 0 and -inf, (s + m) * scale and
// s * scale + m agree, so this case is the one that tells them apart.
// PY: def case_additive_bias(rng):
// PY:     q, k, v = (rng.standard_normal((2, 5, 8), np.float32) for _ in range(3))
// PY:     m = (rng.standard_normal((5, 5)) * 2).astype(np.float32)
// PY:     want = ref.attention(q, k, v, scale=0.5, mask=m)
// PY:     assert not np.allclose(want, ref.attention(q, k, v, scale=0.5, mask=m * 0.5), atol=1e-3)
// PY:     return [q, k, v, m], [want]
func.func @additive_bias(%q: tensor<2x5x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<2x5x8xf32>, %m: tensor<5x5xf32>) -> tensor<2x5x8xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<5x5xf32>) {scale = 0.5 : f32} : tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32> -> tensor<2x5x8xf32>
  return %o : tensor<2x5x8xf32>
}

// Sq = 9 < Sk = 12 with a padding mask and causal; row 0 of the mask hides
// everything that causal leaves, so that row is all zeros.
// PY: def case_mask_and_causal(rng):
// PY:     q, k = rng.standard_normal((9, 6), np.float32), rng.standard_normal((12, 6), np.float32)
// PY:     v = rng.standard_normal((12, 4), np.float32)
// PY:     m = np.where(rng.random((9, 12)) < 0.3, -np.inf, 0).astype(np.float32)
// PY:     m[0, :4] = -np.inf
// PY:     want = ref.attention(q, k, v, scale=np.float64(np.float32(0.3)), causal=True, mask=m)
// PY:     assert np.all(want[0] == 0)
// PY:     return [q, k, v, m], [want]
func.func @mask_and_causal(%q: tensor<9x6xf32>, %k: tensor<12x6xf32>, %v: tensor<12x4xf32>, %m: tensor<9x12xf32>) -> tensor<9x4xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<9x12xf32>) {causal, scale = 0.3 : f32} : tensor<9x6xf32>, tensor<12x6xf32>, tensor<12x4xf32> -> tensor<9x4xf32>
  return %o : tensor<9x4xf32>
}

// Dynamic shapes, default scale computed at run time.
// PY: def case_dynamic_causal(rng):
// PY:     q, k, v = (rng.standard_normal((2, 5, 8), np.float32) for _ in range(3))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @dynamic_causal(%q: tensor<?x?x?xf32>, %k: tensor<?x?x?xf32>, %v: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  return %o : tensor<?x?x?xf32>
}

// The primitive chain that --transformer-fuse-attention rewrites (fused in
// the default run, left alone with --no-fuse-attention): same numbers.
// PY: def case_primitive_chain(rng):
// PY:     q, k, v = (rng.standard_normal((6, 8), np.float32) for _ in range(3))
// PY:     return [q, k, v], [ref.attention(q, k, v, scale=0.25, causal=True)]
func.func @primitive_chain(%q: tensor<6x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<*xf32> {
  %kt = transformer.transpose %k : tensor<6x8xf32> -> tensor<*xf32>
  %s = transformer.matmul %q, %kt : tensor<6x8xf32>, tensor<*xf32> -> tensor<*xf32>
  %c = arith.constant dense<4.0> : tensor<1xf32>
  %ss = transformer.div %s, %c : tensor<*xf32>, tensor<1xf32> -> tensor<*xf32>
  %m = transformer.create_causal_mask : tensor<6x6xf32>
  %p = transformer.masked_softmax %ss, %m : tensor<*xf32>, tensor<6x6xf32> -> tensor<*xf32>
  %o = transformer.matmul %p, %v : tensor<*xf32>, tensor<6x8xf32> -> tensor<*xf32>
  return %o : tensor<*xf32>
}

// Sliding-window attention: each query sees itself and the 2 keys before it
// (window 3), fewer at the start; the window is smaller than the sequence.
// PY: def case_sliding_window(rng):
// PY:     q, k, v = (rng.standard_normal((2, 12, 8), np.float32) for _ in range(3))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, window=3)]
func.func @sliding_window(%q: tensor<2x12x8xf32>, %k: tensor<2x12x8xf32>, %v: tensor<2x12x8xf32>) -> tensor<2x12x8xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 3 : i64} : tensor<2x12x8xf32>, tensor<2x12x8xf32>, tensor<2x12x8xf32> -> tensor<2x12x8xf32>
  return %o : tensor<2x12x8xf32>
}

// Decoding shape (Sq < Sk, bottom-right aligned) with a window of 4 over
// 10 keys, and dynamic key length.
// PY: def case_sliding_window_decode(rng):
// PY:     q = rng.standard_normal((3, 8), np.float32)
// PY:     k, v = rng.standard_normal((10, 8), np.float32), rng.standard_normal((10, 8), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, window=4)]
func.func @sliding_window_decode(%q: tensor<3x8xf32>, %k: tensor<?x8xf32>, %v: tensor<?x8xf32>) -> tensor<3x8xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 4 : i64} : tensor<3x8xf32>, tensor<?x8xf32>, tensor<?x8xf32> -> tensor<3x8xf32>
  return %o : tensor<3x8xf32>
}

// A windowed create_causal_mask in the primitive chain (fused into
// attention {causal, window} at -O2, lowered as written at -O0).
// PY: def case_windowed_mask_chain(rng):
// PY:     q, k, v = (rng.standard_normal((6, 8), np.float32) for _ in range(3))
// PY:     return [q, k, v], [ref.attention(q, k, v, scale=0.5, causal=True, window=2)]
func.func @windowed_mask_chain(%q: tensor<6x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %kt = transformer.transpose %k : tensor<6x8xf32> -> tensor<8x6xf32>
  %s = transformer.matmul %q, %kt : tensor<6x8xf32>, tensor<8x6xf32> -> tensor<6x6xf32>
  %ss = transformer.scale %s {factor = 0.5 : f32} : tensor<6x6xf32> -> tensor<6x6xf32>
  %m = transformer.create_causal_mask {window = 2 : i64} : tensor<6x6xf32>
  %p = transformer.masked_softmax %ss, %m : tensor<6x6xf32>, tensor<6x6xf32> -> tensor<6x6xf32>
  %o = transformer.matmul %p, %v : tensor<6x6xf32>, tensor<6x8xf32> -> tensor<6x8xf32>
  return %o : tensor<6x8xf32>
}
