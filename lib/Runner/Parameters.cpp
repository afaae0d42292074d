//===- Parameters.cpp - Binding arguments to weights by name --------------===//

#include "Transformer/Runner/Parameters.h"

#include "llvm/Support/Parallel.h"

#include <cstring>

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

/// `weights` [k, n] of 4- or 2-byte elements laid out in panels `width`
/// columns wide: [n / width, k, width] (ValueSignature::panelWidth), in a
/// new buffer of the same type and shape.
llvm::Expected<HostTensor> layOutInPanels(const HostTensor &weights,
                                          int64_t width) {
  int64_t k = weights.getShape()[0], n = weights.getShape()[1];
  int64_t bytes = static_cast<int64_t>(elementSize(weights.getElementType()));
  if (bytes != 4 && bytes != 2)
    return llvm::createStringError("a " +
                                   elementTypeName(weights.getElementType()) +
                                   " tensor cannot be laid out in panels");
  llvm::Expected<HostTensor> panels = HostTensor::allocateUninitialized(
      weights.getElementType(), weights.getShape());
  if (!panels)
    return panels.takeError();
  const auto *from = static_cast<const char *>(weights.getData());
  auto *to = static_cast<char *>(panels->getData());
  int64_t panelRow = width * bytes, row = n * bytes;
  llvm::parallelFor(0, n / width, [&](size_t panel) {
    char *out = to + panel * k * panelRow;
    for (int64_t r = 0; r < k; ++r)
      std::memcpy(out + r * panelRow, from + r * row + panel * panelRow,
                  panelRow);
  });
  return panels;
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
    std::vector<std::optional<PendingTensor>> &pending,
    const WeightFile *file) {
  std::vector<std::optional<HostTensor>> bound;
  for (auto [i, tensor] : llvm::enumerate(pending)) {
    if (!tensor) {
      // The caller's value is [k, n], not the panels the code reads.
      if (signature.arguments[i].panelWidth > 0)
        return llvm::createStringError(
            "argument " + llvm::Twine(i) + " of @" + entry +
            " is read in panels (transformer.panel_parameters) and must be "
            "bound from a weights file (--parameters)");
      bound.push_back(std::nullopt);
      continue;
    }
    int64_t panelWidth = signature.arguments[i].panelWidth;
    if (panelWidth > 0 && tensor->canReadInPanels()) {
      llvm::Expected<HostTensor> read = tensor->readInPanels(panelWidth);
      if (!read)
        return llvm::createStringError(
            llvm::toString(read.takeError()) +
            describeArgument(i, signature.arguments[i], entry));
      bound.push_back(std::move(*read));
      continue;
    }
    llvm::Expected<HostTensor> read = tensor->read();
    if (read && panelWidth > 0) {
      llvm::Expected<HostTensor> panels = layOutInPanels(*read, panelWidth);
      if (file)
        file->dropPages(read->getData(), read->getNumBytes());
      read = std::move(panels);
    }
    if (!read)
      return llvm::createStringError(
          llvm::toString(read.takeError()) +
          describeArgument(i, signature.arguments[i], entry));
    bound.push_back(std::move(*read));
  }
  return bound;
}
