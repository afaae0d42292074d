//===- Strategies.cpp - The strategies as stand-alone pipelines -----------===//
//
// `--transformer-cpu-{attention,contraction,row}-strategy`: one op family's
// passes after the target's, so that a strategy can be run and tested
// without the rest of the -O2 pipeline.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Strategies.h"
#include "Transformer/Codegen/CPU/Passes.h"

#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::transformer;

void transformer::addSelectTarget(OpPassManager &pm, const CPUTarget &target) {
  pm.addPass(createTransformerCPUSelectTargetPass(target));
}

namespace {

struct StrategyOptions : public PassPipelineOptions<StrategyOptions> {
  Option<std::string> targetCpu{
      *this, "target-cpu",
      llvm::cl::desc("The CPU to build for (llc's -mcpu); empty: the host"),
      llvm::cl::init("")};
  Option<std::string> targetFeatures{
      *this, "target-features",
      llvm::cl::desc("Features added to or removed from the CPU's (llc's "
                     "-mattr)"),
      llvm::cl::init("")};
  Option<unsigned> threads{
      *this, "threads",
      llvm::cl::desc("Threads the code is built for (0: every core)"),
      llvm::cl::init(0)};
  Option<std::string> schedule{
      *this, "transform-schedule",
      llvm::cl::desc("Contractions: a transform schedule instead of the "
                     "built-in one"),
      llvm::cl::init("")};
};

using StrategyBuilder = std::function<void(OpPassManager &, const CPUTarget &,
                                           const StrategyOptions &)>;

void registerStrategy(StringRef name, StringRef description,
                      StrategyBuilder build) {
  registerPassPipeline(
      name, description,
      [name, build](OpPassManager &pm, StringRef text,
                    function_ref<LogicalResult(const Twine &)> errorHandler) {
        StrategyOptions opts;
        if (failed(opts.parseFromString(text)))
          return failure();
        llvm::Expected<CPUTarget> target = CPUTarget::resolve(
            opts.targetCpu, opts.targetFeatures, opts.threads);
        if (!target)
          return errorHandler(name + ": " + llvm::toString(target.takeError()));
        addSelectTarget(pm, *target);
        build(pm, *target, opts);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(StrategyOptions());
      });
}

} // namespace

void transformer::registerCPUStrategyPipelines() {
  registerStrategy(
      "transformer-cpu-attention-strategy",
      "The attention strategy on tensors: mask sparsity, flash kernels",
      [](OpPassManager &pm, const CPUTarget &target, const StrategyOptions &) {
        addAttentionStrategy(pm, target);
      });
  registerStrategy(
      "transformer-cpu-contraction-strategy",
      "The contraction strategy on buffers: the transform schedule applied "
      "to tagged contractions, the next k block prefetched",
      [](OpPassManager &pm, const CPUTarget &, const StrategyOptions &opts) {
        addContractionStrategy(pm, opts.schedule);
      });
  registerStrategy(
      "transformer-cpu-row-strategy",
      "The row strategy on buffers: row ops and element-wise ops vectorized",
      [](OpPassManager &pm, const CPUTarget &, const StrategyOptions &) {
        addRowStrategy(pm);
      });
}
