// REQUIRES: torch, transformer-run
// A tiny GPT-2 (2 layers, 4 heads, n_embd 64, vocab 1000, 128 positions)
// with random weights written by the test in the published safetensors
// layout (with the h.N.attn.bias buffers, which are ignored), imported from
// its config.json and run against a PyTorch GPT-2 (test/lib/gpt2_reference.py).
// RUN: rm -rf %t && %python %test_lib/gpt2_reference.py setup %t
// RUN: transformer-translate --import-hf-config %t/config.json -o %t/model.mlir
// RUN: %python %test_lib/gpt2_reference.py forward %t | FileCheck %s --check-prefix=FORWARD
// FORWARD-COUNT-3: PASS @forward
// FORWARD-NOT: FAIL
// RUN: %python %test_lib/gpt2_reference.py generate %t 32 1 | FileCheck %s --check-prefix=GEN1
// GEN1: PASS @generate batch 1, 32 steps: PyTorch's greedy tokens
// RUN: %python %test_lib/gpt2_reference.py generate %t 32 2 | FileCheck %s --check-prefix=GEN2
// GEN2: PASS @generate batch 2, 32 steps: PyTorch's greedy tokens

// A checkpoint saved with the `transformer.` prefix binds the same way.
// RUN: rm -rf %t.prefix && %python %test_lib/gpt2_reference.py setup %t.prefix --prefix
// RUN: cp %t/model.mlir %t.prefix/model.mlir
// RUN: %python %test_lib/gpt2_reference.py generate %t.prefix 8 2 | FileCheck %s --check-prefix=PREFIX
// PREFIX: PASS @generate batch 2, 8 steps
