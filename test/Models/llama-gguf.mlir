// REQUIRES: torch, transformer-run
// The sanitizer build skips these long runs (see llama-parity.mlir); the
// binding paths they take run under ASan in parameters-gguf.mlir.
// UNSUPPORTED: asan
// Llama-family weights from a GGUF file in llama.cpp's names and layout
// (written by test/lib/gguf_writer.py as its convert_hf_to_gguf.py does):
// the module's Hugging Face names map to token_embd, blk.N.attn_q, ...,
// output; for architecture `llama` (Llama and Mistral) the rows of q and k
// and of their biases are in llama.cpp's rope order, undone when bound
// (from llama.attention.head_count and head_count_kv); `qwen2` keeps
// Hugging Face's order. Logits agree with the PyTorch reference on the
// same weights, and @generate gives its greedy tokens.

// Llama with GQA and q/k/v/o biases: F32 and F16 files into an f32 module
// (whose projections are bound transposed), and Q8_0 blocks (reordered by
// rows of blocks) and an F32 file quantized when bound into a q8_0 module.
// RUN: rm -rf %t.llama && %python %test_lib/llama_reference.py setup %t.llama --attention-bias
// RUN: transformer-translate --import-hf-config %t.llama/config.json -o %t.llama/model.mlir
// RUN: transformer-translate --import-hf-config %t.llama/config.json --weight-type=q8_0 -o %t.llama/q8.mlir
// RUN: %python %test_lib/llama_reference.py gguf %t.llama f32
// RUN: %python %test_lib/llama_reference.py gguf %t.llama f16
// RUN: %python %test_lib/llama_reference.py gguf %t.llama q8_0
// RUN: %python %test_lib/llama_reference.py forward %t.llama --parameters model-f32.gguf | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/llama_reference.py generate %t.llama 16 2 --parameters model-f32.gguf | FileCheck %s --check-prefix=GEN2
// RUN: %python %test_lib/llama_reference.py forward %t.llama --parameters model-f16.gguf --weight-type f16 | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/llama_reference.py forward %t.llama --model q8.mlir --parameters model-q8_0.gguf --weight-type q8_0 | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/llama_reference.py generate %t.llama 16 1 --model q8.mlir --parameters model-f32.gguf --weight-type q8_0 | FileCheck %s --check-prefix=GEN1
// FORWARD-COUNT-3: PASS @forward
// FORWARD-NOT: FAIL
// GEN2: PASS @generate batch 2, 16 steps: PyTorch's greedy tokens
// GEN1: PASS @generate batch 1, 16 steps: PyTorch's greedy tokens

// Qwen2 (q/k/v biases, rows in Hugging Face's order) from a BF16 file into
// a bf16 module, tied LM head.
// RUN: rm -rf %t.qwen2 && %python %test_lib/llama_reference.py setup %t.qwen2 --model-type qwen2 --tie
// RUN: transformer-translate --import-hf-config %t.qwen2/config.json --weight-type=bf16 -o %t.qwen2/bf16.mlir
// RUN: %python %test_lib/llama_reference.py gguf %t.qwen2 bf16
// RUN: %python %test_lib/llama_reference.py forward %t.qwen2 --model bf16.mlir --parameters model-bf16.gguf --weight-type bf16 | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/llama_reference.py generate %t.qwen2 16 1 --model bf16.mlir --parameters model-bf16.gguf --weight-type bf16 | FileCheck %s --check-prefix=GEN1

// Mistral, which llama.cpp converts as architecture `llama`: MHA (kv heads =
// heads) and a sliding window shorter than the longest prompt.
// RUN: rm -rf %t.mistral && %python %test_lib/llama_reference.py setup %t.mistral --model-type mistral --kv-heads 4 --sliding-window 8
// RUN: transformer-translate --import-hf-config %t.mistral/config.json -o %t.mistral/model.mlir
// RUN: %python %test_lib/llama_reference.py gguf %t.mistral f32
// RUN: %python %test_lib/llama_reference.py forward %t.mistral --parameters model-f32.gguf | FileCheck %s --check-prefix=FORWARD4
// FORWARD4-COUNT-4: PASS @forward
// FORWARD4-NOT: FAIL

// The rope row order needs the head counts: absent, or not dividing the
// rows into heads of an even size, is an error naming the key.
// RUN: %python %test_lib/llama_reference.py gguf %t.llama f32 --omit-key llama.attention.head_count --omit-key llama.attention.head_count_kv
// RUN: %exit-status 1 transformer-run %t.llama/model.mlir -e forward --parameters=%t.llama/model-f32.gguf --input=1x1xi64=1 2>&1 | FileCheck %s --check-prefix=NOHEADS
// NOHEADS: Error: parameter 'model.layers.0.self_attn.q_proj.weight': GGUF tensor 'blk.0.attn_q.weight' holds its rows in llama.cpp's rope order, which needs the integer key 'llama.attention.head_count' in '{{.*}}model-f32.gguf' (argument {{[0-9]+}} of @forward, bound transposed)
// RUN: %python %test_lib/llama_reference.py gguf %t.llama f32 --set-key llama.attention.head_count_kv=3
// RUN: %exit-status 1 transformer-run %t.llama/model.mlir -e forward --parameters=%t.llama/model-f32.gguf --input=1x1xi64=1 2>&1 | FileCheck %s --check-prefix=ODDHEADS
// ODDHEADS: Error: parameter 'model.layers.0.self_attn.k_proj.weight': GGUF tensor 'blk.0.attn_k.weight' holds its rows in llama.cpp's rope order, which does not divide into 3 heads of an even number of rows (llama.attention.head_count_kv) in '{{.*}}model-f32.gguf' (argument {{[0-9]+}} of @forward, bound transposed)
