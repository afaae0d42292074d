// The GPT-2 importer: four functions whose weights are arguments bound by
// their published names (Conv1D layout [in, out], LM head tied to wte),
// laid out layer after layer, each op located at its module path.
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
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<?x?x64xf32> into tensor<?x64xf32>
// CHECK: transformer.layer_norm %{{.*}}, %arg3, %arg4
// Rows [B*S, D]: every projection is one 2-D contraction.
// CHECK: transformer.matmul %{{.*}}, %arg5 : tensor<?x64xf32>, tensor<64x192xf32> -> tensor<?x192xf32>
// CHECK: tensor.reshape %{{.*}}(%{{.*}}) : (tensor<?x192xf32>, tensor<5xindex>) -> tensor<?x?x3x4x16xf32>
// CHECK: transformer.attention {{.*}} {causal} : tensor<?x4x?x16xf32>
// CHECK: transformer.gelu %{{.*}} : tensor<?x256xf32>
// Layer 1 follows layer 0.
// CHECK: transformer.layer_norm %{{.*}}, %arg15, %arg16
// CHECK: transformer.layer_norm %{{.*}}, %[[LNF_W]], %[[LNF_B]]
// CHECK: transformer.matmul %{{.*}}, %arg1 {transpose_b} : tensor<?x64xf32>, tensor<1000x64xf32> -> tensor<?x1000xf32>
// CHECK: tensor.reshape %{{.*}}(%{{.*}}) : (tensor<?x1000xf32>, tensor<3xindex>) -> tensor<?x?x1000xf32>

// CHECK-LABEL: func.func @prefill(
// CHECK-SAME: -> (tensor<?x1000xf32>, tensor<2x2x?x4x128x16xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0, 0, 0] [1, 1, %{{.*}}, 4, %{{.*}}, 16] [1, 1, 1, 1, 1, 1] : tensor<?x4x?x16xf32> into tensor<2x2x?x4x128x16xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 0, 0, 0, 0]

// CHECK-LABEL: func.func @decode(
// CHECK-SAME: %arg0: tensor<?x1xi64>, %arg1: i64, %arg2: tensor<2x2x?x4x128x16xf32>
// CHECK-SAME: -> (tensor<?x1000xf32>, tensor<2x2x?x4x128x16xf32>)
// The new keys and values go to position %pos; attention reads 0..pos.
// CHECK: %[[POS:.*]] = arith.index_cast %arg1 : i64 to index
// CHECK: %[[K:.*]] = tensor.insert_slice %{{.*}} into %arg2[0, 0, 0, 0, %[[POS]], 0] [1, 1, %{{.*}}, 4, %{{.*}}, 16]
// CHECK: %[[KV:.*]] = tensor.insert_slice %{{.*}} into %[[K]][0, 1, 0, 0, %[[POS]], 0]
// CHECK: %[[LEN:.*]] = arith.addi %[[POS]], %{{.*}} : index
// CHECK: tensor.extract_slice %[[KV]][0, 0, 0, 0, 0, 0] [1, 1, %{{.*}}, 4, %[[LEN]], 16]
// CHECK: transformer.attention
// CHECK-NOT: causal
// CHECK-SAME: -> tensor<?x4x?x16xf32>

// CHECK-LABEL: func.func @generate(
// CHECK-SAME: %arg0: tensor<?x?xi64>, %arg1: i64
// CHECK-SAME: -> tensor<?x?xi64>
// CHECK: scf.for {{.*}} -> (tensor<?x?xi64>, tensor<2x2x?x4x128x16xf32>, tensor<?x1xi64>)
// CHECK: scf.if
// CHECK: linalg.generic
// CHECK: arith.cmpf ogt

// LOC: func.func @forward(%arg0: tensor<?x?xi64> loc("tokens"), %arg1: tensor<1000x64xf32> {transformer.parameter = "wte.weight"} loc("wte.weight")
// LOC: transformer.attention {{.*}} loc([[ATTN0:#loc[0-9]+]])
// LOC: transformer.attention {{.*}} loc([[ATTN1:#loc[0-9]+]])
// LOC-DAG: [[ATTN0]] = loc("h.0.attn")
// LOC-DAG: [[ATTN1]] = loc("h.1.attn")

// MAXSEQ: func.func @decode(%arg0: tensor<?x1xi64>, %arg1: i64, %arg2: tensor<2x2x?x4x32x16xf32>
