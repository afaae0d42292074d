// REQUIRES: torch, transformer-run
// GPT-2 imported with 16-bit weights (--weight-type=bf16 / f16): the 2-D
// weights (projections, token embedding and so the tied LM head) are
// declared in that type and the f32 safetensors file is converted once when
// it is bound; the position embedding and the 1-D weights stay f32. The
// PyTorch reference runs in f32 on the same rounded weights, so logits
// agree to f32 tolerance and the greedy tokens are equal.
// RUN: rm -rf %t && %python %test_lib/gpt2_reference.py setup %t
// RUN: transformer-translate --import-hf-config %t/config.json --weight-type=bf16 -o %t/bf16.mlir
// RUN: FileCheck %s --input-file=%t/bf16.mlir --check-prefix=BF16
// RUN: %python %test_lib/gpt2_reference.py forward %t --model bf16.mlir --weight-type bf16 | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/gpt2_reference.py generate %t 24 2 --model bf16.mlir --weight-type bf16 | FileCheck %s --check-prefix=GEN
// RUN: %python %test_lib/gpt2_reference.py decode %t 3 --model bf16.mlir --weight-type bf16 | FileCheck %s --check-prefix=DECODE
// RUN: transformer-translate --import-hf-config %t/config.json --weight-type=f16 -o %t/f16.mlir
// RUN: %python %test_lib/gpt2_reference.py forward %t --model f16.mlir --weight-type f16 | FileCheck %s --check-prefix=FORWARD
// RUN: %python %test_lib/gpt2_reference.py generate %t 24 2 --model f16.mlir --weight-type f16 | FileCheck %s --check-prefix=GEN
// FORWARD-COUNT-3: PASS @forward
// FORWARD-NOT: FAIL
// GEN: PASS @generate batch 2, 24 steps: PyTorch's greedy tokens
// DECODE-COUNT-4: PASS @
// DECODE-NOT: FAIL

// BF16-LABEL: func.func @forward
// BF16-SAME: tensor<1000x64xbf16> {transformer.parameter = "wte.weight"}
// BF16-SAME: tensor<128x64xf32> {transformer.parameter = "wpe.weight"}
// BF16-SAME: tensor<64xf32> {transformer.parameter = "h.0.ln_1.weight"}
// BF16-SAME: tensor<64x192xbf16> {transformer.parameter = "h.0.attn.c_attn.weight"}
// BF16-SAME: tensor<192xf32> {transformer.parameter = "h.0.attn.c_attn.bias"}
// BF16-SAME: tensor<64x64xbf16> {transformer.parameter = "h.0.attn.c_proj.weight"}
// BF16-SAME: tensor<64x256xbf16> {transformer.parameter = "h.0.mlp.c_fc.weight"}
// BF16-SAME: tensor<256x64xbf16> {transformer.parameter = "h.0.mlp.c_proj.weight"}
// BF16-SAME: tensor<64xf32> {transformer.parameter = "ln_f.bias"}
// BF16: transformer.embedding {{.*}} tensor<1000x64xbf16> -> tensor<?x?x64xf32>
// BF16: transformer.matmul {{.*}} {transpose_b} : tensor<?x64xf32>, tensor<1000x64xbf16> -> tensor<?x1000xf32>
