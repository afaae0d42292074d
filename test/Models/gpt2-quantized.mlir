// REQUIRES: torch, transformer-run
// GPT-2 imported with block-quantized weights (--weight-type=q8_0 / q4_0):
// the 2-D weights but the position embedding are ggml blocks (i8, the
// Conv1D weights quantized along their input dimension, transposed), used
// through transformer.dequantize; the f32 safetensors file is quantized
// once when it is bound, with ggml's rounding. The PyTorch reference runs
// in f32 on the same quantized-then-dequantized weights, so logits agree to
// f32 tolerance and the greedy tokens are equal. GGUF files in the same
// formats (written by the tests' writer, bit-identical to llama-quantize's)
// bind their blocks as they are.
// RUN: rm -rf %t && %python %test_lib/gpt2_reference.py setup %t
// RUN: transformer-translate --import-hf-config %t/config.json --weight-type=q8_0 -o %t/q8_0.mlir
// RUN: FileCheck %s --input-file=%t/q8_0.mlir --check-prefix=Q8
// RUN: %python %test_lib/gpt2_reference.py forward %t --model q8_0.mlir --weight-type q8_0 | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/gpt2_reference.py generate %t 24 2 --model q8_0.mlir --weight-type q8_0 | FileCheck %s --check-prefix=GEN
// RUN: %python %test_lib/gpt2_reference.py decode %t 3 --model q8_0.mlir --weight-type q8_0 | FileCheck %s --check-prefix=DECODE
// RUN: transformer-translate --import-hf-config %t/config.json --weight-type=q4_0 -o %t/q4_0.mlir
// RUN: %python %test_lib/gpt2_reference.py forward %t --model q4_0.mlir --weight-type q4_0 | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/gpt2_reference.py generate %t 24 2 --model q4_0.mlir --weight-type q4_0 | FileCheck %s --check-prefix=GEN
// RUN: %python %test_lib/gpt2_reference.py decode %t 3 --model q4_0.mlir --weight-type q4_0 | FileCheck %s --check-prefix=DECODE
// RUN: %python %test_lib/gpt2_reference.py gguf %t q8_0
// RUN: %python %test_lib/gpt2_reference.py gguf %t q4_0
// RUN: %python %test_lib/gpt2_reference.py forward %t --model q8_0.mlir --parameters model-q8_0.gguf --weight-type q8_0 | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/gpt2_reference.py generate %t 16 2 --model q4_0.mlir --parameters model-q4_0.gguf --weight-type q4_0 | FileCheck %s --check-prefix=GEN
// FORWARD-COUNT-3: PASS @forward
// FORWARD-NOT: FAIL
// GEN: PASS @generate batch 2, {{[0-9]+}} steps: PyTorch's greedy tokens
// DECODE-COUNT-4: PASS @
// DECODE-NOT: FAIL

// Q8-LABEL: func.func @forward
// Q8-SAME: tensor<1000x2x34xi8> {transformer.block_format = "q8_0", transformer.parameter = "wte.weight"}
// Q8-SAME: tensor<128x64xf32> {transformer.parameter = "wpe.weight"}
// Q8-SAME: tensor<64xf32> {transformer.parameter = "h.0.ln_1.weight"}
// Q8-SAME: tensor<192x2x34xi8> {transformer.block_format = "q8_0", transformer.parameter = "h.0.attn.c_attn.weight", transformer.transposed}
// Q8-SAME: tensor<192xf32> {transformer.parameter = "h.0.attn.c_attn.bias"}
// Q8-SAME: tensor<64x2x34xi8> {transformer.block_format = "q8_0", transformer.parameter = "h.0.attn.c_proj.weight", transformer.transposed}
// Q8-SAME: tensor<256x2x34xi8> {transformer.block_format = "q8_0", transformer.parameter = "h.0.mlp.c_fc.weight", transformer.transposed}
// Q8-SAME: tensor<64x8x34xi8> {transformer.block_format = "q8_0", transformer.parameter = "h.0.mlp.c_proj.weight", transformer.transposed}
// Q8: transformer.dequantize q8_0 %{{.*}} : tensor<1000x2x34xi8> -> tensor<1000x64xf32>
// Q8: transformer.embedding {{.*}} tensor<1000x64xf32> -> tensor<?x?x64xf32>
// The layers' blocks go to the layer function, which reads them.
// Q8: call @layer({{.*}}) : (tensor<?x64xf32>, index, index, index, tensor<64xf32>, tensor<64xf32>, tensor<192x2x34xi8>,
// Q8: transformer.matmul {{.*}} {transpose_b} : tensor<?x64xf32>, tensor<1000x64xf32> -> tensor<?x1000xf32>
// Q8-LABEL: func.func private @layer(
// Q8: transformer.dequantize q8_0 %{{.*}} : tensor<192x2x34xi8> -> tensor<192x64xf32>
// Q8: transformer.matmul {{.*}} {transpose_b} : tensor<?x64xf32>, tensor<192x64xf32> -> tensor<?x192xf32>
