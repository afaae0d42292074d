//===- transformer-lsp-server.cpp - LSP server for transformer IR ---------===//
//
// mlir-lsp-server with the transformer dialect: editors get diagnostics
// (parser and verifier errors), hover, go-to-definition and completion for
// .mlir files that use the dialect. It knows the same dialects as
// transformer-opt. See docs/Install.md for the VS Code set-up.
//
//===----------------------------------------------------------------------===//

#include "Transformer/InitAllTransformer.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

using namespace mlir;

int main(int argc, char **argv) {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  transformer::registerAllTransformer(registry);
  return failed(MlirLspServerMain(argc, argv, registry));
}
