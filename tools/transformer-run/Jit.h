//===- Jit.h - Compiling and calling a function with the JIT ----*- C++ -*-===//
//
// The only part of transformer-run that includes the ExecutionEngine and ORC
// headers (in Jit.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_TOOLS_TRANSFORMER_RUN_JIT_H
#define TRANSFORMER_TOOLS_TRANSFORMER_RUN_JIT_H

#include "Transformer/Runner/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::transformer::runner {

/// The type of one argument or result of the entry function.
struct ValueSignature {
  ElementType elementType = ElementType::F32;
  bool isScalar = false;
  /// Dims, with ShapedType::kDynamic for `?`.
  llvm::SmallVector<int64_t> shape;
  /// `tensor<2x?xf32>` or `f32`.
  std::string str() const;
  /// Whether `value` can be passed for this signature; otherwise explains.
  std::optional<std::string> mismatch(const HostTensor &value) const;
};

struct EntrySignature {
  std::vector<ValueSignature> arguments;
  std::vector<ValueSignature> results;
};

/// Reads the signature of `entry` from a module at the linalg-on-tensors
/// stage. Fails for unknown functions and unsupported types.
llvm::Expected<EntrySignature> getEntrySignature(ModuleOp module,
                                                 llvm::StringRef entry);

/// A module compiled for the host CPU, ready to call.
class CompiledModule {
public:
  /// JIT-compiles a module in the LLVM dialect at `optLevel` (0-3), loading
  /// `sharedLibs`. Run-time checks that fail in the compiled code print
  /// `Error: <message>` on stderr and exit with status 1.
  static llvm::Expected<std::unique_ptr<CompiledModule>>
  create(ModuleOp llvmModule, unsigned optLevel,
         llvm::ArrayRef<std::string> sharedLibs);
  ~CompiledModule();

  /// Calls `entry` with `inputs` (already checked against `signature`) and
  /// returns its results, which the caller then owns.
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

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_TOOLS_TRANSFORMER_RUN_JIT_H
