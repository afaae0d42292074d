// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @causal_mask: result[0] 5x7
// CHECK: PASS @fully_masked_row: result[0] 3x4
// CHECK: PASS @large_inputs: result[0] 4x64
// CHECK: PASS @masked_causal: result[0] 2x5x5
// CHECK: PASS @padding_mask: result[0] 2x3x6
// CHECK: PASS @softmax_dynamic: result[0] 9x33

// PY: def case_softmax_dynamic(rng):
// PY:     x = rng.standard_normal((9, 33), np.float32)
// PY:     return [x], [ref.softmax(x)]
func.func @softmax_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.softmax %x : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Inputs in the thousands: exp would overflow without the max subtraction.
// PY: def case_large_inputs(rng):
// PY:     x = (rng.standard_normal((4, 64)) * 1000 + 5000).astype(np.float32)
// PY:     return [x], [ref.softmax(x)]
func.func @large_inputs(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = transformer.softmax %x : tensor<4x64xf32> -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// PY: def case_masked_causal(rng):
// PY:     x = rng.standard_normal((2, 5, 5), np.float32)
// PY:     return [x], [ref.masked_softmax(x, ref.causal_mask(5, 5))]
func.func @masked_causal(%x: tensor<2x5x5xf32>) -> tensor<2x5x5xf32> {
  %m = transformer.create_causal_mask : tensor<5x5xf32>
  %0 = transformer.masked_softmax %x, %m : tensor<2x5x5xf32>, tensor<5x5xf32> -> tensor<2x5x5xf32>
  return %0 : tensor<2x5x5xf32>
}

// A mask over keys only, broadcast over batch and queries.
// PY: def case_padding_mask(rng):
// PY:     x = rng.standard_normal((2, 3, 6), np.float32)
// PY:     m = np.array([0, 0, 0, 0, -np.inf, -np.inf], np.float32)
// PY:     return [x, m], [ref.masked_softmax(x, m)]
func.func @padding_mask(%x: tensor<2x3x6xf32>, %m: tensor<6xf32>) -> tensor<2x3x6xf32> {
  %0 = transformer.masked_softmax %x, %m : tensor<2x3x6xf32>, tensor<6xf32> -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}

// Row 1 is fully masked: it gives zeros, not NaN.
// PY: def case_fully_masked_row(rng):
// PY:     x = rng.standard_normal((3, 4), np.float32)
// PY:     m = np.zeros((3, 4), np.float32); m[1, :] = -np.inf; m[2, 0] = -np.inf
// PY:     want = ref.masked_softmax(x, m)
// PY:     assert np.all(want[1] == 0)
// PY:     return [x, m], [want]
func.func @fully_masked_row(%x: tensor<3x4xf32>, %m: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = transformer.masked_softmax %x, %m : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// The mask op itself (bottom-right aligned when Sq != Sk).
// PY: def case_causal_mask(rng):
// PY:     return [], [ref.causal_mask(5, 7).astype(np.float32)]
func.func @causal_mask() -> tensor<5x7xf32> {
  %0 = transformer.create_causal_mask : tensor<5x7xf32>
  return %0 : tensor<5x7xf32>
}
