//===- CacheConstantWeights.cpp - Transposed weights made once ------------===//
//
// --transformer-cpu-cache-constant-weights: the transposed copy of a
// constant weight (an argument bound from a weight file, or marked
// transformer.constant) goes into a memref.global on the first call, keyed
// by the weight's data pointer, and is reused by the calls after it.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/IR/TransformerDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
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

  /// Where `op` was (so that a copy in a branch not taken, such as the
  /// many-rows side of a dynamic row count, is never made): the cached copy
  /// of `op`'s input, made when the cache holds another pointer's.
  Value buildCache(linalg::TransposeOp op, SymbolTable &symbols) {
    ModuleOp module = getOperation();
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    auto outType = cast<RankedTensorType>(op.getResult().front().getType());
    auto bufferType =
        MemRefType::get(outType.getShape(), outType.getElementType());
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    Type i64 = b.getI64Type();
    // The copy (uninitialized: zero-filled memory of the loaded module) and
    // the pointer it was made from (0: none yet).
    auto cache = memref::GlobalOp::create(
        b, loc, "__transformer_weight_cache", b.getStringAttr("private"),
        bufferType, Attribute(b.getUnitAttr()), /*constant=*/false,
        b.getI64IntegerAttr(64));
    symbols.insert(cache);
    auto keyType = MemRefType::get({}, i64);
    auto key = memref::GlobalOp::create(
        b, loc, "__transformer_weight_cache_key", b.getStringAttr("private"),
        keyType,
        DenseElementsAttr::get(RankedTensorType::get({}, i64),
                               b.getI64IntegerAttr(0)),
        /*constant=*/false, IntegerAttr());
    symbols.insert(key);

    b.setInsertionPoint(op);
    auto inBufferType =
        MemRefType::get(inType.getShape(), inType.getElementType());
    Value in =
        bufferization::ToBufferOp::create(b, loc, inBufferType, op.getInput(),
                                          /*read_only=*/true);
    Value pointer = arith::IndexCastOp::create(
        b, loc, i64,
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, in));
    Value keyBuffer =
        memref::GetGlobalOp::create(b, loc, keyType, key.getSymName());
    Value last = memref::LoadOp::create(b, loc, keyBuffer, ValueRange{});
    Value stale =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, last, pointer);
    Value copy =
        memref::GetGlobalOp::create(b, loc, bufferType, cache.getSymName());
    scf::IfOp::create(b, loc, stale, [&](OpBuilder &nested, Location l) {
      auto transpose =
          linalg::TransposeOp::create(nested, l, in, copy, op.getPermutation());
      transpose->setAttr(kContractionAttrName,
                         op->getAttr(kContractionAttrName));
      memref::StoreOp::create(nested, l, pointer, keyBuffer, ValueRange{});
      scf::YieldOp::create(nested, l);
    });
    return bufferization::ToTensorOp::create(b, loc, outType, copy,
                                             /*restrict=*/true,
                                             /*writable=*/false);
  }
};

} // namespace
