// REQUIRES: numpy
// The decoding kernel (FlashDecodeKernel.cpp: at most 16 queries, static head
// dims, keys on the vector lanes, key chunks over the threads) against
// float64 numpy: Sq 1 and 3 (and 16), caches of 1024, 1000 and a dynamic
// length, head dims 64 and 40 (and Dv != D), causal, windows smaller and
// larger than a block, mask operands of every shape (a static class table
// with skipped blocks too), fully masked rows, and a dynamic Sq checked at
// run time (GPT-2's decode step).
// RUN: %python %test_lib/run_reference.py %s %t --threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t --threads=2 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O3 --threads=3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @dec_cache_slice: result[0] 2x4x1x40
// CHECK: PASS @dec_cache_slice_prefill: result[0] 2x4x20x40
// CHECK: PASS @dec_causal_d40: result[0] 1x2x1x40
// CHECK: PASS @dec_dynamic_sk: result[0] 2x1x64
// CHECK: PASS @dec_dynamic_sq: result[0] 2x4x1x64
// CHECK: PASS @dec_dynamic_sq_prefill: result[0] 1x2x20x64
// CHECK: PASS @dec_fully_masked: result[0] 2x3x64
// CHECK: PASS @dec_mask_batch: result[0] 2x2x3x40
// CHECK: PASS @dec_mask_keys: result[0] 2x1x64
// CHECK: PASS @dec_mask_query_column: result[0] 2x3x40
// CHECK: PASS @dec_mask_table: result[0] 2x3x64
// CHECK: PASS @dec_more_queries_than_keys: result[0] 5x16
// CHECK: PASS @dec_one_key: result[0] 1x1x64
// CHECK: PASS @dec_sq16_window: result[0] 16x24
// CHECK: PASS @dec_sq1_1024: result[0] 2x3x1x64
// CHECK: PASS @dec_sq3_causal_dv: result[0] 2x3x24
// CHECK: PASS @dec_sq3_window_large: result[0] 1x2x3x40
// CHECK: PASS @dec_sq3_window_small: result[0] 1x2x3x64

// PY: def case_dec_sq1_1024(rng):
// PY:     q = rng.standard_normal((2, 3, 1, 64), np.float32)
// PY:     k, v = (rng.standard_normal((2, 3, 1024, 64), np.float32) for _ in range(2))
// PY:     return [q, k, v], [ref.attention(q, k, v)]
func.func @dec_sq1_1024(%q: tensor<2x3x1x64xf32>, %k: tensor<2x3x1024x64xf32>, %v: tensor<2x3x1024x64xf32>) -> tensor<2x3x1x64xf32> {
  %o = transformer.attention %q, %k, %v : tensor<2x3x1x64xf32>, tensor<2x3x1024x64xf32>, tensor<2x3x1024x64xf32> -> tensor<2x3x1x64xf32>
  return %o : tensor<2x3x1x64xf32>
}

// PY: def case_dec_causal_d40(rng):
// PY:     q = rng.standard_normal((1, 2, 1, 40), np.float32)
// PY:     k, v = (rng.standard_normal((1, 2, 1000, 40), np.float32) for _ in range(2))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @dec_causal_d40(%q: tensor<1x2x1x40xf32>, %k: tensor<1x2x1000x40xf32>, %v: tensor<1x2x1000x40xf32>) -> tensor<1x2x1x40xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<1x2x1x40xf32>, tensor<1x2x1000x40xf32>, tensor<1x2x1000x40xf32> -> tensor<1x2x1x40xf32>
  return %o : tensor<1x2x1x40xf32>
}

// Three queries, causal (each sees one key more), Dv != D, a scale.
// PY: def case_dec_sq3_causal_dv(rng):
// PY:     q = rng.standard_normal((2, 3, 40), np.float32)
// PY:     k = rng.standard_normal((2, 1000, 40), np.float32)
// PY:     v = rng.standard_normal((2, 1000, 24), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, scale=0.2)]
func.func @dec_sq3_causal_dv(%q: tensor<2x3x40xf32>, %k: tensor<2x1000x40xf32>, %v: tensor<2x1000x24xf32>) -> tensor<2x3x24xf32> {
  %o = transformer.attention %q, %k, %v {causal, scale = 0.2 : f32} : tensor<2x3x40xf32>, tensor<2x1000x40xf32>, tensor<2x1000x24xf32> -> tensor<2x3x24xf32>
  return %o : tensor<2x3x24xf32>
}

// A window smaller than a key block (not aligned to one).
// PY: def case_dec_sq3_window_small(rng):
// PY:     q = rng.standard_normal((1, 2, 3, 64), np.float32)
// PY:     k, v = (rng.standard_normal((1, 2, 1024, 64), np.float32) for _ in range(2))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, window=37)]
func.func @dec_sq3_window_small(%q: tensor<1x2x3x64xf32>, %k: tensor<1x2x1024x64xf32>, %v: tensor<1x2x1024x64xf32>) -> tensor<1x2x3x64xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 37 : i64} : tensor<1x2x3x64xf32>, tensor<1x2x1024x64xf32>, tensor<1x2x1024x64xf32> -> tensor<1x2x3x64xf32>
  return %o : tensor<1x2x3x64xf32>
}

// PY: def case_dec_sq3_window_large(rng):
// PY:     q = rng.standard_normal((1, 2, 3, 40), np.float32)
// PY:     k, v = (rng.standard_normal((1, 2, 1000, 40), np.float32) for _ in range(2))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, window=700)]
func.func @dec_sq3_window_large(%q: tensor<1x2x3x40xf32>, %k: tensor<1x2x1000x40xf32>, %v: tensor<1x2x1000x40xf32>) -> tensor<1x2x3x40xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 700 : i64} : tensor<1x2x3x40xf32>, tensor<1x2x1000x40xf32>, tensor<1x2x1000x40xf32> -> tensor<1x2x3x40xf32>
  return %o : tensor<1x2x3x40xf32>
}

// The largest query count of the kernel, with a window.
// PY: def case_dec_sq16_window(rng):
// PY:     q = rng.standard_normal((16, 24), np.float32)
// PY:     k, v = (rng.standard_normal((300, 24), np.float32) for _ in range(2))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, window=10)]
func.func @dec_sq16_window(%q: tensor<16x24xf32>, %k: tensor<300x24xf32>, %v: tensor<300x24xf32>) -> tensor<16x24xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 10 : i64} : tensor<16x24xf32>, tensor<300x24xf32>, tensor<300x24xf32> -> tensor<16x24xf32>
  return %o : tensor<16x24xf32>
}

// More queries than keys: the first two see no key and give zeros.
// PY: def case_dec_more_queries_than_keys(rng):
// PY:     q = rng.standard_normal((5, 16), np.float32)
// PY:     k, v = (rng.standard_normal((3, 16), np.float32) for _ in range(2))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @dec_more_queries_than_keys(%q: tensor<5x16xf32>, %k: tensor<3x16xf32>, %v: tensor<3x16xf32>) -> tensor<5x16xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<5x16xf32>, tensor<3x16xf32>, tensor<3x16xf32> -> tensor<5x16xf32>
  return %o : tensor<5x16xf32>
}

// PY: def case_dec_one_key(rng):
// PY:     q, k, v = (rng.standard_normal((1, 1, 64), np.float32) for _ in range(3))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @dec_one_key(%q: tensor<1x1x64xf32>, %k: tensor<1x1x64xf32>, %v: tensor<1x1x64xf32>) -> tensor<1x1x64xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<1x1x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32> -> tensor<1x1x64xf32>
  return %o : tensor<1x1x64xf32>
}

// A mask per (query, key) together with causal; query 1 sees nothing.
// PY: def case_dec_fully_masked(rng):
// PY:     q = rng.standard_normal((2, 3, 64), np.float32)
// PY:     k, v = (rng.standard_normal((2, 1000, 64), np.float32) for _ in range(2))
// PY:     m = np.where(rng.random((3, 1000)) < 0.5, -np.inf, rng.standard_normal((3, 1000))).astype(np.float32)
// PY:     m[1, :] = -np.inf
// PY:     return [q, k, v, m], [ref.attention(q, k, v, causal=True, mask=m)]
func.func @dec_fully_masked(%q: tensor<2x3x64xf32>, %k: tensor<2x1000x64xf32>, %v: tensor<2x1000x64xf32>, %m: tensor<3x1000xf32>) -> tensor<2x3x64xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<3x1000xf32>) {causal} : tensor<2x3x64xf32>, tensor<2x1000x64xf32>, tensor<2x1000x64xf32> -> tensor<2x3x64xf32>
  return %o : tensor<2x3x64xf32>
}

// A key-padding mask (1 x Sk) over a dynamic cache length.
// PY: def case_dec_mask_keys(rng):
// PY:     q = rng.standard_normal((2, 1, 64), np.float32)
// PY:     k, v = (rng.standard_normal((2, 700, 64), np.float32) for _ in range(2))
// PY:     m = np.zeros((1, 700), np.float32); m[0, 650:] = -np.inf; m[0, :100] = -np.inf
// PY:     return [q, k, v, m], [ref.attention(q, k, v, mask=m)]
func.func @dec_mask_keys(%q: tensor<2x1x64xf32>, %k: tensor<2x?x64xf32>, %v: tensor<2x?x64xf32>, %m: tensor<1x?xf32>) -> tensor<2x1x64xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<1x?xf32>) : tensor<2x1x64xf32>, tensor<2x?x64xf32>, tensor<2x?x64xf32> -> tensor<2x1x64xf32>
  return %o : tensor<2x1x64xf32>
}

// A mask column (Sq x 1) that broadcasts over the keys.
// PY: def case_dec_mask_query_column(rng):
// PY:     q = rng.standard_normal((2, 3, 40), np.float32)
// PY:     k, v = (rng.standard_normal((2, 500, 40), np.float32) for _ in range(2))
// PY:     m = np.array([[0.0], [-np.inf], [1.5]], np.float32)
// PY:     return [q, k, v, m], [ref.attention(q, k, v, causal=True, mask=m)]
func.func @dec_mask_query_column(%q: tensor<2x3x40xf32>, %k: tensor<2x500x40xf32>, %v: tensor<2x500x40xf32>, %m: tensor<3x1xf32>) -> tensor<2x3x40xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<3x1xf32>) {causal} : tensor<2x3x40xf32>, tensor<2x500x40xf32>, tensor<2x500x40xf32> -> tensor<2x3x40xf32>
  return %o : tensor<2x3x40xf32>
}

// A mask of the full rank, one per (batch, head).
// PY: def case_dec_mask_batch(rng):
// PY:     q = rng.standard_normal((2, 2, 3, 40), np.float32)
// PY:     k, v = (rng.standard_normal((2, 2, 300, 40), np.float32) for _ in range(2))
// PY:     m = np.where(rng.random((2, 2, 3, 300)) < 0.3, -np.inf, 0.0).astype(np.float32)
// PY:     return [q, k, v, m], [ref.attention(q, k, v, mask=m)]
func.func @dec_mask_batch(%q: tensor<2x2x3x40xf32>, %k: tensor<2x2x300x40xf32>, %v: tensor<2x2x300x40xf32>, %m: tensor<2x2x3x300xf32>) -> tensor<2x2x3x40xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<2x2x3x300xf32>) : tensor<2x2x3x40xf32>, tensor<2x2x300x40xf32>, tensor<2x2x300x40xf32> -> tensor<2x2x3x40xf32>
  return %o : tensor<2x2x3x40xf32>
}

// A constant mask known at compile time: key blocks 1 and 2 are fully
// masked (M, skipped), block 3 partially (P), the others visible (V).
// PY: def case_dec_mask_table(rng):
// PY:     q = rng.standard_normal((2, 3, 64), np.float32)
// PY:     k, v = (rng.standard_normal((2, 1024, 64), np.float32) for _ in range(2))
// PY:     m = np.zeros((3, 1024)); m[:, 64:192] = -np.inf; m[:, 200:230] = -np.inf
// PY:     return [q, k, v], [ref.attention(q, k, v, mask=m)]
func.func @dec_mask_table(%q: tensor<2x3x64xf32>, %k: tensor<2x1024x64xf32>, %v: tensor<2x1024x64xf32>) -> tensor<2x3x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<3x1024xf32>
  %ninf0 = arith.constant dense<0xFF800000> : tensor<3x128xf32>
  %ninf1 = arith.constant dense<0xFF800000> : tensor<3x30xf32>
  %m0 = tensor.insert_slice %ninf0 into %zero[0, 64] [3, 128] [1, 1] : tensor<3x128xf32> into tensor<3x1024xf32>
  %m = tensor.insert_slice %ninf1 into %m0[0, 200] [3, 30] [1, 1] : tensor<3x30xf32> into tensor<3x1024xf32>
  %o = transformer.attention %q, %k, %v mask(%m : tensor<3x1024xf32>) : tensor<2x3x64xf32>, tensor<2x1024x64xf32>, tensor<2x1024x64xf32> -> tensor<2x3x64xf32>
  return %o : tensor<2x3x64xf32>
}

// A static query but a dynamic cache length.
// PY: def case_dec_dynamic_sk(rng):
// PY:     q = rng.standard_normal((2, 1, 64), np.float32)
// PY:     k, v = (rng.standard_normal((2, 777, 64), np.float32) for _ in range(2))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @dec_dynamic_sk(%q: tensor<2x1x64xf32>, %k: tensor<2x?x64xf32>, %v: tensor<2x?x64xf32>) -> tensor<2x1x64xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<2x1x64xf32>, tensor<2x?x64xf32>, tensor<2x?x64xf32> -> tensor<2x1x64xf32>
  return %o : tensor<2x1x64xf32>
}

// GPT-2's decode step: Sq and Sk dynamic, head dims static; Sq <= 16 is
// checked at run time (decoding kernel), else the flash kernel runs.
// PY: def case_dec_dynamic_sq(rng):
// PY:     q = rng.standard_normal((2, 4, 1, 64), np.float32)
// PY:     k, v = (rng.standard_normal((2, 4, 513, 64), np.float32) for _ in range(2))
// PY:     return [q, k, v], [ref.attention(q, k, v)]
func.func @dec_dynamic_sq(%q: tensor<?x4x?x64xf32>, %k: tensor<?x4x?x64xf32>, %v: tensor<?x4x?x64xf32>) -> tensor<?x4x?x64xf32> {
  %o = transformer.attention %q, %k, %v : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32> -> tensor<?x4x?x64xf32>
  return %o : tensor<?x4x?x64xf32>
}

// PY: def case_dec_dynamic_sq_prefill(rng):
// PY:     q = rng.standard_normal((1, 2, 20, 64), np.float32)
// PY:     k, v = (rng.standard_normal((1, 2, 100, 64), np.float32) for _ in range(2))
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @dec_dynamic_sq_prefill(%q: tensor<?x2x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) -> tensor<?x2x?x64xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x2x?x64xf32>
  return %o : tensor<?x2x?x64xf32>
}

// Keys and values as slices of a KV cache (GPT-2's decode step): strided
// buffers with an offset, read in place.
// PY: def case_dec_cache_slice(rng):
// PY:     q = rng.standard_normal((2, 4, 1, 40), np.float32)
// PY:     cache = rng.standard_normal((2, 2, 4, 128, 40), np.float32)
// PY:     n = 77
// PY:     return [q, cache, ("index", n)], [ref.attention(q, cache[0, :, :, :n], cache[1, :, :, :n])]
func.func @dec_cache_slice(%q: tensor<2x4x1x40xf32>, %cache: tensor<2x2x4x128x40xf32>, %len: index) -> tensor<2x4x1x40xf32> {
  %k = tensor.extract_slice %cache[0, 0, 0, 0, 0] [1, 2, 4, %len, 40] [1, 1, 1, 1, 1] : tensor<2x2x4x128x40xf32> to tensor<2x4x?x40xf32>
  %v = tensor.extract_slice %cache[1, 0, 0, 0, 0] [1, 2, 4, %len, 40] [1, 1, 1, 1, 1] : tensor<2x2x4x128x40xf32> to tensor<2x4x?x40xf32>
  %o = transformer.attention %q, %k, %v : tensor<2x4x1x40xf32>, tensor<2x4x?x40xf32>, tensor<2x4x?x40xf32> -> tensor<2x4x1x40xf32>
  return %o : tensor<2x4x1x40xf32>
}

// The same slices with 20 queries: the flash kernel reads them in place too.
// PY: def case_dec_cache_slice_prefill(rng):
// PY:     q = rng.standard_normal((2, 4, 20, 40), np.float32)
// PY:     cache = rng.standard_normal((2, 2, 4, 128, 40), np.float32)
// PY:     n = 90
// PY:     return [q, cache, ("index", n)], [ref.attention(q, cache[0, :, :, :n], cache[1, :, :, :n], causal=True)]
func.func @dec_cache_slice_prefill(%q: tensor<2x4x20x40xf32>, %cache: tensor<2x2x4x128x40xf32>, %len: index) -> tensor<2x4x20x40xf32> {
  %k = tensor.extract_slice %cache[0, 0, 0, 0, 0] [1, 2, 4, %len, 40] [1, 1, 1, 1, 1] : tensor<2x2x4x128x40xf32> to tensor<2x4x?x40xf32>
  %v = tensor.extract_slice %cache[1, 0, 0, 0, 0] [1, 2, 4, %len, 40] [1, 1, 1, 1, 1] : tensor<2x2x4x128x40xf32> to tensor<2x4x?x40xf32>
  %o = transformer.attention %q, %k, %v {causal} : tensor<2x4x20x40xf32>, tensor<2x4x?x40xf32>, tensor<2x4x?x40xf32> -> tensor<2x4x20x40xf32>
  return %o : tensor<2x4x20x40xf32>
}
