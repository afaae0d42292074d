// Options of the registered pipelines are validated: an opt-level above 3 is
// an error naming the pipeline, the option and the allowed range.
// RUN: not transformer-opt %s -pass-pipeline='builtin.module(transformer-to-llvm{opt-level=7})' 2>&1 | FileCheck %s --check-prefix=LLVM7
// RUN: not transformer-opt %s -pass-pipeline='builtin.module(transformer-to-linalg-pipeline{opt-level=4})' 2>&1 | FileCheck %s --check-prefix=LINALG4
// RUN: not transformer-opt %s '--transformer-to-llvm=opt-level=9' 2>&1 | FileCheck %s --check-prefix=FLAG9
// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-llvm{opt-level=3})' | FileCheck %s --check-prefix=OK3
// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-llvm{opt-level=0})' | FileCheck %s --check-prefix=OK3
// LLVM7: error: transformer-to-llvm: opt-level must be 0 to 3, got 7
// LINALG4: error: transformer-to-linalg-pipeline: opt-level must be 0 to 3, got 4
// FLAG9: transformer-to-llvm: opt-level must be 0 to 3, got 9
// OK3: llvm.func @f
// OK3-NOT: = transformer.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.relu %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
