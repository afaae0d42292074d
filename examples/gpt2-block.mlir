// A GPT-2 transformer block (pre-LN, causal multi-head attention with the
// heads split by tensor.expand_shape + transformer.transpose, GELU MLP,
// residuals): sequence 8, model width 32, 4 heads of 8, MLP width 128.
// test/transformer-run/gpt2-block.mlir checks it against numpy.
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
