//===- Normalization.cpp - Lower softmax, the norms ----------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "Transformer/IR/TransformerOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::lowering;

namespace {

/// The sizes of `op`'s result, whose shape is that of `input`. Built from
/// the declared result type, so tensors of these sizes have exactly that
/// type.
SmallVector<OpFoldResult> sizesLikeInput(OpBuilder &b, Location loc,
                                         Operation *op, Value input) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<OpFoldResult> candidates;
  for (int64_t i = 0; i < type.getRank(); ++i)
    candidates.push_back(dimSize(b, loc, input, i));
  SmallVector<OpFoldResult> sizes = sizesOfType(b, loc, type, candidates);
  // The declared type may pin a dim that the input leaves dynamic.
  assertBroadcastable(b, loc, input, sizes,
                      "transformer." + op->getName().stripDialect() +
                          ": input");
  return sizes;
}

struct SoftmaxLowering : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes =
        sizesLikeInput(rewriter, loc, op, adaptor.getInput());
    // Upstream's linalg.softmax has the semantics of the op (a row of -inf
    // or with a NaN gives NaN, as numpy does); the pipeline decomposes it.
    // masked_softmax needs zeros for fully masked rows, which it does not
    // give, so that one is built from a reduction and generics.
    RankedTensorType type = tensorTypeOf(rewriter.getContext(), sizes);
    Value input = adaptor.getInput();
    if (input.getType() != type)
      input = tensor::CastOp::create(rewriter, loc, type, input);
    Value result =
        linalg::SoftmaxOp::create(rewriter, loc, TypeRange{type}, input,
                                  emptyTensor(rewriter, loc, sizes),
                                  static_cast<uint64_t>(sizes.size() - 1))
            .getResult()[0];
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct MaskedSoftmaxLowering : OpConversionPattern<MaskedSoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MaskedSoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes =
        sizesLikeInput(rewriter, loc, op, adaptor.getInput());
    Value masked = buildElementwise(
        rewriter, loc, sizes, {adaptor.getInput(), adaptor.getMask()},
        "masked_softmax",
        [](OpBuilder &b, Location loc, ValueRange in, Value) -> Value {
          return arith::AddFOp::create(b, loc, in[0], in[1]);
        });
    Value result =
        buildSoftmax(rewriter, loc, masked, sizes, /*zeroFullyMasked=*/true);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The maps and iterators of a normalisation over the last of `rank` dims:
/// the element, its row, its column (a gamma or beta); all loops parallel,
/// or the last a reduction.
struct RowNormMaps {
  RowNormMaps(MLIRContext *ctx, int64_t rank)
      : identity(AffineMap::getMultiDimIdentityMap(rank, ctx)),
        rows(rowMap(ctx, rank)),
        lastDim(AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx), ctx)),
        parallel(rank, utils::IteratorType::parallel), reduceLast(parallel) {
    reduceLast.back() = utils::IteratorType::reduction;
  }
  AffineMap identity, rows, lastDim;
  SmallVector<utils::IteratorType> parallel, reduceLast;
};

/// Checks at run time that the rank-1 `param` (gamma, beta) of `opName`
/// has the input's last dimension `d`.
void assertParamSize(OpBuilder &b, Location loc, StringRef opName,
                     StringRef name, Value param, OpFoldResult d) {
  assertEqualSizes(b, loc, dimSize(b, loc, param, 0), d,
                   "transformer." + opName + ": the size of " + name +
                       " differs from the last dimension of the input",
                   name, "D");
}

/// (x - mean) * rsqrt(var + eps) * gamma + beta, with the biased variance.
struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    SmallVector<OpFoldResult> sizes = sizesLikeInput(rewriter, loc, op, x);
    int64_t rank = sizes.size();
    for (auto [name, param] :
         {std::pair<StringRef, Value>{"gamma", adaptor.getGamma()},
          {"beta", adaptor.getBeta()}})
      assertParamSize(rewriter, loc, "layer_norm", name, param, sizes.back());

    Value count = toF32(rewriter, loc, sizes.back());
    Value epsilon =
        arith::ConstantOp::create(rewriter, loc, op.getEpsilonAttr());
    RowNormMaps m(ctx, rank);
    auto add = [](OpBuilder &b, Location loc, ValueRange in, Value acc) {
      return arith::AddFOp::create(b, loc, in[0], acc).getResult();
    };
    // Divides each row total by D.
    auto perRow = [&](Value totals) {
      SmallVector<OpFoldResult> rowSizes(ArrayRef(sizes).drop_back());
      return linalg::MapOp::create(
                 rewriter, loc, ValueRange{totals},
                 emptyTensor(rewriter, loc, rowSizes),
                 [&](OpBuilder &b, Location loc, ValueRange in) {
                   linalg::YieldOp::create(
                       b, loc,
                       arith::DivFOp::create(b, loc, in[0], count).getResult());
                 })
          ->getResult(0);
    };

    Value mean = perRow(reduceLastDim(rewriter, loc, x, sizes, 0.0f, add));
    Value sumSq = buildGeneric(
        rewriter, loc,
        filledTensor(rewriter, loc, ArrayRef(sizes).drop_back(), 0.0f),
        {{x, m.identity}, {mean, m.rows}}, m.rows, m.reduceLast,
        [](OpBuilder &b, Location loc, ValueRange in, Value acc) -> Value {
          Value diff = arith::SubFOp::create(b, loc, in[0], in[1]);
          Value sq = arith::MulFOp::create(b, loc, diff, diff);
          return arith::AddFOp::create(b, loc, acc, sq);
        });
    Value variance = perRow(sumSq);
    Value result = buildGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, sizes),
        {{x, m.identity},
         {mean, m.rows},
         {variance, m.rows},
         {adaptor.getGamma(), m.lastDim},
         {adaptor.getBeta(), m.lastDim}},
        m.identity, m.parallel,
        [&](OpBuilder &b, Location loc, ValueRange in, Value) -> Value {
          Value centered = arith::SubFOp::create(b, loc, in[0], in[1]);
          Value denom = math::RsqrtOp::create(
              b, loc, arith::AddFOp::create(b, loc, in[2], epsilon));
          Value normed = arith::MulFOp::create(b, loc, centered, denom);
          Value scaled = arith::MulFOp::create(b, loc, normed, in[3]);
          return arith::AddFOp::create(b, loc, scaled, in[4]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
/// x * rsqrt(mean(x^2) + eps) * gamma, in Hugging Face's order of
/// operations (the normalised row, then the weight).
struct RmsNormLowering : OpConversionPattern<RmsNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RmsNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    SmallVector<OpFoldResult> sizes = sizesLikeInput(rewriter, loc, op, x);
    int64_t rank = sizes.size();
    assertParamSize(rewriter, loc, "rms_norm", "gamma", adaptor.getGamma(),
                    sizes.back());

    Value count = toF32(rewriter, loc, sizes.back());
    Value epsilon =
        arith::ConstantOp::create(rewriter, loc, op.getEpsilonAttr());
    RowNormMaps m(ctx, rank);

    Value sumSq = buildGeneric(
        rewriter, loc,
        filledTensor(rewriter, loc, ArrayRef(sizes).drop_back(), 0.0f),
        {{x, m.identity}}, m.rows, m.reduceLast,
        [](OpBuilder &b, Location loc, ValueRange in, Value acc) -> Value {
          Value sq = arith::MulFOp::create(b, loc, in[0], in[0]);
          return arith::AddFOp::create(b, loc, acc, sq);
        });
    Value result = buildGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, sizes),
        {{x, m.identity}, {sumSq, m.rows}, {adaptor.getGamma(), m.lastDim}},
        m.identity, m.parallel,
        [&](OpBuilder &b, Location loc, ValueRange in, Value) -> Value {
          Value meanSq = arith::DivFOp::create(b, loc, in[1], count);
          Value denom = math::RsqrtOp::create(
              b, loc, arith::AddFOp::create(b, loc, meanSq, epsilon));
          Value normed = arith::MulFOp::create(b, loc, in[0], denom);
          return arith::MulFOp::create(b, loc, normed, in[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void lowering::populateNormalizationPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering, MaskedSoftmaxLowering, LayerNormLowering,
               RmsNormLowering>(patterns.getContext());
}
