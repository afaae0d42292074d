//===- Compiler.cpp - Preparing a module for the runner -------------------===//

#include "Transformer/Runner/Compiler.h"

#include "Transformer/InitAllTransformer.h"
#include "Transformer/Runner/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::runner;

void runner::registerRunnerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllTransformer(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // Multi-threaded code at -O2/-O3 (lib/Codegen/CPU) uses the omp dialect.
  registerOpenMPDialectTranslation(registry);
}

static LogicalResult
runStage(ModuleOp module, const TransformerPipelineOptions &options,
         void (*build)(OpPassManager &, const TransformerPipelineOptions &),
         TimingScope *timing, llvm::StringRef name) {
  if (isLLVMDialectModule(module))
    return success();
  PassManager pm(module.getContext());
  build(pm, options);
  if (timing) {
    TimingScope stage = timing->nest(name);
    pm.enableTiming(stage);
    return pm.run(module);
  }
  return pm.run(module);
}

void runner::keepOnlyEntry(ModuleOp module, llvm::StringRef entry) {
  if (!module.lookupSymbol<func::FuncOp>(entry))
    return; // The signature check reports it.
  bool changed = false;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.getSymName() != entry && func.isPublic() && !func.isExternal()) {
      func.setPrivate();
      changed = true;
    }
  if (!changed)
    return;
  PassManager pm(module->getContext());
  pm.addPass(createSymbolDCEPass());
  (void)pm.run(module);
}

LogicalResult runner::lowerToLinalg(ModuleOp module,
                                    const TransformerPipelineOptions &options,
                                    TimingScope *timing) {
  return runStage(module, options, buildTransformerToLinalgPipeline, timing,
                  "to linalg on tensors");
}

LogicalResult runner::lowerToLLVM(ModuleOp module,
                                  const TransformerPipelineOptions &options,
                                  TimingScope *timing) {
  return runStage(module, options, buildLinalgToLLVMPipeline, timing,
                  "to the LLVM dialect");
}

/// `file:line:col: ` as SourceMgrDiagnosticHandler (transformer-opt) shows
/// a location: the first file position inside it, else the location itself
/// unless it is unknown.
static void printLocation(llvm::raw_ostream &os, Location loc) {
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>()) {
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn() << ": ";
    return;
  }
  if (!isa<UnknownLoc>(loc))
    os << loc << ": ";
}

/// Newlines would break the one-line promise.
static std::string oneLine(llvm::StringRef text) {
  std::string out;
  for (char c : text.rtrim())
    out += c == '\n' ? ' ' : c;
  return out;
}

std::string runner::formatDiagnostic(Diagnostic &diag) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printLocation(os, diag.getLocation());
  os << oneLine(diag.str());
  for (Diagnostic &note : diag.getNotes()) {
    os << "; note: ";
    printLocation(os, note.getLocation());
    os << oneLine(note.str());
  }
  return text;
}

OneLineDiagnosticHandler::OneLineDiagnosticHandler(MLIRContext *context)
    : ScopedDiagnosticHandler(context, [](Diagnostic &diag) {
        if (diag.getSeverity() != DiagnosticSeverity::Error)
          return success();
        llvm::outs().flush();
        llvm::errs() << "Error: " << formatDiagnostic(diag) << "\n";
        return success();
      }) {}
