// RUN: transformer-opt %s --split-input-file --verify-diagnostics

// `transformer.constant` is a unit attribute.
// expected-error@+1 {{'transformer.constant' must be a unit attribute (no value), on argument 0}}
func.func @valued(%w: tensor<4x4xf32> {transformer.constant = 1 : i64}) -> tensor<4x4xf32> {
  return %w : tensor<4x4xf32>
}

