//===- transformer-run.cpp - JIT runner for transformer programs ----------===//
//
// Compiles a .mlir file with the same pipeline as `--transformer-to-llvm`,
// JIT-compiles it for the host and calls one function with inputs from the
// command line or numpy files, printing or saving the results. The work is
// done by the runner library (lib/Runner); this file is flags and calls.
//
// Every user error is one `Error: ...` line on stderr and exit status 1, and
// nothing is run unless every input has been checked against the signature.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Codegen/CPU/Target/CPUTarget.h"
#include "Transformer/Pipelines/Pipelines.h"
#include "Transformer/Runner/CompiledModule.h"
#include "Transformer/Runner/Compiler.h"
#include "Transformer/Runner/HostMemory.h"
#include "Transformer/Runner/Npy.h"
#include "Transformer/Runner/Parameters.h"
#include "Transformer/Runner/ThreadPolicy.h"
#include "Transformer/Runner/Values.h"
#include "Transformer/Support/InputLimits.h"
#include "Transformer/Support/ToolInfo.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <thread>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::runner;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("transformer-run options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir file>"),
                               cl::init("-"), cl::cat(category));
cl::opt<std::string> entryName("e", cl::desc("Function to call"),
                               cl::value_desc("name"), cl::init("main"),
                               cl::cat(category));
cl::alias entryAlias("function", cl::desc("Alias of -e"),
                     cl::aliasopt(entryName));

/// mlir-runner's `--entry-point-result`: the function's result type, printed
/// as mlir-runner prints it (nothing for void, no `EXEC` header).
enum class EntryPointResult { Unset, Void, I32, I64, F32 };
cl::opt<EntryPointResult> entryPointResult(
    "entry-point-result",
    cl::desc("The entry function's result, as mlir-runner takes it: the "
             "result is printed as mlir-runner prints it"),
    cl::init(EntryPointResult::Unset),
    cl::values(clEnumValN(EntryPointResult::Void, "void", "no result"),
               clEnumValN(EntryPointResult::I32, "i32", "one i32"),
               clEnumValN(EntryPointResult::I64, "i64", "one i64"),
               clEnumValN(EntryPointResult::F32, "f32", "one f32")),
    cl::cat(category));
cl::list<std::string>
    inputs("input",
           cl::desc("One argument, in order: @x.npy, 2x3xf32=1 2 3 4 5 6, "
                    "2x2xf32=[[1 2][3 4]], 4xf32=0.5, 8x8xf32=random, "
                    "2x3xf32=@x.npy, f32=1.5, index=3"),
           cl::value_desc("spec"), cl::cat(category));
cl::opt<std::string> parametersFile(
    "parameters",
    cl::desc("Bind the arguments that name a weight (transformer.parameter) "
             "to the tensors of this .safetensors or GGUF file"),
    cl::value_desc("file.safetensors|file.gguf"), cl::init(""),
    cl::cat(category));
cl::list<std::string> outputs(
    "output",
    cl::desc("Where to put the next result: - (print), @out.npy, +out.npy "
             "(append), @out.bin (raw), +out.bin, or nothing (skip)"),
    cl::value_desc("spec"), cl::cat(category));
cl::list<std::string> expectedOutputs(
    "expected-output",
    cl::desc("Expected value of the next result (same forms as --input), "
             "or (ignored)"),
    cl::value_desc("spec"), cl::cat(category));
cl::opt<double> expectedThreshold(
    "expected-f32-threshold",
    cl::desc("Largest |result - expected| accepted for f32 elements"),
    cl::init(1e-4), cl::cat(category));
cl::opt<int64_t> outputMaxElements(
    "output-max-element-count",
    cl::desc("Elide the middle of printed tensors with more elements"),
    cl::init(1024), cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::desc("Seed for `random` inputs"),
                       cl::init(0), cl::cat(category));

enum class Emit { Linalg, LLVMDialect, LLVMIR, Run };
cl::opt<Emit>
    emit("emit", cl::desc("What to produce"), cl::init(Emit::Run),
         cl::values(clEnumValN(Emit::Linalg, "linalg",
                               "the program as linalg on tensors"),
                    clEnumValN(Emit::LLVMDialect, "llvm-dialect",
                               "the program in the LLVM dialect"),
                    clEnumValN(Emit::LLVMIR, "llvm-ir", "LLVM IR"),
                    clEnumValN(Emit::Run, "run", "compile and run (default)")),
         cl::cat(category));

cl::opt<bool> optO0("O0", cl::desc("Optimisation level 0"), cl::cat(category));
cl::opt<bool> optO1("O1", cl::desc("Optimisation level 1"), cl::cat(category));
cl::opt<bool> optO2("O2", cl::desc("Optimisation level 2 (default)"),
                    cl::cat(category));
cl::opt<bool> optO3("O3", cl::desc("Optimisation level 3"), cl::cat(category));
cl::opt<bool> noFuseAttention(
    "no-fuse-attention",
    cl::desc("Do not fuse matmul/softmax/matmul chains into attention"),
    cl::cat(category));
cl::opt<bool> runtimeVerification(
    "runtime-verification",
    cl::desc("Check the operands of upstream ops at run time (sizes that "
             "must agree, indices and slices in bounds) at -O1..-O3 too "
             "(always on at -O0)"),
    cl::cat(category));
cl::list<std::string> sharedLibs("shared-libs",
                                 cl::desc("Libraries to load, comma-separated"),
                                 cl::CommaSeparated, cl::cat(category));
cl::opt<unsigned> repetitions(
    "benchmark-repetitions",
    cl::desc("Time N calls of the function (not parsing, compiling or I/O)"),
    cl::init(0), cl::cat(category));
cl::opt<unsigned> warmup("warmup",
                         cl::desc("Untimed calls before the timed ones"),
                         cl::init(0), cl::cat(category));
cl::opt<unsigned> compileThreads(
    "compile-threads",
    cl::desc("Threads LLVM compiles the program on, the module split into "
             "as many parts (default 0: the machine's cores; 1: MLIR's "
             "ExecutionEngine, the whole module on one thread)"),
    cl::init(0), cl::cat(category));
cl::opt<bool> printCompileTime(
    "print-compile-time",
    cl::desc("Print the time from the linalg stage to machine code"),
    cl::cat(category));
cl::opt<bool> hostSupportsJit(
    "host-supports-jit",
    cl::desc("Create a JIT for the host and print true or false"),
    cl::cat(category));
// CPU code generation at -O2/-O3 (lib/Codegen/CPU).
/// `--threads`: created in main(), because libLLVM registers a hidden option
/// of that name, which is renamed first (registerThreadsOption).
cl::opt<unsigned> *threads = nullptr;
void registerThreadsOption() {
  auto &options = cl::getRegisteredOptions();
  if (auto it = options.find("threads"); it != options.end())
    it->second->setArgStr("llvm-threads");
  static cl::opt<unsigned> option(
      "threads",
      cl::desc("Threads for contractions at -O2/-O3 (default: the machine's "
               "cores; 1: no OpenMP)"),
      cl::init(0), cl::cat(category));
  threads = &option;
}
cl::opt<std::string>
    targetCpu("target-cpu",
              cl::desc("Build for this CPU, as llc's -mcpu names it (znver4, "
                       "skylake-avx512, haswell, ...; default: the host)"),
              cl::value_desc("name"), cl::init(""), cl::cat(category));
cl::opt<std::string> targetFeatures(
    "target-features",
    cl::desc("Features added to or removed from the target CPU's, as llc's "
             "-mattr takes them (-avx512f: AVX2 code on an AVX-512 machine)"),
    cl::value_desc("+f,-g"), cl::init(""), cl::cat(category));
cl::opt<bool> printTarget(
    "print-target",
    cl::desc("Print the target CPU (detected, or --target-cpu/--target-"
             "features) and the tile sizes derived from it, and exit"),
    cl::cat(category));
cl::opt<std::string> transformSchedule(
    "transform-schedule",
    cl::desc("Use this transform-dialect schedule (.mlir with "
             "@__transform_main) instead of the built-in one at -O2/-O3"),
    cl::value_desc("file.mlir"), cl::init(""), cl::cat(category));
cl::opt<bool> printTransformSchedule(
    "print-transform-schedule",
    cl::desc("Print the transform schedule that -O2/-O3 apply (the built-in "
             "one, or --transform-schedule's) and exit"),
    cl::cat(category));

/// Reports a user error and returns the exit status for it.
int fail(const llvm::Twine &message) {
  std::string text = llvm::StringRef(message.str()).rtrim().str();
  std::replace(text.begin(), text.end(), '\n', ' ');
  llvm::outs().flush();
  llvm::errs() << "Error: " << text << "\n";
  return 1;
}

unsigned getOptLevel() {
  if (optO0)
    return 0;
  if (optO1)
    return 1;
  if (optO3)
    return 3;
  return 2;
}

/// The error for a flag given a different number of times than @entry has
/// results.
int resultCountMismatch(size_t results, size_t given, llvm::StringRef flag) {
  return fail("@" + entryName + " returns " + llvm::Twine(results) +
              " result(s) but " + llvm::Twine(given) + " --" + flag +
              " value(s) were given");
}

/// With `--entry-point-result`, the function must return what it names: no
/// result for `void`, one scalar of that type otherwise.
int checkEntryPointResult(const EntrySignature &signature) {
  if (entryPointResult == EntryPointResult::Unset)
    return 0;
  std::optional<ElementType> expected;
  if (entryPointResult == EntryPointResult::I32)
    expected = ElementType::I32;
  else if (entryPointResult == EntryPointResult::I64)
    expected = ElementType::I64;
  else if (entryPointResult == EntryPointResult::F32)
    expected = ElementType::F32;
  llvm::StringRef name = expected ? elementTypeName(*expected) : "void";
  const std::vector<ValueSignature> &results = signature.results;
  bool matches = expected ? results.size() == 1 && results[0].isScalar &&
                                results[0].elementType == *expected
                          : results.empty();
  if (matches)
    return 0;
  std::string returns = "nothing";
  if (!results.empty()) {
    returns.clear();
    for (auto [i, result] : llvm::enumerate(results))
      returns += (i ? ", " : "") + result.str();
  }
  return fail("--entry-point-result=" + name + " expects @" + entryName +
              " to return " + (expected ? "one " + name : "nothing") +
              ", but it returns " + returns);
}

/// Prints a scalar result as mlir-runner does: integers in decimal, f32 as
/// raw_ostream prints a double (`6.000000e+00`).
void printAsMlirRunner(const HostTensor &result) {
  const void *data = result.getData();
  switch (result.getElementType()) {
  case ElementType::F32:
  case ElementType::F16:
  case ElementType::BF16:
    llvm::outs() << result.getAsDouble(0);
    break;
  case ElementType::I8:
    llvm::outs() << static_cast<int>(*static_cast<const int8_t *>(data));
    break;
  case ElementType::I32:
    llvm::outs() << *static_cast<const int32_t *>(data);
    break;
  case ElementType::I64:
  case ElementType::Index:
    llvm::outs() << *static_cast<const int64_t *>(data);
    break;
  }
  llvm::outs() << "\n";
}

/// Checks the flags that need no input file.
int checkOptions(std::vector<OutputSpec> &outputSpecs) {
  int optFlags = optO0 + optO1 + optO2 + optO3;
  if (optFlags > 1)
    return fail("give at most one of -O0, -O1, -O2, -O3");
  for (const std::string &out : outputs) {
    llvm::Expected<OutputSpec> spec = parseOutputSpec(out);
    if (!spec)
      return fail(llvm::toString(spec.takeError()));
    outputSpecs.push_back(*spec);
  }
  // A missing library is reported before anything is compiled.
  if (llvm::Error err = checkSharedLibraries(sharedLibs))
    return fail(llvm::toString(std::move(err)));
  return 0;
}

int run() {
  std::vector<OutputSpec> outputSpecs;
  if (int status = checkOptions(outputSpecs))
    return status;

  DialectRegistry registry;
  registerRunnerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // An op dump as a note would not make a readable one-line error.
  context.printOpOnDiagnostic(false);
  OneLineDiagnosticHandler handler(&context);

  // --mlir-timing: pass timings of both stages and the LLVM compile time.
  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope rootTimer = timingManager.getRootScope();
  TimingScope *timing = timingManager.isEnabled() ? &rootTimer : nullptr;

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &errorMessage);
  if (!file)
    return fail("cannot read '" + inputFile + "': " + errorMessage);
  if (llvm::Error err = checkNestingDepth(file->getBuffer()))
    return fail(inputFile + ": " + llvm::toString(std::move(err)));
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  TimingScope parseTimer = rootTimer.nest("parse");
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  parseTimer.stop();
  if (!module)
    return 1; // The diagnostic handler has printed why.

  // Only the function called (and what it calls) is compiled.
  if (emit == Emit::Run)
    keepOnlyEntry(*module, entryName);

  TransformerPipelineOptions options;
  options.optLevel = getOptLevel();
  options.fuseAttention = !noFuseAttention;
  options.threads = *threads;
  options.transformSchedule = transformSchedule;
  options.targetCpu = targetCpu;
  options.targetFeatures = targetFeatures;
  llvm::Expected<CPUTarget> target =
      CPUTarget::resolve(targetCpu, targetFeatures, *threads);
  if (!target)
    return fail(llvm::toString(target.takeError()));
  // Code for features this CPU lacks would stop on an illegal instruction.
  if (emit == Emit::Run)
    if (std::vector<std::string> missing = target->featuresMissingOnHost();
        !missing.empty())
      return fail("the target uses " + llvm::join(missing, ", ") +
                  ", which this CPU (" + CPUTarget::host().cpu +
                  ") lacks: its code can be printed (--emit=llvm-ir), not run");
  options.runtimeVerification = runtimeVerification;
  // Weights bound here can be laid out as the kernels read them best.
  options.panelParameters = !parametersFile.empty();

  // Stage 1: to linalg on tensors, where the entry signature is final.
  if (failed(lowerToLinalg(*module, options, timing)))
    return 1;
  if (emit == Emit::Linalg) {
    module->print(llvm::outs());
    return 0;
  }
  llvm::Expected<EntrySignature> signature =
      getEntrySignature(*module, entryName);
  if (!signature && emit == Emit::Run)
    return fail(llvm::toString(signature.takeError()));
  if (!signature)
    llvm::consumeError(signature.takeError());
  if (signature)
    if (int status = checkEntryPointResult(*signature))
      return status;

  // Check every input before compiling further, so nothing runs on bad
  // input. The arguments in order; those bound to a weight file's tensors
  // are filled after compiling (`pending`).
  std::vector<std::optional<HostTensor>> arguments;
  std::shared_ptr<WeightFile> weights; // What `pending` reads from.
  std::vector<std::optional<PendingTensor>> pending;
  std::vector<std::optional<HostTensor>> expected;
  if (emit == Emit::Run) {
    // Weights bound by name come from --parameters, the rest from --input.
    // Each weight is checked here, from the file's metadata; its bytes are
    // read (converted, quantized) once the compiler's memory is given back.
    pending.resize(signature->arguments.size());
    if (!parametersFile.empty()) {
      TimingScope checkTimer = rootTimer.nest("check parameters");
      llvm::Expected<std::shared_ptr<WeightFile>> file =
          openWeightFile(parametersFile);
      if (!file)
        return fail(llvm::toString(file.takeError()));
      llvm::Expected<std::vector<std::optional<PendingTensor>>> params =
          prepareParameters(*signature, entryName, **file);
      if (!params)
        return fail(llvm::toString(params.takeError()));
      pending = std::move(*params);
      weights = std::move(*file);
    }
    size_t userArgs = llvm::count_if(
        pending, [](const std::optional<PendingTensor> &t) { return !t; });
    if (inputs.size() != userArgs)
      return fail(
          "@" + entryName + " takes " + llvm::Twine(userArgs) + " argument(s)" +
          (userArgs != signature->arguments.size() ? " besides its parameters"
                                                   : "") +
          " but " + llvm::Twine(inputs.size()) +
          " --input value(s) were given");
    size_t next = 0;
    for (auto [i, sig] : llvm::enumerate(signature->arguments)) {
      if (pending[i]) {
        arguments.push_back(std::nullopt);
        continue;
      }
      std::optional<ElementType> scalarType;
      if (sig.isScalar)
        scalarType = sig.elementType;
      llvm::Expected<HostTensor> value =
          parseValueSpec(inputs[next], seed + i, scalarType);
      if (!value)
        return fail("input " + llvm::Twine(next) + ": " +
                    llvm::toString(value.takeError()));
      // f32 values (a .npy file, inline numbers) for a bf16 or f16
      // argument are rounded to it, as --parameters does for weights.
      if (isFloatType(sig.elementType) && isFloatType(value->getElementType()))
        value = convertFloats(std::move(*value), sig.elementType);
      if (!value)
        return fail("input " + llvm::Twine(next) + ": " +
                    llvm::toString(value.takeError()));
      if (std::optional<std::string> why = sig.mismatch(*value))
        return fail("input " + llvm::Twine(next) + " of @" + entryName + ": " +
                    *why);
      arguments.push_back(std::move(*value));
      ++next;
    }
    if (!outputs.empty() && outputs.size() != signature->results.size())
      return resultCountMismatch(signature->results.size(), outputs.size(),
                                 "output");
    if (!expectedOutputs.empty() &&
        expectedOutputs.size() != signature->results.size())
      return resultCountMismatch(signature->results.size(),
                                 expectedOutputs.size(), "expected-output");
    for (auto [i, spec] : llvm::enumerate(expectedOutputs)) {
      if (isIgnoredSpec(spec)) {
        expected.push_back(std::nullopt);
        continue;
      }
      llvm::Expected<HostTensor> value =
          parseValueSpec(spec, seed, std::nullopt);
      if (!value)
        return fail("expected output " + llvm::Twine(i) + ": " +
                    llvm::toString(value.takeError()));
      expected.push_back(std::move(*value));
    }
  }

  // Stage 2: to the LLVM dialect.
  auto compileStart = std::chrono::steady_clock::now();
  if (failed(lowerToLLVM(*module, options, timing)))
    return 1;
  if (signature)
    if (llvm::Error err = readPanelWidths(*module, entryName, *signature))
      return fail(llvm::toString(std::move(err)));
  if (emit == Emit::LLVMDialect) {
    module->print(llvm::outs());
    return 0;
  }
  if (emit == Emit::LLVMIR) {
    llvm::Expected<std::string> ir = translateToLLVMIR(*module);
    if (!ir)
      return fail(llvm::toString(ir.takeError()));
    llvm::outs() << *ir;
    return 0;
  }

  TimingScope jitTimer = rootTimer.nest("JIT compile (LLVM)");
  // Contractions on several threads call the OpenMP runtime.
  std::vector<std::string> libs(sharedLibs.begin(), sharedLibs.end());
  if (options.optLevel >= 2 && getEffectiveThreads(options) > 1)
    libs.push_back(TRANSFORMER_OPENMP_LIBRARY);
  llvm::Expected<std::unique_ptr<CompiledModule>> compiled =
      CompiledModule::create(
          *module, options.optLevel, libs,
          compileThreads > 0
              ? compileThreads.getValue()
              : std::max(1u, std::thread::hardware_concurrency()),
          &*target);
  if (!compiled)
    return fail(llvm::toString(compiled.takeError()));
  if (llvm::Error err = (*compiled)->compile(entryName))
    return fail("JIT compilation failed: " + llvm::toString(std::move(err)));
  jitTimer.stop();
  // The compiler's working memory is not needed while the program runs,
  // nor the module, now compiled, nor the compiler's own code.
  module = nullptr;
  releaseFreedMemory();
  releaseCompilerCode();
  double compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - compileStart)
                         .count();
  if (printCompileTime)
    llvm::outs() << llvm::format("compile: %.3f ms\n", compileMs);

  {
    TimingScope bindTimer = rootTimer.nest("bind parameters");
    llvm::Expected<std::vector<std::optional<HostTensor>>> params =
        readParameters(*signature, entryName, pending, weights.get());
    if (!params)
      return fail(llvm::toString(params.takeError()));
    for (auto [argument, param] : llvm::zip(arguments, *params))
      if (param)
        argument = std::move(*param);
    // What the program still needs of the file, the tensors bound without
    // a copy hold.
    pending.clear();
    weights.reset();
  }
  std::vector<HostTensor *> argumentPtrs;
  for (std::optional<HostTensor> &arg : arguments)
    argumentPtrs.push_back(&*arg);
  TimingScope runTimer = rootTimer.nest("run");
  llvm::Expected<std::vector<HostTensor>> results =
      (*compiled)->invoke(entryName, *signature, argumentPtrs);
  runTimer.stop();
  if (!results)
    return fail(llvm::toString(results.takeError()));

  if (repetitions > 0) {
    for (unsigned i = 0; i < warmup; ++i)
      if (llvm::Error err = (*compiled)
                                ->invoke(entryName, *signature, argumentPtrs)
                                .takeError())
        return fail(llvm::toString(std::move(err)));
    std::vector<double> times;
    for (unsigned i = 0; i < repetitions; ++i) {
      auto start = std::chrono::steady_clock::now();
      llvm::Expected<std::vector<HostTensor>> timed =
          (*compiled)->invoke(entryName, *signature, argumentPtrs);
      auto end = std::chrono::steady_clock::now();
      if (!timed)
        return fail(llvm::toString(timed.takeError()));
      times.push_back(
          std::chrono::duration<double, std::milli>(end - start).count());
    }
    std::sort(times.begin(), times.end());
    if (!printCompileTime)
      llvm::outs() << llvm::format("compile: %.3f ms\n", compileMs);
    llvm::outs() << llvm::format(
        "run @%s: min %.4f ms, median %.4f ms, max %.4f ms over %u "
        "repetitions (%u warm-up)\n",
        entryName.c_str(), times.front(), times[times.size() / 2], times.back(),
        static_cast<unsigned>(repetitions), static_cast<unsigned>(warmup));
  }

  bool runnerOutput = entryPointResult != EntryPointResult::Unset;
  if (!runnerOutput)
    llvm::outs() << "EXEC @" << entryName << "\n";
  for (auto [i, result] : llvm::enumerate(*results)) {
    OutputSpec spec = outputSpecs.empty() ? OutputSpec() : outputSpecs[i];
    if (spec.kind == OutputSpec::Kind::Skip)
      continue;
    if (spec.kind == OutputSpec::Kind::File) {
      if (llvm::Error err = writeOutput(spec, result))
        return fail(llvm::toString(std::move(err)));
      continue;
    }
    if (runnerOutput) {
      printAsMlirRunner(result);
      continue;
    }
    llvm::outs() << "result[" << i << "]: ";
    printValue(llvm::outs(), result, outputMaxElements);
    llvm::outs() << "\n";
  }
  if (!expected.empty()) {
    bool ok = true;
    for (auto [i, result] : llvm::enumerate(*results)) {
      if (!expected[i])
        continue; // (ignored)
      if (std::optional<std::string> why =
              compareValues(result, *expected[i], expectedThreshold)) {
        llvm::outs() << "[FAILED] result[" << i << "]: " << *why << "\n";
        ok = false;
      }
    }
    if (!ok)
      return 1;
    llvm::outs() << "[SUCCESS] all " << results->size()
                 << " result(s) match the expected values\n";
  }
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  // Before any thread exists and before libomp is loaded: see HostMemory.h
  // and ThreadPolicy.h.
  runner::keepFreedMemoryForReuse();
  runner::setDefaultThreadWaitPolicy();
  llvm::InitLLVM init(argc, argv);
  transformer::installToolInfo("transformer-run");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerDefaultTimingManagerCLOptions();
  // Show the timing flags in --help with the runner's own.
  for (llvm::StringRef name : {"mlir-timing", "mlir-timing-display"})
    if (cl::Option *option = cl::getRegisteredOptions().lookup(name))
      option->addCategory(category);
  registerThreadsOption();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "transformer-run: compile a .mlir file and run one of its functions\n");
  if (hostSupportsJit) {
    // As mlir-runner: whether a JIT can be created for this host.
    if (llvm::Error err = checkHostSupportsJit()) {
      llvm::consumeError(std::move(err));
      llvm::outs() << "false\n";
    } else {
      llvm::outs() << "true\n";
    }
    return 0;
  }
  if (printTarget) {
    llvm::Expected<CPUTarget> target =
        CPUTarget::resolve(targetCpu, targetFeatures, *threads);
    if (!target)
      return fail(llvm::toString(target.takeError()));
    target->print(llvm::outs());
    return 0;
  }
  if (printTransformSchedule) {
    if (transformSchedule.empty()) {
      llvm::outs() << getDefaultContractionSchedule();
      return 0;
    }
    std::string errorMessage;
    std::unique_ptr<llvm::MemoryBuffer> file =
        openInputFile(transformSchedule, &errorMessage);
    if (!file)
      return fail("cannot read '" + transformSchedule + "': " + errorMessage);
    llvm::outs() << file->getBuffer();
    return 0;
  }
  return runWithLargeStack(run);
}
