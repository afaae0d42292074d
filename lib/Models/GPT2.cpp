//===- GPT2.cpp - GPT-2 as a transformer-dialect module -------------------===//
//
// Builds the functions of a GPT-2 (Radford et al. 2019; Hugging Face's
// GPT2LMHeadModel) in the transformer dialect, one layer after another, each
// op located at the module path it stands for (`h.3.attn`, `h.3.mlp`, ...)
// and each weight an argument bound by its name in the published
// model.safetensors (`transformer.parameter = "h.3.attn.c_attn.weight"`).
//
// GPT-2's Conv1D stores weights as [in, out], so projections are
// `transformer.matmul %x, %w` plus the bias; the LM head is wte.weight used
// transposed (`transpose_b`). The functions, the KV cache and the greedy
// loop are CausalLMBuilder's.
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

/// The weights of one layer, as values of the function being built.
struct LayerWeights {
  Value ln1W, ln1B, attnW, attnB, attnProjW, attnProjB;
  Value ln2W, ln2B, fcW, fcB, mlpProjW, mlpProjB;
};

class GPT2Builder : public CausalLMBuilder {
public:
  GPT2Builder(MLIRContext *context, const GPT2Config &config)
      : CausalLMBuilder(context, shapeOf(config)), cfg(config) {}

private:
  const GPT2Config &cfg;
  Value wte, wpe, lnfW, lnfB, lmHead;
  SmallVector<LayerWeights> layers;

  static CausalLMShape shapeOf(const GPT2Config &cfg) {
    CausalLMShape shape;
    shape.family = "gpt2";
    shape.numLayers = cfg.numLayers;
    shape.kvHeads = cfg.numHeads;
    shape.headDim = cfg.embedDim / cfg.numHeads;
    shape.hidden = cfg.embedDim;
    shape.vocab = cfg.vocabSize;
    shape.cacheLength = cfg.cacheLength;
    shape.layerPrefix = "h";
    shape.weightType = cfg.weightType;
    return shape;
  }

  void declareWeights() override {
    int64_t d = cfg.embedDim, f = cfg.innerDim;
    addWeight("wte.weight", {cfg.vocabSize, d});
    // The position embedding is added, not multiplied: it stays f32, as
    // llama.cpp keeps it.
    addF32Weight("wpe.weight", {cfg.maxPositions, d});
    for (int64_t l = 0; l < cfg.numLayers; ++l) {
      beginLayer(l);
      std::string h = "h." + std::to_string(l) + ".";
      addWeight(h + "ln_1.weight", {d});
      addWeight(h + "ln_1.bias", {d});
      addWeight(h + "attn.c_attn.weight", {d, 3 * d}, /*conv1d=*/true);
      addWeight(h + "attn.c_attn.bias", {3 * d});
      addWeight(h + "attn.c_proj.weight", {d, d}, /*conv1d=*/true);
      addWeight(h + "attn.c_proj.bias", {d});
      addWeight(h + "ln_2.weight", {d});
      addWeight(h + "ln_2.bias", {d});
      addWeight(h + "mlp.c_fc.weight", {d, f}, /*conv1d=*/true);
      addWeight(h + "mlp.c_fc.bias", {f});
      addWeight(h + "mlp.c_proj.weight", {f, d}, /*conv1d=*/true);
      addWeight(h + "mlp.c_proj.bias", {d});
    }
    endLayers();
    addWeight("ln_f.weight", {d});
    addWeight("ln_f.bias", {d});
    if (!cfg.tiedLMHead)
      addWeight("lm_head.weight", {cfg.vocabSize, d});
  }

  void bindWeights(ArrayRef<Value> weights) override {
    size_t next = 0;
    auto take = [&] { return weights[next++]; };
    wte = take();
    wpe = take();
    layers.clear();
    for (int64_t l = 0; l < cfg.numLayers; ++l) {
      LayerWeights w;
      for (Value *v :
           {&w.ln1W, &w.ln1B, &w.attnW, &w.attnB, &w.attnProjW, &w.attnProjB,
            &w.ln2W, &w.ln2B, &w.fcW, &w.fcB, &w.mlpProjW, &w.mlpProjB})
        *v = take();
      layers.push_back(w);
    }
    lnfW = take();
    lnfB = take();
    lmHead = cfg.tiedLMHead ? wte : take();
  }

  /// x @ w + bias with a Conv1D weight [in, out], on rows x [N, in]; a
  /// quantized weight is [out, in].
  Value conv1d(Location l, Value x, Value w, Value bias, int64_t out) {
    RankedTensorType type = tensorOf({kDyn, out});
    Value y = MatmulOp::create(b, l, type, x, w,
                               /*transpose_b=*/blockFormat().has_value());
    return AddOp::create(b, l, type, y, bias);
  }

  Value layerNorm(Location l, Value x, Value gamma, Value beta) {
    return LayerNormOp::create(b, l, x.getType(), x, gamma, beta,
                               b.getF32FloatAttr(cfg.layerNormEpsilon));
  }

  /// Token plus position embeddings of `tokens` [B, S] at positions
  /// `start`..`start`+S-1 (checked to be below n_positions).
  Value embed(Value tokens, Value, Value seq, Value start) override {
    Location l = loc("wte");
    RankedTensorType hidden = tensorOf({kDyn, kDyn, cfg.embedDim});
    Value tok = EmbeddingOp::create(b, l, hidden, tokens, wte);
    Location lp = loc("wpe");
    Value end = arith::AddIOp::create(b, lp, start, seq);
    Value fits = arith::CmpIOp::create(b, lp, arith::CmpIPredicate::ule, end,
                                       constIndex(cfg.maxPositions));
    check(lp, fits,
          "positions past n_positions (" + Twine(cfg.maxPositions) + ")");
    Value pe = tensor::ExtractSliceOp::create(
        b, lp, tensorOf({kDyn, cfg.embedDim}), wpe,
        ArrayRef<OpFoldResult>{start, b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{seq, b.getIndexAttr(cfg.embedDim)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    return toRows(l, AddOp::create(b, l, hidden, tok, pe));
  }

  /// One pre-LN block on rows x [B*S, D].
  Value layer(Value x, int64_t index, Value batch, Value seq,
              Cache &cache) override {
    const LayerWeights &w = layers[index];
    std::string h = layerPath(index);
    int64_t d = cfg.embedDim, nh = cfg.numHeads, hd = shape.headDim;
    Location la = loc(h + ".attn");
    Value ln1 = layerNorm(loc(h + ".ln_1"), x, w.ln1W, w.ln1B);
    Value qkv = conv1d(la, ln1, w.attnW, w.attnB, 3 * d);
    // [B*S, 3D] -> [B, S, 3, H, hd] -> [3, B, H, S, hd].
    Value split =
        reshape(la, qkv, tensorOf({kDyn, kDyn, 3, nh, hd}),
                {batch, seq, constIndex(3), constIndex(nh), constIndex(hd)});
    Value heads =
        TransposeOp::create(b, la, tensorOf({3, kDyn, nh, kDyn, hd}), split,
                            b.getDenseI64ArrayAttr({2, 0, 3, 1, 4}));
    RankedTensorType headType = tensorOf({kDyn, nh, kDyn, hd});
    auto part = [&](int64_t i) -> Value {
      return tensor::ExtractSliceOp::create(
          b, la, headType, heads,
          ArrayRef<OpFoldResult>{b.getIndexAttr(i), b.getIndexAttr(0),
                                 b.getIndexAttr(0), b.getIndexAttr(0),
                                 b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1), batch, b.getIndexAttr(nh),
                                 seq, b.getIndexAttr(hd)},
          ArrayRef<OpFoldResult>(
              SmallVector<OpFoldResult>(5, b.getIndexAttr(1))));
    };
    Value attention = attend(h + ".attn", part(0), part(1), part(2), index,
                             batch, seq, cache);
    Value merged = mergeHeads(la, attention);
    Value proj =
        conv1d(loc(h + ".attn.c_proj"), merged, w.attnProjW, w.attnProjB, d);
    Value x1 = AddOp::create(b, la, x.getType(), x, proj);

    Location lm = loc(h + ".mlp");
    Value ln2 = layerNorm(loc(h + ".ln_2"), x1, w.ln2W, w.ln2B);
    Value fc = conv1d(loc(h + ".mlp.c_fc"), ln2, w.fcW, w.fcB, cfg.innerDim);
    Value act =
        GeluOp::create(b, lm, fc.getType(), fc, cfg.tanhGelu ? "tanh" : "none");
    Value mlp = conv1d(loc(h + ".mlp.c_proj"), act, w.mlpProjW, w.mlpProjB, d);
    return AddOp::create(b, lm, x.getType(), x1, mlp);
  }

  /// ln_f and the LM head on rows [N, D]: logits [N, V].
  Value head(Value x) override {
    Value y = layerNorm(loc("ln_f"), x, lnfW, lnfB);
    return MatmulOp::create(b, loc("lm_head"), tensorOf({kDyn, cfg.vocabSize}),
                            y, lmHead,
                            /*transpose_b=*/true);
  }
};
} // namespace

OwningOpRef<ModuleOp> models::buildGPT2Module(MLIRContext *context,
                                              const GPT2Config &config) {
  return GPT2Builder(context, config).build();
}
