// RUN: transformer-opt %s --transformer-shape-inference -split-input-file -verify-diagnostics

// An unranked function argument leaves the result unranked.
func.func @unranked_argument(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error@+1 {{'transformer.softmax' op could not infer a ranked type for the result (still 'tensor<*xf32>'): an operand is unranked; give the function ranked argument types}}
  %0 = transformer.softmax %x : tensor<*xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Once the operand is known, it contradicts the next op.
func.func @mismatch_after_refinement(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<6x2xf32>) -> tensor<*xf32> {
  %0 = transformer.matmul %a, %b : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<*xf32>
  // expected-error@+1 {{'transformer.matmul' op contracting dimensions differ: lhs 'tensor<3x5xf32>' has K = 5 but rhs 'tensor<6x2xf32>' has K = 6}}
  %1 = transformer.matmul %0, %c : tensor<*xf32>, tensor<6x2xf32> -> tensor<*xf32>
  return %1 : tensor<*xf32>
}
