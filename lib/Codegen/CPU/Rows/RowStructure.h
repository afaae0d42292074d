//===- RowStructure.h - The shape of a row op, shared by the row passes ---===//
//
// What transformer-cpu-vectorize-rows (on buffers) and
// transformer-cpu-fuse-row-chains (on tensors) both require of an op, by
// structure rather than by name.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_ROWSTRUCTURE_H
#define TRANSFORMER_LIB_CODEGEN_CPU_ROWSTRUCTURE_H

#include "Transformer/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlir::transformer {

/// A row op: not a contraction; element-wise (all loops parallel) or a row
/// reduction (only the innermost loop reduces); every operand indexed by an
/// ordered subset of the loops (broadcasts, no transposes), so that the
/// innermost loop walks each operand that uses it contiguously.
inline bool hasRowStructure(linalg::LinalgOp op) {
  if (op.getNumLoops() == 0 || op->hasAttr(kContractionAttrName) ||
      linalg::isaContractionOpInterface(op))
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it != utils::IteratorType::parallel &&
        !(it == utils::IteratorType::reduction && i + 1 == iterators.size()))
      return false;
  for (AffineMap map : op.getIndexingMapsArray()) {
    if (!map.isProjectedPermutation())
      return false;
    int64_t last = -1;
    for (AffineExpr e : map.getResults()) {
      int64_t pos = cast<AffineDimExpr>(e).getPosition();
      if (pos <= last)
        return false;
      last = pos;
    }
  }
  return true;
}

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_ROWSTRUCTURE_H
