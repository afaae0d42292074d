// Weights marked transformer.constant: their transposed copy is made on the
// first call into a buffer of the module and reused while the same weight
// buffer comes back (--transformer-cpu-cache-constant-weights). A weight
// in another buffer makes the copy again: @proj is called with %w1, %w2,
// then %w1 again, and each result matches its own weights. -O2 and -O3, 1
// and 2 threads; the benchmark calls @linear_constant several times.
// @linear_panels: 96 columns are whole register tiles, so the copy is made
// in panels and read in place (transformer-cpu-panel-contractions), with a
// k block of 256 and a rest of 44, and rows past the last register tile.
// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=2 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O3 --threads=2 | FileCheck %s
// RUN: transformer-run %s -e linear_constant --input=130x70xf32=1.0 --input=96x70xf32=0.5 --input=96xf32=2.0 --benchmark-repetitions=3 --warmup=1 | FileCheck %s --check-prefix=REPEAT
// CHECK-NOT: FAIL
// CHECK: PASS @linear_constant: result[0] 130x96
// CHECK: PASS @linear_panels: result[0] 37x96
// CHECK: PASS @linear_panels_dynamic_rows: result[0] 130x96
// CHECK: PASS @switching_weights: result[0] 37x53
// CHECK: PASS @switching_weights: result[1] 37x53
// CHECK: PASS @switching_weights: result[2] 37x53
// 1.0 * 0.5 summed over 70, plus 2.
// REPEAT: run @linear_constant: min
// REPEAT: result[0]: 130x96xf32={{\[\[}}37 37 37

// PY: def case_linear_constant(rng):
// PY:     x, w, b = rng.standard_normal((130, 70), np.float32), rng.standard_normal((96, 70), np.float32), rng.standard_normal((96,), np.float32)
// PY:     return [x, w, b], [ref.linear(x, w, b)]
func.func @linear_constant(%x: tensor<130x70xf32>, %w: tensor<96x70xf32> {transformer.constant}, %b: tensor<96xf32>) -> tensor<130x96xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<130x70xf32>, tensor<96x70xf32>, tensor<96xf32> -> tensor<130x96xf32>
  return %0 : tensor<130x96xf32>
}

// PY: def case_switching_weights(rng):
// PY:     x = rng.standard_normal((37, 61), np.float32)
// PY:     w1, w2 = rng.standard_normal((53, 61), np.float32), rng.standard_normal((53, 61), np.float32)
// PY:     b = rng.standard_normal((53,), np.float32)
// PY:     return [x, w1, w2, b], [ref.linear(x, w1, b), ref.linear(x, w2, b), ref.linear(x, w1, b)]
func.func private @proj(%x: tensor<37x61xf32>, %w: tensor<53x61xf32> {transformer.constant}, %b: tensor<53xf32>) -> tensor<37x53xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<37x61xf32>, tensor<53x61xf32>, tensor<53xf32> -> tensor<37x53xf32>
  return %0 : tensor<37x53xf32>
}
func.func @switching_weights(%x: tensor<37x61xf32>, %w1: tensor<53x61xf32>, %w2: tensor<53x61xf32>, %b: tensor<53xf32>) -> (tensor<37x53xf32>, tensor<37x53xf32>, tensor<37x53xf32>) {
  %0 = call @proj(%x, %w1, %b) : (tensor<37x61xf32>, tensor<53x61xf32>, tensor<53xf32>) -> tensor<37x53xf32>
  %1 = call @proj(%x, %w2, %b) : (tensor<37x61xf32>, tensor<53x61xf32>, tensor<53xf32>) -> tensor<37x53xf32>
  %2 = call @proj(%x, %w1, %b) : (tensor<37x61xf32>, tensor<53x61xf32>, tensor<53xf32>) -> tensor<37x53xf32>
  return %0, %1, %2 : tensor<37x53xf32>, tensor<37x53xf32>, tensor<37x53xf32>
}

// PY: def case_linear_panels(rng):
// PY:     x, w, b = rng.standard_normal((37, 300), np.float32), rng.standard_normal((96, 300), np.float32), rng.standard_normal((96,), np.float32)
// PY:     return [x, w, b], [ref.linear(x, w, b)]
func.func @linear_panels(%x: tensor<37x300xf32>, %w: tensor<96x300xf32> {transformer.constant}, %b: tensor<96xf32>) -> tensor<37x96xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<37x300xf32>, tensor<96x300xf32>, tensor<96xf32> -> tensor<37x96xf32>
  return %0 : tensor<37x96xf32>
}

// PY: def case_linear_panels_dynamic_rows(rng):
// PY:     x, w, b = rng.standard_normal((130, 300), np.float32), rng.standard_normal((96, 300), np.float32), rng.standard_normal((96,), np.float32)
// PY:     return [x, w, b], [np.maximum(ref.linear(x, w, b), 0)]
func.func @linear_panels_dynamic_rows(%x: tensor<?x300xf32>, %w: tensor<96x300xf32> {transformer.constant}, %b: tensor<96xf32>) -> tensor<?x96xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<?x300xf32>, tensor<96x300xf32>, tensor<96xf32> -> tensor<?x96xf32>
  %1 = transformer.relu %0 : tensor<?x96xf32> -> tensor<?x96xf32>
  return %1 : tensor<?x96xf32>
}
