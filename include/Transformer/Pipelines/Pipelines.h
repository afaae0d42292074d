//===- Pipelines.h - The transformer compilation pipelines ------*- C++ -*-===//
//
// The pass pipelines from the transformer dialect down to the LLVM dialect.
// `--transformer-to-llvm` (transformer-opt) and transformer-run both build
// their pipelines with these functions, so there is one source of truth.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_PIPELINES_PIPELINES_H
#define TRANSFORMER_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>

namespace mlir::transformer {

struct TransformerPipelineOptions
    : public PassPipelineOptions<TransformerPipelineOptions> {
  Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc(
          "Optimisation level, 0 to 3. 0: no attention or element-wise "
          "fusion. 1, 2 and 3 build the same MLIR pipeline today (both "
          "fusions); transformer-run also passes the level to LLVM's "
          "optimiser and code generator, where they differ"),
      llvm::cl::init(2)};
  Option<bool> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("Fuse matmul/softmax/matmul chains into attention "
                     "(has no effect at opt-level 0)"),
      llvm::cl::init(true)};
  Option<unsigned> threads{
      *this, "threads",
      llvm::cl::desc("Threads for contractions at opt-level >= 2 (OpenMP); 0: "
                     "the machine's cores, 1: no OpenMP at all"),
      llvm::cl::init(0)};
  Option<bool> runtimeVerification{
      *this, "runtime-verification",
      llvm::cl::desc(
          "Check the operands of upstream ops at run time (sizes that must "
          "agree, indices and slices in bounds: "
          "--transformer-generate-runtime-checks) at opt-level >= 1; always "
          "on at opt-level 0"),
      llvm::cl::init(false)};
  Option<std::string> targetCpu{
      *this, "target-cpu",
      llvm::cl::desc("The CPU to build for, as llc's -mcpu names it (znver4, "
                     "skylake-avx512, haswell, ...); empty: the host"),
      llvm::cl::init("")};
  Option<std::string> targetFeatures{
      *this, "target-features",
      llvm::cl::desc("Features added to or removed from the target CPU's, as "
                     "llc's -mattr takes them (-avx512f,+fma)"),
      llvm::cl::init("")};
  Option<bool> panelParameters{
      *this, "panel-parameters",
      llvm::cl::desc(
          "At opt-level >= 2, have the caller pass weights bound by name "
          "(transformer.parameter) that only plain contractions read laid "
          "out in the register tile's panels "
          "(--transformer-cpu-panel-parameters; the module's "
          "transformer.panel_parameters attribute says which). transformer-run "
          "sets it when it binds --parameters"),
      llvm::cl::init(false)};
  Option<std::string> transformSchedule{
      *this, "transform-schedule",
      llvm::cl::desc("A transform-dialect schedule (.mlir with "
                     "@__transform_main) used at opt-level >= 2 instead of "
                     "the built-in CPU schedule"),
      llvm::cl::init("")};
};

/// The thread count `opts.threads` stands for (0: the machine's cores).
unsigned getEffectiveThreads(const TransformerPipelineOptions &opts);

/// The highest `opt-level`.
constexpr unsigned kMaxOptLevel = 3;

/// Checks option values that the option parser accepts but the pipelines do
/// not (an opt-level above kMaxOptLevel). Returns a one-line message naming
/// the option and the allowed values, or std::nullopt when they are valid.
std::optional<std::string>
checkPipelineOptions(const TransformerPipelineOptions &opts);

/// Shape inference, canonicalization, attention fusion and the lowering to
/// linalg on tensors.
void buildTransformerToLinalgPipeline(OpPassManager &pm,
                                      const TransformerPipelineOptions &opts);

/// From linalg on tensors (mixed with tensor/arith/math/scf/cf/func) to the
/// LLVM dialect: bufferization, deallocation, loops, LLVM conversion.
void buildLinalgToLLVMPipeline(OpPassManager &pm,
                               const TransformerPipelineOptions &opts);

/// Both of the above: the `--transformer-to-llvm` pipeline.
void buildTransformerToLLVMPipeline(OpPassManager &pm,
                                    const TransformerPipelineOptions &opts);

/// Registers `--transformer-to-linalg-pipeline` and `--transformer-to-llvm`.
void registerTransformerPipelines();

} // namespace mlir::transformer

#endif // TRANSFORMER_PIPELINES_PIPELINES_H
