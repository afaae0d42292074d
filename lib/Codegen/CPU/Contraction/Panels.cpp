//===- Panels.cpp - B laid out in the register tile's panels --------------===//

#include "Panels.h"

#include "DotKernel.h"
#include "Transformer/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::transformer;

FailureOr<linalg::GenericOp> transformer::readFromPanels(RewriterBase &rewriter,
                                                         linalg::LinalgOp op,
                                                         Value panels,
                                                         int64_t width) {
  rewriter.setInsertionPoint(op);
  Attribute tag = op->getAttr(kContractionAttrName);
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return failure();
    generic = *generalized;
  }
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  maps[1] = getPanelIndexingMap(op->getContext(), width);
  rewriter.modifyOpInPlace(generic, [&] {
    generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    generic.getDpsInputOperand(1)->set(panels);
    if (tag)
      generic->setAttr(kContractionAttrName, tag);
  });
  return generic;
}

bool transformer::hasMulAddBody(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body || body->getNumArguments() != 3)
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  // B as it is, or widened from bf16/f16 (a named op's implicit cast).
  Value a = body->getArgument(0), b = body->getArgument(1);
  size_t ops = 3;
  for (Operation &op : body->without_terminator()) {
    auto ext = dyn_cast<arith::ExtFOp>(op);
    if (!ext)
      continue;
    if (ext.getIn() != b || !isWidenedToF32(b.getType()) ||
        !ext.getType().isF32() || ops != 3)
      return false;
    b = ext.getResult();
    ops = 4;
  }
  if (body->getOperations().size() != ops)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value c = body->getArgument(2);
  if (add.getLhs() != c && add.getRhs() != c)
    return false;
  Value product = add.getLhs() == c ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

void transformer::transposeInRegisters(OpBuilder &b, Location loc,
                                       SmallVector<Value> &rows) {
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

Value transformer::writeTransposedRows(OpBuilder &b, Location loc,
                                       SmallVector<Value> rows, Value out,
                                       Value panel, Value firstK, Value column,
                                       bool inBounds) {
  transposeInRegisters(b, loc, rows);
  for (auto [c, row] : llvm::enumerate(rows)) {
    Value k =
        c == 0 ? firstK
               : arith::AddIOp::create(
                     b, loc, firstK, arith::ConstantIndexOp::create(b, loc, c));
    SmallVector<Value> indices = {k, column};
    if (panel)
      indices.insert(indices.begin(), panel);
    out = vector::TransferWriteOp::create(b, loc, row, out, indices,
                                          ArrayRef<bool>{inBounds})
              .getResult();
  }
  return out;
}

Value transformer::transposeIntoPanels(OpBuilder &b, Location loc, Value source,
                                       Value init, int64_t lanes) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  Type element = sourceType.getElementType();
  OpBuilder::InsertionGuard guard(b);
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value zero = index(0), step = index(lanes);
  Value width = index(initType.getDimSize(2));
  Value padding = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  auto tileType = VectorType::get({lanes, lanes}, element);
  // Groups of `lanes` rows of `source`: the group's panel, and its first
  // column in the panel.
  auto groups = scf::ForOp::create(
      b, loc, zero, index(sourceType.getDimSize(0)), step, ValueRange{init});
  b.setInsertionPointToStart(groups.getBody());
  Value row = groups.getInductionVar();
  Value panel = arith::DivUIOp::create(b, loc, row, width);
  Value column = arith::RemUIOp::create(b, loc, row, width);
  // Along k, a tile at a time.
  auto depth =
      scf::ForOp::create(b, loc, zero, index(sourceType.getDimSize(1)), step,
                         ValueRange{groups.getRegionIterArgs()[0]});
  scf::YieldOp::create(b, loc, depth.getResults());
  b.setInsertionPointToStart(depth.getBody());
  Value k = depth.getInductionVar();
  Value tile = vector::TransferReadOp::create(b, loc, tileType, source,
                                              ValueRange{row, k}, padding,
                                              SmallVector<bool>(2, true));
  SmallVector<Value> rows;
  for (int64_t r = 0; r < lanes; ++r)
    rows.push_back(vector::ExtractOp::create(b, loc, tile, r));
  Value out = writeTransposedRows(b, loc, rows, depth.getRegionIterArgs()[0],
                                  panel, k, column, /*inBounds=*/true);
  scf::YieldOp::create(b, loc, out);
  return groups.getResult(0);
}
