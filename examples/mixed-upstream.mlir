// Transformer ops mixed with upstream tensor, linalg and arith ops: a KV
// cache update with tensor.insert_slice, a decode step of causal attention
// with rotary embeddings at a position offset, then an upstream linalg op.
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
