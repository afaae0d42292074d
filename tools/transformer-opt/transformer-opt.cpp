//===- transformer-opt.cpp - The transformer optimizer driver -------------===//
//
// mlir-opt for the transformer dialect: the dialect and its passes, plus the
// upstream dialects, passes and extensions a user needs to read, transform
// and lower these programs.
//
//===----------------------------------------------------------------------===//

#include "Transformer/IR/TransformerDialect.h"
#include "Transformer/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::transformer::registerAllTransformerPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::transformer::TransformerDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "transformer-mlir optimizer driver\n", registry));
}
