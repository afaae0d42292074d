// REQUIRES: numpy
// A weight declared bf16 (or f16) in the module: --parameters converts an
// F32, F16 or BF16 tensor of the file to it once, when binding (rounded to
// nearest even); a tensor already in the argument's type is bound as it is.
// RUN: %python %test_lib/safetensors_io.py %t.good.safetensors good
// RUN: %python %test_lib/safetensors_io.py %t.f16.safetensors f16
// RUN: %python %test_lib/safetensors_io.py %t.bf16.safetensors bf16
// RUN: transformer-run %s -e bf16 --parameters=%t.good.safetensors --input="2x3xf32=1 2 3 4 5 6" --output=@%t.1.npy
// RUN: %python %test_lib/safetensors_io.py check %t.1.npy good bf16 | FileCheck %s --check-prefix=GOOD-BF16
// GOOD-BF16: PASS good
// RUN: transformer-run %s -e bf16 --parameters=%t.f16.safetensors --input="2x3xf32=1 2 3 4 5 6" --output=@%t.2.npy
// RUN: %python %test_lib/safetensors_io.py check %t.2.npy f16 bf16 | FileCheck %s --check-prefix=F16-BF16
// F16-BF16: PASS f16
// RUN: transformer-run %s -e bf16 --parameters=%t.bf16.safetensors --input="2x3xf32=1 2 3 4 5 6" --output=@%t.3.npy
// RUN: %python %test_lib/safetensors_io.py check %t.3.npy bf16 bf16 | FileCheck %s --check-prefix=BF16-BF16
// BF16-BF16: PASS bf16
// RUN: transformer-run %s -e f16 --parameters=%t.good.safetensors --input="2x3xf32=1 2 3 4 5 6" --output=@%t.4.npy
// RUN: %python %test_lib/safetensors_io.py check %t.4.npy good f16 | FileCheck %s --check-prefix=GOOD-F16
// GOOD-F16: PASS good
// RUN: transformer-run %s -e f16 --parameters=%t.bf16.safetensors --input="2x3xf32=1 2 3 4 5 6" --output=@%t.5.npy
// RUN: %python %test_lib/safetensors_io.py check %t.5.npy bf16 f16 | FileCheck %s --check-prefix=BF16-F16
// BF16-F16: PASS bf16

// Integers cannot be bound to a 16-bit float weight.
// RUN: %python %test_lib/safetensors_io.py %t.dtype.safetensors wrong-dtype
// RUN: %exit-status 1 transformer-run %s -e f16_bias --parameters=%t.dtype.safetensors --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: Error: parameter 'h.0.b': dtype I64 cannot be bound to an argument of f16 (accepted: F32, F16, BF16) (argument 2 of @f16_bias)

// Without --parameters, inline values and f32 .npy files are rounded to a
// 16-bit argument in the same way; a bf16 value prints as f32.
// RUN: transformer-run %s -e bf16 --input="2x3xf32=1 2 3 4 5 6" --input=3x4xf32=0.1 --input=4xf32=0 | FileCheck %s --check-prefix=INLINE
// bf16(0.1) = 0.10009765625: rows of 6 and 15 times it.
// INLINE: result[0]: 2x4xf32={{\[\[}}0.600586 0.600586 0.600586 0.600586][1.50146 1.50146 1.50146 1.50146{{\]\]}}
// RUN: transformer-run %s -e identity --input="3xbf16=0.1 1 -2" | FileCheck %s --check-prefix=PRINT
// PRINT: result[0]: 3xbf16=[0.100098 1 -2]
// RUN: transformer-run %s -e identity --input="3xf32=0.1 1 -2" --output=@%t.id.npy
// RUN: %python -c "import numpy as np; a = np.load('%t.id.npy'); print(a.dtype, a.tolist())" | FileCheck %s --check-prefix=NPY
// NPY: float32 [0.10009765625, 1.0, -2.0]
// ... which a check of the bf16 result accepts back (floats compare by value).
// RUN: transformer-run %s -e identity --input="3xf32=0.1 1 -2" --expected-output=@%t.id.npy | FileCheck %s --check-prefix=EXPECT
// EXPECT-NOT: Error
// EXPECT: result[0]: 3xbf16=[0.100098 1 -2]
func.func @bf16(%x: tensor<2x3xf32>,
                %w: tensor<3x4xbf16> {transformer.parameter = "h.0.w"},
                %b: tensor<4xf32> {transformer.parameter = "h.0.b"}) -> tensor<2x4xf32> {
  %y = transformer.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xbf16> -> tensor<2x4xf32>
  %z = transformer.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %z : tensor<2x4xf32>
}

func.func @f16(%x: tensor<2x3xf32>,
               %w: tensor<3x4xf16> {transformer.parameter = "h.0.w"},
               %b: tensor<4xf32> {transformer.parameter = "h.0.b"}) -> tensor<2x4xf32> {
  %y = transformer.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf16> -> tensor<2x4xf32>
  %z = transformer.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %z : tensor<2x4xf32>
}

func.func @f16_bias(%x: tensor<2x3xf32>,
                    %w: tensor<3x4xf32> {transformer.parameter = "h.0.w"},
                    %b: tensor<4xf16> {transformer.parameter = "h.0.b"}) -> tensor<4xf16> {
  return %b : tensor<4xf16>
}

func.func @identity(%x: tensor<3xbf16>) -> tensor<3xbf16> {
  return %x : tensor<3xbf16>
}
