//===- WeightFile.cpp - A file of named weights ---------------------------===//

#include "Transformer/Runner/WeightFile.h"
#include "Transformer/Runner/Gguf.h"
#include "Transformer/Runner/Safetensors.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

using namespace mlir::transformer;
using namespace mlir::transformer::runner;

WeightFile::~WeightFile() = default;

llvm::Expected<std::shared_ptr<WeightFile>>
runner::openWeightFile(llvm::StringRef path) {
  // The first four bytes decide; a file too short for them goes to the
  // safetensors reader, whose error names the problem.
  char magic[4] = {};
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> head =
      llvm::MemoryBuffer::getFileSlice(path, 4, 0);
  if (head && (*head)->getBufferSize() == 4)
    std::memcpy(magic, (*head)->getBufferStart(), 4);
  if (std::memcmp(magic, "GGUF", 4) == 0) {
    llvm::Expected<std::shared_ptr<GgufFile>> file = GgufFile::open(path);
    if (!file)
      return file.takeError();
    return std::shared_ptr<WeightFile>(std::move(*file));
  }
  llvm::Expected<std::shared_ptr<SafetensorsFile>> file =
      SafetensorsFile::open(path);
  if (!file)
    return file.takeError();
  return std::shared_ptr<WeightFile>(std::move(*file));
}

std::string runner::shapeString(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "[]";
  return "[" +
         llvm::join(llvm::map_range(shape,
                                    [](int64_t d) {
                                      return d < 0 ? std::string("?")
                                                   : std::to_string(d);
                                    }),
                    ", ") +
         "]";
}
