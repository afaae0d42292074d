// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @permute: result[0] 4x2x3
// CHECK: PASS @swap_dynamic: result[0] 2x5x3

// PY: def case_permute(rng):
// PY:     x = rng.standard_normal((2, 3, 4), np.float32)
// PY:     return [x], [np.transpose(x, (2, 0, 1))]
func.func @permute(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = transformer.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// PY: def case_swap_dynamic(rng):
// PY:     x = rng.standard_normal((2, 3, 5), np.float32)
// PY:     return [x], [np.swapaxes(x, -1, -2)]
func.func @swap_dynamic(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = transformer.transpose %x : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}
