//===- transformer-opt.cpp - The transformer optimizer driver -------------===//
//
// mlir-opt for the transformer dialect: the dialect and its passes, plus the
// upstream dialects, passes and extensions a user needs to read, transform
// and lower these programs.
//
//===----------------------------------------------------------------------===//

#include "Transformer/InitAllTransformer.h"
#include "Transformer/Support/InputLimits.h"
#include "Transformer/Support/ToolInfo.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// Rejects input files nested too deeply for the recursive parser. Standard
/// input cannot be read twice; it relies on the large stack alone.
static LogicalResult checkInputFile(llvm::StringRef filename) {
  if (filename == "-")
    return success();
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(filename, &error);
  if (!file)
    return success(); // MlirOptMain reports the missing file itself.
  if (llvm::Error err = transformer::checkNestingDepth(file->getBuffer())) {
    llvm::errs() << filename << ": error: " << llvm::toString(std::move(err))
                 << "\n";
    return failure();
  }
  return success();
}

int main(int argc, char **argv) {
  transformer::installToolInfo("transformer-opt");
  registerAllPasses();
  transformer::registerAllTransformerPasses();

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  transformer::registerAllTransformer(registry);

  // Named copies: a lambda may not capture structured bindings in C++17.
  auto [input, output] = registerAndParseCLIOptions(
      argc, argv, "transformer-mlir optimizer driver\n", registry);
  std::string inputFilename(input), outputFilename(output);
  if (failed(checkInputFile(inputFilename)))
    return 1;
  return transformer::runWithLargeStack([&] {
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  });
}
