// The model configs under examples/ import and verify: the walk-throughs of
// examples/gpt2 and examples/llama start from them.
// RUN: transformer-translate --import-hf-config %src_root/examples/gpt2/gpt2-small.json | FileCheck %s --check-prefix=GPT2
// RUN: transformer-translate --import-hf-config %src_root/examples/llama/tiny-llama.json | FileCheck %s --check-prefix=TINY
// RUN: transformer-translate --import-hf-config %src_root/examples/llama/qwen2.5-0.5b.json --max-seq=1024 | FileCheck %s --check-prefix=QWEN

// GPT2: func.func @generate(%{{.*}}: tensor<?x?xi64>, %{{.*}}: i64, %{{.*}}: tensor<50257x768xf32> {transformer.parameter = "wte.weight"}

// Llama 3 shape: 8 query heads over 2 key/value heads, tied head.
// TINY: func.func @decode(%{{.*}}: tensor<?x1xi64>, %{{.*}}: i64, %{{.*}}: tensor<4x2x?x2x1024x32xf32> {transformer.in_place}, %{{.*}}: tensor<8000x256xf32> {transformer.parameter = "model.embed_tokens.weight"}
// TINY-NOT: lm_head.weight
// TINY: transformer.attention {{.*}} : tensor<?x8x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32> -> tensor<?x8x?x32xf32>

// Qwen2.5-0.5B: 14 query heads over 2, q/k/v biases, the cache sized by
// --max-seq.
// QWEN: func.func @prefill(%{{.*}}: tensor<?x?xi64>, %{{.*}}: tensor<151936x896xf32> {transformer.parameter = "model.embed_tokens.weight"}
// QWEN-SAME: tensor<128xf32> {transformer.parameter = "model.layers.0.self_attn.k_proj.bias"}
// QWEN-SAME: -> (tensor<?x151936xf32>, tensor<24x2x?x2x1024x64xf32>)
