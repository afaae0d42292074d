//===- FuseElementwise.cpp - --transformer-fuse-elementwise ---------------===//

#include "Transformer/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERFUSEELEMENTWISEPASS
#include "Transformer/Transforms/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {
/// Operations in the body of a structured op.
size_t bodySize(Operation *op) {
  if (op->getNumRegions() == 0 || op->getRegion(0).empty())
    return 0;
  return op->getRegion(0).front().getOperations().size();
}

struct TransformerFuseElementwisePass
    : transformer::impl::TransformerFuseElementwisePassBase<
          TransformerFuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    unsigned limit = maxBodyOps;
    linalg::ControlFusionFn control = [limit](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      // A producer with other users would be computed twice.
      return producer && producer->hasOneUse() &&
             bodySize(producer) + bodySize(fused->getOwner()) <= limit;
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
