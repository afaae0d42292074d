//===- HostTensor.cpp - Tensors and scalars held by transformer-run -------===//

#include "Transformer/Runner/HostTensor.h"
#include "Transformer/Runner/HalfFloat.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"

#include <cmath>
#include <sys/mman.h>

#include <cstring>

using namespace mlir::transformer;
using namespace mlir::transformer::runner;

llvm::StringRef runner::elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::I8:
    return "i8";
  case ElementType::I32:
    return "i32";
  case ElementType::I64:
    return "i64";
  case ElementType::Index:
    return "index";
  }
  return "?";
}

std::optional<ElementType> runner::parseElementType(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ElementType>>(name)
      .Case("f32", ElementType::F32)
      .Case("f16", ElementType::F16)
      .Case("bf16", ElementType::BF16)
      .Case("i8", ElementType::I8)
      .Case("i32", ElementType::I32)
      .Case("i64", ElementType::I64)
      .Case("index", ElementType::Index)
      .Default(std::nullopt);
}

size_t runner::elementSize(ElementType type) {
  switch (type) {
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  case ElementType::I8:
    return 1;
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  case ElementType::I64:
  case ElementType::Index:
    return 8;
  }
  return 8;
}

bool runner::isFloatType(ElementType type) {
  return type == ElementType::F32 || type == ElementType::F16 ||
         type == ElementType::BF16;
}

static uint64_t maxTensorBytes = uint64_t(1) << 30;
uint64_t runner::getMaxTensorBytes() { return maxTensorBytes; }
void runner::setMaxTensorBytes(uint64_t bytes) { maxTensorBytes = bytes; }

llvm::Expected<int64_t>
runner::checkedNumElements(llvm::ArrayRef<int64_t> shape, ElementType type) {
  // The product of the non-zero dims is bounded too: strides are computed
  // from them even when a zero dim makes the tensor empty.
  uint64_t nonZero = 1;
  bool empty = false;
  uint64_t limit = maxTensorBytes / elementSize(type);
  for (int64_t dim : shape) {
    if (dim < 0)
      return llvm::createStringError("negative dimension %lld",
                                     static_cast<long long>(dim));
    if (dim == 0) {
      empty = true;
      continue;
    }
    if (nonZero > limit / static_cast<uint64_t>(dim))
      return llvm::createStringError(
          "tensor of %s elements is larger than the %llu MiB limit",
          llvm::join(llvm::map_range(
                         shape, [](int64_t d) { return std::to_string(d); }),
                     "x")
              .c_str(),
          static_cast<unsigned long long>(maxTensorBytes >> 20));
    nonZero *= dim;
  }
  return empty ? 0 : static_cast<int64_t>(nonZero);
}

namespace {
/// Tensors of this size and more get a mapping of their own, in transparent
/// huge pages where the system gives them on request: the weights bound at
/// load (1.4 GB of projections for a 0.5B model) are then faulted in 2 MiB
/// at a time rather than 4 KiB, they come zeroed, and freeing one gives
/// its memory back.
constexpr size_t kMappedTensorBytes = size_t(2) << 20;
} // namespace

llvm::Expected<HostTensor> HostTensor::allocate(ElementType type,
                                                llvm::ArrayRef<int64_t> shape,
                                                bool isScalar) {
  llvm::Expected<HostTensor> tensor =
      allocateUninitialized(type, shape, isScalar);
  if (tensor && !tensor->zeroed)
    std::memset(tensor->data, 0, tensor->getNumBytes());
  return tensor;
}

llvm::Expected<HostTensor> HostTensor::allocateUninitialized(
    ElementType type, llvm::ArrayRef<int64_t> shape, bool isScalar) {
  llvm::Expected<int64_t> count = checkedNumElements(shape, type);
  if (!count)
    return count.takeError();
  HostTensor tensor;
  tensor.type = type;
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.scalar = isScalar;
  tensor.numElements = *count;
  // 64-byte alignment suits vector loads; aligned_alloc needs a multiple of
  // the alignment and a non-zero size.
  size_t bytes = std::max<size_t>(64, (tensor.getNumBytes() + 63) / 64 * 64);
  if (bytes >= kMappedTensorBytes) {
    void *ptr = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ptr == MAP_FAILED)
      return llvm::createStringError("out of memory mapping %zu bytes", bytes);
    madvise(ptr, bytes, MADV_HUGEPAGE);
    tensor.owner.reset(ptr, [bytes](void *p) { munmap(p, bytes); });
    tensor.data = static_cast<char *>(ptr);
    tensor.zeroed = true;
    return tensor;
  }
  void *ptr = std::aligned_alloc(64, bytes);
  if (!ptr)
    return llvm::createStringError("out of memory allocating %zu bytes", bytes);
  tensor.owner.reset(ptr, FreeDeleter());
  tensor.data = static_cast<char *>(ptr);
  return tensor;
}

HostTensor HostTensor::wrap(ElementType type, llvm::ArrayRef<int64_t> shape,
                            void *data, std::shared_ptr<void> owner) {
  HostTensor tensor;
  tensor.type = type;
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.numElements = 1;
  for (int64_t dim : shape)
    tensor.numElements *= dim;
  tensor.owner = std::move(owner);
  tensor.data = static_cast<char *>(data);
  return tensor;
}

HostTensor HostTensor::adoptMalloced(ElementType type,
                                     llvm::ArrayRef<int64_t> shape, void *data,
                                     void *mallocPtr) {
  return wrap(type, shape, data,
              std::shared_ptr<void>(mallocPtr, FreeDeleter()));
}

double HostTensor::getAsDouble(int64_t i) const {
  switch (type) {
  case ElementType::F32:
    return static_cast<const float *>(getData())[i];
  case ElementType::F16:
  case ElementType::BF16:
    return loadFloat(getData(), type, i);
  case ElementType::I8:
    return static_cast<const int8_t *>(getData())[i];
  case ElementType::I32:
    return static_cast<const int32_t *>(getData())[i];
  case ElementType::I64:
  case ElementType::Index:
    return static_cast<double>(static_cast<const int64_t *>(getData())[i]);
  }
  return 0;
}

void HostTensor::setFromDouble(int64_t i, double value) {
  switch (type) {
  case ElementType::F32:
    static_cast<float *>(getData())[i] = static_cast<float>(value);
    return;
  case ElementType::F16:
  case ElementType::BF16:
    storeFloat(getData(), type, i, static_cast<float>(value));
    return;
  case ElementType::I8:
    static_cast<int8_t *>(getData())[i] = static_cast<int8_t>(value);
    return;
  case ElementType::I32:
    static_cast<int32_t *>(getData())[i] = static_cast<int32_t>(value);
    return;
  case ElementType::I64:
  case ElementType::Index:
    static_cast<int64_t *>(getData())[i] = static_cast<int64_t>(value);
    return;
  }
}

std::string HostTensor::getTypeString() const {
  std::string str;
  for (int64_t dim : shape)
    str += std::to_string(dim) + "x";
  return str + elementTypeName(type).str();
}

std::optional<HostTensor> HostTensor::shareData() const {
  if (!owner)
    return std::nullopt;
  HostTensor shared = wrap(type, shape, data, owner);
  shared.scalar = scalar;
  return shared;
}

llvm::Expected<HostTensor> runner::convertFloats(HostTensor value,
                                                 ElementType type) {
  ElementType from = value.getElementType();
  if (from == type)
    return std::move(value);
  if (!isFloatType(from) || !isFloatType(type))
    return llvm::createStringError("cannot convert " +
                                   elementTypeName(from).str() + " values to " +
                                   elementTypeName(type).str());
  llvm::Expected<HostTensor> converted =
      HostTensor::allocate(type, value.getShape(), value.isScalar());
  if (!converted)
    return converted.takeError();
  // Through f32, which holds every f16 and bf16 value exactly (the double
  // of getAsDouble would round twice on the way down from f32).
  for (int64_t i = 0, e = value.getNumElements(); i < e; ++i)
    storeFloat(converted->getData(), type, i,
               loadFloat(value.getData(), from, i));
  return converted;
}

float runner::loadFloat(const void *data, ElementType type, int64_t i) {
  const char *bytes = static_cast<const char *>(data);
  if (type == ElementType::F32) {
    uint32_t bits = llvm::support::endian::read32le(bytes + 4 * i);
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
  uint16_t bits = llvm::support::endian::read16le(bytes + 2 * i);
  return type == ElementType::F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
}

void runner::storeFloat(void *data, ElementType type, int64_t i, float value) {
  if (type == ElementType::F32)
    static_cast<float *>(data)[i] = value;
  else
    static_cast<uint16_t *>(data)[i] =
        type == ElementType::F16 ? floatToHalf(value) : floatToBfloat16(value);
}
