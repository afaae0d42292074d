// Contractions through the CPU schedule (lib/Codegen/CPU) at -O2 and -O3,
// with 1 and 2 threads: sizes that divide the tiles, odd sizes (peeled
// register tiles), dynamic sizes (dynamic remainders stay scalar loops), and
// every form (batched, broadcast, transpose_b, linear with a 3-D input).
// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=2 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @batched: result[0] 3x40x72
// CHECK: PASS @broadcast_rhs: result[0] 2x19x45
// CHECK: PASS @divisible: result[0] 256x512
// CHECK: PASS @dot_dynamic_few: result[0] 2x300
// CHECK: PASS @dot_dynamic_many: result[0] 20x37
// CHECK: PASS @dot_linear: result[0] 1x1x70
// CHECK: PASS @dot_rows: result[0] 3x300
// CHECK: PASS @dynamic: result[0] 45x70
// CHECK: PASS @dynamic_batched: result[0] 2x9x37
// CHECK: PASS @large_result: result[0] 610x1040
// CHECK: PASS @linear: result[0] 2x21x67
// CHECK: PASS @odd: result[0] 37x53
// CHECK: PASS @panel_k_blocks: result[0] 300x64
// CHECK: PASS @row_dynamic_few: result[0] 2x320
// CHECK: PASS @row_dynamic_many: result[0] 5x320
// CHECK: PASS @row_dynamic_tiles: result[0] 20x320
// CHECK: PASS @row_groups: result[0] 11x320
// CHECK: PASS @row_linear_bias: result[0] 1x1x128
// CHECK: PASS @row_wide_dynamic: result[0] 6x512
// CHECK: PASS @row_wide_tasks: result[0] 1x768
// CHECK: PASS @transpose_b: result[0] 41x35

// PY: def case_batched(rng):
// PY:     a, b = rng.standard_normal((3, 40, 33), np.float32), rng.standard_normal((3, 33, 72), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @batched(%a: tensor<3x40x33xf32>, %b: tensor<3x33x72xf32>) -> tensor<3x40x72xf32> {
  %0 = transformer.matmul %a, %b : tensor<3x40x33xf32>, tensor<3x33x72xf32> -> tensor<3x40x72xf32>
  return %0 : tensor<3x40x72xf32>
}

// PY: def case_broadcast_rhs(rng):
// PY:     a, b = rng.standard_normal((2, 19, 30), np.float32), rng.standard_normal((30, 45), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @broadcast_rhs(%a: tensor<2x19x30xf32>, %b: tensor<30x45xf32>) -> tensor<2x19x45xf32> {
  %0 = transformer.matmul %a, %b : tensor<2x19x30xf32>, tensor<30x45xf32> -> tensor<2x19x45xf32>
  return %0 : tensor<2x19x45xf32>
}

// Two cache tiles in m and n, two in k.
// PY: def case_divisible(rng):
// PY:     # Positive inputs: no cancellation in the long f32 sums.
// PY:     a, b = rng.random((256, 512), np.float32), rng.random((512, 512), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @divisible(%a: tensor<256x512xf32>, %b: tensor<512x512xf32>) -> tensor<256x512xf32> {
  %0 = transformer.matmul %a, %b : tensor<256x512xf32>, tensor<512x512xf32> -> tensor<256x512xf32>
  return %0 : tensor<256x512xf32>
}

// A result larger than the L2 (2.5 MB): cache tiles accumulate in a
// temporary of their size that a copy writes to the result; partial tiles
// along m (610 rows) and n (1040 columns, padded to 1056). B is copied
// into panels once per call, and K is one k block (a tile's rows of A and a
// panel of 300 fit half the L2).
// PY: def case_large_result(rng):
// PY:     a, b = rng.random((610, 300), np.float32), rng.random((300, 1040), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @large_result(%a: tensor<610x300xf32>, %b: tensor<300x1040xf32>) -> tensor<610x1040xf32> {
  %0 = transformer.matmul %a, %b : tensor<610x300xf32>, tensor<300x1040xf32> -> tensor<610x1040xf32>
  return %0 : tensor<610x1040xf32>
}

// B in panels once per call (300 rows: more than one cache tile) with a K
// too deep for one k block: blocks of the target's cache k, then the rest.
// PY: def case_panel_k_blocks(rng):
// PY:     a, b = rng.random((300, 1100), np.float32), rng.random((1100, 64), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @panel_k_blocks(%a: tensor<300x1100xf32>, %b: tensor<1100x64xf32>) -> tensor<300x64xf32> {
  %0 = transformer.matmul %a, %b : tensor<300x1100xf32>, tensor<1100x64xf32> -> tensor<300x64xf32>
  return %0 : tensor<300x64xf32>
}

// Few rows by B indexed (n, k) (k a multiple of 16): the dot-product form
// (lib/Codegen/CPU/Contraction/DotKernel.cpp), 300 columns = one task of 256 and one of
// 44 (5 register tiles of 8 and 4 single columns); with a dynamic number of
// rows, chosen at run time (2 rows: dot form; 20: the transposed copy).
// PY: def case_dot_rows(rng):
// PY:     a, b = rng.standard_normal((3, 64), np.float32), rng.standard_normal((300, 64), np.float32)
// PY:     return [a, b], [ref.matmul(a, b, transpose_b=True)]
func.func @dot_rows(%a: tensor<3x64xf32>, %b: tensor<300x64xf32>) -> tensor<3x300xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<3x64xf32>, tensor<300x64xf32> -> tensor<3x300xf32>
  return %0 : tensor<3x300xf32>
}

// PY: def case_dot_dynamic_few(rng):
// PY:     a, b = rng.standard_normal((2, 48), np.float32), rng.standard_normal((300, 48), np.float32)
// PY:     return [a, b], [ref.matmul(a, b, transpose_b=True)]
func.func @dot_dynamic_few(%a: tensor<?x48xf32>, %b: tensor<?x48xf32>) -> tensor<?x?xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<?x48xf32>, tensor<?x48xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// PY: def case_dot_dynamic_many(rng):
// PY:     a, b = rng.standard_normal((20, 48), np.float32), rng.standard_normal((37, 48), np.float32)
// PY:     return [a, b], [ref.matmul(a, b, transpose_b=True)]
func.func @dot_dynamic_many(%a: tensor<?x48xf32>, %b: tensor<?x48xf32>) -> tensor<?x?xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<?x48xf32>, tensor<?x48xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A decode step's linear: the bias is the accumulator's initial value.
// PY: def case_dot_linear(rng):
// PY:     x, w, b = rng.standard_normal((1, 1, 64), np.float32), rng.standard_normal((70, 64), np.float32), rng.standard_normal((70,), np.float32)
// PY:     return [x, w, b], [ref.linear(x, w, b)]
func.func @dot_linear(%x: tensor<1x1x64xf32>, %w: tensor<70x64xf32>, %b: tensor<70xf32>) -> tensor<1x1x70xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<1x1x64xf32>, tensor<70x64xf32>, tensor<70xf32> -> tensor<1x1x70xf32>
  return %0 : tensor<1x1x70xf32>
}

// Few rows by B indexed (k, n), n a multiple of 64: the row form
// (lib/Codegen/CPU/Contraction/DotKernel.cpp), 320 columns = one task of 256
// and one of 64; with a dynamic number of rows chosen at run time. With
// AVX-512 rows go in groups of 4 that read B's row once, up to 16 rows (5:
// a group and a row; 11, static: two groups and three rows; 20: the
// register tiles); with AVX2 (the rerun) one at a time, up to 3 rows.
// PY: def case_row_dynamic_few(rng):
// PY:     a, b = rng.standard_normal((2, 70), np.float32), rng.standard_normal((70, 320), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @row_dynamic_few(%a: tensor<?x70xf32>, %b: tensor<70x320xf32>) -> tensor<?x320xf32> {
  %0 = transformer.matmul %a, %b : tensor<?x70xf32>, tensor<70x320xf32> -> tensor<?x320xf32>
  return %0 : tensor<?x320xf32>
}

// PY: def case_row_dynamic_many(rng):
// PY:     a, b = rng.standard_normal((5, 70), np.float32), rng.standard_normal((70, 320), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @row_dynamic_many(%a: tensor<?x70xf32>, %b: tensor<70x320xf32>) -> tensor<?x320xf32> {
  %0 = transformer.matmul %a, %b : tensor<?x70xf32>, tensor<70x320xf32> -> tensor<?x320xf32>
  return %0 : tensor<?x320xf32>
}

// PY: def case_row_groups(rng):
// PY:     a, b = rng.standard_normal((11, 70), np.float32), rng.standard_normal((70, 320), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @row_groups(%a: tensor<11x70xf32>, %b: tensor<70x320xf32>) -> tensor<11x320xf32> {
  %0 = transformer.matmul %a, %b : tensor<11x70xf32>, tensor<70x320xf32> -> tensor<11x320xf32>
  return %0 : tensor<11x320xf32>
}

// PY: def case_row_dynamic_tiles(rng):
// PY:     a, b = rng.standard_normal((20, 70), np.float32), rng.standard_normal((70, 320), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @row_dynamic_tiles(%a: tensor<?x70xf32>, %b: tensor<70x320xf32>) -> tensor<?x320xf32> {
  %0 = transformer.matmul %a, %b : tensor<?x70xf32>, tensor<70x320xf32> -> tensor<?x320xf32>
  return %0 : tensor<?x320xf32>
}

// Single rows of the row form take a register tile of up to 256 columns
// with AVX-512 (16 accumulators; 64 with AVX2): 6 rows of a dynamic count
// against 512 columns make a group of 4 (in 64-column parts) and 2 single
// rows over two 256-column tiles; one static row against 768 columns, worth
// two threads, makes 2 tasks of 384 columns, each one tile (24 zmm).
// PY: def case_row_wide_dynamic(rng):
// PY:     a, b = rng.standard_normal((6, 70), np.float32), rng.standard_normal((70, 512), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @row_wide_dynamic(%a: tensor<?x70xf32>, %b: tensor<70x512xf32>) -> tensor<?x512xf32> {
  %0 = transformer.matmul %a, %b : tensor<?x70xf32>, tensor<70x512xf32> -> tensor<?x512xf32>
  return %0 : tensor<?x512xf32>
}

// PY: def case_row_wide_tasks(rng):
// PY:     a, b = rng.standard_normal((1, 1024), np.float32), rng.standard_normal((1024, 768), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @row_wide_tasks(%a: tensor<1x1024xf32>, %b: tensor<1024x768xf32>) -> tensor<1x768xf32> {
  %0 = transformer.matmul %a, %b : tensor<1x1024xf32>, tensor<1024x768xf32> -> tensor<1x768xf32>
  return %0 : tensor<1x768xf32>
}

// A decode step's Conv1D-layout projection (x @ W + b, W in x out) with one
// static row: the bias is the accumulator's initial value.
// PY: def case_row_linear_bias(rng):
// PY:     x, w, b = rng.standard_normal((1, 1, 48), np.float32), rng.standard_normal((48, 128), np.float32), rng.standard_normal((128,), np.float32)
// PY:     return [x, w, b], [ref.matmul(x, w) + b]
func.func @row_linear_bias(%x: tensor<1x1x48xf32>, %w: tensor<48x128xf32>, %b: tensor<128xf32>) -> tensor<1x1x128xf32> {
  %0 = transformer.matmul %x, %w : tensor<1x1x48xf32>, tensor<48x128xf32> -> tensor<1x1x128xf32>
  %1 = transformer.add %0, %b : tensor<1x1x128xf32>, tensor<128xf32> -> tensor<1x1x128xf32>
  return %1 : tensor<1x1x128xf32>
}

// PY: def case_dynamic(rng):
// PY:     a, b = rng.standard_normal((45, 300), np.float32), rng.standard_normal((300, 70), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.matmul %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// PY: def case_dynamic_batched(rng):
// PY:     a, b = rng.standard_normal((2, 9, 17), np.float32), rng.standard_normal((2, 17, 37), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @dynamic_batched(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = transformer.matmul %a, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// PY: def case_linear(rng):
// PY:     x, w, b = rng.standard_normal((2, 21, 40), np.float32), rng.standard_normal((67, 40), np.float32), rng.standard_normal((67,), np.float32)
// PY:     return [x, w, b], [ref.linear(x, w, b)]
func.func @linear(%x: tensor<2x21x40xf32>, %w: tensor<67x40xf32>, %b: tensor<67xf32>) -> tensor<2x21x67xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<2x21x40xf32>, tensor<67x40xf32>, tensor<67xf32> -> tensor<2x21x67xf32>
  return %0 : tensor<2x21x67xf32>
}

// PY: def case_odd(rng):
// PY:     a, b = rng.standard_normal((37, 61), np.float32), rng.standard_normal((61, 53), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @odd(%a: tensor<37x61xf32>, %b: tensor<61x53xf32>) -> tensor<37x53xf32> {
  %0 = transformer.matmul %a, %b : tensor<37x61xf32>, tensor<61x53xf32> -> tensor<37x53xf32>
  return %0 : tensor<37x53xf32>
}

// PY: def case_transpose_b(rng):
// PY:     a, b = rng.standard_normal((41, 29), np.float32), rng.standard_normal((35, 29), np.float32)
// PY:     return [a, b], [ref.matmul(a, b, transpose_b=True)]
func.func @transpose_b(%a: tensor<41x29xf32>, %b: tensor<35x29xf32>) -> tensor<41x35xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<41x29xf32>, tensor<35x29xf32> -> tensor<41x35xf32>
  return %0 : tensor<41x35xf32>
}
