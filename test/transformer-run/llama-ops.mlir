// REQUIRES: numpy
// The ops of Llama-family models: rms_norm, silu (the gated MLP), rope in
// the rotate-half convention with a frequency table, and grouped-query
// attention (key/value heads that divide the query heads), against numpy.
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O0 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t --threads=1 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @gated_mlp: result[0] 3x96
// CHECK: PASS @gqa_decode: result[0] 2x4x1x32
// CHECK: PASS @gqa_decode_dynamic: result[0] 2x6x1x16
// CHECK: PASS @gqa_decode_sets: result[0] 1x12x3x16
// CHECK: PASS @gqa_dynamic_heads: result[0] 1x6x9x8
// CHECK: PASS @gqa_prefill: result[0] 1x8x70x16
// CHECK: PASS @gqa_prefill_batched: result[0] 2x4x20x8
// CHECK: PASS @gqa_window: result[0] 1x4x40x8
// CHECK: PASS @mqa_masked: result[0] 2x4x5x8
// CHECK: PASS @rms_norm: result[0] 2x3x64
// CHECK: PASS @rms_norm_dynamic: result[0] 5x896
// CHECK: PASS @rope_freqs_interleaved: result[0] 3x8
// CHECK: PASS @rope_rotate_half: result[0] 1x2x6x16
// CHECK: PASS @rope_rotate_half_freqs: result[0] 2x3x1x8
// CHECK: PASS @silu: result[0] 4x300

// PY: def case_rms_norm(rng):
// PY:     x = rng.standard_normal((2, 3, 64), np.float32)
// PY:     g = rng.standard_normal(64).astype(np.float32)
// PY:     return [x, g], [ref.rms_norm(x, g, 1e-5)]
func.func @rms_norm(%x: tensor<2x3x64xf32>, %g: tensor<64xf32>) -> tensor<2x3x64xf32> {
  %0 = transformer.rms_norm %x, %g {epsilon = 1.0e-05 : f32} : tensor<2x3x64xf32>, tensor<64xf32> -> tensor<2x3x64xf32>
  return %0 : tensor<2x3x64xf32>
}

// Rows of Qwen2.5-0.5B's width, the default epsilon (1e-6), one row of
// zeros (rsqrt(eps) times 0).
// PY: def case_rms_norm_dynamic(rng):
// PY:     x = (3 * rng.standard_normal((5, 896))).astype(np.float32)
// PY:     x[2] = 0
// PY:     g = (1 + 0.1 * rng.standard_normal(896)).astype(np.float32)
// PY:     return [x, g], [ref.rms_norm(x, g)]
func.func @rms_norm_dynamic(%x: tensor<?x?xf32>, %g: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.rms_norm %x, %g : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Large magnitudes both ways: exp(-x) overflows for x < -88.
// PY: def case_silu(rng):
// PY:     x = (4 * rng.standard_normal((4, 300))).astype(np.float32)
// PY:     x[0, :4] = [-100.0, 100.0, 0.0, -88.5]
// PY:     return [x], [ref.silu(x)]
func.func @silu(%x: tensor<4x300xf32>) -> tensor<4x300xf32> {
  %0 = transformer.silu %x : tensor<4x300xf32> -> tensor<4x300xf32>
  return %0 : tensor<4x300xf32>
}

// down(silu(gate(x)) * up(x)), without biases.
// PY: def case_gated_mlp(rng):
// PY:     x = rng.standard_normal((3, 96), np.float32)
// PY:     wg, wu = (0.1 * rng.standard_normal((2, 160, 96))).astype(np.float32)
// PY:     wd = (0.1 * rng.standard_normal((96, 160))).astype(np.float32)
// PY:     z = np.zeros(160, np.float32)
// PY:     h = ref.silu(ref.linear(x, wg, z)) * ref.linear(x, wu, z)
// PY:     return [x, wg, wu, wd], [h @ ref.f64(wd).T]
func.func @gated_mlp(%x: tensor<3x96xf32>, %wg: tensor<160x96xf32>, %wu: tensor<160x96xf32>, %wd: tensor<96x160xf32>) -> tensor<3x96xf32> {
  %gate = transformer.matmul %x, %wg {transpose_b} : tensor<3x96xf32>, tensor<160x96xf32> -> tensor<3x160xf32>
  %up = transformer.matmul %x, %wu {transpose_b} : tensor<3x96xf32>, tensor<160x96xf32> -> tensor<3x160xf32>
  %act = transformer.silu %gate : tensor<3x160xf32> -> tensor<3x160xf32>
  %h = transformer.mul %act, %up : tensor<3x160xf32>, tensor<3x160xf32> -> tensor<3x160xf32>
  %y = transformer.matmul %h, %wd {transpose_b} : tensor<3x160xf32>, tensor<96x160xf32> -> tensor<3x96xf32>
  return %y : tensor<3x96xf32>
}

// PY: def case_rope_rotate_half(rng):
// PY:     x = rng.standard_normal((1, 2, 6, 16), np.float32)
// PY:     return [x], [ref.rope(x, base=500000.0, rotate_half=True)]
func.func @rope_rotate_half(%x: tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32> {
  %0 = transformer.rope %x {base = 500000.0 : f32, rotate_half} : tensor<1x2x6x16xf32> -> tensor<1x2x6x16xf32>
  return %0 : tensor<1x2x6x16xf32>
}

// A scaled frequency table (linear scaling by 4) at a decoding position.
// PY: def case_rope_rotate_half_freqs(rng):
// PY:     x = rng.standard_normal((2, 3, 1, 8), np.float32)
// PY:     f = (10000.0 ** (-np.arange(0, 8, 2) / 8) / 4).astype(np.float32)
// PY:     return [x, ("index", 37), f], [ref.rope(x, offset=37, freqs=f, rotate_half=True)]
func.func @rope_rotate_half_freqs(%x: tensor<2x3x1x8xf32>, %pos: index, %f: tensor<4xf32>) -> tensor<2x3x1x8xf32> {
  %0 = transformer.rope %x at %pos freqs(%f : tensor<4xf32>) {rotate_half} : tensor<2x3x1x8xf32> -> tensor<2x3x1x8xf32>
  return %0 : tensor<2x3x1x8xf32>
}

// PY: def case_rope_freqs_interleaved(rng):
// PY:     x = rng.standard_normal((3, 8), np.float32)
// PY:     f = rng.uniform(0.01, 1.0, 4).astype(np.float32)
// PY:     return [x, f], [ref.rope(x, freqs=f)]
func.func @rope_freqs_interleaved(%x: tensor<?x?xf32>, %f: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.rope %x freqs(%f : tensor<?xf32>) : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Eight query heads over two key/value heads, causal, more keys than one
// block of 64.
// PY: def case_gqa_prefill(rng):
// PY:     q = rng.standard_normal((1, 8, 70, 16), np.float32)
// PY:     k, v = rng.standard_normal((2, 1, 2, 70, 16), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @gqa_prefill(%q: tensor<1x8x70x16xf32>, %k: tensor<1x2x70x16xf32>, %v: tensor<1x2x70x16xf32>) -> tensor<1x8x70x16xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<1x8x70x16xf32>, tensor<1x2x70x16xf32>, tensor<1x2x70x16xf32> -> tensor<1x8x70x16xf32>
  return %o : tensor<1x8x70x16xf32>
}

// A decoding step: one query per head, batch 2, one key/value head per two
// query heads.
// PY: def case_gqa_decode(rng):
// PY:     q = rng.standard_normal((2, 4, 1, 32), np.float32)
// PY:     k, v = rng.standard_normal((2, 2, 2, 130, 32), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @gqa_decode(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x130x32xf32>, %v: tensor<2x2x130x32xf32>) -> tensor<2x4x1x32xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<2x4x1x32xf32>, tensor<2x2x130x32xf32>, tensor<2x2x130x32xf32> -> tensor<2x4x1x32xf32>
  return %o : tensor<2x4x1x32xf32>
}

// Three queries per head (speculative decoding) with six query heads per
// key/value head: the decoding kernel takes the heads that share a
// key/value head in sets of at most 16 queries (5 heads, then 1), and
// splits the 600 keys into chunks over the threads.
// PY: def case_gqa_decode_sets(rng):
// PY:     q = rng.standard_normal((1, 12, 3, 16), np.float32)
// PY:     k, v = rng.standard_normal((2, 1, 2, 600, 16), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @gqa_decode_sets(%q: tensor<1x12x3x16xf32>, %k: tensor<1x2x600x16xf32>, %v: tensor<1x2x600x16xf32>) -> tensor<1x12x3x16xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<1x12x3x16xf32>, tensor<1x2x600x16xf32>, tensor<1x2x600x16xf32> -> tensor<1x12x3x16xf32>
  return %o : tensor<1x12x3x16xf32>
}

// The decode step of a model: dynamic batch, query length and keys.
// PY: def case_gqa_decode_dynamic(rng):
// PY:     q = rng.standard_normal((2, 6, 1, 16), np.float32)
// PY:     k, v = rng.standard_normal((2, 2, 3, 75, 16), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @gqa_decode_dynamic(%q: tensor<?x6x?x16xf32>, %k: tensor<?x3x?x16xf32>, %v: tensor<?x3x?x16xf32>) -> tensor<?x6x?x16xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<?x6x?x16xf32>, tensor<?x3x?x16xf32>, tensor<?x3x?x16xf32> -> tensor<?x6x?x16xf32>
  return %o : tensor<?x6x?x16xf32>
}

// Heads known only at run time (checked to divide there).
// PY: def case_gqa_dynamic_heads(rng):
// PY:     q = rng.standard_normal((1, 6, 9, 8), np.float32)
// PY:     k, v = rng.standard_normal((2, 1, 3, 9, 8), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v)]
func.func @gqa_dynamic_heads(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %o = transformer.attention %q, %k, %v : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}

// Sliding-window attention (Mistral) with grouped heads.
// PY: def case_gqa_window(rng):
// PY:     q = rng.standard_normal((1, 4, 40, 8), np.float32)
// PY:     k, v = rng.standard_normal((2, 1, 2, 40, 8), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True, window=16)]
func.func @gqa_window(%q: tensor<1x4x40x8xf32>, %k: tensor<1x2x40x8xf32>, %v: tensor<1x2x40x8xf32>) -> tensor<1x4x40x8xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 16 : i64} : tensor<1x4x40x8xf32>, tensor<1x2x40x8xf32>, tensor<1x2x40x8xf32> -> tensor<1x4x40x8xf32>
  return %o : tensor<1x4x40x8xf32>
}

// One key/value head for every query head (multi-query attention) and a
// mask per batch.
// PY: def case_mqa_masked(rng):
// PY:     q = rng.standard_normal((2, 4, 5, 8), np.float32)
// PY:     k, v = rng.standard_normal((2, 2, 1, 7, 8), np.float32)
// PY:     m = np.where(rng.random((2, 1, 5, 7)) < 0.3, -np.inf, 0.0).astype(np.float32)
// PY:     m[..., 0] = 0
// PY:     return [q, k, v, m], [ref.attention(q, k, v, mask=m)]
func.func @mqa_masked(%q: tensor<2x4x5x8xf32>, %k: tensor<2x1x7x8xf32>, %v: tensor<2x1x7x8xf32>, %m: tensor<2x1x5x7xf32>) -> tensor<2x4x5x8xf32> {
  %o = transformer.attention %q, %k, %v mask(%m : tensor<2x1x5x7xf32>) : tensor<2x4x5x8xf32>, tensor<2x1x7x8xf32>, tensor<2x1x7x8xf32> -> tensor<2x4x5x8xf32>
  return %o : tensor<2x4x5x8xf32>
}

// The prefill kernel (more than 16 queries) with a batch of 2: query head
// (b, h) reads key/value head (b, h / 2) of the collapsed [B*H] view.
// PY: def case_gqa_prefill_batched(rng):
// PY:     q = rng.standard_normal((2, 4, 20, 8), np.float32)
// PY:     k, v = rng.standard_normal((2, 2, 2, 20, 8), np.float32)
// PY:     return [q, k, v], [ref.attention(q, k, v, causal=True)]
func.func @gqa_prefill_batched(%q: tensor<2x4x20x8xf32>, %k: tensor<2x2x20x8xf32>, %v: tensor<2x2x20x8xf32>) -> tensor<2x4x20x8xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<2x4x20x8xf32>, tensor<2x2x20x8xf32>, tensor<2x2x20x8xf32> -> tensor<2x4x20x8xf32>
  return %o : tensor<2x4x20x8xf32>
}
