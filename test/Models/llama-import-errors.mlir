// Llama-family configs the importer cannot serve: one `Error:` line naming
// the key, exit status 1, and no output file. Values that only look
// unusual (a legacy rope_scaling "type", "sliding_window": null, unknown
// keys) import.
// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "rope_scaling": {"type": "linear", "factor": 2.0}, "some_new_key": [1, 2]}' > %t.ok.json
// RUN: transformer-translate --import-hf-config %t.ok.json -o %t.ok.mlir
// RUN: echo '{"model_type": "mistral", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "sliding_window": null, "rope_scaling": null}' > %t.null.json
// RUN: transformer-translate --import-hf-config %t.null.json -o %t.null.mlir

// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16}' > %t.json
// RUN: rm -f %t.out && %exit-status 1 transformer-translate --import-hf-config %t.json -o %t.out 2>&1 | FileCheck %s --check-prefix=MISSING --match-full-lines
// RUN: not test -e %t.out
// MISSING: Error: {{.*}}.json: config key 'hidden_size': missing

// RUN: echo '{"model_type": "qwen2", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "hidden_act": "gelu"}' > %t.json
// RUN: rm -f %t.out && %exit-status 1 transformer-translate --import-hf-config %t.json -o %t.out 2>&1 | FileCheck %s --check-prefix=ACT --match-full-lines
// RUN: not test -e %t.out
// ACT: Error: {{.*}}.json: config key 'hidden_act': unsupported activation 'gelu' (supported: "silu")

// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 3, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=KV --match-full-lines
// KV: Error: {{.*}}.json: config key 'num_key_value_heads': 3 does not divide num_attention_heads (4)

// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "rope_scaling": {"rope_type": "yarn", "factor": 4.0}}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=YARN --match-full-lines
// YARN: Error: {{.*}}.json: config key 'rope_scaling': unsupported rope type 'yarn' (supported: null, "default", "linear", "llama3")

// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=LLAMA3 --match-full-lines
// LLAMA3: Error: {{.*}}.json: config key 'rope_scaling': missing 'low_freq_factor' (llama3 scaling needs it)

// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "rope_scaling": {"rope_type": "linear"}}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=FACTOR --match-full-lines
// FACTOR: Error: {{.*}}.json: config key 'rope_scaling': missing 'factor' (linear scaling needs it)

// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "rope_scaling": {"factor": 2.0}}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=NOROPETYPE --match-full-lines
// NOROPETYPE: Error: {{.*}}.json: config key 'rope_scaling': missing 'rope_type'

// RUN: echo '{"model_type": "qwen2", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "use_sliding_window": true}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=QWENWINDOW --match-full-lines
// QWENWINDOW: Error: {{.*}}.json: config key 'use_sliding_window': true is not supported (Qwen2's per-layer windows)

// RUN: echo '{"model_type": "mistral", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "sliding_window": 0}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=WINDOW --match-full-lines
// WINDOW: Error: {{.*}}.json: config key 'sliding_window': must be a positive integer

// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "head_dim": 15, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=HEADDIM --match-full-lines
// HEADDIM: Error: {{.*}}.json: config key 'head_dim': 15 is odd (rotary embeddings rotate pairs)

// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 5, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=HIDDEN --match-full-lines
// HIDDEN: Error: {{.*}}.json: config key 'hidden_size': 64 is not a multiple of num_attention_heads (5) and head_dim is not given

// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "rms_norm_eps": -1}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=EPS --match-full-lines
// EPS: Error: {{.*}}.json: config key 'rms_norm_eps': must be a positive number

// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "tie_word_embeddings": "yes"}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=TIE --match-full-lines
// TIE: Error: {{.*}}.json: config key 'tie_word_embeddings': must be true or false

// Sizes beyond any model (which would exhaust memory or overflow), an
// epsilon outside f32's range, a rope base that makes infinite frequencies.
// RUN: echo '{"model_type": "llama", "num_hidden_layers": 100000000, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=LAYERS --match-full-lines
// LAYERS: Error: {{.*}}.json: config key 'num_hidden_layers': 100000000 is too large (at most 1024)
// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4611686018427387904, "head_dim": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=HEADS --match-full-lines
// HEADS: Error: {{.*}}.json: config key 'num_attention_heads': 4611686018427387904 is too large (at most 16777216)
// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "head_dim": 1000000000000, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=HUGEHEAD --match-full-lines
// HUGEHEAD: Error: {{.*}}.json: config key 'head_dim': 1000000000000 is too large (at most 16777216)
// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "rms_norm_eps": 1e39}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=EPSF32 --match-full-lines
// EPSF32: Error: {{.*}}.json: config key 'rms_norm_eps': must be a positive number within f32's range
// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "rope_theta": 1e-300}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=THETA --match-full-lines
// THETA: Error: {{.*}}.json: config key 'rope_theta': gives inverse frequencies outside f32's range
// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "rope_scaling": {"rope_type": "linear", "factor": 1e-40}}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json 2>&1 | FileCheck %s --check-prefix=TINYFACTOR --match-full-lines
// TINYFACTOR: Error: {{.*}}.json: config key 'rope_scaling': gives inverse frequencies outside f32's range

// Block-quantized weights: intermediate_size 96 is three blocks, 80 is not.
// RUN: transformer-translate --import-hf-config %t.ok.json --weight-type=q8_0 -o %t.q8.mlir
// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 80, "vocab_size": 10, "max_position_embeddings": 16}' > %t.json
// RUN: %exit-status 1 transformer-translate --import-hf-config %t.json --weight-type=q4_0 2>&1 | FileCheck %s --check-prefix=QUANT --match-full-lines
// QUANT: Error: {{.*}}.json: --weight-type=q4_0: weight 'model.layers.0.mlp.down_proj.weight' has rows of intermediate_size = 80, not a multiple of the block size 32

// RUN: %exit-status 1 transformer-translate --import-hf-config %t.ok.json --max-seq=17 2>&1 | FileCheck %s --check-prefix=MAXSEQ --match-full-lines
// MAXSEQ: Error: {{.*}}.json: --max-seq=17 is outside [1, max_position_embeddings = 16]
