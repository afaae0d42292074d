//===- Llama.cpp - Llama-family models as transformer-dialect modules -----===//
//
// Builds the layers of Llama, Qwen2 and Mistral (Hugging Face's
// LlamaForCausalLM, Qwen2ForCausalLM, MistralForCausalLM): RMSNorm, rotary
// embeddings in the rotate-half convention with the config's inverse
// frequencies (scaling included) as a constant table, grouped-query
// attention over a cache of the key/value heads only, and the SiLU-gated
// MLP. Weights are bound by their Hugging Face names
// (`model.layers.3.self_attn.q_proj.weight`); the projections' nn.Linear
// weights [out, in] are declared transposed, [in, out], and transposed once
// when bound (CausalLMBuilder::addLinearWeight); projections are
// `transformer.matmul` plus a bias where the config has one.
// The functions, the KV cache and the greedy loop are CausalLMBuilder's.
//
//===----------------------------------------------------------------------===//

#include "CausalLMBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::models;

namespace {

/// The weights of one layer, as values of the function being built; a bias
/// the config does not have is null.
struct LayerWeights {
  Value inputNorm, q, qBias, k, kBias, v, vBias, o, oBias;
  Value postNorm, gate, gateBias, up, upBias, down, downBias;
};

class LlamaBuilder : public CausalLMBuilder {
public:
  LlamaBuilder(MLIRContext *context, const LlamaConfig &config)
      : CausalLMBuilder(context, shapeOf(config)), cfg(config) {}

private:
  const LlamaConfig &cfg;
  Value embedTokens, finalNorm, lmHead;
  /// The rotary embedding's inverse frequencies: one constant per function,
  /// made where the first rope needs it.
  Value ropeTable;
  SmallVector<LayerWeights> layers;

  static CausalLMShape shapeOf(const LlamaConfig &cfg) {
    CausalLMShape shape;
    shape.family = cfg.modelType;
    shape.numLayers = cfg.numLayers;
    shape.kvHeads = cfg.numKVHeads;
    shape.headDim = cfg.headDim;
    shape.hidden = cfg.hiddenSize;
    shape.vocab = cfg.vocabSize;
    shape.cacheLength = cfg.cacheLength;
    shape.layerPrefix = "model.layers";
    shape.weightType = cfg.weightType;
    return shape;
  }

  int64_t qWidth() const { return cfg.numHeads * cfg.headDim; }
  int64_t kvWidth() const { return cfg.numKVHeads * cfg.headDim; }

  void declareWeights() override {
    int64_t d = cfg.hiddenSize, f = cfg.intermediateSize;
    addWeight("model.embed_tokens.weight", {cfg.vocabSize, d});
    for (int64_t l = 0; l < cfg.numLayers; ++l) {
      beginLayer(l);
      std::string p = "model.layers." + std::to_string(l) + ".";
      addWeight(p + "input_layernorm.weight", {d});
      for (auto [name, out] : {std::pair<StringRef, int64_t>{"q", qWidth()},
                               {"k", kvWidth()},
                               {"v", kvWidth()}}) {
        addLinearWeight(p + "self_attn." + name + "_proj.weight", out, d);
        if (cfg.qkvBias)
          addWeight(p + "self_attn." + name + "_proj.bias", {out});
      }
      addLinearWeight(p + "self_attn.o_proj.weight", d, qWidth());
      if (cfg.outputBias)
        addWeight(p + "self_attn.o_proj.bias", {d});
      addWeight(p + "post_attention_layernorm.weight", {d});
      for (auto [name, out, in] :
           {std::tuple<StringRef, int64_t, int64_t>{"gate", f, d},
            {"up", f, d},
            {"down", d, f}}) {
        addLinearWeight(p + "mlp." + name + "_proj.weight", out, in);
        if (cfg.mlpBias)
          addWeight(p + "mlp." + name + "_proj.bias", {out});
      }
    }
    endLayers();
    addWeight("model.norm.weight", {d});
    if (!cfg.tiedLMHead)
      addWeight("lm_head.weight", {cfg.vocabSize, d});
  }

  void bindWeights(ArrayRef<Value> weights) override {
    size_t next = 0;
    auto take = [&] { return weights[next++]; };
    auto maybe = [&](bool present) { return present ? take() : Value(); };
    embedTokens = take();
    layers.clear();
    for (int64_t l = 0; l < cfg.numLayers; ++l) {
      LayerWeights w;
      w.inputNorm = take();
      for (auto [weight, bias] :
           {std::pair{&w.q, &w.qBias}, {&w.k, &w.kBias}, {&w.v, &w.vBias}}) {
        *weight = take();
        *bias = maybe(cfg.qkvBias);
      }
      w.o = take();
      w.oBias = maybe(cfg.outputBias);
      w.postNorm = take();
      for (auto [weight, bias] : {std::pair{&w.gate, &w.gateBias},
                                  {&w.up, &w.upBias},
                                  {&w.down, &w.downBias}}) {
        *weight = take();
        *bias = maybe(cfg.mlpBias);
      }
      layers.push_back(w);
    }
    finalNorm = take();
    lmHead = cfg.tiedLMHead ? embedTokens : take();
    ropeTable = Value();
  }

  /// x @ w^T (+ bias) on rows x [N, in] with an nn.Linear weight [out, in]
  /// (declared by addLinearWeight).
  Value project(const Twine &path, Value x, Value w, Value bias, int64_t out) {
    Location l = loc(path);
    Value y = linear(l, x, w, out);
    if (!bias)
      return y;
    return AddOp::create(b, l, y.getType(), y, bias);
  }

  Value rmsNorm(const Twine &path, Value x, Value gamma) {
    return RmsNormOp::create(b, loc(path), x.getType(), x, gamma,
                             b.getF32FloatAttr(cfg.rmsNormEpsilon));
  }

  /// The rotary embedding of heads [B, H, S, hd] at positions start ..:
  /// rotate-half pairs, the config's inverse frequencies.
  Value rope(Location l, Value heads, Value start) {
    if (!ropeTable) {
      auto tableType = RankedTensorType::get(
          {static_cast<int64_t>(cfg.ropeInverseFrequencies.size())}, f32);
      ropeTable = arith::ConstantOp::create(
          b, loc("rotary_emb"),
          DenseElementsAttr::get(tableType,
                                 ArrayRef<float>(cfg.ropeInverseFrequencies)));
    }
    return RopeOp::create(b, l, heads.getType(), heads, start, ropeTable,
                          APFloat(10000.0f), /*rotate_half=*/true);
  }

  Value embed(Value tokens, Value, Value, Value) override {
    Location l = loc("model.embed_tokens");
    return toRows(l, EmbeddingOp::create(b, l,
                                         tensorOf({kDyn, kDyn, cfg.hiddenSize}),
                                         tokens, embedTokens));
  }

  /// One decoder layer on rows x [B*S, D]: attention then the gated MLP,
  /// each after an RMSNorm and added to the residual.
  Value layer(Value x, int64_t index, Value batch, Value seq,
              Cache &cache) override {
    const LayerWeights &w = layers[index];
    std::string p = layerPath(index);
    std::string attn = p + ".self_attn";
    Location la = loc(attn);
    Value h = rmsNorm(p + ".input_layernorm", x, w.inputNorm);
    Value q = project(attn + ".q_proj", h, w.q, w.qBias, qWidth());
    Value k = project(attn + ".k_proj", h, w.k, w.kBias, kvWidth());
    Value v = project(attn + ".v_proj", h, w.v, w.vBias, kvWidth());
    Value start = cache.mode == CacheMode::Decode ? cache.pos : constIndex(0);
    q = rope(la, splitHeads(la, q, batch, seq, cfg.numHeads), start);
    k = rope(la, splitHeads(la, k, batch, seq, cfg.numKVHeads), start);
    v = splitHeads(la, v, batch, seq, cfg.numKVHeads);
    Value heads =
        attend(attn, q, k, v, index, batch, seq, cache, cfg.slidingWindow);
    Value o = project(attn + ".o_proj", mergeHeads(la, heads), w.o, w.oBias,
                      cfg.hiddenSize);
    Value x1 = AddOp::create(b, la, x.getType(), x, o);

    std::string mlp = p + ".mlp";
    Location lm = loc(mlp);
    Value h2 = rmsNorm(p + ".post_attention_layernorm", x1, w.postNorm);
    int64_t f = cfg.intermediateSize;
    Value gate = project(mlp + ".gate_proj", h2, w.gate, w.gateBias, f);
    Value up = project(mlp + ".up_proj", h2, w.up, w.upBias, f);
    Value act = SiluOp::create(b, lm, gate.getType(), gate);
    Value gated = MulOp::create(b, lm, gate.getType(), act, up);
    Value down =
        project(mlp + ".down_proj", gated, w.down, w.downBias, cfg.hiddenSize);
    return AddOp::create(b, lm, x.getType(), x1, down);
  }

  /// model.norm and the LM head on rows [N, D]: logits [N, V].
  Value head(Value x) override {
    Value y = rmsNorm("model.norm", x, finalNorm);
    return MatmulOp::create(b, loc("lm_head"), tensorOf({kDyn, cfg.vocabSize}),
                            y, lmHead, /*transpose_b=*/true);
  }
};
} // namespace

OwningOpRef<ModuleOp> models::buildLlamaModule(MLIRContext *context,
                                               const LlamaConfig &config) {
  return LlamaBuilder(context, config).build();
}
