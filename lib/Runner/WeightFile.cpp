//===- WeightFile.cpp - A file of named weights ---------------------------===//

#include "Transformer/Runner/WeightFile.h"
#include "Transformer/Runner/Gguf.h"
#include "Transformer/Runner/Safetensors.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <limits>

using namespace mlir::transformer;
using namespace mlir::transformer::runner;

WeightFile::~WeightFile() = default;

llvm::Error runner::checkBlockShape(llvm::StringRef name, QuantFormat format,
                                    llvm::ArrayRef<int64_t> shape) {
  if (shape.size() == 3 && shape[0] >= 0 && shape[1] >= 0 &&
      shape[1] <= std::numeric_limits<int64_t>::max() / kQuantBlockWeights &&
      shape[2] == quantBlockBytes(format))
    return llvm::Error::success();
  return llvm::createStringError(
      "parameter '" + name + "': a " + quantFormatName(format) +
      " argument must be a static [rows, blocks, " +
      llvm::Twine(quantBlockBytes(format)) + "], got " + shapeString(shape));
}

llvm::Expected<HostTensor>
WeightFile::getBlockTensor(llvm::StringRef name, QuantFormat format,
                           llvm::ArrayRef<int64_t> shape, bool transposed) {
  if (llvm::Error error = checkBlockShape(name, format, shape))
    return std::move(error);
  int64_t rows = shape[0], columns = shape[1] * kQuantBlockWeights;
  llvm::SmallVector<int64_t> fileShape = {rows, columns};
  if (transposed)
    std::swap(fileShape[0], fileShape[1]);
  llvm::Expected<HostTensor> weights =
      getTensor(name, ElementType::F32, fileShape);
  if (!weights)
    return weights.takeError();
  llvm::Expected<HostTensor> blocks =
      HostTensor::allocate(ElementType::I8, shape);
  if (!blocks)
    return llvm::createStringError("parameter '" + name +
                                   "': " + llvm::toString(blocks.takeError()));
  const float *from = static_cast<const float *>(weights->getData());
  auto *to = static_cast<uint8_t *>(blocks->getData());
  int64_t rowBytes = shape[1] * shape[2];
  std::vector<float> row(transposed ? columns : 0);
  for (int64_t r = 0; r < rows; ++r) {
    const float *source = from + r * columns;
    if (transposed) {
      for (int64_t c = 0; c < columns; ++c)
        row[c] = from[c * rows + r];
      source = row.data();
    }
    quantizeRow(format, source, columns, to + r * rowBytes);
  }
  return blocks;
}

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
