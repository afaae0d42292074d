//===- SelectTarget.cpp - Record the target CPU on the module -------------===//
//
// --transformer-cpu-select-target: resolves the target once (CPUTarget) and
// records it as the module's `transformer.target`, which the codegen passes
// after it read.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Strategies.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUSELECTTARGETPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

struct SelectTargetPass
    : public transformer::impl::TransformerCPUSelectTargetPassBase<
          SelectTargetPass> {
  using Base::Base;
  /// A target resolved by the pipeline's builder, recorded as it is.
  explicit SelectTargetPass(const CPUTarget &target) : resolved(target) {}

  void runOnOperation() override {
    if (resolved) {
      getOperation()->setAttr(kTargetAttrName, resolved->toAttr(&getContext()));
      return;
    }
    llvm::Expected<CPUTarget> target =
        CPUTarget::resolve(cpu, features, threads);
    if (!target) {
      getOperation().emitError(llvm::toString(target.takeError()));
      return signalPassFailure();
    }
    getOperation()->setAttr(kTargetAttrName, target->toAttr(&getContext()));
  }

  std::optional<CPUTarget> resolved;
};

} // namespace

std::unique_ptr<Pass>
transformer::createTransformerCPUSelectTargetPass(const CPUTarget &target) {
  return std::make_unique<SelectTargetPass>(target);
}
