//===- Transfers.h - Plain vector transfers ---------------------*- C++ -*-===//
//
// Internal to the CPU codegen library: which vector transfers the passes
// that run after the contraction schedule (the block copy forwarding of
// transformer-cpu-codegen, transformer-cpu-prefetch-next-k-block) take for
// the schedule's plain reads and writes of rows.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_TRANSFERS_H
#define TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_TRANSFERS_H

#include "mlir/Interfaces/VectorInterfaces.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::transformer {

/// Whether `op` moves one vector without a mask along the memref's minor
/// dimensions (a minor identity permutation map): rows, as the schedule's
/// copies and register tiles read and write them.
inline bool isUnmaskedMinorTransfer(VectorTransferOpInterface op) {
  return !op.getMask() && op.getPermutationMap().isMinorIdentity();
}

/// The same, and in bounds along every dimension: a transfer of static size
/// that lowers to plain vector loads or stores.
inline bool isPlainTransfer(VectorTransferOpInterface op) {
  return isUnmaskedMinorTransfer(op) &&
         llvm::all_of(op.getInBoundsValues(), [](bool b) { return b; });
}

} // namespace mlir::transformer

#endif // TRANSFORMER_LIB_CODEGEN_CPU_CONTRACTION_TRANSFERS_H
