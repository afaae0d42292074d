//===- Attention.cpp - Lower attention and create_causal_mask -------------===//
//
// attention lowers to a straightforward composition: scores = q k^T, one
// element-wise step for scale, mask and the causal rule, a masked softmax,
// and probs @ v. The fused flash-style lowering is a separate pipeline step.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "Transformer/IR/TransformerOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::lowering;

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// Whether key `j` is hidden from query `i` by the causal rule,
/// j > i + (sk - sq), or, with a `window` W, by j <= i + (sk - sq) - W.
Value isHidden(OpBuilder &b, Location loc, Value i, Value j, Value offset,
               std::optional<int64_t> window) {
  Value last = arith::AddIOp::create(b, loc, i, offset);
  Value hidden =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, j, last);
  if (!window)
    return hidden;
  Value first = arith::SubIOp::create(
      b, loc, last, arith::ConstantIndexOp::create(b, loc, *window));
  Value behind =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, j, first);
  return arith::OrIOp::create(b, loc, hidden, behind);
}

struct CreateCausalMaskLowering : OpConversionPattern<CreateCausalMaskOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CreateCausalMaskOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes = sizesOfType(rewriter, loc, type, {});
    int64_t sq = type.getDimSize(rank - 2), sk = type.getDimSize(rank - 1);
    Value offset = arith::ConstantIndexOp::create(rewriter, loc, sk - sq);
    MLIRContext *ctx = rewriter.getContext();
    Value result = buildGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, sizes), {},
        AffineMap::getMultiDimIdentityMap(rank, ctx),
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location loc, ValueRange, Value) -> Value {
          Value i = linalg::IndexOp::create(b, loc, rank - 2);
          Value j = linalg::IndexOp::create(b, loc, rank - 1);
          Value hidden = isHidden(b, loc, i, j, offset, op.getWindow());
          Value inf =
              arith::ConstantOp::create(b, loc, b.getF32FloatAttr(kNegInf));
          Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
          return arith::SelectOp::create(b, loc, hidden, inf, zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `kv` (..xHkvxSkxD) with its heads repeated to the query's `heads`:
/// query head h reads key/value head h / (heads / Hkv). The generic
/// lowering's form of grouped-query attention (the flash kernels index the
/// shared heads instead of copying them).
Value repeatHeads(OpBuilder &b, Location loc, Value kv, OpFoldResult heads) {
  auto type = cast<RankedTensorType>(kv.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < rank; ++i)
    sizes.push_back(dimSize(b, loc, kv, i));
  // max(Hkv, 1): zero heads (then the query has none either) divide by 1.
  Value kvHeads =
      b.createOrFold<arith::MaxUIOp>(loc, toIndexValue(b, loc, sizes[rank - 3]),
                                     arith::ConstantIndexOp::create(b, loc, 1));
  Value group =
      b.createOrFold<arith::DivUIOp>(loc, toIndexValue(b, loc, heads), kvHeads);
  sizes[rank - 3] = heads;
  return buildGeneric(
      b, loc, emptyTensor(b, loc, sizes), {},
      AffineMap::getMultiDimIdentityMap(rank, b.getContext()),
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location loc, ValueRange, Value) -> Value {
        SmallVector<Value> indices;
        for (int64_t i = 0; i < rank; ++i)
          indices.push_back(linalg::IndexOp::create(nb, loc, i));
        indices[rank - 3] =
            arith::DivUIOp::create(nb, loc, indices[rank - 3], group);
        return tensor::ExtractOp::create(nb, loc, kv, indices);
      });
}

/// Whether the heads of `q` and `k` may differ (grouped-query attention):
/// unless both are static and equal.
bool mayGroupHeads(Value q, Value k) {
  auto qType = cast<RankedTensorType>(q.getType());
  auto kType = cast<RankedTensorType>(k.getType());
  int64_t rank = qType.getRank();
  if (rank < 4)
    return false;
  int64_t hq = qType.getDimSize(rank - 3), hk = kType.getDimSize(rank - 3);
  return ShapedType::isDynamic(hq) || ShapedType::isDynamic(hk) || hq != hk;
}

struct AttentionLowering : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    int64_t rank = cast<RankedTensorType>(q.getType()).getRank();
    int64_t batch = rank - 2;
    auto dim = [&](Value value, int64_t i) {
      return dimSize(rewriter, loc, value, i);
    };

    // Run-time checks of what the verifier could not see.
    assertAttentionShapes(rewriter, loc, q, k, v);
    if (mayGroupHeads(q, k)) {
      OpFoldResult heads = dim(q, rank - 3);
      k = repeatHeads(rewriter, loc, k, heads);
      v = repeatHeads(rewriter, loc, v, heads);
    }

    SmallVector<OpFoldResult> batchSizes;
    for (int64_t i = 0; i < batch; ++i)
      batchSizes.push_back(dim(q, i));
    OpFoldResult sq = dim(q, rank - 2), sk = dim(k, rank - 2);
    SmallVector<OpFoldResult> scoreSizes(batchSizes);
    scoreSizes.append({sq, sk});

    // scores = q k^T: linalg.matmul / batch_matmul / contract reading k
    // transposed.
    Value scores = buildContraction(rewriter, loc, q, k, /*transposeB=*/true);
    scores = castToType(rewriter, loc, scores,
                        tensorTypeOf(rewriter.getContext(), scoreSizes),
                        "attention");

    // scale * scores + mask, with -inf above the causal diagonal (and
    // behind the window).
    Value scale;
    if (std::optional<float> s = op.getEffectiveScale())
      scale = arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getF32FloatAttr(*s));
    else
      scale = math::RsqrtOp::create(rewriter, loc,
                                    toF32(rewriter, loc, dim(q, rank - 1)));
    Value causalOffset;
    if (op.getCausal())
      causalOffset =
          arith::SubIOp::create(rewriter, loc, toIndexValue(rewriter, loc, sk),
                                toIndexValue(rewriter, loc, sq));
    SmallVector<Value> inputs = {scores};
    if (Value mask = adaptor.getMask())
      inputs.push_back(mask);
    bool hasMask = inputs.size() == 2;
    Value logits = buildElementwise(
        rewriter, loc, scoreSizes, inputs, "attention",
        [&](OpBuilder &b, Location loc, ValueRange in, Value) -> Value {
          Value x = arith::MulFOp::create(b, loc, in[0], scale);
          if (hasMask)
            x = arith::AddFOp::create(b, loc, x, in[1]);
          if (!causalOffset)
            return x;
          Value i = linalg::IndexOp::create(b, loc, rank - 2);
          Value j = linalg::IndexOp::create(b, loc, rank - 1);
          Value inf =
              arith::ConstantOp::create(b, loc, b.getF32FloatAttr(kNegInf));
          return arith::SelectOp::create(
              b, loc, isHidden(b, loc, i, j, causalOffset, op.getWindow()), inf,
              x);
        });
    Value probs = buildSoftmax(rewriter, loc, logits, scoreSizes,
                               /*zeroFullyMasked=*/true);

    // out = probs v.
    Value result = castToType(
        rewriter, loc, buildContraction(rewriter, loc, probs, v, false),
        cast<RankedTensorType>(op.getType()), "attention");
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void lowering::populateAttentionPatterns(RewritePatternSet &patterns) {
  patterns.add<CreateCausalMaskLowering, AttentionLowering>(
      patterns.getContext());
}
