// tensor.expand_shape splitting one dimension into several dynamic sizes
// (valid IR, which MLIR 22's --expand-strided-metadata crashes on once
// bufferized): --transformer-reshape-multi-dynamic-expands turns it into
// tensor.reshape first. Contiguous and strided sources, at -O0 and -O2.
// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t -O0 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O2 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @split_rows: result[0] 2x3x8
// CHECK: PASS @split_strided: result[0] 3x2x4
// CHECK: PASS @split_two_groups: result[0] 2x3x2x4

// PY: def case_split_rows(rng):
// PY:     x = rng.standard_normal((6, 8), np.float32)
// PY:     return [x, ("index", 2)], [ref.gelu_tanh(x.reshape(2, 3, 8))]
func.func @split_rows(%x: tensor<?x8xf32>, %b: index) -> tensor<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %s = arith.divui %n, %b : index
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [%b, %s, 8] : tensor<?x8xf32> into tensor<?x?x8xf32>
  %g = transformer.gelu %e : tensor<?x?x8xf32> -> tensor<?x?x8xf32>
  return %g : tensor<?x?x8xf32>
}

// The source is a strided view (every other column): reshaped from a copy.
// PY: def case_split_strided(rng):
// PY:     x = rng.standard_normal((6, 8), np.float32)
// PY:     return [x, ("index", 3)], [x[:, ::2].reshape(3, 2, 4) * 2]
func.func @split_strided(%x: tensor<?x8xf32>, %b: index) -> tensor<?x?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %v = tensor.extract_slice %x[0, 0] [%n, 4] [1, 2] : tensor<?x8xf32> to tensor<?x4xf32>
  %s = arith.divui %n, %b : index
  %e = tensor.expand_shape %v [[0, 1], [2]] output_shape [%b, %s, 4] : tensor<?x4xf32> into tensor<?x?x4xf32>
  %r = transformer.scale %e {factor = 2.0 : f32} : tensor<?x?x4xf32> -> tensor<?x?x4xf32>
  return %r : tensor<?x?x4xf32>
}

// PY: def case_split_two_groups(rng):
// PY:     x = rng.standard_normal((6, 8), np.float32)
// PY:     return [x, ("index", 2), ("index", 2)], [np.tanh(x.reshape(2, 3, 2, 4))]
func.func @split_two_groups(%x: tensor<?x?xf32>, %b: index, %h: index) -> tensor<?x?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d = tensor.dim %x, %c1 : tensor<?x?xf32>
  %s = arith.divui %n, %b : index
  %k = arith.divui %d, %h : index
  %e = tensor.expand_shape %x [[0, 1], [2, 3]] output_shape [%b, %s, %h, %k] : tensor<?x?xf32> into tensor<?x?x?x?xf32>
  %t = math.tanh %e : tensor<?x?x?x?xf32>
  return %t : tensor<?x?x?x?xf32>
}
