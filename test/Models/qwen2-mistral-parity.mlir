// REQUIRES: torch, transformer-run
// The sanitizer build skips these long runs: the JIT-compiled code is not
// instrumented, and the importer and binding paths they take run under
// ASan in llama-import*.mlir and the GPT-2 parity tests.
// UNSUPPORTED: asan
// Qwen2 and Mistral models with random weights written by the test in
// Hugging Face's safetensors layout, imported from their config.json and run
// against the PyTorch reference of test/lib/llama_reference.py.

// Qwen2: q/k/v biases (and none on o_proj), a tied LM head, grouped-query
// attention, linear rope scaling, weights stored as f16 in the file, and a
// sliding_window of 8 that use_sliding_window false leaves unused (the
// reference checks a prompt of 13).
// RUN: rm -rf %t.qwen2 && %python %test_lib/llama_reference.py setup %t.qwen2 --model-type qwen2 --tie --rope-scaling linear --dtype f16 --sliding-window 8
// RUN: transformer-translate --import-hf-config %t.qwen2/config.json -o %t.qwen2/model.mlir
// RUN: %python %test_lib/llama_reference.py forward %t.qwen2 | FileCheck %s --check-prefix=FORWARD-WINDOW
// RUN: %python %test_lib/llama_reference.py generate %t.qwen2 24 2 | FileCheck %s --check-prefix=GEN2
// FORWARD-WINDOW-COUNT-4: PASS @forward
// FORWARD-WINDOW-NOT: FAIL
// GEN2: PASS @generate batch 2, 24 steps: PyTorch's greedy tokens

// Mistral with a sliding window of 8 positions: prompts and generations
// longer than the window, and decode steps past it.
// RUN: rm -rf %t.mistral && %python %test_lib/llama_reference.py setup %t.mistral --model-type mistral --sliding-window 8
// RUN: transformer-translate --import-hf-config %t.mistral/config.json -o %t.mistral/model.mlir
// RUN: %python %test_lib/llama_reference.py forward %t.mistral | FileCheck %s --check-prefix=FORWARD-WINDOW
// RUN: %python %test_lib/llama_reference.py generate %t.mistral 24 2 | FileCheck %s --check-prefix=GEN2
// RUN: %python %test_lib/llama_reference.py decode %t.mistral 6 | FileCheck %s --check-prefix=DECODE
// DECODE-COUNT-7: PASS
// DECODE-NOT: FAIL
