//===- Parameters.h - Binding arguments to weights by name ------*- C++ -*-===//
//
// Arguments that carry `transformer.parameter = "NAME"` are bound to the
// tensor NAME of a weight file (.safetensors or GGUF); the others are the
// caller's.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_PARAMETERS_H
#define TRANSFORMER_RUNNER_PARAMETERS_H

#include "Transformer/Runner/Signature.h"
#include "Transformer/Runner/WeightFile.h"

#include <optional>
#include <vector>

namespace mlir::transformer::runner {

/// For each argument of `entry`: its tensor from `file`, checked and not yet
/// read, when it names a parameter; nullopt when the caller passes it. Every
/// named argument is checked (present, shape, dtype) from the file's
/// metadata before returning; the first problem is a one-line error naming
/// the tensor and the argument.
llvm::Expected<std::vector<std::optional<PendingTensor>>>
prepareParameters(const EntrySignature &signature, llvm::StringRef entry,
                  WeightFile &file);

/// Reads the tensors prepareParameters checked from `file`, in the same
/// places; those of arguments with a panel width (readPanelWidths) laid out
/// in panels, the file's pages they were read from given back.
llvm::Expected<std::vector<std::optional<HostTensor>>>
readParameters(const EntrySignature &signature, llvm::StringRef entry,
               std::vector<std::optional<PendingTensor>> &pending,
               const WeightFile *file);

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_PARAMETERS_H
