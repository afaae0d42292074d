//===- HuggingFace.cpp - Import a Hugging Face config.json ----------------===//
//
// Reads a config.json, checks every key the GPT-2 builder needs (a missing or
// unusable one is a one-line error naming the key; LlamaConfig.cpp does the
// same for the Llama family) and dispatches on `model_type`. Registers
// `--import-hf-config` for transformer-translate.
//
//===----------------------------------------------------------------------===//

#include "ConfigKeys.h"

#include "Transformer/Models/Models.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::models;

llvm::Expected<GPT2Config>
models::parseGPT2Config(const llvm::json::Object &config,
                        const ImportOptions &options) {
  GPT2Config cfg;
  if (llvm::Error err =
          readPositive(config, "n_layer", cfg.numLayers, kMaxConfigLayers))
    return std::move(err);
  for (auto [key, field] : {std::pair{"n_head", &cfg.numHeads},
                            {"n_embd", &cfg.embedDim},
                            {"vocab_size", &cfg.vocabSize},
                            {"n_positions", &cfg.maxPositions}})
    if (llvm::Error err = readPositive(config, key, *field))
      return std::move(err);
  if (cfg.embedDim % cfg.numHeads != 0)
    return keyError("n_embd", "n_embd (" + llvm::Twine(cfg.embedDim) +
                                  ") is not a multiple of n_head (" +
                                  llvm::Twine(cfg.numHeads) + ")");
  // Keys with GPT2Config's defaults.
  cfg.innerDim = 4 * cfg.embedDim;
  if (!isAbsent(config, "n_inner"))
    if (llvm::Error err = readPositive(config, "n_inner", cfg.innerDim))
      return std::move(err);
  if (llvm::Error err =
          readPositiveF32(config, "layer_norm_epsilon", cfg.layerNormEpsilon))
    return std::move(err);
  if (const llvm::json::Value *act = config.get("activation_function")) {
    std::optional<llvm::StringRef> name = act->getAsString();
    if (name && (*name == "gelu_new" || *name == "gelu_pytorch_tanh"))
      cfg.tanhGelu = true;
    else if (name && *name == "gelu")
      cfg.tanhGelu = false;
    else
      return keyError("activation_function",
                      "unsupported value (supported: \"gelu_new\", "
                      "\"gelu_pytorch_tanh\", \"gelu\")");
  }
  if (llvm::Error err = readBool(config, "tie_word_embeddings", cfg.tiedLMHead))
    return std::move(err);
  // Variants the builder does not implement.
  for (llvm::StringRef key :
       {"scale_attn_by_inverse_layer_idx", "add_cross_attention"})
    if (const llvm::json::Value *value = config.get(key))
      if (value->getAsBoolean().value_or(false))
        return keyError(key, "true is not supported");
  if (const llvm::json::Value *value = config.get("scale_attn_weights"))
    if (!value->getAsBoolean().value_or(true))
      return keyError("scale_attn_weights", "false is not supported");
  cfg.cacheLength = cfg.maxPositions;
  if (options.maxSeq < 0 || options.maxSeq > cfg.maxPositions)
    return llvm::createStringError(
        "--max-seq=" + llvm::Twine(options.maxSeq) +
        " is outside [1, n_positions = " + llvm::Twine(cfg.maxPositions) + "]");
  if (options.maxSeq > 0)
    cfg.cacheLength = options.maxSeq;
  if (options.weightType == WeightType::Q8_0 ||
      options.weightType == WeightType::Q4_0) {
    // Blocks of 32 run along each weight's reduction dimension: n_embd for
    // the token embedding, c_attn and c_fc, n_inner for mlp.c_proj.
    constexpr int64_t block = 32;
    auto misfit = [&](StringRef weight, StringRef key, int64_t width) {
      return llvm::createStringError(
          "--weight-type=" + weightTypeName(options.weightType) + ": weight '" +
          weight + "' has rows of " + key + " = " + llvm::Twine(width) +
          ", not a multiple of the block size " + llvm::Twine(block));
    };
    if (cfg.embedDim % block != 0)
      return misfit("wte.weight", "n_embd", cfg.embedDim);
    if (cfg.innerDim % block != 0)
      return misfit("h.0.mlp.c_proj.weight", "n_inner", cfg.innerDim);
  }
  cfg.weightType = options.weightType;
  return cfg;
}

llvm::StringRef models::weightTypeName(WeightType type) {
  switch (type) {
  case WeightType::F32:
    return "f32";
  case WeightType::BF16:
    return "bf16";
  case WeightType::F16:
    return "f16";
  case WeightType::Q8_0:
    return "q8_0";
  case WeightType::Q4_0:
    return "q4_0";
  }
  return "?";
}

std::optional<WeightType> models::parseWeightType(llvm::StringRef name) {
  for (WeightType type : {WeightType::F32, WeightType::BF16, WeightType::F16,
                          WeightType::Q8_0, WeightType::Q4_0})
    if (name == weightTypeName(type))
      return type;
  return std::nullopt;
}

llvm::Expected<OwningOpRef<ModuleOp>>
models::importHuggingFaceConfig(MLIRContext *context, llvm::StringRef json,
                                const ImportOptions &options) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value)
    return llvm::createStringError("not valid JSON: " +
                                   llvm::toString(value.takeError()));
  const llvm::json::Object *config = value->getAsObject();
  if (!config)
    return llvm::createStringError("not a JSON object");
  const llvm::json::Value *type = config->get("model_type");
  if (!type)
    return keyError("model_type", "missing");
  std::optional<llvm::StringRef> name = type->getAsString();
  OwningOpRef<ModuleOp> module;
  if (name && *name == "gpt2") {
    llvm::Expected<GPT2Config> cfg = parseGPT2Config(*config, options);
    if (!cfg)
      return cfg.takeError();
    module = buildGPT2Module(context, *cfg);
  } else if (name &&
             (*name == "llama" || *name == "qwen2" || *name == "mistral")) {
    llvm::Expected<LlamaConfig> cfg = parseLlamaConfig(*config, options);
    if (!cfg)
      return cfg.takeError();
    module = buildLlamaModule(context, *cfg);
  } else {
    return keyError("model_type",
                    "unsupported model type" +
                        (name ? " '" + *name + "'" : llvm::Twine()) +
                        " (supported: \"gpt2\", \"llama\", \"qwen2\", "
                        "\"mistral\")");
  }
  if (failed(verify(*module)))
    return llvm::createStringError("the generated module does not verify");
  return std::move(module);
}

void models::registerHuggingFaceImport() {
  static llvm::cl::opt<int64_t> maxSeq(
      "max-seq",
      llvm::cl::desc("--import-hf-config: positions of the KV cache "
                     "(default: n_positions / max_position_embeddings)"),
      llvm::cl::init(0));
  static llvm::cl::opt<std::string> weightType(
      "weight-type",
      llvm::cl::desc("--import-hf-config: storage of the 2-D weights "
                     "(projections, token embedding): f32 (default), bf16, "
                     "f16; the position embedding and 1-D weights stay f32"),
      llvm::cl::init("f32"));
  static TranslateToMLIRRegistration registration(
      "import-hf-config",
      "import a Hugging Face config.json (model_type gpt2, llama, qwen2, "
      "mistral) as a transformer-dialect module",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        ImportOptions options;
        options.maxSeq = maxSeq;
        std::optional<WeightType> type = parseWeightType(weightType);
        if (!type) {
          llvm::errs() << "Error: --weight-type=" << weightType
                       << ": unknown weight type (expected f32, bf16, f16, "
                          "q8_0 or q4_0)\n";
          return nullptr;
        }
        options.weightType = *type;
        llvm::Expected<OwningOpRef<ModuleOp>> module =
            importHuggingFaceConfig(context, buffer->getBuffer(), options);
        if (!module) {
          std::string message = llvm::toString(module.takeError());
          std::replace(message.begin(), message.end(), '\n', ' ');
          llvm::errs() << "Error: " << buffer->getBufferIdentifier() << ": "
                       << message << "\n";
          return nullptr;
        }
        return OwningOpRef<Operation *>(module->release());
      });
}
