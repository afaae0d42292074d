//===- Npy.h - Reading and writing numpy .npy files -------------*- C++ -*-===//

#ifndef TRANSFORMER_RUNNER_NPY_H
#define TRANSFORMER_RUNNER_NPY_H

#include "Transformer/Runner/HostTensor.h"

namespace mlir::transformer::runner {

/// Parses the bytes of a .npy file (versions 1-3, little-endian f4, i4 or i8,
/// C order). Every malformed, truncated or oversized file is an error.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes);

/// Reads and parses a .npy file.
llvm::Expected<HostTensor> readNpyFile(llvm::StringRef path);

/// Writes `tensor` as a version 1.0 .npy file (index is written as i8).
llvm::Error writeNpyFile(llvm::StringRef path, const HostTensor &tensor);

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_NPY_H
