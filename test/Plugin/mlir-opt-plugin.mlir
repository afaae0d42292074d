// Debian's own mlir-opt (LLVM's tools directory) with TransformerPlugin.so
// as dialect and pass plugin: it parses, verifies and lowers transformer ops.
//
// RUN: mlir-opt %s --load-dialect-plugin=%transformer_plugin \
// RUN:   --load-pass-plugin=%transformer_plugin \
// RUN:   --pass-pipeline='builtin.module(func.func(transformer-fuse-attention))' \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: mlir-opt %s --load-dialect-plugin=%transformer_plugin \
// RUN:   --load-pass-plugin=%transformer_plugin \
// RUN:   --pass-pipeline='builtin.module(lower-transformer)' \
// RUN:   | FileCheck %s --check-prefix=LINALG
// RUN: mlir-opt %s --load-dialect-plugin=%transformer_plugin \
// RUN:   --load-pass-plugin=%transformer_plugin \
// RUN:   --pass-pipeline='builtin.module(transformer-to-llvm)' \
// RUN:   | FileCheck %s --check-prefix=LLVM
//
// Without the plugin mlir-opt does not know the dialect:
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
//
// The dialect plugin alone brings the verifiers:
// RUN: not mlir-opt %S/Inputs/invalid.mlir \
// RUN:   --load-dialect-plugin=%transformer_plugin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=INVALID

// NOPLUGIN: Dialect `transformer' not found
// INVALID: error: 'transformer.matmul' op contracting dimensions differ

// The passes come from the pass plugin: the matmul/softmax/matmul chain is
// fused into one op, lowered to linalg, and compiled to the LLVM dialect.
// FUSED-LABEL: func.func @attend(
// FUSED-NEXT: %[[A:.*]] = transformer.attention %arg0, %arg1, %arg2
// FUSED-NEXT: return %[[A]]

// LINALG-LABEL: func.func @attend(
// LINALG-NOT: transformer.
// LINALG: linalg.
// LINALG-NOT: transformer.
// LINALG: return

// LLVM-LABEL: llvm.func @attend(
// LLVM-NOT: transformer.
// LLVM: llvm.return
func.func @attend(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = transformer.matmul %q, %k {transpose_b} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x4xf32>
  %p = transformer.softmax %s : tensor<4x4xf32> -> tensor<4x4xf32>
  %o = transformer.matmul %p, %v : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}
