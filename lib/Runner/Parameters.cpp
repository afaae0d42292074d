//===- Parameters.cpp - Binding arguments to weights by name --------------===//

#include "Transformer/Runner/Parameters.h"

using namespace mlir::transformer::runner;

llvm::Expected<std::vector<std::optional<HostTensor>>>
mlir::transformer::runner::bindParameters(const EntrySignature &signature,
                                          llvm::StringRef entry,
                                          WeightFile &file) {
  std::vector<std::optional<HostTensor>> bound;
  for (auto [i, arg] : llvm::enumerate(signature.arguments)) {
    if (arg.parameter.empty()) {
      bound.push_back(std::nullopt);
      continue;
    }
    if (arg.isScalar)
      return llvm::createStringError(
          "argument " + llvm::Twine(i) + " of @" + entry + " (parameter '" +
          arg.parameter + "') is a scalar; only tensors are bound by name");
    llvm::Expected<HostTensor> tensor =
        !arg.blockFormat.empty()
            ? file.getBlockTensor(arg.parameter,
                                  *parseQuantFormat(arg.blockFormat), arg.shape,
                                  arg.transposed)
        : arg.transposed
            ? file.getTransposedTensor(arg.parameter, arg.elementType,
                                       arg.shape)
            : file.getTensor(arg.parameter, arg.elementType, arg.shape);
    if (!tensor)
      return llvm::createStringError(
          llvm::toString(tensor.takeError()) + " (argument " + llvm::Twine(i) +
          " of @" + entry +
          (arg.transposed && arg.blockFormat.empty() ? ", bound transposed"
                                                     : "") +
          ")");
    bound.push_back(std::move(*tensor));
  }
  return bound;
}
