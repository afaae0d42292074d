// Weights in bf16 and f16 with f32 activations: linear, matmul (plain and
// transpose_b) and embedding, through every contraction form of the CPU
// schedule (the dot and row kernels of few rows, the cache tiles with
// padded n and peeled m, dynamic row counts, a batched input) and the
// simple lowering at -O0. The runner rounds the f32 .npy data to each
// argument's 16-bit type; the reference rounds the same way (round to
// nearest even) and computes in float64.
// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t -O0 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=2 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O3 | FileCheck %s
// A CPU with AVX-512 BF16 (LLVM's backend once aborted on the 17-lane tail
// of @linear_bf16_tail's transposed copy), whatever the host:
// RUN: transformer-run %s -e linear_bf16_tail --emit=llvm-ir --target-cpu=znver5 | opt -O2 -mcpu=znver5 | llc -O2 -mcpu=znver5 -filetype=null
// CHECK-NOT: FAIL
// CHECK: PASS @embedding_bf16: result[0] 2x5x48
// CHECK: PASS @embedding_f16: result[0] 7x40
// CHECK: PASS @linear_bf16_dot: result[0] 1x1x96
// CHECK: PASS @linear_bf16_dynamic: result[0] 9x70
// CHECK: PASS @linear_bf16_tail: result[0] 37x81
// CHECK: PASS @linear_bf16_tiles: result[0] 2x37x100
// CHECK: PASS @linear_f16_dot: result[0] 3x2304
// CHECK: PASS @linear_f16_tiles: result[0] 130x770
// CHECK: PASS @matmul_bf16_row: result[0] 1x128
// CHECK: PASS @matmul_bf16_tiles: result[0] 260x96
// CHECK: PASS @matmul_f16_broadcast: result[0] 2x19x45
// CHECK: PASS @matmul_f16_transpose_b: result[0] 41x35

// PY: def case_linear_bf16_dot(rng):
// PY:     x, w, b = rng.standard_normal((1, 1, 64), np.float32), rng.standard_normal((96, 64), np.float32), rng.standard_normal(96, np.float32)
// PY:     return [x, w, b], [ref.linear(x, ref.round_to(w, "bf16"), b)]
func.func @linear_bf16_dot(%x: tensor<1x1x64xf32>, %w: tensor<96x64xbf16>, %b: tensor<96xf32>) -> tensor<1x1x96xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<1x1x64xf32>, tensor<96x64xbf16>, tensor<96xf32> -> tensor<1x1x96xf32>
  return %0 : tensor<1x1x96xf32>
}

// PY: def case_linear_f16_dot(rng):
// PY:     x, w, b = rng.standard_normal((3, 256), np.float32), rng.standard_normal((2304, 256), np.float32), rng.standard_normal(2304, np.float32)
// PY:     return [x, w, b], [ref.linear(x, ref.round_to(w, "f16"), b)]
func.func @linear_f16_dot(%x: tensor<3x256xf32>, %w: tensor<2304x256xf16>, %b: tensor<2304xf32>) -> tensor<3x2304xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<3x256xf32>, tensor<2304x256xf16>, tensor<2304xf32> -> tensor<3x2304xf32>
  return %0 : tensor<3x2304xf32>
}

// PY: def case_linear_bf16_tiles(rng):
// PY:     x, w, b = rng.standard_normal((2, 37, 100), np.float32), rng.standard_normal((100, 100), np.float32), rng.standard_normal(100, np.float32)
// PY:     return [x, w, b], [ref.linear(x, ref.round_to(w, "bf16"), b)]
func.func @linear_bf16_tiles(%x: tensor<2x37x100xf32>, %w: tensor<100x100xbf16>, %b: tensor<100xf32>) -> tensor<2x37x100xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<2x37x100xf32>, tensor<100x100xbf16>, tensor<100xf32> -> tensor<2x37x100xf32>
  return %0 : tensor<2x37x100xf32>
}

// Cache tiles over a weight 81 = 64 + 17 wide.
// PY: def case_linear_bf16_tail(rng):
// PY:     x, w, b = rng.standard_normal((37, 64), np.float32), rng.standard_normal((81, 64), np.float32), rng.standard_normal(81, np.float32)
// PY:     return [x, w, b], [ref.linear(x, ref.round_to(w, "bf16"), b)]
func.func @linear_bf16_tail(%x: tensor<37x64xf32>, %w: tensor<81x64xbf16>, %b: tensor<81xf32>) -> tensor<37x81xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<37x64xf32>, tensor<81x64xbf16>, tensor<81xf32> -> tensor<37x81xf32>
  return %0 : tensor<37x81xf32>
}

// PY: def case_linear_f16_tiles(rng):
// PY:     x, w, b = rng.standard_normal((130, 100), np.float32), rng.standard_normal((770, 100), np.float32), rng.standard_normal(770, np.float32)
// PY:     return [x, w, b], [ref.linear(x, ref.round_to(w, "f16"), b)]
func.func @linear_f16_tiles(%x: tensor<130x100xf32>, %w: tensor<770x100xf16>, %b: tensor<770xf32>) -> tensor<130x770xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<130x100xf32>, tensor<770x100xf16>, tensor<770xf32> -> tensor<130x770xf32>
  return %0 : tensor<130x770xf32>
}

// PY: def case_linear_bf16_dynamic(rng):
// PY:     x, w, b = rng.standard_normal((9, 64), np.float32), rng.standard_normal((70, 64), np.float32), rng.standard_normal(70, np.float32)
// PY:     return [x, w, b], [ref.linear(x, ref.round_to(w, "bf16"), b)]
func.func @linear_bf16_dynamic(%x: tensor<?x64xf32>, %w: tensor<70x64xbf16>, %b: tensor<70xf32>) -> tensor<?x70xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<?x64xf32>, tensor<70x64xbf16>, tensor<70xf32> -> tensor<?x70xf32>
  return %0 : tensor<?x70xf32>
}

// PY: def case_matmul_bf16_row(rng):
// PY:     a, b = rng.standard_normal((1, 200), np.float32), rng.standard_normal((200, 128), np.float32)
// PY:     return [a, b], [ref.matmul(a, ref.round_to(b, "bf16"))]
func.func @matmul_bf16_row(%a: tensor<1x200xf32>, %b: tensor<200x128xbf16>) -> tensor<1x128xf32> {
  %0 = transformer.matmul %a, %b : tensor<1x200xf32>, tensor<200x128xbf16> -> tensor<1x128xf32>
  return %0 : tensor<1x128xf32>
}

// PY: def case_matmul_bf16_tiles(rng):
// PY:     a, b = rng.standard_normal((260, 300), np.float32), rng.standard_normal((300, 96), np.float32)
// PY:     return [a, b], [ref.matmul(a, ref.round_to(b, "bf16"))]
func.func @matmul_bf16_tiles(%a: tensor<260x300xf32>, %b: tensor<300x96xbf16>) -> tensor<260x96xf32> {
  %0 = transformer.matmul %a, %b : tensor<260x300xf32>, tensor<300x96xbf16> -> tensor<260x96xf32>
  return %0 : tensor<260x96xf32>
}

// PY: def case_matmul_f16_broadcast(rng):
// PY:     a, b = rng.standard_normal((2, 19, 30), np.float32), rng.standard_normal((30, 45), np.float32)
// PY:     return [a, b], [ref.matmul(a, ref.round_to(b, "f16"))]
func.func @matmul_f16_broadcast(%a: tensor<2x19x30xf32>, %b: tensor<30x45xf16>) -> tensor<2x19x45xf32> {
  %0 = transformer.matmul %a, %b : tensor<2x19x30xf32>, tensor<30x45xf16> -> tensor<2x19x45xf32>
  return %0 : tensor<2x19x45xf32>
}

// PY: def case_matmul_f16_transpose_b(rng):
// PY:     a, b = rng.standard_normal((41, 33), np.float32), rng.standard_normal((35, 33), np.float32)
// PY:     return [a, b], [ref.matmul(a, ref.round_to(b, "f16"), transpose_b=True)]
func.func @matmul_f16_transpose_b(%a: tensor<41x33xf32>, %b: tensor<35x33xf16>) -> tensor<41x35xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<41x33xf32>, tensor<35x33xf16> -> tensor<41x35xf32>
  return %0 : tensor<41x35xf32>
}

// PY: def case_embedding_bf16(rng):
// PY:     ids, table = rng.integers(0, 50, (2, 5)).astype(np.int64), rng.standard_normal((50, 48), np.float32)
// PY:     return [ids, table], [ref.embedding(ids, ref.round_to(table, "bf16"))]
func.func @embedding_bf16(%ids: tensor<2x5xi64>, %table: tensor<50x48xbf16>) -> tensor<2x5x48xf32> {
  %0 = transformer.embedding %ids, %table : tensor<2x5xi64>, tensor<50x48xbf16> -> tensor<2x5x48xf32>
  return %0 : tensor<2x5x48xf32>
}

// PY: def case_embedding_f16(rng):
// PY:     ids, table = rng.integers(0, 30, 7).astype(np.int32), rng.standard_normal((30, 40), np.float32)
// PY:     return [ids, table], [ref.embedding(ids, ref.round_to(table, "f16"))]
func.func @embedding_f16(%ids: tensor<7xi32>, %table: tensor<30x40xf16>) -> tensor<7x40xf32> {
  %0 = transformer.embedding %ids, %table : tensor<7xi32>, tensor<30x40xf16> -> tensor<7x40xf32>
  return %0 : tensor<7x40xf32>
}
