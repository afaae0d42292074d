// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @add_broadcast: result[0] 2x3x4
// CHECK: PASS @div_dynamic: result[0] 5x3
// CHECK: PASS @gelu: result[0] 4x16
// CHECK: PASS @gelu: result[1] 4x16
// CHECK: PASS @mul_outer: result[0] 3x4
// CHECK: PASS @relu_scale: result[0] 6x7
// CHECK: PASS @relu_scale: result[1] 6x7
// CHECK: PASS @sub_unit_dims: result[0] 2x3x4

// PY: def case_add_broadcast(rng):
// PY:     a, b = rng.standard_normal((2, 3, 4), np.float32), rng.standard_normal((4,), np.float32)
// PY:     return [a, b], [np.float64(a) + b]
func.func @add_broadcast(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0 = transformer.add %a, %b : tensor<2x3x4xf32>, tensor<4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// PY: def case_sub_unit_dims(rng):
// PY:     a, b = rng.standard_normal((2, 1, 4), np.float32), rng.standard_normal((3, 1), np.float32)
// PY:     return [a, b], [np.float64(a) - b]
func.func @sub_unit_dims(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = transformer.sub %a, %b : tensor<2x1x4xf32>, tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// PY: def case_mul_outer(rng):
// PY:     a, b = rng.standard_normal((3, 1), np.float32), rng.standard_normal((4,), np.float32)
// PY:     return [a, b], [np.float64(a) * b]
func.func @mul_outer(%a: tensor<3x1xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> {
  %0 = transformer.mul %a, %b : tensor<3x1xf32>, tensor<4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// PY: def case_div_dynamic(rng):
// PY:     a = rng.standard_normal((5, 3), np.float32)
// PY:     b = rng.uniform(0.5, 2.0, (5, 3)).astype(np.float32)
// PY:     return [a, b], [np.float64(a) / b]
func.func @div_dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.div %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// PY: def case_relu_scale(rng):
// PY:     x = rng.standard_normal((6, 7), np.float32)
// PY:     return [x], [np.maximum(np.float64(x), 0), np.float64(x) * np.float64(np.float32(0.37))]
func.func @relu_scale(%x: tensor<?x7xf32>) -> (tensor<?x7xf32>, tensor<?x7xf32>) {
  %0 = transformer.relu %x : tensor<?x7xf32> -> tensor<?x7xf32>
  %1 = transformer.scale %x {factor = 0.37 : f32} : tensor<?x7xf32> -> tensor<?x7xf32>
  return %0, %1 : tensor<?x7xf32>, tensor<?x7xf32>
}

// PY: def case_gelu(rng):
// PY:     x = (rng.standard_normal((4, 16)) * 3).astype(np.float32)
// PY:     return [x], [ref.gelu_tanh(x), ref.gelu_erf(x)]
func.func @gelu(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = transformer.gelu %x : tensor<4x16xf32> -> tensor<4x16xf32>
  %1 = transformer.gelu %x {approximate = "none"} : tensor<4x16xf32> -> tensor<4x16xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<4x16xf32>
}
