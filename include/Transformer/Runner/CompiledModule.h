//===- CompiledModule.h - A module JIT-compiled for the host ----*- C++ -*-===//
//
// The only part of the runner that uses the ExecutionEngine and ORC, kept
// behind a pointer to an implementation so that this header pulls in neither.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_COMPILEDMODULE_H
#define TRANSFORMER_RUNNER_COMPILEDMODULE_H

#include "Transformer/Runner/HostTensor.h"
#include "Transformer/Runner/Signature.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::transformer {
struct CPUTarget;
} // namespace mlir::transformer

namespace mlir::transformer::runner {

/// A module compiled for the host CPU (or a compatible target), ready to
/// call.
class CompiledModule {
public:
  /// Prepares a module in the LLVM dialect for the JIT at `optLevel` (0-3),
  /// loading `sharedLibs`. Fails, before anything is compiled, when a
  /// library cannot be loaded or a function the module calls is defined
  /// neither by it, by a library nor by the process (which includes the
  /// runtime library, libTransformerRuntime).
  /// With `compileThreads` > 1, LLVM compiles the module split into as many
  /// parts on as many threads (transformer-run passes the machine's cores by
  /// default); otherwise MLIR's ExecutionEngine compiles it whole.
  /// Machine code is for `target` (its CPU and features), or the host's
  /// when null.
  static llvm::Expected<std::unique_ptr<CompiledModule>>
  create(ModuleOp llvmModule, unsigned optLevel,
         llvm::ArrayRef<std::string> sharedLibs, unsigned compileThreads = 0,
         const CPUTarget *target = nullptr);
  ~CompiledModule();

  /// Compiles `entry` to machine code (ORC compiles on first lookup), so
  /// that compile time can be measured apart from calls.
  llvm::Error compile(llvm::StringRef entry);

  /// Calls `entry` with `inputs` (already checked against `signature`) and
  /// returns its results, which the caller then owns. A failed run-time
  /// check in the compiled code returns the error
  /// `run-time check failed: <message>` (the call is unwound; buffers the
  /// compiled code had allocated are not freed).
  llvm::Expected<std::vector<HostTensor>>
  invoke(llvm::StringRef entry, const EntrySignature &signature,
         llvm::ArrayRef<HostTensor *> inputs);

private:
  struct Impl;
  explicit CompiledModule(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Translates a module in the LLVM dialect to LLVM IR text.
llvm::Expected<std::string> translateToLLVMIR(ModuleOp llvmModule);

/// Whether a JIT can be created for the host (as `mlir-runner
/// --host-supports-jit` checks); otherwise the error says why.
llvm::Error checkHostSupportsJit();

/// Checks that every path in `sharedLibs` names a loadable library, before
/// anything is compiled.
llvm::Error checkSharedLibraries(llvm::ArrayRef<std::string> sharedLibs);

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_COMPILEDMODULE_H
