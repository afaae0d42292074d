//===- ConcurrentJit.cpp - LLVM IR compiled on several threads ------------===//
//
// A GPT-2 module is one large entry function and many small kernels; LLVM
// spends most of its time on them one after the other. Here the module is
// split into parts (llvm::SplitModule, balanced by size), each moved into a
// context of its own, and ORC optimizes and compiles the parts on a pool of
// threads, linking them in one JITDylib.
//
//===----------------------------------------------------------------------===//

#include "ConcurrentJit.h"

#include "Transformer/Codegen/CPU/Target/CPUTarget.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <set>

using namespace llvm;
using mlir::transformer::runner::ConcurrentJit;

namespace {

/// Adds `_mlir_<name>(void **args)` for `func`: args[i] points to the i-th
/// argument, args[n] to storage for the result (the calling convention of
/// MLIR's ExecutionEngine::lookupPacked, which CompiledModule uses).
void addPackedWrapper(Module &module, Function &func) {
  LLVMContext &context = module.getContext();
  IRBuilder<> builder(context);
  Type *ptr = builder.getPtrTy();
  auto *wrapper = Function::Create(
      FunctionType::get(builder.getVoidTy(), {ptr}, /*isVarArg=*/false),
      GlobalValue::ExternalLinkage, "_mlir_" + func.getName(), module);
  builder.SetInsertPoint(BasicBlock::Create(context, "entry", wrapper));
  Value *list = wrapper->getArg(0);
  auto slot = [&](unsigned index) {
    Value *address = builder.CreateGEP(ptr, list, builder.getInt64(index));
    return builder.CreateLoad(ptr, address);
  };
  SmallVector<Value *> args;
  for (Argument &arg : func.args())
    args.push_back(builder.CreateLoad(arg.getType(), slot(arg.getArgNo())));
  Value *result = builder.CreateCall(&func, args);
  if (!result->getType()->isVoidTy())
    builder.CreateStore(result, slot(func.arg_size()));
  builder.CreateRetVoid();
}

/// `part` in a context of its own: ORC's threads may not share one.
Expected<orc::ThreadSafeModule> moveToOwnContext(const Module &part) {
  SmallVector<char, 0> bitcode;
  raw_svector_ostream stream(bitcode);
  WriteBitcodeToFile(part, stream);
  auto context = std::make_unique<LLVMContext>();
  Expected<std::unique_ptr<Module>> module = parseBitcodeFile(
      MemoryBufferRef(StringRef(bitcode.data(), bitcode.size()),
                      part.getModuleIdentifier()),
      *context);
  if (!module)
    return module.takeError();
  return orc::ThreadSafeModule(std::move(*module), std::move(context));
}

} // namespace

CodeGenOptLevel
mlir::transformer::runner::getCodeGenOptLevel(unsigned optLevel) {
  return optLevel == 0   ? CodeGenOptLevel::None
         : optLevel == 1 ? CodeGenOptLevel::Less
         : optLevel == 2 ? CodeGenOptLevel::Default
                         : CodeGenOptLevel::Aggressive;
}

Expected<orc::JITTargetMachineBuilder>
mlir::transformer::runner::getTargetMachineBuilder(const CPUTarget *target) {
  // Every JIT of the runner comes here first. The asm parser is for inline
  // assembly in the generated code (the AVX2 8 x 8 transposes of
  // vector.transpose's lowering); the calls are idempotent.
  static const bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    return true;
  }();
  (void)initialized;
  Expected<orc::JITTargetMachineBuilder> machine =
      orc::JITTargetMachineBuilder::detectHost();
  if (!machine || !target || target->isHost)
    return machine;
  // Another CPU, or the host with features changed: exactly the target's
  // feature list, not the host's with changes on top.
  machine->setCPU(target->cpu);
  machine->getFeatures() = SubtargetFeatures();
  machine->addFeatures(target->llvmFeatures);
  return machine;
}

namespace {
/// Looks `names` up in `dylib` at once (materializing what defines them),
/// each with `flags`.
template <typename Names>
Error lookUpAll(orc::LLJIT &jit, orc::JITDylib &dylib, const Names &names,
                orc::SymbolLookupFlags flags) {
  orc::SymbolLookupSet symbols;
  for (const std::string &name : names)
    symbols.add(jit.mangleAndIntern(name), flags);
  Expected<orc::SymbolMap> found = jit.getExecutionSession().lookup(
      orc::makeJITDylibSearchOrder(&dylib,
                                   orc::JITDylibLookupFlags::MatchAllSymbols),
      std::move(symbols));
  return found ? Error::success() : found.takeError();
}
} // namespace

Expected<std::unique_ptr<ConcurrentJit>>
ConcurrentJit::create(std::unique_ptr<Module> module,
                      std::unique_ptr<LLVMContext> context, unsigned optLevel,
                      unsigned threads, const CPUTarget *target) {
  Expected<orc::JITTargetMachineBuilder> machine =
      getTargetMachineBuilder(target);
  if (!machine)
    return machine.takeError();
  machine->setCodeGenOptLevel(getCodeGenOptLevel(optLevel));
  Expected<DataLayout> layout = machine->getDefaultDataLayoutForTarget();
  if (!layout)
    return layout.takeError();
  module->setDataLayout(*layout);
  module->setTargetTriple(machine->getTargetTriple());

  // What the program takes from the process (malloc, libomp's entry points,
  // ...), and what the code generator may call without a declaration.
  std::set<std::string> imports = {"memset", "memcpy", "memmove", "sincosf",
                                   "sincos"};
  for (GlobalValue &value : module->global_values())
    if (value.isDeclaration() && !value.getName().starts_with("llvm."))
      imports.insert(value.getName().str());

  SmallVector<Function *> entries;
  for (Function &func : *module)
    if (!func.isDeclaration() && func.hasExternalLinkage())
      entries.push_back(&func);
  for (Function *func : entries)
    addPackedWrapper(*module, *func);

  // The parts, each with a function to look up (all at once, so that the
  // threads compile them together rather than as the linker asks for them).
  std::vector<std::unique_ptr<Module>> split;
  SplitModule(
      *module, threads,
      [&](std::unique_ptr<Module> part) { split.push_back(std::move(part)); },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);
  SmallVector<orc::ThreadSafeModule> parts;
  SmallVector<std::string> anchors;
  for (const std::unique_ptr<Module> &part : split) {
    for (Function &func : *part)
      if (!func.isDeclaration()) {
        anchors.push_back(func.getName().str());
        break;
      }
    Expected<orc::ThreadSafeModule> owned = moveToOwnContext(*part);
    if (!owned)
      return owned.takeError();
    parts.push_back(std::move(*owned));
  }
  split.clear();
  module.reset();
  context.reset();

  auto createObjectLayer = [](orc::ExecutionSession &session)
      -> Expected<std::unique_ptr<orc::ObjectLayer>> {
    auto layer = std::make_unique<orc::RTDyldObjectLinkingLayer>(
        session, [](const MemoryBuffer &) {
          return std::make_unique<SectionMemoryManager>();
        });
    // What MLIR's ExecutionEngine registers too: gdb sees the code, and
    // `perf` with JITDUMPDIR set (docs/performance.md, "Profiling").
    if (JITEventListener *gdb =
            JITEventListener::createGDBRegistrationListener())
      layer->registerJITEventListener(*gdb);
    if (JITEventListener *perf = JITEventListener::createPerfJITEventListener())
      layer->registerJITEventListener(*perf);
    return std::move(layer);
  };
  Expected<std::unique_ptr<orc::LLJIT>> jit =
      orc::LLJITBuilder()
          .setJITTargetMachineBuilder(*machine)
          .setDataLayout(*layout)
          .setNumCompileThreads(threads)
          .setObjectLinkingLayerCreator(createObjectLayer)
          .create();
  if (!jit)
    return jit.takeError();

  // The LLVM optimization pipeline, per part on its compile thread, with a
  // target machine of its own.
  orc::JITTargetMachineBuilder machineForParts = *machine;
  (*jit)->getIRTransformLayer().setTransform(
      [machineForParts, optLevel](orc::ThreadSafeModule part,
                                  orc::MaterializationResponsibility &)
          -> Expected<orc::ThreadSafeModule> {
        orc::JITTargetMachineBuilder builder = machineForParts;
        Expected<std::unique_ptr<TargetMachine>> target =
            builder.createTargetMachine();
        if (!target)
          return target.takeError();
        auto optimize = mlir::makeOptimizingTransformer(
            optLevel, /*sizeLevel=*/0, target->get());
        if (Error err = part.withModuleDo(
                [&](Module &partModule) { return optimize(&partModule); }))
          return std::move(err);
        return std::move(part);
      });

  // The libraries are loaded into the process, globally (CompiledModule
  // checks them first): one search of the process finds their symbols
  // after the program's own. A search of a library's handle would also see
  // its dependencies first: libomp's would bind malloc to libc's, under the
  // sanitizers' malloc that frees the results.
  orc::JITDylib &main = (*jit)->getMainJITDylib();
  char prefix = layout->getGlobalPrefix();
  auto process =
      orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return process.takeError();
  main.addGenerator(std::move(*process));
  // Resolved once, here: compile threads that each ask the generator for a
  // symbol it has not defined yet both define it, and the second fails the
  // whole program ("duplicate definition of symbol 'malloc'").
  if (Error err = lookUpAll(**jit, main, imports,
                            orc::SymbolLookupFlags::WeaklyReferencedSymbol))
    return std::move(err);

  for (orc::ThreadSafeModule &part : parts)
    if (Error err = (*jit)->addIRModule(std::move(part)))
      return std::move(err);
  if (Error err = lookUpAll(**jit, main, anchors,
                            orc::SymbolLookupFlags::RequiredSymbol))
    return std::move(err);
  if (Error err = (*jit)->initialize(main))
    return std::move(err);

  std::unique_ptr<ConcurrentJit> result(new ConcurrentJit());
  result->jit = std::move(*jit);
  return result;
}

ConcurrentJit::~ConcurrentJit() {
  // Everything the program needs was compiled in create(); what the session
  // reports while it ends (a compile thread's task on a resource already
  // released) is of no use to anyone and would garble the tool's output.
  if (jit)
    jit->getExecutionSession().setErrorReporter(
        [](Error err) { consumeError(std::move(err)); });
}

Expected<void (*)(void **)> ConcurrentJit::lookupPacked(StringRef name) const {
  Expected<orc::ExecutorAddr> address = jit->lookup(("_mlir_" + name).str());
  if (!address)
    return address.takeError();
  return address->toPtr<void (*)(void **)>();
}
