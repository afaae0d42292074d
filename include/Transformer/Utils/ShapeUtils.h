//===- ShapeUtils.h - Shape arithmetic shared by the ops --------*- C++ -*-===//
//
// Small shape functions used by the op verifiers (lib/Transformer/IR) and the
// shape inference interface (lib/Transformer/Interfaces), so that both agree
// on broadcasting and dimension matching. They depend on MLIR's IR only and
// form their own library, MLIRTransformerUtils, below both.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_UTILS_SHAPEUTILS_H
#define TRANSFORMER_UTILS_SHAPEUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace mlir::transformer {

/// True unless both dimensions are static and different.
bool dimsMayMatch(int64_t a, int64_t b);

/// The more precise of two dimensions that may match (a static one wins).
int64_t meetDims(int64_t a, int64_t b);

/// Numpy broadcasting of two shapes. A static 1 stretches to the other
/// dimension; a dynamic dimension never broadcasts and must match the other
/// one at run time. Fails when two static dimensions differ and neither is 1.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b);

/// Whether `small` broadcasts into `large` without enlarging it (numpy rules,
/// aligned at the trailing dimension).
bool broadcastsInto(ArrayRef<int64_t> small, ArrayRef<int64_t> large);

/// `'tensor<2x?xf32>'`, for diagnostics.
std::string quoted(Type type);

} // namespace mlir::transformer

#endif // TRANSFORMER_UTILS_SHAPEUTILS_H
