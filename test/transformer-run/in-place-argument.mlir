// An argument marked transformer.in_place is written in place and returned
// as it is (--transformer-return-in-place-arguments): transformer-run hands
// back the input's storage as the result. At every opt level, against numpy.
// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t -O0 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O2 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @write_row: result[0] 3
// CHECK: PASS @write_row: result[1] 4x3

// PY: def case_write_row(rng):
// PY:     cache, row = rng.standard_normal((4, 3), np.float32), rng.standard_normal((1, 3), np.float32)
// PY:     want = cache.copy()
// PY:     want[2] = row[0]
// PY:     return [cache, row], [want.sum(axis=0), want]
func.func @write_row(%cache: tensor<4x3xf32> {transformer.in_place}, %row: tensor<1x3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>) {
  %w = tensor.insert_slice %row into %cache[2, 0] [1, 3] [1, 1] : tensor<1x3xf32> into tensor<4x3xf32>
  %z = arith.constant dense<0.0> : tensor<3xf32>
  %s = linalg.reduce ins(%w : tensor<4x3xf32>) outs(%z : tensor<3xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  return %s, %w : tensor<3xf32>, tensor<4x3xf32>
}
