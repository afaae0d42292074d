// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-linalg-pipeline{opt-level=2})' | FileCheck %s --check-prefix=FUSED
// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-linalg-pipeline{fuse-attention=false})' | FileCheck %s --check-prefix=UNFUSED
// RUN: transformer-opt %s --transformer-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: not transformer-opt %s -pass-pipeline='builtin.module(transformer-to-llvm{opt-level=banana})' 2>&1 | FileCheck %s --check-prefix=BADOPT

// The pipeline runs shape inference, canonicalization and fusion before
// lowering: the unranked chain below is inferred, the transposed key becomes
// transpose_b, and the chain fuses into one attention that lowers to a
// single q k^T contraction.
// FUSED-LABEL: func @chain
// FUSED-SAME: -> tensor<4x8xf32>
// FUSED-NOT: transformer.
// FUSED-COUNT-2: iterator_types = ["parallel", "parallel", "reduction"]
// FUSED-NOT: transformer.
// UNFUSED-LABEL: func @chain
// UNFUSED: linalg.generic
// LLVM: llvm.func @chain
// No op of the dialect is left (kernel functions keep their
// `transformer.kernel` marker attribute).
// LLVM-NOT: {{= "?}}transformer.
// LLVM-NOT: linalg.
// BADOPT: 'banana' value invalid for uint argument
func.func @chain(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<*xf32> {
  %kt = transformer.transpose %k : tensor<6x8xf32> -> tensor<*xf32>
  %s = transformer.matmul %q, %kt : tensor<4x8xf32>, tensor<*xf32> -> tensor<*xf32>
  %ss = transformer.scale %s {factor = 0.5 : f32} : tensor<*xf32> -> tensor<*xf32>
  %p = transformer.softmax %ss : tensor<*xf32> -> tensor<*xf32>
  %o = transformer.matmul %p, %v : tensor<*xf32>, tensor<6x8xf32> -> tensor<*xf32>
  return %o : tensor<*xf32>
}
