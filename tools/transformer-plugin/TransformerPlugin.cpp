//===- TransformerPlugin.cpp - Dialect and pass plugin for mlir-opt -------===//
//
// Lets an mlir-opt built elsewhere (Debian's mlir-opt-22) read and lower
// transformer programs:
//
//   mlir-opt --load-dialect-plugin=TransformerPlugin.so \
//            --load-pass-plugin=TransformerPlugin.so \
//            --pass-pipeline='builtin.module(transformer-to-llvm)' f.mlir
//
// One shared object provides both entry points. It links libMLIR.so, the
// same copy mlir-opt uses, so types, dialects and passes are shared.
//
//===----------------------------------------------------------------------===//

#include "Transformer/InitAllTransformer.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

/// `--load-dialect-plugin`: the dialect and what its pipelines need.
extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Transformer", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            transformer::registerAllTransformer(*registry);
          }};
}

/// `--load-pass-plugin`: the passes and pipelines. Plugin passes are
/// registered after mlir-opt has parsed its flags, so name them in
/// `--pass-pipeline=...`.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TransformerPasses", LLVM_VERSION_STRING,
          []() { transformer::registerAllTransformerPasses(); }};
}
