//===- OutlineKernels.cpp - --transformer-outline-kernels -----------------===//
//
// Moves each compute group of linalg ops into a private kernel function and
// calls it, with one function per distinct kernel: the layers of a model
// share their kernels, so LLVM compiles each kernel once (as IREE
// deduplicates its dispatches).
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/Common/NoInline.h"
#include "Transformer/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMEROUTLINEKERNELSPASS
#include "Transformer/Codegen/Common/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;

/// Marks the functions this pass creates (they are not outlined again).
static constexpr llvm::StringLiteral kKernelAttr = "transformer.kernel";

namespace {

/// A `linalg.fill`, or a generic whose body only yields an input (a
/// broadcast or a copy) or a value from outside (a fill, as element-wise
/// conversion writes it): cheap to redo, so when it initialises the result
/// of a kernel it is cloned into that kernel instead of being a kernel
/// itself.
bool isInitProducer(Operation *op) {
  if (isa<linalg::FillOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumReductionLoops() != 0 ||
      generic.getNumDpsInits() != 1)
    return false;
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 1)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value yielded = yield.getOperand(0);
  if (yielded.getParentRegion() != &generic.getRegion())
    return true;
  auto arg = dyn_cast<BlockArgument>(yielded);
  return arg && arg.getOwner() == &body &&
         arg.getArgNumber() < generic.getNumDpsInputs();
}

/// Whether every use of `op`'s results is as the init of a linalg op or of
/// another destination-style op (the shared outputs of a kernel root's
/// scf.forall), so that it is cloned into the kernels of those ops (and not
/// a kernel of its own, erased by the outlining of the first of them).
bool onlyInitializes(Operation *op) {
  for (OpOperand &use : op->getUses()) {
    auto user = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
    if (!user || !user.isDpsInit(&use))
      return false;
  }
  return !op->use_empty();
}

/// An element-wise op (all loops parallel, one result) that reads `value`
/// through a permutation, that is, without recomputing anything per
/// element of `value`.
bool isElementwiseConsumer(Operation *op, Value value) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
      linalgOp.getNumReductionLoops() != 0 || op->getNumResults() != 1 ||
      op->getNumRegions() != 1)
    return false;
  for (OpOperand *input : linalgOp.getDpsInputOperands())
    if (input->get() == value &&
        linalgOp.getMatchingIndexingMap(input).isPermutation())
      return true;
  return false;
}

/// A contraction as linalg's interface knows one, or any linalg op that
/// multiplies its two inputs and accumulates into its init along a
/// reduction: also one that reads an operand through a map that is not a
/// projected permutation, such as B laid out in the CPU's register panels
/// ((n floordiv r, k, n mod r)), whose element-wise consumers (bias,
/// activation, residual, a gate's product) belong in its kernel as much.
bool isContractionLike(linalg::LinalgOp op) {
  if (linalg::isaContractionOpInterface(op))
    return true;
  if (op.getNumReductionLoops() == 0 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !op.getBlock())
    return false;
  return linalg::detail::isContractionBody(
      *op.getBlock(), [](Operation *multiply, Operation *add) {
        return (isa<arith::MulFOp>(multiply) && isa<arith::AddFOp>(add)) ||
               (isa<arith::MulIOp>(multiply) && isa<arith::AddIOp>(add));
      });
}

/// A contraction that `consumer` (an element-wise op in `root`'s chain of
/// consumers) also reads, directly, and that reads the same A as `root`:
/// the gate and up projections of a gated MLP, whose product is the
/// consumer. It goes into `root`'s kernel (before the consumer, after what it
/// uses, with the operands made for it alone: a dequantized weight), where
/// the CPU pipeline computes both in the same cache tiles and the sibling's
/// result never exists whole. Null when there is none, or when it is in
/// another block, already grouped or used elsewhere.
Operation *
getSiblingContraction(linalg::LinalgOp root, Operation *consumer,
                      const llvm::SmallPtrSetImpl<Operation *> &grouped) {
  for (Value input : cast<linalg::LinalgOp>(consumer).getDpsInputs()) {
    auto sibling = input.getDefiningOp<linalg::LinalgOp>();
    if (sibling && sibling != root && input.hasOneUse() &&
        sibling->getBlock() == consumer->getBlock() &&
        !grouped.contains(sibling) && sibling.hasPureTensorSemantics() &&
        isContractionLike(sibling) &&
        sibling.getDpsInputs()[0] == root.getDpsInputs()[0] &&
        isElementwiseConsumer(consumer, input))
      return sibling;
  }
  return nullptr;
}

/// One kernel: ops moved out of the caller, in program order; the last one
/// is where the call goes.
struct Group {
  SmallVector<Operation *> ops;
};

struct TransformerOutlineKernelsPass
    : transformer::impl::TransformerOutlineKernelsPassBase<
          TransformerOutlineKernelsPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Whether `value` is recomputed inside the kernel rather than passed in:
  /// constants up to `maxClonedConstantElements`, tensor.empty, tensor.dim,
  /// views (slices, reshapes, casts), and fills/broadcasts that initialise a
  /// result (`asInit`).
  bool isCloneable(Value value, bool asInit) const;

  /// Builds the kernel of `group`, reusing an equal one, and replaces the
  /// group with a call.
  LogicalResult outline(Group &group, SymbolTable &symbols);

  /// Kernels by structural hash, to find an equal one.
  DenseMap<llvm::hash_code, SmallVector<func::FuncOp>> kernelsByHash;
};

bool TransformerOutlineKernelsPass::isCloneable(Value value,
                                                bool asInit) const {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
    auto shaped = dyn_cast<ShapedType>(constant.getType());
    if (!shaped)
      return true;
    auto elements = dyn_cast<ElementsAttr>(constant.getValue());
    return (elements && elements.isSplat()) ||
           (shaped.hasStaticShape() &&
            shaped.getNumElements() <= maxClonedConstantElements);
  }
  // A reshape of an accumulator stays in the caller: inside the kernel it
  // would be a view of the buffer that the kernel writes, and the CPU
  // schedule keeps register tiles of accumulators only for buffers without
  // views (hoist_redundant_vector_transfers).
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return !asInit;
  if (isa<tensor::EmptyOp, tensor::DimOp, tensor::ExtractSliceOp,
          tensor::CastOp>(def))
    return true;
  return asInit && isInitProducer(def);
}

/// A hash of the kernel's body that equal kernels share: op names,
/// attributes, properties and types, not the values.
static llvm::hash_code hashKernel(func::FuncOp func) {
  llvm::hash_code hash = hash_value(func.getFunctionType());
  func.getBody().walk([&](Operation *op) {
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

LogicalResult TransformerOutlineKernelsPass::outline(Group &group,
                                                     SymbolTable &symbols) {
  Operation *tail = group.ops.back();
  llvm::SmallPtrSet<Operation *, 8> members(group.ops.begin(), group.ops.end());
  func::FuncOp caller = tail->getParentOfType<func::FuncOp>();

  // Results: what the caller still uses after the group.
  SmallVector<Value> results;
  for (Operation *op : group.ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !members.contains(user);
          }))
        results.push_back(result);
  if (results.empty())
    return success(); // Dead; canonicalization removes it.

  // Destinations: a result whose init chain (through fills and broadcasts,
  // which the kernel clones) starts at a tensor.empty is written into a
  // buffer that the caller passes, so that the caller allocates it (and
  // frees it) as it did before the outlining; the kernel's result is then
  // equivalent to that argument, and --drop-equivalent-buffer-results
  // removes it after bufferization.
  SmallVector<OpOperand *> destinations;
  SmallVector<tensor::EmptyOp> destinationEmpties;
  for (Value result : results) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(result.getDefiningOp());
    OpOperand *init =
        dps ? dps.getTiedOpOperand(cast<OpResult>(result)) : nullptr;
    while (init && !llvm::is_contained(destinations, init)) {
      Operation *def = init->get().getDefiningOp();
      if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def)) {
        destinations.push_back(init);
        destinationEmpties.push_back(empty);
        break;
      }
      if (!def || members.contains(def) || !isCloneable(init->get(), true) ||
          def->getNumResults() != 1 || !isa<DestinationStyleOpInterface>(def))
        break;
      init = cast<DestinationStyleOpInterface>(def).getTiedOpOperand(
          cast<OpResult>(def->getResult(0)));
    }
  }

  // The values the kernel takes, in order of first use, and the ops it
  // holds: the producers it clones and the group's ops, each after what it
  // uses.
  llvm::SetVector<Value> arguments;
  llvm::SetVector<Operation *> order;
  llvm::SmallPtrSet<Operation *, 8> clones;
  std::function<void(Operation *)> visitOperands;
  std::function<void(Value, bool)> visit = [&](Value value, bool asInit) {
    Operation *def = value.getDefiningOp();
    if (def && (members.contains(def) || clones.contains(def)))
      return;
    if (!isCloneable(value, asInit)) {
      arguments.insert(value);
      return;
    }
    clones.insert(def);
    visitOperands(def);
    order.insert(def);
  };
  visitOperands = [&](Operation *op) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(op);
    for (OpOperand &operand : op->getOpOperands())
      if (!llvm::is_contained(destinations, &operand))
        visit(operand.get(), dps && dps.isDpsInit(&operand));
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(op->getRegions(), above);
    for (Value v : above)
      visit(v, /*asInit=*/false);
  };
  for (Operation *op : group.ops) {
    visitOperands(op);
    order.insert(op);
  }

  // Build the kernel.
  MLIRContext *ctx = &getContext();
  SmallVector<Type> argTypes, resultTypes;
  for (Value v : arguments)
    argTypes.push_back(v.getType());
  for (tensor::EmptyOp empty : destinationEmpties)
    argTypes.push_back(empty.getType());
  for (Value v : results)
    resultTypes.push_back(v.getType());
  auto kernel = func::FuncOp::create(
      tail->getLoc(), (caller.getSymName() + "_kernel").str(),
      FunctionType::get(ctx, argTypes, resultTypes));
  kernel.setPrivate();
  // Neither inliner may copy a kernel into each layer.
  transformer::markNoInline(kernel);
  kernel->setAttr(kKernelAttr, UnitAttr::get(ctx));
  Block *entry = kernel.addEntryBlock();
  IRMapping mapping;
  for (auto [value, arg] : llvm::zip(arguments, entry->getArguments()))
    mapping.map(value, arg);
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  for (Operation *op : order)
    body.clone(*op, mapping);
  for (auto [i, init] : llvm::enumerate(destinations))
    mapping.lookup(init->getOwner())
        ->setOperand(init->getOperandNumber(),
                     entry->getArgument(arguments.size() + i));
  SmallVector<Value> returned;
  for (Value v : results)
    returned.push_back(mapping.lookup(v));
  func::ReturnOp::create(body, tail->getLoc(), returned);

  // Reuse an equal kernel.
  llvm::hash_code hash = hashKernel(kernel);
  func::FuncOp callee;
  for (func::FuncOp existing : kernelsByHash[hash]) {
    if (existing.getFunctionType() == kernel.getFunctionType() &&
        OperationEquivalence::isRegionEquivalentTo(
            &existing.getBody(), &kernel.getBody(),
            OperationEquivalence::IgnoreLocations)) {
      callee = existing;
      break;
    }
  }
  if (callee) {
    kernel.erase();
  } else {
    // Before the caller; a `_N` suffix keeps the name unique.
    symbols.insert(kernel, caller->getIterator());
    kernelsByHash[hash].push_back(kernel);
    callee = kernel;
  }

  // Replace the group with the call.
  OpBuilder builder(tail);
  SmallVector<Value> operands(arguments.begin(), arguments.end());
  // A fresh tensor.empty per destination: one shared by two calls would
  // make bufferization copy.
  for (tensor::EmptyOp empty : destinationEmpties)
    operands.push_back(builder.clone(*empty)->getResult(0));
  auto call = func::CallOp::create(builder, tail->getLoc(), callee, operands);
  for (auto [old, fresh] : llvm::zip(results, call.getResults()))
    old.replaceAllUsesWith(fresh);
  for (Operation *op : llvm::reverse(group.ops))
    op->erase();
  // Producers that were cloned and are no longer used.
  for (Operation *op : llvm::reverse(order))
    if (clones.contains(op) && op->use_empty() && isMemoryEffectFree(op))
      op->erase();
  // (One that was also cloned has been handled above.)
  for (Operation *empty :
       llvm::SmallPtrSet<Operation *, 4>(llvm::from_range, destinationEmpties))
    if (!clones.contains(empty) && empty->use_empty())
      empty->erase();
  return success();
}

void TransformerOutlineKernelsPass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  kernelsByHash.clear();
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kKernelAttr))
      kernelsByHash[hashKernel(func)].push_back(func);

  // Decide the groups first, then rewrite.
  SmallVector<Group> groups;
  llvm::SmallPtrSet<Operation *, 32> grouped;
  for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
    if (func.isExternal() || func->hasAttr(kKernelAttr))
      continue;
    // Ops marked as kernel roots, with all they hold, are kernels of their
    // own.
    SmallVector<Operation *> roots;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!op->hasAttr(transformer::kKernelRootAttrName))
        return WalkResult::advance();
      roots.push_back(op);
      Group group;
      group.ops.push_back(op);
      grouped.insert(op);
      groups.push_back(std::move(group));
      return WalkResult::skip();
    });
    // A transpose that only feeds a contraction (the transposed weight of a
    // linear), or an op marked to go with its user, goes into the
    // contraction's kernel, where the CPU pipeline can fuse it into the cache
    // tiles.
    llvm::SmallPtrSet<Operation *, 8> fedOperands;
    func.walk([&](linalg::LinalgOp op) {
      Value result = op->getNumResults() == 1 ? op->getResult(0) : Value();
      if ((isa<linalg::TransposeOp>(op) ||
           op->hasAttr(transformer::kOutlineWithUserAttrName)) &&
          result && op.hasPureTensorSemantics() && result.hasOneUse() &&
          !grouped.contains(op)) {
        Operation *user = *result.getUsers().begin();
        if (user->getBlock() == op->getBlock() && isa<linalg::LinalgOp>(user) &&
            isContractionLike(cast<linalg::LinalgOp>(user)))
          fedOperands.insert(op);
      }
    });
    func.walk([&](linalg::LinalgOp op) {
      if (fedOperands.contains(op))
        return;
      if (grouped.contains(op) || !op.hasPureTensorSemantics() ||
          op->getNumResults() == 0 || llvm::any_of(roots, [&](Operation *root) {
            return root->isProperAncestor(op);
          }))
        return;
      // Fills and broadcasts that only initialise results go into the
      // kernels of the ops they initialise.
      if (isInitProducer(op) && onlyInitializes(op))
        return;
      Group group;
      group.ops.push_back(op);
      // A contraction takes the element-wise ops that only it feeds (bias,
      // activation, residual), so that tile-and-fuse can fuse them.
      if (isContractionLike(op)) {
        for (Value input : op.getDpsInputs())
          if (Operation *def = input.getDefiningOp();
              def && fedOperands.contains(def))
            group.ops.insert(group.ops.begin(), def);
        Operation *last = op;
        while (last->getNumResults() == 1 && last->getResult(0).hasOneUse()) {
          Operation *user = *last->getResult(0).getUsers().begin();
          if (user->getBlock() != op->getBlock() || grouped.contains(user) ||
              !isElementwiseConsumer(user, last->getResult(0)))
            break;
          if (Operation *sibling = getSiblingContraction(
                  cast<linalg::LinalgOp>(op), user, grouped)) {
            for (Value input : cast<linalg::LinalgOp>(sibling).getDpsInputs())
              if (Operation *def = input.getDefiningOp();
                  def && fedOperands.contains(def))
                group.ops.push_back(def);
            group.ops.push_back(sibling);
          }
          group.ops.push_back(user);
          last = user;
        }
      }
      grouped.insert(group.ops.begin(), group.ops.end());
      groups.push_back(std::move(group));
    });
  }

  for (Group &group : groups)
    if (failed(outline(group, symbols)))
      return signalPassFailure();
}

} // namespace
