// REQUIRES: numpy
// The flash attention kernel (--transformer-cpu-flash-attention, -O2 and up)
// against float64 numpy: every form of transformer.attention, sizes that are
// not multiples of the 64 x 64 blocks, windows smaller and larger than a
// block, decoding shapes (keys split over threads), dynamic shapes, head
// dims that are not multiples of the vector width.
// RUN: %python %test_lib/run_reference.py %s %t --threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t --threads=2 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O3 --threads=2 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @block_diagonal: result[0] 2x128x16
// CHECK: PASS @causal_heads: result[0] 2x3x130x24
// CHECK: PASS @causal_offset: result[0] 70x16
// CHECK: PASS @causal_offset_more_queries: result[0] 150x16
// CHECK: PASS @decode_long: result[0] 1x1x1x64
// CHECK: PASS @decode_mask: result[0] 2x3x8
// CHECK: PASS @decode_window: result[0] 1x4x3x33
// CHECK: PASS @dynamic: result[0] 2x77x40
// CHECK: PASS @dynamic_causal_window: result[0] 100x20
// CHECK: PASS @fully_masked_rows: result[0] 70x8
// CHECK: PASS @mask_batch: result[0] 2x2x65x16
// CHECK: PASS @mask_causal: result[0] 129x16
// CHECK: PASS @mask_key_padding: result[0] 2x70x16
// CHECK: PASS @odd_sizes: result[0] 3x1x5x7
// CHECK: PASS @plain: result[0] 2x3x100x24
// CHECK: PASS @scale_dv: result[0] 129x65x19
// CHECK: PASS @window_large: result[0] 1x200x32
// CHECK: PASS @window_mask_operand: result[0] 100x16
// CHECK: PASS @window_one: result[0] 90x8
// CHECK: PASS @window_small: result[0] 1x300x32

// PY: def case_plain(rng):
// PY:     q, k, v = (rng.standard_normal((2, 3, 100, 24), np.float32) for _ in range(3))
// PY:     return [q, k, v], [ref.attention(q, k, v)]
func.func @plain(%q: tensor<2x3x100x24xf32>, %k: tensor<2x3x100x24xf32>, %v: tensor<2x3x100x24xf32>) -> tensor<2x3x100x24xf32> {
  %o = transformer.attention %q, %k, %v : tensor<2x3x100x24xf32>, tensor<2x3x100x24xf32>, tensor<2x3x100x24xf32> -> tensor<2x3x100x24xf32>
  return %o : tensor<2x3x100x24xf32>
}

// PY: def case_odd_sizes(rng):
// PY:     q = rng.standard_normal((3, 1, 5, 7), np.float32)
// PY:     k = rng.standard_normal((3, 1, 9, 7), np.float32)
// PY:     v = rng.standard_normal((3, 1, 9, 7), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v)]
func.func @odd_sizes(%q: tensor<3x1x5x7xf32>, %k: tensor<3x1x9x7xf32>, %v: tensor<3x1x9x7xf32>) -> tensor<3x1x5x7xf32> {
  %o = transformer.attention %q, %k, %v : tensor<3x1x5x7xf32>, tensor<3x1x9x7xf32>, tensor<3x1x9x7xf32> -> tensor<3x1x5x7xf32>
  return %o : tensor<3x1x5x7xf32>
}

// Scale attribute, Dv != D, Sq != Sk, a rank-3 batch.
// PY: def case_scale_dv(rng):
// PY:     q = rng.standard_normal((129, 65, 10), np.float32)
// PY:     k = rng.standard_normal((129, 131, 10), np.float32)
// PY:     v = rng.standard_normal((129, 131, 19), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, scale=0.3)]
func.func @scale_dv(%q: tensor<129x65x10xf32>, %k: tensor<129x131x10xf32>, %v: tensor<129x131x19xf32>) -> tensor<129x65x19xf32> {
  %o = transformer.attention %q, %k, %v {scale = 0.3 : f32} : tensor<129x65x10xf32>, tensor<129x131x10xf32>, tensor<129x131x19xf32> -> tensor<129x65x19xf32>
  return %o : tensor<129x65x19xf32>
}

// PY: def case_causal_heads(rng):
// PY:     q, k, v = (rng.standard_normal((2, 3, 130, 24), np.float32) for _ in range(3))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @causal_heads(%q: tensor<2x3x130x24xf32>, %k: tensor<2x3x130x24xf32>, %v: tensor<2x3x130x24xf32>) -> tensor<2x3x130x24xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<2x3x130x24xf32>, tensor<2x3x130x24xf32>, tensor<2x3x130x24xf32> -> tensor<2x3x130x24xf32>
  return %o : tensor<2x3x130x24xf32>
}

// Bottom-right alignment with more keys than queries.
// PY: def case_causal_offset(rng):
// PY:     q = rng.standard_normal((70, 16), np.float32)
// PY:     k, v = rng.standard_normal((200, 16), np.float32), rng.standard_normal((200, 16), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @causal_offset(%q: tensor<70x16xf32>, %k: tensor<200x16xf32>, %v: tensor<200x16xf32>) -> tensor<70x16xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<70x16xf32>, tensor<200x16xf32>, tensor<200x16xf32> -> tensor<70x16xf32>
  return %o : tensor<70x16xf32>
}

// More queries than keys: the first queries see no key and give zeros.
// PY: def case_causal_offset_more_queries(rng):
// PY:     q = rng.standard_normal((150, 16), np.float32)
// PY:     k, v = rng.standard_normal((90, 16), np.float32), rng.standard_normal((90, 16), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @causal_offset_more_queries(%q: tensor<150x16xf32>, %k: tensor<90x16xf32>, %v: tensor<90x16xf32>) -> tensor<150x16xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<150x16xf32>, tensor<90x16xf32>, tensor<90x16xf32> -> tensor<150x16xf32>
  return %o : tensor<150x16xf32>
}

// PY: def case_window_small(rng):
// PY:     q, k, v = (rng.standard_normal((1, 300, 32), np.float32) for _ in range(3))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, window=20)]
func.func @window_small(%q: tensor<1x300x32xf32>, %k: tensor<1x300x32xf32>, %v: tensor<1x300x32xf32>) -> tensor<1x300x32xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 20 : i64} : tensor<1x300x32xf32>, tensor<1x300x32xf32>, tensor<1x300x32xf32> -> tensor<1x300x32xf32>
  return %o : tensor<1x300x32xf32>
}

// PY: def case_window_large(rng):
// PY:     q, k, v = (rng.standard_normal((1, 200, 32), np.float32) for _ in range(3))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, window=100)]
func.func @window_large(%q: tensor<1x200x32xf32>, %k: tensor<1x200x32xf32>, %v: tensor<1x200x32xf32>) -> tensor<1x200x32xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 100 : i64} : tensor<1x200x32xf32>, tensor<1x200x32xf32>, tensor<1x200x32xf32> -> tensor<1x200x32xf32>
  return %o : tensor<1x200x32xf32>
}

// PY: def case_window_one(rng):
// PY:     q, k, v = (rng.standard_normal((90, 8), np.float32) for _ in range(3))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, window=1)]
func.func @window_one(%q: tensor<90x8xf32>, %k: tensor<90x8xf32>, %v: tensor<90x8xf32>) -> tensor<90x8xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 1 : i64} : tensor<90x8xf32>, tensor<90x8xf32>, tensor<90x8xf32> -> tensor<90x8xf32>
  return %o : tensor<90x8xf32>
}

// A mask operand together with causal.
// PY: def case_mask_causal(rng):
// PY:     q, k, v = (rng.standard_normal((129, 16), np.float32) for _ in range(3))
// PY:     m = rng.standard_normal((129, 129)).astype(np.float32)
// PY:     return [q, k, v, m], [ref.attention(q, k, v, causal=True, mask=m)]
func.func @mask_causal(%q: tensor<129x16xf32>, %k: tensor<129x16xf32>, %v: tensor<129x16xf32>, %m: tensor<129x129xf32>) -> tensor<129x16xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<129x129xf32>) {causal} : tensor<129x16xf32>, tensor<129x16xf32>, tensor<129x16xf32> -> tensor<129x16xf32>
  return %o : tensor<129x16xf32>
}

// A per-batch mask of the full rank.
// PY: def case_mask_batch(rng):
// PY:     q, k, v = (rng.standard_normal((2, 2, 65, 16), np.float32) for _ in range(3))
// PY:     m = np.where(rng.random((2, 2, 65, 65)) < 0.3, -np.inf, 0.0).astype(np.float32)
// PY:     m[..., 0] = 0.0
// PY:     return [q, k, v, m], [ref.attention(q, k, v, mask=m)]
func.func @mask_batch(%q: tensor<2x2x65x16xf32>, %k: tensor<2x2x65x16xf32>, %v: tensor<2x2x65x16xf32>, %m: tensor<2x2x65x65xf32>) -> tensor<2x2x65x16xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<2x2x65x65xf32>) : tensor<2x2x65x16xf32>, tensor<2x2x65x16xf32>, tensor<2x2x65x16xf32> -> tensor<2x2x65x16xf32>
  return %o : tensor<2x2x65x16xf32>
}

// A key-padding mask (1 x Sk) that broadcasts over the queries.
// PY: def case_mask_key_padding(rng):
// PY:     q, k, v = (rng.standard_normal((2, 70, 16), np.float32) for _ in range(3))
// PY:     m = np.zeros((1, 70), np.float32); m[0, 50:] = -np.inf
// PY:     return [q, k, v, m], [ref.attention(q, k, v, mask=m)]
func.func @mask_key_padding(%q: tensor<2x70x16xf32>, %k: tensor<2x70x16xf32>, %v: tensor<2x70x16xf32>, %m: tensor<1x70xf32>) -> tensor<2x70x16xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<1x70xf32>) : tensor<2x70x16xf32>, tensor<2x70x16xf32>, tensor<2x70x16xf32> -> tensor<2x70x16xf32>
  return %o : tensor<2x70x16xf32>
}

// Rows whose keys are all masked give zeros.
// PY: def case_fully_masked_rows(rng):
// PY:     q, k, v = (rng.standard_normal((70, 8), np.float32) for _ in range(3))
// PY:     m = np.zeros((70, 70), np.float32); m[3, :] = -np.inf; m[66, :] = -np.inf
// PY:     return [q, k, v, m], [ref.attention(q, k, v, mask=m)]
func.func @fully_masked_rows(%q: tensor<70x8xf32>, %k: tensor<70x8xf32>, %v: tensor<70x8xf32>, %m: tensor<70x70xf32>) -> tensor<70x8xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<70x70xf32>) : tensor<70x8xf32>, tensor<70x8xf32>, tensor<70x8xf32> -> tensor<70x8xf32>
  return %o : tensor<70x8xf32>
}

// Dynamic shapes everywhere (D dynamic: the scale is computed at run time).
// PY: def case_dynamic(rng):
// PY:     q = rng.standard_normal((2, 77, 20), np.float32)
// PY:     k = rng.standard_normal((2, 90, 20), np.float32)
// PY:     v = rng.standard_normal((2, 90, 40), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v)]
func.func @dynamic(%q: tensor<?x?x?xf32>, %k: tensor<?x?x?xf32>, %v: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %o = transformer.attention %q, %k, %v : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  return %o : tensor<?x?x?xf32>
}

// PY: def case_dynamic_causal_window(rng):
// PY:     q = rng.standard_normal((100, 20), np.float32)
// PY:     k, v = rng.standard_normal((160, 20), np.float32), rng.standard_normal((160, 20), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, window=70)]
func.func @dynamic_causal_window(%q: tensor<?x20xf32>, %k: tensor<?x20xf32>, %v: tensor<?x20xf32>) -> tensor<?x20xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 70 : i64} : tensor<?x20xf32>, tensor<?x20xf32>, tensor<?x20xf32> -> tensor<?x20xf32>
  return %o : tensor<?x20xf32>
}

// Decoding: one query against a long cache (keys split over the threads).
// PY: def case_decode_long(rng):
// PY:     q = rng.standard_normal((1, 1, 1, 64), np.float32)
// PY:     k, v = rng.standard_normal((1, 1, 1000, 64), np.float32), rng.standard_normal((1, 1, 1000, 64), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @decode_long(%q: tensor<1x1x1x64xf32>, %k: tensor<1x1x1000x64xf32>, %v: tensor<1x1x1000x64xf32>) -> tensor<1x1x1x64xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<1x1x1x64xf32>, tensor<1x1x1000x64xf32>, tensor<1x1x1000x64xf32> -> tensor<1x1x1x64xf32>
  return %o : tensor<1x1x1x64xf32>
}

// PY: def case_decode_window(rng):
// PY:     q = rng.standard_normal((1, 4, 3, 33), np.float32)
// PY:     k, v = rng.standard_normal((1, 4, 500, 33), np.float32), rng.standard_normal((1, 4, 500, 33), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, window=130)]
func.func @decode_window(%q: tensor<1x4x3x33xf32>, %k: tensor<1x4x500x33xf32>, %v: tensor<1x4x500x33xf32>) -> tensor<1x4x3x33xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 130 : i64} : tensor<1x4x3x33xf32>, tensor<1x4x500x33xf32>, tensor<1x4x500x33xf32> -> tensor<1x4x3x33xf32>
  return %o : tensor<1x4x3x33xf32>
}

// PY: def case_decode_mask(rng):
// PY:     q = rng.standard_normal((2, 3, 8), np.float32)
// PY:     k, v = rng.standard_normal((2, 300, 8), np.float32), rng.standard_normal((2, 300, 8), np.float32)
// PY:     m = np.where(rng.random((3, 300)) < 0.5, -np.inf, 0.0).astype(np.float32)
// PY:     return [q, k, v, m], [ref.attention(q, k, v, mask=m)]
func.func @decode_mask(%q: tensor<2x3x8xf32>, %k: tensor<2x300x8xf32>, %v: tensor<2x300x8xf32>, %m: tensor<3x300xf32>) -> tensor<2x3x8xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<3x300xf32>) : tensor<2x3x8xf32>, tensor<2x300x8xf32>, tensor<2x300x8xf32> -> tensor<2x3x8xf32>
  return %o : tensor<2x3x8xf32>
}

// A constant block-diagonal mask: the off-diagonal blocks are never computed
// (--transformer-mask-sparsity), the diagonal ones apply no mask.
// PY: def case_block_diagonal(rng):
// PY:     q, k, v = (rng.standard_normal((2, 128, 16), np.float32) for _ in range(3))
// PY:     m = np.full((128, 128), -np.inf); m[:64, :64] = 0; m[64:, 64:] = 0
// PY:     return [q, k, v], [ref.attention(q, k, v, mask=m)]
func.func @block_diagonal(%q: tensor<2x128x16xf32>, %k: tensor<2x128x16xf32>, %v: tensor<2x128x16xf32>) -> tensor<2x128x16xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %m0 = tensor.insert_slice %zero into %ninf[0, 0] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<128x128xf32>
  %m = tensor.insert_slice %zero into %m0[64, 64] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<128x128xf32>
  %o = transformer.attention %q, %k, %v mask(%m : tensor<128x128xf32>) : tensor<2x128x16xf32>, tensor<2x128x16xf32>, tensor<2x128x16xf32> -> tensor<2x128x16xf32>
  return %o : tensor<2x128x16xf32>
}

// A windowed causal mask given as an operand (create_causal_mask), with
// Sq != Sk: its blocks are classified at compile time too.
// PY: def case_window_mask_operand(rng):
// PY:     q = rng.standard_normal((100, 16), np.float32)
// PY:     k, v = rng.standard_normal((260, 16), np.float32), rng.standard_normal((260, 16), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, mask=ref.causal_mask(100, 260, 70))]
func.func @window_mask_operand(%q: tensor<100x16xf32>, %k: tensor<260x16xf32>, %v: tensor<260x16xf32>) -> tensor<100x16xf32> {
  %m = transformer.create_causal_mask {window = 70 : i64} : tensor<100x260xf32>
  %o = transformer.attention %q, %k, %v mask(%m : tensor<100x260xf32>) : tensor<100x16xf32>, tensor<260x16xf32>, tensor<260x16xf32> -> tensor<100x16xf32>
  return %o : tensor<100x16xf32>
}
