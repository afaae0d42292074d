// REQUIRES: torch, transformer-run
// @prefill fills the KV cache and returns the last position's logits; each
// @decode step writes one position of the cache and returns logits equal to
// @forward over the whole prefix (batch 2).
// RUN: rm -rf %t && %python %test_lib/gpt2_reference.py setup %t
// RUN: transformer-translate --import-hf-config %t/config.json -o %t/model.mlir
// RUN: %python %test_lib/gpt2_reference.py decode %t 3 | FileCheck %s
// CHECK: PASS @prefill logits vs @forward[:, -1]
// CHECK: PASS @decode at 6 vs @forward on the prefix
// CHECK: PASS @decode at 7 vs @forward on the prefix
// CHECK: PASS @decode at 8 vs @forward on the prefix
// CHECK-NOT: FAIL
