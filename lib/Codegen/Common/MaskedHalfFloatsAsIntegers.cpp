//===- MaskedHalfFloatsAsIntegers.cpp - 16-bit masked memory as i16 -------===//
//
// --transformer-masked-half-floats-as-integers: masked loads and stores of
// bf16 / f16 vectors become loads and stores of i16 vectors between
// bitcasts, which LLVM's x86 backend moves as they are instead of widening
// every lane to f32 and back.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERMASKEDHALFFLOATSASINTEGERSPASS
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

struct MaskedHalfFloatsAsIntegersPass
    : transformer::impl::TransformerMaskedHalfFloatsAsIntegersPassBase<
          MaskedHalfFloatsAsIntegersPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op);
          load && getIntegerVectorType(load.getType()))
        ops.push_back(op);
      if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op);
          store && getIntegerVectorType(store.getValue().getType()))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op)) {
        VectorType integers = getIntegerVectorType(load.getType());
        SmallVector<Value> operands(load->getOperands());
        // The pass-through values, when given, are the last operand.
        if (operands.size() == 3)
          operands[2] = LLVM::BitcastOp::create(b, loc, integers, operands[2]);
        Operation *newLoad =
            b.create(loc, load->getName().getIdentifier(), operands,
                     TypeRange{integers}, load->getAttrs());
        Value floats = LLVM::BitcastOp::create(b, loc, load.getType(),
                                               newLoad->getResult(0));
        load.getResult().replaceAllUsesWith(floats);
        load->erase();
        continue;
      }
      auto store = cast<LLVM::MaskedStoreOp>(op);
      VectorType integers = getIntegerVectorType(store.getValue().getType());
      Value bits = LLVM::BitcastOp::create(b, loc, integers, store.getValue());
      store.getValueMutable().assign(bits);
    }
  }
};
} // namespace
