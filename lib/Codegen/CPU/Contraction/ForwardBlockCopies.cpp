//===- ForwardBlockCopies.cpp - Drop copies of packed blocks --------------===//
//
// See ForwardBlockCopies.h.
//
//===----------------------------------------------------------------------===//

#include "ForwardBlockCopies.h"
#include "Transfers.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// A buffer this function may reason about: a `memref.alloc` of static
/// shape and identity layout.
bool isLocalBlock(Value buffer) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  return alloc && alloc.getType().hasStaticShape() &&
         alloc.getType().getLayout().isIdentity();
}

/// The outermost loop of the perfect nest that `write` (of `read`'s value,
/// at the same indices) copies a whole buffer of `type` with: loop i steps
/// from 0 to dimension i of the buffer by the vector's size i and its
/// induction variable is index i, or, where the vector spans dimension i
/// (a batch of one), index i is 0 and there is no loop; the loops hold
/// nothing but the next loop (or the transfers) and pure ops. None if the
/// transfers are not such a copy.
scf::ForOp getWholeCopyNest(vector::TransferReadOp read,
                            vector::TransferWriteOp write, MemRefType type) {
  VectorType vector = read.getVectorType();
  int64_t rank = type.getRank();
  if (vector.getRank() != rank || write.getVectorType() != vector)
    return nullptr;
  Operation *inner = write;
  scf::ForOp outermost;
  for (int64_t dim = rank - 1; dim >= 0; --dim) {
    if (vector.getDimSize(dim) == type.getDimSize(dim) &&
        isConstantIntValue(read.getIndices()[dim], 0) &&
        isConstantIntValue(write.getIndices()[dim], 0))
      continue;
    auto loop = dyn_cast<scf::ForOp>(inner->getParentOp());
    if (!loop || loop.getNumResults() != 0 ||
        read.getIndices()[dim] != loop.getInductionVar() ||
        write.getIndices()[dim] != loop.getInductionVar() ||
        !isConstantIntValue(loop.getLowerBound(), 0) ||
        getConstantIntValue(loop.getUpperBound()) != type.getDimSize(dim) ||
        getConstantIntValue(loop.getStep()) != vector.getDimSize(dim))
      return nullptr;
    for (Operation &op : loop.getBody()->without_terminator())
      if (&op != inner && &op != read.getOperation() && !isPure(&op))
        return nullptr;
    outermost = loop;
    inner = loop;
  }
  return outermost;
}

/// Forwards the copy that `write` makes, if it is one (see
/// forwardBlockCopies).
void forwardCopy(vector::TransferWriteOp write) {
  auto read = write.getValueToStore().getDefiningOp<vector::TransferReadOp>();
  if (!read || !read->hasOneUse() ||
      !isPlainTransfer(cast<VectorTransferOpInterface>(*read)) ||
      !isPlainTransfer(cast<VectorTransferOpInterface>(*write)))
    return;
  Value source = read.getBase(), target = write.getBase();
  auto type = dyn_cast<MemRefType>(source.getType());
  if (!type || source == target || target.getType() != type ||
      !isLocalBlock(source))
    return;
  // The target: a buffer of its own, or the one view of one.
  Operation *targetBuffer = target.getDefiningOp();
  if (auto view = target.getDefiningOp<memref::ViewOp>()) {
    targetBuffer = view.getSource().getDefiningOp();
    if (!isa_and_nonnull<memref::AllocOp>(targetBuffer))
      return;
    for (Operation *user : targetBuffer->getUsers())
      if (user != view.getOperation() && !isa<memref::DeallocOp>(user))
        return;
  } else if (!isa_and_nonnull<memref::AllocOp>(targetBuffer)) {
    return;
  }
  scf::ForOp nest = getWholeCopyNest(read, write, type);
  if (!nest)
    return;
  Block *block = nest->getBlock();
  // The target's readers follow the copy in its block; nothing there after
  // the copy writes the source.
  SmallVector<vector::TransferReadOp> readers;
  for (Operation *user : target.getUsers()) {
    if (user == write.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    auto reader = dyn_cast<vector::TransferReadOp>(user);
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!reader || !ancestor || !nest->isBeforeInBlock(ancestor))
      return;
    readers.push_back(reader);
  }
  for (Operation *user : source.getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (user == read.getOperation() || !ancestor ||
        ancestor->isBeforeInBlock(nest) || isa<vector::TransferReadOp>(user))
      continue;
    return;
  }
  for (vector::TransferReadOp reader : readers)
    reader.getBaseMutable().assign(source);
  nest->erase();
  if (auto view = target.getDefiningOp<memref::ViewOp>();
      view && view.use_empty())
    view->erase();
  if (llvm::all_of(targetBuffer->getUsers(), [](Operation *user) {
        return isa<memref::DeallocOp>(user);
      })) {
    for (Operation *user : llvm::make_early_inc_range(targetBuffer->getUsers()))
      user->erase();
    targetBuffer->erase();
  }
}

} // namespace

void mlir::transformer::forwardBlockCopies(Operation *root) {
  SmallVector<vector::TransferWriteOp> writes;
  root->walk([&](vector::TransferWriteOp write) { writes.push_back(write); });
  for (vector::TransferWriteOp write : writes)
    forwardCopy(write);
}
