// REQUIRES: numpy
// Weights bound by name from a .safetensors file (--parameters): f32 (zero
// copy), f16 and bf16 (converted), a `transformer.` prefix and extra tensors
// in the file; the remaining argument comes from --input.
// RUN: %python %test_lib/safetensors_io.py %t.good.safetensors good
// RUN: transformer-run %s --parameters=%t.good.safetensors --input="2x3xf32=1 2 3 4 5 6" --output=@%t.good.npy
// RUN: %python %test_lib/safetensors_io.py check %t.good.npy good | FileCheck %s --check-prefix=GOOD
// GOOD: PASS good
// RUN: %python %test_lib/safetensors_io.py %t.prefixed.safetensors prefixed
// RUN: transformer-run %s --parameters=%t.prefixed.safetensors --input="2x3xf32=1 2 3 4 5 6" --output=@%t.prefixed.npy
// RUN: %python %test_lib/safetensors_io.py check %t.prefixed.npy prefixed | FileCheck %s --check-prefix=PREFIXED
// PREFIXED: PASS prefixed
// RUN: %python %test_lib/safetensors_io.py %t.f16.safetensors f16
// RUN: transformer-run %s --parameters=%t.f16.safetensors --input="2x3xf32=1 2 3 4 5 6" --output=@%t.f16.npy
// RUN: %python %test_lib/safetensors_io.py check %t.f16.npy f16 | FileCheck %s --check-prefix=F16
// F16: PASS f16
// RUN: %python %test_lib/safetensors_io.py %t.bf16.safetensors bf16
// RUN: transformer-run %s --parameters=%t.bf16.safetensors --input="2x3xf32=1 2 3 4 5 6" --output=@%t.bf16.npy
// RUN: %python %test_lib/safetensors_io.py check %t.bf16.npy bf16 | FileCheck %s --check-prefix=BF16
// BF16: PASS bf16

// The weights are checked against the file before compiling and read after:
// a converted weight never sits beside the compiler's working memory.
// RUN: transformer-run %s --parameters=%t.bf16.safetensors --input="2x3xf32=1 2 3 4 5 6" --mlir-timing 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: check parameters
// ORDER: JIT compile (LLVM)
// ORDER: bind parameters
// ORDER: run

// Without --parameters every argument is an --input, weights included.
// RUN: transformer-run %s --input="2x3xf32=1 2 3 4 5 6" --input=3x4xf32=1 --input=4xf32=0.5 | FileCheck %s --check-prefix=ALL
// ALL: result[0]: 2x4xf32={{\[\[}}6.5 6.5 6.5 6.5][15.5 15.5 15.5 15.5{{\]\]}}

// With --parameters the weights are not counted among the inputs.
// RUN: %exit-status 1 transformer-run %s --parameters=%t.good.safetensors --input="2x3xf32=1 2 3 4 5 6" --input=3x4xf32=1 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: Error: @main takes 1 argument(s) besides its parameters but 2 --input value(s) were given
func.func @main(%x: tensor<2x3xf32>,
                %w: tensor<3x4xf32> {transformer.parameter = "h.0.w"},
                %b: tensor<4xf32> {transformer.parameter = "h.0.b"}) -> tensor<2x4xf32> {
  %y = transformer.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %z = transformer.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %z : tensor<2x4xf32>
}
