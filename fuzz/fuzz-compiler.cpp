//===- fuzz-compiler.cpp - Fuzz the whole compiler on arbitrary bytes -----===//
//
// Feeds the input through parse -> verify -> shape inference -> canonicalize
// -> attention fusion -> lowering -> the LLVM pipeline. Any diagnostic is an
// acceptable outcome; a crash, a sanitizer report, a hang or a leak is a bug.
//
//===----------------------------------------------------------------------===//

#include "Transformer/InitAllTransformer.h"
#include "Transformer/Pipelines/Pipelines.h"
#include "Transformer/Support/InputLimits.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/AllExtensions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstdint>

using namespace mlir;

static const DialectRegistry &getRegistry() {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    // The dialects a user may mix with the transformer dialect (contract),
    // plus the extensions and interfaces the pipeline needs.
    registerAllDialects(*r);
    registerAllExtensions(*r);
    transformer::registerAllTransformer(*r);
    return r;
  }();
  return *registry;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  // Diagnostics are expected; swallow them.
  ScopedDiagnosticHandler handler(&context,
                                  [](Diagnostic &) { return success(); });
  // MLIR's lexer stops at a NUL terminator, which every file the tools read
  // has (MemoryBuffer guarantees it) but libFuzzer's buffer does not.
  std::string source(reinterpret_cast<const char *>(data), size);
  llvm::StringRef text(source);
  // The tools reject deeper nesting before parsing (InputLimits.h).
  if (llvm::Error err = transformer::checkNestingDepth(text)) {
    llvm::consumeError(std::move(err));
    return 0;
  }
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return 0;
  // Only programs made of the contract's dialects go through the pipeline;
  // the rest of upstream is not ours to fuzz.
  bool foreign = false;
  module->walk([&](Operation *op) {
    llvm::StringRef ns = op->getDialect() ? op->getDialect()->getNamespace()
                                          : llvm::StringRef("?");
    if (!llvm::is_contained({"builtin", "func", "arith", "math", "tensor",
                             "linalg", "scf", "bufferization", "cf",
                             "transformer"},
                            ns))
      foreign = true;
  });
  if (foreign)
    return 0;
  transformer::TransformerPipelineOptions options;
  PassManager pm(&context);
  transformer::buildTransformerToLLVMPipeline(pm, options);
  (void)pm.run(*module);
  return 0;
}
