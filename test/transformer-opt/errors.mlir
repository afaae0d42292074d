// Bad input gets a diagnostic, a failing exit status (`not` also fails on a
// crash) and no output on stdout.

// RUN: split-file %s %t
// RUN: not transformer-opt %t/syntax.mlir > %t/out 2> %t/err
// RUN: count 0 < %t/out
// RUN: FileCheck %s --check-prefix=SYNTAX < %t/err
// SYNTAX: syntax.mlir:2:{{[0-9]+}}: error: expected ':'

// RUN: not transformer-opt %t/verify.mlir > %t/out 2> %t/err
// RUN: count 0 < %t/out
// RUN: FileCheck %s --check-prefix=VERIFY < %t/err
// VERIFY: error: 'transformer.matmul' op contracting dimensions differ

// RUN: not transformer-opt %t/unknown-op.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: custom op 'transformer.flash' is unknown

// RUN: not transformer-opt %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open input file '{{.*}}missing.mlir': No such file or directory

// RUN: not transformer-opt %t/unranked.mlir --transformer-to-llvm > %t/out 2> %t/err
// RUN: count 0 < %t/out
// RUN: FileCheck %s --check-prefix=UNRANKED < %t/err
// UNRANKED: error: 'transformer.softmax' op could not infer a ranked type

// RUN: not transformer-opt %t/empty-attr.mlir 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: error: 'transformer.rope' op base must be a finite positive number

//--- syntax.mlir
func.func @f(%x: tensor<4xf32>) {
  %0 = transformer.softmax %x tensor<4xf32> -> tensor<4xf32>
  return
}
//--- verify.mlir
func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  %0 = transformer.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return
}
//--- unknown-op.mlir
func.func @f(%a: tensor<2x3xf32>) {
  %0 = transformer.flash %a : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}
//--- unranked.mlir
func.func @f(%x: tensor<*xf32>) -> tensor<*xf32> {
  %0 = transformer.softmax %x : tensor<*xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
//--- empty-attr.mlir
func.func @f(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = transformer.rope %x {base = -1.0 : f32} : tensor<2x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
