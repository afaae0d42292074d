//===- DotKernel.cpp - Few rows times a B indexed (n, k) ------------------===//

#include "DotKernel.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::transformer;

namespace {
/// 16 x f32: one zmm register.
constexpr int64_t kLanes = 16;
/// Columns per register tile: 8 accumulators, 8 loads of B and one of A per
/// step of k.
constexpr int64_t kColumns = 8;
/// Columns per task of the threads.
constexpr int64_t kColumnsPerTask = 256;
} // namespace

bool transformer::isDotForm(linalg::LinalgOp op) {
  if (op.getNumLoops() != 3 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return false;
  for (Value operand : op->getOperands())
    if (!getElementTypeOrSelf(operand.getType()).isF32())
      return false;
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(3, 0, {m, k}, ctx) ||
      maps[1] != AffineMap::get(3, 0, {n, k}, ctx) ||
      maps[2] != AffineMap::get(3, 0, {m, n}, ctx))
    return false;
  // The body must be the plain multiply-accumulate.
  Block *body = op.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1 ||
      body->getOperations().size() != 3)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value product =
      add.getLhs() == body->getArgument(2) ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul || (add.getLhs() != body->getArgument(2) &&
               add.getRhs() != body->getArgument(2)))
    return false;
  if (!((mul.getLhs() == body->getArgument(0) &&
         mul.getRhs() == body->getArgument(1)) ||
        (mul.getLhs() == body->getArgument(1) &&
         mul.getRhs() == body->getArgument(0))))
    return false;
  int64_t size = op.getStaticLoopRanges()[2];
  return !ShapedType::isDynamic(size) && size % kLanes == 0;
}

Value transformer::buildDotKernel(OpBuilder &b, linalg::LinalgOp op) {
  Location loc = op.getLoc();
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Value acc = op.getDpsInits()[0];
  int64_t depth = op.getStaticLoopRanges()[2];
  Type f32 = b.getF32Type();
  auto lanesType = VectorType::get({kLanes}, f32);
  auto columnsType = VectorType::get({kColumns}, f32);

  auto index = [&](OpBuilder &nb, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(nb, loc, value);
  };
  Value c0 = index(b, 0), c1 = index(b, 1);
  Value rows = tensor::DimOp::create(b, loc, acc, 0);
  Value columns = tensor::DimOp::create(b, loc, acc, 1);
  Value zeros = arith::ConstantOp::create(
      b, loc, lanesType, DenseElementsAttr::get(lanesType, 0.0f));
  Value padding = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<bool> inBounds = {true};

  // sum_k A[row, k] * B[column + i, k] for i < count, as `count` vectors of
  // 16 partial sums.
  auto dotProducts = [&](OpBuilder &nb, Value row, Value column,
                         int64_t count) -> SmallVector<Value> {
    SmallVector<Value> init(count, zeros);
    auto loop = scf::ForOp::create(
        nb, loc, index(nb, 0), index(nb, depth), index(nb, kLanes), init,
        [&](OpBuilder &lb, Location, Value k, ValueRange sums) {
          Value a = vector::TransferReadOp::create(
              lb, loc, lanesType, lhs, ValueRange{row, k}, padding, inBounds);
          SmallVector<Value> next;
          for (int64_t i = 0; i < count; ++i) {
            Value n = arith::AddIOp::create(lb, loc, column, index(lb, i));
            Value bRow = vector::TransferReadOp::create(
                lb, loc, lanesType, rhs, ValueRange{n, k}, padding, inBounds);
            next.push_back(vector::FMAOp::create(lb, loc, a, bRow, sums[i]));
          }
          scf::YieldOp::create(lb, loc, next);
        });
    SmallVector<Value> totals;
    for (Value sum : loop.getResults())
      totals.push_back(vector::ReductionOp::create(
          nb, loc, vector::CombiningKind::ADD, sum));
    return totals;
  };

  // Tasks of kColumnsPerTask columns.
  Value tasks = affine::AffineApplyOp::create(
      b, loc,
      AffineMap::get(
          0, 1,
          getAffineSymbolExpr(0, b.getContext()).ceilDiv(kColumnsPerTask)),
      ValueRange{columns});
  auto forall = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{tasks},
                                      ValueRange{acc}, std::nullopt);
  {
    OpBuilder fb(forall.getTerminator());
    Value task = forall.getInductionVar(0);
    Value out = forall.getRegionIterArgs()[0];
    MLIRContext *ctx = fb.getContext();
    AffineExpr t = getAffineDimExpr(0, ctx);
    AffineExpr n = getAffineSymbolExpr(0, ctx);
    Value first = affine::AffineApplyOp::create(
        fb, loc, AffineMap::get(1, 0, t * kColumnsPerTask), task);
    Value count = affine::AffineMinOp::create(
        fb, loc,
        AffineMap::get(1, 1,
                       {getAffineConstantExpr(kColumnsPerTask, ctx),
                        n - t * kColumnsPerTask},
                       ctx),
        ValueRange{task, columns});
    // Columns in full register tiles, then the rest one by one.
    Value full = affine::AffineApplyOp::create(
        fb, loc, AffineMap::get(0, 1, n.floorDiv(kColumns) * kColumns, ctx),
        ValueRange{count});
    SmallVector<OpFoldResult> offsets = {fb.getIndexAttr(0), first};
    SmallVector<OpFoldResult> sizes = {rows, count};
    SmallVector<OpFoldResult> strides = {fb.getIndexAttr(1),
                                         fb.getIndexAttr(1)};
    Value block =
        tensor::ExtractSliceOp::create(fb, loc, out, offsets, sizes, strides);
    auto tiles = scf::ForOp::create(
        fb, loc, c0, full, index(fb, kColumns), ValueRange{block},
        [&](OpBuilder &tb, Location, Value tile, ValueRange tileArgs) {
          Value column = arith::AddIOp::create(tb, loc, first, tile);
          auto perRow = scf::ForOp::create(
              tb, loc, c0, rows, c1, tileArgs,
              [&](OpBuilder &rb, Location, Value row, ValueRange rowArgs) {
                SmallVector<Value> totals =
                    dotProducts(rb, row, column, kColumns);
                Value sums = vector::FromElementsOp::create(
                    rb, loc, columnsType, totals);
                Value old = vector::TransferReadOp::create(
                    rb, loc, columnsType, rowArgs[0], ValueRange{row, tile},
                    padding, inBounds);
                Value updated = arith::AddFOp::create(rb, loc, old, sums);
                Value written = vector::TransferWriteOp::create(
                                    rb, loc, updated, rowArgs[0],
                                    ValueRange{row, tile}, inBounds)
                                    .getResult();
                scf::YieldOp::create(rb, loc, written);
              });
          scf::YieldOp::create(tb, loc, perRow.getResults());
        });
    auto rest = scf::ForOp::create(
        fb, loc, full, count, c1, tiles.getResults(),
        [&](OpBuilder &tb, Location, Value tile, ValueRange tileArgs) {
          Value column = arith::AddIOp::create(tb, loc, first, tile);
          auto perRow = scf::ForOp::create(
              tb, loc, c0, rows, c1, tileArgs,
              [&](OpBuilder &rb, Location, Value row, ValueRange rowArgs) {
                Value total = dotProducts(rb, row, column, 1).front();
                Value old = tensor::ExtractOp::create(rb, loc, rowArgs[0],
                                                      ValueRange{row, tile});
                Value updated = arith::AddFOp::create(rb, loc, old, total);
                Value written = tensor::InsertOp::create(
                    rb, loc, updated, rowArgs[0], ValueRange{row, tile});
                scf::YieldOp::create(rb, loc, written);
              });
          scf::YieldOp::create(tb, loc, perRow.getResults());
        });
    fb.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(fb, loc, rest.getResult(0), out,
                                          offsets, sizes, strides);
  }
  return forall.getResult(0);
}
