// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @layer_norm: result[0] 2x5x32
// CHECK: PASS @layer_norm_dynamic_eps: result[0] 3x10
// CHECK: PASS @linear: result[0] 2x5x12
// CHECK: PASS @linear_dynamic: result[0] 4x3

// PY: def case_layer_norm(rng):
// PY:     x = (rng.standard_normal((2, 5, 32)) * 4 + 3).astype(np.float32)
// PY:     g, b = rng.standard_normal((32,), np.float32), rng.standard_normal((32,), np.float32)
// PY:     return [x, g, b], [ref.layer_norm(x, g, b)]
func.func @layer_norm(%x: tensor<2x5x32xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<2x5x32xf32> {
  %0 = transformer.layer_norm %x, %g, %b : tensor<2x5x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<2x5x32xf32>
  return %0 : tensor<2x5x32xf32>
}

// PY: def case_layer_norm_dynamic_eps(rng):
// PY:     x = rng.standard_normal((3, 10), np.float32)
// PY:     g, b = rng.standard_normal((10,), np.float32), rng.standard_normal((10,), np.float32)
// PY:     return [x, g, b], [ref.layer_norm(x, g, b, eps=np.float64(np.float32(0.1)))]
func.func @layer_norm_dynamic_eps(%x: tensor<?x?xf32>, %g: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.layer_norm %x, %g, %b {epsilon = 0.1 : f32} : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// PY: def case_linear(rng):
// PY:     x, w, b = rng.standard_normal((2, 5, 8), np.float32), rng.standard_normal((12, 8), np.float32), rng.standard_normal((12,), np.float32)
// PY:     return [x, w, b], [ref.linear(x, w, b)]
func.func @linear(%x: tensor<2x5x8xf32>, %w: tensor<12x8xf32>, %b: tensor<12xf32>) -> tensor<2x5x12xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<2x5x8xf32>, tensor<12x8xf32>, tensor<12xf32> -> tensor<2x5x12xf32>
  return %0 : tensor<2x5x12xf32>
}

// PY: def case_linear_dynamic(rng):
// PY:     x, w, b = rng.standard_normal((4, 7), np.float32), rng.standard_normal((3, 7), np.float32), rng.standard_normal((3,), np.float32)
// PY:     return [x, w, b], [ref.linear(x, w, b)]
func.func @linear_dynamic(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
