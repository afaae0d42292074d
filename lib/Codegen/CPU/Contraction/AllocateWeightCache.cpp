//===- AllocateWeightCache.cpp - The weight cache, allocated when used ----===//
//
// --transformer-cpu-allocate-weight-cache: the uninitialized globals that
// hold the transposed copies of constant weights become pointers, set on
// first use to an anonymous mapping of the copy's size (docs in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"
#include "WeightCache.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERCPUALLOCATEWEIGHTCACHEPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

constexpr llvm::StringLiteral kBufferFunction =
    "__transformer_weight_cache_buffer";
constexpr llvm::StringLiteral kRuntimeError = "transformerRuntimeError";

/// Linux's values (asm-generic/mman-common.h, the same on x86-64).
constexpr int32_t kProtReadWrite = 0x1 | 0x2;
constexpr int32_t kMapPrivateAnonymous = 0x02 | 0x20;
constexpr int32_t kMadviseHugePage = 14;

/// Whether `global` is a copy of the weight cache: an uninitialized global
/// named as the cache pass names them (the keys are initialized to 0).
bool isCacheCopy(LLVM::GlobalOp global) {
  StringRef name = global.getSymName();
  if (!name.starts_with(kWeightCacheName) ||
      name.starts_with(kWeightCacheKeyName) ||
      !isa<LLVM::LLVMArrayType>(global.getGlobalType()) ||
      global.getValueOrNull())
    return false;
  Block *init = global.getInitializerBlock();
  if (!init)
    return false;
  // The initializer of `uninitialized` is `llvm.mlir.undef`.
  auto ret = dyn_cast<LLVM::ReturnOp>(init->getTerminator());
  return ret && ret.getNumOperands() == 1 &&
         ret.getOperand(0).getDefiningOp<LLVM::UndefOp>();
}

struct AllocateWeightCachePass
    : transformer::impl::TransformerCPUAllocateWeightCachePassBase<
          AllocateWeightCachePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DenseMap<StringAttr, uint64_t> sizes;
    DataLayout layout(module);
    for (auto global : module.getOps<LLVM::GlobalOp>())
      if (isCacheCopy(global))
        sizes[global.getSymNameAttr()] =
            layout.getTypeSize(global.getGlobalType()).getFixedValue();
    if (sizes.empty())
      return;
    FailureOr<LLVM::LLVMFuncOp> buffer = getBufferFunction();
    if (failed(buffer))
      return signalPassFailure();

    // The globals become null pointers.
    SmallVector<LLVM::GlobalOp> copies;
    for (auto global : module.getOps<LLVM::GlobalOp>())
      if (sizes.contains(global.getSymNameAttr()))
        copies.push_back(global);
    auto ptr = LLVM::LLVMPointerType::get(module.getContext());
    for (LLVM::GlobalOp global : copies) {
      OpBuilder b(global);
      auto slot = LLVM::GlobalOp::create(
          b, global.getLoc(), ptr, /*isConstant=*/false, LLVM::Linkage::Private,
          global.getSymName(), Attribute(),
          /*alignment=*/8);
      Block *init = b.createBlock(&slot.getInitializerRegion());
      b.setInsertionPointToStart(init);
      LLVM::ReturnOp::create(b, global.getLoc(),
                             LLVM::ZeroOp::create(b, global.getLoc(), ptr));
      global.erase();
    }

    // Their addresses become the buffers.
    module.walk([&](LLVM::AddressOfOp address) {
      auto it = sizes.find(address.getGlobalNameAttr().getAttr());
      if (it == sizes.end())
        return;
      OpBuilder b(address->getContext());
      b.setInsertionPointAfter(address);
      Location loc = address.getLoc();
      Value size = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                            b.getI64IntegerAttr(it->second));
      auto call = LLVM::CallOp::create(b, loc, *buffer,
                                       ValueRange{address.getResult(), size});
      address.getResult().replaceAllUsesExcept(call.getResult(), call);
    });
  }

private:
  /// A declaration of the C function `name`, made unless the module has it.
  FailureOr<LLVM::LLVMFuncOp> declare(StringRef name, Type result,
                                      ArrayRef<Type> params,
                                      bool isVarArg = false) {
    ModuleOp module = getOperation();
    Operation *existing = module.lookupSymbol(name);
    if (auto func = dyn_cast_or_null<LLVM::LLVMFuncOp>(existing))
      return func;
    if (existing) {
      existing->emitError() << "@" << name
                            << " is not the C function the weight cache "
                               "calls";
      return failure();
    }
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    return LLVM::LLVMFuncOp::create(
        b, module.getLoc(), name,
        LLVM::LLVMFunctionType::get(result, params, isVarArg));
  }

  /// `@__transformer_weight_cache_buffer(%slot, %size) -> !llvm.ptr`: the
  /// buffer that `%slot` points to, mapped and stored there first if it is
  /// null.
  FailureOr<LLVM::LLVMFuncOp> getBufferFunction() {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(kBufferFunction))
      return existing;
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
    FailureOr<LLVM::LLVMFuncOp> mmap =
        declare("mmap", ptr, {ptr, i64, i32, i32, i32, i64});
    FailureOr<LLVM::LLVMFuncOp> madvise =
        declare("madvise", i32, {ptr, i64, i32});
    FailureOr<LLVM::LLVMFuncOp> munmap = declare("munmap", i32, {ptr, i64});
    FailureOr<LLVM::LLVMFuncOp> error = declare(
        kRuntimeError, LLVM::LLVMVoidType::get(ctx), {ptr}, /*isVarArg=*/true);
    if (failed(mmap) || failed(madvise) || failed(munmap) || failed(error))
      return failure();

    Location loc = module.getLoc();
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    auto func = LLVM::LLVMFuncOp::create(
        b, loc, kBufferFunction, LLVM::LLVMFunctionType::get(ptr, {ptr, i64}),
        LLVM::Linkage::Private);
    Block *entry = func.addEntryBlock(b);
    Block *map = func.addBlock(), *fail = func.addBlock(),
          *advise = func.addBlock(), *lost = func.addBlock(),
          *done = func.addBlock();
    done->addArgument(ptr, loc);
    Value slot = entry->getArgument(0), size = entry->getArgument(1);
    auto constant = [&](Type type, int64_t value) -> Value {
      return LLVM::ConstantOp::create(b, loc, type,
                                      b.getIntegerAttr(type, value));
    };

    b.setInsertionPointToStart(entry);
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    Value current = LLVM::LoadOp::create(
        b, loc, ptr, slot, /*alignment=*/8, /*isVolatile=*/false,
        /*isNonTemporal=*/false, /*isInvariant=*/false,
        /*isInvariantGroup=*/false, LLVM::AtomicOrdering::acquire);
    Value isNull =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, current, null);
    LLVM::CondBrOp::create(b, loc, isNull, map, ValueRange{}, done,
                           ValueRange{current});

    b.setInsertionPointToStart(map);
    Value mapped = LLVM::CallOp::create(
                       b, loc, *mmap,
                       ValueRange{null, size, constant(i32, kProtReadWrite),
                                  constant(i32, kMapPrivateAnonymous),
                                  constant(i32, -1), constant(i64, 0)})
                       .getResult();
    Value failed = LLVM::ICmpOp::create(
        b, loc, LLVM::ICmpPredicate::eq,
        LLVM::PtrToIntOp::create(b, loc, i64, mapped), constant(i64, -1));
    LLVM::CondBrOp::create(b, loc, failed, fail, advise);

    b.setInsertionPointToStart(fail);
    std::string text =
        "cannot allocate %lld bytes for the transposed copy of a weight";
    text.push_back('\0');
    Value message =
        LLVM::createGlobalString(loc, b, "__transformer_weight_cache_message",
                                 text, LLVM::Linkage::Private);
    LLVM::CallOp::create(b, loc, *error, ValueRange{message, size});
    LLVM::UnreachableOp::create(b, loc);

    b.setInsertionPointToStart(advise);
    // Huge pages are advice: an error (no THP in the kernel) changes nothing.
    LLVM::CallOp::create(
        b, loc, *madvise,
        ValueRange{mapped, size, constant(i32, kMadviseHugePage)});
    auto exchange = LLVM::AtomicCmpXchgOp::create(
        b, loc, slot, null, mapped, LLVM::AtomicOrdering::acq_rel,
        LLVM::AtomicOrdering::acquire);
    Value stored = LLVM::ExtractValueOp::create(b, loc, exchange, 1);
    LLVM::CondBrOp::create(b, loc, stored, done, ValueRange{mapped}, lost,
                           ValueRange{});

    // Another thread stored its buffer first: use that one.
    b.setInsertionPointToStart(lost);
    LLVM::CallOp::create(b, loc, *munmap, ValueRange{mapped, size});
    Value winner = LLVM::ExtractValueOp::create(b, loc, exchange, 0);
    LLVM::BrOp::create(b, loc, ValueRange{winner}, done);

    b.setInsertionPointToStart(done);
    LLVM::ReturnOp::create(b, loc, done->getArgument(0));
    return func;
  }
};

} // namespace
