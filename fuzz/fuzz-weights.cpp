//===- fuzz-weights.cpp - Fuzz the weight-file readers --------------------===//
//
// The first byte picks the reader: .safetensors or GGUF, parsed from memory;
// every tensor of a file that opens is then bound as f32 and as bf16 with
// the file's own shape (conversions, transposes by name mapping included),
// and each 2-D one as q8_0 and q4_0 blocks (quantized at binding, or bound
// as they are).
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

/// Binds every 2-D tensor [rows, K] of `file` as blocks [rows, K/32, bytes]
/// of both formats, as stored and transposed.
template <typename File> void bindAllBlocks(File &file) {
  for (const auto &entry : file.getEntries()) {
    if (entry.shape.size() != 2)
      continue;
    for (QuantFormat format : {QuantFormat::Q8_0, QuantFormat::Q4_0})
      for (bool transposed : {false, true}) {
        int64_t rows = entry.shape[transposed ? 1 : 0];
        int64_t width = entry.shape[transposed ? 0 : 1];
        llvm::Expected<HostTensor> tensor = file.getBlockTensor(
            entry.name, format,
            {rows, width / kQuantBlockWeights, quantBlockBytes(format)},
            transposed);
        if (!tensor)
          llvm::consumeError(tensor.takeError());
      }
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
    bindAllBlocks(**file);
    // The GPT-2 names, which map to transposed GGUF tensors, and the
    // Llama ones, whose q/k rows are reordered by the metadata's head
    // counts (architecture `llama`).
    for (const char *name : {"wte.weight", "h.0.attn.c_attn.weight",
                             "model.layers.0.self_attn.q_proj.weight",
                             "model.layers.0.self_attn.k_proj.weight"}) {
      llvm::Expected<HostTensor> tensor =
          (*file)->getTensor(name, ElementType::F32, {-1, -1});
      if (!tensor)
        llvm::consumeError(tensor.takeError());
    }
    llvm::Expected<HostTensor> bias = (*file)->getTensor(
        "model.layers.0.self_attn.q_proj.bias", ElementType::F16, {-1});
    if (!bias)
      llvm::consumeError(bias.takeError());
    if (const GgufFile::Entry *q = (*file)->lookup("blk.0.attn_q.weight"))
      if (q->shape.size() == 2)
        for (QuantFormat format : {QuantFormat::Q8_0, QuantFormat::Q4_0}) {
          llvm::Expected<HostTensor> blocks = (*file)->getBlockTensor(
              "model.layers.0.self_attn.q_proj.weight", format,
              {q->shape[0], q->shape[1] / kQuantBlockWeights,
               quantBlockBytes(format)},
              /*transposed=*/false);
          if (!blocks)
            llvm::consumeError(blocks.takeError());
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
  bindAllBlocks(**file);
  return 0;
}
