//===- QuantizedBlocks.cpp - Reading ggml blocks in vector code -----------===//

#include "QuantizedBlocks.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::transformer;

namespace {
/// Rows of the weight per task of the threads in buildDequantizeKernel.
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

Value transformer::buildDequantizeKernel(OpBuilder &b, Location loc,
                                         const DequantizedWeight &weight,
                                         Value init, int64_t lanes) {
  MLIRContext *ctx = b.getContext();
  Value c0 = index(b, loc, 0), c1 = index(b, loc, 1);
  Value rows = tensor::DimOp::create(b, loc, init, 0);
  Value blockCount = tensor::DimOp::create(b, loc, weight.blocks, 1);
  auto f32Type = VectorType::get({lanes}, b.getF32Type());
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
  Value columns = tensor::DimOp::create(fb, loc, init, 1);
  SmallVector<OpFoldResult> offsets = {first, fb.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {count, columns};
  SmallVector<OpFoldResult> strides = {fb.getIndexAttr(1), fb.getIndexAttr(1)};
  Value slice =
      tensor::ExtractSliceOp::create(fb, loc, out, offsets, sizes, strides);
  auto perRow = scf::ForOp::create(
      fb, loc, c0, count, c1, ValueRange{slice},
      [&](OpBuilder &rb, Location, Value r, ValueRange rowArgs) {
        Value row = arith::AddIOp::create(rb, loc, first, r);
        auto perBlock = scf::ForOp::create(
            rb, loc, c0, blockCount, c1, rowArgs,
            [&](OpBuilder &kb, Location, Value block, ValueRange blockArgs) {
              Value scale = vector::BroadcastOp::create(
                  kb, loc, f32Type,
                  readBlockScale(kb, loc, weight.blocks, row, block));
              SmallVector<Value> values = readBlockValues(
                  kb, loc, weight.blocks, weight.format, row, block, lanes);
              Value written = blockArgs[0];
              Value start = arith::MulIOp::create(
                  kb, loc, block, index(kb, loc, kQuantBlockSize));
              for (auto [i, value] : llvm::enumerate(values)) {
                Value column = arith::AddIOp::create(kb, loc, start,
                                                     index(kb, loc, i * lanes));
                Value scaled = arith::MulFOp::create(kb, loc, value, scale);
                written = vector::TransferWriteOp::create(
                              kb, loc, scaled, written, ValueRange{r, column},
                              ArrayRef<bool>{true})
                              .getResult();
              }
              scf::YieldOp::create(kb, loc, written);
            });
        scf::YieldOp::create(rb, loc, perBlock.getResults());
      });
  fb.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(fb, loc, perRow.getResult(0), out,
                                        offsets, sizes, strides);
  return forall.getResult(0);
}
