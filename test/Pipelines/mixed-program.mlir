// REQUIRES: numpy
// RUN: transformer-opt %s -pass-pipeline='builtin.module(transformer-to-linalg-pipeline)' | FileCheck %s --check-prefix=LINALG
// RUN: transformer-opt %s --transformer-to-llvm=opt-level=0 | mlir-translate --mlir-to-llvmir | FileCheck %s
// RUN: transformer-opt %s --transformer-to-llvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=O2
// RUN: %python %test_lib/run_reference.py %s %t | FileCheck %s --check-prefix=NUM
// RUN: %python %test_lib/run_reference.py %s %t -O0 | FileCheck %s --check-prefix=NUM

// Transformer ops mixed with upstream tensor, linalg, arith and math ops,
// as the contract requires of every pipeline: split heads with
// tensor.expand_shape, attend, merge heads, then an upstream linalg op.

// After the linalg pipeline the upstream ops are still there, connected to
// the lowered transformer ops: the split heads are transposed, and the
// merged heads are the input of linalg.exp.
// LINALG-LABEL: func.func @mixed
// LINALG-NOT: transformer.
// LINALG: %[[H:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [4, 2, 8] : tensor<4x16xf32> into tensor<4x2x8xf32>
// LINALG: linalg.transpose ins(%[[H]] : tensor<4x2x8xf32>) {{.*}} permutation = [1, 0, 2]
// LINALG: %[[M:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<4x2x8xf32> into tensor<4x16xf32>
// LINALG: linalg.exp ins(%[[M]] : tensor<4x16xf32>)
// LINALG-NOT: transformer.

// The LLVM IR at -O0 has the function, with its exponentials (softmax and
// linalg.exp) as intrinsic calls.
// CHECK-LABEL: define {{.*}} @mixed(
// CHECK: call float @llvm.exp.f32
// CHECK: call float @llvm.exp.f32
// CHECK: ret
// At -O2 there is no exp call left: the attention's softmax is the flash
// kernel's polynomial exp2, and linalg.exp a polynomial of the row strategy
// (lib/Codegen/CPU), in a kernel that --transformer-outline-kernels makes,
// which @mixed calls.
// O2-NOT: @llvm.exp.f32
// O2-LABEL: define {{.*}} @mixed(
// O2: call {{.*}} @{{.*}}_kernel{{.*}}(
// O2: ret

// And it computes what numpy computes.
// NUM-NOT: FAIL
// NUM: PASS @mixed: result[0] 4x16
// PY: def case_mixed(rng):
// PY:     x = rng.standard_normal((4, 16)).astype(np.float32)
// PY:     w = (rng.standard_normal((16, 16)) * 0.3).astype(np.float32)
// PY:     b = rng.standard_normal(16).astype(np.float32)
// PY:     h = ref.linear(x, w, b).reshape(4, 2, 8).transpose(1, 0, 2)
// PY:     a = ref.attention(h, h, h, causal=True).transpose(1, 0, 2).reshape(4, 16)
// PY:     return [x, w, b], [np.exp(a) + np.sqrt(1.0)]
func.func @mixed(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %qkv = transformer.linear %x, %w, %b : tensor<4x16xf32>, tensor<16x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %h = tensor.expand_shape %qkv [[0], [1, 2]] output_shape [4, 2, 8] : tensor<4x16xf32> into tensor<4x2x8xf32>
  %ht = transformer.transpose %h {permutation = array<i64: 1, 0, 2>} : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
  %a = transformer.attention %ht, %ht, %ht {causal} : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %at = transformer.transpose %a {permutation = array<i64: 1, 0, 2>} : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  %m = tensor.collapse_shape %at [[0], [1, 2]] : tensor<4x2x8xf32> into tensor<4x16xf32>
  %init = tensor.empty() : tensor<4x16xf32>
  %e = linalg.exp ins(%m : tensor<4x16xf32>) outs(%init : tensor<4x16xf32>) -> tensor<4x16xf32>
  %one = arith.constant 1.0 : f32
  %s = math.sqrt %one : f32
  %c = tensor.splat %s : tensor<4x16xf32>
  %r = transformer.add %e, %c : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
