//===- CausalLMBuilder.h - What decoder-only importers share ---*- C++ -*-===//
//
// The four functions of an imported causal language model (@forward,
// @prefill, @decode, @generate; docs/gpt2.md) are the same for every model
// family: weight arguments bound by name in their declared storage, a KV
// cache updated in place, a greedy loop. What differs is the embedding, the
// layer and the head. CausalLMBuilder builds the functions; a family's
// builder (GPT2.cpp, Llama.cpp) declares its weights and builds its
// embedding, layers and head from the helpers here.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_MODELS_CAUSALLMBUILDER_H
#define TRANSFORMER_LIB_MODELS_CAUSALLMBUILDER_H

#include "Transformer/IR/TransformerOps.h"
#include "Transformer/Models/Models.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <array>
#include <optional>
#include <string>

namespace mlir::transformer::models {

constexpr int64_t kDyn = ShapedType::kDynamic;

/// The sizes and storage the shared functions need.
struct CausalLMShape {
  /// Prefixes the run-time messages ("gpt2: the prompt is empty ...").
  std::string family;
  int64_t numLayers = 0;
  /// Key/value heads and their size: the KV cache is [layers, 2, batch,
  /// kvHeads, cacheLength, headDim].
  int64_t kvHeads = 0;
  int64_t headDim = 0;
  /// The width of the rows between layers, and the vocabulary.
  int64_t hidden = 0;
  int64_t vocab = 0;
  /// Positions of the KV cache.
  int64_t cacheLength = 0;
  /// The module path of the layers ("h": "h.0", "h.1", ...).
  std::string layerPrefix;
  /// The storage of the 2-D weights declared with addWeight.
  WeightType weightType = WeightType::F32;
};

/// Where a layer's keys and values go.
enum class CacheMode { None, Prefill, Decode };

struct Cache {
  CacheMode mode = CacheMode::None;
  /// The cache tensor, updated as layers write into it.
  Value tensor;
  /// Decode: the position (index) of the one new token of each sequence.
  Value pos;
  /// In the shared layer function: the index of the layer being run (its
  /// slice of the cache); elsewhere null, and the layer's own index is used.
  Value layer;
};

class CausalLMBuilder {
public:
  CausalLMBuilder(MLIRContext *context, CausalLMShape shape);
  virtual ~CausalLMBuilder() = default;

  /// The module: @forward, @prefill, @decode and @generate.
  OwningOpRef<ModuleOp> build();

protected:
  //===--------------------------------------------------------------------===//
  // What a family provides
  //===--------------------------------------------------------------------===//

  /// Declares the weights in argument order (addWeight, addF32Weight); the
  /// weights of layer N follow beginLayer(N), and endLayers() ends them.
  virtual void declareWeights() = 0;
  /// Receives the weights of the function being built, in declaration
  /// order: f32, bf16 or f16 tensors of their declared shape, or the f32
  /// view (`transformer.dequantize`) of block-quantized ones.
  virtual void bindWeights(ArrayRef<Value> weights) = 0;
  /// Embeddings of tokens [B, S] at positions start .. start + S - 1, as
  /// rows [B*S, hidden].
  virtual Value embed(Value tokens, Value batch, Value seq, Value start) = 0;
  /// Layer `index` on rows [B*S, hidden]; writes its keys and values into
  /// `cache` (attend does). Built once, for layer 0's weights, into the
  /// layer function that every layer calls (layerPath names it).
  virtual Value layer(Value x, int64_t index, Value batch, Value seq,
                      Cache &cache) = 0;
  /// The final norm and the LM head on rows [N, hidden]: logits [N, vocab].
  virtual Value head(Value rows) = 0;

  //===--------------------------------------------------------------------===//
  // Helpers for the families
  //===--------------------------------------------------------------------===//

  /// Declares a weight named as in the weights file. A 2-D one is stored as
  /// the --weight-type says; block-quantized, its blocks run along the
  /// reduction dimension, the second of [out, in], or the first of a
  /// `conv1d` weight [in, out] (whose blocks are then of its transpose).
  /// 1-D weights stay f32.
  void addWeight(const Twine &name, ArrayRef<int64_t> shape,
                 bool conv1d = false);
  /// Declares an nn.Linear weight, [out, in] in the file. Block-quantized,
  /// it is declared so ([out, in / 32, block bytes]); in f32, bf16 or f16
  /// as its transpose [in, out] (`transformer.transposed`: the runner
  /// transposes it once, when it binds it). `linear` multiplies by either.
  void addLinearWeight(const Twine &name, int64_t out, int64_t in);
  /// Rows x [N, in] times a weight declared with addLinearWeight, as the
  /// function sees it: [N, out].
  Value linear(Location l, Value x, Value weight, int64_t out);
  /// Declares a weight that stays f32 whatever the --weight-type.
  void addF32Weight(const Twine &name, ArrayRef<int64_t> shape);
  /// The weights declared next are layer `index`'s.
  void beginLayer(int64_t index);
  /// The weights declared next belong to no layer.
  void endLayers();
  /// The module path of layer `index` ("h.3"), or of any layer ("h.N") in
  /// the layer function, which all layers share.
  std::string layerPath(int64_t index) const;

  /// The block format of --weight-type=q8_0 or q4_0.
  std::optional<BlockFormat> blockFormat() const;

  RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type element = {});
  /// A location naming the module path an op stands for ("h.3.attn").
  Location loc(const Twine &name);
  Value constIndex(int64_t value);
  Value dim(Value value, int64_t index);
  /// Stops the program when `cond` is false: "<family>: <message>".
  void check(Location l, Value cond, const Twine &message);
  /// `source` with the shape `dims`. tensor.reshape rather than
  /// tensor.expand_shape: splitting one dynamic dim into two (B*S into B,
  /// S) as a memref.expand_shape crashes --expand-strided-metadata in
  /// LLVM 22.
  Value reshape(Location l, Value source, RankedTensorType type,
                ArrayRef<Value> dims);
  /// [B, S, X] as rows [B*S, X]: the layers work on rows, so every
  /// projection is one 2-D contraction.
  Value toRows(Location l, Value x);
  /// Rows [B*S, X] as [B, S, X].
  Value unflatten(Location l, Value rows, Value batch, Value seq, int64_t x);
  /// Rows [B*S, heads * headDim] as heads [B, heads, S, headDim].
  Value splitHeads(Location l, Value rows, Value batch, Value seq,
                   int64_t heads);
  /// Heads [B, heads, S, headDim] as rows [B*S, heads * headDim].
  Value mergeHeads(Location l, Value heads);

  /// Attention of queries q [B, H, S, hd] over keys and values k, v
  /// [B, kvHeads, S, hd] of the new positions, through the cache of layer
  /// `layerIndex`: prefill writes them at 0 .. S-1, decode at `pos` and
  /// attends over positions 0 .. pos. Causal, and with a `window` the
  /// last `window` positions only. Returns [B, H, S, hd], located at
  /// `path` (the cache's updates at `path`.kv_cache).
  Value attend(StringRef path, Value q, Value k, Value v, int64_t layerIndex,
               Value batch, Value seq, Cache &cache,
               std::optional<int64_t> window = std::nullopt);

  CausalLMShape shape;
  OpBuilder b;
  Type f32, i64;

private:
  /// A weight argument, in argument order after the data arguments.
  struct Parameter {
    /// Its name in the weights file.
    std::string name;
    RankedTensorType type;
    /// The file holds the transpose of the declared matrix, or of the one
    /// its blocks quantize (a Conv1D weight [in, out] quantized along in).
    bool transposed = false;
    /// The layer it belongs to; -1: none.
    int64_t layer = -1;
  };
  SmallVector<Parameter> parameters;
  /// The layer of the weights being declared; -1: none.
  int64_t declaringLayer = -1;
  /// Indices into `parameters` of each layer's weights; empty when the
  /// layers' weights differ in number or type (each layer is then built
  /// inline).
  SmallVector<SmallVector<unsigned>> layerParameters;
  /// The layer function of each cache mode (buildLayerFunction), indexed
  /// by CacheMode; null when each layer is built inline.
  std::array<func::FuncOp, 3> layerFunctions;
  /// Building the layer function (layerPath says "N").
  bool buildingLayerFunction = false;
  /// The arguments of the function being built that hold its weights (as
  /// declared: blocks, not their f32 view).
  SmallVector<Value> weightArguments;

  Type weightElementType();
  RankedTensorType cacheType();
  /// A public function taking `data` arguments, then every weight (with
  /// its `transformer.parameter` name); its entry block is the insertion
  /// point and its weights are bound (bindWeights).
  func::FuncOp createFunction(StringRef name, ArrayRef<Type> data,
                              ArrayRef<StringRef> dataNames,
                              ArrayRef<Type> results);
  /// `arg` as the layers read it: the f32 view of a quantized weight.
  Value viewWeight(const Parameter &param, Value arg);
  /// Fills layerParameters when every layer has weights of the same types.
  void groupLayerParameters();
  /// The private function of one layer, in the cache mode `mode`: (rows,
  /// batch, [seq], [pos], layer index, [cache], the layer's weights) ->
  /// (rows, [cache]). Every layer calls it, so that its glue (kernel
  /// calls, allocations, run-time checks) is compiled once, not once per
  /// layer.
  func::FuncOp buildLayerFunction(ModuleOp module, CacheMode mode);
  /// Layer `index` on rows `x`: a call of its layer function.
  Value callLayer(Value x, int64_t index, Value batch, Value seq, Cache &cache);
  Value nonNegativeIndex(Location l, Value value, const Twine &message);
  Value stack(Value tokens, Value batch, Value seq, Value start, Cache &cache);
  Value lastLogits(Value x, Value batch, Value seq);
  std::pair<Value, Value> promptDims(Value tokens);
  std::pair<Value, Value> prefill(Value tokens);
  std::pair<Value, Value> decode(Value token, Value pos, Value cacheTensor);
  Value argmax(Value logits);
  void buildForward();
  void buildPrefill();
  void buildDecode();
  void buildGenerate();
};

} // namespace mlir::transformer::models

#endif // TRANSFORMER_LIB_MODELS_CAUSALLMBUILDER_H
