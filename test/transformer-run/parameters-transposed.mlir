// REQUIRES: numpy
// A weight the file holds transposed (`transformer.transposed`: an
// nn.Linear weight [out, in] that the function reads as [in, out], as the
// Llama-family importer declares its projections): --parameters transposes
// it once, when binding, after converting it to the argument's type.
// RUN: %python %test_lib/safetensors_io.py %t.linear.safetensors linear
// RUN: %python %test_lib/safetensors_io.py %t.linear-f16.safetensors linear-f16
// RUN: transformer-run %s --parameters=%t.linear.safetensors --input="2x3xf32=1 2 3 4 5 6" --output=@%t.1.npy
// RUN: %python %test_lib/safetensors_io.py check %t.1.npy linear | FileCheck %s --check-prefix=LINEAR
// LINEAR: PASS linear
// RUN: transformer-run %s --parameters=%t.linear-f16.safetensors --input="2x3xf32=1 2 3 4 5 6" --output=@%t.2.npy
// RUN: %python %test_lib/safetensors_io.py check %t.2.npy linear-f16 | FileCheck %s --check-prefix=LINEAR-F16
// LINEAR-F16: PASS linear-f16

// A weight of several transpose blocks each way, neither size a multiple
// of the block, from f32 and f16 files.
// RUN: %python %test_lib/safetensors_io.py large-input %t.x.npy
// RUN: transformer-run %s -e large --parameters=%t.linear.safetensors --input=@%t.x.npy --output=@%t.3.npy
// RUN: %python %test_lib/safetensors_io.py check-large %t.3.npy linear | FileCheck %s --check-prefix=LARGE
// LARGE: PASS large linear
// RUN: transformer-run %s -e large --parameters=%t.linear-f16.safetensors --input=@%t.x.npy --output=@%t.4.npy
// RUN: %python %test_lib/safetensors_io.py check-large %t.4.npy linear-f16 | FileCheck %s --check-prefix=LARGE-F16
// LARGE-F16: PASS large linear-f16

// A file holding the argument's own layout is a shape error that says the
// argument is bound transposed.
// RUN: %python %test_lib/safetensors_io.py %t.good.safetensors good
// RUN: %exit-status 1 transformer-run %s --parameters=%t.good.safetensors --input="2x3xf32=1 2 3 4 5 6" 2>&1 | FileCheck %s --check-prefix=LAYOUT
// LAYOUT: Error: parameter 'h.0.w': the function expects shape [4, 3], the file has [3, 4] (F32) (argument 1 of @main, bound transposed)

// Only a float matrix can be bound transposed.
// RUN: %exit-status 1 transformer-run %s -e not_a_matrix --parameters=%t.linear.safetensors --input=2x4xf32=1 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: Error: @not_a_matrix: argument 1 has a transformer.transposed attribute but is not a matrix of f32, f16 or bf16 (or ggml blocks)
// RUN: %exit-status 1 transformer-run %s -e not_unit --parameters=%t.linear.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=UNIT
// UNIT: Error: @not_unit: argument 1 has a transformer.transposed attribute that is not a unit attribute
func.func @main(%x: tensor<2x3xf32>,
                %w: tensor<3x4xf32> {transformer.parameter = "h.0.w", transformer.transposed},
                %b: tensor<4xf32> {transformer.parameter = "h.0.b"}) -> tensor<2x4xf32> {
  %y = transformer.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %z = transformer.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %z : tensor<2x4xf32>
}

func.func @large(%x: tensor<2x70xf32>,
                 %w: tensor<70x150xf32> {transformer.parameter = "h.1.w", transformer.transposed}) -> tensor<2x150xf32> {
  %y = transformer.matmul %x, %w : tensor<2x70xf32>, tensor<70x150xf32> -> tensor<2x150xf32>
  return %y : tensor<2x150xf32>
}

func.func @not_a_matrix(%x: tensor<2x4xf32>,
                        %b: tensor<4xf32> {transformer.parameter = "h.0.b", transformer.transposed}) -> tensor<2x4xf32> {
  %z = transformer.add %x, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %z : tensor<2x4xf32>
}

func.func @not_unit(%x: tensor<2x3xf32>,
                    %w: tensor<3x4xf32> {transformer.parameter = "h.0.w", transformer.transposed = 1 : i64}) -> tensor<2x4xf32> {
  %y = transformer.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
