//===- Schedules.cpp - The embedded transform schedules -------------------===//
//
// The schedules are the .mlir files in Schedules/, embedded at build time
// (EmbedSchedule.cmake), so that what the compiler applies is exactly the
// readable file a user can print and copy.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/Passes.h"

using namespace mlir;

llvm::StringRef transformer::getDefaultContractionSchedule() {
  static constexpr char text[] =
#include "Schedules/contraction.mlir.inc"
      ;
  return llvm::StringRef(text, sizeof(text) - 1);
}
