// linear (x @ w^T + b, w is n x k) and matmul {transpose_b} through the CPU
// schedule: B read through its vectorized transposed copy, and the bias,
// GELU, residual add and scale fused into the contraction's cache tiles
// (lib/Codegen/CPU/Contraction/FuseEpilogues.cpp). Sizes that divide the tiles, odd
// sizes (37x53x61: peeled register, transpose and epilogue tiles), dynamic
// sizes (scalar remainders; a dynamic number of rows is not padded, the
// rows past the last multiple of 8 are computed row by row), batched; -O2 and -O3, 1 and 2 threads. With at
// most 4 cache tiles along m, B's transposed copy is made per cache tile and
// k block (tiles_* cases; a partial last k block), written straight into
// the register tiles' panels where a k block divides K (linear_divisible,
// linear_3d_residual: one block, linear_tiles_dividing_block: blocks of
// 112); beyond, once.
// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=2 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O3 --threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O3 --threads=2 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @batched_transpose_b: result[0] 2x19x45
// CHECK: PASS @linear_3d_gelu: result[0] 2x37x53
// CHECK: PASS @linear_3d_residual: result[0] 2x150x128
// CHECK: PASS @linear_3d_residual_one_batch: result[0] 1x300x128
// CHECK: PASS @linear_divisible: result[0] 256x512
// CHECK: PASS @linear_dynamic: result[0] 45x70
// CHECK: PASS @linear_dynamic_gelu_residual: result[0] 45x70
// CHECK: PASS @linear_dynamic_rows: result[0] 1x128
// CHECK: PASS @linear_dynamic_rows: result[1] 5x128
// CHECK: PASS @linear_dynamic_rows: result[2] 13x128
// CHECK: PASS @linear_dynamic_rows: result[3] 203x128
// CHECK: PASS @linear_erf_gelu: result[0] 20x40
// CHECK: PASS @linear_gelu: result[0] 128x300
// CHECK: PASS @linear_large_gelu: result[0] 610x1024
// CHECK: PASS @linear_large_odd_gelu: result[0] 610x1000
// CHECK: PASS @linear_odd: result[0] 37x53
// CHECK: PASS @linear_residual_scale: result[0] 37x53
// CHECK: PASS @linear_shared_result: result[0] 37x53
// CHECK: PASS @linear_shared_result: result[1] 37x53
// CHECK: PASS @linear_tiles_dividing_block: result[0] 40x96
// CHECK: PASS @linear_tiles_gelu: result[0] 64x96
// CHECK: PASS @linear_tiles_many_rows: result[0] 520x64
// CHECK: PASS @transpose_b_divisible: result[0] 128x256
// CHECK: PASS @transpose_b_dynamic: result[0] 45x70
// CHECK: PASS @transpose_b_odd: result[0] 37x53
// CHECK: PASS @transpose_b_tiles_batched: result[0] 2x48x64

// PY: def case_batched_transpose_b(rng):
// PY:     a, b = rng.standard_normal((2, 19, 30), np.float32), rng.standard_normal((2, 45, 30), np.float32)
// PY:     return [a, b], [ref.matmul(a, b, transpose_b=True)]
func.func @batched_transpose_b(%a: tensor<2x19x30xf32>, %b: tensor<2x45x30xf32>) -> tensor<2x19x45xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<2x19x30xf32>, tensor<2x45x30xf32> -> tensor<2x19x45xf32>
  return %0 : tensor<2x19x45xf32>
}

// A 3-D x: the (batch, row) loops collapse into m; GELU fused.
// PY: def case_linear_3d_gelu(rng):
// PY:     x, w, b = rng.standard_normal((2, 37, 61), np.float32), rng.standard_normal((53, 61), np.float32), rng.standard_normal((53,), np.float32)
// PY:     return [x, w, b], [ref.gelu_tanh(ref.linear(x, w, b))]
func.func @linear_3d_gelu(%x: tensor<2x37x61xf32>, %w: tensor<53x61xf32>, %b: tensor<53xf32>) -> tensor<2x37x53xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<2x37x61xf32>, tensor<53x61xf32>, tensor<53xf32> -> tensor<2x37x53xf32>
  %1 = transformer.gelu %0 : tensor<2x37x53xf32> -> tensor<2x37x53xf32>
  return %1 : tensor<2x37x53xf32>
}

// A 3-D x with n a multiple of the register tile: bias, GELU and the
// residual add after the (batch, row) loops are collapsed, the reshapes
// moved across the bias broadcast and the GELU (prepare-contractions), an
// add one step further on the 3-D result; batch 1 as a [1, S, D] model
// writes it, and batch 2.
// PY: def case_linear_3d_residual(rng):
// PY:     x, w, b, r = rng.standard_normal((2, 150, 96), np.float32), rng.standard_normal((128, 96), np.float32), rng.standard_normal((128,), np.float32), rng.standard_normal((2, 150, 128), np.float32)
// PY:     return [x, w, b, r], [ref.gelu_tanh(ref.linear(x, w, b)) + r]
func.func @linear_3d_residual(%x: tensor<2x150x96xf32>, %w: tensor<128x96xf32>, %b: tensor<128xf32>, %r: tensor<2x150x128xf32>) -> tensor<2x150x128xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<2x150x96xf32>, tensor<128x96xf32>, tensor<128xf32> -> tensor<2x150x128xf32>
  %1 = transformer.gelu %0 : tensor<2x150x128xf32> -> tensor<2x150x128xf32>
  %2 = transformer.add %1, %r : tensor<2x150x128xf32>, tensor<2x150x128xf32> -> tensor<2x150x128xf32>
  return %2 : tensor<2x150x128xf32>
}

// PY: def case_linear_3d_residual_one_batch(rng):
// PY:     x, w, b, r = rng.standard_normal((1, 300, 96), np.float32), rng.standard_normal((128, 96), np.float32), rng.standard_normal((128,), np.float32), rng.standard_normal((1, 300, 128), np.float32)
// PY:     return [x, w, b, r], [r + ref.linear(x, w, b)]
func.func @linear_3d_residual_one_batch(%x: tensor<1x300x96xf32>, %w: tensor<128x96xf32> {transformer.constant}, %b: tensor<128xf32>, %r: tensor<1x300x128xf32>) -> tensor<1x300x128xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<1x300x96xf32>, tensor<128x96xf32>, tensor<128xf32> -> tensor<1x300x128xf32>
  %1 = transformer.add %r, %0 : tensor<1x300x128xf32>, tensor<1x300x128xf32> -> tensor<1x300x128xf32>
  return %1 : tensor<1x300x128xf32>
}

// Two cache tiles in m and n, k in two blocks.
// PY: def case_linear_divisible(rng):
// PY:     # Positive inputs: no cancellation in the long f32 sums.
// PY:     x, w, b = rng.random((256, 512), np.float32), rng.random((512, 512), np.float32), rng.random((512,), np.float32)
// PY:     return [x, w, b], [ref.linear(x, w, b)]
func.func @linear_divisible(%x: tensor<256x512xf32>, %w: tensor<512x512xf32>, %b: tensor<512xf32>) -> tensor<256x512xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<256x512xf32>, tensor<512x512xf32>, tensor<512xf32> -> tensor<256x512xf32>
  return %0 : tensor<256x512xf32>
}

// k = 300: two k blocks. Positive inputs: no cancellation in the long sums.
// PY: def case_linear_dynamic(rng):
// PY:     x, w, b = rng.random((45, 300), np.float32), rng.random((70, 300), np.float32), rng.standard_normal((70,), np.float32)
// PY:     return [x, w, b], [ref.linear(x, w, b)]
func.func @linear_dynamic(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A dynamic number of rows by GPT-2's layout of weights (k x n): the row
// form for at most 3 rows, else register tiles with the rows past the last
// multiple of 8 one by one (5 rows: all of them; 13: 8 + 5; 203: tiles of 64
// rows, the last of 11 = 8 + 3), the bias and GELU fused in both cases.
// PY: def case_linear_dynamic_rows(rng):
// PY:     w, b = rng.standard_normal((96, 128), np.float32), rng.standard_normal((128,), np.float32)
// PY:     xs = [rng.standard_normal((m, 96), np.float32) for m in (1, 5, 13, 203)]
// PY:     return xs + [w, b], [ref.gelu_tanh(x @ w + b) for x in xs]
func.func @linear_dynamic_rows(%x1: tensor<?x96xf32>, %x2: tensor<?x96xf32>, %x3: tensor<?x96xf32>, %x4: tensor<?x96xf32>, %w: tensor<96x128xf32>, %b: tensor<128xf32>) -> (tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>) {
  %0 = transformer.matmul %x1, %w : tensor<?x96xf32>, tensor<96x128xf32> -> tensor<?x128xf32>
  %1 = transformer.add %0, %b : tensor<?x128xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %2 = transformer.gelu %1 : tensor<?x128xf32> -> tensor<?x128xf32>
  %3 = transformer.matmul %x2, %w : tensor<?x96xf32>, tensor<96x128xf32> -> tensor<?x128xf32>
  %4 = transformer.add %3, %b : tensor<?x128xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %5 = transformer.gelu %4 : tensor<?x128xf32> -> tensor<?x128xf32>
  %6 = transformer.matmul %x3, %w : tensor<?x96xf32>, tensor<96x128xf32> -> tensor<?x128xf32>
  %7 = transformer.add %6, %b : tensor<?x128xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %8 = transformer.gelu %7 : tensor<?x128xf32> -> tensor<?x128xf32>
  %9 = transformer.matmul %x4, %w : tensor<?x96xf32>, tensor<96x128xf32> -> tensor<?x128xf32>
  %10 = transformer.add %9, %b : tensor<?x128xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %11 = transformer.gelu %10 : tensor<?x128xf32> -> tensor<?x128xf32>
  return %2, %5, %8, %11 : tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>, tensor<?x128xf32>
}

// PY: def case_linear_dynamic_gelu_residual(rng):
// PY:     x, w, b = rng.standard_normal((45, 61), np.float32), rng.standard_normal((70, 61), np.float32), rng.standard_normal((70,), np.float32)
// PY:     r = rng.standard_normal((45, 70), np.float32)
// PY:     return [x, w, b, r], [r + ref.gelu_tanh(ref.linear(x, w, b))]
func.func @linear_dynamic_gelu_residual(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>, %r: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  %1 = transformer.gelu %0 : tensor<?x?xf32> -> tensor<?x?xf32>
  %2 = transformer.add %r, %1 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}

// PY: def case_linear_erf_gelu(rng):
// PY:     x, w, b = rng.standard_normal((20, 33), np.float32), rng.standard_normal((40, 33), np.float32), rng.standard_normal((40,), np.float32)
// PY:     return [x, w, b], [ref.gelu_erf(ref.linear(x, w, b))]
func.func @linear_erf_gelu(%x: tensor<20x33xf32>, %w: tensor<40x33xf32>, %b: tensor<40xf32>) -> tensor<20x40xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<20x33xf32>, tensor<40x33xf32>, tensor<40xf32> -> tensor<20x40xf32>
  %1 = transformer.gelu %0 {approximate = "none"} : tensor<20x40xf32> -> tensor<20x40xf32>
  return %1 : tensor<20x40xf32>
}

// The GPT-2 MLP's first half at a small size: n = 300 leaves a cache tile of
// 44 columns and an epilogue remainder of 12.
// PY: def case_linear_gelu(rng):
// PY:     x, w, b = rng.standard_normal((128, 96), np.float32), rng.standard_normal((300, 96), np.float32), rng.standard_normal((300,), np.float32)
// PY:     return [x, w, b], [ref.gelu_tanh(ref.linear(x, w, b))]
func.func @linear_gelu(%x: tensor<128x96xf32>, %w: tensor<300x96xf32>, %b: tensor<300xf32>) -> tensor<128x300xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<128x96xf32>, tensor<300x96xf32>, tensor<300xf32> -> tensor<128x300xf32>
  %1 = transformer.gelu %0 : tensor<128x300xf32> -> tensor<128x300xf32>
  return %1 : tensor<128x300xf32>
}

// A result larger than the L2 (2.5 MB): each cache tile's bias and
// accumulator in a temporary of the tile's size, the GELU writing the
// result's slice; a partial last tile along m (610 rows).
// PY: def case_linear_large_gelu(rng):
// PY:     x, w, b = rng.standard_normal((610, 72), np.float32), rng.standard_normal((1024, 72), np.float32), rng.standard_normal((1024,), np.float32)
// PY:     return [x, w, b], [ref.gelu_tanh(ref.linear(x, w, b))]
func.func @linear_large_gelu(%x: tensor<610x72xf32>, %w: tensor<1024x72xf32>, %b: tensor<1024xf32>) -> tensor<610x1024xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<610x72xf32>, tensor<1024x72xf32>, tensor<1024xf32> -> tensor<610x1024xf32>
  %1 = transformer.gelu %0 : tensor<610x1024xf32> -> tensor<610x1024xf32>
  return %1 : tensor<610x1024xf32>
}

// An odd n (1000) and a result larger than the L2: n is padded to the
// register tile, the bias broadcast made at the padded size and the GELU
// computed before the result's slice, all in the cache tiles (and their
// temporaries); partial last tiles along m and n.
// PY: def case_linear_large_odd_gelu(rng):
// PY:     x, w, b = rng.standard_normal((610, 72), np.float32), rng.standard_normal((1000, 72), np.float32), rng.standard_normal((1000,), np.float32)
// PY:     return [x, w, b], [ref.gelu_tanh(ref.linear(x, w, b))]
func.func @linear_large_odd_gelu(%x: tensor<610x72xf32>, %w: tensor<1000x72xf32>, %b: tensor<1000xf32>) -> tensor<610x1000xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<610x72xf32>, tensor<1000x72xf32>, tensor<1000xf32> -> tensor<610x1000xf32>
  %1 = transformer.gelu %0 : tensor<610x1000xf32> -> tensor<610x1000xf32>
  return %1 : tensor<610x1000xf32>
}

// PY: def case_linear_odd(rng):
// PY:     x, w, b = rng.standard_normal((37, 61), np.float32), rng.standard_normal((53, 61), np.float32), rng.standard_normal((53,), np.float32)
// PY:     return [x, w, b], [ref.linear(x, w, b)]
func.func @linear_odd(%x: tensor<37x61xf32>, %w: tensor<53x61xf32>, %b: tensor<53xf32>) -> tensor<37x53xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<37x61xf32>, tensor<53x61xf32>, tensor<53xf32> -> tensor<37x53xf32>
  return %0 : tensor<37x53xf32>
}

// The residual add and a scale after it: both fused.
// PY: def case_linear_residual_scale(rng):
// PY:     x, w, b = rng.standard_normal((37, 61), np.float32), rng.standard_normal((53, 61), np.float32), rng.standard_normal((53,), np.float32)
// PY:     r = rng.standard_normal((37, 53), np.float32)
// PY:     return [x, w, b, r], [(ref.f64(r) + ref.linear(x, w, b)) * np.float32(0.37)]
func.func @linear_residual_scale(%x: tensor<37x61xf32>, %w: tensor<53x61xf32>, %b: tensor<53xf32>, %r: tensor<37x53xf32>) -> tensor<37x53xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<37x61xf32>, tensor<53x61xf32>, tensor<53xf32> -> tensor<37x53xf32>
  %1 = transformer.add %r, %0 : tensor<37x53xf32>, tensor<37x53xf32> -> tensor<37x53xf32>
  %2 = transformer.scale %1 {factor = 0.37 : f32} : tensor<37x53xf32> -> tensor<37x53xf32>
  return %2 : tensor<37x53xf32>
}

// The linear's result is used twice: nothing after it is fused, both results
// are right.
// PY: def case_linear_shared_result(rng):
// PY:     x, w, b = rng.standard_normal((37, 61), np.float32), rng.standard_normal((53, 61), np.float32), rng.standard_normal((53,), np.float32)
// PY:     y = ref.linear(x, w, b)
// PY:     return [x, w, b], [y, ref.gelu_tanh(y)]
func.func @linear_shared_result(%x: tensor<37x61xf32>, %w: tensor<53x61xf32>, %b: tensor<53xf32>) -> (tensor<37x53xf32>, tensor<37x53xf32>) {
  %0 = transformer.linear %x, %w, %b : tensor<37x61xf32>, tensor<53x61xf32>, tensor<53xf32> -> tensor<37x53xf32>
  %1 = transformer.gelu %0 : tensor<37x53xf32> -> tensor<37x53xf32>
  return %0, %1 : tensor<37x53xf32>, tensor<37x53xf32>
}

// PY: def case_transpose_b_divisible(rng):
// PY:     a, b = rng.random((128, 512), np.float32), rng.random((256, 512), np.float32)
// PY:     return [a, b], [ref.matmul(a, b, transpose_b=True)]
func.func @transpose_b_divisible(%a: tensor<128x512xf32>, %b: tensor<256x512xf32>) -> tensor<128x256xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<128x512xf32>, tensor<256x512xf32> -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// PY: def case_transpose_b_dynamic(rng):
// PY:     a, b = rng.random((45, 300), np.float32), rng.random((70, 300), np.float32)
// PY:     return [a, b], [ref.matmul(a, b, transpose_b=True)]
func.func @transpose_b_dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// PY: def case_transpose_b_odd(rng):
// PY:     a, b = rng.standard_normal((37, 61), np.float32), rng.standard_normal((53, 61), np.float32)
// PY:     return [a, b], [ref.matmul(a, b, transpose_b=True)]
func.func @transpose_b_odd(%a: tensor<37x61xf32>, %b: tensor<53x61xf32>) -> tensor<37x53xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<37x61xf32>, tensor<53x61xf32> -> tensor<37x53xf32>
  return %0 : tensor<37x53xf32>
}

// B's transposed copy per cache tile and k block: k = 600 is two blocks of
// 256 and one of 88. Positive inputs: no cancellation in the long sums.
// K = 336: k blocks of 112 (the largest multiple of the lanes from the
// target's k block down to its half that divides K), 40 rows (a remainder
// of rows below the register tile's).
// PY: def case_linear_tiles_dividing_block(rng):
// PY:     x, w, b = rng.random((40, 336), np.float32), rng.random((96, 336), np.float32) * 0.01, rng.standard_normal((96,), np.float32)
// PY:     return [x, w, b], [ref.linear(x, w, b)]
func.func @linear_tiles_dividing_block(%x: tensor<40x336xf32>, %w: tensor<96x336xf32>, %b: tensor<96xf32>) -> tensor<40x96xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<40x336xf32>, tensor<96x336xf32>, tensor<96xf32> -> tensor<40x96xf32>
  return %0 : tensor<40x96xf32>
}

// PY: def case_linear_tiles_gelu(rng):
// PY:     x, w, b = rng.random((64, 600), np.float32), rng.random((96, 600), np.float32) * 0.01, rng.standard_normal((96,), np.float32)
// PY:     return [x, w, b], [ref.gelu_tanh(ref.linear(x, w, b))]
func.func @linear_tiles_gelu(%x: tensor<64x600xf32>, %w: tensor<96x600xf32>, %b: tensor<96xf32>) -> tensor<64x96xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<64x600xf32>, tensor<96x600xf32>, tensor<96xf32> -> tensor<64x96xf32>
  %1 = transformer.gelu %0 : tensor<64x96xf32> -> tensor<64x96xf32>
  return %1 : tensor<64x96xf32>
}

// 520 rows: 5 cache tiles along m, so the transposed copy is made once.
// PY: def case_linear_tiles_many_rows(rng):
// PY:     x, w, b = rng.random((520, 300), np.float32), rng.random((64, 300), np.float32), rng.standard_normal((64,), np.float32)
// PY:     return [x, w, b], [ref.linear(x, w, b)]
func.func @linear_tiles_many_rows(%x: tensor<520x300xf32>, %w: tensor<64x300xf32>, %b: tensor<64xf32>) -> tensor<520x64xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<520x300xf32>, tensor<64x300xf32>, tensor<64xf32> -> tensor<520x64xf32>
  return %0 : tensor<520x64xf32>
}

// Batched: the 3-D transposed copy per cache tile and k block (k = 520: two
// blocks of 256 and one of 8).
// PY: def case_transpose_b_tiles_batched(rng):
// PY:     a, b = rng.random((2, 48, 520), np.float32), rng.random((2, 64, 520), np.float32)
// PY:     return [a, b], [ref.matmul(a, b, transpose_b=True)]
func.func @transpose_b_tiles_batched(%a: tensor<2x48x520xf32>, %b: tensor<2x64x520xf32>) -> tensor<2x48x64xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<2x48x520xf32>, tensor<2x64x520xf32> -> tensor<2x48x64xf32>
  return %0 : tensor<2x48x64xf32>
}
