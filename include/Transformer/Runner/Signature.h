//===- Signature.h - The signature of the function to call -----*- C++ -*-===//
//
// What the runner needs to know about the entry function to pass host
// tensors in and read results back: each argument and result is a ranked
// tensor (a memref descriptor at the LLVM level) or a scalar.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_SIGNATURE_H
#define TRANSFORMER_RUNNER_SIGNATURE_H

#include "Transformer/Runner/HostTensor.h"

#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mlir::transformer::runner {

/// The argument attribute that names the weight an argument is bound to.
inline constexpr llvm::StringLiteral kParameterAttrName =
    "transformer.parameter";
/// The argument attributes of a block-quantized parameter.
inline constexpr llvm::StringLiteral kBlockFormatAttrName =
    "transformer.block_format";
inline constexpr llvm::StringLiteral kTransposedAttrName =
    "transformer.transposed";

/// The type of one argument or result of the entry function.
struct ValueSignature {
  ElementType elementType = ElementType::F32;
  bool isScalar = false;
  /// Dims, with ShapedType::kDynamic for `?`.
  llvm::SmallVector<int64_t> shape;
  /// For an argument with a `transformer.parameter = "NAME"` attribute: the
  /// name of the tensor of a weights file that it is bound to.
  std::string parameter;
  /// With `transformer.block_format = "q8_0"` (or "q4_0") beside the name:
  /// the parameter is ggml blocks of that format, quantized when bound.
  std::string blockFormat;
  /// `transformer.transposed`: the weights file holds the transpose of the
  /// argument's matrix (an nn.Linear weight [out, in] read as [in, out]),
  /// or of the matrix its blocks quantize (a Hugging Face Conv1D weight
  /// [in, out] quantized along in).
  bool transposed = false;
  /// For a parameter [k, n] that the compiled function reads in panels
  /// (--transformer-cpu-panel-parameters, readPanelWidths): their width r;
  /// the weight is bound laid out [n / r, k, r]. 0: as the type says.
  int64_t panelWidth = 0;
  /// `tensor<2x?xf32>` or `f32`.
  std::string str() const;
  /// Whether `value` can be passed for this signature; otherwise explains.
  /// A scalar and a rank-0 tensor of the same type stand for each other.
  std::optional<std::string> mismatch(const HostTensor &value) const;
};

struct EntrySignature {
  std::vector<ValueSignature> arguments;
  std::vector<ValueSignature> results;
};

/// Reads the signature of `entry`: a func.func at the tensor level (after
/// the linalg stage), or an llvm.func of a module already in the LLVM
/// dialect, whose arguments and results must then be scalars (`llvm.func
/// @main()`, as mlir-runner calls it, needs none). Fails for unknown
/// functions and unsupported types.
llvm::Expected<EntrySignature> getEntrySignature(ModuleOp module,
                                                 llvm::StringRef entry);

/// Reads into `signature` the panel widths that
/// --transformer-cpu-panel-parameters gave `entry`'s arguments: the module's
/// `transformer.panel_parameters`, which stays on the module in the LLVM
/// dialect. Nothing to read is not an error; widths that do not fit the
/// arguments are.
llvm::Error readPanelWidths(ModuleOp module, llvm::StringRef entry,
                            EntrySignature &signature);

/// Whether every op of `module` is already in the LLVM dialect, so that no
/// pipeline stage is left to run.
bool isLLVMDialectModule(ModuleOp module);

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_SIGNATURE_H
