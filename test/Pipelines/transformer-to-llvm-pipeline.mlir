// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-linalg-pipeline{opt-level=2})' | FileCheck %s --check-prefix=FUSED
// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-linalg-pipeline{fuse-attention=false})' | FileCheck %s --check-prefix=UNFUSED
// RUN: transformer-opt %s --transformer-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: not transformer-opt %s -pass-pipeline='builtin.module(transformer-to-llvm{opt-level=banana})' 2>&1 | FileCheck %s --check-prefix=BADOPT

// The pipeline runs shape inference, canonicalization and fusion before
// lowering: the unranked chain below is inferred, the transposed key becomes
// transpose_b, and the chain fuses into one attention, whose lowering scales
// in one step and guards fully masked rows with a select (the unfused chain
// lowers its softmax to linalg.softmax, decomposed with maxnumf and no such
// guard).
// FUSED-LABEL: func @chain
// FUSED-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[K:.*]]: tensor<6x8xf32>, %[[V:.*]]: tensor<6x8xf32>) -> tensor<4x8xf32>
// FUSED-NOT: transformer.
// FUSED-NOT: arith.maxnumf
// FUSED: %[[S:.*]] = linalg.matmul indexing_maps = {{.*}} ins(%[[Q]], %[[K]] : tensor<4x8xf32>, tensor<6x8xf32>)
// FUSED: arith.mulf %{{.*}}, %{{.*}} : f32
// FUSED: linalg.reduce
// FUSED: arith.select
// FUSED: linalg.matmul ins(%{{.*}}, %[[V]] : tensor<4x6xf32>, tensor<6x8xf32>)
// FUSED-NOT: transformer.
// FUSED-NOT: arith.maxnumf
// UNFUSED-LABEL: func @chain
// UNFUSED-NOT: arith.select
// UNFUSED: linalg.matmul indexing_maps = {{.*}} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<6x8xf32>)
// UNFUSED: arith.maxnumf
// UNFUSED-NOT: arith.select
// UNFUSED: linalg.matmul ins(%{{.*}}, %arg2 : tensor<4x6xf32>, tensor<6x8xf32>)
// LLVM: llvm.func @chain
// LLVM-NOT: transformer.
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
