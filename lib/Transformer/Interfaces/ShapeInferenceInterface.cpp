//===- ShapeInferenceInterface.cpp - Shape inference interface ------------===//

#include "Transformer/Interfaces/ShapeInferenceInterface.h"

#include "Transformer/Utils/ShapeUtils.h"

using namespace mlir;
using namespace mlir::transformer;

#include "Transformer/Interfaces/ShapeInferenceInterface.cpp.inc"

TensorType transformer::meetTensorTypes(TensorType a, TensorType b) {
  if (a.getElementType() != b.getElementType())
    return nullptr;
  if (!a.hasRank())
    return b;
  if (!b.hasRank())
    return a;
  if (a.getRank() != b.getRank())
    return nullptr;
  SmallVector<int64_t> shape;
  for (auto [da, db] : llvm::zip(a.getShape(), b.getShape())) {
    if (!dimsMayMatch(da, db))
      return nullptr;
    shape.push_back(meetDims(da, db));
  }
  return RankedTensorType::get(shape, a.getElementType());
}

/// Single-result ops only: every transformer op has exactly one result.
static FailureOr<TensorType> meetWithDeclared(Operation *op,
                                              ShapeInferenceOpInterface iface,
                                              bool emitErrors) {
  FailureOr<TensorType> inferred = iface.inferResultType(emitErrors);
  if (failed(inferred))
    return failure();
  auto declared = cast<TensorType>(op->getResult(0).getType());
  TensorType meet = meetTensorTypes(declared, *inferred);
  if (!meet) {
    if (emitErrors)
      op->emitOpError() << "result type " << quoted(declared)
                        << " does not match the type " << quoted(*inferred)
                        << " inferred from the operands";
    return failure();
  }
  return meet;
}

LogicalResult
transformer::verifyInferredResultType(Operation *op,
                                      ShapeInferenceOpInterface iface) {
  return meetWithDeclared(op, iface, /*emitErrors=*/true);
}

LogicalResult transformer::refineResultType(Operation *op,
                                            ShapeInferenceOpInterface iface) {
  FailureOr<TensorType> meet = meetWithDeclared(op, iface, /*emitErrors=*/true);
  if (failed(meet))
    return failure();
  op->getResult(0).setType(*meet);
  return success();
}
