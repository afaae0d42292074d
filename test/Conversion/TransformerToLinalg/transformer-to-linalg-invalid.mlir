// RUN: transformer-opt %s --lower-transformer -split-input-file -verify-diagnostics

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error@+1 {{'transformer.softmax' op has an unranked type 'tensor<*xf32>'; run --transformer-shape-inference before lowering}}
  %0 = transformer.softmax %x : tensor<*xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @unranked_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<*xf32> {
  // expected-error@+1 {{'transformer.matmul' op has an unranked type 'tensor<*xf32>'; run --transformer-shape-inference before lowering}}
  %0 = transformer.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
