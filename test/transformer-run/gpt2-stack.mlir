// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O1 | FileCheck %s
// RUN: %python %test_lib/run_reference.py %s %t -O0 | FileCheck %s
// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-linalg-pipeline, transformer-outline-kernels)' | FileCheck %s --check-prefix=KERNELS
// CHECK-NOT: FAIL
// CHECK: PASS @main: result[0] 1x8x32

// Two GPT-2 blocks in a row (4 heads of 8, width 32, MLP 128), each with
// its own parameters (written by bench/workloads.py's gpt2_stack_mlir).
// At -O1 and up the layers share their kernels: the kernel of the first
// group of the first layer is called again by the second layer, and no
// linalg op is left in @main.
// KERNELS-LABEL: func.func @main(
// KERNELS-NOT: linalg.
// KERNELS: call @[[FIRST:main_kernel[_0-9]*]](
// KERNELS-NOT: linalg.
// KERNELS: call @[[FIRST]](
// KERNELS-NOT: linalg.
// KERNELS: return
// PY: def case_main(rng):
// PY:     S, D, H, Dh, F = 8, 32, 4, 8, 128
// PY:     w = lambda *shape: (rng.standard_normal(shape) * 0.2).astype(np.float32)
// PY:     x = rng.standard_normal((1, S, D), np.float32)
// PY:     inputs, out = [x], x.astype(np.float64)
// PY:     for layer in range(2):
// PY:         g1, b1, g2, b2 = 1 + w(D), w(D), 1 + w(D), w(D)
// PY:         wqkv, bqkv, wo, bo = w(3 * D, D), w(3 * D), w(D, D), w(D)
// PY:         wfc, bfc, wpr, bpr = w(F, D), w(F), w(D, F), w(D)
// PY:         inputs += [g1, b1, wqkv, bqkv, wo, bo, g2, b2, wfc, bfc, wpr, bpr]
// PY:         h = ref.layer_norm(out, g1, b1)
// PY:         qkv = ref.linear(h, wqkv, bqkv).reshape(1, S, 3, H, Dh)
// PY:         q, k, v = (np.transpose(qkv[:, :, i], (0, 2, 1, 3)) for i in range(3))
// PY:         a = ref.attention(q, k, v, causal=True)
// PY:         a = np.transpose(a, (0, 2, 1, 3)).reshape(1, S, D)
// PY:         x1 = out + ref.linear(a, wo, bo)
// PY:         m = ref.gelu_tanh(ref.linear(ref.layer_norm(x1, g2, b2), wfc, bfc))
// PY:         out = x1 + ref.linear(m, wpr, bpr)
// PY:     return inputs, [out]
func.func @main(%x: tensor<1x8x32xf32>, %l0_g1: tensor<32xf32>, %l0_b1: tensor<32xf32>, %l0_wqkv: tensor<96x32xf32>, %l0_bqkv: tensor<96xf32>, %l0_wo: tensor<32x32xf32>, %l0_bo: tensor<32xf32>, %l0_g2: tensor<32xf32>, %l0_b2: tensor<32xf32>, %l0_wfc: tensor<128x32xf32>, %l0_bfc: tensor<128xf32>, %l0_wpr: tensor<32x128xf32>, %l0_bpr: tensor<32xf32>, %l1_g1: tensor<32xf32>, %l1_b1: tensor<32xf32>, %l1_wqkv: tensor<96x32xf32>, %l1_bqkv: tensor<96xf32>, %l1_wo: tensor<32x32xf32>, %l1_bo: tensor<32xf32>, %l1_g2: tensor<32xf32>, %l1_b2: tensor<32xf32>, %l1_wfc: tensor<128x32xf32>, %l1_bfc: tensor<128xf32>, %l1_wpr: tensor<32x128xf32>, %l1_bpr: tensor<32xf32>) -> tensor<1x8x32xf32> {
  %y0_h = transformer.layer_norm %x, %l0_g1, %l0_b1 : tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %y0_qkv = transformer.linear %y0_h, %l0_wqkv, %l0_bqkv : tensor<1x8x32xf32>, tensor<96x32xf32>, tensor<96xf32> -> tensor<1x8x96xf32>
  %y0_split = tensor.expand_shape %y0_qkv [[0], [1], [2, 3, 4]] output_shape [1, 8, 3, 4, 8] : tensor<1x8x96xf32> into tensor<1x8x3x4x8xf32>
  %y0_heads = transformer.transpose %y0_split {permutation = array<i64: 2, 0, 3, 1, 4>} : tensor<1x8x3x4x8xf32> -> tensor<3x1x4x8x8xf32>
  %y0_q = tensor.extract_slice %y0_heads[0, 0, 0, 0, 0] [1, 1, 4, 8, 8] [1, 1, 1, 1, 1] : tensor<3x1x4x8x8xf32> to tensor<1x4x8x8xf32>
  %y0_k = tensor.extract_slice %y0_heads[1, 0, 0, 0, 0] [1, 1, 4, 8, 8] [1, 1, 1, 1, 1] : tensor<3x1x4x8x8xf32> to tensor<1x4x8x8xf32>
  %y0_v = tensor.extract_slice %y0_heads[2, 0, 0, 0, 0] [1, 1, 4, 8, 8] [1, 1, 1, 1, 1] : tensor<3x1x4x8x8xf32> to tensor<1x4x8x8xf32>
  %y0_a = transformer.attention %y0_q, %y0_k, %y0_v {causal} : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %y0_at = transformer.transpose %y0_a {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x4x8x8xf32> -> tensor<1x8x4x8xf32>
  %y0_merged = tensor.collapse_shape %y0_at [[0], [1], [2, 3]] : tensor<1x8x4x8xf32> into tensor<1x8x32xf32>
  %y0_proj = transformer.linear %y0_merged, %l0_wo, %l0_bo : tensor<1x8x32xf32>, tensor<32x32xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %y0_x1 = transformer.add %x, %y0_proj : tensor<1x8x32xf32>, tensor<1x8x32xf32> -> tensor<1x8x32xf32>
  %y0_h2 = transformer.layer_norm %y0_x1, %l0_g2, %l0_b2 : tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %y0_fc = transformer.linear %y0_h2, %l0_wfc, %l0_bfc : tensor<1x8x32xf32>, tensor<128x32xf32>, tensor<128xf32> -> tensor<1x8x128xf32>
  %y0_act = transformer.gelu %y0_fc : tensor<1x8x128xf32> -> tensor<1x8x128xf32>
  %y0_mlp = transformer.linear %y0_act, %l0_wpr, %l0_bpr : tensor<1x8x128xf32>, tensor<32x128xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %y0 = transformer.add %y0_x1, %y0_mlp : tensor<1x8x32xf32>, tensor<1x8x32xf32> -> tensor<1x8x32xf32>
  %y1_h = transformer.layer_norm %y0, %l1_g1, %l1_b1 : tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %y1_qkv = transformer.linear %y1_h, %l1_wqkv, %l1_bqkv : tensor<1x8x32xf32>, tensor<96x32xf32>, tensor<96xf32> -> tensor<1x8x96xf32>
  %y1_split = tensor.expand_shape %y1_qkv [[0], [1], [2, 3, 4]] output_shape [1, 8, 3, 4, 8] : tensor<1x8x96xf32> into tensor<1x8x3x4x8xf32>
  %y1_heads = transformer.transpose %y1_split {permutation = array<i64: 2, 0, 3, 1, 4>} : tensor<1x8x3x4x8xf32> -> tensor<3x1x4x8x8xf32>
  %y1_q = tensor.extract_slice %y1_heads[0, 0, 0, 0, 0] [1, 1, 4, 8, 8] [1, 1, 1, 1, 1] : tensor<3x1x4x8x8xf32> to tensor<1x4x8x8xf32>
  %y1_k = tensor.extract_slice %y1_heads[1, 0, 0, 0, 0] [1, 1, 4, 8, 8] [1, 1, 1, 1, 1] : tensor<3x1x4x8x8xf32> to tensor<1x4x8x8xf32>
  %y1_v = tensor.extract_slice %y1_heads[2, 0, 0, 0, 0] [1, 1, 4, 8, 8] [1, 1, 1, 1, 1] : tensor<3x1x4x8x8xf32> to tensor<1x4x8x8xf32>
  %y1_a = transformer.attention %y1_q, %y1_k, %y1_v {causal} : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %y1_at = transformer.transpose %y1_a {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x4x8x8xf32> -> tensor<1x8x4x8xf32>
  %y1_merged = tensor.collapse_shape %y1_at [[0], [1], [2, 3]] : tensor<1x8x4x8xf32> into tensor<1x8x32xf32>
  %y1_proj = transformer.linear %y1_merged, %l1_wo, %l1_bo : tensor<1x8x32xf32>, tensor<32x32xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %y1_x1 = transformer.add %y0, %y1_proj : tensor<1x8x32xf32>, tensor<1x8x32xf32> -> tensor<1x8x32xf32>
  %y1_h2 = transformer.layer_norm %y1_x1, %l1_g2, %l1_b2 : tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %y1_fc = transformer.linear %y1_h2, %l1_wfc, %l1_bfc : tensor<1x8x32xf32>, tensor<128x32xf32>, tensor<128xf32> -> tensor<1x8x128xf32>
  %y1_act = transformer.gelu %y1_fc : tensor<1x8x128xf32> -> tensor<1x8x128xf32>
  %y1_mlp = transformer.linear %y1_act, %l1_wpr, %l1_bpr : tensor<1x8x128xf32>, tensor<32x128xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %y1 = transformer.add %y1_x1, %y1_mlp : tensor<1x8x32xf32>, tensor<1x8x32xf32> -> tensor<1x8x32xf32>
  return %y1 : tensor<1x8x32xf32>
}
