//===- InitAllTransformer.h - Register the whole project --------*- C++ -*-===//
//
// The one entry point through which every tool (transformer-opt,
// transformer-run, transformer-lsp-server, the mlir-opt plugin, a downstream
// tool) registers this project, as upstream's mlir/InitAllDialects.h and
// mlir/InitAllPasses.h do for MLIR. Defined in the MLIRTransformerRegisterAll
// library.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_INITALLTRANSFORMER_H
#define TRANSFORMER_INITALLTRANSFORMER_H

namespace mlir {
class DialectRegistry;

namespace transformer {

/// Inserts the project's dialects (today: `transformer`).
void registerAllTransformerDialects(DialectRegistry &registry);

/// Inserts what the pipelines (`--transformer-to-linalg-pipeline`,
/// `--transformer-to-llvm`) need from a registry and do not load themselves:
/// the upstream dialects a program may mix with the transformer dialect and
/// the ones the pipeline goes through (so that its intermediate output reads
/// back), and the external models that one-shot bufferization and the buffer
/// deallocation pipeline look up on them. Upstream only registers those
/// models in registerAllExtensions(); without them a tool with a registry of
/// its own fails with `op was not bufferized`.
void registerTransformerPipelineDependencies(DialectRegistry &registry);

/// Both of the above: all a tool needs to parse, transform and lower
/// transformer programs.
void registerAllTransformer(DialectRegistry &registry);

/// Registers every pass of the project: the transforms
/// (Transformer/Transforms/Passes.h), the conversions
/// (Transformer/Conversion/Passes.h), the codegen passes
/// (Transformer/Codegen/{Common,CPU}/Passes.h), the pipelines and the
/// `--convert-transformer-to-linalg` alias of `--lower-transformer`.
void registerAllTransformerPasses();

} // namespace transformer
} // namespace mlir

#endif // TRANSFORMER_INITALLTRANSFORMER_H
