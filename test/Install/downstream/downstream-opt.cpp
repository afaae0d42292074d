//===- downstream-opt.cpp - An opt tool built outside the project ---------===//
//
// The smallest registry with which the transformer pipelines work: no
// registerAllDialects / registerAllExtensions, only the project's entry
// points (Transformer/InitAllTransformer.h).
//
//===----------------------------------------------------------------------===//

#include "Transformer/InitAllTransformer.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::transformer::registerAllTransformer(registry);
  mlir::transformer::registerAllTransformerPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "transformer-mlir downstream tool\n", registry));
}
