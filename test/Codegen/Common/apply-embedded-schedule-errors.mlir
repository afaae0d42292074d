// RUN: transformer-opt %s --transformer-apply-embedded-schedule --split-input-file --verify-diagnostics

// A script that fails is reported as the interpreter reports it.
// expected-note@+1 {{target op}}
func.func @fill(%t: tensor<8xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %r = linalg.fill ins(%one : f32) outs(%t : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error@+1 {{only ops implementing TilingInterface are supported}}
    %tiled, %loop = transform.structured.tile_using_for %func tile_sizes [2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
