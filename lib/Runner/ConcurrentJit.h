//===- ConcurrentJit.h - LLVM IR compiled on several threads ----*- C++ -*-===//
//
// Internal to the runner library: a JIT for a translated module that splits
// it into parts and optimizes and compiles them on several threads (ORC's
// concurrent compilation), where MLIR's ExecutionEngine compiles one module
// on one thread.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_LIB_RUNNER_CONCURRENTJIT_H
#define TRANSFORMER_LIB_RUNNER_CONCURRENTJIT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace llvm {
class LLVMContext;
class Module;
namespace orc {
class JITTargetMachineBuilder;
class LLJIT;
} // namespace orc
} // namespace llvm

namespace mlir::transformer {
struct CPUTarget;
} // namespace mlir::transformer

namespace mlir::transformer::runner {

/// The target machine both JIT paths compile for: the host, or `target`'s
/// CPU and features.
llvm::Expected<llvm::orc::JITTargetMachineBuilder>
getTargetMachineBuilder(const CPUTarget *target);

/// The LLVM code generation level of a transformer-run opt level (0-3),
/// for both JIT paths.
llvm::CodeGenOptLevel getCodeGenOptLevel(unsigned optLevel);

class ConcurrentJit {
public:
  /// Splits `module` into `threads` parts and compiles them all, at
  /// `optLevel` (0-3), on `threads` threads. Every function the module
  /// defines with external linkage gets a packed wrapper `_mlir_<name>(void
  /// **)`, as MLIR's ExecutionEngine makes them. Symbols the module does not
  /// define are looked up in the process, libraries loaded into it
  /// (globally) included.
  static llvm::Expected<std::unique_ptr<ConcurrentJit>>
  create(std::unique_ptr<llvm::Module> module,
         std::unique_ptr<llvm::LLVMContext> context, unsigned optLevel,
         unsigned threads, const CPUTarget *target);
  ~ConcurrentJit();

  /// The packed wrapper of the function `name`.
  llvm::Expected<void (*)(void **)> lookupPacked(llvm::StringRef name) const;

private:
  ConcurrentJit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_LIB_RUNNER_CONCURRENTJIT_H
