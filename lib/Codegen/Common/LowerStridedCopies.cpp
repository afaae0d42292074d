//===- LowerStridedCopies.cpp - --transformer-lower-strided-copies --------===//
//
// Rewrites memref.copy ops that the LLVM lowering would turn into calls of
// the `memrefCopy` runtime function into linalg.copy.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERLOWERSTRIDEDCOPIESPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {
/// Whether `--finalize-memref-to-llvm` copies `type` with a plain memcpy:
/// the same test it applies (identity layout, or statically contiguous).
bool isMemcpyCompatible(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  return memref.getLayout().isIdentity() ||
         memref::isStaticShapeAndContiguousRowMajor(memref);
}

struct TransformerLowerStridedCopiesPass
    : transformer::impl::TransformerLowerStridedCopiesPassBase<
          TransformerLowerStridedCopiesPass> {
  void runOnOperation() override {
    getOperation().walk([](memref::CopyOp copy) {
      if (isMemcpyCompatible(copy.getSource().getType()) &&
          isMemcpyCompatible(copy.getTarget().getType()))
        return;
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    });
  }
};
} // namespace
