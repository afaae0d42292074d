// RUN: transformer-opt %s --transformer-cpu-sparse-chains --split-input-file --verify-diagnostics

// The pass trusts a table found in the input: one that is malformed or does
// not tile the op is an error, not a wrong skip.

func.func @bad_class(%x: tensor<64x64xf32>, %m: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{transformer.mask_blocks must be {block = array<i64: BQ, BK>, rows = ["..."]} with rows of equal length made of M, V and P}}
  %p = transformer.masked_softmax %x, %m {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["X"]}} : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %p : tensor<64x64xf32>
}

// -----

func.func @wrong_size(%p: tensor<100x130xf32>, %v: tensor<130x8xf32>) -> tensor<100x8xf32> {
  // expected-error @+1 {{transformer.mask_blocks has 2 x 2 blocks of 64 x 64, which do not tile 100 x 130}}
  %o = transformer.matmul %p, %v {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["VM", "VV"]}} : tensor<100x130xf32>, tensor<130x8xf32> -> tensor<100x8xf32>
  return %o : tensor<100x8xf32>
}

// -----

func.func @dynamic(%p: tensor<?x?xf32>, %v: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{transformer.mask_blocks needs a ranked f32 lhs whose last two dimensions are static}}
  %o = transformer.matmul %p, %v {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["V"]}} : tensor<?x?xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %o : tensor<?x8xf32>
}

// -----

func.func @mask_row(%x: tensor<2x64x64xf32>, %m: tensor<1x64xf32>) -> tensor<2x64x64xf32> {
  // expected-error @+1 {{transformer.mask_blocks needs a mask whose last two dimensions are those of the input}}
  %p = transformer.masked_softmax %x, %m {transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["P"]}} : tensor<2x64x64xf32>, tensor<1x64xf32> -> tensor<2x64x64xf32>
  return %p : tensor<2x64x64xf32>
}
