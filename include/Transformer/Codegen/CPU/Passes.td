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

def TransformerCPUFuseEpiloguesPass
    : Pass<"transformer-cpu-fuse-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Form the cache tiles of contractions on tensors and fuse "
                "their fills, bias and element-wise epilogues into them";
  let description = [{
    For every contraction tagged `transformer.contraction = "mnk"` or
    `"bmnk"` by `transformer-cpu-prepare-contractions`, tiles the last of
    its element-wise consumers (a chain of single-use, all-parallel
    `linalg` ops on the result: bias add, GELU, residual add, scale) into
    `scf.forall` cache tiles of `cache-tile-m` x `cache-tile-n` (one batch
    per tile for `"bmnk"`) and fuses into each tile the contraction and the
    element-wise ops that initialize its accumulator (a zero fill, the bias
    broadcast of `transformer.linear`), with
    `scf::tileConsumerAndFuseProducersUsingSCF`. A consumer that reads the
    result and ignores its own init is first rewritten to update the result
    in place, so that the epilogue writes the contraction's tile and needs no
    buffer of its own.

    The tiled contraction is tagged `"mnk_tile"` / `"bmnk_tile"` (the CPU
    schedule tiles it only for k and registers), the fused element-wise ops
    `"epilogue"` / `"bepilogue"` (the schedule vectorizes them along the
    row). Contractions without anything to fuse are tiled the same way.

    Example:

    ```mlir
    // Before
    %c = linalg.contract ... {transformer.contraction = "mnk"} outs(%bias)
    %g = linalg.generic ins(%c) outs(%empty) { gelu }
    // After
    %r = scf.forall (%i, %j) ... shared_outs(%o = %empty) {
      %b = linalg.generic ... {transformer.contraction = "epilogue"}  // bias
      %t = linalg.contract ... {transformer.contraction = "mnk_tile"} outs(%b)
      %g = linalg.generic ... {transformer.contraction = "epilogue"} outs(%t)
      scf.forall.in_parallel { tensor.parallel_insert_slice %g into %o ... }
    }
    ```
  }];
  let options = [
    Option<"cacheTileM", "cache-tile-m", "int64_t", /*default=*/"128",
           "Rows of C per cache tile (the units of work for the threads)">,
    Option<"cacheTileN", "cache-tile-n", "int64_t", /*default=*/"256",
           "Columns of C per cache tile">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TRANSFORMER_CODEGEN_CPU_PASSES
