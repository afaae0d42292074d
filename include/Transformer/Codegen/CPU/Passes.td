//===- Passes.td - CPU code generation passes --------------*- tablegen -*-===//
//
// The passes that turn linalg into fast CPU code at -O2 and up. The tiling
// decisions themselves live in transform-dialect schedules
// (lib/Codegen/CPU/Schedules/*.mlir), which these passes apply.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CODEGEN_CPU_PASSES
#define TRANSFORMER_CODEGEN_CPU_PASSES

include "mlir/Pass/PassBase.td"

def TransformerCPUPrepareContractionsPass
    : Pass<"transformer-cpu-prepare-contractions", "::mlir::func::FuncOp"> {
  let summary = "Normalize linalg contractions and tag them for the CPU "
                "schedule";
  let description = [{
    Finds every linalg op on tensors that implements a contraction
    (`linalg::isaContractionOpInterface`: `linalg.matmul` in any of its
    forms, `linalg.batch_matmul`, or a `linalg.generic` with a multiply-add
    body), whatever its name, and classifies its loops with
    `linalg::inferContractionDims` into batch, m, n and k dimensions.

    When the loops come in the order (batch..., m..., n..., k...) and the
    result is indexed (batch..., m..., n...), groups of several batch, m, n
    or k loops are collapsed into one loop each
    (`linalg::collapseOpIterationDims`, so `x @ w^T` on a `SxTxK` input
    becomes one `(S*T) x N x K` contraction), and the op is tagged
    `transformer.contraction = "mnk"` or `"bmnk"`. The CPU schedule
    (`transformer-cpu-codegen`) matches these tags. Other contractions are
    left alone and lowered to loops.

    Example:

    ```mlir
    // Before: linear with a 3-D input, B transposed (n x k).
    %r = linalg.generic {indexing_maps = [(d0,d1,d2,d3) -> (d0,d1,d3),
                                          (d0,d1,d2,d3) -> (d2,d3),
                                          (d0,d1,d2,d3) -> (d0,d1,d2)], ...}
    // After: one (m, n, k) contraction on collapsed operands.
    %r = linalg.generic {..., transformer.contraction = "mnk"}
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TransformerCPUCodegenPass
    : Pass<"transformer-cpu-codegen", "::mlir::ModuleOp"> {
  let summary = "Apply the CPU transform-dialect schedule to tagged "
                "contractions";
  let description = [{
    Runs a transform-dialect schedule (its `@__transform_main` named
    sequence) on the module with the transform interpreter. By default the
    schedule is the one built into the compiler
    (lib/Codegen/CPU/Schedules/contraction.mlir, printed by
    `transformer-run --print-transform-schedule`): cache tiles distributed
    over threads with `scf.forall`, register tiles of 8 x 32 peeled for odd
    sizes, vectorized to `vector.contract`, accumulators hoisted, and
    contractions lowered to `vector.fma`.

    Runs on bufferized IR (memrefs), after `transformer-cpu-prepare-
    contractions` tagged the contractions.
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"\"",
           "A .mlir file with a transform schedule (@__transform_main) "
           "used instead of the built-in one">,
  ];
  let dependentDialects = ["::mlir::transform::TransformDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

def TransformerCPUVectorizeRowsPass
    : Pass<"transformer-cpu-vectorize-rows", "::mlir::func::FuncOp"> {
  let summary = "Vectorize element-wise ops and row reductions along the row";
  let description = [{
    The CPU strategy for every linalg op on memrefs that is not a
    contraction, matched by structure: element-wise (all loops parallel) or
    row reduction (parallel loops and one innermost reduction), every operand
    indexed by an ordered subset of the loops (broadcasts allowed,
    transposes not). Such an op is tiled into rows (one `scf.forall` over
    all but the innermost loop, split over the threads later) and vector
    tiles of 64 along the row (`scf.for`, peeled), vectorized, and its
    vectors lowered to 1-D: reductions become `vector.reduction`, and
    `math.exp`, `math.tanh` and `math.erf` become polynomial approximations.
    Row lengths that do not divide 64 get a remainder tile vectorized at its
    static size; dynamic remainders stay scalar loops.

    Runs on bufferized IR, after `transformer-cpu-codegen` (contractions and
    their remainder tiles are left alone).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

#endif // TRANSFORMER_CODEGEN_CPU_PASSES
