//===- HostTensor.h - Tensors and scalars held by transformer-run -*- C++
//-*-===//
//
// The values transformer-run passes to and receives from compiled functions:
// dense row-major arrays of f32, f16, bf16, i32 or i64 (index is held as
// i64), or scalars
// (rank 0). Kept free of MLIR headers so that the input parsers can be fuzzed
// on their own.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_HOSTTENSOR_H
#define TRANSFORMER_RUNNER_HOSTTENSOR_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace mlir::transformer::runner {

enum class ElementType { F32, F16, BF16, I8, I32, I64, Index };

/// `f32`, `f16`, `bf16`, `i8`, `i32`, `i64`, `index`.
llvm::StringRef elementTypeName(ElementType type);
std::optional<ElementType> parseElementType(llvm::StringRef name);
/// Bytes per element (index is stored as 64 bits).
size_t elementSize(ElementType type);
/// f32, f16 or bf16.
bool isFloatType(ElementType type);

/// The largest tensor the runner will allocate for an input or an expected
/// output (1 GiB by default): a bigger declared shape is an error, not an
/// allocation. The fuzzer lowers it.
uint64_t getMaxTensorBytes();
void setMaxTensorBytes(uint64_t bytes);

/// Frees memory from std::aligned_alloc.
struct FreeDeleter {
  void operator()(void *ptr) const { std::free(ptr); }
};

/// An owning dense row-major tensor (or a scalar when `isScalar`).
class HostTensor {
public:
  /// Allocates a zero-filled tensor; fails when the size overflows or is
  /// above getMaxTensorBytes().
  static llvm::Expected<HostTensor> allocate(ElementType type,
                                             llvm::ArrayRef<int64_t> shape,
                                             bool isScalar = false);
  /// As allocate, for a tensor that is written whole right away (a weight
  /// converted or transposed when bound): its pages are first touched by
  /// that write, not by zeroing them before.
  static llvm::Expected<HostTensor>
  allocateUninitialized(ElementType type, llvm::ArrayRef<int64_t> shape,
                        bool isScalar = false);
  /// Wraps dense row-major `data` without copying it. `owner` keeps the
  /// memory alive (and frees it last): a buffer returned by compiled code, a
  /// mapped file, ... `data` may point anywhere inside what `owner` holds.
  static HostTensor wrap(ElementType type, llvm::ArrayRef<int64_t> shape,
                         void *data, std::shared_ptr<void> owner);
  /// Takes a buffer from malloc/aligned_alloc (for example one the compiled
  /// code returned): it is freed with std::free when the tensor dies.
  static HostTensor adoptMalloced(ElementType type,
                                  llvm::ArrayRef<int64_t> shape, void *data,
                                  void *mallocPtr);

  HostTensor() = default;
  HostTensor(HostTensor &&) = default;
  HostTensor &operator=(HostTensor &&) = default;
  /// Tensors are moved, never copied: a copy would silently share the data.
  HostTensor(const HostTensor &) = delete;
  HostTensor &operator=(const HostTensor &) = delete;
  /// A tensor on the same data, which it keeps alive, when this one owns its
  /// data; std::nullopt otherwise. For a result that is an argument the
  /// compiled code wrote in place (`transformer.in_place`): sharing is then
  /// what the program asked for.
  std::optional<HostTensor> shareData() const;

  ElementType getElementType() const { return type; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  bool isScalar() const { return scalar; }
  int64_t getRank() const { return shape.size(); }
  int64_t getNumElements() const { return numElements; }
  size_t getNumBytes() const { return numElements * elementSize(type); }
  void *getData() { return data; }
  const void *getData() const { return data; }

  /// Element `i` (row-major) converted to double, for printing and compares.
  double getAsDouble(int64_t i) const;
  /// Sets element `i` from a double (rounded for integers).
  void setFromDouble(int64_t i, double value);

  /// `2x3xf32`, or `f32` for a scalar.
  std::string getTypeString() const;

private:
  ElementType type = ElementType::F32;
  llvm::SmallVector<int64_t> shape;
  bool scalar = false;
  int64_t numElements = 0;
  /// Keeps `data` alive; shared only between the moved-from and moved-to
  /// tensor of a move.
  std::shared_ptr<void> owner;
  char *data = nullptr;
  /// Fresh from a mapping of its own, so already zero (allocate).
  bool zeroed = false;
};

/// Element `i` of the little-endian float data `data` of `type` (f32, f16,
/// bf16) as f32, exactly; `data` need not be aligned (a mapped file's).
float loadFloat(const void *data, ElementType type, int64_t i);
/// Stores `value` as element `i` of the float data `data` of `type`,
/// rounded to nearest even when `type` is narrower than f32.
void storeFloat(void *data, ElementType type, int64_t i, float value);

/// `value` with the float type `type`: itself when it has that type, else a
/// converted copy when both are float types (f32, f16, bf16; narrowing
/// rounds to nearest even), as transformer-run binds an f32 input or weight
/// to a 16-bit argument. Fails, naming both types, for any other pair.
llvm::Expected<HostTensor> convertFloats(HostTensor value, ElementType type);

/// Multiplies out `shape` into an element count, failing on negative dims or
/// when the byte size would exceed getMaxTensorBytes().
llvm::Expected<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape,
                                           ElementType type);

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_HOSTTENSOR_H
