//===- StackTaskTemporaries.cpp - --transformer-stack-task-temporaries ----===//
//
// Turns the small static allocations of an scf.forall's tasks into stack
// allocations scoped to the task, so that threads do not meet in malloc.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERSTACKTASKTEMPORARIESPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

namespace {

/// The most bytes a task puts on the stack: small against the 4 MiB of an
/// OpenMP worker thread's stack (libomp's default KMP_STACKSIZE).
constexpr int64_t kMaxStackBytesPerTask = 64 * 1024;

/// The bytes of a static buffer of int or float elements, or nullopt.
std::optional<int64_t> getStaticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// The allocations directly in `body` that go on the stack: static shape,
/// every use in `body` (their deallocations included), at most
/// kMaxStackBytesPerTask together.
SmallVector<memref::AllocOp> getTaskTemporaries(Block &body) {
  SmallVector<memref::AllocOp> temporaries;
  int64_t bytes = 0;
  for (Operation &op : body) {
    auto alloc = dyn_cast<memref::AllocOp>(op);
    if (!alloc || alloc->getNumOperands() != 0)
      continue;
    std::optional<int64_t> size = getStaticBytes(alloc.getType());
    if (!size || bytes + *size > kMaxStackBytesPerTask)
      continue;
    bool local = llvm::all_of(alloc->getUsers(), [&](Operation *user) {
      return body.findAncestorOpInBlock(*user) != nullptr;
    });
    if (!local)
      continue;
    bytes += *size;
    temporaries.push_back(alloc);
  }
  return temporaries;
}

struct TransformerStackTaskTemporariesPass
    : transformer::impl::TransformerStackTaskTemporariesPassBase<
          TransformerStackTaskTemporariesPass> {
  void runOnOperation() override {
    SmallVector<scf::ForallOp> foralls;
    getOperation().walk(
        [&](scf::ForallOp forall) { foralls.push_back(forall); });
    for (scf::ForallOp forall : foralls) {
      Block &body = *forall.getBody();
      SmallVector<memref::AllocOp> temporaries = getTaskTemporaries(body);
      if (temporaries.empty())
        continue;
      // The task's ops (all but the terminator) move into an alloca_scope,
      // which gives back their stack space when the task ends.
      OpBuilder builder(forall.getContext());
      builder.setInsertionPointToStart(&body);
      auto scope =
          memref::AllocaScopeOp::create(builder, forall.getLoc(), TypeRange{});
      Block *scopeBody = builder.createBlock(&scope.getBodyRegion());
      Operation *terminator = body.getTerminator();
      while (scope->getNextNode() != terminator)
        scope->getNextNode()->moveBefore(scopeBody, scopeBody->end());
      builder.setInsertionPointToEnd(scopeBody);
      memref::AllocaScopeReturnOp::create(builder, forall.getLoc(),
                                          ValueRange{});
      for (memref::AllocOp alloc : temporaries) {
        builder.setInsertionPoint(alloc);
        auto alloca = memref::AllocaOp::create(
            builder, alloc.getLoc(), alloc.getType(), alloc.getAlignmentAttr());
        for (Operation *user : llvm::to_vector(alloc->getUsers()))
          if (isa<memref::DeallocOp>(user))
            user->erase();
        alloc.replaceAllUsesWith(alloca.getResult());
        alloc.erase();
      }
    }
  }
};

} // namespace
