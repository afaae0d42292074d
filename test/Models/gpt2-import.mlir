// The GPT-2 importer: four functions whose weights are arguments bound by
// their published names (Conv1D layout [in, out], LM head tied to wte),
// each layer a call of one private layer function per cache mode (@layer,
// @layer_prefill, @layer_decode) with that layer's weights, each op located
// at its module path.
// RUN: transformer-translate --import-hf-config %S/Inputs/gpt2-tiny.json | FileCheck %s
// RUN: transformer-translate --import-hf-config %S/Inputs/gpt2-tiny.json --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: transformer-translate --import-hf-config %S/Inputs/gpt2-tiny.json --max-seq=32 | FileCheck %s --check-prefix=MAXSEQ
// The output parses and verifies with transformer-opt.
// RUN: transformer-translate --import-hf-config %S/Inputs/gpt2-tiny.json | transformer-opt --transformer-shape-inference > /dev/null

// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %arg0: tensor<?x?xi64>
// CHECK-SAME: tensor<1000x64xf32> {transformer.parameter = "wte.weight"}
// CHECK-SAME: tensor<128x64xf32> {transformer.parameter = "wpe.weight"}
// CHECK-SAME: tensor<64xf32> {transformer.parameter = "h.0.ln_1.weight"}
// CHECK-SAME: tensor<64x192xf32> {transformer.parameter = "h.0.attn.c_attn.weight"}
// CHECK-SAME: tensor<192xf32> {transformer.parameter = "h.0.attn.c_attn.bias"}
// CHECK-SAME: tensor<64x64xf32> {transformer.parameter = "h.0.attn.c_proj.weight"}
// CHECK-SAME: tensor<64x256xf32> {transformer.parameter = "h.0.mlp.c_fc.weight"}
// CHECK-SAME: tensor<256x64xf32> {transformer.parameter = "h.0.mlp.c_proj.weight"}
// CHECK-SAME: {transformer.parameter = "h.1.ln_1.weight"}
// CHECK-SAME: %[[LNF_W:arg[0-9]+]]: tensor<64xf32> {transformer.parameter = "ln_f.weight"}, %[[LNF_B:arg[0-9]+]]: tensor<64xf32> {transformer.parameter = "ln_f.bias"})
// CHECK-SAME: -> tensor<?x?x1000xf32>
// CHECK: transformer.embedding %arg0, %arg1 : tensor<?x?xi64>, tensor<1000x64xf32> -> tensor<?x?x64xf32>
// CHECK: cf.assert %{{.*}}, "gpt2: positions past n_positions (128)"
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<?x?x64xf32> into tensor<?x64xf32>
// Each layer is a call of the layer function with the layer's weights.
// CHECK: %[[L0:.*]] = call @layer(%[[ROWS]], %{{.*}}, %{{.*}}, %c0{{.*}}, %arg3, %arg4, %arg5, {{.*}}, %arg14) : (tensor<?x64xf32>, index, index, index, tensor<64xf32>,
// CHECK: %[[L1:.*]] = call @layer(%[[L0]], %{{.*}}, %{{.*}}, %c1{{.*}}, %arg15, %arg16, {{.*}}, %arg26) :
// CHECK: transformer.layer_norm %[[L1]], %[[LNF_W]], %[[LNF_B]]
// CHECK: transformer.matmul %{{.*}}, %arg1 {transpose_b} : tensor<?x64xf32>, tensor<1000x64xf32> -> tensor<?x1000xf32>
// CHECK: tensor.reshape %{{.*}}(%{{.*}}) : (tensor<?x1000xf32>, tensor<3xindex>) -> tensor<?x?x1000xf32>

// CHECK-LABEL: func.func @prefill(
// CHECK-SAME: -> (tensor<?x1000xf32>, tensor<2x2x?x4x128x16xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty(%{{.*}}) : tensor<2x2x?x4x128x16xf32>
// CHECK: %[[P0:.*]]:2 = call @layer_prefill(%{{.*}}, %{{.*}}, %{{.*}}, %c0{{.*}}, %[[EMPTY]], %arg3,
// CHECK: %[[P1:.*]]:2 = call @layer_prefill(%[[P0]]#0, %{{.*}}, %{{.*}}, %c1{{.*}}, %[[P0]]#1, %arg15,
// CHECK: return %{{.*}}, %[[P1]]#1

// CHECK-LABEL: func.func @decode(
// CHECK-SAME: %arg0: tensor<?x1xi64>, %arg1: i64, %arg2: tensor<2x2x?x4x128x16xf32>
// CHECK-SAME: -> (tensor<?x1000xf32>, tensor<2x2x?x4x128x16xf32>)
// CHECK: %[[POS:.*]] = arith.index_cast %arg1 : i64 to index
// CHECK: %[[D0:.*]]:2 = call @layer_decode(%{{.*}}, %{{.*}}, %[[POS]], %c0{{.*}}, %arg2, %arg5,
// CHECK: %[[D1:.*]]:2 = call @layer_decode(%[[D0]]#0, %{{.*}}, %[[POS]], %c1{{.*}}, %[[D0]]#1, %arg17,
// CHECK: return %{{.*}}, %[[D1]]#1

// CHECK-LABEL: func.func @generate(
// CHECK-SAME: %arg0: tensor<?x?xi64>, %arg1: i64
// CHECK-SAME: -> tensor<?x?xi64>
// CHECK: call @layer_prefill(
// CHECK: scf.for {{.*}} -> (tensor<?x?xi64>, tensor<2x2x?x4x128x16xf32>, tensor<?x1xi64>)
// CHECK: scf.if
// CHECK: call @layer_decode(
// CHECK: linalg.generic
// CHECK: arith.cmpf ogt

// One pre-LN block on rows [B*S, D]: (rows, batch, seq, layer, the layer's
// weights) -> rows.
// CHECK-LABEL: func.func private @layer(
// CHECK-SAME: %[[X:arg0]]: tensor<?x64xf32>, %[[B:arg1]]: index, %[[S:arg2]]: index, %arg3: index, %[[LN1W:arg4]]: tensor<64xf32>, %[[LN1B:arg5]]: tensor<64xf32>, %[[ATTNW:arg6]]: tensor<64x192xf32>,
// CHECK-SAME: -> tensor<?x64xf32>
// CHECK: transformer.layer_norm %[[X]], %[[LN1W]], %[[LN1B]]
// Conv1D weights [in, out]: a plain matmul.
// CHECK: transformer.matmul %{{.*}}, %[[ATTNW]] : tensor<?x64xf32>, tensor<64x192xf32> -> tensor<?x192xf32>
// CHECK: tensor.from_elements %[[B]], %[[S]], %{{.*}} : tensor<5xindex>
// CHECK: tensor.reshape %{{.*}}(%{{.*}}) : (tensor<?x192xf32>, tensor<5xindex>) -> tensor<?x?x3x4x16xf32>
// CHECK: transformer.attention {{.*}} {causal} : tensor<?x4x?x16xf32>
// CHECK: transformer.gelu %{{.*}} : tensor<?x256xf32>
// CHECK: return %{{.*}} : tensor<?x64xf32>

// Prefill writes keys and values at positions 0 .. S-1 of its layer.
// CHECK-LABEL: func.func private @layer_prefill(
// CHECK-SAME: %arg3: index, %arg4: tensor<2x2x?x4x128x16xf32>
// CHECK-SAME: -> (tensor<?x64xf32>, tensor<2x2x?x4x128x16xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %arg4[%arg3, 0, 0, 0, 0, 0] [1, 1, %arg1, 4, %arg2, 16] [1, 1, 1, 1, 1, 1] : tensor<?x4x?x16xf32> into tensor<2x2x?x4x128x16xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%arg3, 1, 0, 0, 0, 0]
// CHECK: transformer.attention {{.*}} {causal}

// Decode writes one position and attends over 0 .. pos.
// CHECK-LABEL: func.func private @layer_decode(
// CHECK-SAME: %[[DPOS:arg2]]: index, %[[DL:arg3]]: index, %arg4: tensor<2x2x?x4x128x16xf32>
// CHECK: %[[K:.*]] = tensor.insert_slice %{{.*}} into %arg4[%[[DL]], 0, 0, 0, %[[DPOS]], 0] [1, 1, %arg1, 4, %{{.*}}, 16]
// CHECK: %[[KV:.*]] = tensor.insert_slice %{{.*}} into %[[K]][%[[DL]], 1, 0, 0, %[[DPOS]], 0]
// CHECK: %[[LEN:.*]] = arith.addi %[[DPOS]], %{{.*}} : index
// CHECK: tensor.extract_slice %[[KV]][%[[DL]], 0, 0, 0, 0, 0] [1, 1, %arg1, 4, %[[LEN]], 16]
// CHECK: transformer.attention
// CHECK-NOT: causal
// CHECK-SAME: -> tensor<?x4x?x16xf32>
// CHECK: return %{{.*}}, %[[KV]] : tensor<?x64xf32>, tensor<2x2x?x4x128x16xf32>

// LOC: func.func @forward(%arg0: tensor<?x?xi64> loc("tokens"), %arg1: tensor<1000x64xf32> {transformer.parameter = "wte.weight"} loc("wte.weight")
// LOC: call @layer({{.*}} loc([[H0:#loc[0-9]+]])
// LOC: call @layer({{.*}} loc([[H1:#loc[0-9]+]])
// The layer function names its weights and ops as any layer's: h.N.
// LOC: func.func private @layer(%arg0: tensor<?x64xf32> loc("rows"), %arg1: index loc("batch"), %arg2: index loc("seq"), %arg3: index loc("layer"), %arg4: tensor<64xf32> loc("h.N.ln_1.weight")
// LOC: transformer.attention {{.*}} loc([[ATTN:#loc[0-9]+]])
// LOC-DAG: [[H0]] = loc("h.0")
// LOC-DAG: [[H1]] = loc("h.1")
// LOC-DAG: [[ATTN]] = loc("h.N.attn")

// MAXSEQ: func.func @decode(%arg0: tensor<?x1xi64>, %arg1: i64, %arg2: tensor<2x2x?x4x32x16xf32>
