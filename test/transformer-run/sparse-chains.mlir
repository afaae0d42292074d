// REQUIRES: numpy
// Unfused attention chains (masked_softmax then matmul, not fused into one
// attention) at -O2 and up: --transformer-cpu-sparse-chains computes only the
// blocks that the static mask table (--transformer-mask-sparsity) leaves,
// checked against float64 numpy. Each chain stays unfused: its probabilities
// have another use, its scores have an extra op, or the values are shared by
// the batch. Sizes are not multiples of the 64 x 64 blocks.
// RUN: %python %test_lib/run_reference.py %s %t --threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t --threads=2 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O3 --threads=2 | FileCheck %s
// The generic lowering gives the same results (the pass is -O2 and up).
// RUN: %python %test_lib/run_reference.py %s %t -O0 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @batch_mask_table: result[0] 2x3x70x8
// CHECK: PASS @block_diagonal: result[0] 3x150x16
// CHECK: PASS @block_diagonal: result[1] 3x150x150
// CHECK: PASS @causal_bias: result[0] 1x2x200x24
// CHECK: PASS @causal_probs: result[0] 2x130x16
// CHECK: PASS @causal_probs: result[1] 2x130x130
// CHECK: PASS @dynamic_batch: result[0] 3x70x8
// CHECK: PASS @fully_masked_rows: result[0] 150x16
// CHECK: PASS @fully_masked_rows: result[1] 150x90
// CHECK: PASS @masked_row_block: result[0] 2x130x8
// CHECK: PASS @masked_row_block: result[1] 2x130x70
// CHECK: PASS @strided: result[0] 2x130x16
// CHECK: PASS @window_small: result[0] 300x32

// Causal; the probabilities are also returned.
// PY: def case_causal_probs(rng):
// PY:     q, k, v = (rng.standard_normal((2, 130, 16), np.float32) for _ in range(3))
// PY:     p = ref.masked_softmax(ref.matmul(q, k, transpose_b=True), ref.causal_mask(130, 130))
// PY:     return [q, k, v], [p @ ref.f64(v), p]
func.func @causal_probs(%q: tensor<2x130x16xf32>, %k: tensor<2x130x16xf32>, %v: tensor<2x130x16xf32>) -> (tensor<2x130x16xf32>, tensor<2x130x130xf32>) {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<2x130x16xf32>, tensor<2x130x16xf32> -> tensor<2x130x130xf32>
  %m = transformer.create_causal_mask : tensor<130x130xf32>
  %p = transformer.masked_softmax %s, %m : tensor<2x130x130xf32>, tensor<130x130xf32> -> tensor<2x130x130xf32>
  %o = transformer.matmul %p, %v : tensor<2x130x130xf32>, tensor<2x130x16xf32> -> tensor<2x130x16xf32>
  return %o, %p : tensor<2x130x16xf32>, tensor<2x130x130xf32>
}

// Causal with heads, a bias added to the scores (so no fusion) and a scale
// of the probabilities (which keeps their zero blocks) before P @ V.
// PY: def case_causal_bias(rng):
// PY:     q, k, v = (rng.standard_normal((1, 2, 200, 24), np.float32) for _ in range(3))
// PY:     bias = rng.standard_normal((200, 200), np.float32)
// PY:     s = ref.matmul(q, k, transpose_b=True) + ref.f64(bias)
// PY:     p = 0.5 * ref.masked_softmax(s, ref.causal_mask(200, 200))
// PY:     return [q, k, v, bias], [p @ ref.f64(v)]
func.func @causal_bias(%q: tensor<1x2x200x24xf32>, %k: tensor<1x2x200x24xf32>, %v: tensor<1x2x200x24xf32>, %bias: tensor<200x200xf32>) -> tensor<1x2x200x24xf32> {
  %s0 = transformer.matmul %q, %k {transpose_b} : tensor<1x2x200x24xf32>, tensor<1x2x200x24xf32> -> tensor<1x2x200x200xf32>
  %s = transformer.add %s0, %bias : tensor<1x2x200x200xf32>, tensor<200x200xf32> -> tensor<1x2x200x200xf32>
  %m = transformer.create_causal_mask : tensor<1x1x200x200xf32>
  %p0 = transformer.masked_softmax %s, %m : tensor<1x2x200x200xf32>, tensor<1x1x200x200xf32> -> tensor<1x2x200x200xf32>
  %p = transformer.scale %p0 {factor = 0.5 : f32} : tensor<1x2x200x200xf32> -> tensor<1x2x200x200xf32>
  %o = transformer.matmul %p, %v : tensor<1x2x200x200xf32>, tensor<1x2x200x24xf32> -> tensor<1x2x200x24xf32>
  return %o : tensor<1x2x200x24xf32>
}

// A window of 20 keys (smaller than a block): a band of P and V blocks.
// PY: def case_window_small(rng):
// PY:     q, k, v = (rng.standard_normal((300, 32), np.float32) for _ in range(3))
// PY:     bias = rng.standard_normal((300, 300), np.float32)
// PY:     s = ref.matmul(q, k, transpose_b=True) + ref.f64(bias)
// PY:     return [q, k, v, bias], [ref.masked_softmax(s, ref.causal_mask(300, 300, 20)) @ ref.f64(v)]
func.func @window_small(%q: tensor<300x32xf32>, %k: tensor<300x32xf32>, %v: tensor<300x32xf32>, %bias: tensor<300x300xf32>) -> tensor<300x32xf32> {
  %s0 = transformer.matmul %q, %k {transpose_b} : tensor<300x32xf32>, tensor<300x32xf32> -> tensor<300x300xf32>
  %s = transformer.add %s0, %bias : tensor<300x300xf32>, tensor<300x300xf32> -> tensor<300x300xf32>
  %m = transformer.create_causal_mask {window = 20 : i64} : tensor<300x300xf32>
  %p = transformer.masked_softmax %s, %m : tensor<300x300xf32>, tensor<300x300xf32> -> tensor<300x300xf32>
  %o = transformer.matmul %p, %v : tensor<300x300xf32>, tensor<300x32xf32> -> tensor<300x32xf32>
  return %o : tensor<300x32xf32>
}

// A constant block-diagonal mask whose blocks (96 wide) do not align with
// the 64 x 64 table: rows of V, P and M blocks, runs that are not one band;
// the values are shared by the batch (rank-2 rhs).
// PY: def case_block_diagonal(rng):
// PY:     s = rng.standard_normal((3, 150, 150), np.float32)
// PY:     v = rng.standard_normal((150, 16), np.float32)
// PY:     m = np.full((150, 150), -np.inf); m[:96, :96] = 0; m[96:, 96:] = 0
// PY:     p = ref.masked_softmax(s, m)
// PY:     return [s, v], [p @ ref.f64(v), p]
func.func @block_diagonal(%s: tensor<3x150x150xf32>, %v: tensor<150x16xf32>) -> (tensor<3x150x16xf32>, tensor<3x150x150xf32>) {
  %ninf = arith.constant dense<0xFF800000> : tensor<150x150xf32>
  %z0 = arith.constant dense<0.0> : tensor<96x96xf32>
  %z1 = arith.constant dense<0.0> : tensor<54x54xf32>
  %m0 = tensor.insert_slice %z0 into %ninf[0, 0] [96, 96] [1, 1] : tensor<96x96xf32> into tensor<150x150xf32>
  %m = tensor.insert_slice %z1 into %m0[96, 96] [54, 54] [1, 1] : tensor<54x54xf32> into tensor<150x150xf32>
  %p = transformer.masked_softmax %s, %m : tensor<3x150x150xf32>, tensor<150x150xf32> -> tensor<3x150x150xf32>
  %o = transformer.matmul %p, %v : tensor<3x150x150xf32>, tensor<150x16xf32> -> tensor<3x150x16xf32>
  return %o, %p : tensor<3x150x16xf32>, tensor<3x150x150xf32>
}

// More queries than keys (bottom-right causal): the first 60 queries see no
// key and give zero rows, inside a partial block.
// PY: def case_fully_masked_rows(rng):
// PY:     s = rng.standard_normal((150, 90), np.float32)
// PY:     v = rng.standard_normal((16, 90), np.float32)
// PY:     p = ref.masked_softmax(s, ref.causal_mask(150, 90))
// PY:     return [s, v], [p @ ref.f64(v).T, p]
func.func @fully_masked_rows(%s: tensor<150x90xf32>, %v: tensor<16x90xf32>) -> (tensor<150x16xf32>, tensor<150x90xf32>) {
  %m = transformer.create_causal_mask : tensor<150x90xf32>
  %p = transformer.masked_softmax %s, %m : tensor<150x90xf32>, tensor<150x90xf32> -> tensor<150x90xf32>
  %o = transformer.matmul %p, %v {transpose_b} : tensor<150x90xf32>, tensor<16x90xf32> -> tensor<150x16xf32>
  return %o, %p : tensor<150x16xf32>, tensor<150x90xf32>
}

// A whole block of rows fully masked (its blocks are all M): zeros.
// PY: def case_masked_row_block(rng):
// PY:     s = rng.standard_normal((2, 130, 70), np.float32)
// PY:     v = rng.standard_normal((2, 70, 8), np.float32)
// PY:     m = np.full((130, 70), -np.inf); m[64:, :] = 0
// PY:     p = ref.masked_softmax(s, m)
// PY:     return [s, v], [p @ ref.f64(v), p]
func.func @masked_row_block(%s: tensor<2x130x70xf32>, %v: tensor<2x70x8xf32>) -> (tensor<2x130x8xf32>, tensor<2x130x70xf32>) {
  %ninf = arith.constant dense<0xFF800000> : tensor<130x70xf32>
  %z = arith.constant dense<0.0> : tensor<66x70xf32>
  %m = tensor.insert_slice %z into %ninf[64, 0] [66, 70] [1, 1] : tensor<66x70xf32> into tensor<130x70xf32>
  %p = transformer.masked_softmax %s, %m : tensor<2x130x70xf32>, tensor<130x70xf32> -> tensor<2x130x70xf32>
  %o = transformer.matmul %p, %v : tensor<2x130x70xf32>, tensor<2x70x8xf32> -> tensor<2x130x8xf32>
  return %o, %p : tensor<2x130x8xf32>, tensor<2x130x70xf32>
}

// A dynamic batch dimension (the table needs only the last two dims).
// PY: def case_dynamic_batch(rng):
// PY:     s = rng.standard_normal((3, 70, 70), np.float32)
// PY:     v = rng.standard_normal((3, 70, 8), np.float32)
// PY:     p = ref.masked_softmax(s, ref.causal_mask(70, 70, 30))
// PY:     return [s, v], [p @ ref.f64(v)]
func.func @dynamic_batch(%s: tensor<?x70x70xf32>, %v: tensor<?x70x8xf32>) -> tensor<?x70x8xf32> {
  %m = transformer.create_causal_mask {window = 30 : i64} : tensor<70x70xf32>
  %p = transformer.masked_softmax %s, %m : tensor<?x70x70xf32>, tensor<70x70xf32> -> tensor<?x70x70xf32>
  %o = transformer.matmul %p, %v : tensor<?x70x70xf32>, tensor<?x70x8xf32> -> tensor<?x70x8xf32>
  return %o : tensor<?x70x8xf32>
}

// A table written in the input (the analysis only sees masks that it can
// evaluate) on a run-time mask with a dimension of its own, which the table
// describes: block (0, 1) all -inf, block (0, 0) all zeros.
// PY: def case_batch_mask_table(rng):
// PY:     s = rng.standard_normal((2, 3, 70, 130), np.float32)
// PY:     m = rng.standard_normal((3, 70, 130)).astype(np.float32)
// PY:     m[:, :64, :64] = 0; m[:, :64, 64:128] = -np.inf
// PY:     v = rng.standard_normal((2, 3, 130, 8), np.float32)
// PY:     return [s, m, v], [ref.masked_softmax(s, m) @ ref.f64(v)]
func.func @batch_mask_table(%s: tensor<2x3x70x130xf32>, %m: tensor<3x70x130xf32>, %v: tensor<2x3x130x8xf32>) -> tensor<2x3x70x8xf32> {
  %p = transformer.masked_softmax %s, %m {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["VMP", "PPP"]}} : tensor<2x3x70x130xf32>, tensor<3x70x130xf32> -> tensor<2x3x70x130xf32>
  %o = transformer.matmul %p, %v {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["VMP", "PPP"]}} : tensor<2x3x70x130xf32>, tensor<2x3x130x8xf32> -> tensor<2x3x70x8xf32>
  return %o : tensor<2x3x70x8xf32>
}

// A strided pattern (key blocks 0 and 2 visible, 1 and 3 masked): not a
// band, each block of rows contracts over two runs of keys.
// PY: def case_strided(rng):
// PY:     s = rng.standard_normal((2, 130, 200), np.float32)
// PY:     v = rng.standard_normal((2, 200, 16), np.float32)
// PY:     m = np.full((130, 200), -np.inf); m[:, :64] = 0; m[:, 128:192] = 0
// PY:     return [s, v], [ref.masked_softmax(s, m) @ ref.f64(v)]
func.func @strided(%s: tensor<2x130x200xf32>, %v: tensor<2x200x16xf32>) -> tensor<2x130x16xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<130x200xf32>
  %z = arith.constant dense<0.0> : tensor<130x64xf32>
  %m0 = tensor.insert_slice %z into %ninf[0, 0] [130, 64] [1, 1] : tensor<130x64xf32> into tensor<130x200xf32>
  %m = tensor.insert_slice %z into %m0[0, 128] [130, 64] [1, 1] : tensor<130x64xf32> into tensor<130x200xf32>
  %p = transformer.masked_softmax %s, %m : tensor<2x130x200xf32>, tensor<130x200xf32> -> tensor<2x130x200xf32>
  %o = transformer.matmul %p, %v : tensor<2x130x200xf32>, tensor<2x200x16xf32> -> tensor<2x130x16xf32>
  return %o : tensor<2x130x16xf32>
}
