// RUN: transformer-opt %s --transformer-mask-sparsity | FileCheck %s

// Each 64 x 64 (query block, key block) of a mask known at compile time is
// M (fully masked), V (fully visible) or P (partial).

// Causal with Sq = Sk = 200: the diagonal blocks are partial, the blocks
// above them masked, below them visible.
// CHECK-LABEL: func.func @causal
// CHECK: transformer.attention {{.*}}transformer.mask_blocks = {block = array<i64: 64, 64>, rows = ["PMMM", "VPMM", "VVPM", "VVVP"]}
func.func @causal(%q: tensor<200x16xf32>, %k: tensor<200x16xf32>, %v: tensor<200x16xf32>) -> tensor<200x16xf32> {
  %o = transformer.attention %q, %k, %v {causal} : tensor<200x16xf32>, tensor<200x16xf32>, tensor<200x16xf32> -> tensor<200x16xf32>
  return %o : tensor<200x16xf32>
}

// A window of 64 keys, bottom-right aligned (Sk - Sq = 70).
// CHECK-LABEL: func.func @window
// CHECK: rows = ["PPPM", "MPPP", "MMPP"]
func.func @window(%q: tensor<2x130x16xf32>, %k: tensor<2x200x16xf32>, %v: tensor<2x200x16xf32>) -> tensor<2x130x16xf32> {
  %o = transformer.attention %q, %k, %v {causal, window = 64 : i64} : tensor<2x130x16xf32>, tensor<2x200x16xf32>, tensor<2x200x16xf32> -> tensor<2x130x16xf32>
  return %o : tensor<2x130x16xf32>
}

// The same rule from create_causal_mask given as the mask operand.
// CHECK-LABEL: func.func @mask_operand
// CHECK: transformer.attention {{.*}}rows = ["PMMM", "VPMM", "VVPM", "VVVP"]
func.func @mask_operand(%q: tensor<200x16xf32>, %k: tensor<200x16xf32>, %v: tensor<200x16xf32>) -> tensor<200x16xf32> {
  %m = transformer.create_causal_mask : tensor<200x200xf32>
  %o = transformer.attention %q, %k, %v mask(%m : tensor<200x200xf32>) : tensor<200x16xf32>, tensor<200x16xf32>, tensor<200x16xf32> -> tensor<200x16xf32>
  return %o : tensor<200x16xf32>
}

// Constants: a block-diagonal mask built by inserting zero blocks into -inf,
// combined with causal; a splat of finite values is partial everywhere (a
// bias), a splat of zeros visible everywhere.
// CHECK-LABEL: func.func @constants
// CHECK: transformer.attention {{.*}}rows = ["PM", "MP"]
// CHECK: transformer.attention {{.*}}rows = ["PP", "PP"]
// CHECK: transformer.attention {{.*}}rows = ["VV", "VV"]
func.func @constants(%q: tensor<128x16xf32>, %k: tensor<128x16xf32>, %v: tensor<128x16xf32>) -> (tensor<128x16xf32>, tensor<128x16xf32>, tensor<128x16xf32>) {
  %ninf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %m0 = tensor.insert_slice %zero into %ninf[0, 0] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<128x128xf32>
  %m = tensor.insert_slice %zero into %m0[64, 64] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<128x128xf32>
  %a = transformer.attention %q, %k, %v mask(%m : tensor<128x128xf32>) {causal} : tensor<128x16xf32>, tensor<128x16xf32>, tensor<128x16xf32> -> tensor<128x16xf32>
  %bias = arith.constant dense<0.5> : tensor<128x128xf32>
  %b = transformer.attention %q, %k, %v mask(%bias : tensor<128x128xf32>) : tensor<128x16xf32>, tensor<128x16xf32>, tensor<128x16xf32> -> tensor<128x16xf32>
  %zeros = arith.constant dense<0.0> : tensor<128x128xf32>
  %c = transformer.attention %q, %k, %v mask(%zeros : tensor<128x128xf32>) : tensor<128x16xf32>, tensor<128x16xf32>, tensor<128x16xf32> -> tensor<128x16xf32>
  return %a, %b, %c : tensor<128x16xf32>, tensor<128x16xf32>, tensor<128x16xf32>
}

// Masks built by element-wise adds of known masks.
// CHECK-LABEL: func.func @added
// CHECK: transformer.attention {{.*}}rows = ["PM", "PP"]
func.func @added(%q: tensor<128x16xf32>, %k: tensor<128x16xf32>, %v: tensor<128x16xf32>) -> tensor<128x16xf32> {
  %c = transformer.create_causal_mask {window = 64 : i64} : tensor<128x128xf32>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %m = transformer.add %c, %z : tensor<128x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
  %o = transformer.attention %q, %k, %v mask(%m : tensor<128x128xf32>) : tensor<128x16xf32>, tensor<128x16xf32>, tensor<128x16xf32> -> tensor<128x16xf32>
  return %o : tensor<128x16xf32>
}

// A primitive chain: the masked softmax carries the table; its zero blocks
// propagate through an op that keeps zeros (scale) to the matmul that
// consumes the probabilities, not through one that does not (add).
// CHECK-LABEL: func.func @chain
// CHECK: transformer.masked_softmax {{.*}}rows = ["PM", "VP"]
// CHECK: transformer.scale {{.*}}rows = ["PM", "VP"]
// CHECK: transformer.matmul {{.*}}rows = ["PM", "VP"]
// CHECK: transformer.add
// CHECK-NOT: mask_blocks
// CHECK: return
func.func @chain(%s: tensor<128x128xf32>, %v: tensor<128x16xf32>) -> (tensor<128x16xf32>, tensor<128x128xf32>) {
  %m = transformer.create_causal_mask : tensor<128x128xf32>
  %p = transformer.masked_softmax %s, %m : tensor<128x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
  %d = transformer.scale %p {factor = 0.5 : f32} : tensor<128x128xf32> -> tensor<128x128xf32>
  %o = transformer.matmul %d, %v : tensor<128x128xf32>, tensor<128x16xf32> -> tensor<128x16xf32>
  %x = transformer.add %p, %s : tensor<128x128xf32>, tensor<128x128xf32> -> tensor<128x128xf32>
  return %o, %x : tensor<128x16xf32>, tensor<128x128xf32>
}

// Masks only known at run time, and dynamic shapes, are not annotated.
// CHECK-LABEL: func.func @unknown
// CHECK-NOT: mask_blocks
// CHECK: return
func.func @unknown(%q: tensor<?x16xf32>, %k: tensor<?x16xf32>, %v: tensor<?x16xf32>, %q2: tensor<128x16xf32>, %m: tensor<128x128xf32>) -> (tensor<?x16xf32>, tensor<128x16xf32>) {
  %a = transformer.attention %q, %k, %v {causal} : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32> -> tensor<?x16xf32>
  %b = transformer.attention %q2, %q2, %q2 mask(%m : tensor<128x128xf32>) : tensor<128x16xf32>, tensor<128x16xf32>, tensor<128x16xf32> -> tensor<128x16xf32>
  return %a, %b : tensor<?x16xf32>, tensor<128x16xf32>
}
