// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS @main: result[0] 1x8

// A decode step mixing transformer ops with tensor.insert_slice /
// extract_slice (KV cache) and linalg.tanh; same program as
// examples/mixed-upstream.mlir.
// PY: def case_main(rng):
// PY:     ck, cv = rng.standard_normal((16, 8), np.float32), rng.standard_normal((16, 8), np.float32)
// PY:     q, k, v = (rng.standard_normal((1, 8), np.float32) for _ in range(3))
// PY:     pos = 5
// PY:     ck2, cv2 = np.float64(ck), np.float64(cv)
// PY:     ck2[pos] = ref.rope(k, offset=pos)[0]; cv2[pos] = v[0]
// PY:     a = ref.attention(ref.rope(q, offset=pos), ck2[:pos + 1], cv2[:pos + 1], causal=True)
// PY:     return [ck, cv, q, k, v, ("index", pos)], [np.tanh(a)]
func.func @main(%cache_k: tensor<16x8xf32>, %cache_v: tensor<16x8xf32>,
                %q: tensor<1x8xf32>, %k: tensor<1x8xf32>, %v: tensor<1x8xf32>,
                %pos: index) -> tensor<1x8xf32> {
  %qr = transformer.rope %q at %pos : tensor<1x8xf32> -> tensor<1x8xf32>
  %kr = transformer.rope %k at %pos : tensor<1x8xf32> -> tensor<1x8xf32>
  %ck = tensor.insert_slice %kr into %cache_k[%pos, 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<16x8xf32>
  %cv = tensor.insert_slice %v into %cache_v[%pos, 0] [1, 8] [1, 1] : tensor<1x8xf32> into tensor<16x8xf32>
  %c1 = arith.constant 1 : index
  %len = arith.addi %pos, %c1 : index
  %keys = tensor.extract_slice %ck[0, 0] [%len, 8] [1, 1] : tensor<16x8xf32> to tensor<?x8xf32>
  %vals = tensor.extract_slice %cv[0, 0] [%len, 8] [1, 1] : tensor<16x8xf32> to tensor<?x8xf32>
  %a = transformer.attention %qr, %keys, %vals {causal} : tensor<1x8xf32>, tensor<?x8xf32>, tensor<?x8xf32> -> tensor<1x8xf32>
  %init = tensor.empty() : tensor<1x8xf32>
  %t = linalg.tanh ins(%a : tensor<1x8xf32>) outs(%init : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %t : tensor<1x8xf32>
}
