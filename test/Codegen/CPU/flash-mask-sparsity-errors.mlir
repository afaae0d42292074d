// RUN: transformer-opt %s --transformer-mask-sparsity --split-input-file --verify-diagnostics

// The lowering trusts a table found in the input: a malformed one is an
// error, not a wrong skip.

func.func @bad_class(%q: tensor<64x16xf32>) -> tensor<64x16xf32> {
  // expected-error @+1 {{transformer.mask_blocks must be {block = array<i64: BQ, BK>, rows = ["..."]} with rows of equal length made of M, V and P}}
  %o = transformer.attention %q, %q, %q {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["X"]}} : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32> -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

// -----

func.func @ragged(%q: tensor<64x16xf32>) -> tensor<64x16xf32> {
  // expected-error @+1 {{transformer.mask_blocks must be}}
  %o = transformer.attention %q, %q, %q {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["MV", "M"]}} : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32> -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

// -----

func.func @not_a_dictionary(%q: tensor<64x16xf32>) -> tensor<64x16xf32> {
  // expected-error @+1 {{transformer.mask_blocks must be}}
  %o = transformer.attention %q, %q, %q {transformer.mask_blocks = "PM"} : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32> -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}
