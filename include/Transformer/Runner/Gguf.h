//===- Gguf.h - Model weights in a GGUF file --------------------*- C++ -*-===//
//
// A GGUF file (version 2 or 3, as ggml's gguf.c writes it: magic, counts,
// typed key-values, tensor infos, then the data aligned to
// `general.alignment`) mapped into memory once and validated as a whole when
// it is opened. Tensors are found by their GGUF name or, for the
// architectures the importer knows, by the module's Hugging Face name
// (`h.0.attn.c_attn.weight` is GPT-2's `blk.0.attn_qkv.weight`, stored
// transposed; `model.layers.0.self_attn.q_proj.weight` is Llama's
// `blk.0.attn_q.weight`, its rows in llama.cpp's rope order). Kept free of
// MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_GGUF_H
#define TRANSFORMER_RUNNER_GGUF_H

#include "Transformer/Runner/WeightFile.h"

#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class WritableMemoryBuffer;
} // namespace llvm

namespace mlir::transformer::runner {

/// ggml's tensor types that GGUF files of the supported formats hold.
enum class GgmlType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q8_0 = 8,
  BF16 = 30,
};

/// ggml's name of tensor type `type` (`Q6_K`, ...), or `type N` for a number
/// ggml does not define.
std::string ggmlTypeName(uint32_t type);

/// An opened, validated GGUF file.
class GgufFile : public WeightFile {
public:
  /// One tensor of the file.
  struct Entry {
    std::string name;
    /// ggml's type number (GgmlType for the supported ones).
    uint32_t type = 0;
    /// In row-major (numpy) order: GGUF's dims reversed.
    llvm::SmallVector<int64_t> shape;
    /// Byte range inside the data section; `end` is known (and checked
    /// against the file) for the supported types only.
    uint64_t begin = 0, end = 0;
  };

  /// Maps `path` (privately) and validates it: the magic and version, every
  /// key-value and tensor info (lengths inside the file, at most 4 dims),
  /// `general.alignment`, and each tensor of a supported type inside the
  /// data at an aligned offset with the size its type and shape give. Each
  /// problem is one line naming the file (and the tensor or key).
  static llvm::Expected<std::shared_ptr<GgufFile>> open(llvm::StringRef path);
  /// The same on bytes already in memory; `name` is used in messages.
  static llvm::Expected<std::shared_ptr<GgufFile>>
  parse(std::unique_ptr<llvm::WritableMemoryBuffer> buffer,
        llvm::StringRef name);
  ~GgufFile() override;

  /// The tensor of GGUF name `name`; null when there is none.
  const Entry *lookup(llvm::StringRef name) const;
  /// `general.architecture` (`gpt2`, `llama`, ...); empty when absent.
  llvm::StringRef getArchitecture() const { return architecture; }

  /// Tensor `name`: its GGUF name, or the Hugging Face name the module uses
  /// (mapped for the file's architecture, transposed back where llama.cpp
  /// stores the transpose). F32, F16 and BF16 tensors bind to f32, f16 or
  /// bf16 arguments (converted when the types differ; no copy when they are
  /// the same and nothing is transposed). Quantized tensors (Q8_0, Q4_0)
  /// and other ggml types are errors naming the tensor and its type.
  llvm::Expected<PendingTensor>
  prepareTensor(llvm::StringRef name, ElementType type,
                llvm::ArrayRef<int64_t> shape) override;

  /// Q8_0 and Q4_0 tensors bind their blocks as they are (no copy), when
  /// the format and orientation are the argument's; F32, F16 and BF16
  /// tensors are quantized (WeightFile's default). llama.cpp stores every
  /// matrix with its rows along the reduction dimension: under a mapped name
  /// (GPT-2's Conv1D weights) that is the transpose of the module's layout,
  /// which `transposed` must then say; under its own name, the rows are the
  /// argument's.
  llvm::Expected<PendingTensor>
  prepareBlockTensor(llvm::StringRef name, QuantFormat format,
                     llvm::ArrayRef<int64_t> shape, bool transposed) override;
  llvm::ArrayRef<Entry> getEntries() const { return entries; }
  llvm::StringRef getPath() const override { return path; }

private:
  GgufFile() = default;
  std::string path;
  std::string architecture;
  /// Start of the data section inside the buffer.
  char *data = nullptr;
  std::vector<Entry> entries;
  llvm::StringMap<size_t> byName;
  /// The integer key-values `<architecture>.attention.head_count` and
  /// `..._kv` by key (what undoing llama.cpp's rope row order needs).
  llvm::StringMap<int64_t> headCounts;

  /// Where the module's tensor is in the file: its entry, whether llama.cpp
  /// stores it transposed from the module's layout, and the heads whose
  /// rows llama.cpp reordered (0: none; see GgufName::permutedHeadsKey).
  struct Found {
    const Entry *entry = nullptr;
    bool transposed = false;
    int64_t permutedHeads = 0;
  };
  /// The module's tensor `name` (its own GGUF name or the mapped one); an
  /// error naming the tensor when there is none, or when the head count
  /// its row order needs is absent from the metadata.
  llvm::Expected<Found> find(llvm::StringRef name);
};

/// Where a tensor of the module is in a GGUF file of llama.cpp's.
struct GgufName {
  std::string name;
  /// llama.cpp stores it transposed from the module's (Hugging Face's)
  /// layout: GPT-2's Conv1D weights.
  bool transposed = false;
  /// llama.cpp's converter reorders the rows of a Llama q or k projection
  /// (and of its bias) so that its rope, which rotates adjacent pairs,
  /// computes Hugging Face's rotate-half: in each head of `d` rows, the
  /// file's row 2j + i is Hugging Face's row i * d/2 + j. This names the
  /// metadata key with the number of heads so reordered
  /// (`llama.attention.head_count` for q, `..._kv` for k); empty when the
  /// rows are in Hugging Face's order.
  std::string permutedHeadsKey;
};

/// The GGUF name of the module's tensor `name` for `architecture`: GPT-2's
/// Hugging Face names (`wte.weight` is `token_embd.weight`, ...) for
/// `gpt2`; the Llama family's (`model.layers.0.self_attn.q_proj.weight` is
/// `blk.0.attn_q.weight`, ...) for `llama` (Llama and Mistral, as llama.cpp
/// converts them) and `qwen2`. std::nullopt when `name` has no mapping.
std::optional<GgufName> mapToGgufName(llvm::StringRef architecture,
                                      llvm::StringRef name);

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_GGUF_H
