// REQUIRES: numpy
// Panel widths that do not fit the entry's arguments (written by hand: the
// compiler writes only ones that do) are an error before anything is bound.
// RUN: %python %test_lib/panel_params.py weights %t.safetensors
// RUN: %exit-status 1 transformer-run %s --parameters=%t.safetensors --input=4x64xf32=1 2>&1 | FileCheck %s
// CHECK: Error: transformer.panel_parameters: argument 0 of @main (tensor<4x64xf32>) cannot be bound in panels 32 wide
// CHECK-NOT: EXEC
// Nor can a weight read in panels come from --input (a [k, n] tensor).
// RUN: %exit-status 1 transformer-run %s -e other --input=4x64xf32=1 --input=64x64xf32=1 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: Error: argument 1 of @other is read in panels (transformer.panel_parameters) and must be bound from a weights file (--parameters)
// INPUT-NOT: EXEC
module attributes {transformer.panel_parameters = {main = array<i64: 32, 0>, other = array<i64: 0, 32>}} {
  func.func @other(%x: tensor<4x64xf32>,
                   %w: tensor<64x64xf32> {transformer.parameter = "l0.w"}) -> tensor<4x64xf32> {
    %y = transformer.matmul %x, %w : tensor<4x64xf32>, tensor<64x64xf32> -> tensor<4x64xf32>
    return %y : tensor<4x64xf32>
  }
  func.func @main(%x: tensor<4x64xf32>,
                  %e: tensor<64x96xf32> {transformer.parameter = "e.w"}) -> tensor<4x96xf32> {
    %y = transformer.matmul %x, %e : tensor<4x64xf32>, tensor<64x96xf32> -> tensor<4x96xf32>
    %row = tensor.extract_slice %e[0, 0] [1, 96] [1, 1] : tensor<64x96xf32> to tensor<96xf32>
    %z = transformer.add %y, %row : tensor<4x96xf32>, tensor<96xf32> -> tensor<4x96xf32>
    return %z : tensor<4x96xf32>
  }
}
