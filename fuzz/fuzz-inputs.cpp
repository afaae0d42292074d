//===- fuzz-inputs.cpp - Fuzz transformer-run's input parsers -------------===//
//
// The first byte picks the parser: the .npy reader, or the value-spec parser
// (inline values, splats, shapes) with printing and comparison of what it
// parsed. Errors are fine; crashes, sanitizer reports and leaks are bugs.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Runner/Npy.h"
#include "Transformer/Runner/Values.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>

using namespace mlir::transformer::runner;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Keep allocations small so the fuzzer explores instead of memsetting.
  setMaxTensorBytes(uint64_t(1) << 24);
  if (size == 0)
    return 0;
  llvm::StringRef text(reinterpret_cast<const char *>(data) + 1, size - 1);
  if (data[0] & 1) {
    llvm::Expected<HostTensor> tensor = parseNpy(text);
    if (!tensor) {
      llvm::consumeError(tensor.takeError());
      return 0;
    }
    std::string out;
    llvm::raw_string_ostream os(out);
    printValue(os, *tensor, 64);
    return 0;
  }
  std::optional<ElementType> scalar;
  if (data[0] & 2)
    scalar = static_cast<ElementType>((data[0] >> 2) & 3);
  // `@file` specs would read the disk: not part of this target.
  if (text.starts_with("@") || text.contains("=@"))
    return 0;
  llvm::Expected<HostTensor> value = parseValueSpec(text, /*seed=*/0, scalar);
  if (!value) {
    llvm::consumeError(value.takeError());
    return 0;
  }
  std::string out;
  llvm::raw_string_ostream os(out);
  printValue(os, *value, (data[0] >> 4) + 1);
  (void)compareValues(*value, *value, 1e-4);
  return 0;
}
