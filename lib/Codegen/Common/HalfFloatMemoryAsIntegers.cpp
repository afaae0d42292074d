//===- HalfFloatMemoryAsIntegers.cpp - 16-bit float memory as i16 ---------===//
//
// --transformer-half-float-memory-as-integers: the vector loads and stores of
// bf16 / f16 that LLVM's x86 backend cannot move as they are (masked ones,
// plain ones whose lane count is not a power of two) or moves slowly (plain
// copies) become loads and stores of i16 vectors between bitcasts.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERHALFFLOATMEMORYASINTEGERSPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {
/// The i16 vector of `type`'s shape when `type` is a vector of bf16 or f16;
/// null otherwise.
VectorType getIntegerVectorType(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector ||
      (!vector.getElementType().isBF16() && !vector.getElementType().isF16()))
    return {};
  return vector.clone(IntegerType::get(type.getContext(), 16));
}

/// The i16 vector to move a plain load or store of `type` as, or null when
/// the backend moves `type` as it is. With AVX-512 BF16, LLVM 22's type
/// legalizer aborts on a load or store of a `bfloat` vector widened to the
/// next power of two ("Do not know how to soft promote this operator's
/// operand", e.g. for `<17 x bfloat>`, the tail of a copy 50257 wide); a
/// power-of-two lane count is legal or split, and left alone so that the
/// kernels' loads keep their type.
VectorType getIntegerTypeForPlainAccess(Type type) {
  VectorType integers = getIntegerVectorType(type);
  if (!integers || integers.getRank() != 1 || integers.isScalable() ||
      llvm::isPowerOf2_64(integers.getNumElements()))
    return {};
  return integers;
}

/// Replaces the result of `load` (a plain or masked load of 16-bit floats)
/// by a bitcast of the same load of `integers`, its pass-through values, when
/// given, bitcast to `integers` too.
void rewriteLoad(Operation *load, VectorType integers) {
  OpBuilder b(load);
  Location loc = load->getLoc();
  SmallVector<Value> operands(load->getOperands());
  // A masked load's pass-through values, when given, are its third operand.
  if (isa<LLVM::MaskedLoadOp>(load) && operands.size() == 3)
    operands[2] = LLVM::BitcastOp::create(b, loc, integers, operands[2]);
  Operation *newLoad = b.create(loc, load->getName().getIdentifier(), operands,
                                TypeRange{integers}, load->getAttrs());
  Value floats = LLVM::BitcastOp::create(b, loc, load->getResult(0).getType(),
                                         newLoad->getResult(0));
  load->getResult(0).replaceAllUsesWith(floats);
  load->erase();
}

/// Makes the value `store` (a plain or masked store) writes a bitcast of it
/// to `integers`.
void rewriteStore(Operation *store, OpOperand &value, VectorType integers) {
  OpBuilder b(store);
  value.set(LLVM::BitcastOp::create(b, store->getLoc(), integers, value.get()));
}

/// The i16 vector to move `load` as when it is a plain load of a power-of-two
/// 16-bit float vector that is only stored (a copy: a bf16 or f16 weight's
/// block packed by the contraction schedule); null otherwise. Without native
/// 16-bit float support LLVM's x86 instruction selection promotes such a
/// copy to `float` lane by lane and folds it back, which takes it six to
/// eight times as long as the same copy of f32 (two seconds of a GPT-2
/// `@prefill`'s compile on AVX2); as i16 it is moved as it is.
VectorType getIntegerTypeForCopy(LLVM::LoadOp load) {
  VectorType integers = getIntegerVectorType(load.getType());
  if (!integers || getIntegerTypeForPlainAccess(load.getType()) ||
      load->use_empty())
    return {};
  for (OpOperand &use : load->getUses()) {
    auto store = dyn_cast<LLVM::StoreOp>(use.getOwner());
    if (!store || &use != &store.getValueMutable())
      return {};
  }
  return integers;
}

/// The i16 vector to move `op` as when it is a load or store that needs it
/// (masked: any 16-bit float vector; plain: getIntegerTypeForPlainAccess);
/// null otherwise.
VectorType getIntegerTypeForAccess(Operation *op) {
  if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op))
    return getIntegerVectorType(load.getType());
  if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op))
    return getIntegerVectorType(store.getValue().getType());
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    return getIntegerTypeForPlainAccess(load.getType());
  if (auto store = dyn_cast<LLVM::StoreOp>(op))
    return getIntegerTypeForPlainAccess(store.getValue().getType());
  return {};
}

struct HalfFloatMemoryAsIntegersPass
    : transformer::impl::TransformerHalfFloatMemoryAsIntegersPassBase<
          HalfFloatMemoryAsIntegersPass> {
  void runOnOperation() override {
    SmallVector<std::pair<Operation *, VectorType>> accesses;
    getOperation()->walk([&](Operation *op) {
      if (VectorType integers = getIntegerTypeForAccess(op))
        accesses.push_back({op, integers});
      else if (auto load = dyn_cast<LLVM::LoadOp>(op))
        if (VectorType integers = getIntegerTypeForCopy(load)) {
          accesses.push_back({op, integers});
          for (Operation *store : load->getUsers())
            accesses.push_back({store, integers});
        }
    });
    for (auto [op, integers] : accesses) {
      if (auto store = dyn_cast<LLVM::StoreOp>(op))
        rewriteStore(op, store.getValueMutable(), integers);
      else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op))
        rewriteStore(op, store.getValueMutable(), integers);
      else
        rewriteLoad(op, integers);
    }
  }
};
} // namespace
