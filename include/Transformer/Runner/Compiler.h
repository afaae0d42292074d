//===- Compiler.h - Preparing a module for the runner -----------*- C++ -*-===//
//
// The steps transformer-run takes before the JIT: the registry a program
// needs, the two pipeline stages (to linalg on tensors, where the entry
// signature is final, then to the LLVM dialect), and diagnostics as one
// `Error:` line each. A module may come in at any stage: transformer ops,
// linalg on tensors, or already the LLVM dialect (then nothing is run).
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_COMPILER_H
#define TRANSFORMER_RUNNER_COMPILER_H

#include "Transformer/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/Timing.h"

#include <string>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::transformer::runner {

/// Every dialect, extension and LLVM IR translation a program may use.
void registerRunnerDialects(DialectRegistry &registry);

/// Drops every function that `entry` does not reach (other public
/// functions become private, then symbol-dce), so that a module with many
/// entry points (a model's @forward, @prefill, @decode, @generate) compiles
/// only what one call needs.
void keepOnlyEntry(ModuleOp module, llvm::StringRef entry);

/// Runs the first stage, to linalg on tensors. Nothing for a module already
/// in the LLVM dialect. Pass timings go under `timing` when it is given.
LogicalResult lowerToLinalg(ModuleOp module,
                            const TransformerPipelineOptions &options,
                            TimingScope *timing = nullptr);

/// Runs the second stage, to the LLVM dialect.
LogicalResult lowerToLLVM(ModuleOp module,
                          const TransformerPipelineOptions &options,
                          TimingScope *timing = nullptr);

/// A diagnostic as one line, its location shown as transformer-opt shows it
/// (`file:line:col: `, or `loc("name"): ` for a name or fused location
/// without a file position) and its notes folded in (`; note: ...`).
std::string formatDiagnostic(Diagnostic &diag);

/// Prints each error diagnostic of `context` as `Error: <formatDiagnostic>`
/// on stderr while alive.
class OneLineDiagnosticHandler : public ScopedDiagnosticHandler {
public:
  explicit OneLineDiagnosticHandler(MLIRContext *context);
};

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_COMPILER_H
