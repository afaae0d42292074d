//===- QuantizedBlocks.cpp - Reading ggml blocks in vector code -----------===//

#include "QuantizedBlocks.h"

#include "Panels.h"

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"
#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::transformer;

namespace {
/// Rows of the weight per task of the threads in
/// buildTransposedDequantizeKernel.
constexpr int64_t kRowsPerTask = 64;

Value index(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// `count` bytes of block `block` of row `row` from byte `offset` on.
Value readBytes(OpBuilder &b, Location loc, Value blocks, Value row,
                Value block, int64_t offset, int64_t count) {
  Type i8 = b.getI8Type();
  Value padding = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i8, 0));
  return vector::TransferReadOp::create(
      b, loc, VectorType::get({count}, i8), blocks,
      ValueRange{row, block, index(b, loc, offset)}, padding,
      ArrayRef<bool>{true});
}
} // namespace

Value transformer::readBlockScale(OpBuilder &b, Location loc, Value blocks,
                                  Value row, Value block, int64_t lanes) {
  Value bytes = readBytes(b, loc, blocks, row, block, 0, 2);
  Type f16 = b.getF16Type();
  Value half =
      vector::BitCastOp::create(b, loc, VectorType::get({1}, f16), bytes);
  // Broadcast as f16, then widened: x86 loads and splats the two bytes in
  // one instruction (vpbroadcastw) and converts the vector (vcvtph2ps),
  // where a scalar conversion takes an insert, a conversion and a
  // broadcast.
  Value splat = vector::BroadcastOp::create(
      b, loc, VectorType::get({lanes}, f16),
      vector::ExtractOp::create(b, loc, half, ArrayRef<int64_t>{0}));
  return arith::ExtFOp::create(b, loc, VectorType::get({lanes}, b.getF32Type()),
                               splat);
}

SmallVector<Value> transformer::readBlockValues(OpBuilder &b, Location loc,
                                                Value blocks,
                                                BlockFormat format, Value row,
                                                Value block, int64_t lanes,
                                                int64_t *offset) {
  auto f32Type = VectorType::get({lanes}, b.getF32Type());
  SmallVector<Value> quantized;
  if (offset)
    *offset = 0;
  switch (format) {
  case BlockFormat::q8_0:
    for (int64_t at = 0; at < kQuantBlockSize; at += lanes)
      quantized.push_back(readBytes(b, loc, blocks, row, block, 2 + at, lanes));
    break;
  case BlockFormat::q4_0: {
    // Byte j: element j in the low nibble, element j + 16 in the high one,
    // each stored as q + 8. The bytes are widened to i32 first: one
    // zero-extending load then serves both nibbles (x86's vpmovzxbd from
    // memory), where splitting them as bytes widens each half apart.
    constexpr int64_t half = kQuantBlockSize / 2;
    auto wideType = VectorType::get({half}, b.getI32Type());
    auto splat = [&](int32_t value) -> Value {
      return arith::ConstantOp::create(
          b, loc, wideType,
          DenseElementsAttr::get(wideType, b.getI32IntegerAttr(value)));
    };
    Value bytes = arith::ExtUIOp::create(
        b, loc, wideType, readBytes(b, loc, blocks, row, block, 2, half));
    Value low = arith::AndIOp::create(b, loc, bytes, splat(15));
    Value high = arith::ShRUIOp::create(b, loc, bytes, splat(4));
    if (offset)
      *offset = 8;
    for (Value nibbles : {low, high}) {
      Value centred =
          offset ? nibbles
                 : arith::SubIOp::create(b, loc, nibbles, splat(8)).getResult();
      for (int64_t at = 0; at < half; at += lanes)
        quantized.push_back(
            lanes == half ? centred
                          : vector::ExtractStridedSliceOp::create(
                                b, loc, centred, ArrayRef<int64_t>{at},
                                ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1})
                                .getResult());
    }
    break;
  }
  }
  // Q8_0's signed bytes and Q4_0's i32 values (0 to 15, or -8 to 7) are
  // all exact as signed integers.
  SmallVector<Value> values;
  for (Value q : quantized)
    values.push_back(arith::SIToFPOp::create(b, loc, f32Type, q));
  return values;
}

namespace {
/// Dequantizes block `block` (of 32 along k) of the `lanes` weight rows from
/// `firstRow` (each clamped to `lastRow` when that is given) and writes it
/// transposed into `out`: element j of row r at (`kStart` + j, `column` + r),
/// or, when `out` is panels [n / w, k, w] (rank 3; w a multiple of `lanes`),
/// at (`column` / w, `kStart` + j, `column` mod w + r). The rows are widened
/// and scaled in registers, then transposed there (`lanes` x `lanes` tiles)
/// and stored as `lanes`-wide rows of k; the stores are masked past `out`'s
/// columns unless `inBounds`.
Value writeTransposedBlock(OpBuilder &b, Location loc,
                           const DequantizedWeight &weight, Value out,
                           Value firstRow, Value lastRow, Value block,
                           Value kStart, Value column, int64_t lanes,
                           bool inBounds) {
  // values[r][j]: elements j*lanes.. of the block of row r.
  SmallVector<SmallVector<Value>> values;
  for (int64_t r = 0; r < lanes; ++r) {
    Value row = arith::AddIOp::create(b, loc, firstRow, index(b, loc, r));
    if (lastRow)
      row = arith::MinUIOp::create(b, loc, row, lastRow);
    Value scale = readBlockScale(b, loc, weight.blocks, row, block, lanes);
    SmallVector<Value> scaled;
    for (Value v : readBlockValues(b, loc, weight.blocks, weight.format, row,
                                   block, lanes))
      scaled.push_back(arith::MulFOp::create(b, loc, v, scale));
    values.push_back(scaled);
  }
  auto outType = cast<RankedTensorType>(out.getType());
  Value panel;
  if (outType.getRank() == 3) {
    Value width = index(b, loc, outType.getDimSize(2));
    panel = arith::DivUIOp::create(b, loc, column, width);
    column = arith::RemUIOp::create(b, loc, column, width);
  }
  for (int64_t j = 0; j < kQuantBlockSize / lanes; ++j) {
    SmallVector<Value> tile;
    for (int64_t r = 0; r < lanes; ++r)
      tile.push_back(values[r][j]);
    Value k = arith::AddIOp::create(b, loc, kStart, index(b, loc, j * lanes));
    out = writeTransposedRows(b, loc, tile, out, panel, k, column, inBounds);
  }
  return out;
}
} // namespace

Value transformer::buildTransposedDequantizeKernel(
    OpBuilder &b, Location loc, const DequantizedWeight &weight, Value init,
    int64_t lanes) {
  MLIRContext *ctx = b.getContext();
  Value c0 = index(b, loc, 0), c1 = index(b, loc, 1);
  Value rows = tensor::DimOp::create(b, loc, init, 1);
  Value blockCount = tensor::DimOp::create(b, loc, weight.blocks, 1);
  // Whole groups of `lanes` rows when the row count says so; otherwise the
  // last group's stores are masked (and its reads clamped to the last row).
  int64_t staticRows = cast<ShapedType>(init.getType()).getDimSize(1);
  bool wholeGroups =
      !ShapedType::isDynamic(staticRows) && staticRows % lanes == 0;
  AffineExpr s0 = getAffineSymbolExpr(0, ctx);
  Value tasks = affine::AffineApplyOp::create(
      b, loc, AffineMap::get(0, 1, s0.ceilDiv(kRowsPerTask)), ValueRange{rows});
  auto forall = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{tasks},
                                      ValueRange{init}, std::nullopt);
  OpBuilder fb(forall.getTerminator());
  Value task = forall.getInductionVar(0);
  Value out = forall.getRegionIterArgs()[0];
  AffineExpr t = getAffineDimExpr(0, ctx);
  Value first = affine::AffineApplyOp::create(
      fb, loc, AffineMap::get(1, 0, t * kRowsPerTask), task);
  Value count = affine::AffineMinOp::create(
      fb, loc,
      AffineMap::get(
          1, 1,
          {getAffineConstantExpr(kRowsPerTask, ctx), s0 - t * kRowsPerTask},
          ctx),
      ValueRange{task, rows});
  Value depth = tensor::DimOp::create(fb, loc, init, 0);
  SmallVector<OpFoldResult> offsets = {fb.getIndexAttr(0), first};
  SmallVector<OpFoldResult> sizes = {depth, count};
  SmallVector<OpFoldResult> strides = {fb.getIndexAttr(1), fb.getIndexAttr(1)};
  Value slice =
      tensor::ExtractSliceOp::create(fb, loc, out, offsets, sizes, strides);
  Value lastRow =
      wholeGroups ? Value() : arith::SubIOp::create(fb, loc, rows, c1);
  auto groups = scf::ForOp::create(
      fb, loc, c0, count, index(fb, loc, lanes), ValueRange{slice},
      [&](OpBuilder &gb, Location, Value group, ValueRange groupArgs) {
        Value firstRow = arith::AddIOp::create(gb, loc, first, group);
        auto perBlock = scf::ForOp::create(
            gb, loc, c0, blockCount, c1, groupArgs,
            [&](OpBuilder &kb, Location, Value block, ValueRange blockArgs) {
              Value start = arith::MulIOp::create(
                  kb, loc, block, index(kb, loc, kQuantBlockSize));
              scf::YieldOp::create(
                  kb, loc,
                  writeTransposedBlock(kb, loc, weight, blockArgs[0], firstRow,
                                       lastRow, block, start, group, lanes,
                                       wholeGroups));
            });
        scf::YieldOp::create(gb, loc, perBlock.getResults());
      });
  fb.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(fb, loc, groups.getResult(0), out,
                                        offsets, sizes, strides);
  return forall.getResult(0);
}

Value transformer::buildTransposedDequantizeSlice(
    OpBuilder &b, Location loc, const DequantizedWeight &weight, Value init,
    OpFoldResult firstK, OpFoldResult firstRow, int64_t lanes) {
  MLIRContext *ctx = b.getContext();
  Value c0 = index(b, loc, 0), c1 = index(b, loc, 1);
  // [k, rows], or panels [rows / w, k, w].
  auto initType = cast<RankedTensorType>(init.getType());
  bool panels = initType.getRank() == 3;
  Value depth = tensor::DimOp::create(b, loc, init, panels ? 1 : 0);
  Value rows = tensor::DimOp::create(b, loc, init, panels ? 0 : 1);
  if (panels)
    rows = arith::MulIOp::create(b, loc, rows,
                                 index(b, loc, initType.getDimSize(2)));
  // Rows past the weight's last (the slice of a padded B) read the last.
  int64_t weightRows = cast<ShapedType>(weight.blocks.getType()).getDimSize(0);
  Value lastRow;
  if (ShapedType::isDynamic(weightRows) || weightRows % lanes != 0)
    lastRow = arith::SubIOp::create(
        b, loc, tensor::DimOp::create(b, loc, weight.blocks, 0), c1);
  AffineExpr d0 = getAffineDimExpr(0, ctx), s0 = getAffineSymbolExpr(0, ctx);
  Value firstBlock = affine::makeComposedAffineApply(
      b, loc, AffineMap::get(0, 1, s0.floorDiv(kQuantBlockSize)), {firstK});
  Value blockCount = affine::makeComposedAffineApply(
      b, loc, AffineMap::get(0, 1, s0.floorDiv(kQuantBlockSize)), {depth});
  Value rowBase = getValueOrCreateConstantIndexOp(b, loc, firstRow);
  auto groups = scf::ForOp::create(
      b, loc, c0, rows, index(b, loc, lanes), ValueRange{init},
      [&](OpBuilder &gb, Location, Value group, ValueRange groupArgs) {
        Value groupRow = arith::AddIOp::create(gb, loc, rowBase, group);
        auto perBlock = scf::ForOp::create(
            gb, loc, c0, blockCount, c1, groupArgs,
            [&](OpBuilder &kb, Location, Value block, ValueRange blockArgs) {
              Value start = affine::AffineApplyOp::create(
                  kb, loc, AffineMap::get(1, 0, d0 * kQuantBlockSize), block);
              Value weightBlock =
                  arith::AddIOp::create(kb, loc, firstBlock, block);
              scf::YieldOp::create(
                  kb, loc,
                  writeTransposedBlock(kb, loc, weight, blockArgs[0], groupRow,
                                       lastRow, weightBlock, start, group,
                                       lanes, /*inBounds=*/true));
            });
        scf::YieldOp::create(gb, loc, perBlock.getResults());
      });
  return groups.getResult(0);
}

Value transformer::buildTransposedDequantization(
    OpBuilder &b, Location loc, const DequantizedWeight &weight,
    int64_t columns) {
  auto blocksType = cast<RankedTensorType>(weight.blocks.getType());
  auto type = RankedTensorType::get(
      {blocksType.getDimSize(1) * kQuantBlockSize, columns}, b.getF32Type());
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  int64_t lastRow = blocksType.getDimSize(0) - 1;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{identity},
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &gb, Location loc, ValueRange) {
        Value k = linalg::IndexOp::create(gb, loc, 0);
        Value row =
            arith::MinUIOp::create(gb, loc, linalg::IndexOp::create(gb, loc, 1),
                                   index(gb, loc, lastRow));
        linalg::YieldOp::create(gb, loc,
                                buildDequantizedElement(gb, loc, weight.blocks,
                                                        weight.format,
                                                        ValueRange{row}, k));
      });
  generic->setAttr(kDequantizeAttrName,
                   b.getStringAttr(stringifyBlockFormat(weight.format)));
  generic->setAttr(kContractionAttrName, b.getStringAttr("dequantize"));
  generic->setAttr(kOutlineWithUserAttrName, b.getUnitAttr());
  return generic->getResult(0);
}

linalg::LinalgOp
transformer::dequantizeBeforeContraction(RewriterBase &rewriter,
                                         linalg::LinalgOp op,
                                         const DequantizedWeight &quantized) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap bMap = maps[1];
  unsigned numLoops = op.getNumLoops();
  MLIRContext *ctx = op.getContext();
  AffineExpr n = getAffineDimExpr(numLoops - 2, ctx);
  AffineExpr k = getAffineDimExpr(numLoops - 1, ctx);
  Value weight = op.getDpsInputs()[1];
  auto type = dyn_cast<RankedTensorType>(weight.getType());
  if (!type || type.getRank() != 2 || bMap.getNumResults() != 2 ||
      bMap.getResult(0) != n || bMap.getResult(1) != k)
    return op;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value copy;
  if (cast<ShapedType>(quantized.blocks.getType()).hasStaticShape()) {
    // Made per cache tile by transformer-cpu-fuse-epilogues.
    copy = buildTransposedDequantization(rewriter, loc, quantized,
                                         type.getDimSize(0));
  } else {
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, weight);
    std::swap(sizes[0], sizes[1]);
    Value init =
        tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
    copy = buildTransposedDequantizeKernel(rewriter, loc, quantized, init,
                                           CPUTarget::forOp(op).f32Lanes());
    // A kernel of its own, shared by the layers (outline-kernels).
    if (Operation *kernel = copy.getDefiningOp())
      kernel->setAttr(kKernelRootAttrName, rewriter.getUnitAttr());
  }
  maps[1] = AffineMap::get(numLoops, 0, {k, n}, ctx);
  SmallVector<Value> inputs = {op.getDpsInputs()[0], copy};
  auto contract = linalg::ContractOp::create(
      rewriter, loc, op->getResultTypes(), inputs, op.getDpsInits(),
      rewriter.getAffineMapArrayAttr(maps));
  rewriter.replaceOp(op, contract->getResults());
  return contract;
}

void transformer::foldPaddedDequantization(RewriterBase &rewriter,
                                           linalg::LinalgOp op) {
  auto pad = op.getDpsInputs()[1].getDefiningOp<tensor::PadOp>();
  if (!pad || !pad->hasOneUse() || !pad.getResultType().hasStaticShape() ||
      !llvm::all_of(pad.getStaticLow(), [](int64_t v) { return v == 0; }))
    return;
  auto generic = pad.getSource().getDefiningOp<linalg::GenericOp>();
  auto tag = generic ? generic->getAttrOfType<StringAttr>(kContractionAttrName)
                     : StringAttr();
  std::optional<DequantizedWeight> weight =
      generic ? getDequantizedWeight(generic->getResult(0)) : std::nullopt;
  if (!tag || tag.getValue() != "dequantize" || !weight ||
      !generic->hasOneUse() ||
      pad.getResultType().getDimSize(0) != pad.getSourceType().getDimSize(0))
    return;
  rewriter.setInsertionPoint(pad);
  Value wider = buildTransposedDequantization(
      rewriter, pad.getLoc(), *weight, pad.getResultType().getDimSize(1));
  rewriter.replaceOp(pad, wider);
  rewriter.eraseOp(generic);
}

void transformer::eraseDeadDequantizations(RewriterBase &rewriter,
                                           Operation *root) {
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp generic) {
    if (generic->hasAttr(kDequantizeAttrName))
      generics.push_back(generic);
  });
  for (linalg::GenericOp generic : generics) {
    for (OpOperand &use : llvm::make_early_inc_range(generic->getUses()))
      if (auto dim = dyn_cast<tensor::DimOp>(use.getOwner()))
        rewriter.modifyOpInPlace(dim,
                                 [&] { use.set(generic.getDpsInits()[0]); });
    if (generic->use_empty())
      rewriter.eraseOp(generic);
  }
}
