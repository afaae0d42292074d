// A user's schedule replaces the built-in one, in transformer-run and in the
// --transformer-to-llvm pipeline; --print-transform-schedule shows the schedule
// that -O2/-O3 apply.
// REQUIRES: numpy
// RUN: %python %test_lib/run_reference.py %s %t --transform-schedule=%S/../Codegen/CPU/Inputs/user-schedule.mlir | FileCheck %s
// RUN: transformer-opt %s --transformer-to-llvm="transform-schedule=%S/../Codegen/CPU/Inputs/user-schedule.mlir threads=1" -o /dev/null | FileCheck %s --check-prefix=USER
// RUN: transformer-run --print-transform-schedule | FileCheck %s --check-prefix=BUILTIN
// RUN: transformer-run --print-transform-schedule --transform-schedule=%S/../Codegen/CPU/Inputs/user-schedule.mlir | FileCheck %s --check-prefix=PRINT-USER
// RUN: not transformer-run %s -e mm --input=12x24xf32=random --input=24x48xf32=random --transform-schedule=%t.none.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK: PASS @mm: result[0] 12x48

// USER: IR printer: after the user schedule
// USER-NOT: scf.forall
// USER: vector.fma {{.*}} : vector<16xf32>

// BUILTIN: module attributes {transform.with_named_sequence}
// BUILTIN: transform.structured.promote %{{.*}} {operands_to_promote = [1]}
// BUILTIN: transform.structured.tile_using_for %{{.*}} tile_sizes [%reg_m, 0, 0]
// BUILTIN: transform.structured.tile_using_for %{{.*}} tile_sizes [0, %reg_n, 1]
// BUILTIN: transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly},
// BUILTIN-NEXT: %reg_m: !transform.param<i64> {transform.readonly}, %reg_n: !transform.param<i64> {transform.readonly},

// PRINT-USER: A user's schedule: register tiles of 4 x 16

// MISSING: Error: cannot read the transform schedule '{{.*}}none.mlir'

// PY: def case_mm(rng):
// PY:     a, b = rng.standard_normal((12, 24), np.float32), rng.standard_normal((24, 48), np.float32)
// PY:     return [a, b], [ref.matmul(a, b)]
func.func @mm(%a: tensor<12x24xf32>, %b: tensor<24x48xf32>) -> tensor<12x48xf32> {
  %0 = transformer.matmul %a, %b : tensor<12x24xf32>, tensor<24x48xf32> -> tensor<12x48xf32>
  return %0 : tensor<12x48xf32>
}
