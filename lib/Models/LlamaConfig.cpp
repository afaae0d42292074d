//===- LlamaConfig.cpp - Read a Llama, Qwen2 or Mistral config.json -------===//
//
// The keys of Hugging Face's LlamaConfig, Qwen2Config and MistralConfig that
// change the math, with their defaults when absent; every value the builder
// does not implement is a one-line error naming its key. The rotary
// embedding's inverse frequencies are computed here, rope scaling included,
// as Hugging Face's rope initialisation functions compute them.
//
//===----------------------------------------------------------------------===//

#include "ConfigKeys.h"

#include "Transformer/Models/Models.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::models;

namespace {

/// The value of rope_scaling's `key` (a positive number), or an error
/// naming it.
llvm::Expected<double> scalingNumber(const llvm::json::Object &scaling,
                                     StringRef type, StringRef key) {
  const llvm::json::Value *value = scaling.get(key);
  if (!value)
    return keyError("rope_scaling",
                    "missing '" + key + "' (" + type + " scaling needs it)");
  std::optional<double> number = value->getAsNumber();
  if (!number || !(*number > 0) || !std::isfinite(*number))
    return keyError("rope_scaling", "'" + key + "' must be a positive number");
  return *number;
}

/// Hugging Face's default inverse frequencies, 1 / theta^(2j / d), in
/// float32 as torch computes them.
std::vector<float> defaultInverseFrequencies(double theta, int64_t headDim) {
  std::vector<float> inv;
  for (int64_t j = 0; j < headDim; j += 2) {
    float exponent = static_cast<float>(j) / static_cast<float>(headDim);
    inv.push_back(1.0f / std::pow(static_cast<float>(theta), exponent));
  }
  return inv;
}

/// Applies rope_scaling (null, "default", "linear", "llama3"; the type
/// under `rope_type` or the legacy `type`) to the default frequencies.
llvm::Error applyRopeScaling(const llvm::json::Object &config,
                             std::vector<float> &inv) {
  if (isAbsent(config, "rope_scaling"))
    return llvm::Error::success();
  const llvm::json::Object *scaling = config.get("rope_scaling")->getAsObject();
  if (!scaling)
    return keyError("rope_scaling", "must be null or an object");
  // Hugging Face copies a legacy `type` over `rope_type`.
  const llvm::json::Value *typeValue = scaling->get("type");
  if (!typeValue)
    typeValue = scaling->get("rope_type");
  std::optional<StringRef> type =
      typeValue ? typeValue->getAsString() : std::nullopt;
  if (!type)
    return keyError("rope_scaling", "missing 'rope_type'");
  if (*type == "default")
    return llvm::Error::success();
  if (*type == "linear") {
    llvm::Expected<double> factor = scalingNumber(*scaling, *type, "factor");
    if (!factor)
      return factor.takeError();
    for (float &f : inv)
      f /= static_cast<float>(*factor);
    return llvm::Error::success();
  }
  if (*type != "llama3")
    return keyError("rope_scaling",
                    "unsupported rope type '" + *type +
                        "' (supported: null, \"default\", \"linear\", "
                        "\"llama3\")");
  // Llama 3.1: wavelengths beyond the original context / low_freq_factor
  // are scaled by 1/factor, those below original / high_freq_factor are
  // kept, and the band between is interpolated.
  double values[4];
  StringRef keys[4] = {"factor", "low_freq_factor", "high_freq_factor",
                       "original_max_position_embeddings"};
  for (int i = 0; i < 4; ++i) {
    llvm::Expected<double> value = scalingNumber(*scaling, *type, keys[i]);
    if (!value)
      return value.takeError();
    values[i] = *value;
  }
  auto [factor, low, high, original] =
      std::tuple(values[0], values[1], values[2], values[3]);
  if (!(high > low))
    return keyError("rope_scaling", "'high_freq_factor' must be greater than "
                                    "'low_freq_factor'");
  // In float32, step by step, as torch evaluates Hugging Face's
  // expressions (the config's numbers rounded to f32 where they meet a
  // tensor).
  auto f32 = [](double v) { return static_cast<float>(v); };
  float lowWavelen = f32(original / low), highWavelen = f32(original / high);
  for (float &f : inv) {
    float wavelen = f32(2 * llvm::numbers::pi) / f;
    if (wavelen < highWavelen)
      continue;
    if (wavelen > lowWavelen) {
      f /= f32(factor);
      continue;
    }
    float smooth = (f32(original) / wavelen - f32(low)) / f32(high - low);
    f = (1 - smooth) * f / f32(factor) + smooth * f;
  }
  return llvm::Error::success();
}

/// --weight-type=q8_0/q4_0: the widths that blocks of 32 must divide, with
/// the first weight that has each.
llvm::Error checkBlockWidths(const LlamaConfig &cfg) {
  constexpr int64_t block = 32;
  struct Width {
    StringRef weight, key;
    int64_t value;
  };
  Width widths[] = {
      {"model.embed_tokens.weight", "hidden_size", cfg.hiddenSize},
      {"model.layers.0.self_attn.o_proj.weight",
       "num_attention_heads * head_dim", cfg.numHeads * cfg.headDim},
      {"model.layers.0.mlp.down_proj.weight", "intermediate_size",
       cfg.intermediateSize}};
  for (const Width &w : widths)
    if (w.value % block != 0)
      return llvm::createStringError(
          "--weight-type=" + weightTypeName(cfg.weightType) + ": weight '" +
          w.weight + "' has rows of " + w.key + " = " + llvm::Twine(w.value) +
          ", not a multiple of the block size " + llvm::Twine(block));
  return llvm::Error::success();
}
} // namespace

llvm::Expected<LlamaConfig>
models::parseLlamaConfig(const llvm::json::Object &config,
                         const ImportOptions &options) {
  LlamaConfig cfg;
  cfg.modelType = config.getString("model_type").value_or("").str();
  if (llvm::Error err = readPositive(config, "num_hidden_layers", cfg.numLayers,
                                     kMaxConfigLayers))
    return std::move(err);
  for (auto [key, field] : {std::pair{"hidden_size", &cfg.hiddenSize},
                            {"num_attention_heads", &cfg.numHeads},
                            {"intermediate_size", &cfg.intermediateSize},
                            {"vocab_size", &cfg.vocabSize},
                            {"max_position_embeddings", &cfg.maxPositions}})
    if (llvm::Error err = readPositive(config, key, *field))
      return std::move(err);

  // Heads: grouped-query attention when num_key_value_heads < heads.
  cfg.numKVHeads = cfg.numHeads;
  if (!isAbsent(config, "num_key_value_heads"))
    if (llvm::Error err =
            readPositive(config, "num_key_value_heads", cfg.numKVHeads))
      return std::move(err);
  if (cfg.numHeads % cfg.numKVHeads != 0)
    return keyError("num_key_value_heads",
                    llvm::Twine(cfg.numKVHeads) +
                        " does not divide num_attention_heads (" +
                        llvm::Twine(cfg.numHeads) + ")");
  if (isAbsent(config, "head_dim")) {
    if (cfg.hiddenSize % cfg.numHeads != 0)
      return keyError("hidden_size",
                      llvm::Twine(cfg.hiddenSize) +
                          " is not a multiple of num_attention_heads (" +
                          llvm::Twine(cfg.numHeads) +
                          ") and head_dim is not given");
    cfg.headDim = cfg.hiddenSize / cfg.numHeads;
  } else if (llvm::Error err = readPositive(config, "head_dim", cfg.headDim)) {
    return std::move(err);
  }
  if (cfg.headDim % 2 != 0)
    return keyError("head_dim", llvm::Twine(cfg.headDim) +
                                    " is odd (rotary embeddings rotate pairs)");

  if (!isAbsent(config, "hidden_act")) {
    std::optional<StringRef> act = config.get("hidden_act")->getAsString();
    if (!act || *act != "silu")
      return keyError("hidden_act",
                      "unsupported activation" +
                          (act ? " '" + *act + "'" : llvm::Twine()) +
                          " (supported: \"silu\")");
  }
  if (llvm::Error err =
          readPositiveF32(config, "rms_norm_eps", cfg.rmsNormEpsilon))
    return std::move(err);
  double theta = 10000.0;
  if (llvm::Error err = readPositiveNumber(config, "rope_theta", theta))
    return std::move(err);
  cfg.ropeInverseFrequencies = defaultInverseFrequencies(theta, cfg.headDim);
  if (llvm::Error err = applyRopeScaling(config, cfg.ropeInverseFrequencies))
    return std::move(err);
  // An extreme base or factor would make angles of inf or 0 * inf: NaN.
  for (float f : cfg.ropeInverseFrequencies)
    if (!(f > 0) || !std::isfinite(f))
      return keyError(isAbsent(config, "rope_scaling") ? "rope_theta"
                                                       : "rope_scaling",
                      "gives inverse frequencies outside f32's range");
  if (llvm::Error err = readBool(config, "tie_word_embeddings", cfg.tiedLMHead))
    return std::move(err);

  // What differs between the three families.
  if (cfg.modelType == "llama") {
    bool attentionBias = false;
    if (llvm::Error err = readBool(config, "attention_bias", attentionBias))
      return std::move(err);
    cfg.qkvBias = cfg.outputBias = attentionBias;
    if (llvm::Error err = readBool(config, "mlp_bias", cfg.mlpBias))
      return std::move(err);
  } else if (cfg.modelType == "qwen2") {
    cfg.qkvBias = true;
    bool slidingWindow = false;
    if (llvm::Error err = readBool(config, "use_sliding_window", slidingWindow))
      return std::move(err);
    if (slidingWindow)
      return keyError("use_sliding_window",
                      "true is not supported (Qwen2's per-layer windows)");
  } else if (cfg.modelType == "mistral") {
    // MistralConfig's default window is 4096; null means none.
    const llvm::json::Value *window = config.get("sliding_window");
    if (!window) {
      cfg.slidingWindow = 4096;
    } else if (window->kind() != llvm::json::Value::Null) {
      int64_t w = 0;
      if (llvm::Error err = readPositive(config, "sliding_window", w))
        return std::move(err);
      cfg.slidingWindow = w;
    }
  } else {
    return keyError("model_type",
                    "'" + cfg.modelType + "' is not a Llama-family model type");
  }
  cfg.cacheLength = cfg.maxPositions;
  if (options.maxSeq < 0 || options.maxSeq > cfg.maxPositions)
    return llvm::createStringError(
        "--max-seq=" + llvm::Twine(options.maxSeq) +
        " is outside [1, max_position_embeddings = " +
        llvm::Twine(cfg.maxPositions) + "]");
  if (options.maxSeq > 0)
    cfg.cacheLength = options.maxSeq;
  // A window as long as the model's positions hides nothing.
  if (cfg.slidingWindow && *cfg.slidingWindow >= cfg.maxPositions)
    cfg.slidingWindow.reset();

  cfg.weightType = options.weightType;
  if (options.weightType == WeightType::Q8_0 ||
      options.weightType == WeightType::Q4_0)
    if (llvm::Error err = checkBlockWidths(cfg))
      return std::move(err);
  return cfg;
}
