//===- Embedding.cpp - Lower embedding and rope ---------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "Transformer/Conversion/TransformerToLinalg/Dequantize.h"
#include "Transformer/IR/TransformerOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::lowering;

namespace {

/// Reduces every element of the integer tensor `ids` to one scalar with
/// `combine`, starting from `init`.
Value reduceAll(
    OpBuilder &b, Location loc, Value ids, int64_t init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(ids.getType());
  Type intType = type.getElementType();
  Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, intType);
  Value initValue =
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(intType, init));
  Value acc = linalg::FillOp::create(b, loc, initValue, empty).getResult(0);
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  Value reduced =
      linalg::ReduceOp::create(
          b, loc, ids, acc, dims,
          [&](OpBuilder &b, Location loc, ValueRange args) {
            linalg::YieldOp::create(b, loc, combine(b, loc, args[0], args[1]));
          })
          ->getResult(0);
  return tensor::ExtractOp::create(b, loc, reduced, ValueRange{});
}

/// out[.., d] = table[ids[..], d], after checking every id is in [0, V).
struct EmbeddingLowering : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value ids = adaptor.getIds(), table = adaptor.getTable();
    // A dequantized table: the rows gathered are expanded from their blocks,
    // with no f32 copy of the table.
    auto dequantize = op.getTable().getDefiningOp<DequantizeOp>();
    if (dequantize && !isa<RankedTensorType>(dequantize.getInput().getType()))
      dequantize = nullptr;
    auto idsType = cast<RankedTensorType>(ids.getType());
    auto intType = cast<IntegerType>(idsType.getElementType());
    int64_t rank = idsType.getRank();

    // The bounds check: min(ids) >= 0 and max(ids) < V.
    unsigned width = intType.getWidth();
    Value minId = reduceAll(
        rewriter, loc, ids, APInt::getSignedMaxValue(width).getSExtValue(),
        [](OpBuilder &b, Location loc, Value x, Value acc) -> Value {
          return arith::MinSIOp::create(b, loc, x, acc);
        });
    Value maxId = reduceAll(
        rewriter, loc, ids, APInt::getSignedMinValue(width).getSExtValue(),
        [](OpBuilder &b, Location loc, Value x, Value acc) -> Value {
          return arith::MaxSIOp::create(b, loc, x, acc);
        });
    Value vocab = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getI64Type(),
        toIndexValue(rewriter, loc,
                     dimSize(rewriter, loc,
                             dequantize ? dequantize.getInput() : table, 0)));
    auto toI64 = [&](Value id) -> Value {
      if (width == 64)
        return id;
      return arith::ExtSIOp::create(rewriter, loc, rewriter.getI64Type(), id);
    };
    Value minI64 = toI64(minId), maxI64 = toI64(maxId);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
    Value inRange = arith::AndIOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge, minI64,
                              zero),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, maxI64,
                              vocab));
    emitRuntimeCheck(rewriter, loc, inRange,
                     "transformer.embedding: a token id is outside [0, V) "
                     "of the table",
                     {{"min id", minI64}, {"max id", maxI64}, {"V", vocab}});

    SmallVector<OpFoldResult> candidates;
    for (int64_t i = 0; i < rank; ++i)
      candidates.push_back(dimSize(rewriter, loc, ids, i));
    candidates.push_back(dimSize(rewriter, loc, table, 1));
    SmallVector<OpFoldResult> sizes = sizesOfType(
        rewriter, loc, cast<RankedTensorType>(op.getType()), candidates);
    Value result = buildGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, sizes),
        {{ids, AffineMap::getMultiDimIdentityMap(rank + 1, ctx)
                   .getMajorSubMap(rank)}},
        AffineMap::getMultiDimIdentityMap(rank + 1, ctx),
        SmallVector<utils::IteratorType>(rank + 1,
                                         utils::IteratorType::parallel),
        [&](OpBuilder &b, Location loc, ValueRange in, Value) -> Value {
          Value row =
              arith::IndexCastOp::create(b, loc, b.getIndexType(), in[0]);
          Value col = linalg::IndexOp::create(b, loc, rank);
          if (dequantize)
            return buildDequantizedElement(b, loc, dequantize.getInput(),
                                           dequantize.getFormat(), row, col);
          Value element =
              tensor::ExtractOp::create(b, loc, table, ValueRange{row, col});
          if (element.getType().isF32())
            return element;
          return arith::ExtFOp::create(b, loc, b.getF32Type(), element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Rotates pairs (x[2j], x[2j+1]), or (x[j], x[j + D/2]) with rotate_half,
/// of the row at position p by p * theta_j: theta_j = base^(-2j/D), or
/// freqs[j]. The cos and sin of p * theta_j come from a table of
/// [positions, D/2] made first.
struct RopeLowering : OpConversionPattern<RopeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RopeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    SmallVector<OpFoldResult> candidates;
    for (int64_t i = 0; i < rank; ++i)
      candidates.push_back(dimSize(rewriter, loc, x, i));
    SmallVector<OpFoldResult> sizes = sizesOfType(
        rewriter, loc, cast<RankedTensorType>(op.getType()), candidates);
    assertBroadcastable(rewriter, loc, x, sizes, "transformer.rope: input");

    Value cZero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value cOne = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value dimD = toIndexValue(rewriter, loc, sizes.back());
    if (!getConstantIntValue(sizes.back())) {
      Value two = arith::ConstantIndexOp::create(rewriter, loc, 2);
      Value odd = arith::RemUIOp::create(rewriter, loc, dimD, two);
      emitRuntimeCheck(rewriter, loc,
                       arith::CmpIOp::create(
                           rewriter, loc, arith::CmpIPredicate::eq, odd, cZero),
                       "transformer.rope: the last dimension must be even",
                       {{"D", dimD}});
    }
    Value offset = adaptor.getOffset();
    if (offset)
      emitRuntimeCheck(rewriter, loc,
                       arith::CmpIOp::create(rewriter, loc,
                                             arith::CmpIPredicate::sge, offset,
                                             cZero),
                       "transformer.rope: the position offset is negative",
                       {{"offset", offset}});
    else
      offset = cZero;
    Value sizeD = toF32(rewriter, loc, sizes.back());
    Value base = arith::ConstantOp::create(rewriter, loc, op.getBaseAttr());
    Value half = rewriter.createOrFold<arith::DivUIOp>(
        loc, dimD, arith::ConstantIndexOp::create(rewriter, loc, 2));
    Value freqs = adaptor.getFreqs();
    if (freqs)
      assertEqualSizes(rewriter, loc, dimSize(rewriter, loc, freqs, 0), half,
                       "transformer.rope: freqs must have D/2 entries", "freqs",
                       "D/2");
    bool rotateHalf = op.getRotateHalf();

    auto toF32Value = [](OpBuilder &b, Location loc, Value index) -> Value {
      Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
      return arith::SIToFPOp::create(b, loc, b.getF32Type(), i64);
    };
    // cos and sin of each position's angles, once per position and pair:
    // every head and batch at a position shares them (computed per element,
    // they were 2% of a Qwen2.5-0.5B prefill).
    SmallVector<OpFoldResult> tableSizes = {sizes[rank - 2],
                                            getAsOpFoldResult(half)};
    Value cosInit = emptyTensor(rewriter, loc, tableSizes);
    Value sinInit = emptyTensor(rewriter, loc, tableSizes);
    AffineMap tableMap = AffineMap::getMultiDimIdentityMap(2, ctx);
    auto table = linalg::GenericOp::create(
        rewriter, loc, TypeRange{cosInit.getType(), sinInit.getType()},
        ValueRange{}, ValueRange{cosInit, sinInit},
        ArrayRef<AffineMap>{tableMap, tableMap},
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location loc, ValueRange) {
          Value p = linalg::IndexOp::create(b, loc, 0);
          Value j = linalg::IndexOp::create(b, loc, 1);
          Value theta;
          if (freqs) {
            theta = tensor::ExtractOp::create(b, loc, freqs, ValueRange{j});
          } else {
            // theta = base^(-(2j)/D).
            Value twoJ = arith::AddIOp::create(b, loc, j, j);
            Value exponent = arith::NegFOp::create(
                b, loc,
                arith::DivFOp::create(b, loc, toF32Value(b, loc, twoJ), sizeD));
            theta = math::PowFOp::create(b, loc, base, exponent);
          }
          Value pos = arith::AddIOp::create(b, loc, p, offset);
          Value angle =
              arith::MulFOp::create(b, loc, toF32Value(b, loc, pos), theta);
          linalg::YieldOp::create(
              b, loc,
              ValueRange{math::CosOp::create(b, loc, angle),
                         math::SinOp::create(b, loc, angle)});
        });
    Value cosTable = table.getResult(0), sinTable = table.getResult(1);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value result = buildGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, sizes), {{x, identity}},
        identity,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location loc, ValueRange in, Value) -> Value {
          SmallVector<Value> indices;
          for (int64_t i = 0; i < rank; ++i)
            indices.push_back(linalg::IndexOp::create(b, loc, i));
          Value d = indices.back();
          // The pair's index j, its other element, and whether d is the
          // pair's first element.
          Value j, isFirst;
          if (rotateHalf) {
            isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            d, half);
            Value upper = arith::AddIOp::create(b, loc, d, half);
            Value lower = arith::SubIOp::create(b, loc, d, half);
            indices.back() =
                arith::SelectOp::create(b, loc, isFirst, upper, lower);
            j = arith::SelectOp::create(b, loc, isFirst, d, lower);
          } else {
            Value parity = arith::AndIOp::create(b, loc, d, cOne);
            isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            parity, cZero);
            indices.back() = arith::XOrIOp::create(b, loc, d, cOne);
            j = arith::ShRUIOp::create(b, loc, d, cOne);
          }
          Value partner = tensor::ExtractOp::create(b, loc, x, indices);
          SmallVector<Value> at = {indices[rank - 2], j};
          Value cos = tensor::ExtractOp::create(b, loc, cosTable, at);
          Value sin = tensor::ExtractOp::create(b, loc, sinTable, at);
          // first element: x cos - partner sin; second: x cos + partner sin.
          Value signedPartner = arith::SelectOp::create(
              b, loc, isFirst, arith::NegFOp::create(b, loc, partner), partner);
          return arith::AddFOp::create(
              b, loc, arith::MulFOp::create(b, loc, in[0], cos),
              arith::MulFOp::create(b, loc, signedPartner, sin));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void lowering::populateEmbeddingPatterns(RewritePatternSet &patterns) {
  patterns.add<EmbeddingLowering, RopeLowering>(patterns.getContext());
}
