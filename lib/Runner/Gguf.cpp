//===- Gguf.cpp - Model weights in a GGUF file ----------------------------===//

#include "Transformer/Runner/Gguf.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

using namespace mlir::transformer;
using namespace mlir::transformer::runner;

namespace {
/// GGUF's key-value types (gguf.h).
enum ValueType : uint32_t {
  kUint8 = 0,
  kInt8,
  kUint16,
  kInt16,
  kUint32,
  kInt32,
  kFloat32,
  kBool,
  kString,
  kArray,
  kUint64,
  kInt64,
  kFloat64,
};

/// ggml's limit on a tensor's dimensions.
constexpr uint32_t kMaxDims = 4;

/// Reads little-endian values from the file's bytes, failing (instead of
/// reading past the end) when they are not all there.
class Cursor {
public:
  Cursor(llvm::StringRef bytes) : bytes(bytes) {}

  uint64_t offset() const { return at; }

  llvm::Error need(uint64_t count, const llvm::Twine &what) {
    if (count > bytes.size() - at)
      return llvm::createStringError("truncated file: " + what + " at byte " +
                                     llvm::Twine(at) + " needs " +
                                     llvm::Twine(count) + " bytes, " +
                                     llvm::Twine(bytes.size() - at) + " left");
    return llvm::Error::success();
  }
  llvm::Expected<uint32_t> u32(const llvm::Twine &what) {
    if (llvm::Error err = need(4, what))
      return std::move(err);
    uint32_t value = llvm::support::endian::read32le(bytes.data() + at);
    at += 4;
    return value;
  }
  llvm::Expected<uint64_t> u64(const llvm::Twine &what) {
    if (llvm::Error err = need(8, what))
      return std::move(err);
    uint64_t value = llvm::support::endian::read64le(bytes.data() + at);
    at += 8;
    return value;
  }
  llvm::Expected<llvm::StringRef> string(const llvm::Twine &what) {
    llvm::Expected<uint64_t> length = u64(what);
    if (!length)
      return length.takeError();
    if (llvm::Error err = need(*length, what))
      return std::move(err);
    llvm::StringRef value = bytes.substr(at, *length);
    at += *length;
    return value;
  }
  llvm::Error skip(uint64_t count, const llvm::Twine &what) {
    if (llvm::Error err = need(count, what))
      return err;
    at += count;
    return llvm::Error::success();
  }

private:
  llvm::StringRef bytes;
  uint64_t at = 0;
};

/// Bytes of one value of a fixed-size key-value type; 0 for strings and
/// arrays, std::nullopt for an unknown type.
std::optional<uint64_t> fixedValueSize(uint32_t type) {
  switch (type) {
  case kUint8:
  case kInt8:
  case kBool:
    return 1;
  case kUint16:
  case kInt16:
    return 2;
  case kUint32:
  case kInt32:
  case kFloat32:
    return 4;
  case kUint64:
  case kInt64:
  case kFloat64:
    return 8;
  case kString:
  case kArray:
    return 0;
  }
  return std::nullopt;
}

/// Skips one value of `type` (arrays of arrays included, to `depth` 4).
llvm::Error skipValue(Cursor &cursor, uint32_t type, const llvm::Twine &key,
                      int depth = 0) {
  std::optional<uint64_t> size = fixedValueSize(type);
  if (!size)
    return llvm::createStringError("key '" + key + "': unknown value type " +
                                   llvm::Twine(type));
  if (*size)
    return cursor.skip(*size, "key '" + key + "'");
  if (type == kString)
    return cursor.string("key '" + key + "'").takeError();
  if (depth >= 4)
    return llvm::createStringError("key '" + key +
                                   "': arrays nested too deeply");
  llvm::Expected<uint32_t> elementType = cursor.u32("key '" + key + "'");
  if (!elementType)
    return elementType.takeError();
  llvm::Expected<uint64_t> count = cursor.u64("key '" + key + "'");
  if (!count)
    return count.takeError();
  std::optional<uint64_t> elementSize = fixedValueSize(*elementType);
  if (!elementSize)
    return llvm::createStringError("key '" + key +
                                   "': unknown array element type " +
                                   llvm::Twine(*elementType));
  if (*elementSize) {
    if (*count > UINT64_MAX / *elementSize)
      return llvm::createStringError("key '" + key + "': array too long");
    return cursor.skip(*count * *elementSize, "key '" + key + "'");
  }
  for (uint64_t i = 0; i < *count; ++i)
    if (llvm::Error err = skipValue(cursor, *elementType, key, depth + 1))
      return err;
  return llvm::Error::success();
}

/// Bytes of a tensor of `type` with `count` elements, `rowLength` of them
/// per row (GGUF's first dim: blocks never straddle rows); std::nullopt for
/// the types this reader does not support, and an error message when the
/// row is not a whole number of blocks.
std::optional<uint64_t> tensorBytes(uint32_t type, uint64_t count,
                                    int64_t rowLength, std::string &error) {
  switch (static_cast<GgmlType>(type)) {
  case GgmlType::F32:
    return count * 4;
  case GgmlType::F16:
  case GgmlType::BF16:
    return count * 2;
  case GgmlType::Q8_0:
  case GgmlType::Q4_0:
    if (rowLength % kQuantBlockWeights != 0) {
      error = "rows of " + std::to_string(rowLength) +
              " elements are not whole blocks of 32";
      return 0;
    }
    return count / kQuantBlockWeights *
           quantBlockBytes(static_cast<GgmlType>(type) == GgmlType::Q8_0
                               ? QuantFormat::Q8_0
                               : QuantFormat::Q4_0);
  }
  return std::nullopt;
}
} // namespace

std::string runner::ggmlTypeName(uint32_t type) {
  static const char *const names[] = {
      "F32",        "F16",        "Q4_0",       "Q4_1",     "Q4_2",    "Q4_3",
      "Q5_0",       "Q5_1",       "Q8_0",       "Q8_1",     "Q2_K",    "Q3_K",
      "Q4_K",       "Q5_K",       "Q6_K",       "Q8_K",     "IQ2_XXS", "IQ2_XS",
      "IQ3_XXS",    "IQ1_S",      "IQ4_NL",     "IQ3_S",    "IQ2_S",   "IQ4_XS",
      "I8",         "I16",        "I32",        "I64",      "F64",     "IQ1_M",
      "BF16",       "Q4_0_4_4",   "Q4_0_4_8",   "Q4_0_8_8", "TQ1_0",   "TQ2_0",
      "IQ4_NL_4_4", "IQ4_NL_4_8", "IQ4_NL_8_8", "MXFP4"};
  // Types 4 and 5 were removed from ggml and never written by it since.
  if (type < std::size(names) && type != 4 && type != 5)
    return names[type];
  return "type " + std::to_string(type);
}

namespace {
/// GPT-2's Hugging Face names, as llama.cpp's converter writes them.
std::optional<GgufName> mapGpt2Name(llvm::StringRef name) {
  name.consume_front("transformer.");
  static const std::pair<const char *, const char *> globals[] = {
      {"wte.weight", "token_embd.weight"},
      {"wpe.weight", "position_embd.weight"},
      {"ln_f.weight", "output_norm.weight"},
      {"ln_f.bias", "output_norm.bias"},
      {"lm_head.weight", "output.weight"}};
  for (auto [hf, gguf] : globals)
    if (name == hf)
      return GgufName{gguf, false, ""};
  // h.N.<part>.<weight|bias>: Conv1D weights are stored [in, out] by
  // Hugging Face and [out, in] (numpy order) by llama.cpp.
  static const std::pair<const char *, const char *> layer[] = {
      {"ln_1", "attn_norm"},          {"attn.c_attn", "attn_qkv"},
      {"attn.c_proj", "attn_output"}, {"ln_2", "ffn_norm"},
      {"mlp.c_fc", "ffn_up"},         {"mlp.c_proj", "ffn_down"}};
  llvm::SmallVector<llvm::StringRef> groups;
  if (!llvm::Regex("^h\\.([0-9]+)\\.(.+)\\.(weight|bias)$")
           .match(name, &groups))
    return std::nullopt;
  for (auto [hf, gguf] : layer)
    if (groups[2] == hf) {
      bool conv1d =
          groups[3] == "weight" && !llvm::StringRef(hf).starts_with("ln_");
      return GgufName{("blk." + groups[1] + "." + gguf + "." + groups[3]).str(),
                      conv1d, ""};
    }
  return std::nullopt;
}

/// The Llama family's Hugging Face names (LlamaForCausalLM's, which
/// Qwen2ForCausalLM and MistralForCausalLM share). nn.Linear weights are
/// [out, in] in both; for `llama`, q and k rows are in llama.cpp's rope
/// order.
std::optional<GgufName> mapLlamaName(llvm::StringRef architecture,
                                     llvm::StringRef name) {
  static const std::pair<const char *, const char *> globals[] = {
      {"model.embed_tokens.weight", "token_embd.weight"},
      {"model.norm.weight", "output_norm.weight"},
      {"lm_head.weight", "output.weight"}};
  for (auto [hf, gguf] : globals)
    if (name == hf)
      return GgufName{gguf, false, ""};
  static const std::pair<const char *, const char *> layer[] = {
      {"input_layernorm", "attn_norm"},
      {"self_attn.q_proj", "attn_q"},
      {"self_attn.k_proj", "attn_k"},
      {"self_attn.v_proj", "attn_v"},
      {"self_attn.o_proj", "attn_output"},
      {"post_attention_layernorm", "ffn_norm"},
      {"mlp.gate_proj", "ffn_gate"},
      {"mlp.up_proj", "ffn_up"},
      {"mlp.down_proj", "ffn_down"}};
  llvm::SmallVector<llvm::StringRef> groups;
  if (!llvm::Regex("^model\\.layers\\.([0-9]+)\\.(.+)\\.(weight|bias)$")
           .match(name, &groups))
    return std::nullopt;
  for (auto [hf, gguf] : layer) {
    if (groups[2] != hf)
      continue;
    std::string permutedHeadsKey;
    if (architecture == "llama" && groups[2] == "self_attn.q_proj")
      permutedHeadsKey = "llama.attention.head_count";
    if (architecture == "llama" && groups[2] == "self_attn.k_proj")
      permutedHeadsKey = "llama.attention.head_count_kv";
    return GgufName{("blk." + groups[1] + "." + gguf + "." + groups[3]).str(),
                    false, permutedHeadsKey};
  }
  return std::nullopt;
}

/// Writes into `to` the `rows` rows of `rowBytes` bytes each of `from` in
/// Hugging Face's order, undoing llama.cpp's rope order over `heads` heads
/// (GgufName::permutedHeadsKey): to's row h*d + i*d/2 + j is from's row
/// h*d + 2j + i.
void undoRopeRowOrder(const char *from, char *to, int64_t rows,
                      int64_t rowBytes, int64_t heads) {
  int64_t headRows = rows / heads, half = headRows / 2;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < half; ++j)
        std::memcpy(to + (h * headRows + i * half + j) * rowBytes,
                    from + (h * headRows + 2 * j + i) * rowBytes, rowBytes);
}
} // namespace

std::optional<GgufName> runner::mapToGgufName(llvm::StringRef architecture,
                                              llvm::StringRef name) {
  if (architecture == "gpt2")
    return mapGpt2Name(name);
  if (architecture == "llama" || architecture == "qwen2")
    return mapLlamaName(architecture, name);
  return std::nullopt;
}

GgufFile::~GgufFile() = default;

llvm::Expected<std::shared_ptr<GgufFile>> GgufFile::open(llvm::StringRef path) {
  llvm::Expected<std::unique_ptr<llvm::WritableMemoryBuffer>> buffer =
      readWeightFileBytes(path);
  if (!buffer)
    return buffer.takeError();
  return parse(std::move(*buffer), path);
}

llvm::Expected<std::shared_ptr<GgufFile>>
GgufFile::parse(std::unique_ptr<llvm::WritableMemoryBuffer> buffer,
                llvm::StringRef name) {
  auto fail = [&](llvm::Error err) {
    return llvm::createStringError(name + ": " +
                                   llvm::toString(std::move(err)));
  };
  auto error = [&](const llvm::Twine &why) {
    return llvm::createStringError(name + ": " + why);
  };
  llvm::StringRef bytes(buffer->getBufferStart(), buffer->getBufferSize());
  if (!bytes.starts_with("GGUF"))
    return error("not a GGUF file (no 'GGUF' magic)");
  Cursor cursor(bytes);
  if (llvm::Error err = cursor.skip(4, "the magic"))
    return fail(std::move(err));
  llvm::Expected<uint32_t> version = cursor.u32("the version");
  if (!version)
    return fail(version.takeError());
  if (*version != 2 && *version != 3)
    return error("GGUF version " + llvm::Twine(*version) +
                 " (this reader knows versions 2 and 3)");
  llvm::Expected<uint64_t> tensorCount = cursor.u64("the tensor count");
  if (!tensorCount)
    return fail(tensorCount.takeError());
  llvm::Expected<uint64_t> kvCount = cursor.u64("the key-value count");
  if (!kvCount)
    return fail(kvCount.takeError());

  auto file = std::shared_ptr<GgufFile>(new GgufFile());
  file->path = name.str();
  uint64_t alignment = 32;
  for (uint64_t i = 0; i < *kvCount; ++i) {
    llvm::Expected<llvm::StringRef> key =
        cursor.string("key " + llvm::Twine(i));
    if (!key)
      return fail(key.takeError());
    llvm::Expected<uint32_t> type = cursor.u32("key '" + *key + "'");
    if (!type)
      return fail(type.takeError());
    if (*key == "general.alignment") {
      if (*type != kUint32)
        return error("key 'general.alignment' is not a uint32");
      llvm::Expected<uint32_t> value = cursor.u32("key '" + *key + "'");
      if (!value)
        return fail(value.takeError());
      if (*value == 0 || (*value & (*value - 1)) != 0)
        return error("general.alignment " + llvm::Twine(*value) +
                     " is not a power of two");
      alignment = *value;
      continue;
    }
    // An integer head count (a per-layer array is left to the error that
    // names the key when a tensor needs it).
    if ((key->ends_with(".attention.head_count") ||
         key->ends_with(".attention.head_count_kv")) &&
        (*type == kUint32 || *type == kInt32 || *type == kUint64 ||
         *type == kInt64)) {
      uint64_t count = 0;
      if (*type == kUint32 || *type == kInt32) {
        llvm::Expected<uint32_t> value = cursor.u32("key '" + *key + "'");
        if (!value)
          return fail(value.takeError());
        count = *type == kInt32 ? static_cast<uint64_t>(static_cast<int64_t>(
                                      static_cast<int32_t>(*value)))
                                : *value;
      } else {
        llvm::Expected<uint64_t> value = cursor.u64("key '" + *key + "'");
        if (!value)
          return fail(value.takeError());
        count = *value;
      }
      // Negative or absurd counts are kept as 0: no usable count.
      file->headCounts[*key] =
          count <= static_cast<uint64_t>(INT32_MAX) ? count : 0;
      continue;
    }
    if (*key == "general.architecture" && *type == kString) {
      llvm::Expected<llvm::StringRef> value =
          cursor.string("key '" + *key + "'");
      if (!value)
        return fail(value.takeError());
      file->architecture = value->str();
      continue;
    }
    if (llvm::Error err = skipValue(cursor, *type, *key))
      return fail(std::move(err));
  }

  for (uint64_t i = 0; i < *tensorCount; ++i) {
    Entry entry;
    llvm::Expected<llvm::StringRef> tensorName =
        cursor.string("tensor info " + llvm::Twine(i));
    if (!tensorName)
      return fail(tensorName.takeError());
    entry.name = tensorName->str();
    auto what = "tensor '" + entry.name + "'";
    llvm::Expected<uint32_t> dims = cursor.u32(what);
    if (!dims)
      return fail(dims.takeError());
    if (*dims == 0 || *dims > kMaxDims)
      return error(what + ": " + llvm::Twine(*dims) +
                   " dimensions (1 to 4 expected)");
    // The element count, and the product of the non-zero dims, which must
    // fit too (an empty tensor's other dims still size its strides).
    uint64_t count = 1, nonZero = 1;
    for (uint32_t d = 0; d < *dims; ++d) {
      llvm::Expected<uint64_t> size = cursor.u64(what);
      if (!size)
        return fail(size.takeError());
      if (*size > static_cast<uint64_t>(INT64_MAX) ||
          (*size && nonZero > static_cast<uint64_t>(INT64_MAX) / *size / 4))
        return error(what + ": dimension " + llvm::Twine(*size) +
                     " is too large");
      count *= *size;
      nonZero *= *size ? *size : 1;
      entry.shape.insert(entry.shape.begin(), static_cast<int64_t>(*size));
    }
    llvm::Expected<uint32_t> type = cursor.u32(what);
    if (!type)
      return fail(type.takeError());
    llvm::Expected<uint64_t> offset = cursor.u64(what);
    if (!offset)
      return fail(offset.takeError());
    entry.type = *type;
    entry.begin = *offset;
    if (entry.begin % alignment != 0)
      return error(what + ": data offset " + llvm::Twine(entry.begin) +
                   " is not a multiple of general.alignment (" +
                   llvm::Twine(alignment) + ")");
    std::string blockError;
    std::optional<uint64_t> size =
        tensorBytes(entry.type, count, entry.shape.back(), blockError);
    if (!blockError.empty())
      return error(what + " (" + ggmlTypeName(entry.type) + "): " + blockError);
    entry.end = size ? entry.begin + *size : entry.begin;
    if (file->byName.count(entry.name))
      return error(what + " appears twice");
    file->byName[entry.name] = file->entries.size();
    file->entries.push_back(std::move(entry));
  }

  // The data starts at the next multiple of the alignment.
  uint64_t headerEnd = cursor.offset();
  uint64_t dataStart = (headerEnd + alignment - 1) / alignment * alignment;
  uint64_t dataSize = bytes.size() > dataStart ? bytes.size() - dataStart : 0;
  for (const Entry &entry : file->entries)
    if (entry.end > dataSize || entry.begin > dataSize)
      return error("tensor '" + entry.name + "': data [" +
                   llvm::Twine(entry.begin) + ", " + llvm::Twine(entry.end) +
                   ") goes past the end of the data (" + llvm::Twine(dataSize) +
                   " bytes; is the file truncated?)");
  // (A file ending before its data section has only empty tensors.)
  file->data =
      buffer->getBufferStart() + std::min<uint64_t>(dataStart, bytes.size());
  file->buffer = std::move(buffer);
  return file;
}

const GgufFile::Entry *GgufFile::lookup(llvm::StringRef name) const {
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : &entries[it->second];
}

llvm::Expected<GgufFile::Found> GgufFile::find(llvm::StringRef name) {
  if (const Entry *entry = lookup(name))
    return Found{entry, false, 0};
  std::optional<GgufName> mapped = mapToGgufName(architecture, name);
  const Entry *entry = mapped ? lookup(mapped->name) : nullptr;
  if (!entry)
    return llvm::createStringError(
        "parameter '" + name + "': no tensor of that name" +
        (mapped ? " (GGUF '" + mapped->name + "')" : std::string()) + " in '" +
        path + "'" +
        (architecture.empty() ? std::string()
                              : " (architecture '" + architecture + "')"));
  Found found{entry, mapped->transposed, 0};
  if (mapped->permutedHeadsKey.empty())
    return found;
  // llama.cpp reads a missing head_count_kv as head_count.
  llvm::StringRef key = mapped->permutedHeadsKey;
  auto count = headCounts.find(key);
  if (count == headCounts.end() && key.consume_back("_kv"))
    count = headCounts.find(key);
  int64_t rows = entry->shape.empty() ? 0 : entry->shape[0];
  auto error = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        "parameter '" + name + "': GGUF tensor '" + entry->name +
        "' holds its rows in llama.cpp's rope order, which " + why + " in '" +
        path + "'");
  };
  if (count == headCounts.end() || count->second <= 0)
    return error("needs the integer key '" + mapped->permutedHeadsKey + "'");
  if (entry->shape.size() > 2 || rows % count->second != 0 ||
      (rows / count->second) % 2 != 0)
    return error("does not divide into " + llvm::Twine(count->second) +
                 " heads of an even number of rows (" +
                 mapped->permutedHeadsKey + ")");
  found.permutedHeads = count->second;
  return found;
}

llvm::Expected<PendingTensor>
GgufFile::prepareBlockTensor(llvm::StringRef name, QuantFormat format,
                             llvm::ArrayRef<int64_t> shape, bool transposed) {
  if (llvm::Error error = checkBlockShape(name, format, shape))
    return std::move(error);
  llvm::Expected<Found> found = find(name);
  if (!found)
    return found.takeError();
  const Entry *entry = found->entry;
  bool storedTransposed = found->transposed;
  // llama.cpp stores every matrix with its rows along the reduction
  // dimension. Under a mapped name, it stores the transpose of the module's
  // (Hugging Face's) layout exactly when the argument says the file does;
  // under its own name, its rows are the argument's.
  bool mapped = entry->name != name;
  auto ggml = static_cast<GgmlType>(entry->type);
  if (ggml != GgmlType::Q8_0 && ggml != GgmlType::Q4_0)
    return WeightFile::prepareBlockTensor(name, format, shape,
                                          mapped && transposed);
  auto error = [&](const llvm::Twine &why) {
    return parameterError(name, "GGUF tensor '" + entry->name + "' (" +
                                    ggmlTypeName(entry->type) + ", " +
                                    shapeString(entry->shape) + ") " + why);
  };
  QuantFormat fileFormat =
      ggml == GgmlType::Q8_0 ? QuantFormat::Q8_0 : QuantFormat::Q4_0;
  if (fileFormat != format)
    return error("cannot be bound to a " + quantFormatName(format) +
                 " argument: the module was imported in another format");
  if (mapped && storedTransposed != transposed)
    return error("holds its blocks along the other dimension than the "
                 "argument's");
  int64_t bytes = quantBlockBytes(format);
  if (entry->shape.size() != 2 || shape.size() != 3 ||
      shape[0] != entry->shape[0] ||
      shape[1] * kQuantBlockWeights != entry->shape[1] || shape[2] != bytes)
    return error("does not match the argument's blocks " + shapeString(shape));
  return PendingTensor(
      [this, name = name.str(), entry,
       shape = llvm::SmallVector<int64_t>(shape),
       permutedHeads = found->permutedHeads]() -> llvm::Expected<HostTensor> {
        if (!permutedHeads)
          return HostTensor::wrap(ElementType::I8, shape, data + entry->begin,
                                  buffer);
        // Rows of blocks reordered: a copy (q and k projections only).
        llvm::Expected<HostTensor> tensor =
            HostTensor::allocateUninitialized(ElementType::I8, shape);
        if (!tensor)
          return parameterError(name, llvm::toString(tensor.takeError()));
        undoRopeRowOrder(data + entry->begin,
                         static_cast<char *>(tensor->getData()), shape[0],
                         shape[1] * shape[2], permutedHeads);
        dropPages(data + entry->begin, tensor->getNumBytes());
        return tensor;
      });
}

llvm::Expected<PendingTensor>
GgufFile::prepareTensor(llvm::StringRef name, ElementType type,
                        llvm::ArrayRef<int64_t> shape) {
  llvm::Expected<Found> found = find(name);
  if (!found)
    return found.takeError();
  const Entry *entry = found->entry;
  bool transposed = found->transposed;
  std::string described = "GGUF tensor '" + entry->name + "' (" +
                          ggmlTypeName(entry->type) + ", " +
                          shapeString(entry->shape) + ")";
  auto ggml = static_cast<GgmlType>(entry->type);
  if (ggml == GgmlType::Q8_0 || ggml == GgmlType::Q4_0) {
    QuantFormat fileFormat =
        ggml == GgmlType::Q8_0 ? QuantFormat::Q8_0 : QuantFormat::Q4_0;
    return parameterError(
        name, described + " is block-quantized: it binds only to a " +
                  quantFormatName(fileFormat) +
                  " parameter (a module imported with --weight-type=" +
                  quantFormatName(fileFormat) + "), not to " +
                  elementTypeName(type));
  }
  if (ggml != GgmlType::F32 && ggml != GgmlType::F16 && ggml != GgmlType::BF16)
    return parameterError(name, described + ": type " +
                                    ggmlTypeName(entry->type) +
                                    " is not supported (F32, F16, BF16, Q8_0 "
                                    "and Q4_0 are)");
  if (!isFloatType(type))
    return parameterError(name, described +
                                    " cannot be bound to an argument of " +
                                    elementTypeName(type));
  // The file's shape as the module sees it.
  llvm::SmallVector<int64_t> fileShape(entry->shape);
  if (transposed && fileShape.size() == 2)
    std::swap(fileShape[0], fileShape[1]);
  else
    transposed = false;
  bool shapeMatches = shape.size() == fileShape.size();
  for (auto [want, have] : llvm::zip(shape, fileShape))
    shapeMatches &= want < 0 || want == have;
  if (!shapeMatches) {
    return parameterError(name, "the function expects shape " +
                                    shapeString(shape) + ", " + described +
                                    " is " + shapeString(fileShape) +
                                    (transposed ? " once transposed" : ""));
  }
  ElementType fileType = ggml == GgmlType::F32   ? ElementType::F32
                         : ggml == GgmlType::F16 ? ElementType::F16
                                                 : ElementType::BF16;
  return PendingTensor(
      [this, name = name.str(), type, fileType, fileShape, transposed,
       bytes = data + entry->begin,
       permutedHeads = found->permutedHeads]() -> llvm::Expected<HostTensor> {
        // The tensor in the file's row order.
        auto inFileOrder = [&]() -> llvm::Expected<HostTensor> {
          // The data offset is aligned (32 by default): no copy for the same
          // type.
          if (fileType == type && !transposed &&
              reinterpret_cast<uintptr_t>(bytes) % elementSize(type) == 0)
            return HostTensor::wrap(type, fileShape, bytes, buffer);
          llvm::Expected<HostTensor> tensor =
              HostTensor::allocateUninitialized(type, fileShape);
          if (!tensor)
            return parameterError(name, llvm::toString(tensor.takeError()));
          // Element (r, c) of the module's [rows, columns] is the file's (c, r)
          // when transposed.
          int64_t rows = fileShape.size() == 2 ? fileShape[0] : 1;
          int64_t columns =
              tensor->getNumElements() / std::max<int64_t>(rows, 1);
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < columns; ++c) {
              int64_t to = r * columns + c;
              storeFloat(
                  tensor->getData(), type, to,
                  loadFloat(bytes, fileType, transposed ? c * rows + r : to));
            }
          dropPages(bytes, tensor->getNumElements() * elementSize(fileType));
          return tensor;
        };
        llvm::Expected<HostTensor> stored = inFileOrder();
        if (!stored || !permutedHeads)
          return stored;
        // Rows in llama.cpp's rope order (a 1-D tensor, a bias, has one element
        // a row), reordered into a copy.
        int64_t permutedRows =
            fileShape.size() == 2 ? fileShape[0] : fileShape.back();
        llvm::Expected<HostTensor> tensor =
            HostTensor::allocateUninitialized(type, fileShape);
        if (!tensor)
          return parameterError(name, llvm::toString(tensor.takeError()));
        undoRopeRowOrder(static_cast<const char *>(stored->getData()),
                         static_cast<char *>(tensor->getData()), permutedRows,
                         stored->getNumBytes() / permutedRows, permutedHeads);
        dropPages(bytes, tensor->getNumElements() * elementSize(fileType));
        return tensor;
      });
}
