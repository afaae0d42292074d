//===- Jit.cpp - Compiling and calling a function with the JIT ------------===//
//
// Calls go through the packed wrapper `_mlir_<name>(void **)` that the
// ExecutionEngine generates: one pointer per LLVM-level argument (a memref
// argument expands to allocated ptr, aligned ptr, offset, sizes, strides),
// then a pointer to storage for the return value (one memref descriptor, or a
// struct of them for several results).
//
//===----------------------------------------------------------------------===//

#include "Jit.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstring>
#include <set>
#include <unistd.h>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::runner;

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

std::string ValueSignature::str() const {
  if (isScalar)
    return elementTypeName(elementType).str();
  std::string s = "tensor<";
  for (int64_t dim : shape)
    s += (ShapedType::isDynamic(dim) ? "?" : std::to_string(dim)) + "x";
  return s + elementTypeName(elementType).str() + ">";
}

std::optional<std::string>
ValueSignature::mismatch(const HostTensor &value) const {
  auto describe = [&]() {
    return "expected " + str() + ", got " + value.getTypeString();
  };
  if (isScalar != value.isScalar() || elementType != value.getElementType())
    return describe();
  if (isScalar)
    return std::nullopt;
  if (static_cast<int64_t>(shape.size()) != value.getRank())
    return describe();
  for (auto [expected, actual] : llvm::zip(shape, value.getShape()))
    if (!ShapedType::isDynamic(expected) && expected != actual)
      return describe();
  return std::nullopt;
}

static llvm::Expected<ValueSignature> getValueSignature(Type type) {
  auto unsupported = [&]() {
    std::string str;
    llvm::raw_string_ostream(str) << type;
    return llvm::createStringError(
        "unsupported type %s at the function boundary (only ranked tensors "
        "and scalars of f32, i32, i64, index)",
        str.c_str());
  };
  ValueSignature sig;
  Type element = type;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    element = tensor.getElementType();
    sig.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  } else if (isa<ShapedType>(type)) {
    return unsupported();
  } else {
    sig.isScalar = true;
  }
  if (element.isF32())
    sig.elementType = ElementType::F32;
  else if (element.isSignlessInteger(32))
    sig.elementType = ElementType::I32;
  else if (element.isSignlessInteger(64))
    sig.elementType = ElementType::I64;
  else if (element.isIndex())
    sig.elementType = ElementType::Index;
  else
    return unsupported();
  return sig;
}

llvm::Expected<EntrySignature>
runner::getEntrySignature(ModuleOp module, llvm::StringRef entry) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func)
    return llvm::createStringError("no function @%s in the module",
                                   entry.str().c_str());
  if (func.isExternal())
    return llvm::createStringError("function @%s has no body",
                                   entry.str().c_str());
  EntrySignature sig;
  for (auto [list, types] :
       {std::pair{&sig.arguments, func.getArgumentTypes()},
        std::pair{&sig.results, func.getResultTypes()}}) {
    for (Type type : types) {
      llvm::Expected<ValueSignature> value = getValueSignature(type);
      if (!value)
        return llvm::createStringError("@" + entry + ": " +
                                       llvm::toString(value.takeError()));
      list->push_back(std::move(*value));
    }
  }
  return sig;
}

//===----------------------------------------------------------------------===//
// Run-time check failures
//===----------------------------------------------------------------------===//

/// A failed run-time check first prints the values involved with
/// vector.print (printString / printI64 calls), then cf.assert calls
/// puts(message) and abort(). These replace those functions in the
/// JIT-compiled code so that the failure is one line,
/// `Error: run-time check failed: <message> (<values>)`, and exit status 1.
static std::string &pendingCheckValues() {
  static std::string values;
  return values;
}
static void printStringForCheck(const char *text) {
  for (; *text; ++text)
    if (*text != '\n')
      pendingCheckValues() += *text;
}
static void printI64ForCheck(int64_t value) {
  pendingCheckValues() += std::to_string(value);
}
static void reportRuntimeCheck(const char *message) {
  std::fflush(stdout);
  std::fprintf(stderr, "Error: run-time check failed: %s%s\n", message,
               pendingCheckValues().c_str());
  pendingCheckValues().clear();
}
static void exitAfterRuntimeCheck() {
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(1);
}

//===----------------------------------------------------------------------===//
// CompiledModule
//===----------------------------------------------------------------------===//

struct CompiledModule::Impl {
  std::unique_ptr<ExecutionEngine> engine;
};

CompiledModule::CompiledModule(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
CompiledModule::~CompiledModule() = default;

llvm::Expected<std::unique_ptr<CompiledModule>>
CompiledModule::create(ModuleOp llvmModule, unsigned optLevel,
                       llvm::ArrayRef<std::string> sharedLibs) {
  // Target the host CPU with all its features (AVX-512 where present).
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> builder =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  llvm::CodeGenOptLevel codegenLevel =
      optLevel == 0   ? llvm::CodeGenOptLevel::None
      : optLevel == 1 ? llvm::CodeGenOptLevel::Less
      : optLevel == 2 ? llvm::CodeGenOptLevel::Default
                      : llvm::CodeGenOptLevel::Aggressive;
  builder->setCodeGenOptLevel(codegenLevel);
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm =
      builder->createTargetMachine();
  if (!tm)
    return tm.takeError();
  llvm::TargetMachine *tmPtr = tm->get();
  auto optimize = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, tmPtr);

  SmallVector<llvm::StringRef> libs(sharedLibs.begin(), sharedLibs.end());
  ExecutionEngineOptions options;
  options.transformer = optimize;
  options.jitCodeGenOptLevel = codegenLevel;
  options.sharedLibPaths = libs;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(llvmModule, options, std::move(*tm));
  if (!engine)
    return engine.takeError();
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    const std::pair<const char *, void *> overrides[] = {
        {"puts", reinterpret_cast<void *>(&reportRuntimeCheck)},
        {"abort", reinterpret_cast<void *>(&exitAfterRuntimeCheck)},
        {"printString", reinterpret_cast<void *>(&printStringForCheck)},
        {"printI64", reinterpret_cast<void *>(&printI64ForCheck)}};
    llvm::orc::SymbolMap map;
    for (auto [name, address] : overrides)
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    return map;
  });
  (*engine)->initialize();
  auto impl = std::make_unique<Impl>();
  impl->engine = std::move(*engine);
  return std::unique_ptr<CompiledModule>(new CompiledModule(std::move(impl)));
}

namespace {
/// Byte size and alignment of one result in the returned struct.
std::pair<size_t, size_t> resultLayout(const ValueSignature &sig) {
  if (!sig.isScalar)
    return {8 * (3 + 2 * sig.shape.size()), 8};
  size_t size = elementSize(sig.elementType);
  return {size, size};
}

size_t alignTo(size_t offset, size_t align) {
  return (offset + align - 1) / align * align;
}

/// Copies a strided memref into a dense row-major tensor.
void copyStrided(const char *base, llvm::ArrayRef<int64_t> sizes,
                 llvm::ArrayRef<int64_t> strides, size_t elemSize, char *out,
                 int64_t &written) {
  if (sizes.empty()) {
    std::memcpy(out + written * elemSize, base, elemSize);
    ++written;
    return;
  }
  for (int64_t i = 0; i < sizes[0]; ++i)
    copyStrided(base + i * strides[0] * elemSize, sizes.drop_front(),
                strides.drop_front(), elemSize, out, written);
}
} // namespace

llvm::Expected<std::vector<HostTensor>>
CompiledModule::invoke(llvm::StringRef entry, const EntrySignature &signature,
                       llvm::ArrayRef<HostTensor *> inputs) {
  // Stable storage for every LLVM-level argument.
  size_t slots = 0;
  for (const ValueSignature &arg : signature.arguments)
    slots += arg.isScalar ? 1 : 3 + 2 * arg.shape.size();
  std::vector<int64_t> storage(slots);
  std::vector<void *> args;
  args.reserve(slots + 1);
  size_t next = 0;
  auto slot = [&]() { return &storage[next++]; };
  std::set<const void *> inputBuffers;

  for (auto [sig, input] : llvm::zip(signature.arguments, inputs)) {
    if (sig.isScalar) {
      int64_t *s = slot();
      std::memcpy(s, input->getData(), elementSize(sig.elementType));
      args.push_back(s);
      continue;
    }
    void *data = input->getData();
    inputBuffers.insert(data);
    for (int i = 0; i < 2; ++i) {
      int64_t *s = slot();
      std::memcpy(s, &data, sizeof(void *));
      args.push_back(s);
    }
    int64_t *offset = slot();
    *offset = 0;
    args.push_back(offset);
    llvm::ArrayRef<int64_t> shape = input->getShape();
    for (int64_t dim : shape) {
      int64_t *s = slot();
      *s = dim;
      args.push_back(s);
    }
    int64_t stride = 1;
    llvm::SmallVector<int64_t *> strideSlots;
    for (size_t i = 0; i < shape.size(); ++i)
      strideSlots.push_back(slot());
    for (int64_t i = shape.size() - 1; i >= 0; --i) {
      *strideSlots[i] = stride;
      stride *= shape[i];
    }
    for (int64_t *s : strideSlots)
      args.push_back(s);
  }

  // Storage for the return value.
  std::vector<size_t> offsets;
  size_t total = 0;
  for (const ValueSignature &sig : signature.results) {
    auto [size, align] = resultLayout(sig);
    total = alignTo(total, align);
    offsets.push_back(total);
    total += size;
  }
  std::vector<int64_t> returned((total + 7) / 8 + 1);
  char *base = reinterpret_cast<char *>(returned.data());
  if (!signature.results.empty())
    args.push_back(base);

  if (llvm::Error err = impl->engine->invokePacked(entry, args))
    return std::move(err);

  std::vector<HostTensor> results;
  std::set<void *> toFree;
  llvm::Error error = llvm::Error::success();
  for (auto [sig, offset] : llvm::zip(signature.results, offsets)) {
    const char *field = base + offset;
    if (sig.isScalar) {
      llvm::Expected<HostTensor> scalar =
          HostTensor::allocate(sig.elementType, {}, /*isScalar=*/true);
      if (!scalar)
        return scalar.takeError();
      std::memcpy(scalar->getData(), field, elementSize(sig.elementType));
      results.push_back(std::move(*scalar));
      continue;
    }
    void *allocated, *aligned;
    int64_t elemOffset;
    std::memcpy(&allocated, field, 8);
    std::memcpy(&aligned, field + 8, 8);
    std::memcpy(&elemOffset, field + 16, 8);
    size_t rank = sig.shape.size();
    llvm::SmallVector<int64_t> sizes(rank), strides(rank);
    std::memcpy(sizes.data(), field + 24, 8 * rank);
    std::memcpy(strides.data(), field + 24 + 8 * rank, 8 * rank);
    // A result that aliases an input must not be freed here.
    if (!inputBuffers.count(allocated))
      toFree.insert(allocated);
    llvm::Expected<HostTensor> tensor =
        HostTensor::allocate(sig.elementType, sizes);
    if (!tensor) {
      error = llvm::joinErrors(std::move(error), tensor.takeError());
      continue;
    }
    size_t elemSize = elementSize(sig.elementType);
    int64_t written = 0;
    if (tensor->getNumElements() > 0)
      copyStrided(static_cast<const char *>(aligned) + elemOffset * elemSize,
                  sizes, strides, elemSize,
                  static_cast<char *>(tensor->getData()), written);
    results.push_back(std::move(*tensor));
  }
  // The compiled code transfers ownership of returned buffers to the caller.
  for (void *ptr : toFree)
    std::free(ptr);
  if (error)
    return std::move(error);
  return results;
}

llvm::Expected<std::string> runner::translateToLLVMIR(ModuleOp llvmModule) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(llvmModule, context);
  if (!module)
    return llvm::createStringError("translation to LLVM IR failed");
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, nullptr);
  return text;
}
