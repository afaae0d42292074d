//===- QuantizedBlocks.cpp - Reading ggml blocks in vector code -----------===//

#include "QuantizedBlocks.h"

#include "Transformer/Codegen/CPU/Target/CPUTarget.h"
#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// A vector of `count` i8 holding `value` in every lane.
Value splatI8(OpBuilder &b, Location loc, int64_t count, int64_t value) {
  auto type = VectorType::get({count}, b.getI8Type());
  return arith::ConstantOp::create(
      b, loc, type,
      DenseElementsAttr::get(type, b.getIntegerAttr(b.getI8Type(), value)));
}
} // namespace

Value transformer::readBlockScale(OpBuilder &b, Location loc, Value blocks,
                                  Value row, Value block) {
  Value bytes = readBytes(b, loc, blocks, row, block, 0, 2);
  Value half = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getF16Type()), bytes);
  Value scale = vector::ExtractOp::create(b, loc, half, ArrayRef<int64_t>{0});
  return arith::ExtFOp::create(b, loc, b.getF32Type(), scale);
}

SmallVector<Value> transformer::readBlockValues(OpBuilder &b, Location loc,
                                                Value blocks,
                                                BlockFormat format, Value row,
                                                Value block, int64_t lanes) {
  auto f32Type = VectorType::get({lanes}, b.getF32Type());
  SmallVector<Value> quantized;
  switch (format) {
  case BlockFormat::q8_0:
    for (int64_t at = 0; at < kQuantBlockSize; at += lanes)
      quantized.push_back(readBytes(b, loc, blocks, row, block, 2 + at, lanes));
    break;
  case BlockFormat::q4_0: {
    // Byte j: element j in the low nibble, element j + 16 in the high one,
    // each stored as q + 8.
    constexpr int64_t half = kQuantBlockSize / 2;
    Value bytes = readBytes(b, loc, blocks, row, block, 2, half);
    Value low = arith::AndIOp::create(b, loc, bytes, splatI8(b, loc, half, 15));
    Value high =
        arith::ShRUIOp::create(b, loc, bytes, splatI8(b, loc, half, 4));
    for (Value nibbles : {low, high}) {
      Value centred =
          arith::SubIOp::create(b, loc, nibbles, splatI8(b, loc, half, 8));
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
  SmallVector<Value> values;
  for (Value q : quantized)
    values.push_back(arith::SIToFPOp::create(b, loc, f32Type, q));
  return values;
}

namespace {
/// Transposes the square matrix whose rows are `rows` (`n` vectors of `n`
/// elements, n a power of two) in registers: log2(n) rounds, each swapping
/// the off-diagonal h x h blocks of every 2h x 2h block with one shuffle per
/// row.
void transposeRows(OpBuilder &b, Location loc, SmallVector<Value> &rows) {
  int64_t n = rows.size();
  for (int64_t h = 1; h < n; h *= 2)
    for (int64_t i = 0; i < n; ++i) {
      if (i & h)
        continue;
      int64_t j = i + h;
      SmallVector<int64_t> first, second;
      for (int64_t t = 0; t < n; ++t) {
        first.push_back((t & h) ? n + t - h : t);
        second.push_back((t & h) ? n + t : t + h);
      }
      Value upper = vector::ShuffleOp::create(b, loc, rows[i], rows[j], first);
      Value lower = vector::ShuffleOp::create(b, loc, rows[i], rows[j], second);
      rows[i] = upper;
      rows[j] = lower;
    }
}
} // namespace

Value transformer::buildTransposedDequantizeKernel(
    OpBuilder &b, Location loc, const DequantizedWeight &weight, Value init,
    int64_t lanes) {
  MLIRContext *ctx = b.getContext();
  Value c0 = index(b, loc, 0), c1 = index(b, loc, 1);
  Value rows = tensor::DimOp::create(b, loc, init, 1);
  Value blockCount = tensor::DimOp::create(b, loc, weight.blocks, 1);
  auto f32Type = VectorType::get({lanes}, b.getF32Type());
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
  Value lastRow = arith::SubIOp::create(fb, loc, rows, c1);
  auto groups = scf::ForOp::create(
      fb, loc, c0, count, index(fb, loc, lanes), ValueRange{slice},
      [&](OpBuilder &gb, Location, Value group, ValueRange groupArgs) {
        Value firstRow = arith::AddIOp::create(gb, loc, first, group);
        auto perBlock = scf::ForOp::create(
            gb, loc, c0, blockCount, c1, groupArgs,
            [&](OpBuilder &kb, Location, Value block, ValueRange blockArgs) {
              // values[r][j]: elements j*lanes.. of the block of row r.
              SmallVector<SmallVector<Value>> values;
              for (int64_t r = 0; r < lanes; ++r) {
                Value row =
                    arith::AddIOp::create(kb, loc, firstRow, index(kb, loc, r));
                if (!wholeGroups)
                  row = arith::MinUIOp::create(kb, loc, row, lastRow);
                Value scale = vector::BroadcastOp::create(
                    kb, loc, f32Type,
                    readBlockScale(kb, loc, weight.blocks, row, block));
                SmallVector<Value> scaled;
                for (Value v :
                     readBlockValues(kb, loc, weight.blocks, weight.format, row,
                                     block, lanes))
                  scaled.push_back(arith::MulFOp::create(kb, loc, v, scale));
                values.push_back(scaled);
              }
              Value start = arith::MulIOp::create(
                  kb, loc, block, index(kb, loc, kQuantBlockSize));
              Value written = blockArgs[0];
              for (int64_t j = 0; j < kQuantBlockSize / lanes; ++j) {
                SmallVector<Value> tile;
                for (int64_t r = 0; r < lanes; ++r)
                  tile.push_back(values[r][j]);
                transposeRows(kb, loc, tile);
                for (int64_t c = 0; c < lanes; ++c) {
                  Value k = arith::AddIOp::create(
                      kb, loc, start, index(kb, loc, j * lanes + c));
                  written = vector::TransferWriteOp::create(
                                kb, loc, tile[c], written, ValueRange{k, group},
                                ArrayRef<bool>{wholeGroups})
                                .getResult();
                }
              }
              scf::YieldOp::create(kb, loc, written);
            });
        scf::YieldOp::create(gb, loc, perBlock.getResults());
      });
  fb.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(fb, loc, groups.getResult(0), out,
                                        offsets, sizes, strides);
  return forall.getResult(0);
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
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(rewriter, loc, weight);
  std::swap(sizes[0], sizes[1]);
  Value init =
      tensor::EmptyOp::create(rewriter, loc, sizes, type.getElementType());
  Value copy = buildTransposedDequantizeKernel(rewriter, loc, quantized, init,
                                               CPUTarget::forOp(op).f32Lanes());
  // A kernel of its own, shared by the layers (outline-kernels).
  if (Operation *kernel = copy.getDefiningOp())
    kernel->setAttr(kKernelRootAttrName, rewriter.getUnitAttr());
  maps[1] = AffineMap::get(numLoops, 0, {k, n}, ctx);
  SmallVector<Value> inputs = {op.getDpsInputs()[0], copy};
  auto contract = linalg::ContractOp::create(
      rewriter, loc, op->getResultTypes(), inputs, op.getDpsInits(),
      rewriter.getAffineMapArrayAttr(maps));
  rewriter.replaceOp(op, contract->getResults());
  return contract;
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
