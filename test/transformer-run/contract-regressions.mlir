// Valid programs that used to crash or fail to compile (issue 8's table),
// each run against a float64 numpy reference.
// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O0 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @decode_loop_gelu: result[0] 4x8
// CHECK: PASS @elementwise_upstream_on_tensors: result[0] 4x8
// CHECK: PASS @insert_column_block: result[0] 4x8
// CHECK: PASS @layer_norm_rank1: result[0] 8
// CHECK: PASS @slice_column_block: result[0] 4x3
// CHECK: PASS @softmax_rank1: result[0] 8
// CHECK: PASS @softmax_rank1_dynamic: result[0] 13

// Rank-1 softmax and layer_norm used to crash the lowering (a null row map).
// PY: def case_softmax_rank1(rng):
// PY:     x = rng.standard_normal(8).astype(np.float32)
// PY:     return [x], [ref.softmax(x)]
func.func @softmax_rank1(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = transformer.softmax %x : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// PY: def case_softmax_rank1_dynamic(rng):
// PY:     x = rng.standard_normal(13).astype(np.float32)
// PY:     return [x], [ref.softmax(x)]
func.func @softmax_rank1_dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = transformer.softmax %x : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// PY: def case_layer_norm_rank1(rng):
// PY:     x, g, b = (rng.standard_normal(8).astype(np.float32) for _ in range(3))
// PY:     return [x, g, b], [ref.layer_norm(x, g, b)]
func.func @layer_norm_rank1(%x: tensor<8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = transformer.layer_norm %x, %g, %b : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// A column block (offset in the innermost dimension) is a strided view once
// bufferized; copying it used to need the memrefCopy runtime function.
// PY: def case_slice_column_block(rng):
// PY:     x = rng.standard_normal((4, 8)).astype(np.float32)
// PY:     return [x], [np.maximum(x[:, 5:8], 0)]
func.func @slice_column_block(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  %0 = tensor.extract_slice %x[0, 5] [4, 3] [1, 1] : tensor<4x8xf32> to tensor<4x3xf32>
  %1 = transformer.relu %0 : tensor<4x3xf32> -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// Writing keys into a column block of a cache.
// PY: def case_insert_column_block(rng):
// PY:     cache = rng.standard_normal((4, 8)).astype(np.float32)
// PY:     k = rng.standard_normal((4, 2)).astype(np.float32)
// PY:     out = cache.copy(); out[:, 3:5] = ref.gelu_tanh(k)
// PY:     return [cache, k], [out]
func.func @insert_column_block(%cache: tensor<4x8xf32>, %k: tensor<4x2xf32>) -> tensor<4x8xf32> {
  %g = transformer.gelu %k : tensor<4x2xf32> -> tensor<4x2xf32>
  %0 = tensor.insert_slice %g into %cache[0, 3] [4, 2] [1, 1] : tensor<4x2xf32> into tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// arith and math ops on tensors used to stop bufferization.
// PY: def case_elementwise_upstream_on_tensors(rng):
// PY:     a = rng.standard_normal((4, 8)).astype(np.float32)
// PY:     b = rng.standard_normal((4, 8)).astype(np.float32)
// PY:     return [a, b], [np.tanh(np.exp(a + b) * a)]
func.func @elementwise_upstream_on_tensors(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = arith.addf %a, %b : tensor<4x8xf32>
  %1 = math.exp %0 : tensor<4x8xf32>
  %2 = arith.mulf %1, %a : tensor<4x8xf32>
  %3 = math.tanh %2 : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// A loop-carried tensor updated by a transformer op, as a decode loop does,
// used to fail bufferization ("Yield operand #0 is not equivalent").
// PY: def case_decode_loop_gelu(rng):
// PY:     x = rng.standard_normal((4, 8)).astype(np.float32)
// PY:     y = x
// PY:     for _ in range(3): y = ref.gelu_tanh(y) + x
// PY:     return [x], [y]
func.func @decode_loop_gelu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %x) -> tensor<4x8xf32> {
    %g = transformer.gelu %t : tensor<4x8xf32> -> tensor<4x8xf32>
    %s = transformer.add %g, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
    scf.yield %s : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
