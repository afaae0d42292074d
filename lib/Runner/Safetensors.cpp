//===- Safetensors.cpp - Model weights in a .safetensors file -------------===//
//
// Format (https://github.com/huggingface/safetensors): an unsigned 64-bit
// little-endian header length N, N bytes of JSON (an object mapping each
// tensor name to {"dtype", "shape", "data_offsets": [begin, end]}, plus an
// optional "__metadata__" object of strings), then the data; offsets are
// relative to the end of the header.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Runner/Safetensors.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstring>

using namespace mlir::transformer::runner;

namespace {
/// Bytes per element of the dtypes the format defines.
std::optional<uint64_t> dtypeSize(llvm::StringRef dtype) {
  for (llvm::StringRef d : {"F64", "I64", "U64"})
    if (dtype == d)
      return 8;
  for (llvm::StringRef d : {"F32", "I32", "U32"})
    if (dtype == d)
      return 4;
  for (llvm::StringRef d : {"F16", "BF16", "I16", "U16"})
    if (dtype == d)
      return 2;
  for (llvm::StringRef d : {"I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2"})
    if (dtype == d)
      return 1;
  return std::nullopt;
}

/// Parses one header entry; the error names the tensor.
llvm::Expected<SafetensorsFile::Entry>
parseEntry(llvm::StringRef name, const llvm::json::Value &value,
           uint64_t dataSize) {
  auto error = [&](const llvm::Twine &why) {
    return llvm::createStringError("tensor '" + name + "': " + why);
  };
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return error("the header entry is not a JSON object");
  SafetensorsFile::Entry entry;
  entry.name = name.str();
  std::optional<llvm::StringRef> dtype = object->getString("dtype");
  if (!dtype)
    return error("no \"dtype\" string");
  std::optional<uint64_t> elemSize = dtypeSize(*dtype);
  if (!elemSize)
    return error("unknown dtype '" + *dtype + "'");
  entry.dtype = dtype->str();
  const llvm::json::Array *shape = object->getArray("shape");
  if (!shape)
    return error("no \"shape\" array");
  // Element count, guarding against overflow (the range check below then
  // bounds it by the file size).
  uint64_t count = 1;
  bool overflow = false;
  for (const llvm::json::Value &dim : *shape) {
    std::optional<int64_t> d = dim.getAsInteger();
    if (!d || *d < 0)
      return error("\"shape\" holds something other than non-negative "
                   "integers");
    entry.shape.push_back(*d);
    if (*d != 0 && count > UINT64_MAX / *elemSize / static_cast<uint64_t>(*d))
      overflow = true;
    else
      count *= static_cast<uint64_t>(*d);
  }
  if (llvm::is_contained(entry.shape, 0))
    overflow = false, count = 0;
  const llvm::json::Array *offsets = object->getArray("data_offsets");
  if (!offsets || offsets->size() != 2)
    return error("no \"data_offsets\" pair [begin, end]");
  std::optional<int64_t> begin = (*offsets)[0].getAsInteger();
  std::optional<int64_t> end = (*offsets)[1].getAsInteger();
  if (!begin || !end || *begin < 0 || *end < *begin)
    return error("\"data_offsets\" is not a range [begin, end] of "
                 "non-negative integers");
  entry.begin = *begin;
  entry.end = *end;
  if (entry.end > dataSize)
    return error("data_offsets [" + llvm::Twine(entry.begin) + ", " +
                 llvm::Twine(entry.end) + ") go past the end of the data (" +
                 llvm::Twine(dataSize) + " bytes; is the file truncated?)");
  if (overflow || entry.end - entry.begin != count * *elemSize)
    return error(
        "data_offsets [" + llvm::Twine(entry.begin) + ", " +
        llvm::Twine(entry.end) + ") hold " +
        llvm::Twine(entry.end - entry.begin) + " bytes, but " + entry.dtype +
        " " + shapeString(entry.shape) + " needs " +
        (overflow ? std::string("more") : std::to_string(count * *elemSize)));
  return entry;
}
} // namespace

SafetensorsFile::~SafetensorsFile() = default;

llvm::Expected<std::shared_ptr<SafetensorsFile>>
SafetensorsFile::open(llvm::StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::WritableMemoryBuffer>> buffer =
      readWeightFileBytes(path);
  if (!buffer)
    return buffer.takeError();
  return parse(std::move(*buffer), path);
}

llvm::Expected<std::shared_ptr<SafetensorsFile>>
SafetensorsFile::parse(std::unique_ptr<llvm::WritableMemoryBuffer> buffer,
                       llvm::StringRef name) {
  auto error = [&](const llvm::Twine &why) {
    return llvm::createStringError(name + ": " + why);
  };
  uint64_t size = buffer->getBufferSize();
  if (size < 8)
    return error("not a .safetensors file (" + llvm::Twine(size) +
                 " bytes, shorter than the 8-byte header length)");
  const char *start = buffer->getBufferStart();
  uint64_t headerLength =
      llvm::support::endian::read64le(reinterpret_cast<const void *>(start));
  if (headerLength < 2 || headerLength > size - 8)
    return error("bad header length " + llvm::Twine(headerLength) + " (the " +
                 "file holds " + llvm::Twine(size - 8) +
                 " bytes after it; truncated or not a .safetensors file)");
  llvm::StringRef header(start + 8, headerLength);
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(header);
  if (!json)
    return error("the header is not valid JSON: " +
                 llvm::toString(json.takeError()));
  const llvm::json::Object *object = json->getAsObject();
  if (!object)
    return error("the header is not a JSON object");

  std::shared_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->path = name.str();
  uint64_t dataSize = size - 8 - headerLength;
  for (const auto &[key, value] : *object) {
    if (key == "__metadata__")
      continue;
    llvm::Expected<Entry> entry = parseEntry(key, value, dataSize);
    if (!entry)
      return error(llvm::toString(entry.takeError()));
    file->entries.push_back(std::move(*entry));
  }
  // No two tensors share bytes. (Empty tensors hold no bytes.)
  std::vector<const Entry *> sorted;
  for (const Entry &entry : file->entries)
    if (entry.end > entry.begin)
      sorted.push_back(&entry);
  llvm::sort(sorted, [](const Entry *a, const Entry *b) {
    return std::tie(a->begin, a->name) < std::tie(b->begin, b->name);
  });
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i]->begin < sorted[i - 1]->end)
      return error("tensor '" + sorted[i]->name + "': data_offsets [" +
                   llvm::Twine(sorted[i]->begin) + ", " +
                   llvm::Twine(sorted[i]->end) + ") overlap those of '" +
                   sorted[i - 1]->name + "' [" +
                   llvm::Twine(sorted[i - 1]->begin) + ", " +
                   llvm::Twine(sorted[i - 1]->end) + ")");
  for (auto [i, entry] : llvm::enumerate(file->entries))
    file->byName[entry.name] = i;
  file->data = buffer->getBufferStart() + 8 + headerLength;
  file->buffer = std::move(buffer);
  return file;
}

const SafetensorsFile::Entry *
SafetensorsFile::lookup(llvm::StringRef name) const {
  auto it = byName.find(name);
  if (it == byName.end())
    it = byName.find(("transformer." + name).str());
  if (it == byName.end())
    return nullptr;
  return &entries[it->second];
}

llvm::Expected<PendingTensor>
SafetensorsFile::prepareTensor(llvm::StringRef name, ElementType type,
                               llvm::ArrayRef<int64_t> shape) {
  const Entry *entry = lookup(name);
  if (!entry)
    return parameterError(name, "no tensor of that name (or 'transformer." +
                                    name + "') in '" + path + "'");
  bool shapeMatches = shape.size() == entry->shape.size();
  for (auto [want, have] : llvm::zip(shape, entry->shape))
    shapeMatches &= want < 0 || want == have;
  if (!shapeMatches) {
    return parameterError(name, "the function expects shape " +
                                    shapeString(shape) + ", the file has " +
                                    shapeString(entry->shape) + " (" +
                                    entry->dtype + ")");
  }
  char *bytes = data + entry->begin;
  llvm::StringRef dtype = entry->dtype;
  bool exact = (type == ElementType::F32 && dtype == "F32") ||
               (type == ElementType::F16 && dtype == "F16") ||
               (type == ElementType::BF16 && dtype == "BF16") ||
               (type == ElementType::I8 && dtype == "I8") ||
               (type == ElementType::I32 && dtype == "I32") ||
               ((type == ElementType::I64 || type == ElementType::Index) &&
                dtype == "I64");
  // Zero copy when the data is aligned for its element type (the format
  // does not promise it; a misaligned tensor is copied once).
  if (exact && reinterpret_cast<uintptr_t>(bytes) % elementSize(type) == 0)
    return PendingTensor([this, type, entry, bytes] {
      return HostTensor::wrap(type, entry->shape, bytes, buffer);
    });
  // Float weights convert to the argument's float type once, when read.
  bool convertible = isFloatType(type) &&
                     (dtype == "F32" || dtype == "F16" || dtype == "BF16");
  if (!exact && !convertible)
    return parameterError(name, "dtype " + dtype + " cannot be bound to an " +
                                    "argument of " + elementTypeName(type) +
                                    " (accepted: " +
                                    (isFloatType(type) ? "F32, F16, BF16"
                                     : type == ElementType::I8  ? "I8"
                                     : type == ElementType::I32 ? "I32"
                                                                : "I64") +
                                    ")");
  return PendingTensor([this, name = name.str(), type, entry, bytes,
                        exact]() -> llvm::Expected<HostTensor> {
    llvm::Expected<HostTensor> tensor =
        HostTensor::allocateUninitialized(type, entry->shape);
    if (!tensor)
      return parameterError(name, llvm::toString(tensor.takeError()));
    // The file's pages go back as they are read (dropPages), so that a
    // large tensor is never resident twice, in the file and in its copy.
    if (exact) {
      auto *to = static_cast<char *>(tensor->getData());
      for (size_t done = 0, total = tensor->getNumBytes(); done < total;
           done += kDropChunkBytes) {
        size_t chunk = std::min<size_t>(kDropChunkBytes, total - done);
        std::memcpy(to + done, bytes + done, chunk);
        dropPages(bytes + done, chunk);
      }
      return tensor;
    }
    // The file's values as f32 (exact for F16 and BF16), then rounded to
    // the argument's type when that is narrower.
    ElementType fileType = entry->dtype == "F32"   ? ElementType::F32
                           : entry->dtype == "F16" ? ElementType::F16
                                                   : ElementType::BF16;
    int64_t fileElementBytes = elementSize(fileType);
    int64_t chunkElements = kDropChunkBytes / fileElementBytes;
    for (int64_t i0 = 0, e = tensor->getNumElements(); i0 < e;
         i0 += chunkElements) {
      int64_t i1 = std::min(e, i0 + chunkElements);
      for (int64_t i = i0; i < i1; ++i)
        storeFloat(tensor->getData(), type, i, loadFloat(bytes, fileType, i));
      dropPages(bytes + i0 * fileElementBytes, (i1 - i0) * fileElementBytes);
    }
    return tensor;
  });
}
