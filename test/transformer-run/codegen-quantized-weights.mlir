// Block-quantized weights (ggml's Q8_0 and Q4_0, transformer.dequantize)
// consumed by linear, matmul with transpose_b and embedding, through every
// form of the CPU codegen: the dot kernel of few rows reading the blocks
// (static and dynamic row counts, columns not a multiple of its register
// tile), the tiled path of many rows (B expanded by the dequantization
// kernel), the tied embedding and LM head, and the simple lowering at -O0.
// The blocks come from the tests' quantizer (bit-exact with ggml's
// reference); the reference dequantizes them and computes in float64.
// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t -O0 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=2 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @embedding_q4_0: result[0] 2x5x64
// CHECK: PASS @linear_q4_0_dot: result[0] 3x2304
// CHECK: PASS @linear_q4_0_many_row_tiles: result[0] 1100x96
// CHECK: PASS @linear_q4_0_tiles: result[0] 130x200
// CHECK: PASS @linear_q8_0_dot: result[0] 1x1x96
// CHECK: PASS @linear_q8_0_dynamic: result[0] 9x70
// CHECK: PASS @linear_q8_0_dynamic: result[1] 40x70
// CHECK: PASS @linear_q8_0_k_blocks: result[0] 140x300
// CHECK: PASS @matmul_q8_0_batched: result[0] 2x19x45
// CHECK: PASS @tied_head_q8_0: result[0] 4x96
// CHECK: PASS @tied_head_q8_0: result[1] 1x1000

// PY: def weight(rng, n, k, fmt):
// PY:     blocks = bq.quantize(rng.standard_normal((n, k), np.float32), fmt).view(np.int8)
// PY:     return blocks, bq.dequantize(blocks, fmt)

// PY: def case_linear_q8_0_dot(rng):
// PY:     q, w = weight(rng, 96, 64, "q8_0")
// PY:     x, b = rng.standard_normal((1, 1, 64), np.float32), rng.standard_normal(96, np.float32)
// PY:     return [x, q, b], [ref.linear(x, w, b)]
func.func @linear_q8_0_dot(%x: tensor<1x1x64xf32>, %q: tensor<96x2x34xi8>, %b: tensor<96xf32>) -> tensor<1x1x96xf32> {
  %w = transformer.dequantize q8_0 %q : tensor<96x2x34xi8> -> tensor<96x64xf32>
  %0 = transformer.linear %x, %w, %b : tensor<1x1x64xf32>, tensor<96x64xf32>, tensor<96xf32> -> tensor<1x1x96xf32>
  return %0 : tensor<1x1x96xf32>
}

// PY: def case_linear_q4_0_dot(rng):
// PY:     q, w = weight(rng, 2304, 256, "q4_0")
// PY:     x, b = rng.standard_normal((3, 256), np.float32), rng.standard_normal(2304, np.float32)
// PY:     return [x, q, b], [ref.linear(x, w, b)]
func.func @linear_q4_0_dot(%x: tensor<3x256xf32>, %q: tensor<2304x8x18xi8>, %b: tensor<2304xf32>) -> tensor<3x2304xf32> {
  %w = transformer.dequantize q4_0 %q : tensor<2304x8x18xi8> -> tensor<2304x256xf32>
  %0 = transformer.linear %x, %w, %b : tensor<3x256xf32>, tensor<2304x256xf32>, tensor<2304xf32> -> tensor<3x2304xf32>
  return %0 : tensor<3x2304xf32>
}

// PY: def case_linear_q4_0_tiles(rng):
// PY:     q, w = weight(rng, 200, 96, "q4_0")
// PY:     x, b = rng.standard_normal((130, 96), np.float32), rng.standard_normal(200, np.float32)
// PY:     return [x, q, b], [ref.linear(x, w, b)]
func.func @linear_q4_0_tiles(%x: tensor<130x96xf32>, %q: tensor<200x3x18xi8>, %b: tensor<200xf32>) -> tensor<130x200xf32> {
  %w = transformer.dequantize q4_0 %q : tensor<200x3x18xi8> -> tensor<200x96xf32>
  %0 = transformer.linear %x, %w, %b : tensor<130x96xf32>, tensor<200x96xf32>, tensor<200xf32> -> tensor<130x200xf32>
  return %0 : tensor<130x200xf32>
}

// Few rows and many rows through the same function: the kernel is chosen at
// run time.
// PY: def case_linear_q8_0_dynamic(rng):
// PY:     q, w = weight(rng, 70, 64, "q8_0")
// PY:     x, y = rng.standard_normal((9, 64), np.float32), rng.standard_normal((40, 64), np.float32)
// PY:     return [x, y, q], [x @ w.T.astype(np.float64), y @ w.T.astype(np.float64)]
func.func @linear_q8_0_dynamic(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>, %q: tensor<70x2x34xi8>) -> (tensor<?x70xf32>, tensor<?x70xf32>) {
  %w = transformer.dequantize q8_0 %q : tensor<70x2x34xi8> -> tensor<70x64xf32>
  %0 = transformer.matmul %x, %w {transpose_b} : tensor<?x64xf32>, tensor<70x64xf32> -> tensor<?x70xf32>
  %1 = transformer.matmul %y, %w {transpose_b} : tensor<?x64xf32>, tensor<70x64xf32> -> tensor<?x70xf32>
  return %0, %1 : tensor<?x70xf32>, tensor<?x70xf32>
}

// Many rows of a dynamic count: B made per cache tile and k block from the
// blocks (K = 320: blocks of 128, 128 and 64; 300 columns, padded to 320).
// A smaller x keeps the f32 sums of 320 products within the tolerance.
// PY: def case_linear_q8_0_k_blocks(rng):
// PY:     q, w = weight(rng, 300, 320, "q8_0")
// PY:     x, b = 0.25 * rng.standard_normal((140, 320), np.float32), rng.standard_normal(300, np.float32)
// PY:     return [x, q, b], [ref.linear(x, w, b)]
func.func @linear_q8_0_k_blocks(%x: tensor<?x320xf32>, %q: tensor<300x10x34xi8>, %b: tensor<300xf32>) -> tensor<?x300xf32> {
  %w = transformer.dequantize q8_0 %q : tensor<300x10x34xi8> -> tensor<300x320xf32>
  %0 = transformer.linear %x, %w, %b : tensor<?x320xf32>, tensor<300x320xf32>, tensor<300xf32> -> tensor<?x300xf32>
  return %0 : tensor<?x300xf32>
}

// Many cache tiles along m: B made whole once, before them.
// PY: def case_linear_q4_0_many_row_tiles(rng):
// PY:     q, w = weight(rng, 96, 64, "q4_0")
// PY:     x, b = rng.standard_normal((1100, 64), np.float32), rng.standard_normal(96, np.float32)
// PY:     return [x, q, b], [ref.linear(x, w, b)]
func.func @linear_q4_0_many_row_tiles(%x: tensor<1100x64xf32>, %q: tensor<96x2x18xi8>, %b: tensor<96xf32>) -> tensor<1100x96xf32> {
  %w = transformer.dequantize q4_0 %q : tensor<96x2x18xi8> -> tensor<96x64xf32>
  %0 = transformer.linear %x, %w, %b : tensor<1100x64xf32>, tensor<96x64xf32>, tensor<96xf32> -> tensor<1100x96xf32>
  return %0 : tensor<1100x96xf32>
}

// PY: def case_matmul_q8_0_batched(rng):
// PY:     q, w = weight(rng, 45, 32, "q8_0")
// PY:     x = rng.standard_normal((2, 19, 32), np.float32)
// PY:     return [x, q], [x.astype(np.float64) @ w.T.astype(np.float64)]
func.func @matmul_q8_0_batched(%x: tensor<2x19x32xf32>, %q: tensor<45x1x34xi8>) -> tensor<2x19x45xf32> {
  %w = transformer.dequantize q8_0 %q : tensor<45x1x34xi8> -> tensor<45x32xf32>
  %0 = transformer.matmul %x, %w {transpose_b} : tensor<2x19x32xf32>, tensor<45x32xf32> -> tensor<2x19x45xf32>
  return %0 : tensor<2x19x45xf32>
}

// PY: def case_embedding_q4_0(rng):
// PY:     q, w = weight(rng, 50, 64, "q4_0")
// PY:     ids = rng.integers(0, 50, (2, 5)).astype(np.int64)
// PY:     return [ids, q], [w[ids]]
func.func @embedding_q4_0(%ids: tensor<2x5xi64>, %q: tensor<50x2x18xi8>) -> tensor<2x5x64xf32> {
  %w = transformer.dequantize q4_0 %q : tensor<50x2x18xi8> -> tensor<50x64xf32>
  %0 = transformer.embedding %ids, %w : tensor<2x5xi64>, tensor<50x64xf32> -> tensor<2x5x64xf32>
  return %0 : tensor<2x5x64xf32>
}

// A token embedding tied to the LM head, as GPT-2 has it.
// PY: def case_tied_head_q8_0(rng):
// PY:     q, w = weight(rng, 1000, 96, "q8_0")
// PY:     ids = rng.integers(0, 1000, 4).astype(np.int64)
// PY:     x = rng.standard_normal((1, 96), np.float32)
// PY:     return [ids, x, q], [w[ids], x.astype(np.float64) @ w.T.astype(np.float64)]
func.func @tied_head_q8_0(%ids: tensor<4xi64>, %x: tensor<1x96xf32>, %q: tensor<1000x3x34xi8>) -> (tensor<4x96xf32>, tensor<1x1000xf32>) {
  %w = transformer.dequantize q8_0 %q : tensor<1000x3x34xi8> -> tensor<1000x96xf32>
  %e = transformer.embedding %ids, %w : tensor<4xi64>, tensor<1000x96xf32> -> tensor<4x96xf32>
  %0 = transformer.matmul %x, %w {transpose_b} : tensor<1x96xf32>, tensor<1000x96xf32> -> tensor<1x1000xf32>
  return %e, %0 : tensor<4x96xf32>, tensor<1x1000xf32>
}
