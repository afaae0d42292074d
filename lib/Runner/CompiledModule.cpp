//===- CompiledModule.cpp - A module JIT-compiled for the host ------------===//
//
// Calls go through the packed wrapper `_mlir_<name>(void **)` that the
// ExecutionEngine generates: one pointer per LLVM-level argument (a memref
// argument expands to allocated ptr, aligned ptr, offset, sizes, strides),
// then a pointer to storage for the return value (one memref descriptor, or a
// struct of them for several results).
//
//===----------------------------------------------------------------------===//

#include "Transformer/Runner/CompiledModule.h"

#include "ConcurrentJit.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"

#include "Transformer/Runtime/Runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::runner;

//===----------------------------------------------------------------------===//
// CompiledModule
//===----------------------------------------------------------------------===//

struct CompiledModule::Impl {
  /// One of the two: the parts compiled on several threads (compileThreads
  /// > 1), or MLIR's ExecutionEngine.
  std::unique_ptr<ConcurrentJit> concurrent;
  std::unique_ptr<ExecutionEngine> engine;
  /// The packed wrappers `_mlir_<name>` looked up so far.
  llvm::StringMap<void (*)(void **)> functions;
};

CompiledModule::CompiledModule(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
CompiledModule::~CompiledModule() = default;

llvm::Error runner::checkSharedLibraries(llvm::ArrayRef<std::string> libs) {
  for (const std::string &lib : libs) {
    if (!llvm::sys::fs::exists(lib))
      return llvm::createStringError("--shared-libs: no such file '%s'",
                                     lib.c_str());
    std::string why;
    if (!llvm::sys::DynamicLibrary::getPermanentLibrary(lib.c_str(), &why)
             .isValid())
      return llvm::createStringError("--shared-libs: cannot load '%s': %s",
                                     lib.c_str(), why.c_str());
  }
  return llvm::Error::success();
}

llvm::Error runner::checkHostSupportsJit() {
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  return llvm::Error::success();
}

/// ORC reports a missing symbol only when the function is first looked up,
/// over several lines; every external function is checked here instead, by
/// name, against the process (which holds libc, libm and the runtime
/// library) and the libraries loaded so far.
static llvm::Error checkExternalSymbols(ModuleOp llvmModule) {
  // Make the process's own symbols searchable (once; cheap after that).
  llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr);
  std::vector<std::string> missing;
  llvmModule.walk([&](LLVM::LLVMFuncOp func) {
    llvm::StringRef name = func.getSymName();
    if (!func.isExternal() || name.starts_with("llvm."))
      return;
    if (!llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name.str()))
      missing.push_back(name.str());
  });
  if (missing.empty())
    return llvm::Error::success();
  return llvm::createStringError(
      "the program calls %s, which neither the program nor a --shared-libs "
      "library defines",
      ("'" + llvm::join(missing, "', '") + "'").c_str());
}

llvm::Expected<std::unique_ptr<CompiledModule>>
CompiledModule::create(ModuleOp llvmModule, unsigned optLevel,
                       llvm::ArrayRef<std::string> sharedLibs,
                       unsigned compileThreads, const CPUTarget *target) {
  if (llvm::Error err = checkSharedLibraries(sharedLibs))
    return std::move(err);
  if (llvm::Error err = checkExternalSymbols(llvmModule))
    return std::move(err);
  // The module's parts compiled on several threads (transformer-run's
  // default: the machine's cores), or the whole module on one thread by
  // MLIR's ExecutionEngine.
  if (compileThreads > 1) {
    auto context = std::make_unique<llvm::LLVMContext>();
    std::unique_ptr<llvm::Module> module =
        translateModuleToLLVMIR(llvmModule, *context);
    if (!module)
      return llvm::createStringError("could not translate the module to "
                                     "LLVM IR");
    llvm::Expected<std::unique_ptr<ConcurrentJit>> jit =
        ConcurrentJit::create(std::move(module), std::move(context), optLevel,
                              compileThreads, target);
    if (!jit)
      return jit.takeError();
    auto impl = std::make_unique<Impl>();
    impl->concurrent = std::move(*jit);
    return std::unique_ptr<CompiledModule>(new CompiledModule(std::move(impl)));
  }
  // The host CPU with all its features (AVX-512 where present), or the
  // target's.
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> builder =
      getTargetMachineBuilder(target);
  if (!builder)
    return builder.takeError();
  llvm::CodeGenOptLevel codegenLevel = getCodeGenOptLevel(optLevel);
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
  (*engine)->initialize();
  auto impl = std::make_unique<Impl>();
  impl->engine = std::move(*engine);
  return std::unique_ptr<CompiledModule>(new CompiledModule(std::move(impl)));
}

llvm::Error CompiledModule::compile(llvm::StringRef entry) {
  if (impl->functions.count(entry))
    return llvm::Error::success();
  llvm::Expected<void (*)(void **)> function =
      impl->concurrent ? impl->concurrent->lookupPacked(entry)
                       : impl->engine->lookupPacked(entry);
  if (!function)
    return function.takeError();
  impl->functions[entry] = *function;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Calls that a failed run-time check unwinds
//===----------------------------------------------------------------------===//

namespace {
/// Where transformerRuntimeError jumps back to, and what it reported.
struct CheckFailure {
  std::jmp_buf env;
  char message[1024];
};

[[noreturn]] void onRuntimeError(const char *message, void *data) {
  auto *failure = static_cast<CheckFailure *>(data);
  std::snprintf(failure->message, sizeof(failure->message), "%s", message);
  std::longjmp(failure->env, 1);
}

/// Calls `function(args)`. Between setjmp and the call there is no C++
/// object to destroy, and the compiled code has none either, so the
/// longjmp of a failed check skips no destructor.
///
/// Not checked by UBSan's -fsanitize=function (the sanitizer build): its
/// check reads 8 bytes before the callee for a type signature, which
/// JIT-compiled code does not have. ORC's JITLink (--compile-threads)
/// places a function at the start of a freshly mapped page, where that read
/// faults.
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
bool callGuarded(void (*function)(void **), void **args,
                 CheckFailure &failure) {
  transformerRuntimeSetErrorHandler(onRuntimeError, &failure);
  if (setjmp(failure.env)) {
    transformerRuntimeSetErrorHandler(nullptr, nullptr);
    std::fflush(stdout);
    return false;
  }
  function(args);
  transformerRuntimeSetErrorHandler(nullptr, nullptr);
  // What the program printed through C stdio (vector.print) comes first.
  std::fflush(stdout);
  return true;
}
} // namespace

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

/// Copies a strided memref into a dense row-major tensor; rows whose last
/// dimension is contiguous are copied with one memcpy each.
void copyStrided(const char *base, llvm::ArrayRef<int64_t> sizes,
                 llvm::ArrayRef<int64_t> strides, size_t elemSize, char *&out) {
  if (sizes.size() == 1 && strides[0] == 1) {
    std::memcpy(out, base, sizes[0] * elemSize);
    out += sizes[0] * elemSize;
    return;
  }
  if (sizes.empty()) {
    std::memcpy(out, base, elemSize);
    out += elemSize;
    return;
  }
  for (int64_t i = 0; i < sizes[0]; ++i)
    copyStrided(base + i * strides[0] * elemSize, sizes.drop_front(),
                strides.drop_front(), elemSize, out);
}

/// Whether a memref with these sizes and strides is dense row-major (strides
/// of unit dimensions do not matter).
bool isRowMajor(llvm::ArrayRef<int64_t> sizes,
                llvm::ArrayRef<int64_t> strides) {
  int64_t expected = 1;
  for (int64_t i = sizes.size() - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != expected)
      return false;
    expected *= sizes[i];
  }
  return true;
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
  // The tensor passed for each buffer argument, by its data pointer.
  std::map<const void *, const HostTensor *> inputTensors;

  for (auto [sig, input] : llvm::zip(signature.arguments, inputs)) {
    if (sig.isScalar) {
      int64_t *s = slot();
      std::memcpy(s, input->getData(), elementSize(sig.elementType));
      args.push_back(s);
      continue;
    }
    void *data = input->getData();
    inputBuffers.insert(data);
    inputTensors.emplace(data, input);
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

  if (llvm::Error err = compile(entry))
    return std::move(err);
  CheckFailure failure;
  if (!callGuarded(impl->functions[entry], args.data(), failure))
    return llvm::createStringError("run-time check failed: %s",
                                   failure.message);

  // Returned buffers belong to the caller now. A dense one becomes the
  // result as it is (no copy, no allocation: item 5 of the pipeline issue);
  // a strided view, a buffer already given to another result, or an input
  // buffer is copied, and a buffer no result keeps is freed.
  std::vector<HostTensor> results;
  std::set<void *> adopted, toFree;
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
    size_t elemSize = elementSize(sig.elementType);
    char *start = static_cast<char *>(aligned) + elemOffset * elemSize;
    bool isInput = inputBuffers.count(allocated);
    // An argument written in place and returned as it is (an argument marked
    // transformer.in_place): the result shares the input's storage.
    if (isInput && start == allocated && isRowMajor(sizes, strides)) {
      const HostTensor *input = inputTensors[allocated];
      if (input->getElementType() == sig.elementType &&
          llvm::equal(input->getShape(), sizes)) {
        if (std::optional<HostTensor> shared = input->shareData()) {
          results.push_back(std::move(*shared));
          continue;
        }
      }
    }
    if (!isInput && allocated && !adopted.count(allocated) &&
        isRowMajor(sizes, strides)) {
      adopted.insert(allocated);
      toFree.erase(allocated);
      results.push_back(
          HostTensor::adoptMalloced(sig.elementType, sizes, start, allocated));
      continue;
    }
    if (!isInput && !adopted.count(allocated))
      toFree.insert(allocated);
    llvm::Expected<HostTensor> tensor =
        HostTensor::allocate(sig.elementType, sizes);
    if (!tensor) {
      error = llvm::joinErrors(std::move(error), tensor.takeError());
      continue;
    }
    char *out = static_cast<char *>(tensor->getData());
    if (tensor->getNumElements() > 0)
      copyStrided(start, sizes, strides, elemSize, out);
    results.push_back(std::move(*tensor));
  }
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
