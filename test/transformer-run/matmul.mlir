// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O0 | FileCheck %s
// LLVM compiles the module whole with MLIR's ExecutionEngine (one thread), or
// split into 3 parts on 3 threads (the default: one per core).
// RUN: %python %test_lib/run_reference.py %s %t --compile-threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t --compile-threads=3 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @batched: result[0] 2x3x5
// CHECK: PASS @broadcast_rhs: result[0] 2x3x5
// CHECK: PASS @dynamic: result[0] 7x6
// CHECK: PASS @heads: result[0] 2x4x8x8
// CHECK: PASS @transpose_b: result[0] 3x5

// PY: def case_batched(rng):
// PY:     a, b = rng.standard_normal((2, 3, 4), np.float32), rng.standard_normal((2, 4, 5), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @batched(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = transformer.matmul %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// PY: def case_broadcast_rhs(rng):
// PY:     a, b = rng.standard_normal((2, 3, 4), np.float32), rng.standard_normal((4, 5), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @broadcast_rhs(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = transformer.matmul %a, %b : tensor<2x3x4xf32>, tensor<4x5xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// PY: def case_transpose_b(rng):
// PY:     a, b = rng.standard_normal((3, 4), np.float32), rng.standard_normal((5, 4), np.float32)
// PY:     return [a, b], [ref.matmul(a, b, transpose_b=True)]
func.func @transpose_b(%a: tensor<3x4xf32>, %b: tensor<5x4xf32>) -> tensor<3x5xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<3x4xf32>, tensor<5x4xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// PY: def case_dynamic(rng):
// PY:     a, b = rng.standard_normal((7, 33), np.float32), rng.standard_normal((33, 6), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.matmul %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// PY: def case_heads(rng):
// PY:     q, k = rng.standard_normal((2, 4, 8, 16), np.float32), rng.standard_normal((2, 4, 8, 16), np.float32)
// PY:     return [q, k], [ref.matmul(q, np.swapaxes(k, -1, -2))]
func.func @heads(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32> {
  %kt = transformer.transpose %k : tensor<2x4x8x16xf32> -> tensor<2x4x16x8xf32>
  %0 = transformer.matmul %q, %kt : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}
