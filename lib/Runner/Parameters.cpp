//===- Parameters.cpp - Binding arguments to weights by name --------------===//

#include "Transformer/Runner/Parameters.h"

using namespace mlir::transformer::runner;

namespace {
/// " (argument I of @ENTRY[, bound transposed])", which every binding error
/// ends with.
std::string describeArgument(size_t i, const ValueSignature &arg,
                             llvm::StringRef entry) {
  return (" (argument " + llvm::Twine(i) + " of @" + entry +
          (arg.transposed && arg.blockFormat.empty() ? ", bound transposed"
                                                     : "") +
          ")")
      .str();
}
} // namespace

llvm::Expected<std::vector<std::optional<PendingTensor>>>
mlir::transformer::runner::prepareParameters(const EntrySignature &signature,
                                             llvm::StringRef entry,
                                             WeightFile &file) {
  std::vector<std::optional<PendingTensor>> pending;
  for (auto [i, arg] : llvm::enumerate(signature.arguments)) {
    if (arg.parameter.empty()) {
      pending.push_back(std::nullopt);
      continue;
    }
    if (arg.isScalar)
      return llvm::createStringError(
          "argument " + llvm::Twine(i) + " of @" + entry + " (parameter '" +
          arg.parameter + "') is a scalar; only tensors are bound by name");
    llvm::Expected<PendingTensor> tensor =
        !arg.blockFormat.empty()
            ? file.prepareBlockTensor(arg.parameter,
                                      *parseQuantFormat(arg.blockFormat),
                                      arg.shape, arg.transposed)
        : arg.transposed
            ? file.prepareTransposedTensor(arg.parameter, arg.elementType,
                                           arg.shape)
            : file.prepareTensor(arg.parameter, arg.elementType, arg.shape);
    if (!tensor)
      return llvm::createStringError(llvm::toString(tensor.takeError()) +
                                     describeArgument(i, arg, entry));
    pending.push_back(std::move(*tensor));
  }
  return pending;
}

llvm::Expected<std::vector<std::optional<HostTensor>>>
mlir::transformer::runner::readParameters(
    const EntrySignature &signature, llvm::StringRef entry,
    std::vector<std::optional<PendingTensor>> &pending) {
  std::vector<std::optional<HostTensor>> bound;
  for (auto [i, tensor] : llvm::enumerate(pending)) {
    if (!tensor) {
      bound.push_back(std::nullopt);
      continue;
    }
    llvm::Expected<HostTensor> read = tensor->read();
    if (!read)
      return llvm::createStringError(
          llvm::toString(read.takeError()) +
          describeArgument(i, signature.arguments[i], entry));
    bound.push_back(std::move(*read));
  }
  return bound;
}
