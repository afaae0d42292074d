// REQUIRES: numpy
// Block-quantized parameters (transformer.block_format = "q8_0" / "q4_0",
// an i8 tensor [rows, blocks, block bytes]): --parameters quantizes an F32,
// F16 or BF16 safetensors tensor once, when binding, exactly as ggml's
// reference does (the blocks equal the tests' ggml-exact quantizer's, byte
// for byte); with transformer.transposed the file holds the matrix
// transposed (a Conv1D weight [in, out]). A GGUF file's Q8_0/Q4_0 tensors
// bind as they are; its F32 tensors are quantized like safetensors ones.
// RUN: rm -rf %t && %python %test_lib/quantized_params.py make %t
// RUN: transformer-run %s -e q8_0 --parameters=%t/f32.safetensors --output=@%t/a.npy --output=@%t/b.npy
// RUN: %python %test_lib/quantized_params.py check %t/a.npy plain q8_0 f32 | FileCheck %s --check-prefix=PASS
// RUN: %python %test_lib/quantized_params.py check %t/b.npy conv q8_0 f32 | FileCheck %s --check-prefix=PASS
// RUN: transformer-run %s -e q4_0 --parameters=%t/f32.safetensors --output=@%t/c.npy --output=@%t/d.npy
// RUN: %python %test_lib/quantized_params.py check %t/c.npy plain q4_0 f32 | FileCheck %s --check-prefix=PASS
// RUN: %python %test_lib/quantized_params.py check %t/d.npy conv q4_0 f32 | FileCheck %s --check-prefix=PASS
// RUN: transformer-run %s -e q8_0 --parameters=%t/f16.safetensors --output=@%t/e.npy --output=@%t/f.npy
// RUN: %python %test_lib/quantized_params.py check %t/f.npy conv q8_0 f16 | FileCheck %s --check-prefix=PASS
// RUN: transformer-run %s -e q4_0 --parameters=%t/bf16.safetensors --output=@%t/g.npy --output=@%t/h.npy
// RUN: %python %test_lib/quantized_params.py check %t/g.npy plain q4_0 bf16 | FileCheck %s --check-prefix=PASS
// RUN: %python %test_lib/quantized_params.py check %t/h.npy conv q4_0 bf16 | FileCheck %s --check-prefix=PASS
// PASS: PASS

// GGUF: the file's own blocks, and its F32 tensors quantized at binding.
// RUN: transformer-run %s -e q8_0 --parameters=%t/q8_0.gguf --output=@%t/i.npy --output=@%t/j.npy
// RUN: %python %test_lib/quantized_params.py check %t/j.npy conv q8_0 f32 | FileCheck %s --check-prefix=PASS
// RUN: transformer-run %s -e q4_0 --parameters=%t/q4_0.gguf --output=@%t/k.npy --output=@%t/l.npy
// RUN: %python %test_lib/quantized_params.py check %t/k.npy plain q4_0 f32 | FileCheck %s --check-prefix=PASS
// RUN: transformer-run %s -e q4_0 --parameters=%t/f32.gguf --output=@%t/m.npy --output=@%t/n.npy
// RUN: %python %test_lib/quantized_params.py check %t/n.npy conv q4_0 f32 | FileCheck %s --check-prefix=PASS

// Errors name the parameter, the tensor and what does not match.
// RUN: %exit-status 1 transformer-run %s -e q4_0 --parameters=%t/q8_0.gguf 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: Error: parameter 'plain': GGUF tensor 'plain' (Q8_0, [40, 64]) cannot be bound to a q4_0 argument: the module was imported in another format (argument 0 of @q4_0)
// Under GPT-2's mapped names, llama.cpp's Conv1D weights are the transpose
// of the module's: they bind to transposed arguments only.
// RUN: transformer-run %s -e gpt2 --parameters=%t/gpt2.gguf --output=@%t/o.npy
// RUN: %python %test_lib/quantized_params.py check %t/o.npy conv q8_0 f32 | FileCheck %s --check-prefix=PASS
// RUN: %exit-status 1 transformer-run %s -e untransposed --parameters=%t/gpt2.gguf 2>&1 | FileCheck %s --check-prefix=ORIENTATION
// ORIENTATION: Error: parameter 'h.0.attn.c_attn.weight': GGUF tensor 'blk.0.attn_qkv.weight' (Q8_0, [96, 64]) holds its blocks along the other dimension than the argument's (argument 0 of @untransposed)
// RUN: %exit-status 1 transformer-run %s -e blocks --parameters=%t/q8_0.gguf 2>&1 | FileCheck %s --check-prefix=BLOCKS
// BLOCKS: Error: parameter 'plain': GGUF tensor 'plain' (Q8_0, [40, 64]) does not match the argument's blocks [40, 3, 34] (argument 0 of @blocks)
// RUN: %exit-status 1 transformer-run %s -e blocks --parameters=%t/f32.safetensors 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: Error: parameter 'plain': {{.*}}[40, 96]{{.*}}[40, 64]{{.*}}(argument 0 of @blocks)
// RUN: %exit-status 1 transformer-run %s -e bad_format --parameters=%t/f32.safetensors 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: Error: @bad_format: argument 0 has a transformer.block_format attribute that is not "q8_0" or "q4_0" on a tensor of rank 3 of i8
// RUN: %exit-status 1 transformer-run %s -e bad_type --parameters=%t/f32.safetensors 2>&1 | FileCheck %s --check-prefix=ATTR-TYPE
// ATTR-TYPE: Error: @bad_type: argument 0 has a transformer.block_format attribute that is not "q8_0" or "q4_0" on a tensor of rank 3 of i8
// RUN: %exit-status 1 transformer-run %s -e bad_transposed --parameters=%t/f32.safetensors 2>&1 | FileCheck %s --check-prefix=ATTR-T
// ATTR-T: Error: @bad_transposed: argument 0 has a transformer.transposed attribute that is not a unit attribute
// A quantized tensor cannot be bound to a float argument.
// RUN: %exit-status 1 transformer-run %s -e floats --parameters=%t/q8_0.gguf 2>&1 | FileCheck %s --check-prefix=FLOAT
// FLOAT: Error: parameter 'plain': GGUF tensor 'plain' (Q8_0, [40, 64]) is block-quantized: it binds only to a q8_0 parameter (a module imported with --weight-type=q8_0), not to f32 (argument 0 of @floats)

func.func @q8_0(%plain: tensor<40x2x34xi8> {transformer.parameter = "plain", transformer.block_format = "q8_0"},
                %conv: tensor<96x2x34xi8> {transformer.parameter = "conv", transformer.block_format = "q8_0", transformer.transposed})
    -> (tensor<40x2x34xi8>, tensor<96x2x34xi8>) {
  return %plain, %conv : tensor<40x2x34xi8>, tensor<96x2x34xi8>
}

func.func @q4_0(%plain: tensor<40x2x18xi8> {transformer.parameter = "plain", transformer.block_format = "q4_0"},
                %conv: tensor<96x2x18xi8> {transformer.parameter = "conv", transformer.block_format = "q4_0", transformer.transposed})
    -> (tensor<40x2x18xi8>, tensor<96x2x18xi8>) {
  return %plain, %conv : tensor<40x2x18xi8>, tensor<96x2x18xi8>
}

func.func @gpt2(%conv: tensor<96x2x34xi8> {transformer.parameter = "h.0.attn.c_attn.weight", transformer.block_format = "q8_0", transformer.transposed}) -> tensor<96x2x34xi8> {
  return %conv : tensor<96x2x34xi8>
}

func.func @untransposed(%conv: tensor<64x3x34xi8> {transformer.parameter = "h.0.attn.c_attn.weight", transformer.block_format = "q8_0"}) -> tensor<64x3x34xi8> {
  return %conv : tensor<64x3x34xi8>
}

func.func @blocks(%plain: tensor<40x3x34xi8> {transformer.parameter = "plain", transformer.block_format = "q8_0"}) -> tensor<40x3x34xi8> {
  return %plain : tensor<40x3x34xi8>
}

func.func @bad_format(%plain: tensor<40x2x34xi8> {transformer.parameter = "plain", transformer.block_format = "q5_0"}) -> tensor<40x2x34xi8> {
  return %plain : tensor<40x2x34xi8>
}

func.func @bad_type(%plain: tensor<40x64xf32> {transformer.parameter = "plain", transformer.block_format = "q8_0"}) -> tensor<40x64xf32> {
  return %plain : tensor<40x64xf32>
}

func.func @bad_transposed(%conv: tensor<96x2x34xi8> {transformer.parameter = "conv", transformer.block_format = "q8_0", transformer.transposed = false}) -> tensor<96x2x34xi8> {
  return %conv : tensor<96x2x34xi8>
}

func.func @floats(%plain: tensor<40x64xf32> {transformer.parameter = "plain"}) -> tensor<40x64xf32> {
  return %plain : tensor<40x64xf32>
}
