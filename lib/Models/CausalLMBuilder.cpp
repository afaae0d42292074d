//===- CausalLMBuilder.cpp - What every decoder-only importer shares ------===//
//
// The functions of an imported causal LM around a family's embedding,
// layers and head: weight arguments, the KV cache (one tensor for all
// layers, [layers, 2 (keys, values), batch, kv heads, positions, head dim],
// written with tensor.insert_slice, which bufferizes in place), prefill,
// decode and the greedy loop.
//
//===----------------------------------------------------------------------===//

#include "CausalLMBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::models;

CausalLMBuilder::CausalLMBuilder(MLIRContext *context, CausalLMShape shape)
    : shape(std::move(shape)), b(context), f32(b.getF32Type()),
      i64(b.getI64Type()) {
  // The dialects of every family's module.
  context->loadDialect<TransformerDialect, arith::ArithDialect,
                       cf::ControlFlowDialect, func::FuncDialect,
                       linalg::LinalgDialect, scf::SCFDialect,
                       tensor::TensorDialect>();
}

OwningOpRef<ModuleOp> CausalLMBuilder::build() {
  parameters.clear();
  declaringLayer = -1;
  declareWeights();
  groupLayerParameters();
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  // The layer functions first (building one binds its own weights), then
  // the public functions that call them; the layer functions go last.
  layerFunctions = {};
  if (!layerParameters.empty())
    for (CacheMode mode :
         {CacheMode::None, CacheMode::Prefill, CacheMode::Decode})
      layerFunctions[static_cast<unsigned>(mode)] =
          buildLayerFunction(*module, mode);
  b.setInsertionPointToEnd(module->getBody());
  buildForward();
  buildPrefill();
  buildDecode();
  buildGenerate();
  for (func::FuncOp func : layerFunctions)
    if (func)
      func->moveBefore(module->getBody(), module->getBody()->end());
  return module;
}

//===----------------------------------------------------------------------===//
// Helpers for the families
//===----------------------------------------------------------------------===//

RankedTensorType CausalLMBuilder::tensorOf(ArrayRef<int64_t> dims,
                                           Type element) {
  return RankedTensorType::get(dims, element ? element : f32);
}

Location CausalLMBuilder::loc(const Twine &name) {
  return NameLoc::get(b.getStringAttr(name));
}

Value CausalLMBuilder::constIndex(int64_t value) {
  return arith::ConstantIndexOp::create(b, b.getUnknownLoc(), value);
}

Value CausalLMBuilder::dim(Value value, int64_t index) {
  return tensor::DimOp::create(b, b.getUnknownLoc(), value, index);
}

void CausalLMBuilder::check(Location l, Value cond, const Twine &message) {
  cf::AssertOp::create(b, l, cond, (shape.family + ": " + message).str());
}

std::optional<BlockFormat> CausalLMBuilder::blockFormat() const {
  if (shape.weightType == WeightType::Q8_0)
    return BlockFormat::q8_0;
  if (shape.weightType == WeightType::Q4_0)
    return BlockFormat::q4_0;
  return std::nullopt;
}

Type CausalLMBuilder::weightElementType() {
  switch (shape.weightType) {
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

void CausalLMBuilder::addF32Weight(const Twine &name, ArrayRef<int64_t> dims) {
  parameters.push_back(
      {name.str(), tensorOf(dims, f32), false, declaringLayer});
}

void CausalLMBuilder::beginLayer(int64_t index) { declaringLayer = index; }

void CausalLMBuilder::endLayers() { declaringLayer = -1; }

std::string CausalLMBuilder::layerPath(int64_t index) const {
  return (shape.layerPrefix + "." +
          (buildingLayerFunction ? Twine("N") : Twine(index)))
      .str();
}

void CausalLMBuilder::addWeight(const Twine &name, ArrayRef<int64_t> dims,
                                bool conv1d) {
  if (dims.size() != 2)
    return addF32Weight(name, dims);
  std::optional<BlockFormat> format = blockFormat();
  if (!format) {
    parameters.push_back({name.str(), tensorOf(dims, weightElementType()),
                          false, declaringLayer});
    return;
  }
  int64_t rows = conv1d ? dims[1] : dims[0];
  int64_t width = conv1d ? dims[0] : dims[1];
  parameters.push_back(
      {name.str(),
       tensorOf({rows, width / kQuantBlockSize, getBlockBytes(*format)},
                weightElementType()),
       conv1d, declaringLayer});
}

void CausalLMBuilder::addLinearWeight(const Twine &name, int64_t out,
                                      int64_t in) {
  if (blockFormat())
    return addWeight(name, {out, in});
  // The kernels read B as [in, out] rows: prefill's register tiles and a
  // decode step's row form stream them as stored, where [out, in] would
  // need a transposed copy as large as the weight for prefill.
  parameters.push_back({name.str(), tensorOf({in, out}, weightElementType()),
                        true, declaringLayer});
}

Value CausalLMBuilder::linear(Location l, Value x, Value weight, int64_t out) {
  RankedTensorType type = tensorOf({kDyn, out});
  // Blocks are along in: their f32 view is [out, in].
  return MatmulOp::create(b, l, type, x, weight,
                          /*transpose_b=*/blockFormat().has_value());
}

Value CausalLMBuilder::reshape(Location l, Value source, RankedTensorType type,
                               ArrayRef<Value> dims) {
  Value shapeTensor = tensor::FromElementsOp::create(
      b, l, RankedTensorType::get({(int64_t)dims.size()}, b.getIndexType()),
      dims);
  return tensor::ReshapeOp::create(b, l, type, source, shapeTensor);
}

Value CausalLMBuilder::toRows(Location l, Value x) {
  int64_t width = cast<RankedTensorType>(x.getType()).getDimSize(2);
  return tensor::CollapseShapeOp::create(
      b, l, tensorOf({kDyn, width}), x,
      SmallVector<ReassociationIndices>{{0, 1}, {2}});
}

Value CausalLMBuilder::unflatten(Location l, Value rows, Value batch, Value seq,
                                 int64_t x) {
  return reshape(l, rows, tensorOf({kDyn, kDyn, x}),
                 {batch, seq, constIndex(x)});
}

Value CausalLMBuilder::splitHeads(Location l, Value rows, Value batch,
                                  Value seq, int64_t heads) {
  int64_t hd = shape.headDim;
  Value split = reshape(l, rows, tensorOf({kDyn, kDyn, heads, hd}),
                        {batch, seq, constIndex(heads), constIndex(hd)});
  return TransposeOp::create(b, l, tensorOf({kDyn, heads, kDyn, hd}), split,
                             b.getDenseI64ArrayAttr({0, 2, 1, 3}));
}

Value CausalLMBuilder::mergeHeads(Location l, Value heads) {
  auto type = cast<RankedTensorType>(heads.getType());
  int64_t nh = type.getDimSize(1), hd = type.getDimSize(3);
  Value merged =
      TransposeOp::create(b, l, tensorOf({kDyn, kDyn, nh, hd}), heads,
                          b.getDenseI64ArrayAttr({0, 2, 1, 3}));
  return tensor::CollapseShapeOp::create(
      b, l, tensorOf({kDyn, nh * hd}), merged,
      SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
}

Value CausalLMBuilder::attend(StringRef path, Value q, Value k, Value v,
                              int64_t layerIndex, Value batch, Value seq,
                              Cache &cache, std::optional<int64_t> window) {
  Location l = loc(path);
  int64_t nkv = shape.kvHeads, hd = shape.headDim;
  auto qType = cast<RankedTensorType>(q.getType());
  RankedTensorType kvType = tensorOf({kDyn, nkv, kDyn, hd});
  Value keys = k, values = v;
  bool causal = true;
  if (cache.mode != CacheMode::None) {
    Location lc = loc(path + ".kv_cache");
    OpFoldResult start = cache.mode == CacheMode::Decode
                             ? OpFoldResult(cache.pos)
                             : OpFoldResult(b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(6, b.getIndexAttr(1));
    OpFoldResult layerAt = cache.layer
                               ? OpFoldResult(cache.layer)
                               : OpFoldResult(b.getIndexAttr(layerIndex));
    auto at = [&](int64_t kind, OpFoldResult pos) {
      return SmallVector<OpFoldResult>{
          layerAt, b.getIndexAttr(kind), b.getIndexAttr(0), b.getIndexAttr(0),
          pos,     b.getIndexAttr(0)};
    };
    auto sizes = [&](OpFoldResult len) {
      return SmallVector<OpFoldResult>{
          b.getIndexAttr(1), b.getIndexAttr(1), batch, b.getIndexAttr(nkv), len,
          b.getIndexAttr(hd)};
    };
    cache.tensor = tensor::InsertSliceOp::create(
        b, lc, k, cache.tensor, at(0, start), sizes(seq), strides);
    cache.tensor = tensor::InsertSliceOp::create(
        b, lc, v, cache.tensor, at(1, start), sizes(seq), strides);
    if (cache.mode == CacheMode::Decode) {
      // Attend over the filled part: positions 0..pos.
      Value len = arith::AddIOp::create(b, lc, cache.pos, constIndex(1));
      keys = tensor::ExtractSliceOp::create(b, lc, kvType, cache.tensor,
                                            at(0, b.getIndexAttr(0)),
                                            sizes(len), strides);
      values = tensor::ExtractSliceOp::create(b, lc, kvType, cache.tensor,
                                              at(1, b.getIndexAttr(0)),
                                              sizes(len), strides);
      // One query at the last position sees every key, or with a window
      // the last `window` ones.
      causal = window.has_value();
    }
  }
  IntegerAttr windowAttr =
      causal && window ? b.getI64IntegerAttr(*window) : IntegerAttr();
  return AttentionOp::create(b, l, qType, q, keys, values, /*mask=*/Value(),
                             /*scale=*/nullptr, /*causal=*/causal, windowAttr);
}

//===----------------------------------------------------------------------===//
// The functions
//===----------------------------------------------------------------------===//

RankedTensorType CausalLMBuilder::cacheType() {
  return tensorOf({shape.numLayers, 2, kDyn, shape.kvHeads, shape.cacheLength,
                   shape.headDim});
}

func::FuncOp CausalLMBuilder::createFunction(StringRef name,
                                             ArrayRef<Type> data,
                                             ArrayRef<StringRef> dataNames,
                                             ArrayRef<Type> results) {
  SmallVector<Type> inputs(data);
  for (const Parameter &param : parameters)
    inputs.push_back(param.type);
  auto func = func::FuncOp::create(b, loc(name), name,
                                   b.getFunctionType(inputs, results));
  std::optional<BlockFormat> format = blockFormat();
  for (auto [i, param] : llvm::enumerate(parameters)) {
    unsigned arg = data.size() + i;
    func.setArgAttr(arg, "transformer.parameter", b.getStringAttr(param.name));
    if (param.transposed)
      func.setArgAttr(arg, "transformer.transposed", b.getUnitAttr());
    if (param.type.getElementType().isInteger(8))
      func.setArgAttr(arg, "transformer.block_format",
                      b.getStringAttr(stringifyBlockFormat(*format)));
  }
  Block *entry = func.addEntryBlock();
  // Argument locations carry the names too (--mlir-print-debuginfo).
  for (auto [i, dataName] : llvm::enumerate(dataNames))
    entry->getArgument(i).setLoc(loc(dataName));
  for (auto [i, param] : llvm::enumerate(parameters))
    entry->getArgument(data.size() + i).setLoc(loc(param.name));
  b.setInsertionPointToStart(entry);
  weightArguments.clear();
  SmallVector<Value> weights;
  for (auto [i, param] : llvm::enumerate(parameters)) {
    Value arg = entry->getArgument(data.size() + i);
    weightArguments.push_back(arg);
    // A layer's weights go to its layer function as they are.
    bool passedOn = param.layer >= 0 && !layerParameters.empty();
    weights.push_back(passedOn ? Value() : viewWeight(param, arg));
  }
  bindWeights(weights);
  return func;
}

Value CausalLMBuilder::viewWeight(const Parameter &param, Value arg) {
  // Quantized weights are used through their f32 view, which the
  // contractions and the embedding read from the blocks.
  if (!param.type.getElementType().isInteger(8))
    return arg;
  int64_t rows = param.type.getDimSize(0);
  int64_t width = param.type.getDimSize(1) * kQuantBlockSize;
  return DequantizeOp::create(b, loc(param.name), tensorOf({rows, width}), arg,
                              *blockFormat());
}

void CausalLMBuilder::groupLayerParameters() {
  layerParameters.assign(shape.numLayers, {});
  for (auto [i, param] : llvm::enumerate(parameters)) {
    if (param.layer < 0)
      continue;
    if (param.layer >= shape.numLayers) {
      layerParameters.clear();
      return;
    }
    layerParameters[param.layer].push_back(i);
  }
  for (ArrayRef<unsigned> layer : layerParameters) {
    ArrayRef<unsigned> first = layerParameters.front();
    if (layer.empty() || layer.size() != first.size()) {
      layerParameters.clear();
      return;
    }
    for (auto [mine, firsts] : llvm::zip(layer, first))
      if (parameters[mine].type != parameters[firsts].type ||
          parameters[mine].transposed != parameters[firsts].transposed) {
        layerParameters.clear();
        return;
      }
  }
}

func::FuncOp CausalLMBuilder::buildLayerFunction(ModuleOp module,
                                                 CacheMode mode) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  StringRef name = mode == CacheMode::None      ? "layer"
                   : mode == CacheMode::Prefill ? "layer_prefill"
                                                : "layer_decode";
  RankedTensorType rows = tensorOf({kDyn, shape.hidden});
  Type index = b.getIndexType();
  // rows, batch, seq (decode: pos), layer, [cache], weights.
  SmallVector<Type> inputs{rows, index, index, index};
  SmallVector<Type> results{rows};
  if (mode != CacheMode::None) {
    inputs.push_back(cacheType());
    results.push_back(cacheType());
  }
  unsigned firstWeight = inputs.size();
  ArrayRef<unsigned> layer0Parameters = layerParameters.front();
  for (unsigned i : layer0Parameters)
    inputs.push_back(parameters[i].type);
  Location l = loc(shape.layerPrefix + ".N");
  auto func =
      func::FuncOp::create(b, l, name, b.getFunctionType(inputs, results));
  func.setPrivate();
  Block *entry = func.addEntryBlock();
  // Argument locations name them (--mlir-print-debuginfo): the weights as
  // layer N's ("h.N.ln_1.weight").
  SmallVector<StringRef> dataNames{"rows", "batch",
                                   mode == CacheMode::Decode ? "pos" : "seq",
                                   "layer", "kv_cache"};
  for (unsigned i = 0; i < firstWeight; ++i)
    entry->getArgument(i).setLoc(loc(dataNames[i]));
  std::string layer0 = shape.layerPrefix + ".0.";
  for (auto [j, i] : llvm::enumerate(layer0Parameters)) {
    StringRef weightName = parameters[i].name;
    std::string shared = weightName.starts_with(layer0)
                             ? shape.layerPrefix + ".N." +
                                   weightName.drop_front(layer0.size()).str()
                             : weightName.str();
    entry->getArgument(firstWeight + j).setLoc(loc(shared));
  }
  b.setInsertionPointToStart(entry);
  Value x = entry->getArgument(0), batch = entry->getArgument(1);
  // A decode step has one position: a constant, which the lowering sees.
  Value seq = mode == CacheMode::Decode ? constIndex(1) : entry->getArgument(2);
  Cache cache;
  cache.mode = mode;
  if (mode == CacheMode::Decode)
    cache.pos = entry->getArgument(2);
  cache.layer = entry->getArgument(3);
  if (mode != CacheMode::None)
    cache.tensor = entry->getArgument(4);
  // The family binds every weight; those of layer 0 are this function's.
  SmallVector<Value> weights(parameters.size());
  for (auto [j, i] : llvm::enumerate(layer0Parameters))
    weights[i] = viewWeight(parameters[i], entry->getArgument(firstWeight + j));
  bindWeights(weights);
  buildingLayerFunction = true;
  Value y = layer(x, 0, batch, seq, cache);
  buildingLayerFunction = false;
  SmallVector<Value> returned{y};
  if (mode != CacheMode::None)
    returned.push_back(cache.tensor);
  func::ReturnOp::create(b, l, returned);
  return func;
}

Value CausalLMBuilder::callLayer(Value x, int64_t index, Value batch, Value seq,
                                 Cache &cache) {
  func::FuncOp func = layerFunctions[static_cast<unsigned>(cache.mode)];
  if (!func)
    return layer(x, index, batch, seq, cache);
  SmallVector<Value> operands{x, batch};
  operands.push_back(cache.mode == CacheMode::Decode ? cache.pos : seq);
  operands.push_back(constIndex(index));
  if (cache.mode != CacheMode::None)
    operands.push_back(cache.tensor);
  for (unsigned i : layerParameters[index])
    operands.push_back(weightArguments[i]);
  auto call = func::CallOp::create(b, loc(layerPath(index)), func, operands);
  if (cache.mode != CacheMode::None)
    cache.tensor = call.getResult(1);
  return call.getResult(0);
}

Value CausalLMBuilder::nonNegativeIndex(Location l, Value value,
                                        const Twine &message) {
  check(l,
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, value,
                              arith::ConstantIntOp::create(b, l, i64, 0)),
        message);
  return arith::IndexCastOp::create(b, l, b.getIndexType(), value);
}

Value CausalLMBuilder::stack(Value tokens, Value batch, Value seq, Value start,
                             Cache &cache) {
  Value x = embed(tokens, batch, seq, start);
  for (int64_t l = 0; l < shape.numLayers; ++l)
    x = callLayer(x, l, batch, seq, cache);
  return x;
}

Value CausalLMBuilder::lastLogits(Value x, Value batch, Value seq) {
  Location l = loc("lm_head");
  Value last = arith::SubIOp::create(b, l, seq, constIndex(1));
  Value xl = tensor::ExtractSliceOp::create(
      b, l, tensorOf({kDyn, shape.hidden}),
      unflatten(l, x, batch, seq, shape.hidden),
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), last, b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{batch, b.getIndexAttr(1),
                             b.getIndexAttr(shape.hidden)},
      ArrayRef<OpFoldResult>(SmallVector<OpFoldResult>(3, b.getIndexAttr(1))));
  return head(xl);
}

std::pair<Value, Value> CausalLMBuilder::promptDims(Value tokens) {
  Location l = loc("prompt");
  Value batch = dim(tokens, 0), seq = dim(tokens, 1);
  check(l,
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, seq,
                              constIndex(0)),
        "the prompt is empty (sequence length 0)");
  return {batch, seq};
}

std::pair<Value, Value> CausalLMBuilder::prefill(Value tokens) {
  auto [batch, seq] = promptDims(tokens);
  Location l = loc("kv_cache");
  check(l,
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::ule, seq,
                              constIndex(shape.cacheLength)),
        "the prompt is longer than the KV cache (" + Twine(shape.cacheLength) +
            " positions)");
  Cache cache;
  cache.mode = CacheMode::Prefill;
  cache.tensor = tensor::EmptyOp::create(b, l, cacheType(), ValueRange{batch});
  Value x = stack(tokens, batch, seq, constIndex(0), cache);
  return {lastLogits(x, batch, seq), cache.tensor};
}

std::pair<Value, Value> CausalLMBuilder::decode(Value token, Value pos,
                                                Value cacheTensor) {
  Location l = loc("kv_cache");
  Value batch = dim(token, 0);
  check(l,
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, batch,
                              dim(cacheTensor, 2)),
        "the batch of the tokens differs from the cache's");
  check(l,
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, pos,
                              constIndex(shape.cacheLength)),
        "decode position outside the KV cache (" + Twine(shape.cacheLength) +
            " positions)");
  Cache cache{CacheMode::Decode, cacheTensor, pos, Value()};
  Value x = stack(token, batch, constIndex(1), pos, cache);
  return {lastLogits(x, batch, constIndex(1)), cache.tensor};
}

Value CausalLMBuilder::argmax(Value logits) {
  // Greedy choice: argmax over the last dim of logits [B, V], the first
  // index on ties (as torch.argmax): ids [B, 1].
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
        Value greater = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT,
                                              args[0], args[1]);
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

void CausalLMBuilder::buildForward() {
  RankedTensorType tokens = tensorOf({kDyn, kDyn}, i64);
  func::FuncOp func = createFunction("forward", {tokens}, {"tokens"},
                                     {tensorOf({kDyn, kDyn, shape.vocab})});
  Value ids = func.getArgument(0);
  auto [batch, seq] = promptDims(ids);
  Cache none;
  Value x = stack(ids, batch, seq, constIndex(0), none);
  func::ReturnOp::create(
      b, loc("forward"),
      unflatten(loc("lm_head"), head(x), batch, seq, shape.vocab));
  b.setInsertionPointAfter(func);
}

void CausalLMBuilder::buildPrefill() {
  func::FuncOp func =
      createFunction("prefill", {tensorOf({kDyn, kDyn}, i64)}, {"tokens"},
                     {tensorOf({kDyn, shape.vocab}), cacheType()});
  auto [logits, cache] = prefill(func.getArgument(0));
  func::ReturnOp::create(b, loc("prefill"), ValueRange{logits, cache});
  b.setInsertionPointAfter(func);
}

void CausalLMBuilder::buildDecode() {
  func::FuncOp func =
      createFunction("decode", {tensorOf({kDyn, 1}, i64), i64, cacheType()},
                     {"tokens", "pos", "kv_cache"},
                     {tensorOf({kDyn, shape.vocab}), cacheType()});
  // The step writes the cache in place and returns it uncopied.
  func.setArgAttr(2, "transformer.in_place", b.getUnitAttr());
  Location l = loc("decode");
  Value index =
      nonNegativeIndex(l, func.getArgument(1), "negative decode position");
  auto [logits, cache] =
      decode(func.getArgument(0), index, func.getArgument(2));
  func::ReturnOp::create(b, l, ValueRange{logits, cache});
  b.setInsertionPointAfter(func);
}

void CausalLMBuilder::buildGenerate() {
  RankedTensorType ids = tensorOf({kDyn, kDyn}, i64);
  func::FuncOp func =
      createFunction("generate", {ids, i64}, {"prompt", "steps"}, {ids});
  Location l = loc("generate");
  Value prompt = func.getArgument(0);
  Value steps =
      nonNegativeIndex(l, func.getArgument(1), "negative number of steps");
  Value batch = dim(prompt, 0), seq = dim(prompt, 1);
  Value total = arith::AddIOp::create(b, l, seq, steps);
  check(l,
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::ule, total,
                              constIndex(shape.cacheLength)),
        "prompt plus steps exceed the KV cache (" + Twine(shape.cacheLength) +
            " positions)");
  auto [logits, cache] = prefill(prompt);
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
      b, l, constIndex(0), steps, constIndex(1), ValueRange{out, cache, first},
      [&](OpBuilder &body, Location, Value i, ValueRange state) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(body.getInsertionBlock(), body.getInsertionPoint());
        Value pos = arith::AddIOp::create(b, l, seq, i);
        Value written = tensor::InsertSliceOp::create(
            b, l, state[2], state[0],
            ArrayRef<OpFoldResult>{b.getIndexAttr(0), pos},
            ArrayRef<OpFoldResult>{batch, b.getIndexAttr(1)}, ones);
        Value next = arith::AddIOp::create(b, l, i, constIndex(1));
        Value more =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, next, steps);
        auto step = scf::IfOp::create(
            b, l, TypeRange{state[1].getType(), state[2].getType()}, more,
            /*withElseRegion=*/true);
        b.setInsertionPointToStart(step.thenBlock());
        auto [stepLogits, stepCache] = decode(state[2], pos, state[1]);
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
