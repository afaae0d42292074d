//===- Npy.h - Reading and writing .npy and raw files -----------*- C++ -*-===//

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
/// With `append`, adds it after what the file holds: numpy's `np.load` on
/// the opened file then reads the arrays one after the other.
llvm::Error writeNpyFile(llvm::StringRef path, const HostTensor &tensor,
                         bool append = false);

/// Reads a file of raw little-endian elements (no header) that must hold
/// exactly a tensor of `type` and `shape`.
llvm::Expected<HostTensor> readRawFile(llvm::StringRef path, ElementType type,
                                       llvm::ArrayRef<int64_t> shape,
                                       bool isScalar = false);

/// Writes (or appends) the raw bytes of `tensor`, row-major, no header.
llvm::Error writeRawFile(llvm::StringRef path, const HostTensor &tensor,
                         bool append = false);

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_NPY_H
