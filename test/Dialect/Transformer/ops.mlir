// RUN: transformer-opt %s | transformer-opt | FileCheck %s
// RUN: transformer-opt %s --mlir-print-op-generic | transformer-opt | FileCheck %s

// Round trip of every op, with every optional attribute and operand.

// CHECK-LABEL: func @matmul
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %w: tensor<4x5xf32>,
                  %bt: tensor<5x4xf32>, %d: tensor<?x?xf32>) {
  // CHECK: transformer.matmul %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  %0 = transformer.matmul %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  // CHECK: transformer.matmul %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<4x5xf32> -> tensor<2x3x5xf32>
  %1 = transformer.matmul %a, %w : tensor<2x3x4xf32>, tensor<4x5xf32> -> tensor<2x3x5xf32>
  // CHECK: transformer.matmul %{{.*}}, %{{.*}} {transpose_b} : tensor<2x3x4xf32>, tensor<5x4xf32> -> tensor<2x3x5xf32>
  %2 = transformer.matmul %a, %bt {transpose_b} : tensor<2x3x4xf32>, tensor<5x4xf32> -> tensor<2x3x5xf32>
  // CHECK: transformer.matmul %{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<*xf32>
  %3 = transformer.matmul %d, %d : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<*xf32>
  return
}

// CHECK-LABEL: func @transpose
func.func @transpose(%x: tensor<2x3x4xf32>) {
  // CHECK: transformer.transpose %{{.*}} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %0 = transformer.transpose %x : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  // CHECK: transformer.transpose %{{.*}} {permutation = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = transformer.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  return
}

// CHECK-LABEL: func @unary
func.func @unary(%x: tensor<?x8xf32>) {
  // CHECK: transformer.softmax %{{.*}} : tensor<?x8xf32> -> tensor<?x8xf32>
  %0 = transformer.softmax %x : tensor<?x8xf32> -> tensor<?x8xf32>
  // CHECK: transformer.scale %{{.*}} {factor = 1.250000e-01 : f32} : tensor<?x8xf32> -> tensor<?x8xf32>
  %1 = transformer.scale %x {factor = 0.125 : f32} : tensor<?x8xf32> -> tensor<?x8xf32>
  // CHECK: transformer.relu %{{.*}} : tensor<?x8xf32> -> tensor<?x8xf32>
  %2 = transformer.relu %x : tensor<?x8xf32> -> tensor<?x8xf32>
  // CHECK: transformer.gelu %{{.*}} : tensor<?x8xf32> -> tensor<?x8xf32>
  %3 = transformer.gelu %x : tensor<?x8xf32> -> tensor<?x8xf32>
  // The default value is elided when printing.
  // CHECK: transformer.gelu %{{.*}} : tensor<?x8xf32> -> tensor<?x8xf32>
  %4 = transformer.gelu %x {approximate = "tanh"} : tensor<?x8xf32> -> tensor<?x8xf32>
  // CHECK: transformer.gelu %{{.*}} {approximate = "none"} : tensor<?x8xf32> -> tensor<?x8xf32>
  %5 = transformer.gelu %x {approximate = "none"} : tensor<?x8xf32> -> tensor<?x8xf32>
  return
}

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>, %c: tensor<3x1xf32>) {
  // CHECK: transformer.add %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<4xf32> -> tensor<2x3x4xf32>
  %0 = transformer.add %a, %b : tensor<2x3x4xf32>, tensor<4xf32> -> tensor<2x3x4xf32>
  // CHECK: transformer.sub %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<3x1xf32> -> tensor<2x3x4xf32>
  %1 = transformer.sub %a, %c : tensor<2x3x4xf32>, tensor<3x1xf32> -> tensor<2x3x4xf32>
  // CHECK: transformer.mul %{{.*}}, %{{.*}} : tensor<3x1xf32>, tensor<4xf32> -> tensor<3x4xf32>
  %2 = transformer.mul %c, %b : tensor<3x1xf32>, tensor<4xf32> -> tensor<3x4xf32>
  // CHECK: transformer.div %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %3 = transformer.div %a, %a : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return
}

// CHECK-LABEL: func @layer_norm
func.func @layer_norm(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // CHECK: transformer.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %0 = transformer.layer_norm %x, %g, %b : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  // CHECK: transformer.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f32} : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %1 = transformer.layer_norm %x, %g, %b {epsilon = 1.0e-03 : f32} : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return
}

// CHECK-LABEL: func @linear
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>) {
  // CHECK: transformer.linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32> -> tensor<2x3x5xf32>
  %0 = transformer.linear %x, %w, %b : tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32> -> tensor<2x3x5xf32>
  return
}

// Weights (matmul's rhs, linear's weight, the embedding table) may be
// bf16 or f16; the other operands and the result stay f32.
// CHECK-LABEL: func @half_weights
func.func @half_weights(%x: tensor<2x3x4xf32>, %w: tensor<5x4xbf16>, %b: tensor<5xf32>,
                        %h: tensor<4x6xf16>, %ids: tensor<3xi32>, %table: tensor<10x4xbf16>) {
  // CHECK: transformer.linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<5x4xbf16>, tensor<5xf32> -> tensor<2x3x5xf32>
  %0 = transformer.linear %x, %w, %b : tensor<2x3x4xf32>, tensor<5x4xbf16>, tensor<5xf32> -> tensor<2x3x5xf32>
  // CHECK: transformer.matmul %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<4x6xf16> -> tensor<2x3x6xf32>
  %1 = transformer.matmul %x, %h : tensor<2x3x4xf32>, tensor<4x6xf16> -> tensor<2x3x6xf32>
  // CHECK: transformer.matmul %{{.*}}, %{{.*}} {transpose_b} : tensor<2x3x4xf32>, tensor<5x4xbf16> -> tensor<2x3x5xf32>
  %2 = transformer.matmul %x, %w {transpose_b} : tensor<2x3x4xf32>, tensor<5x4xbf16> -> tensor<2x3x5xf32>
  // CHECK: transformer.embedding %{{.*}}, %{{.*}} : tensor<3xi32>, tensor<10x4xbf16> -> tensor<3x4xf32>
  %3 = transformer.embedding %ids, %table : tensor<3xi32>, tensor<10x4xbf16> -> tensor<3x4xf32>
  return
}

// Block-quantized weights (ggml's Q8_0 and Q4_0 blocks as i8), expanded to
// f32 for the contractions and the embedding that consume them.
// CHECK-LABEL: func @dequantize
func.func @dequantize(%q8: tensor<6x2x34xi8>, %q4: tensor<2x6x3x18xi8>, %dyn: tensor<?x?x34xi8>) {
  // CHECK: transformer.dequantize q8_0 %{{.*}} : tensor<6x2x34xi8> -> tensor<6x64xf32>
  %0 = transformer.dequantize q8_0 %q8 : tensor<6x2x34xi8> -> tensor<6x64xf32>
  // CHECK: transformer.dequantize q4_0 %{{.*}} : tensor<2x6x3x18xi8> -> tensor<2x6x96xf32>
  %1 = transformer.dequantize q4_0 %q4 : tensor<2x6x3x18xi8> -> tensor<2x6x96xf32>
  // CHECK: transformer.dequantize q8_0 %{{.*}} : tensor<?x?x34xi8> -> tensor<?x?xf32>
  %2 = transformer.dequantize q8_0 %dyn : tensor<?x?x34xi8> -> tensor<?x?xf32>
  return
}

// CHECK-LABEL: func @embedding
func.func @embedding(%ids: tensor<2x3xi32>, %ids64: tensor<?xi64>, %table: tensor<10x4xf32>) {
  // CHECK: transformer.embedding %{{.*}}, %{{.*}} : tensor<2x3xi32>, tensor<10x4xf32> -> tensor<2x3x4xf32>
  %0 = transformer.embedding %ids, %table : tensor<2x3xi32>, tensor<10x4xf32> -> tensor<2x3x4xf32>
  // CHECK: transformer.embedding %{{.*}}, %{{.*}} : tensor<?xi64>, tensor<10x4xf32> -> tensor<?x4xf32>
  %1 = transformer.embedding %ids64, %table : tensor<?xi64>, tensor<10x4xf32> -> tensor<?x4xf32>
  return
}

// CHECK-LABEL: func @rope
func.func @rope(%x: tensor<1x2x3x8xf32>, %pos: index, %f: tensor<4xf32>, %fd: tensor<?xf32>) {
  // CHECK: transformer.rope %{{.*}} : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  %0 = transformer.rope %x : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  // CHECK: transformer.rope %{{.*}} at %{{.*}} : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  %1 = transformer.rope %x at %pos : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  // CHECK: transformer.rope %{{.*}} at %{{.*}} {base = 5.000000e+05 : f32} : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  %2 = transformer.rope %x at %pos {base = 500000.0 : f32} : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  // CHECK: transformer.rope %{{.*}} {rotate_half} : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  %3 = transformer.rope %x {rotate_half} : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  // CHECK: transformer.rope %{{.*}} at %{{.*}} freqs(%{{.*}} : tensor<4xf32>) {rotate_half} : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  %4 = transformer.rope %x at %pos freqs(%f : tensor<4xf32>) {rotate_half} : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  // CHECK: transformer.rope %{{.*}} freqs(%{{.*}} : tensor<?xf32>) : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  %5 = transformer.rope %x freqs(%fd : tensor<?xf32>) : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf32>
  return
}

// CHECK-LABEL: func @masks
func.func @masks(%x: tensor<2x4x6xf32>, %pad: tensor<6xf32>) {
  // CHECK: transformer.create_causal_mask : tensor<4x6xf32>
  %m = transformer.create_causal_mask : tensor<4x6xf32>
  // CHECK: transformer.create_causal_mask : tensor<2x4x6xf32>
  %mb = transformer.create_causal_mask : tensor<2x4x6xf32>
  // CHECK: transformer.create_causal_mask {window = 3 : i64} : tensor<4x6xf32>
  %mw = transformer.create_causal_mask {window = 3 : i64} : tensor<4x6xf32>
  // CHECK: transformer.masked_softmax %{{.*}}, %{{.*}} : tensor<2x4x6xf32>, tensor<4x6xf32> -> tensor<2x4x6xf32>
  %0 = transformer.masked_softmax %x, %m : tensor<2x4x6xf32>, tensor<4x6xf32> -> tensor<2x4x6xf32>
  // CHECK: transformer.masked_softmax %{{.*}}, %{{.*}} : tensor<2x4x6xf32>, tensor<6xf32> -> tensor<2x4x6xf32>
  %1 = transformer.masked_softmax %x, %pad : tensor<2x4x6xf32>, tensor<6xf32> -> tensor<2x4x6xf32>
  return
}

// CHECK-LABEL: func @attention
func.func @attention(%q: tensor<2x9x8xf32>, %k: tensor<2x12x8xf32>, %v: tensor<2x12x4xf32>,
                     %m: tensor<9x12xf32>) {
  // CHECK: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x9x8xf32>, tensor<2x12x8xf32>, tensor<2x12x4xf32> -> tensor<2x9x4xf32>
  %0 = transformer.attention %q, %k, %v : tensor<2x9x8xf32>, tensor<2x12x8xf32>, tensor<2x12x4xf32> -> tensor<2x9x4xf32>
  // CHECK: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 5.000000e-01 : f32} : tensor<2x9x8xf32>
  %1 = transformer.attention %q, %k, %v {causal, scale = 0.5 : f32} : tensor<2x9x8xf32>, tensor<2x12x8xf32>, tensor<2x12x4xf32> -> tensor<2x9x4xf32>
  // CHECK: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<9x12xf32>) {causal} : tensor<2x9x8xf32>
  %2 = transformer.attention %q, %k, %v mask(%m : tensor<9x12xf32>) {causal} : tensor<2x9x8xf32>, tensor<2x12x8xf32>, tensor<2x12x4xf32> -> tensor<2x9x4xf32>
  // CHECK: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, window = 4 : i64} : tensor<2x9x8xf32>
  %3 = transformer.attention %q, %k, %v {causal, window = 4 : i64} : tensor<2x9x8xf32>, tensor<2x12x8xf32>, tensor<2x12x4xf32> -> tensor<2x9x4xf32>
  return
}

// CHECK-LABEL: func @dynamic_and_unranked
func.func @dynamic_and_unranked(%q: tensor<?x?x?xf32>, %x: tensor<*xf32>) {
  // CHECK: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %0 = transformer.attention %q, %q, %q : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  // CHECK: transformer.softmax %{{.*}} : tensor<*xf32> -> tensor<*xf32>
  %1 = transformer.softmax %x : tensor<*xf32> -> tensor<*xf32>
  return
}

// CHECK-LABEL: func @llama_ops
func.func @llama_ops(%x: tensor<2x3x8xf32>, %g: tensor<8xf32>) {
  // CHECK: transformer.rms_norm %{{.*}}, %{{.*}} : tensor<2x3x8xf32>, tensor<8xf32> -> tensor<2x3x8xf32>
  %0 = transformer.rms_norm %x, %g : tensor<2x3x8xf32>, tensor<8xf32> -> tensor<2x3x8xf32>
  // CHECK: transformer.rms_norm %{{.*}}, %{{.*}} {epsilon = 9.99999974E-6 : f32} : tensor<2x3x8xf32>, tensor<8xf32> -> tensor<2x3x8xf32>
  %1 = transformer.rms_norm %x, %g {epsilon = 1.0e-05 : f32} : tensor<2x3x8xf32>, tensor<8xf32> -> tensor<2x3x8xf32>
  // CHECK: transformer.silu %{{.*}} : tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  %2 = transformer.silu %x : tensor<2x3x8xf32> -> tensor<2x3x8xf32>
  return
}

// Grouped-query attention: 8 query heads over 2 key/value heads; dynamic
// heads are checked at run time.
// CHECK-LABEL: func @attention_gqa
func.func @attention_gqa(%q: tensor<1x8x5x16xf32>, %k: tensor<1x2x7x16xf32>, %qd: tensor<1x?x5x16xf32>) {
  // CHECK: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} {causal} : tensor<1x8x5x16xf32>, tensor<1x2x7x16xf32>, tensor<1x2x7x16xf32> -> tensor<1x8x5x16xf32>
  %0 = transformer.attention %q, %k, %k {causal} : tensor<1x8x5x16xf32>, tensor<1x2x7x16xf32>, tensor<1x2x7x16xf32> -> tensor<1x8x5x16xf32>
  // CHECK: transformer.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x?x5x16xf32>, tensor<1x2x7x16xf32>, tensor<1x2x7x16xf32> -> tensor<1x?x5x16xf32>
  %1 = transformer.attention %qd, %k, %k : tensor<1x?x5x16xf32>, tensor<1x2x7x16xf32>, tensor<1x2x7x16xf32> -> tensor<1x?x5x16xf32>
  return
}
