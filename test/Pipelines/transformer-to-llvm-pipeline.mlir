// The pipelines' stages, seen through the IR they hand to the lowering
// (-mlir-print-ir-before=lower-transformer prints it on stderr): shape
// inference, canonicalization and attention fusion must have run, or not,
// according to the options.
// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-linalg-pipeline{opt-level=2})' -mlir-print-ir-before=transformer-mask-sparsity -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: transformer-opt %s --transformer-to-llvm -mlir-print-ir-before=transformer-mask-sparsity -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-linalg-pipeline{fuse-attention=false})' -mlir-print-ir-before=lower-transformer -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNFUSED
// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-linalg-pipeline{opt-level=0})' -mlir-print-ir-before=lower-transformer -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNFUSED
// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-linalg-pipeline{opt-level=2})' | FileCheck %s --check-prefix=LINALG
// RUN: transformer-opt %s --transformer-to-llvm | FileCheck %s --check-prefix=LLVM
// Element-wise fusion runs in the LLVM pipeline from opt-level 1 on.
// RUN: transformer-opt %s --transformer-to-llvm=opt-level=1 -mlir-print-ir-after=transformer-fuse-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=EWFUSE
// RUN: transformer-opt %s --transformer-to-llvm=opt-level=0 -mlir-print-ir-after=transformer-fuse-elementwise -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=NO-EWFUSE
// RUN: not transformer-opt %s -pass-pipeline='builtin.module(transformer-to-llvm{opt-level=banana})' 2>&1 | FileCheck %s --check-prefix=BADOPT

// The unranked chain below is inferred, the transposed key becomes
// transpose_b (canonicalization), and the chain fuses into one attention with
// the scale folded in. Only that attention reaches the attention passes of -O2
// (mask sparsity, then the flash kernel).
// FUSED: IR Dump Before {{.*}}(transformer-mask-sparsity)
// FUSED-LABEL: func.func @chain
// FUSED-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[K:.*]]: tensor<6x8xf32>, %[[V:.*]]: tensor<6x8xf32>) -> tensor<4x8xf32>
// FUSED-NEXT: %[[A:.*]] = transformer.attention %[[Q]], %[[K]], %[[V]] {scale = 5.000000e-01 : f32} : tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
// FUSED-NEXT: return %[[A]] : tensor<4x8xf32>
// FUSED-NOT: transformer.

// Without fusion (fuse-attention=false, or opt-level=0) the primitive chain
// reaches the lowering, inferred and canonicalized.
// UNFUSED: IR Dump Before {{.*}}(lower-transformer)
// UNFUSED-LABEL: func.func @chain
// UNFUSED-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[K:.*]]: tensor<6x8xf32>, %[[V:.*]]: tensor<6x8xf32>) -> tensor<4x8xf32>
// UNFUSED-NEXT: %[[S:.*]] = transformer.matmul %[[Q]], %[[K]] {transpose_b} : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
// UNFUSED-NEXT: %[[SS:.*]] = transformer.scale %[[S]] {factor = 5.000000e-01 : f32} : tensor<4x6xf32> -> tensor<4x6xf32>
// UNFUSED-NEXT: %[[P:.*]] = transformer.softmax %[[SS]] : tensor<4x6xf32> -> tensor<4x6xf32>
// UNFUSED-NEXT: %[[O:.*]] = transformer.matmul %[[P]], %[[V]] : tensor<4x6xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
// UNFUSED-NEXT: return %[[O]] : tensor<4x8xf32>

// The linalg pipeline leaves no transformer op and a refined signature.
// LINALG-LABEL: func.func @chain
// LINALG-SAME: -> tensor<4x8xf32>
// LINALG-NOT: transformer.
// LINALG: return %{{.*}} : tensor<4x8xf32>

// LLVM: llvm.func @chain
// No op of the dialect is left (kernel functions keep their
// `transformer.kernel` marker attribute).
// LLVM-NOT: {{= "?}}transformer.
// LLVM-NOT: linalg.

// EWFUSE: IR Dump After {{.*}}(transformer-fuse-elementwise)
// NO-EWFUSE-NOT: IR Dump After

// BADOPT: 'banana' value invalid for uint argument
func.func @chain(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<*xf32> {
  %kt = transformer.transpose %k : tensor<6x8xf32> -> tensor<*xf32>
  %s = transformer.matmul %q, %kt : tensor<4x8xf32>, tensor<*xf32> -> tensor<*xf32>
  %ss = transformer.scale %s {factor = 0.5 : f32} : tensor<*xf32> -> tensor<*xf32>
  %p = transformer.softmax %ss : tensor<*xf32> -> tensor<*xf32>
  %o = transformer.matmul %p, %v : tensor<*xf32>, tensor<6x8xf32> -> tensor<*xf32>
  return %o : tensor<*xf32>
}
