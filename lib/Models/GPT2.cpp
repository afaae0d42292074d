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
// transposed (`transpose_b`). The KV cache is one tensor for all layers,
// [n_layer, 2 (keys, values), batch, n_head, cache positions, head dim];
// @decode and @generate write into it with tensor.insert_slice, which
// bufferizes in place.
//
//===----------------------------------------------------------------------===//

#include "Transformer/IR/TransformerOps.h"
#include "Transformer/Models/Models.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include <limits>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::models;

namespace {
constexpr int64_t kDyn = ShapedType::kDynamic;

/// The weights of one layer, as arguments of the function being built.
struct LayerWeights {
  Value ln1W, ln1B, attnW, attnB, attnProjW, attnProjB;
  Value ln2W, ln2B, fcW, fcB, mlpProjW, mlpProjB;
};

struct Weights {
  Value wte, wpe, lnfW, lnfB, lmHead;
  SmallVector<LayerWeights> layers;
};

/// Where a layer's keys and values go.
enum class CacheMode { None, Prefill, Decode };

struct Cache {
  CacheMode mode = CacheMode::None;
  /// The cache tensor, updated as layers write into it.
  Value tensor;
  /// Decode: the position (index) of the one new token of each sequence.
  Value pos;
};

class GPT2Builder {
public:
  GPT2Builder(MLIRContext *context, const GPT2Config &config)
      : cfg(config), b(context), f32(b.getF32Type()), i64(b.getI64Type()) {
    headDim = cfg.embedDim / cfg.numHeads;
    collectParameters();
  }

  OwningOpRef<ModuleOp> build() {
    OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToEnd(module->getBody());
    buildForward();
    buildPrefill();
    buildDecode();
    buildGenerate();
    return module;
  }

private:
  const GPT2Config &cfg;
  OpBuilder b;
  Type f32, i64;
  int64_t headDim;
  /// A weight argument, in argument order after the data arguments.
  struct Parameter {
    /// Its name in the weights file.
    std::string name;
    RankedTensorType type;
    /// Block-quantized (--weight-type=q8_0, q4_0): the blocks of the
    /// transpose of a Conv1D weight [in, out] (the file's layout).
    bool transposed = false;
  };
  SmallVector<Parameter> parameters;

  RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type element = {}) {
    return RankedTensorType::get(shape, element ? element : f32);
  }
  Location loc(const Twine &name) {
    return NameLoc::get(b.getStringAttr(name));
  }
  RankedTensorType cacheType() {
    return tensorOf(
        {cfg.numLayers, 2, kDyn, cfg.numHeads, cfg.cacheLength, headDim});
  }

  /// The element type of the 2-D weights other than the position embedding
  /// (--weight-type): f32, bf16 or f16, which the contractions and the
  /// embedding widen where they read them.
  Type weightElementType() {
    switch (cfg.weightType) {
    case WeightType::Q8_0:
    case WeightType::Q4_0:
      return b.getI8Type();
    case WeightType::BF16:
      return b.getBF16Type();
    case WeightType::F16:
      return b.getF16Type();
    default:
      return f32;
    }
  }

  /// The block format of --weight-type=q8_0 or q4_0.
  std::optional<BlockFormat> blockFormat() {
    if (cfg.weightType == WeightType::Q8_0)
      return BlockFormat::q8_0;
    if (cfg.weightType == WeightType::Q4_0)
      return BlockFormat::q4_0;
    return std::nullopt;
  }

  void collectParameters() {
    int64_t d = cfg.embedDim, f = cfg.innerDim;
    Type weight = weightElementType();
    std::optional<BlockFormat> format = blockFormat();
    // `conv1d`: a Conv1D weight [in, out], quantized as [out, in] (blocks
    // along the reduction dimension `in`).
    auto add = [&](const Twine &name, ArrayRef<int64_t> shape,
                   bool conv1d = false) {
      // 1-D weights (biases, norms) stay f32.
      if (shape.size() != 2) {
        parameters.push_back({name.str(), tensorOf(shape, f32)});
        return;
      }
      if (!format) {
        parameters.push_back({name.str(), tensorOf(shape, weight)});
        return;
      }
      int64_t rows = conv1d ? shape[1] : shape[0];
      int64_t width = conv1d ? shape[0] : shape[1];
      parameters.push_back(
          {name.str(),
           tensorOf({rows, width / kQuantBlockSize, getBlockBytes(*format)},
                    weight),
           conv1d});
    };
    add("wte.weight", {cfg.vocabSize, d});
    // The position embedding is added, not multiplied: it stays f32, as
    // llama.cpp keeps it.
    parameters.push_back({"wpe.weight", tensorOf({cfg.maxPositions, d}, f32)});
    for (int64_t l = 0; l < cfg.numLayers; ++l) {
      std::string h = "h." + std::to_string(l) + ".";
      add(h + "ln_1.weight", {d});
      add(h + "ln_1.bias", {d});
      add(h + "attn.c_attn.weight", {d, 3 * d}, /*conv1d=*/true);
      add(h + "attn.c_attn.bias", {3 * d});
      add(h + "attn.c_proj.weight", {d, d}, /*conv1d=*/true);
      add(h + "attn.c_proj.bias", {d});
      add(h + "ln_2.weight", {d});
      add(h + "ln_2.bias", {d});
      add(h + "mlp.c_fc.weight", {d, f}, /*conv1d=*/true);
      add(h + "mlp.c_fc.bias", {f});
      add(h + "mlp.c_proj.weight", {f, d}, /*conv1d=*/true);
      add(h + "mlp.c_proj.bias", {d});
    }
    add("ln_f.weight", {d});
    add("ln_f.bias", {d});
    if (!cfg.tiedLMHead)
      add("lm_head.weight", {cfg.vocabSize, d});
  }

  /// A public function taking `data` arguments, then every weight (with its
  /// `transformer.parameter` name); its entry block is the insertion point.
  func::FuncOp createFunction(StringRef name, ArrayRef<Type> data,
                              ArrayRef<StringRef> dataNames,
                              ArrayRef<Type> results, Weights &weights) {
    SmallVector<Type> inputs(data);
    for (const Parameter &param : parameters)
      inputs.push_back(param.type);
    auto func = func::FuncOp::create(b, loc(name), name,
                                     b.getFunctionType(inputs, results));
    std::optional<BlockFormat> format = blockFormat();
    for (auto [i, param] : llvm::enumerate(parameters)) {
      unsigned arg = data.size() + i;
      func.setArgAttr(arg, "transformer.parameter",
                      b.getStringAttr(param.name));
      if (!param.type.getElementType().isInteger(8))
        continue;
      func.setArgAttr(arg, "transformer.block_format",
                      b.getStringAttr(stringifyBlockFormat(*format)));
      if (param.transposed)
        func.setArgAttr(arg, "transformer.transposed", b.getUnitAttr());
    }
    Block *entry = func.addEntryBlock();
    // Argument locations carry the names too (--mlir-print-debuginfo).
    for (auto [i, dataName] : llvm::enumerate(dataNames))
      entry->getArgument(i).setLoc(loc(dataName));
    for (auto [i, param] : llvm::enumerate(parameters))
      entry->getArgument(data.size() + i).setLoc(loc(param.name));
    b.setInsertionPointToStart(entry);
    // Quantized weights are used through their f32 view, which the
    // contractions and the embedding read from the blocks.
    SmallVector<Value> args;
    for (auto [i, param] : llvm::enumerate(parameters)) {
      Value arg = entry->getArgument(data.size() + i);
      if (param.type.getElementType().isInteger(8)) {
        int64_t rows = param.type.getDimSize(0);
        int64_t width = param.type.getDimSize(1) * kQuantBlockSize;
        arg = DequantizeOp::create(b, loc(param.name), tensorOf({rows, width}),
                                   arg, *format);
      }
      args.push_back(arg);
    }
    size_t next = 0;
    auto take = [&] { return args[next++]; };
    weights.wte = take();
    weights.wpe = take();
    for (int64_t l = 0; l < cfg.numLayers; ++l) {
      LayerWeights w;
      for (Value *v :
           {&w.ln1W, &w.ln1B, &w.attnW, &w.attnB, &w.attnProjW, &w.attnProjB,
            &w.ln2W, &w.ln2B, &w.fcW, &w.fcB, &w.mlpProjW, &w.mlpProjB})
        *v = take();
      weights.layers.push_back(w);
    }
    weights.lnfW = take();
    weights.lnfB = take();
    weights.lmHead = cfg.tiedLMHead ? weights.wte : take();
    return func;
  }

  Value constIndex(int64_t v) {
    return arith::ConstantIndexOp::create(b, b.getUnknownLoc(), v);
  }
  Value dim(Value v, int64_t i) {
    return tensor::DimOp::create(b, b.getUnknownLoc(), v, i);
  }
  void check(Location l, Value cond, const Twine &message) {
    cf::AssertOp::create(b, l, cond, message.str());
  }

  /// Checks that an i64 argument is >= 0 and returns it as an index.
  Value nonNegativeIndex(Location l, Value value, const Twine &message) {
    check(l,
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, value,
                                arith::ConstantIntOp::create(b, l, i64, 0)),
          message);
    return arith::IndexCastOp::create(b, l, b.getIndexType(), value);
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
  Value embed(Value tokens, Value batch, Value seq, Value start,
              const Weights &w) {
    Location l = loc("wte");
    RankedTensorType hidden = tensorOf({kDyn, kDyn, cfg.embedDim});
    Value tok = EmbeddingOp::create(b, l, hidden, tokens, w.wte);
    Location lp = loc("wpe");
    Value end = arith::AddIOp::create(b, lp, start, seq);
    Value fits = arith::CmpIOp::create(b, lp, arith::CmpIPredicate::ule, end,
                                       constIndex(cfg.maxPositions));
    check(lp, fits,
          "gpt2: positions past n_positions (" + Twine(cfg.maxPositions) + ")");
    Value pe = tensor::ExtractSliceOp::create(
        b, lp, tensorOf({kDyn, cfg.embedDim}), w.wpe,
        ArrayRef<OpFoldResult>{start, b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{seq, b.getIndexAttr(cfg.embedDim)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    (void)batch;
    Value x = AddOp::create(b, l, hidden, tok, pe);
    // The layers work on rows [B*S, D]: every projection is then one 2-D
    // contraction.
    return tensor::CollapseShapeOp::create(
        b, l, tensorOf({kDyn, cfg.embedDim}), x,
        SmallVector<ReassociationIndices>{{0, 1}, {2}});
  }

  /// One pre-LN block on rows x [B*S, D]; with a cache, its keys and values are
  /// written into cache[layer] (prefill: positions 0..S-1; decode: position
  /// `pos`, S = 1) and decode attends over positions 0..pos.
  Value layer(Value x, int64_t index, const LayerWeights &w, Value batch,
              Value seq, Cache &cache) {
    std::string h = "h." + std::to_string(index);
    int64_t d = cfg.embedDim, nh = cfg.numHeads, hd = headDim;
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
    Value q = part(0), k = part(1), v = part(2);
    Value keys = k, values = v;
    bool causal = true;
    if (cache.mode != CacheMode::None) {
      Location lc = loc(h + ".attn.kv_cache");
      OpFoldResult start = cache.mode == CacheMode::Decode
                               ? OpFoldResult(cache.pos)
                               : OpFoldResult(b.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(6, b.getIndexAttr(1));
      auto at = [&](int64_t kind, OpFoldResult pos) {
        return SmallVector<OpFoldResult>{b.getIndexAttr(index),
                                         b.getIndexAttr(kind),
                                         b.getIndexAttr(0),
                                         b.getIndexAttr(0),
                                         pos,
                                         b.getIndexAttr(0)};
      };
      auto sizes = [&](OpFoldResult len) {
        return SmallVector<OpFoldResult>{b.getIndexAttr(1),
                                         b.getIndexAttr(1),
                                         batch,
                                         b.getIndexAttr(nh),
                                         len,
                                         b.getIndexAttr(hd)};
      };
      cache.tensor = tensor::InsertSliceOp::create(
          b, lc, k, cache.tensor, at(0, start), sizes(seq), strides);
      cache.tensor = tensor::InsertSliceOp::create(
          b, lc, v, cache.tensor, at(1, start), sizes(seq), strides);
      if (cache.mode == CacheMode::Decode) {
        // Attend over the filled part: positions 0..pos.
        Value len = arith::AddIOp::create(b, lc, cache.pos, constIndex(1));
        keys = tensor::ExtractSliceOp::create(b, lc, headType, cache.tensor,
                                              at(0, b.getIndexAttr(0)),
                                              sizes(len), strides);
        values = tensor::ExtractSliceOp::create(b, lc, headType, cache.tensor,
                                                at(1, b.getIndexAttr(0)),
                                                sizes(len), strides);
        // One query at the last position sees every key.
        causal = false;
      }
    }
    auto attention = AttentionOp::create(b, la, headType, q, keys, values,
                                         /*mask=*/Value(), /*scale=*/nullptr,
                                         /*causal=*/causal, /*window=*/nullptr);
    Value merged =
        TransposeOp::create(b, la, tensorOf({kDyn, kDyn, nh, hd}), attention,
                            b.getDenseI64ArrayAttr({0, 2, 1, 3}));
    merged = tensor::CollapseShapeOp::create(
        b, la, tensorOf({kDyn, d}), merged,
        SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
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
  Value head(Value x, const Weights &w) {
    Value y = layerNorm(loc("ln_f"), x, w.lnfW, w.lnfB);
    return MatmulOp::create(b, loc("lm_head"), tensorOf({kDyn, cfg.vocabSize}),
                            y, w.lmHead,
                            /*transpose_b=*/true);
  }

  /// `source` with the shape `dims`. tensor.reshape rather than
  /// tensor.expand_shape: splitting one dynamic dim into two (B*S into B, S)
  /// as a memref.expand_shape crashes --expand-strided-metadata in LLVM 22.
  Value reshape(Location l, Value source, RankedTensorType type,
                ArrayRef<Value> dims) {
    Value shape = tensor::FromElementsOp::create(
        b, l, RankedTensorType::get({(int64_t)dims.size()}, b.getIndexType()),
        dims);
    return tensor::ReshapeOp::create(b, l, type, source, shape);
  }

  /// [B*S, X] as [B, S, X].
  Value unflatten(Location l, Value rows, Value batch, Value seq, int64_t x) {
    return reshape(l, rows, tensorOf({kDyn, kDyn, x}),
                   {batch, seq, constIndex(x)});
  }

  /// Logits [B, V] of the last position of rows x [B*S, D].
  Value lastLogits(Value x, Value batch, Value seq, const Weights &w) {
    Location l = loc("lm_head");
    Value last = arith::SubIOp::create(b, l, seq, constIndex(1));
    Value xl = tensor::ExtractSliceOp::create(
        b, l, tensorOf({kDyn, cfg.embedDim}),
        unflatten(l, x, batch, seq, cfg.embedDim),
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), last, b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{batch, b.getIndexAttr(1),
                               b.getIndexAttr(cfg.embedDim)},
        ArrayRef<OpFoldResult>(
            SmallVector<OpFoldResult>(3, b.getIndexAttr(1))));
    return head(xl, w);
  }

  /// Runs every layer on the embedded tokens.
  Value stack(Value tokens, Value batch, Value seq, Value start,
              const Weights &w, Cache &cache) {
    Value x = embed(tokens, batch, seq, start, w);
    for (int64_t l = 0; l < cfg.numLayers; ++l)
      x = layer(x, l, w.layers[l], batch, seq, cache);
    return x;
  }

  /// The prompt's batch and length, checked to be non-empty.
  std::pair<Value, Value> promptDims(Value tokens) {
    Location l = loc("prompt");
    Value batch = dim(tokens, 0), seq = dim(tokens, 1);
    check(l,
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, seq,
                                constIndex(0)),
          "gpt2: the prompt is empty (sequence length 0)");
    return {batch, seq};
  }

  /// Runs the prompt through every layer and fills a new cache.
  std::pair<Value, Value> prefill(Value tokens, const Weights &w) {
    auto [batch, seq] = promptDims(tokens);
    Location l = loc("kv_cache");
    check(l,
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::ule, seq,
                                constIndex(cfg.cacheLength)),
          "gpt2: the prompt is longer than the KV cache (" +
              Twine(cfg.cacheLength) + " positions)");
    Cache cache;
    cache.mode = CacheMode::Prefill;
    cache.tensor =
        tensor::EmptyOp::create(b, l, cacheType(), ValueRange{batch});
    Value x = stack(tokens, batch, seq, constIndex(0), w, cache);
    return {lastLogits(x, batch, seq, w), cache.tensor};
  }

  /// One decode step: token [B, 1] at position `pos` (index).
  std::pair<Value, Value> decode(Value token, Value pos, Value cacheTensor,
                                 const Weights &w) {
    Location l = loc("kv_cache");
    Value batch = dim(token, 0);
    check(l,
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, batch,
                                dim(cacheTensor, 2)),
          "gpt2: the batch of the tokens differs from the cache's");
    check(l,
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, pos,
                                constIndex(cfg.cacheLength)),
          "gpt2: decode position outside the KV cache (" +
              Twine(cfg.cacheLength) + " positions)");
    Cache cache{CacheMode::Decode, cacheTensor, pos};
    Value x = stack(token, batch, constIndex(1), pos, w, cache);
    return {lastLogits(x, batch, constIndex(1), w), cache.tensor};
  }

  /// Greedy choice: argmax over the last dim of logits [B, V], the first
  /// index on ties (as torch.argmax): ids [B, 1].
  Value argmax(Value logits) {
    Location l = loc("argmax");
    Value batch = dim(logits, 0);
    auto fill = [&](Type type, TypedAttr value) {
      Value init = tensor::EmptyOp::create(b, l, tensorOf({kDyn}, type),
                                           ValueRange{batch});
      Value c = arith::ConstantOp::create(b, l, value);
      return linalg::FillOp::create(b, l, c, init).getResult(0);
    };
    Value best =
        fill(f32, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
    Value ids = fill(i64, b.getI64IntegerAttr(0));
    MLIRContext *ctx = b.getContext();
    AffineMap rows = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap row = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
    auto generic = linalg::GenericOp::create(
        b, l, TypeRange{best.getType(), ids.getType()}, ValueRange{logits},
        ValueRange{best, ids}, ArrayRef<AffineMap>{rows, row, row},
        ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                      utils::IteratorType::reduction},
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value j = linalg::IndexOp::create(nb, nl, 1);
          Value id = arith::IndexCastOp::create(nb, nl, i64, j);
          Value greater = arith::CmpFOp::create(
              nb, nl, arith::CmpFPredicate::OGT, args[0], args[1]);
          Value newBest =
              arith::SelectOp::create(nb, nl, greater, args[0], args[1]);
          Value newId = arith::SelectOp::create(nb, nl, greater, id, args[2]);
          linalg::YieldOp::create(nb, nl, ValueRange{newBest, newId});
        });
    return tensor::ExpandShapeOp::create(
        b, l, tensorOf({kDyn, 1}, i64), generic.getResult(1),
        SmallVector<ReassociationIndices>{{0, 1}},
        ArrayRef<OpFoldResult>{batch, b.getIndexAttr(1)});
  }

  void buildForward() {
    Weights w;
    RankedTensorType tokens = tensorOf({kDyn, kDyn}, i64);
    func::FuncOp func =
        createFunction("forward", {tokens}, {"tokens"},
                       {tensorOf({kDyn, kDyn, cfg.vocabSize})}, w);
    Value ids = func.getArgument(0);
    auto [batch, seq] = promptDims(ids);
    Cache none;
    Value x = stack(ids, batch, seq, constIndex(0), w, none);
    func::ReturnOp::create(
        b, loc("forward"),
        unflatten(loc("lm_head"), head(x, w), batch, seq, cfg.vocabSize));
    b.setInsertionPointAfter(func);
  }

  void buildPrefill() {
    Weights w;
    func::FuncOp func =
        createFunction("prefill", {tensorOf({kDyn, kDyn}, i64)}, {"tokens"},
                       {tensorOf({kDyn, cfg.vocabSize}), cacheType()}, w);
    auto [logits, cache] = prefill(func.getArgument(0), w);
    func::ReturnOp::create(b, loc("prefill"), ValueRange{logits, cache});
    b.setInsertionPointAfter(func);
  }

  void buildDecode() {
    Weights w;
    func::FuncOp func =
        createFunction("decode", {tensorOf({kDyn, 1}, i64), i64, cacheType()},
                       {"tokens", "pos", "kv_cache"},
                       {tensorOf({kDyn, cfg.vocabSize}), cacheType()}, w);
    // The step writes the cache in place and returns it uncopied.
    func.setArgAttr(2, "transformer.in_place", b.getUnitAttr());
    Location l = loc("decode");
    Value index = nonNegativeIndex(l, func.getArgument(1),
                                   "gpt2: negative decode position");
    auto [logits, cache] =
        decode(func.getArgument(0), index, func.getArgument(2), w);
    func::ReturnOp::create(b, l, ValueRange{logits, cache});
    b.setInsertionPointAfter(func);
  }

  void buildGenerate() {
    Weights w;
    RankedTensorType ids = tensorOf({kDyn, kDyn}, i64);
    func::FuncOp func =
        createFunction("generate", {ids, i64}, {"prompt", "steps"}, {ids}, w);
    Location l = loc("generate");
    Value prompt = func.getArgument(0);
    Value steps = nonNegativeIndex(l, func.getArgument(1),
                                   "gpt2: negative number of steps");
    Value batch = dim(prompt, 0), seq = dim(prompt, 1);
    Value total = arith::AddIOp::create(b, l, seq, steps);
    check(l,
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::ule, total,
                                constIndex(cfg.cacheLength)),
          "gpt2: prompt plus steps exceed the KV cache (" +
              Twine(cfg.cacheLength) + " positions)");
    auto [logits, cache] = prefill(prompt, w);
    Value first = argmax(logits);
    Value out = tensor::EmptyOp::create(b, l, ids, ValueRange{batch, total});
    SmallVector<OpFoldResult> ones(2, b.getIndexAttr(1));
    out = tensor::InsertSliceOp::create(
        b, l, prompt, out,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{batch, seq}, ones);
    // Step i writes token i at seq + i and, but for the last, computes
    // token i + 1 from it.
    auto loop = scf::ForOp::create(
        b, l, constIndex(0), steps, constIndex(1),
        ValueRange{out, cache, first},
        [&](OpBuilder &body, Location, Value i, ValueRange state) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(body.getInsertionBlock(),
                              body.getInsertionPoint());
          Value pos = arith::AddIOp::create(b, l, seq, i);
          Value written = tensor::InsertSliceOp::create(
              b, l, state[2], state[0],
              ArrayRef<OpFoldResult>{b.getIndexAttr(0), pos},
              ArrayRef<OpFoldResult>{batch, b.getIndexAttr(1)}, ones);
          Value next = arith::AddIOp::create(b, l, i, constIndex(1));
          Value more = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                             next, steps);
          auto step = scf::IfOp::create(
              b, l, TypeRange{state[1].getType(), state[2].getType()}, more,
              /*withElseRegion=*/true);
          b.setInsertionPointToStart(step.thenBlock());
          auto [stepLogits, stepCache] = decode(state[2], pos, state[1], w);
          scf::YieldOp::create(b, l, ValueRange{stepCache, argmax(stepLogits)});
          b.setInsertionPointToStart(step.elseBlock());
          scf::YieldOp::create(b, l, ValueRange{state[1], state[2]});
          b.setInsertionPointAfter(step);
          scf::YieldOp::create(
              b, l, ValueRange{written, step.getResult(0), step.getResult(1)});
        });
    func::ReturnOp::create(b, l, loop.getResult(0));
    b.setInsertionPointAfter(func);
  }
};
} // namespace

OwningOpRef<ModuleOp> models::buildGPT2Module(MLIRContext *context,
                                              const GPT2Config &config) {
  context->loadDialect<TransformerDialect, arith::ArithDialect,
                       cf::ControlFlowDialect, func::FuncDialect,
                       linalg::LinalgDialect, scf::SCFDialect,
                       tensor::TensorDialect>();
  return GPT2Builder(context, config).build();
}
