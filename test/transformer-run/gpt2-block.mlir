// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @main: result[0] 1x8x32

// A GPT-2 block: pre-LN, causal multi-head attention (heads split with
// tensor.expand_shape + transpose), output projection, residual, pre-LN GELU
// MLP, residual. 4 heads of 8, model width 32, MLP width 128.
// PY: def case_main(rng):
// PY:     S, D, H, Dh, F = 8, 32, 4, 8, 128
// PY:     w = lambda *shape: (rng.standard_normal(shape) * 0.2).astype(np.float32)
// PY:     x = rng.standard_normal((1, S, D), np.float32)
// PY:     g1, b1, g2, b2 = 1 + w(D), w(D), 1 + w(D), w(D)
// PY:     wqkv, bqkv, wo, bo = w(3 * D, D), w(3 * D), w(D, D), w(D)
// PY:     wfc, bfc, wpr, bpr = w(F, D), w(F), w(D, F), w(D)
// PY:     h = ref.layer_norm(x, g1, b1)
// PY:     qkv = ref.linear(h, wqkv, bqkv).reshape(1, S, 3, H, Dh)
// PY:     q, k, v = (np.transpose(qkv[:, :, i], (0, 2, 1, 3)) for i in range(3))
// PY:     a = ref.attention(q, k, v, causal=True)
// PY:     a = np.transpose(a, (0, 2, 1, 3)).reshape(1, S, D)
// PY:     x1 = x + ref.linear(a, wo, bo)
// PY:     m = ref.gelu_tanh(ref.linear(ref.layer_norm(x1, g2, b2), wfc, bfc))
// PY:     out = x1 + ref.linear(m, wpr, bpr)
// PY:     return [x, g1, b1, wqkv, bqkv, wo, bo, g2, b2, wfc, bfc, wpr, bpr], [out]
func.func @main(%x: tensor<1x8x32xf32>, %g1: tensor<32xf32>, %b1: tensor<32xf32>,
                %wqkv: tensor<96x32xf32>, %bqkv: tensor<96xf32>,
                %wo: tensor<32x32xf32>, %bo: tensor<32xf32>,
                %g2: tensor<32xf32>, %b2: tensor<32xf32>,
                %wfc: tensor<128x32xf32>, %bfc: tensor<128xf32>,
                %wpr: tensor<32x128xf32>, %bpr: tensor<32xf32>) -> tensor<1x8x32xf32> {
  %h = transformer.layer_norm %x, %g1, %b1 : tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %qkv = transformer.linear %h, %wqkv, %bqkv : tensor<1x8x32xf32>, tensor<96x32xf32>, tensor<96xf32> -> tensor<1x8x96xf32>
  %split = tensor.expand_shape %qkv [[0], [1], [2, 3, 4]] output_shape [1, 8, 3, 4, 8] : tensor<1x8x96xf32> into tensor<1x8x3x4x8xf32>
  %heads = transformer.transpose %split {permutation = array<i64: 2, 0, 3, 1, 4>} : tensor<1x8x3x4x8xf32> -> tensor<3x1x4x8x8xf32>
  %q5 = tensor.extract_slice %heads[0, 0, 0, 0, 0] [1, 1, 4, 8, 8] [1, 1, 1, 1, 1] : tensor<3x1x4x8x8xf32> to tensor<1x4x8x8xf32>
  %k5 = tensor.extract_slice %heads[1, 0, 0, 0, 0] [1, 1, 4, 8, 8] [1, 1, 1, 1, 1] : tensor<3x1x4x8x8xf32> to tensor<1x4x8x8xf32>
  %v5 = tensor.extract_slice %heads[2, 0, 0, 0, 0] [1, 1, 4, 8, 8] [1, 1, 1, 1, 1] : tensor<3x1x4x8x8xf32> to tensor<1x4x8x8xf32>
  %a = transformer.attention %q5, %k5, %v5 {causal} : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  %at = transformer.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x4x8x8xf32> -> tensor<1x8x4x8xf32>
  %merged = tensor.collapse_shape %at [[0], [1], [2, 3]] : tensor<1x8x4x8xf32> into tensor<1x8x32xf32>
  %proj = transformer.linear %merged, %wo, %bo : tensor<1x8x32xf32>, tensor<32x32xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %x1 = transformer.add %x, %proj : tensor<1x8x32xf32>, tensor<1x8x32xf32> -> tensor<1x8x32xf32>
  %h2 = transformer.layer_norm %x1, %g2, %b2 : tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %fc = transformer.linear %h2, %wfc, %bfc : tensor<1x8x32xf32>, tensor<128x32xf32>, tensor<128xf32> -> tensor<1x8x128xf32>
  %act = transformer.gelu %fc : tensor<1x8x128xf32> -> tensor<1x8x128xf32>
  %mlp = transformer.linear %act, %wpr, %bpr : tensor<1x8x128xf32>, tensor<32x128xf32>, tensor<32xf32> -> tensor<1x8x32xf32>
  %out = transformer.add %x1, %mlp : tensor<1x8x32xf32>, tensor<1x8x32xf32> -> tensor<1x8x32xf32>
  return %out : tensor<1x8x32xf32>
}
