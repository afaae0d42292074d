//===- Dequantize.cpp - Lower transformer.dequantize ----------------------===//

#include "Transformer/Conversion/TransformerToLinalg/Dequantize.h"

#include "LoweringUtils.h"
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::lowering;

std::optional<DequantizedWeight>
transformer::getDequantizedWeight(Value value) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic)
    return std::nullopt;
  auto name = generic->getAttrOfType<StringAttr>(kDequantizeAttrName);
  if (!name)
    return std::nullopt;
  std::optional<BlockFormat> format = symbolizeBlockFormat(name.getValue());
  if (!format)
    return std::nullopt;
  // Every element read in the body comes from the blocks.
  Value blocks;
  generic.getBody()->walk([&](tensor::ExtractOp extract) {
    blocks = extract.getTensor();
    return WalkResult::interrupt();
  });
  // What the kernels assume of the blocks (the verifier's rules).
  auto type =
      dyn_cast_or_null<RankedTensorType>(blocks ? blocks.getType() : Type());
  auto result = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !result || !type.getElementType().isInteger(8) ||
      type.getRank() != result.getRank() + 1 ||
      type.getShape().back() != getBlockBytes(*format))
    return std::nullopt;
  return DequantizedWeight{blocks, *format};
}

Value transformer::buildDequantizedElement(OpBuilder &b, Location loc,
                                           Value blocks, BlockFormat format,
                                           ValueRange rowIndices,
                                           Value column) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Type i8 = b.getI8Type(), i16 = b.getI16Type(), f32 = b.getF32Type();
  Value blockSize = index(kQuantBlockSize);
  Value block = arith::DivUIOp::create(b, loc, column, blockSize);
  Value inBlock = arith::RemUIOp::create(b, loc, column, blockSize);
  auto byteAt = [&](Value offset) -> Value {
    SmallVector<Value> at(rowIndices);
    at.push_back(block);
    at.push_back(offset);
    return tensor::ExtractOp::create(b, loc, blocks, at);
  };
  // The scale: an f16, little-endian, in the block's first two bytes.
  Value low = arith::ExtUIOp::create(b, loc, i16, byteAt(index(0)));
  Value high = arith::ExtUIOp::create(b, loc, i16, byteAt(index(1)));
  Value bits = arith::OrIOp::create(
      b, loc, low,
      arith::ShLIOp::create(b, loc, high,
                            arith::ConstantIntOp::create(b, loc, i16, 8)));
  Value half = arith::BitcastOp::create(b, loc, b.getF16Type(), bits);
  Value scale = arith::ExtFOp::create(b, loc, f32, half);
  Value quantized;
  switch (format) {
  case BlockFormat::q8_0:
    quantized = byteAt(arith::AddIOp::create(b, loc, inBlock, index(2)));
    break;
  case BlockFormat::q4_0: {
    // Byte j holds elements j (low nibble) and j + 16 (high nibble), + 8.
    Value halfBlock = index(kQuantBlockSize / 2);
    Value byte = byteAt(arith::AddIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, inBlock, halfBlock), index(2)));
    Value shift = arith::IndexCastOp::create(
        b, loc, i8,
        arith::MulIOp::create(
            b, loc, arith::DivUIOp::create(b, loc, inBlock, halfBlock),
            index(4)));
    Value nibble = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, byte, shift),
        arith::ConstantIntOp::create(b, loc, i8, 15));
    quantized = arith::SubIOp::create(
        b, loc, nibble, arith::ConstantIntOp::create(b, loc, i8, 8));
    break;
  }
  }
  Value value = arith::SIToFPOp::create(b, loc, f32, quantized);
  return arith::MulFOp::create(b, loc, scale, value);
}

namespace {

/// A linalg.generic over the result, each element computed from its block
/// (buildDequantizedElement) and tagged with the format, so that the CPU
/// codegen can read the blocks in its kernels instead.
struct DequantizeLowering : OpConversionPattern<DequantizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DequantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkRankedTypes(op)))
      return failure();
    Location loc = op.getLoc();
    Value blocks = adaptor.getInput();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank();
    SmallVector<OpFoldResult> candidates;
    for (int64_t i = 0; i < rank - 1; ++i)
      candidates.push_back(dimSize(rewriter, loc, blocks, i));
    OpFoldResult blockCount = dimSize(rewriter, loc, blocks, rank - 1);
    // Only used (and only folded away otherwise) when the rows are dynamic.
    candidates.push_back(rewriter.createOrFold<arith::MulIOp>(
        loc, toIndexValue(rewriter, loc, blockCount),
        arith::ConstantIndexOp::create(rewriter, loc, kQuantBlockSize)));
    // A static result dimension over a dynamic input one is checked at run
    // time: the kernels read the blocks by the result's sizes.
    for (int64_t i = 0; i < rank; ++i)
      if (!resultType.isDynamicDim(i))
        assertEqualSizes(rewriter, loc, candidates[i],
                         rewriter.getIndexAttr(resultType.getDimSize(i)),
                         "transformer.dequantize: the blocks do not make the "
                         "declared result's dimension " +
                             Twine(i),
                         "from the blocks", "declared");
    SmallVector<OpFoldResult> sizes =
        sizesOfType(rewriter, loc, resultType, candidates);
    BlockFormat format = op.getFormat();
    AffineMap identity =
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext());
    Value result = buildGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, sizes), {}, identity,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location loc, ValueRange, Value) -> Value {
          SmallVector<Value> rows;
          for (int64_t i = 0; i < rank - 1; ++i)
            rows.push_back(linalg::IndexOp::create(b, loc, i));
          Value column = linalg::IndexOp::create(b, loc, rank - 1);
          return buildDequantizedElement(b, loc, blocks, format, rows, column);
        });
    result.getDefiningOp()->setAttr(
        kDequantizeAttrName,
        rewriter.getStringAttr(stringifyBlockFormat(format)));
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void lowering::populateDequantizePatterns(RewritePatternSet &patterns) {
  patterns.add<DequantizeLowering>(patterns.getContext());
}
