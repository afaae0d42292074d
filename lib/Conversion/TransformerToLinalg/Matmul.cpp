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

/// matmul: linalg.matmul / linalg.batch_matmul (buildContraction), after
/// the run-time checks of the dims the verifier could not compare.
struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    int64_t rank = cast<RankedTensorType>(lhs.getType()).getRank();
    int64_t rhsRank = cast<RankedTensorType>(rhs.getType()).getRank();
    bool transposeB = op.getTransposeB();
    int64_t kRhs = transposeB ? rhsRank - 1 : rhsRank - 2;
    assertEqualSizes(rewriter, loc, dimSize(rewriter, loc, lhs, rank - 1),
                     dimSize(rewriter, loc, rhs, kRhs),
                     "transformer.matmul: the inner dimensions of lhs and "
                     "rhs differ",
                     "lhs K", "rhs K");
    if (rhsRank == rank)
      for (int64_t i = 0; i + 2 < rank; ++i)
        assertEqualSizes(rewriter, loc, dimSize(rewriter, loc, lhs, i),
                         dimSize(rewriter, loc, rhs, i),
                         "transformer.matmul: batch dimension " + Twine(i) +
                             " of lhs and rhs differ",
                         "lhs", "rhs");
    Value product = buildContraction(rewriter, loc, lhs, rhs, transposeB);
    rewriter.replaceOp(op, castToType(rewriter, loc, product,
                                      cast<RankedTensorType>(op.getType()),
                                      "matmul"));
    return success();
  }
};

/// linear: x @ w^T + b as a linalg.matmul (linalg.matvec for a rank-1 x)
/// whose accumulator is the bias broadcast over the rows.
struct LinearLowering : OpConversionPattern<LinearOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
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
    // The bias, as a tensor of N from the weight, broadcast to `sizes`.
    auto broadcastBias = [&](ArrayRef<OpFoldResult> sizes) -> Value {
      std::optional<int64_t> n = getConstantIntValue(sizes.back());
      auto biasType = RankedTensorType::get({n ? *n : ShapedType::kDynamic},
                                            rewriter.getF32Type());
      Value typedBias = castToType(rewriter, loc, bias, biasType, "linear");
      SmallVector<int64_t> rows;
      for (int64_t i = 0; i + 1 < static_cast<int64_t>(sizes.size()); ++i)
        rows.push_back(i);
      return linalg::BroadcastOp::create(rewriter, loc, typedBias,
                                         emptyTensor(rewriter, loc, sizes),
                                         rows)
          ->getResult(0);
    };
    Value result;
    if (rank == 1) {
      Value init = broadcastBias({dimSize(rewriter, loc, w, 0)});
      result =
          linalg::MatvecOp::create(rewriter, loc, TypeRange{init.getType()},
                                   ValueRange{w, x}, ValueRange{init})
              ->getResult(0);
    } else {
      result = buildContraction(rewriter, loc, x, w, /*transposeB=*/true,
                                broadcastBias);
    }
    rewriter.replaceOp(op, castToType(rewriter, loc, result,
                                      cast<RankedTensorType>(op.getType()),
                                      "linear"));
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
