// The runner as a library: a C++ program compiles this file with lib/Runner
// and calls @scale_add with host tensors it builds itself
// (RunnerLibraryTest.cpp), checking the values against its own reference;
// then drops the compiler's code pages and compiles and calls it again.

// RUN: transformer-runner-test %s | FileCheck %s
// CHECK: caught: run-time check failed: transformer.add: operand 1: dimension 0 does not match the result (dynamic dimensions do not broadcast) (size = 4, expected = 5)
// CHECK-NEXT: 5xf32=[10 11.5 13 14.5 16]
// CHECK-NEXT: PASS

func.func @scale_add(%x: tensor<?xf32>, %y: tensor<?xf32>, %s: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %sv = tensor.splat %s[%n] : tensor<?xf32>
  %0 = arith.mulf %x, %sv : tensor<?xf32>
  %1 = transformer.add %0, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
