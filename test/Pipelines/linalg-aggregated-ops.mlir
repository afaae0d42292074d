// A program may use upstream linalg.softmax next to the dialect: the
// pipeline decomposes it (AggregatedOpInterface) into ops that lower to
// loops. It used to reach the LLVM dialect as an unrealized cast.
// RUN: transformer-opt %s --transformer-to-linalg-pipeline | FileCheck %s --check-prefix=LINALG
// RUN: transformer-opt %s --transformer-to-llvm | FileCheck %s --check-prefix=LLVM
// LINALG-LABEL: func @softmax_then_relu
// LINALG-NOT: linalg.softmax
// The decomposition: max and sum reductions, exp, division.
// LINALG: arith.maxnumf
// LINALG: math.exp
// LINALG: arith.addf
// LINALG: arith.divf
// LINALG: arith.maximumf
// LLVM-LABEL: llvm.func @softmax_then_relu
// LLVM-NOT: unrealized_conversion_cast
// LLVM-NOT: linalg.
func.func @softmax_then_relu(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = transformer.relu %0 : tensor<3x4xf32> -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}
