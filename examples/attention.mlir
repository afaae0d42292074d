// Causal single-head attention written as the primitive chain that model
// exporters produce. The pipeline infers the unranked types, fuses the chain
// into one transformer.attention {causal} and lowers it.
func.func @main(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<*xf32> {
  %kt = transformer.transpose %k : tensor<4x8xf32> -> tensor<*xf32>
  %s = transformer.matmul %q, %kt : tensor<4x8xf32>, tensor<*xf32> -> tensor<*xf32>
  %ss = transformer.scale %s {factor = 0.35355339 : f32} : tensor<*xf32> -> tensor<*xf32>
  %m = transformer.create_causal_mask : tensor<4x4xf32>
  %p = transformer.masked_softmax %ss, %m : tensor<*xf32>, tensor<4x4xf32> -> tensor<*xf32>
  %o = transformer.matmul %p, %v : tensor<*xf32>, tensor<4x8xf32> -> tensor<*xf32>
  return %o : tensor<*xf32>
}
