//===- ShapeInferenceInterface.h - Shape inference interface ----*- C++ -*-===//

#ifndef TRANSFORMER_INTERFACES_SHAPEINFERENCEINTERFACE_H
#define TRANSFORMER_INTERFACES_SHAPEINFERENCEINTERFACE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::transformer {
class ShapeInferenceOpInterface;

/// Meets the declared result type of `op` with `iface.inferResultType()` and
/// writes the more precise type back. Fails with a diagnostic when they
/// contradict each other.
LogicalResult refineResultType(Operation *op, ShapeInferenceOpInterface iface);

/// Verifier helper shared by every op: the declared result type must be
/// compatible with the type inferred from the operands.
LogicalResult verifyInferredResultType(Operation *op,
                                       ShapeInferenceOpInterface iface);

/// The more precise of two compatible tensor types (same element type), or
/// null when they are incompatible.
TensorType meetTensorTypes(TensorType a, TensorType b);
} // namespace mlir::transformer

#include "Transformer/Interfaces/ShapeInferenceInterface.h.inc"

#endif // TRANSFORMER_INTERFACES_SHAPEINFERENCEINTERFACE_H
