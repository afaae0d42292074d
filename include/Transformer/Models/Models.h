//===- Models.h - Dialect programs from published model configs -*- C++ -*-===//
//
// Importers that turn a published model description (a Hugging Face
// `config.json`) into a transformer-dialect module whose weights are bound by
// name (`transformer.parameter` argument attributes, docs/gpt2.md). One
// builder per model family (GPT2.cpp, Llama.cpp, on CausalLMBuilder);
// `importHuggingFaceConfig` dispatches on `model_type`.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_MODELS_MODELS_H
#define TRANSFORMER_MODELS_MODELS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::transformer::models {

/// The storage of a model's 2-D weights (`--weight-type`).
enum class WeightType { F32, BF16, F16, Q8_0, Q4_0 };

/// `f32`, `bf16`, `f16`, `q8_0`, `q4_0`.
llvm::StringRef weightTypeName(WeightType type);
std::optional<WeightType> parseWeightType(llvm::StringRef name);

/// What every importer accepts besides the config.
struct ImportOptions {
  /// Positions the KV cache holds; 0: the model's maximum (n_positions).
  int64_t maxSeq = 0;
  /// The projections' and the token embedding's (and so the tied LM
  /// head's) storage; the position embedding and 1-D weights stay f32.
  WeightType weightType = WeightType::F32;
};

/// A GPT-2 configuration (the keys of Hugging Face's GPT2Config).
struct GPT2Config {
  int64_t numLayers = 0;    // n_layer
  int64_t numHeads = 0;     // n_head
  int64_t embedDim = 0;     // n_embd
  int64_t vocabSize = 0;    // vocab_size
  int64_t maxPositions = 0; // n_positions
  int64_t innerDim = 0;     // n_inner (null: 4 * n_embd)
  double layerNormEpsilon = 1e-5;
  /// `gelu_new` / `gelu_pytorch_tanh`: true; `gelu`: false (erf form).
  bool tanhGelu = true;
  /// The 2-D weights' storage (ImportOptions::weightType).
  WeightType weightType = WeightType::F32;
  /// tie_word_embeddings: the LM head is wte.weight; otherwise
  /// lm_head.weight.
  bool tiedLMHead = true;
  /// Positions of the KV cache (<= maxPositions).
  int64_t cacheLength = 0;
};

/// Reads a GPT-2 config; an unusable one is a one-line error naming the key.
llvm::Expected<GPT2Config> parseGPT2Config(const llvm::json::Object &config,
                                           const ImportOptions &options);

/// Builds the GPT-2 module: @forward, @prefill, @decode, @generate.
OwningOpRef<ModuleOp> buildGPT2Module(MLIRContext *context,
                                      const GPT2Config &config);

/// A Llama-family configuration: the keys of Hugging Face's LlamaConfig,
/// Qwen2Config and MistralConfig that change the math.
struct LlamaConfig {
  /// "llama", "qwen2" or "mistral": the family, and the prefix of the
  /// module's run-time messages.
  std::string modelType;
  int64_t numLayers = 0;        // num_hidden_layers
  int64_t hiddenSize = 0;       // hidden_size
  int64_t numHeads = 0;         // num_attention_heads
  int64_t numKVHeads = 0;       // num_key_value_heads (absent: the heads)
  int64_t headDim = 0;          // head_dim (absent: hidden_size / heads)
  int64_t intermediateSize = 0; // intermediate_size
  int64_t vocabSize = 0;        // vocab_size
  int64_t maxPositions = 0;     // max_position_embeddings
  double rmsNormEpsilon = 1e-6; // rms_norm_eps
  /// The rotary embedding's inverse frequencies (head_dim / 2), from
  /// rope_theta and rope_scaling ("linear", "llama3"), as Hugging Face
  /// computes them.
  std::vector<float> ropeInverseFrequencies;
  /// tie_word_embeddings: the LM head is model.embed_tokens.weight;
  /// otherwise lm_head.weight.
  bool tiedLMHead = false;
  /// Biases of q/k/v_proj (qwen2; llama's attention_bias), of o_proj
  /// (llama's attention_bias) and of the MLP (llama's mlp_bias).
  bool qkvBias = false;
  bool outputBias = false;
  bool mlpBias = false;
  /// Mistral's sliding_window: each query sees the last W positions.
  std::optional<int64_t> slidingWindow;
  /// The 2-D weights' storage (ImportOptions::weightType).
  WeightType weightType = WeightType::F32;
  /// Positions of the KV cache (<= maxPositions).
  int64_t cacheLength = 0;
};

/// Reads a Llama, Qwen2 or Mistral config (`model_type` says which); an
/// unusable or unsupported value is a one-line error naming the key.
llvm::Expected<LlamaConfig> parseLlamaConfig(const llvm::json::Object &config,
                                             const ImportOptions &options);

/// Builds the Llama-family module: @forward, @prefill, @decode, @generate.
OwningOpRef<ModuleOp> buildLlamaModule(MLIRContext *context,
                                       const LlamaConfig &config);

/// Parses `json` (the text of a config.json) and imports it with the
/// builder its `model_type` names.
llvm::Expected<OwningOpRef<ModuleOp>>
importHuggingFaceConfig(MLIRContext *context, llvm::StringRef json,
                        const ImportOptions &options);

/// Registers the `--import-hf-config` translation (with its `--max-seq`
/// option) for mlirTranslateMain.
void registerHuggingFaceImport();

} // namespace mlir::transformer::models

#endif // TRANSFORMER_MODELS_MODELS_H
