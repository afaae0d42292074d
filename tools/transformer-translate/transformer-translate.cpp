//===- transformer-translate.cpp - Import models as dialect programs ------===//
//
// An mlir-translate style driver whose translations produce
// transformer-dialect modules from published model descriptions:
//   transformer-translate --import-hf-config config.json [-o model.mlir]
// The builders live in lib/Models; this file only registers them.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Models/Models.h"
#include "Transformer/Support/ToolInfo.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::transformer::installToolInfo("transformer-translate");
  mlir::transformer::models::registerHuggingFaceImport();
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv, "transformer-translate: model importers"));
}
