// REQUIRES: torch, transformer-run
// GPT-2 weights from a GGUF file in llama.cpp's names and orientation
// (written by test/lib/gguf_writer.py): the module's Hugging Face names map
// to token_embd, position_embd, blk.N.attn_qkv (stored transposed), ...; F32,
// F16 and BF16 files bind to an f32 module and to one imported with
// --weight-type=bf16. Logits agree with the PyTorch reference on the same
// (rounded) weights, and @generate gives its greedy tokens.
// RUN: rm -rf %t && %python %test_lib/gpt2_reference.py setup %t
// RUN: transformer-translate --import-hf-config %t/config.json -o %t/model.mlir
// RUN: transformer-translate --import-hf-config %t/config.json --weight-type=bf16 -o %t/bf16.mlir
// RUN: %python %test_lib/gpt2_reference.py gguf %t f32
// RUN: %python %test_lib/gpt2_reference.py gguf %t f16
// RUN: %python %test_lib/gpt2_reference.py gguf %t bf16
// RUN: %python %test_lib/gpt2_reference.py forward %t --parameters model-f32.gguf | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/gpt2_reference.py generate %t 16 2 --parameters model-f32.gguf | FileCheck %s --check-prefix=GEN
// RUN: %python %test_lib/gpt2_reference.py forward %t --parameters model-f16.gguf --weight-type f16 | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/gpt2_reference.py generate %t 16 2 --model bf16.mlir --parameters model-bf16.gguf --weight-type bf16 | FileCheck %s --check-prefix=GEN
// RUN: %python %test_lib/gpt2_reference.py generate %t 16 2 --model bf16.mlir --parameters model-f32.gguf --weight-type bf16 | FileCheck %s --check-prefix=GEN
// FORWARD-COUNT-3: PASS @forward
// FORWARD-NOT: FAIL
// GEN: PASS @generate batch 2, 16 steps: PyTorch's greedy tokens

// A GGUF file of another architecture names its tensors otherwise.
// RUN: %python -c "import sys; sys.path.insert(0, '%test_lib'); import gguf_cases; gguf_cases.make('%t/other.gguf', 'f32')"
// RUN: %exit-status 1 transformer-run %t/model.mlir -e forward --parameters=%t/other.gguf --input=1x1xi64=1 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: Error: parameter 'wte.weight': no tensor of that name in '{{.*}}other.gguf' (architecture 'test') (argument 1 of @forward)
