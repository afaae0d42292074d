//===- ToolInfo.cpp - Version and crash banner of the tools ---------------===//

#include "Transformer/Support/ToolInfo.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

#ifndef TRANSFORMER_MLIR_VERSION
#define TRANSFORMER_MLIR_VERSION "unknown"
#endif

using namespace mlir;

llvm::StringRef transformer::getTransformerVersion() {
  return TRANSFORMER_MLIR_VERSION;
}

void transformer::installToolInfo(llvm::StringRef toolName) {
  // Both callbacks outlive main: keep the name in static storage.
  static std::string name;
  name = toolName.str();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << name << " (transformer-mlir) version " << getTransformerVersion()
       << "\n  built with LLVM/MLIR " << LLVM_VERSION_STRING << "\n";
  });
  llvm::setBugReportMsg(
      "PLEASE report this crash to the transformer-mlir project (an issue "
      "in its tracker), with the input .mlir file, the command line and the "
      "stack trace below. The crash is in transformer-mlir or in the LLVM/MLIR "
      "it is built on; do not report it to LLVM before it is reduced.\n");
}
