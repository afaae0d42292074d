// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @embedding_i32: result[0] 2x3x8
// CHECK: PASS @embedding_i64_dynamic: result[0] 5x4
// CHECK: PASS @rope: result[0] 1x2x6x8
// CHECK: PASS @rope_base: result[0] 4x16
// CHECK: PASS @rope_offset: result[0] 2x1x8

// PY: def case_embedding_i32(rng):
// PY:     ids = rng.integers(0, 10, (2, 3)).astype(np.int32)
// PY:     table = rng.standard_normal((10, 8), np.float32)
// PY:     return [ids, table], [ref.embedding(ids, table)]
func.func @embedding_i32(%ids: tensor<2x3xi32>, %table: tensor<10x8xf32>) -> tensor<2x3x8xf32> {
  %0 = transformer.embedding %ids, %table : tensor<2x3xi32>, tensor<10x8xf32> -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// PY: def case_embedding_i64_dynamic(rng):
// PY:     ids = np.array([0, 6, 3, 6, 1], np.int64)
// PY:     table = rng.standard_normal((7, 4), np.float32)
// PY:     return [ids, table], [ref.embedding(ids, table)]
func.func @embedding_i64_dynamic(%ids: tensor<?xi64>, %table: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.embedding %ids, %table : tensor<?xi64>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// PY: def case_rope(rng):
// PY:     x = rng.standard_normal((1, 2, 6, 8), np.float32)
// PY:     return [x], [ref.rope(x)]
func.func @rope(%x: tensor<1x2x6x8xf32>) -> tensor<1x2x6x8xf32> {
  %0 = transformer.rope %x : tensor<1x2x6x8xf32> -> tensor<1x2x6x8xf32>
  return %0 : tensor<1x2x6x8xf32>
}

// Decoding: one position at an offset into the sequence.
// PY: def case_rope_offset(rng):
// PY:     x = rng.standard_normal((2, 1, 8), np.float32)
// PY:     return [x, ("index", 37)], [ref.rope(x, offset=37)]
func.func @rope_offset(%x: tensor<2x1x8xf32>, %pos: index) -> tensor<2x1x8xf32> {
  %0 = transformer.rope %x at %pos : tensor<2x1x8xf32> -> tensor<2x1x8xf32>
  return %0 : tensor<2x1x8xf32>
}

// PY: def case_rope_base(rng):
// PY:     x = rng.standard_normal((4, 16), np.float32)
// PY:     return [x], [ref.rope(x, base=500.0)]
func.func @rope_base(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.rope %x {base = 500.0 : f32} : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
