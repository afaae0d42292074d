// REQUIRES: numpy
// Weights bound by name from a GGUF file (--parameters=FILE.gguf, told
// apart by its magic): F32 (no copy), F16 and BF16 (converted to the
// argument's type once), found by their GGUF names; and GGUF's errors, one
// line each, nothing run.
// RUN: %python %test_lib/gguf_cases.py %t.f32.gguf f32
// RUN: transformer-run %s -e main --parameters=%t.f32.gguf --input="2x3xf32=1 2 3 4 5 6" --output=@%t.f32.npy
// RUN: %python %test_lib/safetensors_io.py check %t.f32.npy good | FileCheck %s --check-prefix=F32
// F32: PASS good
// RUN: %python %test_lib/gguf_cases.py %t.f16.gguf f16
// RUN: transformer-run %s -e main --parameters=%t.f16.gguf --input="2x3xf32=1 2 3 4 5 6" --output=@%t.f16.npy
// RUN: %python %test_lib/safetensors_io.py check %t.f16.npy good f16 | FileCheck %s --check-prefix=F16
// F16: PASS good
// RUN: %python %test_lib/gguf_cases.py %t.bf16.gguf bf16
// RUN: transformer-run %s -e main --parameters=%t.bf16.gguf --input="2x3xf32=1 2 3 4 5 6" --output=@%t.bf16.npy
// RUN: %python %test_lib/safetensors_io.py check %t.bf16.npy good bf16 | FileCheck %s --check-prefix=BF16
// BF16: PASS good
// RUN: transformer-run %s -e half --parameters=%t.f32.gguf --input="2x3xf32=1 2 3 4 5 6" --output=@%t.half.npy
// RUN: %python %test_lib/safetensors_io.py check %t.half.npy good bf16 | FileCheck %s --check-prefix=HALF
// HALF: PASS good

// RUN: %python %test_lib/gguf_cases.py %t.q8.gguf q8_0
// RUN: %exit-status 1 transformer-run %s -e main --parameters=%t.q8.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=Q8
// Q8: Error: parameter 'h.0.w': GGUF tensor 'h.0.w' (Q8_0, [2, 32]) is block-quantized: it binds only to a q8_0 parameter (a module imported with --weight-type=q8_0), not to f32 (argument 1 of @main)
// RUN: %python %test_lib/gguf_cases.py %t.q6.gguf q6_k
// RUN: %exit-status 1 transformer-run %s -e main --parameters=%t.q6.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=Q6
// Q6: Error: parameter 'h.0.w': GGUF tensor 'h.0.w' (Q6_K, [3, 4]): type Q6_K is not supported (F32, F16, BF16, Q8_0 and Q4_0 are) (argument 1 of @main)
// RUN: %python %test_lib/gguf_cases.py %t.odd.gguf q8_0-odd-row
// RUN: %exit-status 1 transformer-run %s -e main --parameters=%t.odd.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: Error: {{.*}}odd.gguf: tensor 'h.0.w' (Q8_0): rows of 20 elements are not whole blocks of 32
// RUN: %exit-status 1 transformer-run %s -e missing --parameters=%t.f32.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: Error: parameter 'h.0.x': no tensor of that name in '{{.*}}f32.gguf' (architecture 'test') (argument 1 of @missing)
// RUN: %exit-status 1 transformer-run %s -e shape --parameters=%t.f32.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: Error: parameter 'h.0.w': the function expects shape [4, 3], GGUF tensor 'h.0.w' (F32, [3, 4]) is [3, 4] (argument 1 of @shape)
// RUN: %exit-status 1 transformer-run %s -e ints --parameters=%t.f32.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=INTS
// INTS: Error: parameter 'h.0.b': GGUF tensor 'h.0.b' (F32, [4]) cannot be bound to an argument of i32 (argument 1 of @ints)
// RUN: %python %test_lib/gguf_cases.py %t.trunc.gguf truncated
// RUN: %exit-status 1 transformer-run %s -e main --parameters=%t.trunc.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: Error: {{.*}}trunc.gguf: tensor 'h.0.b': data [64, 80) goes past the end of the data (72 bytes; is the file truncated?)
// RUN: %python %test_lib/gguf_cases.py %t.trunch.gguf truncated-header
// RUN: %exit-status 1 transformer-run %s -e main --parameters=%t.trunch.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=TRUNCH
// TRUNCH: Error: {{.*}}trunch.gguf: truncated file: key 0 at byte 32 needs 20 bytes, 8 left
// RUN: %python %test_lib/gguf_cases.py %t.version.gguf version
// RUN: %exit-status 1 transformer-run %s -e main --parameters=%t.version.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: Error: {{.*}}version.gguf: GGUF version 7 (this reader knows versions 2 and 3)
// RUN: %python %test_lib/gguf_cases.py %t.align.gguf alignment
// RUN: %exit-status 1 transformer-run %s -e main --parameters=%t.align.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=ALIGN
// ALIGN: Error: {{.*}}align.gguf: general.alignment 24 is not a power of two
// RUN: %python %test_lib/gguf_cases.py %t.dims.gguf dims
// RUN: %exit-status 1 transformer-run %s -e main --parameters=%t.dims.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=DIMS
// DIMS: Error: {{.*}}dims.gguf: tensor 'h.0.w': 9 dimensions (1 to 4 expected)
// RUN: %python %test_lib/gguf_cases.py %t.huge.gguf empty-huge
// RUN: %exit-status 1 transformer-run %s -e main --parameters=%t.huge.gguf --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: Error: {{.*}}huge.gguf: tensor 'h.0.w': dimension 4611686018427387904 is too large
func.func @main(%x: tensor<2x3xf32>,
                %w: tensor<3x4xf32> {transformer.parameter = "h.0.w"},
                %b: tensor<4xf32> {transformer.parameter = "h.0.b"}) -> tensor<2x4xf32> {
  %y = transformer.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %z = transformer.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %z : tensor<2x4xf32>
}

// An F32 tensor of the file bound to a bf16 weight.
func.func @half(%x: tensor<2x3xf32>,
                %w: tensor<3x4xbf16> {transformer.parameter = "h.0.w"},
                %b: tensor<4xf32> {transformer.parameter = "h.0.b"}) -> tensor<2x4xf32> {
  %y = transformer.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xbf16> -> tensor<2x4xf32>
  %z = transformer.add %y, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %z : tensor<2x4xf32>
}

func.func @missing(%x: tensor<2x3xf32>, %w: tensor<3x4xf32> {transformer.parameter = "h.0.x"}) -> tensor<3x4xf32> {
  return %w : tensor<3x4xf32>
}

func.func @shape(%x: tensor<2x3xf32>, %w: tensor<4x3xf32> {transformer.parameter = "h.0.w"}) -> tensor<4x3xf32> {
  return %w : tensor<4x3xf32>
}

func.func @ints(%x: tensor<2x3xf32>, %b: tensor<4xi32> {transformer.parameter = "h.0.b"}) -> tensor<4xi32> {
  return %b : tensor<4xi32>
}
