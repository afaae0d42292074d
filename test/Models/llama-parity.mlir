// REQUIRES: torch, transformer-run
// The sanitizer build skips these long runs: the JIT-compiled code is not
// instrumented, and the importer and binding paths they take run under
// ASan in llama-import*.mlir and the GPT-2 parity tests.
// UNSUPPORTED: asan
// Llama models with random weights written by the test in Hugging Face's
// safetensors layout, imported from their config.json and run against the
// PyTorch reference of test/lib/llama_reference.py (LlamaForCausalLM's math
// written out): @forward logits at 1e-4, @generate's greedy tokens, and
// @prefill/@decode against @forward on the prefix.

// Grouped-query attention (4 query heads, 2 key/value heads), an untied LM
// head, no rope scaling.
// RUN: rm -rf %t.gqa && %python %test_lib/llama_reference.py setup %t.gqa
// RUN: transformer-translate --import-hf-config %t.gqa/config.json -o %t.gqa/model.mlir
// RUN: %python %test_lib/llama_reference.py forward %t.gqa | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/llama_reference.py generate %t.gqa 24 2 | FileCheck %s --check-prefix=GEN2
// RUN: %python %test_lib/llama_reference.py decode %t.gqa 3 | FileCheck %s --check-prefix=DECODE
// RUN: %python %test_lib/llama_reference.py selftest %t.gqa | FileCheck %s --check-prefix=SELF
// SELF: PASS selftest (a) GQA
// SELF-NOT: FAIL
// FORWARD-COUNT-3: PASS @forward
// FORWARD-NOT: FAIL
// GEN2: PASS @generate batch 2, 24 steps: PyTorch's greedy tokens
// DECODE-COUNT-4: PASS
// DECODE-NOT: FAIL

// Multi-query attention (one key/value head), Llama 3's rope scaling, a
// head_dim (32) other than hidden / heads (16), biases on the attention and
// the MLP, a tied LM head, weights stored as bf16 in the file.
// RUN: rm -rf %t.mqa && %python %test_lib/llama_reference.py setup %t.mqa --kv-heads 1 --head-dim 32 --rope-scaling llama3 --attention-bias --mlp-bias --tie --dtype bf16
// RUN: transformer-translate --import-hf-config %t.mqa/config.json -o %t.mqa/model.mlir
// RUN: %python %test_lib/llama_reference.py forward %t.mqa | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/llama_reference.py generate %t.mqa 16 1 | FileCheck %s --check-prefix=GEN1
// GEN1: PASS @generate batch 1, 16 steps: PyTorch's greedy tokens

// Multi-head attention (kv heads = heads) with linear rope scaling given
// under the legacy "type" key.
// RUN: rm -rf %t.mha && %python %test_lib/llama_reference.py setup %t.mha --kv-heads 4 --rope-scaling linear-legacy
// RUN: transformer-translate --import-hf-config %t.mha/config.json -o %t.mha/model.mlir
// RUN: %python %test_lib/llama_reference.py forward %t.mha | FileCheck %s --check-prefix=FORWARD

// Q8_0 weights (quantized at binding from the f32 file): the reference
// runs on the same quantized-then-dequantized weights.
// RUN: transformer-translate --import-hf-config %t.gqa/config.json --weight-type=q8_0 -o %t.gqa/model-q8_0.mlir
// RUN: %python %test_lib/llama_reference.py forward %t.gqa --weight-type q8_0 --model model-q8_0.mlir | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/llama_reference.py generate %t.gqa 16 1 --weight-type q8_0 --model model-q8_0.mlir | FileCheck %s --check-prefix=GEN1
