//===- Panels.cpp - B laid out in the register tile's panels --------------===//

#include "Panels.h"

#include "DotKernel.h"
#include "Transformer/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

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
