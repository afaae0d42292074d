//===- Matmul.cpp - Lower matmul, linear and transpose --------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "Transformer/IR/TransformerOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::lowering;

namespace {

/// acc + a * b, the body of every contraction.
Value multiplyAccumulate(OpBuilder &b, Location loc, ValueRange in,
                         Value acc) {
  Value product = arith::MulFOp::create(b, loc, in[0], in[1]);
  return arith::AddFOp::create(b, loc, acc, product);
}

SmallVector<utils::IteratorType> contractionIterators(int64_t parallelLoops) {
  SmallVector<utils::IteratorType> iterators(parallelLoops,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  return iterators;
}

/// matmul: loops (batch..., m, n, k).
struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    int64_t rank = cast<RankedTensorType>(lhs.getType()).getRank();
    int64_t rhsRank = cast<RankedTensorType>(rhs.getType()).getRank();
    bool transposeB = op.getTransposeB();
    int64_t batch = rank - 2;
    bool broadcastRhs = rhsRank != rank;

    int64_t kRhs = transposeB ? rhsRank - 1 : rhsRank - 2;
    int64_t nRhs = transposeB ? rhsRank - 2 : rhsRank - 1;
    assertEqualSizes(rewriter, loc, dimSize(rewriter, loc, lhs, rank - 1),
                     dimSize(rewriter, loc, rhs, kRhs),
                     "transformer.matmul: the inner dimensions of lhs and "
                     "rhs differ",
                     "lhs K", "rhs K");
    SmallVector<OpFoldResult> candidates;
    for (int64_t i = 0; i < batch; ++i) {
      OpFoldResult size = dimSize(rewriter, loc, lhs, i);
      if (!broadcastRhs)
        assertEqualSizes(rewriter, loc, size, dimSize(rewriter, loc, rhs, i),
                         "transformer.matmul: batch dimension " + Twine(i) +
                             " of lhs and rhs differ",
                         "lhs", "rhs");
      candidates.push_back(size);
    }
    candidates.push_back(dimSize(rewriter, loc, lhs, rank - 2));
    candidates.push_back(dimSize(rewriter, loc, rhs, nRhs));
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> sizes =
        sizesOfType(rewriter, loc, resultType, candidates);

    // Loop dims: d0..d(batch-1), m, n, k.
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    int64_t m = batch, n = batch + 1, k = batch + 2;
    SmallVector<AffineExpr> lhsExprs, rhsExprs, outExprs;
    for (int64_t i = 0; i < batch; ++i) {
      lhsExprs.push_back(d(i));
      outExprs.push_back(d(i));
      if (!broadcastRhs)
        rhsExprs.push_back(d(i));
    }
    lhsExprs.append({d(m), d(k)});
    if (transposeB)
      rhsExprs.append({d(n), d(k)});
    else
      rhsExprs.append({d(k), d(n)});
    outExprs.append({d(m), d(n)});
    int64_t loops = rank + 1;
    Value init = filledTensor(rewriter, loc, sizes, 0.0f);
    Value result = buildGeneric(
        rewriter, loc, init,
        {{lhs, AffineMap::get(loops, 0, lhsExprs, ctx)},
         {rhs, AffineMap::get(loops, 0, rhsExprs, ctx)}},
        AffineMap::get(loops, 0, outExprs, ctx), contractionIterators(rank),
        multiplyAccumulate);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// linear: out[.., n] = b[n] + sum_k x[.., k] * w[n, k].
struct LinearLowering : OpConversionPattern<LinearOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput(), w = adaptor.getWeight(),
          bias = adaptor.getBias();
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    assertEqualSizes(rewriter, loc, dimSize(rewriter, loc, x, rank - 1),
                     dimSize(rewriter, loc, w, 1),
                     "transformer.linear: the last dimension of the input "
                     "differs from K of the weight",
                     "input K", "weight K");
    assertEqualSizes(rewriter, loc, dimSize(rewriter, loc, w, 0),
                     dimSize(rewriter, loc, bias, 0),
                     "transformer.linear: the bias size differs from N of "
                     "the weight",
                     "weight N", "bias N");
    SmallVector<OpFoldResult> candidates;
    for (int64_t i = 0; i < rank - 1; ++i)
      candidates.push_back(dimSize(rewriter, loc, x, i));
    candidates.push_back(dimSize(rewriter, loc, w, 0));
    SmallVector<OpFoldResult> sizes = sizesOfType(
        rewriter, loc, cast<RankedTensorType>(op.getType()), candidates);

    // Start from the bias broadcast over the rows.
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap lastDim =
        AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx), ctx);
    Value init = buildGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, sizes), {{bias, lastDim}},
        identity,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &, Location, ValueRange in, Value) { return in[0]; });

    // Loop dims: rows d0..d(rank-2), n = d(rank-1), k = d(rank).
    int64_t loops = rank + 1;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> xExprs, outExprs;
    for (int64_t i = 0; i < rank - 1; ++i) {
      xExprs.push_back(d(i));
      outExprs.push_back(d(i));
    }
    xExprs.push_back(d(rank));
    outExprs.push_back(d(rank - 1));
    Value result = buildGeneric(
        rewriter, loc, init,
        {{x, AffineMap::get(loops, 0, xExprs, ctx)},
         {w, AffineMap::get(loops, 0, {d(rank - 1), d(rank)}, ctx)}},
        AffineMap::get(loops, 0, outExprs, ctx), contractionIterators(rank),
        multiplyAccumulate);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    SmallVector<int64_t> perm = op.getEffectivePermutation(rank);
    SmallVector<OpFoldResult> sizes;
    for (int64_t p : perm)
      sizes.push_back(dimSize(rewriter, loc, input, p));
    Value init = emptyTensor(rewriter, loc, sizes);
    Value transposed =
        linalg::TransposeOp::create(rewriter, loc, input, init, perm)
            .getResult()[0];
    rewriter.replaceOp(op, castToType(rewriter, loc, transposed,
                                      cast<RankedTensorType>(op.getType()),
                                      "transpose"));
    return success();
  }
};
} // namespace

void lowering::populateMatmulPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulLowering, LinearLowering, TransposeLowering>(
      patterns.getContext());
}
