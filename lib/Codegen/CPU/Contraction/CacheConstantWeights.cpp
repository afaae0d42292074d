//===- CacheConstantWeights.cpp - Transposed weights made once ------------===//
//
// --transformer-cpu-cache-constant-weights: the transposed copy of a
// constant weight (an argument bound from a weight file, or marked
// transformer.constant) goes into a memref.global on the first call, keyed
// by the weight's data pointer, and is reused by the calls after it. The
// functions of a module share one copy per named weight, and the copies of
// one shape share one transpose function.
//
// A private function whose callers all pass it constant arguments (a model's
// layer function, called once per layer with that layer's weights) gets one
// copy per call site's weights: its globals hold a slot per distinct set of
// weights passed to it, and each call passes its slot as a new argument.
//
// Where every reader of the copy is a plain contraction (C[m, n] += A[m, k]
// * B[k, n], n a multiple of the target's register tile), the copy is made
// in panels instead: [n / r, k, r] for register tiles r columns wide, the
// order in which the register tiles read B. The contractions then index B
// as (n floordiv r, k, n mod r), and transformer-cpu-panel-contractions
// gives each cache tile a contraction over the panels, which the schedule
// reads in place: no copy of B on each call (see that pass).
//
//===----------------------------------------------------------------------===//

#include "Panels.h"
#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"
#include "Transformer/Codegen/Common/NoInline.h"
#include "Transformer/IR/TransformerDialect.h"
#include "WeightCache.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUCACHECONSTANTWEIGHTSPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

bool transformer::isConstantArgument(Value value) {
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

namespace {

/// What identifies the constant argument `value` across functions: its
/// weight name, or for an unnamed constant argument its function and
/// position.
Attribute getConstantKey(Value value) {
  auto arg = cast<BlockArgument>(value);
  auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                    kParameterAttrName))
    return name;
  return StringAttr::get(func.getContext(), "@" + func.getSymName() + "#" +
                                                Twine(arg.getArgNumber()));
}

/// The entry-block argument of a private function that `value` is, when
/// every use of the function is a call that passes a constant argument of
/// its caller there.
BlockArgument getArgumentOfConstantCalls(Value value, ModuleOp module) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return {};
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func || !func.isPrivate() || arg.getOwner() != &func.getBody().front())
    return {};
  std::optional<SymbolTable::UseRange> uses = func.getSymbolUses(module);
  if (!uses || uses->empty())
    return {};
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call || call.getCallee() != func.getSymName() ||
        !isConstantArgument(call.getOperand(arg.getArgNumber())))
      return {};
  }
  return arg;
}

/// Whether `op` is a contraction tagged "mnk" that computes C[m, n] +=
/// A[m, k] * B[k, n] with `b` as its B and not as another operand.
bool isPlainContractionOf(Operation *op, Value b) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  auto tag = op->getAttrOfType<StringAttr>(kContractionAttrName);
  if (!linalgOp || !tag || tag.getValue() != "mnk" ||
      linalgOp.getNumLoops() != 3 || linalgOp.getNumDpsInputs() != 2 ||
      linalgOp.getNumDpsInits() != 1 || linalgOp.getDpsInputs()[0] == b ||
      linalgOp.getDpsInputs()[1] != b || linalgOp.getDpsInits()[0] == b ||
      !linalgOp.hasPureTensorSemantics())
    return false;
  return linalgOp.getIndexingMapsArray() ==
         linalg::MatmulOp::getDefaultIndexingMaps(op->getContext());
}

/// The width of the panels `op`'s copy is made in (see the file comment):
/// the target's register tile when every use of the copy is a plain
/// contraction and its n is a multiple of that; 0 (a plain k x n copy)
/// otherwise.
int64_t getPanelWidth(linalg::TransposeOp op, int64_t registerN) {
  Value copy = op.getResult().front();
  auto type = cast<RankedTensorType>(copy.getType());
  if (registerN <= 0 || type.getDimSize(1) % registerN != 0 || copy.use_empty())
    return 0;
  for (Operation *user : copy.getUsers())
    if (!isPlainContractionOf(user, copy))
      return 0;
  return registerN;
}

struct CacheConstantWeightsPass
    : transformer::impl::TransformerCPUCacheConstantWeightsPassBase<
          CacheConstantWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::TransposeOp> transposes;
    // Transposes of a private function's argument that its callers bind to
    // constant arguments, by function in the order met (so that the
    // globals' names do not depend on pointer values).
    llvm::MapVector<Operation *, SmallVector<linalg::TransposeOp>>
        calleeTransposes;
    module.walk([&](linalg::TransposeOp op) {
      auto tag = op->getAttrOfType<StringAttr>(kContractionAttrName);
      auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
      if (!tag || tag.getValue() != "transpose" ||
          !op.hasPureTensorSemantics() || !type || type.getRank() != 2 ||
          !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
        return;
      if (isConstantArgument(op.getInput()))
        transposes.push_back(op);
      else if (BlockArgument arg =
                   getArgumentOfConstantCalls(op.getInput(), module);
               arg && type.getElementTypeBitWidth() % 8 == 0)
        calleeTransposes[arg.getOwner()->getParentOp()].push_back(op);
    });
    SymbolTable symbols(module);
    // The globals and functions of this module only: a pass manager may run
    // the pass on several modules.
    globalsByName.clear();
    transposeFunctions.clear();
    slotsByArgument.clear();
    for (auto &[func, ops] : calleeTransposes) {
      addSlots(cast<func::FuncOp>(func), ops);
      transposes.append(ops);
    }
    // One cache per weight, block and layout: a weight read by several
    // contractions of a block is copied once.
    int64_t registerN = CPUTarget::forOp(module).contractionRegisterTile().n;
    DenseMap<std::tuple<Value, Block *, int64_t>, Value> cached;
    IRRewriter rewriter(&getContext());
    for (linalg::TransposeOp op : transposes) {
      int64_t width = getPanelWidth(op, registerN);
      Value &result = cached[{op.getInput(), op->getBlock(), width}];
      if (!result)
        result = buildCache(op, width, symbols);
      Value copy = op.getResult().front();
      if (width) {
        for (Operation *user : llvm::to_vector(copy.getUsers()))
          if (failed(readFromPanels(rewriter, cast<linalg::LinalgOp>(user),
                                    result, width))) {
            user->emitOpError("could not read its B from panels");
            return signalPassFailure();
          }
      } else {
        copy.replaceAllUsesWith(result);
      }
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

  /// The copies a private function makes of the weights its callers pass:
  /// one slot per distinct set of them.
  struct Slots {
    /// The function's argument that holds the caller's slot.
    Value slot;
    /// For each argument of the function: what each slot binds to it
    /// (getConstantKey), or null when the argument is not copied.
    SmallVector<ArrayAttr> keys;
  };
  DenseMap<Operation *, Slots> slotsByArgument;

  /// Gives `func` the slot argument and its callers their slots, one per
  /// distinct set of constant arguments passed where `ops` read them.
  void addSlots(func::FuncOp func, ArrayRef<linalg::TransposeOp> ops) {
    ModuleOp module = getOperation();
    SmallVector<unsigned> copied;
    for (linalg::TransposeOp op : ops)
      copied.push_back(cast<BlockArgument>(op.getInput()).getArgNumber());
    llvm::sort(copied);
    copied.erase(llvm::unique(copied), copied.end());
    SmallVector<func::CallOp> calls;
    std::optional<SymbolTable::UseRange> uses = func.getSymbolUses(module);
    for (const SymbolTable::SymbolUse &use : *uses)
      calls.push_back(cast<func::CallOp>(use.getUser()));
    MLIRContext *ctx = func.getContext();
    DenseMap<ArrayAttr, unsigned> slotOf;
    SmallVector<ArrayAttr> slotKeys;
    SmallVector<unsigned> callSlots;
    for (func::CallOp call : calls) {
      SmallVector<Attribute> keys;
      for (unsigned j : copied)
        keys.push_back(getConstantKey(call.getOperand(j)));
      auto key = ArrayAttr::get(ctx, keys);
      auto [it, inserted] = slotOf.try_emplace(key, slotKeys.size());
      if (inserted)
        slotKeys.push_back(key);
      callSlots.push_back(it->second);
    }
    Type index = IndexType::get(ctx);
    unsigned slotArg = func.getNumArguments();
    (void)func.insertArgument(slotArg, index, DictionaryAttr(), func.getLoc());
    for (auto [call, slot] : llvm::zip(calls, callSlots)) {
      OpBuilder b(call);
      Value c = arith::ConstantIndexOp::create(b, call.getLoc(), slot);
      call->insertOperands(call->getNumOperands(), c);
    }
    Slots slots;
    slots.slot = func.getArgument(slotArg);
    slots.keys.resize(func.getNumArguments());
    for (auto [i, j] : llvm::enumerate(copied)) {
      SmallVector<Attribute> perSlot;
      for (ArrayAttr key : slotKeys)
        perSlot.push_back(key[i]);
      slots.keys[j] = ArrayAttr::get(ctx, perSlot);
    }
    slotsByArgument[func] = std::move(slots);
  }

  /// The globals of `weight`'s copy. A weight bound by name
  /// (`transformer.parameter`) has one copy for the whole module: every
  /// function binds the same data to the name (@prefill, @decode and
  /// @generate of a model), and the key check makes the copy again when
  /// they do not. Other constant arguments get globals of their own.
  /// A slotted weight's copies are [slots, k, n], and are shared by the
  /// functions whose slots bind the same weights.
  CacheGlobals getCacheGlobals(Value weight, MemRefType bufferType,
                               SymbolTable &symbols) {
    auto arg = cast<BlockArgument>(weight);
    auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
    Attribute name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                       kParameterAttrName);
    int64_t numSlots = 0;
    if (auto it = slotsByArgument.find(func); it != slotsByArgument.end()) {
      ArrayAttr keys = it->second.keys[arg.getArgNumber()];
      name = keys;
      numSlots = keys.size();
    }
    if (name)
      if (auto it = globalsByName.find({name, bufferType});
          it != globalsByName.end())
        return it->second;
    ModuleOp module = getOperation();
    Location loc = weight.getLoc();
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    CacheGlobals globals;
    // Slots: the bytes of numSlots copies, viewed one at a time (buildCache).
    MemRefType copyType = bufferType;
    SmallVector<int64_t> keyShape;
    if (numSlots) {
      keyShape.push_back(numSlots);
      copyType = MemRefType::get({numSlots * bufferType.getNumElements() *
                                  bufferType.getElementTypeBitWidth() / 8},
                                 b.getI8Type());
    }
    globals.copy = memref::GlobalOp::create(
        b, loc, kWeightCacheName, b.getStringAttr("private"), copyType,
        Attribute(b.getUnitAttr()), /*constant=*/false,
        b.getI64IntegerAttr(64));
    symbols.insert(globals.copy);
    Type i64 = b.getI64Type();
    globals.key = memref::GlobalOp::create(
        b, loc, kWeightCacheKeyName, b.getStringAttr("private"),
        MemRefType::get(keyShape, i64),
        DenseElementsAttr::get(RankedTensorType::get(keyShape, i64),
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
                                    MemRefType outType, int64_t panelWidth,
                                    SymbolTable &symbols) {
    func::FuncOp &func = transposeFunctions[{inType, outType}];
    if (func)
      return func;
    ModuleOp module = getOperation();
    Location loc = op.getLoc();
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    func = func::FuncOp::create(b, loc, "__transformer_weight_transpose",
                                b.getFunctionType({inType, outType}, {}));
    func.setPrivate();
    // Kept a function of its own, as the outlined kernels are.
    markNoInline(func);
    symbols.insert(func);
    Block *entry = func.addEntryBlock();
    OpBuilder body = OpBuilder::atBlockEnd(entry);
    if (panelWidth) {
      // The weight [n, k] as [n / width, width, k] (the caller's view: a
      // view here would be tiled into subviews of a view, which the
      // schedule's folding of views does not finish on), each panel
      // transposed.
      auto transpose = linalg::TransposeOp::create(
          body, loc, entry->getArgument(0), entry->getArgument(1),
          ArrayRef<int64_t>{0, 2, 1});
      transpose->setAttr(kContractionAttrName,
                         body.getStringAttr("btranspose"));
    } else {
      auto transpose = linalg::TransposeOp::create(
          body, loc, entry->getArgument(0), entry->getArgument(1),
          op.getPermutation());
      transpose->setAttr(kContractionAttrName,
                         op->getAttr(kContractionAttrName));
    }
    func::ReturnOp::create(body, loc);
    return func;
  }

  DenseMap<std::pair<Attribute, Type>, CacheGlobals> globalsByName;
  DenseMap<std::pair<Type, Type>, func::FuncOp> transposeFunctions;

  /// Where `op` was (so that a copy in a branch not taken, such as the
  /// many-rows side of a dynamic row count, is never made): the cached copy
  /// of `op`'s input, made when the cache holds another pointer's; in
  /// panels `panelWidth` wide when that is not 0 (see getPanelWidth).
  Value buildCache(linalg::TransposeOp op, int64_t panelWidth,
                   SymbolTable &symbols) {
    Location loc = op.getLoc();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    auto outType = cast<RankedTensorType>(op.getResult().front().getType());
    if (panelWidth)
      outType = RankedTensorType::get({outType.getDimSize(1) / panelWidth,
                                       outType.getDimSize(0), panelWidth},
                                      outType.getElementType());
    auto bufferType =
        MemRefType::get(outType.getShape(), outType.getElementType());
    auto inBufferType =
        MemRefType::get(inType.getShape(), inType.getElementType());
    CacheGlobals globals = getCacheGlobals(op.getInput(), bufferType, symbols);
    auto func = op->getParentOfType<func::FuncOp>();
    auto slots = slotsByArgument.find(func);
    Value slot = slots != slotsByArgument.end() ? slots->second.slot : Value();

    OpBuilder b(op);
    Value in =
        bufferization::ToBufferOp::create(b, loc, inBufferType, op.getInput(),
                                          /*read_only=*/true);
    Value transposeIn = in;
    if (panelWidth) {
      int64_t n = inType.getDimSize(0), k = inType.getDimSize(1);
      transposeIn = memref::ExpandShapeOp::create(
          b, loc,
          MemRefType::get({n / panelWidth, panelWidth, k},
                          inType.getElementType()),
          in, SmallVector<ReassociationIndices>{{0, 1}, {2}});
    }
    Value pointer = arith::IndexCastOp::create(
        b, loc, b.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, in));
    Value keyBuffer = memref::GetGlobalOp::create(b, loc, globals.key.getType(),
                                                  globals.key.getSymName());
    SmallVector<Value> at;
    if (slot)
      at.push_back(slot);
    Value last = memref::LoadOp::create(b, loc, keyBuffer, at);
    Value stale =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, last, pointer);
    Value copy = memref::GetGlobalOp::create(b, loc, globals.copy.getType(),
                                             globals.copy.getSymName());
    if (slot) {
      // This call's slot, viewed as the copy's type with an identity layout (a
      // subview would have a dynamic offset, and the kernels take identity
      // layouts): the bytes at slot * (k * n * element size).
      int64_t slotBytes =
          bufferType.getNumElements() * bufferType.getElementTypeBitWidth() / 8;
      Value shift = arith::MulIOp::create(
          b, loc, slot, arith::ConstantIndexOp::create(b, loc, slotBytes));
      copy =
          memref::ViewOp::create(b, loc, bufferType, copy, shift, ValueRange{});
    }
    func::FuncOp transposeFunction = getTransposeFunction(
        op, cast<MemRefType>(transposeIn.getType()),
        cast<MemRefType>(copy.getType()), panelWidth, symbols);
    scf::IfOp::create(b, loc, stale, [&](OpBuilder &nested, Location l) {
      func::CallOp::create(nested, l, transposeFunction,
                           ValueRange{transposeIn, copy});
      memref::StoreOp::create(nested, l, pointer, keyBuffer, at);
      scf::YieldOp::create(nested, l);
    });
    return bufferization::ToTensorOp::create(b, loc, outType, copy,
                                             /*restrict=*/true,
                                             /*writable=*/false);
  }
};

} // namespace
