// The module the importer builds for a Llama-family config: weights bound
// by their Hugging Face names (the projections' nn.Linear weights declared
// [in, out], transposed when bound), each layer a call of the layer function of
// its cache mode, RMSNorm, rotate-half rope with the config's
// inverse frequencies as a table, grouped-query attention over a cache of
// the key/value heads only (updated in place), the SiLU-gated MLP, a tied
// LM head. The numbers are checked by llama-parity.mlir and
// qwen2-mistral-parity.mlir.
// RUN: echo '{"model_type": "qwen2", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "rope_theta": 1000000.0, "rms_norm_eps": 1e-5, "tie_word_embeddings": true}' > %t.json
// RUN: transformer-translate --import-hf-config %t.json | FileCheck %s
// RUN: transformer-translate --import-hf-config %t.json | transformer-opt --transformer-shape-inference --verify-diagnostics -o /dev/null
// The rope_scaling of Llama 3.1 gives a different table (the low
// frequencies divided by the factor), and Mistral's window reaches the
// attention of every function.
// RUN: echo '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 16, "rope_theta": 500000.0, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}' > %t.llama3.json
// RUN: transformer-translate --import-hf-config %t.llama3.json | FileCheck %s --check-prefix=LLAMA3
// RUN: echo '{"model_type": "mistral", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 1, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 64, "sliding_window": 8}' > %t.mistral.json
// RUN: transformer-translate --import-hf-config %t.mistral.json | FileCheck %s --check-prefix=MISTRAL
// Without the key, MistralConfig's default window of 4096 applies (it hides
// keys once the model has more positions than that).
// RUN: echo '{"model_type": "mistral", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 1, "intermediate_size": 96, "vocab_size": 10, "max_position_embeddings": 8192}' > %t.mistral-default.json
// RUN: transformer-translate --import-hf-config %t.mistral-default.json --max-seq=64 | FileCheck %s --check-prefix=MISTRAL-DEFAULT

// CHECK-LABEL: func.func @forward(%{{.*}}: tensor<?x?xi64>,
// CHECK-SAME: tensor<10x64xf32> {transformer.parameter = "model.embed_tokens.weight"}
// CHECK-SAME: {transformer.parameter = "model.layers.0.input_layernorm.weight"}
// CHECK-SAME: tensor<64x64xf32> {transformer.parameter = "model.layers.0.self_attn.q_proj.weight", transformer.transposed}
// CHECK-SAME: tensor<64xf32> {transformer.parameter = "model.layers.0.self_attn.q_proj.bias"}
// CHECK-SAME: tensor<64x32xf32> {transformer.parameter = "model.layers.0.self_attn.k_proj.weight", transformer.transposed}
// CHECK-SAME: tensor<32xf32> {transformer.parameter = "model.layers.0.self_attn.k_proj.bias"}
// CHECK-SAME: tensor<64x32xf32> {transformer.parameter = "model.layers.0.self_attn.v_proj.weight", transformer.transposed}
// CHECK-SAME: tensor<32xf32> {transformer.parameter = "model.layers.0.self_attn.v_proj.bias"}
// CHECK-SAME: tensor<64x64xf32> {transformer.parameter = "model.layers.0.self_attn.o_proj.weight", transformer.transposed}
// CHECK-NOT: o_proj.bias
// CHECK-SAME: {transformer.parameter = "model.layers.0.post_attention_layernorm.weight"}
// CHECK-SAME: tensor<64x96xf32> {transformer.parameter = "model.layers.0.mlp.gate_proj.weight", transformer.transposed}
// CHECK-SAME: tensor<64x96xf32> {transformer.parameter = "model.layers.0.mlp.up_proj.weight", transformer.transposed}
// CHECK-SAME: tensor<96x64xf32> {transformer.parameter = "model.layers.0.mlp.down_proj.weight", transformer.transposed}
// CHECK-SAME: tensor<64xf32> {transformer.parameter = "model.norm.weight"}) -> tensor<?x?x10xf32>
// CHECK-NOT: lm_head.weight

// CHECK-LABEL: func.func @prefill(
// CHECK-SAME: -> (tensor<?x10xf32>, tensor<1x2x?x2x16x16xf32>)
// CHECK: call @layer_prefill(

// CHECK-LABEL: func.func @decode(
// CHECK-SAME: %{{.*}}: tensor<?x1xi64>, %[[POS:[a-z0-9]+]]: i64, %[[CACHE:[a-z0-9]+]]: tensor<1x2x?x2x16x16xf32> {transformer.in_place},
// CHECK-SAME: %[[EMBED:[a-z0-9]+]]: tensor<10x64xf32> {transformer.parameter = "model.embed_tokens.weight"}
// CHECK-SAME: %[[NORM0:[a-z0-9]+]]: tensor<64xf32> {transformer.parameter = "model.layers.0.input_layernorm.weight"}
// CHECK: cf.assert %{{.*}}, "qwen2: negative decode position"
// CHECK: %[[P:.*]] = arith.index_cast %[[POS]] : i64 to index
// CHECK: transformer.embedding %{{.*}}, %[[EMBED]]
// CHECK: %[[L0:.*]]:2 = call @layer_decode(%{{.*}}, %{{.*}}, %[[P]], %{{.*}}, %[[CACHE]], %[[NORM0]],
// The tied head reads the embedding.
// CHECK: transformer.matmul %{{.*}}, %[[EMBED]] {transpose_b} : tensor<?x64xf32>, tensor<10x64xf32> -> tensor<?x10xf32>
// CHECK: return %{{.*}}, %[[L0]]#1

// CHECK-LABEL: func.func @generate(%{{.*}}: tensor<?x?xi64>, %{{.*}}: i64,
// CHECK: scf.for
// CHECK: call @layer_decode(

// CHECK-LABEL: func.func private @layer_prefill(
// CHECK: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} {causal} : tensor<?x4x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32> -> tensor<?x4x?x16xf32>

// One decode step of a layer: (rows, batch, pos, layer index, cache, the
// layer's weights).
// CHECK-LABEL: func.func private @layer_decode(
// CHECK-SAME: %{{.*}}: tensor<?x64xf32>, %{{.*}}: index, %[[P:arg2]]: index, %[[L:arg3]]: index, %[[CACHE:arg4]]: tensor<1x2x?x2x16x16xf32>, %[[NORM:arg5]]: tensor<64xf32>,
// CHECK: %[[X:.*]] = transformer.rms_norm %{{.*}}, %[[NORM]] {epsilon = 9.99999974E-6 : f32}
// The projections read their weights as [in, out].
// CHECK: %[[Q:.*]] = transformer.matmul %[[X]], %{{.*}} : tensor<?x64xf32>, tensor<64x64xf32> -> tensor<?x64xf32>
// CHECK: transformer.add %[[Q]], %{{.*}} : tensor<?x64xf32>, tensor<64xf32>
// The inverse frequencies of rope_theta 1e6, once per function, made
// where the first rope needs it.
// CHECK: %[[FREQS:.*]] = arith.constant dense<[1.000000e+00, 0.177827939, 0.0316227786, 0.00562341325, 1.000000e-03, 1.7782794E-4, 3.16227743E-5, 5.62341347E-6]> : tensor<8xf32>
// CHECK: transformer.rope %{{.*}} at %[[P]] freqs(%[[FREQS]] : tensor<8xf32>) {rotate_half} : tensor<?x4x?x16xf32>
// CHECK: transformer.rope %{{.*}} at %[[P]] freqs(%[[FREQS]] : tensor<8xf32>) {rotate_half} : tensor<?x2x?x16xf32>
// CHECK: %[[C1:.*]] = tensor.insert_slice %{{.*}} into %[[CACHE]][%[[L]], 0, 0, 0, %[[P]], 0]
// CHECK: %[[C2:.*]] = tensor.insert_slice %{{.*}} into %[[C1]][%[[L]], 1, 0, 0, %[[P]], 0]
// CHECK: %[[K:.*]] = tensor.extract_slice %[[C2]][%[[L]], 0, 0, 0, 0, 0]
// CHECK: %[[V:.*]] = tensor.extract_slice %[[C2]][%[[L]], 1, 0, 0, 0, 0]
// CHECK: transformer.attention %{{.*}}, %[[K]], %[[V]] : tensor<?x4x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32> -> tensor<?x4x?x16xf32>
// CHECK: %[[GATE:.*]] = transformer.matmul %{{.*}} : tensor<?x64xf32>, tensor<64x96xf32> -> tensor<?x96xf32>
// CHECK: %[[UP:.*]] = transformer.matmul %{{.*}} : tensor<?x64xf32>, tensor<64x96xf32> -> tensor<?x96xf32>
// CHECK: %[[ACT:.*]] = transformer.silu %[[GATE]]
// CHECK: transformer.mul %[[ACT]], %[[UP]]
// CHECK: return %{{.*}}, %[[C2]]

// LLAMA3-LABEL: func.func @forward(
// LLAMA3-SAME: {transformer.parameter = "lm_head.weight"}
// theta = 500000: 1, 0.194, 0.0376 and 0.00729 have wavelengths under
// 8192 / 4 and stay; 0.00141 (wavelength 4443) is interpolated (smooth
// 0.281: 5.25e-4); 2.74e-4, 5.32e-5 and 1.03e-5 are divided by 8. Every
// entry is the float32 that torch computes with Hugging Face's
// _compute_llama3_parameters.
// LLAMA3: arith.constant dense<[1.000000e+00, 0.193922758, 0.0376060307, 0.00729266508, 5.248460e-04, 3.42810235E-5, 6.64786967E-6, 1.28917316E-6]> : tensor<8xf32>

// MISTRAL: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, window = 8 : i64} : tensor<?x4x?x16xf32>, tensor<?x1x?x16xf32>, tensor<?x1x?x16xf32> -> tensor<?x4x?x16xf32>

// MISTRAL-DEFAULT: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, window = 4096 : i64}
