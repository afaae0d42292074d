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

/// For each argument of `entry`: its tensor from `file` when it names a
/// parameter, nullopt when the caller passes it. Every named argument is
/// checked (present, shape, dtype) before returning; the first problem is a
/// one-line error naming the tensor and the argument.
llvm::Expected<std::vector<std::optional<HostTensor>>>
bindParameters(const EntrySignature &signature, llvm::StringRef entry,
               WeightFile &file);

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_PARAMETERS_H
