// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @propagate: result[0] 3x4
// CHECK: PASS @propagate: result[1] 3x4
// CHECK: PASS @softmax_inf: result[0] 3x4
// CHECK: PASS @softmax_inf: result[1] 3x4

// NaN and Inf propagate as in numpy: a softmax row holding +inf is NaN (as
// numpy computes it), a row holding NaN is NaN, -inf entries get 0.
// PY: def case_softmax_inf(rng):
// PY:     x = rng.standard_normal((3, 4)).astype(np.float32)
// PY:     x[0, 1] = np.inf; x[1, 2] = np.nan; x[2, 0] = -np.inf
// PY:     with np.errstate(invalid="ignore"):
// PY:         want = ref.softmax(x)
// PY:         masked = ref.masked_softmax(x, np.zeros(4, np.float32))
// PY:     return [x], [want, masked]
func.func @softmax_inf(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = transformer.softmax %x : tensor<3x4xf32> -> tensor<3x4xf32>
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %1 = transformer.masked_softmax %x, %zero : tensor<3x4xf32>, tensor<4xf32> -> tensor<3x4xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<3x4xf32>
}

// PY: def case_propagate(rng):
// PY:     x = rng.standard_normal((3, 4)).astype(np.float32)
// PY:     x[0, 0] = np.nan; x[1, 1] = np.inf; x[2, 2] = -np.inf
// PY:     w = np.ones((4, 4), np.float32)
// PY:     with np.errstate(invalid="ignore"):
// PY:         return [x, w], [np.float64(x) * 2 + 1, np.float64(x) @ np.float64(w)]
func.func @propagate(%x: tensor<3x4xf32>, %w: tensor<4x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %two = arith.constant dense<2.0> : tensor<1xf32>
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %0 = transformer.mul %x, %two : tensor<3x4xf32>, tensor<1xf32> -> tensor<3x4xf32>
  %1 = transformer.add %0, %one : tensor<3x4xf32>, tensor<1xf32> -> tensor<3x4xf32>
  %2 = transformer.matmul %x, %w : tensor<3x4xf32>, tensor<4x4xf32> -> tensor<3x4xf32>
  return %1, %2 : tensor<3x4xf32>, tensor<3x4xf32>
}
