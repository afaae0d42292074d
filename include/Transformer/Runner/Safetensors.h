//===- Safetensors.h - Model weights in a .safetensors file -----*- C++ -*-===//
//
// A .safetensors file (8-byte little-endian header length, a JSON header
// naming each tensor's dtype, shape and byte range, then the raw data) mapped
// into memory once and validated as a whole when it is opened. Tensors are
// handed out as HostTensors: data of the argument's type is a view into the
// mapping (no copy); F32, F16 and BF16 data for another float type is
// converted once. Kept free of MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_SAFETENSORS_H
#define TRANSFORMER_RUNNER_SAFETENSORS_H

#include "Transformer/Runner/WeightFile.h"

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class WritableMemoryBuffer;
} // namespace llvm

namespace mlir::transformer::runner {

/// An opened, validated .safetensors file.
class SafetensorsFile : public WeightFile {
public:
  /// One tensor of the header.
  struct Entry {
    std::string name;
    /// As written in the file: `F32`, `F16`, `BF16`, `I64`, ...
    std::string dtype;
    llvm::SmallVector<int64_t> shape;
    /// Byte range inside the data section (after the header).
    uint64_t begin = 0, end = 0;
  };

  /// Maps `path` (privately: compiled code that writes into a weight
  /// changes only its own copy of the page) and validates it: the header
  /// length, the JSON, every dtype, shape and range (inside the data, of the
  /// size its dtype and shape give, no two overlapping). Each problem is one
  /// line naming the file and the tensor.
  static llvm::Expected<std::shared_ptr<SafetensorsFile>>
  open(llvm::StringRef path);
  /// The same on bytes already in memory; `name` is used in messages.
  static llvm::Expected<std::shared_ptr<SafetensorsFile>>
  parse(std::unique_ptr<llvm::WritableMemoryBuffer> buffer,
        llvm::StringRef name);
  ~SafetensorsFile() override;

  /// The tensor named `name`, or `transformer.<name>` (the prefix of
  /// checkpoints saved from a model with a head); null when neither exists.
  const Entry *lookup(llvm::StringRef name) const;

  /// Tensor `name` as a HostTensor of `type` and `shape` (what the function
  /// argument it is bound to declares; a dynamic dim, < 0, takes the file's
  /// size). Data of the argument's type is not copied (the tensor keeps the
  /// mapping alive); F32/F16/BF16 data for another float type is converted
  /// (rounded to nearest even when narrowing). A missing name, another
  /// dtype or shape is an error naming the tensor.
  llvm::Expected<PendingTensor>
  prepareTensor(llvm::StringRef name, ElementType type,
                llvm::ArrayRef<int64_t> shape) override;

  llvm::ArrayRef<Entry> getEntries() const { return entries; }
  llvm::StringRef getPath() const override { return path; }

private:
  SafetensorsFile() = default;
  std::string path;
  /// Start of the data section inside the buffer.
  char *data = nullptr;
  std::vector<Entry> entries;
  llvm::StringMap<size_t> byName;
};

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_SAFETENSORS_H
