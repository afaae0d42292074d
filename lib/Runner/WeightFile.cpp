//===- WeightFile.cpp - A file of named weights ---------------------------===//

#include "Transformer/Runner/WeightFile.h"
#include "Transformer/Runner/Gguf.h"
#include "Transformer/Runner/Safetensors.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
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

llvm::Error runner::parameterError(llvm::StringRef name,
                                   const llvm::Twine &why) {
  return llvm::createStringError("parameter '" + name + "': " + why);
}

llvm::Expected<PendingTensor>
WeightFile::prepareBlockTensor(llvm::StringRef name, QuantFormat format,
                               llvm::ArrayRef<int64_t> shape, bool transposed) {
  if (llvm::Error error = checkBlockShape(name, format, shape))
    return std::move(error);
  int64_t rows = shape[0], columns = shape[1] * kQuantBlockWeights;
  llvm::Expected<PendingTensor> weights =
      transposed
          ? prepareTransposedTensor(name, ElementType::F32, {rows, columns})
          : prepareTensor(name, ElementType::F32, {rows, columns});
  if (!weights)
    return weights.takeError();
  return PendingTensor([this, weights = std::move(*weights), name = name.str(),
                        format, shape = llvm::SmallVector<int64_t>(shape), rows,
                        columns]() mutable -> llvm::Expected<HostTensor> {
    llvm::Expected<HostTensor> values = weights.read();
    if (!values)
      return values.takeError();
    llvm::Expected<HostTensor> blocks =
        HostTensor::allocateUninitialized(ElementType::I8, shape);
    if (!blocks)
      return parameterError(name, llvm::toString(blocks.takeError()));
    const float *from = static_cast<const float *>(values->getData());
    auto *to = static_cast<uint8_t *>(blocks->getData());
    int64_t rowBytes = shape[1] * shape[2];
    // The file's pages go back as their rows are read, so that a large
    // table (a 0.5B model's f32 embedding is 545 MB) is never resident whole
    // beside its blocks.
    int64_t rowBytesF32 = columns * static_cast<int64_t>(sizeof(float));
    int64_t rowsPerDrop =
        rowBytesF32 > 0 ? std::max<int64_t>(1, kDropChunkBytes / rowBytesF32)
                        : std::max<int64_t>(rows, 1);
    for (int64_t r0 = 0; r0 < rows; r0 += rowsPerDrop) {
      int64_t r1 = std::min(rows, r0 + rowsPerDrop);
      for (int64_t r = r0; r < r1; ++r)
        quantizeRow(format, from + r * columns, columns, to + r * rowBytes);
      dropPages(from + r0 * columns, (r1 - r0) * columns * sizeof(float));
    }
    return blocks;
  });
}

namespace {
/// The tensor a `prepare*` call checked, read; or the error it gave.
llvm::Expected<HostTensor> readPrepared(llvm::Expected<PendingTensor> pending) {
  if (!pending)
    return pending.takeError();
  return pending->read();
}
} // namespace

llvm::Expected<HostTensor>
WeightFile::getTensor(llvm::StringRef name, ElementType type,
                      llvm::ArrayRef<int64_t> shape) {
  return readPrepared(prepareTensor(name, type, shape));
}

llvm::Expected<HostTensor>
WeightFile::getBlockTensor(llvm::StringRef name, QuantFormat format,
                           llvm::ArrayRef<int64_t> shape, bool transposed) {
  return readPrepared(prepareBlockTensor(name, format, shape, transposed));
}

llvm::Expected<HostTensor>
WeightFile::getTransposedTensor(llvm::StringRef name, ElementType type,
                                llvm::ArrayRef<int64_t> shape) {
  return readPrepared(prepareTransposedTensor(name, type, shape));
}

namespace {
/// to[r, c] = from[c, r] for r in [r0, r1) of `to` [rows, columns] of
/// `Element`s, in square blocks (each read and written in cache).
template <typename Element>
void transposeRows(const Element *from, Element *to, int64_t rows,
                   int64_t columns, int64_t r0, int64_t r1) {
  constexpr int64_t kBlock = 64;
  for (int64_t c0 = 0; c0 < columns; c0 += kBlock) {
    int64_t c1 = std::min(columns, c0 + kBlock);
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t r = r0; r < r1; ++r)
        to[r * columns + c] = from[c * rows + r];
  }
}

/// to[r, c] = from[c, r] for `to` [rows, columns], spread over the host's
/// threads (a 0.5B model's projections are 1.4 GB); with `panelWidth`, to
/// laid out in panels of that many columns instead ([columns / width,
/// rows, width]): each panel is the transpose of `width` rows of `from`.
template <typename Element>
void transposeInto(const Element *from, Element *to, int64_t rows,
                   int64_t columns, int64_t panelWidth = 0) {
  if (panelWidth > 0) {
    llvm::parallelFor(0, columns / panelWidth, [&](size_t panel) {
      int64_t offset = static_cast<int64_t>(panel) * panelWidth * rows;
      transposeRows(from + offset, to + offset, rows, panelWidth, 0, rows);
    });
    return;
  }
  constexpr int64_t kBlock = 64;
  int64_t rowBlocks = (rows + kBlock - 1) / kBlock;
  llvm::parallelFor(0, rowBlocks, [&](size_t block) {
    int64_t r0 = block * kBlock;
    transposeRows(from, to, rows, columns, r0, std::min(rows, r0 + kBlock));
  });
}

} // namespace

void WeightFile::dropPages(const void *data, size_t bytes) const {
  if (!buffer ||
      buffer->getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap)
    return;
  auto start = reinterpret_cast<uintptr_t>(data);
  auto mapStart = reinterpret_cast<uintptr_t>(buffer->getBufferStart());
  if (start < mapStart || start + bytes > mapStart + buffer->getBufferSize())
    return;
  uintptr_t page = sysconf(_SC_PAGESIZE);
  uintptr_t first = (start + page - 1) / page * page;
  uintptr_t last = (start + bytes) / page * page;
  if (first < last)
    madvise(reinterpret_cast<void *>(first), last - first, MADV_DONTNEED);
}

llvm::Expected<PendingTensor>
WeightFile::prepareTransposedTensor(llvm::StringRef name, ElementType type,
                                    llvm::ArrayRef<int64_t> shape) {
  if (shape.size() != 2)
    return parameterError(name, "only a matrix can be bound transposed, the "
                                "argument is " +
                                    shapeString(shape));
  llvm::Expected<PendingTensor> stored =
      prepareTensor(name, type, {shape[1], shape[0]});
  if (!stored)
    return stored.takeError();
  int64_t bytes = elementSize(type);
  if (bytes != 4 && bytes != 2)
    return parameterError(name, "a " + elementTypeName(type) +
                                    " tensor cannot be bound transposed");
  // Both readers transpose what the one read of the file gives.
  auto read = [this,
               stored = std::make_shared<PendingTensor>(std::move(*stored)),
               name = name.str(), type,
               bytes](int64_t panelWidth) -> llvm::Expected<HostTensor> {
    llvm::Expected<HostTensor> inFile = stored->read();
    if (!inFile)
      return inFile.takeError();
    int64_t rows = inFile->getShape()[1], columns = inFile->getShape()[0];
    if (panelWidth < 0 || (panelWidth > 0 && columns % panelWidth != 0))
      return parameterError(name, "cannot be laid out in panels " +
                                      llvm::Twine(panelWidth) + " wide");
    llvm::Expected<HostTensor> tensor =
        HostTensor::allocateUninitialized(type, {rows, columns});
    if (!tensor)
      return parameterError(name, llvm::toString(tensor.takeError()));
    if (bytes == 4)
      transposeInto(static_cast<const uint32_t *>(inFile->getData()),
                    static_cast<uint32_t *>(tensor->getData()), rows, columns,
                    panelWidth);
    else
      transposeInto(static_cast<const uint16_t *>(inFile->getData()),
                    static_cast<uint16_t *>(tensor->getData()), rows, columns,
                    panelWidth);
    dropPages(inFile->getData(), inFile->getNumBytes());
    return tensor;
  };
  return PendingTensor([read]() mutable { return read(0); },
                       [read](int64_t width) mutable { return read(width); });
}

llvm::Expected<std::unique_ptr<llvm::WritableMemoryBuffer>>
runner::readWeightFileBytes(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::WritableMemoryBuffer>> buffer =
      llvm::WritableMemoryBuffer::getFile(path, /*IsVolatile=*/false);
  if (!buffer)
    return llvm::createStringError("cannot read '" + path +
                                   "': " + buffer.getError().message());
  return std::move(*buffer);
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
