//===- TransformerToLinalg.cpp - --lower-transformer ----------------------===//

#include "Transformer/Conversion/TransformerToLinalg/TransformerToLinalg.h"

#include "LoweringUtils.h"
#include "Patterns.h"

#include "Transformer/Conversion/Passes.h"
#include "Transformer/IR/TransformerOps.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_CONVERTTRANSFORMERTOLINALGPASS
#include "Transformer/Conversion/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

void transformer::populateTransformerToLinalgPatterns(
    RewritePatternSet &patterns) {
  lowering::populateElementwisePatterns(patterns);
  lowering::populateMatmulPatterns(patterns);
  lowering::populateNormalizationPatterns(patterns);
  lowering::populateAttentionPatterns(patterns);
  lowering::populateDequantizePatterns(patterns);
  lowering::populateEmbeddingPatterns(patterns);
}

namespace {
struct ConvertTransformerToLinalgPass
    : transformer::impl::ConvertTransformerToLinalgPassBase<
          ConvertTransformerToLinalgPass> {
  void runOnOperation() override {
    // Report unranked types up front with a hint, rather than as a generic
    // "failed to legalize" from the conversion driver.
    WalkResult ranked = getOperation()->walk([](Operation *op) {
      // Unregistered ops (--allow-unregistered-dialect) have no dialect.
      if (!isa_and_nonnull<TransformerDialect>(op->getDialect()))
        return WalkResult::advance();
      return failed(lowering::checkRankedTypes(op)) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
    });
    if (ranked.wasInterrupted())
      return signalPassFailure();

    ConversionTarget target(getContext());
    target.addIllegalDialect<TransformerDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populateTransformerToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
