//===- FuseAttention.cpp - --transformer-fuse-attention -------------------===//
//
// Matches the primitive attention chain from its last matmul upwards:
//
//   matmul(softmax|masked_softmax(scale*(matmul(q, k^T))), v)
//
// and replaces it with one transformer.attention.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Transforms/Passes.h"

#include "Transformer/IR/TransformerOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERFUSEATTENTIONPASS
#include "Transformer/Transforms/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// The value of a splat f32 constant, if `value` is one.
std::optional<float> getSplatValue(Value value) {
  DenseFPElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToFloat();
}

/// Peels one scaling step (scale, mul by a splat, div by a splat) off
/// `value`, multiplying `factor` accordingly. Only single-use steps that do
/// not broadcast are peeled.
Value peelScale(Value value, float &factor) {
  if (!value.hasOneUse())
    return nullptr;
  Operation *def = value.getDefiningOp();
  if (auto scale = dyn_cast_or_null<ScaleOp>(def)) {
    factor *= scale.getFactor().convertToFloat();
    return scale.getInput();
  }
  auto sameType = [&](Value v) { return v.getType() == value.getType(); };
  if (auto mul = dyn_cast_or_null<MulOp>(def)) {
    if (std::optional<float> c = getSplatValue(mul.getRhs());
        c && sameType(mul.getLhs())) {
      factor *= *c;
      return mul.getLhs();
    }
    if (std::optional<float> c = getSplatValue(mul.getLhs());
        c && sameType(mul.getRhs())) {
      factor *= *c;
      return mul.getRhs();
    }
  }
  if (auto div = dyn_cast_or_null<DivOp>(def)) {
    if (std::optional<float> c = getSplatValue(div.getRhs());
        c && *c != 0.0f && sameType(div.getLhs())) {
      factor /= *c;
      return div.getLhs();
    }
  }
  return nullptr;
}

/// Whether `mask` is a causal mask of exactly the scores' last two dims, so
/// that it can become the `causal` attribute (and its window, `window`).
bool isMatchingCausalMask(Value mask, Value scores) {
  auto maskOp = mask.getDefiningOp<CreateCausalMaskOp>();
  auto scoresType = dyn_cast<RankedTensorType>(scores.getType());
  if (!maskOp || !scoresType)
    return false;
  ArrayRef<int64_t> m = maskOp.getType().getShape();
  ArrayRef<int64_t> s = scoresType.getShape();
  return m.take_back(2) == s.take_back(2);
}

struct FuseAttentionPattern : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOp pv,
                                PatternRewriter &rewriter) const override {
    if (pv.getTransposeB())
      return rewriter.notifyMatchFailure(pv, "value is transposed");
    Value probs = pv.getLhs(), v = pv.getRhs();
    // Attention reads f32 keys and values; a 16-bit weight as the value
    // stays a matmul.
    if (!getElementTypeOrSelf(v.getType()).isF32())
      return rewriter.notifyMatchFailure(pv, "value is not f32");
    if (!probs.hasOneUse())
      return rewriter.notifyMatchFailure(pv, "probabilities have other users");

    Value scores, mask;
    if (auto softmax = probs.getDefiningOp<SoftmaxOp>()) {
      scores = softmax.getInput();
    } else if (auto masked = probs.getDefiningOp<MaskedSoftmaxOp>()) {
      scores = masked.getInput();
      mask = masked.getMask();
    } else {
      return rewriter.notifyMatchFailure(pv, "lhs is not a softmax");
    }

    float scale = 1.0f;
    Value unscaled = scores;
    while (Value inner = peelScale(unscaled, scale))
      unscaled = inner;

    auto qk = unscaled.getDefiningOp<MatmulOp>();
    if (!qk || !unscaled.hasOneUse())
      return rewriter.notifyMatchFailure(pv, "scores are not a single-use "
                                             "matmul");
    Value q = qk.getLhs(), k;
    if (!getElementTypeOrSelf(qk.getRhs().getType()).isF32())
      return rewriter.notifyMatchFailure(pv, "keys are not f32");
    if (qk.getTransposeB()) {
      k = qk.getRhs();
    } else {
      auto transpose = qk.getRhs().getDefiningOp<TransposeOp>();
      auto kt = dyn_cast<RankedTensorType>(qk.getRhs().getType());
      if (!transpose || !kt || !qk.getRhs().hasOneUse())
        return rewriter.notifyMatchFailure(pv, "key is not transposed");
      SmallVector<int64_t> perm =
          transpose.getEffectivePermutation(kt.getRank());
      SmallVector<int64_t> swap =
          llvm::to_vector(llvm::seq<int64_t>(0, kt.getRank()));
      std::swap(swap[kt.getRank() - 1], swap[kt.getRank() - 2]);
      if (perm != swap)
        return rewriter.notifyMatchFailure(pv, "key transpose is not a swap "
                                               "of the last two dims");
      k = transpose.getInput();
    }

    // attention needs q, k and v of one rank (no broadcast matmul operands).
    auto qt = dyn_cast<RankedTensorType>(q.getType());
    auto ktype = dyn_cast<RankedTensorType>(k.getType());
    auto vt = dyn_cast<RankedTensorType>(v.getType());
    if (!qt || !ktype || !vt || ktype.getRank() != qt.getRank() ||
        vt.getRank() != qt.getRank())
      return rewriter.notifyMatchFailure(pv, "operands of different ranks");

    bool causal = false;
    IntegerAttr window;
    if (mask && isMatchingCausalMask(mask, scores)) {
      causal = true;
      window = mask.getDefiningOp<CreateCausalMaskOp>().getWindowAttr();
      mask = nullptr;
    }

    auto attention = AttentionOp::create(
        rewriter, pv.getLoc(), pv.getType(), q, k, v, mask,
        rewriter.getF32FloatAttr(scale),
        causal ? rewriter.getUnitAttr() : UnitAttr(), window);
    rewriter.replaceOp(pv, attention.getResult());
    return success();
  }
};

struct TransformerFuseAttentionPass
    : transformer::impl::TransformerFuseAttentionPassBase<
          TransformerFuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseAttentionPattern>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
