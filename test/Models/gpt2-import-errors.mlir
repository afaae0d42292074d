// A config the GPT-2 importer cannot serve: one `Error:` line naming the
// key, exit status 1, and no output file.
// RUN: echo '{"model_type": "gpt2", "n_layer": 2, "n_head": 4, "n_embd": 64, "vocab_size": 10, "n_positions": 8}' > %t.ok.json
// RUN: transformer-translate --import-hf-config %t.ok.json -o %t.ok.mlir
// RUN: echo '{"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "vocab_size": 10, "n_positions": 8}' > %t.json
// RUN: rm -f %t.out && %exit-status 1 transformer-translate --import-hf-config %t.json -o %t.out 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not test -e %t.out
// MISSING: Error: {{.*}}.json: config key 'n_head': missing
// An unknown --weight-type; block-quantized weights whose rows are not
// whole blocks of 32 (bf16 is fine with any width).
// RUN: rm -f %t.out && %exit-status 1 transformer-translate --import-hf-config %t.ok.json --weight-type=int3 -o %t.out 2>&1 | FileCheck %s --check-prefix=WTYPE
// RUN: not test -e %t.out
// WTYPE: Error: --weight-type=int3: unknown weight type (expected f32, bf16, f16, q8_0 or q4_0)
// RUN: echo '{"model_type": "gpt2", "n_layer": 2, "n_head": 4, "n_embd": 72, "vocab_size": 10, "n_positions": 8}' > %t.odd.json
// RUN: rm -f %t.out && %exit-status 1 transformer-translate --import-hf-config %t.odd.json --weight-type=q4_0 -o %t.out 2>&1 | FileCheck %s --check-prefix=QUANT
// RUN: not test -e %t.out
// QUANT: Error: {{.*}}.json: --weight-type=q4_0: weight 'wte.weight' has rows of n_embd = 72, not a multiple of the block size 32
// RUN: echo '{"model_type": "gpt2", "n_layer": 2, "n_head": 4, "n_embd": 64, "n_inner": 200, "vocab_size": 10, "n_positions": 8}' > %t.inner.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.inner.json --weight-type=q8_0 2>&1 | FileCheck %s --check-prefix=INNER
// INNER: Error: {{.*}}.json: --weight-type=q8_0: weight 'h.0.mlp.c_proj.weight' has rows of n_inner = 200, not a multiple of the block size 32
// RUN: transformer-translate --import-hf-config %t.odd.json --weight-type=bf16 -o %t.bf16.mlir
// RUN: echo '{"model_type": "bert", "n_layer": 2}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: Error: {{.*}}.json: config key 'model_type': unsupported model type 'bert' (supported: "gpt2", "llama", "qwen2", "mistral")
// RUN: echo '{"n_layer": 2}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=NOTYPE
// NOTYPE: Error: {{.*}}.json: config key 'model_type': missing
// RUN: echo '{"model_type": "gpt2", "n_layer": 2, "n_head": 5, "n_embd": 64, "vocab_size": 10, "n_positions": 8}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=HEADS
// HEADS: Error: {{.*}}.json: config key 'n_embd': n_embd (64) is not a multiple of n_head (5)
// RUN: echo '{"model_type": "gpt2", "n_layer": -2, "n_head": 4, "n_embd": 64, "vocab_size": 10, "n_positions": 8}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: Error: {{.*}}.json: config key 'n_layer': must be a positive integer
// RUN: echo '{"model_type": "gpt2", "n_layer": 2, "n_head": 4, "n_embd": 64, "vocab_size": 10, "n_positions": 8, "activation_function": "relu"}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=ACT
// ACT: Error: {{.*}}.json: config key 'activation_function': unsupported value (supported: "gelu_new", "gelu_pytorch_tanh", "gelu")
// RUN: echo '{"model_type": "gpt2", "n_layer": 2, "n_head": 4, "n_embd": 64, "vocab_size": 10, "n_positions": 8, "layer_norm_epsilon": "x"}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=EPS
// EPS: Error: {{.*}}.json: config key 'layer_norm_epsilon': must be a positive number
// RUN: echo '{"model_type": "gpt2", "n_layer": 2, "n_head": 4, "n_embd": 64, "vocab_size": 10, "n_positions": 8, "scale_attn_by_inverse_layer_idx": true}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=VARIANT
// VARIANT: Error: {{.*}}.json: config key 'scale_attn_by_inverse_layer_idx': true is not supported
// RUN: echo '{"model_type": "gpt2", "n_layer": 2' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=JSON
// JSON: Error: {{.*}}.json: not valid JSON: {{.*}}
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.ok.json --max-seq=9 2>&1 | FileCheck %s --check-prefix=MAXSEQ
// MAXSEQ: Error: {{.*}}.json: --max-seq=9 is outside [1, n_positions = 8]
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.nonexistent.json 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: {{.*}}nonexistent.json{{.*}}

// An epsilon outside f32's range; more layers than any model has.
// RUN: echo '{"model_type": "gpt2", "n_layer": 2, "n_head": 4, "n_embd": 64, "vocab_size": 10, "n_positions": 8, "layer_norm_epsilon": 1e39}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=EPSF32 --match-full-lines
// EPSF32: Error: {{.*}}.json: config key 'layer_norm_epsilon': must be a positive number within f32's range
// RUN: echo '{"model_type": "gpt2", "n_layer": 5000, "n_head": 4, "n_embd": 64, "vocab_size": 10, "n_positions": 8}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=NLAYER --match-full-lines
// NLAYER: Error: {{.*}}.json: config key 'n_layer': 5000 is too large (at most 1024)
