//===- transformer-run.cpp - JIT runner for transformer programs ----------===//
//
// Compiles a .mlir file with the same pipeline as `--transformer-to-llvm`,
// JIT-compiles it for the host and calls one function with inputs from the
// command line or numpy files, printing or saving the results.
//
// Every user error is one `Error: ...` line on stderr and exit status 1, and
// nothing is run unless every input has been checked against the signature.
//
//===----------------------------------------------------------------------===//

#include "Jit.h"

#include "Transformer/IR/TransformerDialect.h"
#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/Pipelines/Pipelines.h"
#include "Transformer/Runner/Npy.h"
#include "Transformer/Runner/Values.h"
#include "Transformer/Support/InputLimits.h"
#include "Transformer/Transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

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
cl::list<std::string>
    inputs("input",
           cl::desc("One argument, in order: @x.npy, 2x3xf32=1 2 3 4 5 6, "
                    "2x2xf32=[[1 2][3 4]], 4xf32=0.5, 8x8xf32=random, "
                    "2x3xf32=@x.npy, f32=1.5, index=3"),
           cl::value_desc("spec"), cl::cat(category));
cl::list<std::string>
    outputs("output",
            cl::desc("Where to put the next result: @out.npy, or - to print"),
            cl::value_desc("@file.npy|-"), cl::cat(category));
cl::list<std::string> expectedOutputs(
    "expected-output",
    cl::desc("Expected value of the next result (same forms as --input)"),
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
cl::opt<Emit> emit(
    "emit", cl::desc("What to produce"), cl::init(Emit::Run),
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
cl::opt<bool> hostSupportsJit("host-supports-jit",
                              cl::desc("Print whether the JIT works here"),
                              cl::cat(category));

/// Reports a user error and returns the exit status for it.
int fail(const llvm::Twine &message) {
  llvm::outs().flush();
  llvm::errs() << "Error: " << message << "\n";
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

/// Prints each diagnostic as one `Error: file:line:col: message` line.
LogicalResult printDiagnostic(Diagnostic &diag) {
  if (diag.getSeverity() != DiagnosticSeverity::Error)
    return success();
  std::string location;
  llvm::raw_string_ostream os(location);
  if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
    os << loc.getFilename() << ":" << loc.getLine() << ":" << loc.getColumn()
       << ": ";
  llvm::outs().flush();
  llvm::errs() << "Error: " << location << diag.str() << "\n";
  return success();
}

/// Runs one stage of the compilation pipeline on `module`; failures have
/// been printed by the diagnostic handler.
LogicalResult runStage(MLIRContext &context, ModuleOp module,
                       void (*build)(OpPassManager &,
                                     const TransformerPipelineOptions &),
                       const TransformerPipelineOptions &options) {
  PassManager pm(&context);
  build(pm, options);
  return pm.run(module);
}

/// The error for a flag given a different number of times than @entry has
/// results.
int resultCountMismatch(size_t results, size_t given, llvm::StringRef flag) {
  return fail("@" + entryName + " returns " + llvm::Twine(results) +
              " result(s) but " + llvm::Twine(given) + " --" + flag +
              " value(s) were given");
}

int run() {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<TransformerDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  ScopedDiagnosticHandler handler(&context, printDiagnostic);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &errorMessage);
  if (!file)
    return fail("cannot read '" + inputFile + "': " + errorMessage);
  if (llvm::Error err = checkNestingDepth(file->getBuffer()))
    return fail(inputFile + ": " + llvm::toString(std::move(err)));
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // The diagnostic handler has printed why.

  TransformerPipelineOptions options;
  options.optLevel = getOptLevel();
  options.fuseAttention = !noFuseAttention;
  options.threads = *threads;
  options.transformSchedule = transformSchedule;

  // Stage 1: to linalg on tensors, where the entry signature is final.
  if (failed(runStage(context, *module, buildTransformerToLinalgPipeline,
                      options)))
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

  // Check every input before compiling further, so nothing runs on bad
  // input.
  std::vector<HostTensor> arguments;
  if (emit == Emit::Run) {
    if (inputs.size() != signature->arguments.size())
      return fail("@" + entryName + " takes " +
                  llvm::Twine(signature->arguments.size()) +
                  " argument(s) but " + llvm::Twine(inputs.size()) +
                  " --input value(s) were given");
    for (auto [i, spec] : llvm::enumerate(inputs)) {
      const ValueSignature &sig = signature->arguments[i];
      std::optional<ElementType> scalarType;
      if (sig.isScalar)
        scalarType = sig.elementType;
      llvm::Expected<HostTensor> value =
          parseValueSpec(spec, seed + i, scalarType);
      if (!value)
        return fail("input " + llvm::Twine(i) + ": " +
                    llvm::toString(value.takeError()));
      if (std::optional<std::string> why = sig.mismatch(*value))
        return fail("input " + llvm::Twine(i) + " of @" + entryName + ": " +
                    *why);
      arguments.push_back(std::move(*value));
    }
    if (!outputs.empty() && outputs.size() != signature->results.size())
      return resultCountMismatch(signature->results.size(), outputs.size(),
                                 "output");
    for (const std::string &out : outputs)
      if (out != "-" && (!llvm::StringRef(out).starts_with("@") ||
                         out.size() == 1))
        return fail("--output=" + out + ": expected @FILE.npy or -");
    if (!expectedOutputs.empty() &&
        expectedOutputs.size() != signature->results.size())
      return resultCountMismatch(signature->results.size(),
                                 expectedOutputs.size(), "expected-output");
  }
  std::vector<HostTensor> expected;
  for (auto [i, spec] : llvm::enumerate(expectedOutputs)) {
    llvm::Expected<HostTensor> value = parseValueSpec(spec, seed, std::nullopt);
    if (!value)
      return fail("expected output " + llvm::Twine(i) + ": " +
                  llvm::toString(value.takeError()));
    expected.push_back(std::move(*value));
  }

  // Stage 2: to the LLVM dialect.
  auto compileStart = std::chrono::steady_clock::now();
  if (failed(runStage(context, *module, buildLinalgToLLVMPipeline, options)))
    return 1;
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

  // Contractions on several threads call the OpenMP runtime.
  std::vector<std::string> libs(sharedLibs.begin(), sharedLibs.end());
  if (options.optLevel >= 2 && getEffectiveThreads(options) > 1)
    libs.push_back(TRANSFORMER_OPENMP_LIBRARY);
  llvm::Expected<std::unique_ptr<CompiledModule>> compiled =
      CompiledModule::create(*module, options.optLevel, libs);
  if (!compiled)
    return fail("JIT compilation failed: " +
                llvm::toString(compiled.takeError()));
  std::vector<HostTensor *> argumentPtrs;
  for (HostTensor &arg : arguments)
    argumentPtrs.push_back(&arg);

  // The first call also JIT-compiles the code (ORC is lazy): it counts as
  // compile time and as a warm-up.
  llvm::Expected<std::vector<HostTensor>> results =
      (*compiled)->invoke(entryName, *signature, argumentPtrs);
  if (!results)
    return fail(llvm::toString(results.takeError()));
  double compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - compileStart)
                         .count();

  if (repetitions > 0) {
    for (unsigned i = 0; i < warmup; ++i)
      if (llvm::Error err =
              (*compiled)->invoke(entryName, *signature, argumentPtrs)
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
      times.push_back(std::chrono::duration<double, std::milli>(end - start)
                          .count());
    }
    std::sort(times.begin(), times.end());
    llvm::outs() << llvm::format(
        "compile: %.3f ms (with the first call)\n"
        "run @%s: min %.4f ms, median %.4f ms, max %.4f ms over %u "
        "repetitions (%u warm-up)\n",
        compileMs, entryName.c_str(), times.front(), times[times.size() / 2],
        times.back(), static_cast<unsigned>(repetitions),
        static_cast<unsigned>(warmup));
  }

  llvm::outs() << "EXEC @" << entryName << "\n";
  for (auto [i, result] : llvm::enumerate(*results)) {
    if (!outputs.empty() && outputs[i] != "-") {
      if (llvm::Error err =
              writeNpyFile(llvm::StringRef(outputs[i]).drop_front(), result))
        return fail(llvm::toString(std::move(err)));
      continue;
    }
    llvm::outs() << "result[" << i << "]: ";
    printValue(llvm::outs(), result, outputMaxElements);
    llvm::outs() << "\n";
  }
  if (!expected.empty()) {
    bool ok = true;
    for (auto [i, result] : llvm::enumerate(*results)) {
      if (std::optional<std::string> why =
              compareValues(result, expected[i], expectedThreshold)) {
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
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerThreadsOption();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "transformer-run: compile a .mlir file and run one of its functions\n");
  if (hostSupportsJit) {
    llvm::outs() << "true\n";
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
