// Element-wise ops and row reductions through the row strategy
// (transformer-cpu-vectorize-rows) at -O2 and -O3, with 1 and 2 threads:
// rows that are multiples of the 64-wide vector tile, odd rows (a peeled
// remainder vectorized at its static size), rows of 1, dynamic shapes (the
// remainder stays scalar), masks with -inf and fully masked rows, and
// broadcasting operands. exp, tanh and erf are polynomials here. softmax and
// layer_norm and rms_norm run as fused row chains (transformer-cpu-fuse-row-chains): tiles
// of rows of a static shape, on the calling thread or over the threads from
// 64K elements; a user's division by a row sum is a multiplication by its
// reciprocal.
// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O2 --threads=2 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O3 --threads=1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O3 --threads=2 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @add_broadcast: result[0] 3x5x37
// CHECK: PASS @gelu_erf: result[0] 7x200
// CHECK: PASS @gelu_tanh: result[0] 6x37
// CHECK: PASS @layer_norm: result[0] 5x768
// CHECK: PASS @layer_norm_dynamic: result[0] 3x37
// CHECK: PASS @layer_norm_odd: result[0] 9x37
// CHECK: PASS @masked_causal: result[0] 2x37x37
// CHECK: PASS @masked_fully_masked: result[0] 4x70
// CHECK: PASS @relu_scale_dynamic: result[0] 5x131
// CHECK: PASS @rms_norm: result[0] 96x896
// CHECK: PASS @rms_norm_dynamic: result[0] 9x37
// CHECK: PASS @row_sum_normalize: result[0] 6x4x33
// CHECK: PASS @silu_gate: result[0] 6x4864
// CHECK: PASS @softmax: result[0] 8x768
// CHECK: PASS @softmax_batched_dynamic: result[0] 2x3x45x70
// CHECK: PASS @softmax_dynamic: result[0] 11x101
// CHECK: PASS @softmax_large: result[0] 3x130
// CHECK: PASS @softmax_rows_of_one: result[0] 6x1
// CHECK: PASS @softmax_threaded: result[0] 4x512x1024

// PY: def case_add_broadcast(rng):
// PY:     a, b = rng.standard_normal((3, 5, 37), np.float32), rng.standard_normal((37,), np.float32)
// PY:     return [a, b], [ref.f64(a) + ref.f64(b)]
func.func @add_broadcast(%a: tensor<3x5x37xf32>, %b: tensor<37xf32>) -> tensor<3x5x37xf32> {
  %0 = transformer.add %a, %b : tensor<3x5x37xf32>, tensor<37xf32> -> tensor<3x5x37xf32>
  return %0 : tensor<3x5x37xf32>
}

// PY: def case_gelu_erf(rng):
// PY:     x = (rng.standard_normal((7, 200)) * 3).astype(np.float32)
// PY:     return [x], [ref.gelu_erf(x)]
func.func @gelu_erf(%x: tensor<7x200xf32>) -> tensor<7x200xf32> {
  %0 = transformer.gelu %x {approximate = "none"} : tensor<7x200xf32> -> tensor<7x200xf32>
  return %0 : tensor<7x200xf32>
}

// PY: def case_gelu_tanh(rng):
// PY:     x = (rng.standard_normal((6, 37)) * 3).astype(np.float32)
// PY:     return [x], [ref.gelu_tanh(x)]
func.func @gelu_tanh(%x: tensor<6x37xf32>) -> tensor<6x37xf32> {
  %0 = transformer.gelu %x : tensor<6x37xf32> -> tensor<6x37xf32>
  return %0 : tensor<6x37xf32>
}

// PY: def case_layer_norm(rng):
// PY:     x, g, b = rng.standard_normal((5, 768), np.float32), rng.standard_normal((768,), np.float32), rng.standard_normal((768,), np.float32)
// PY:     return [x, g, b], [ref.layer_norm(x, g, b)]
func.func @layer_norm(%x: tensor<5x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<5x768xf32> {
  %0 = transformer.layer_norm %x, %g, %b : tensor<5x768xf32>, tensor<768xf32>, tensor<768xf32> -> tensor<5x768xf32>
  return %0 : tensor<5x768xf32>
}

// PY: def case_layer_norm_dynamic(rng):
// PY:     x, g, b = rng.standard_normal((3, 37), np.float32), rng.standard_normal((37,), np.float32), rng.standard_normal((37,), np.float32)
// PY:     return [x, g, b], [ref.layer_norm(x, g, b)]
func.func @layer_norm_dynamic(%x: tensor<?x?xf32>, %g: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.layer_norm %x, %g, %b : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// PY: def case_layer_norm_odd(rng):
// PY:     x, g, b = rng.standard_normal((9, 37), np.float32), rng.standard_normal((37,), np.float32), rng.standard_normal((37,), np.float32)
// PY:     return [x, g, b], [ref.layer_norm(x, g, b)]
func.func @layer_norm_odd(%x: tensor<9x37xf32>, %g: tensor<37xf32>, %b: tensor<37xf32>) -> tensor<9x37xf32> {
  %0 = transformer.layer_norm %x, %g, %b : tensor<9x37xf32>, tensor<37xf32>, tensor<37xf32> -> tensor<9x37xf32>
  return %0 : tensor<9x37xf32>
}

// PY: def case_masked_causal(rng):
// PY:     x = rng.standard_normal((2, 37, 37), np.float32)
// PY:     return [x], [ref.masked_softmax(x, ref.causal_mask(37, 37))]
func.func @masked_causal(%x: tensor<2x37x37xf32>) -> tensor<2x37x37xf32> {
  %m = transformer.create_causal_mask : tensor<37x37xf32>
  %0 = transformer.masked_softmax %x, %m : tensor<2x37x37xf32>, tensor<37x37xf32> -> tensor<2x37x37xf32>
  return %0 : tensor<2x37x37xf32>
}

// Rows 1 and 3 are fully masked (-inf): zeros, not NaN.
// PY: def case_masked_fully_masked(rng):
// PY:     x = rng.standard_normal((4, 70), np.float32)
// PY:     m = np.zeros((4, 70), np.float32); m[1, :] = -np.inf; m[3, :] = -np.inf; m[0, 65:] = -np.inf
// PY:     return [x, m], [ref.masked_softmax(x, m)]
func.func @masked_fully_masked(%x: tensor<4x70xf32>, %m: tensor<4x70xf32>) -> tensor<4x70xf32> {
  %0 = transformer.masked_softmax %x, %m : tensor<4x70xf32>, tensor<4x70xf32> -> tensor<4x70xf32>
  return %0 : tensor<4x70xf32>
}

// PY: def case_relu_scale_dynamic(rng):
// PY:     x = rng.standard_normal((5, 131), np.float32)
// PY:     return [x], [np.maximum(ref.f64(x), 0.0) * 0.125]
func.func @relu_scale_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.relu %x : tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = transformer.scale %0 {factor = 0.125 : f32} : tensor<?x?xf32> -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// PY: def case_softmax(rng):
// PY:     x = rng.standard_normal((8, 768), np.float32)
// PY:     return [x], [ref.softmax(x)]
func.func @softmax(%x: tensor<8x768xf32>) -> tensor<8x768xf32> {
  %0 = transformer.softmax %x : tensor<8x768xf32> -> tensor<8x768xf32>
  return %0 : tensor<8x768xf32>
}

// PY: def case_softmax_dynamic(rng):
// PY:     x = rng.standard_normal((11, 101), np.float32)
// PY:     return [x], [ref.softmax(x)]
func.func @softmax_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.softmax %x : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Large, spread inputs: exp's polynomial over its whole range (and underflow
// to 0 far below the max).
// PY: def case_softmax_large(rng):
// PY:     x = (rng.standard_normal((3, 130)) * 30).astype(np.float32)
// PY:     return [x], [ref.softmax(x)]
func.func @softmax_large(%x: tensor<3x130xf32>) -> tensor<3x130xf32> {
  %0 = transformer.softmax %x : tensor<3x130xf32> -> tensor<3x130xf32>
  return %0 : tensor<3x130xf32>
}

// PY: def case_softmax_rows_of_one(rng):
// PY:     x = rng.standard_normal((6, 1), np.float32)
// PY:     return [x], [ref.softmax(x)]
func.func @softmax_rows_of_one(%x: tensor<6x1xf32>) -> tensor<6x1xf32> {
  %0 = transformer.softmax %x : tensor<6x1xf32> -> tensor<6x1xf32>
  return %0 : tensor<6x1xf32>
}

// Rank 4 with dynamic sizes: the row strategy's separate passes.
// PY: def case_softmax_batched_dynamic(rng):
// PY:     x = rng.standard_normal((2, 3, 45, 70), np.float32)
// PY:     return [x], [ref.softmax(x)]
func.func @softmax_batched_dynamic(%x: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = transformer.softmax %x : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// 2M elements: tiles of 4 rows of 1024, over the threads.
// PY: def case_softmax_threaded(rng):
// PY:     x = rng.standard_normal((4, 512, 1024), np.float32)
// PY:     return [x], [ref.softmax(x)]
func.func @softmax_threaded(%x: tensor<4x512x1024xf32>) -> tensor<4x512x1024xf32> {
  %0 = transformer.softmax %x : tensor<4x512x1024xf32> -> tensor<4x512x1024xf32>
  return %0 : tensor<4x512x1024xf32>
}

// A chain written by hand: exp, its row sum, and the division by that sum
// (which becomes a multiplication by the sum's reciprocal).
// PY: def case_row_sum_normalize(rng):
// PY:     x = rng.standard_normal((6, 4, 33), np.float32)
// PY:     e = np.exp(ref.f64(x))
// PY:     return [x], [e / e.sum(-1, keepdims=True)]
func.func @row_sum_normalize(%x: tensor<6x4x33xf32>) -> tensor<6x4x33xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<6x4x33xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<6x4x33xf32>) outs(%e0 : tensor<6x4x33xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<6x4x33xf32>
  %s0 = tensor.empty() : tensor<6x4xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<6x4xf32>) -> tensor<6x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e : tensor<6x4x33xf32>) outs(%sz : tensor<6x4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %in, %acc : f32
    linalg.yield %v : f32
  } -> tensor<6x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %s : tensor<6x4x33xf32>, tensor<6x4xf32>) outs(%e0 : tensor<6x4x33xf32>) {
  ^bb0(%in: f32, %d: f32, %out: f32):
    %v = arith.divf %in, %d : f32
    linalg.yield %v : f32
  } -> tensor<6x4x33xf32>
  return %r : tensor<6x4x33xf32>
}

// Rows of Qwen2.5-0.5B's width, over the threads (86K elements).
// PY: def case_rms_norm(rng):
// PY:     x = (2 * rng.standard_normal((96, 896))).astype(np.float32)
// PY:     g = (1 + 0.1 * rng.standard_normal(896)).astype(np.float32)
// PY:     return [x, g], [ref.rms_norm(x, g, 1e-6)]
func.func @rms_norm(%x: tensor<96x896xf32>, %g: tensor<896xf32>) -> tensor<96x896xf32> {
  %0 = transformer.rms_norm %x, %g : tensor<96x896xf32>, tensor<896xf32> -> tensor<96x896xf32>
  return %0 : tensor<96x896xf32>
}

// PY: def case_rms_norm_dynamic(rng):
// PY:     x = rng.standard_normal((9, 37)).astype(np.float32)
// PY:     g = rng.standard_normal(37).astype(np.float32)
// PY:     return [x, g], [ref.rms_norm(x, g, 1e-5)]
func.func @rms_norm_dynamic(%x: tensor<?x?xf32>, %g: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.rms_norm %x, %g {epsilon = 1.0e-05 : f32} : tensor<?x?xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// The gated MLP's element-wise step, silu(gate) * up, at Qwen2.5-0.5B's
// intermediate width.
// PY: def case_silu_gate(rng):
// PY:     g, u = (3 * rng.standard_normal((2, 6, 4864))).astype(np.float32)
// PY:     return [g, u], [ref.silu(g) * ref.f64(u)]
func.func @silu_gate(%g: tensor<6x4864xf32>, %u: tensor<6x4864xf32>) -> tensor<6x4864xf32> {
  %a = transformer.silu %g : tensor<6x4864xf32> -> tensor<6x4864xf32>
  %0 = transformer.mul %a, %u : tensor<6x4864xf32>, tensor<6x4864xf32> -> tensor<6x4864xf32>
  return %0 : tensor<6x4864xf32>
}
