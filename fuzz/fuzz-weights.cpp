//===- fuzz-weights.cpp - Fuzz the weight-file readers --------------------===//
//
// The first byte picks the reader: .safetensors or GGUF, parsed from memory;
// every tensor of a file that opens is then bound as f32 and as bf16 with
// the file's own shape (conversions, transposes by name mapping included).
// Errors are fine; crashes, sanitizer reports and leaks are bugs.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Runner/Gguf.h"
#include "Transformer/Runner/Safetensors.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <cstring>

using namespace mlir::transformer::runner;

namespace {
/// Binds every tensor of `file` (each entry's name and shape) as `type`.
template <typename File> void bindAll(File &file, ElementType type) {
  for (const auto &entry : file.getEntries()) {
    llvm::Expected<HostTensor> tensor =
        file.getTensor(entry.name, type, entry.shape);
    if (!tensor)
      llvm::consumeError(tensor.takeError());
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Keep allocations small so the fuzzer explores instead of memsetting.
  setMaxTensorBytes(uint64_t(1) << 24);
  if (size == 0)
    return 0;
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(size - 1, "fuzz");
  std::memcpy(buffer->getBufferStart(), data + 1, size - 1);
  if (data[0] & 1) {
    auto file = GgufFile::parse(std::move(buffer), "fuzz.gguf");
    if (!file) {
      llvm::consumeError(file.takeError());
      return 0;
    }
    bindAll(**file, ElementType::F32);
    bindAll(**file, ElementType::BF16);
    // The GPT-2 names, which map to transposed GGUF tensors.
    for (const char *name : {"wte.weight", "h.0.attn.c_attn.weight"}) {
      llvm::Expected<HostTensor> tensor =
          (*file)->getTensor(name, ElementType::F32, {-1, -1});
      if (!tensor)
        llvm::consumeError(tensor.takeError());
    }
    return 0;
  }
  auto file = SafetensorsFile::parse(std::move(buffer), "fuzz.safetensors");
  if (!file) {
    llvm::consumeError(file.takeError());
    return 0;
  }
  bindAll(**file, ElementType::F32);
  bindAll(**file, ElementType::F16);
  return 0;
}
