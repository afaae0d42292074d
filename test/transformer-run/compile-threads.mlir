// --compile-threads=N: LLVM compiles the module split into N parts on N
// threads (lib/Runner/ConcurrentJit.cpp); the default is the machine's
// cores, and 1 is MLIR's ExecutionEngine with the whole module on one
// thread. Every path gives the same results.
// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t --compile-threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t --compile-threads=2 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t --compile-threads=3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @linear_gelu: result[0] 13x128
// CHECK: PASS @matmul: result[0] 37x53

// PY: def case_linear_gelu(rng):
// PY:     x, w, b = rng.standard_normal((13, 96), np.float32), rng.standard_normal((96, 128), np.float32), rng.standard_normal((128,), np.float32)
// PY:     return [x, w, b], [ref.gelu_tanh(x @ w + b)]
func.func @linear_gelu(%x: tensor<?x96xf32>, %w: tensor<96x128xf32>, %b: tensor<128xf32>) -> tensor<?x128xf32> {
  %0 = transformer.matmul %x, %w : tensor<?x96xf32>, tensor<96x128xf32> -> tensor<?x128xf32>
  %1 = transformer.add %0, %b : tensor<?x128xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %2 = transformer.gelu %1 : tensor<?x128xf32> -> tensor<?x128xf32>
  return %2 : tensor<?x128xf32>
}

// PY: def case_matmul(rng):
// PY:     a, b = rng.standard_normal((37, 61), np.float32), rng.standard_normal((61, 53), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @matmul(%a: tensor<37x61xf32>, %b: tensor<61x53xf32>) -> tensor<37x53xf32> {
  %0 = transformer.matmul %a, %b : tensor<37x61xf32>, tensor<61x53xf32> -> tensor<37x53xf32>
  return %0 : tensor<37x53xf32>
}
