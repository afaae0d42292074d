//===- FuseElementwise.cpp - --transformer-fuse-elementwise ---------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERFUSEELEMENTWISEPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {
/// Operations in the body of a structured op.
size_t bodySize(Operation *op) {
  if (op->getNumRegions() == 0 || op->getRegion(0).empty())
    return 0;
  return op->getRegion(0).front().getOperations().size();
}

/// Whether fusing `producer` into the user of `fused` would evaluate the
/// producer's body more than once per element it produces: the consumer has
/// loops that do not index the operand (a reduction, as in a matmul, or a
/// broadcast). Fusing a layer_norm or a GELU into the matmul that reads it
/// computes rsqrt/tanh K or N times per element (it made -O2 code 2x slower
/// than -O0 on a GPT-2 block) and hides the contraction from the codegen.
/// A producer that only yields an input (a broadcast, a transpose) is free
/// to recompute.
bool recomputesPerElement(Operation *producer, OpOperand *fused) {
  if (bodySize(producer) <= 1)
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  if (!consumer)
    return false;
  AffineMap map = consumer.getMatchingIndexingMap(fused);
  return map.getNumResults() != map.getNumDims() || !map.isPermutation();
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
      if (!producer || !producer->hasOneUse() ||
          bodySize(producer) + bodySize(fused->getOwner()) > limit)
        return false;
      return !recomputesPerElement(producer, fused);
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
