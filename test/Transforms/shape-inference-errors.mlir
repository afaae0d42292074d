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

// -----

// Outside the top-level functions: an unranked result in a nested module.
module @inner {
  func.func @nested(%x: tensor<*xf32>) -> tensor<4xf32> {
    // expected-error@+1 {{'transformer.relu' op could not infer a ranked type for the result (still 'tensor<*xf32>')}}
    %0 = transformer.relu %x : tensor<*xf32> -> tensor<*xf32>
    %1 = tensor.cast %0 : tensor<*xf32> to tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}

// -----

// A called function's unranked result cannot be refined without inlining.
// expected-error@+1 {{'func.func' op is called, so its unranked result type 'tensor<*xf32>' cannot be refined; run --inline before --transformer-shape-inference or declare a ranked type}}
func.func private @callee(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = transformer.relu %x : tensor<4xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = func.call @callee(%x) : (tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// An unranked result of another dialect's op that is still used.
func.func private @opaque(%x: tensor<4xf32>) -> tensor<*xf32>
func.func @unranked_call(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'func.call' op result #0 is still unranked ('tensor<*xf32>') after shape inference; give it a ranked type or run --inline first}}
  %0 = func.call @opaque(%x) : (tensor<4xf32>) -> tensor<*xf32>
  %1 = transformer.relu %0 : tensor<*xf32> -> tensor<*xf32>
  %2 = tensor.cast %1 : tensor<*xf32> to tensor<4xf32>
  return %2 : tensor<4xf32>
}
