//===- CacheConstantWeights.cpp - Transposed weights made once ------------===//
//
// --transformer-cpu-cache-constant-weights: the transposed copy of a
// constant weight (an argument bound from a weight file, or marked
// transformer.constant) goes into a memref.global on the first call, keyed
// by the weight's data pointer, and is reused by the calls after it. The
// functions of a module share one copy per named weight, and the copies of
// one shape share one transpose function.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/IR/TransformerDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUCACHECONSTANTWEIGHTSPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// The attribute of an argument bound from a weight file (the runner's
/// kParameterAttrName, Transformer/Runner/Signature.h).
constexpr llvm::StringLiteral kParameterAttrName = "transformer.parameter";

/// Whether `value` is an argument of its function that is the same on
/// every call.
bool isConstantArgument(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return false;
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func || arg.getOwner() != &func.getBody().front())
    return false;
  unsigned i = arg.getArgNumber();
  return func.getArgAttr(i, kConstantArgAttrName) ||
         func.getArgAttr(i, kParameterAttrName);
}

struct CacheConstantWeightsPass
    : transformer::impl::TransformerCPUCacheConstantWeightsPassBase<
          CacheConstantWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::TransposeOp> transposes;
    module.walk([&](linalg::TransposeOp op) {
      auto tag = op->getAttrOfType<StringAttr>(kContractionAttrName);
      auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
      if (tag && tag.getValue() == "transpose" && op.hasPureTensorSemantics() &&
          type && type.getRank() == 2 && type.hasStaticShape() &&
          type.getElementType().isIntOrFloat() &&
          isConstantArgument(op.getInput()))
        transposes.push_back(op);
    });
    SymbolTable symbols(module);
    // The globals and functions of this module only: a pass manager may run
    // the pass on several modules.
    globalsByName.clear();
    transposeFunctions.clear();
    // One cache per weight and block: a weight read by several
    // contractions of a block is copied once.
    DenseMap<std::pair<Value, Block *>, Value> cached;
    for (linalg::TransposeOp op : transposes) {
      Value &result = cached[{op.getInput(), op->getBlock()}];
      if (!result)
        result = buildCache(op, symbols);
      op.getResult().front().replaceAllUsesWith(result);
      op.erase();
    }
  }

private:
  /// The buffers of one cached copy: the copy (uninitialized: zero-filled
  /// memory of the loaded module) and the pointer it was made from (0: none
  /// yet).
  struct CacheGlobals {
    memref::GlobalOp copy, key;
  };

  /// The globals of `weight`'s copy. A weight bound by name
  /// (`transformer.parameter`) has one copy for the whole module: every
  /// function binds the same data to the name (@prefill, @decode and
  /// @generate of a model), and the key check makes the copy again when
  /// they do not. Other constant arguments get globals of their own.
  CacheGlobals getCacheGlobals(Value weight, MemRefType bufferType,
                               SymbolTable &symbols) {
    auto arg = cast<BlockArgument>(weight);
    auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
    auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                  kParameterAttrName);
    if (name)
      if (auto it = globalsByName.find({name, bufferType});
          it != globalsByName.end())
        return it->second;
    ModuleOp module = getOperation();
    Location loc = weight.getLoc();
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    CacheGlobals globals;
    globals.copy = memref::GlobalOp::create(
        b, loc, "__transformer_weight_cache", b.getStringAttr("private"),
        bufferType, Attribute(b.getUnitAttr()), /*constant=*/false,
        b.getI64IntegerAttr(64));
    symbols.insert(globals.copy);
    Type i64 = b.getI64Type();
    globals.key = memref::GlobalOp::create(
        b, loc, "__transformer_weight_cache_key", b.getStringAttr("private"),
        MemRefType::get({}, i64),
        DenseElementsAttr::get(RankedTensorType::get({}, i64),
                               b.getI64IntegerAttr(0)),
        /*constant=*/false, IntegerAttr());
    symbols.insert(globals.key);
    if (name)
      globalsByName[{name, bufferType}] = globals;
    return globals;
  }

  /// The private function that transposes `inType` into `outType` as `op`
  /// does, one per pair of types: the copies of every layer's weights of
  /// one shape share its code (the callers are not outlined into kernels,
  /// so a copy written in each would be compiled once per layer).
  func::FuncOp getTransposeFunction(linalg::TransposeOp op, MemRefType inType,
                                    MemRefType outType, SymbolTable &symbols) {
    func::FuncOp &func = transposeFunctions[{inType, outType}];
    if (func)
      return func;
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    Location loc = op.getLoc();
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    func = func::FuncOp::create(b, loc, "__transformer_weight_transpose",
                                b.getFunctionType({inType, outType}, {}));
    func.setPrivate();
    // Kept a function of its own by MLIR's inliner and LLVM's alike (as
    // the kernels of --transformer-outline-kernels are).
    func.setNoInline(true);
    func->setAttr("passthrough",
                  ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
    symbols.insert(func);
    Block *entry = func.addEntryBlock();
    OpBuilder body = OpBuilder::atBlockEnd(entry);
    auto transpose =
        linalg::TransposeOp::create(body, loc, entry->getArgument(0),
                                    entry->getArgument(1), op.getPermutation());
    transpose->setAttr(kContractionAttrName, op->getAttr(kContractionAttrName));
    func::ReturnOp::create(body, loc);
    return func;
  }

  DenseMap<std::pair<StringAttr, Type>, CacheGlobals> globalsByName;
  DenseMap<std::pair<Type, Type>, func::FuncOp> transposeFunctions;

  /// Where `op` was (so that a copy in a branch not taken, such as the
  /// many-rows side of a dynamic row count, is never made): the cached copy
  /// of `op`'s input, made when the cache holds another pointer's.
  Value buildCache(linalg::TransposeOp op, SymbolTable &symbols) {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    auto outType = cast<RankedTensorType>(op.getResult().front().getType());
    auto bufferType =
        MemRefType::get(outType.getShape(), outType.getElementType());
    auto inBufferType =
        MemRefType::get(inType.getShape(), inType.getElementType());
    CacheGlobals globals = getCacheGlobals(op.getInput(), bufferType, symbols);
    func::FuncOp transposeFunction =
        getTransposeFunction(op, inBufferType, bufferType, symbols);

    OpBuilder b(op);
    Value in =
        bufferization::ToBufferOp::create(b, loc, inBufferType, op.getInput(),
                                          /*read_only=*/true);
    Value pointer = arith::IndexCastOp::create(
        b, loc, b.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, in));
    Value keyBuffer = memref::GetGlobalOp::create(b, loc, globals.key.getType(),
                                                  globals.key.getSymName());
    Value last = memref::LoadOp::create(b, loc, keyBuffer, ValueRange{});
    Value stale =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, last, pointer);
    Value copy = memref::GetGlobalOp::create(b, loc, bufferType,
                                             globals.copy.getSymName());
    scf::IfOp::create(b, loc, stale, [&](OpBuilder &nested, Location l) {
      func::CallOp::create(nested, l, transposeFunction, ValueRange{in, copy});
      memref::StoreOp::create(nested, l, pointer, keyBuffer, ValueRange{});
      scf::YieldOp::create(nested, l);
    });
    return bufferization::ToTensorOp::create(b, loc, outType, copy,
                                             /*restrict=*/true,
                                             /*writable=*/false);
  }
};

} // namespace
