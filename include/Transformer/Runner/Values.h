//===- Values.h - Parsing and printing transformer-run values ---*- C++ -*-===//
//
// The textual forms of --input and --expected-output, and the printed form
// of results:
//
//   @x.npy                   a numpy file
//   2x3xf32=1 2 3 4 5 6      inline values (brackets and commas ignored)
//   2x2xf32=[[1 2][3 4]]
//   4x4xf32=0.5              one value fills the tensor
//   512x64xf32=random        uniform in [-1, 1), reproducible with --seed
//   2x3xf32=@x.npy           a numpy file whose shape and type are checked
//   2x3xf32=@x.bin           raw little-endian elements, no header
//   f32=1.5, index=3, 7      scalars (f32=1.5 also passes for a tensor<f32>)
//
// and of --output:
//
//   -            print (the default)
//   (empty)      skip this result
//   @out.npy     write a .npy file; +out.npy appends one more array to it
//   @out.bin     write the raw bytes; +out.bin appends them
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_RUNNER_VALUES_H
#define TRANSFORMER_RUNNER_VALUES_H

#include "Transformer/Runner/HostTensor.h"

#include "llvm/Support/raw_ostream.h"

namespace mlir::transformer::runner {

/// Parses one value spec. `seed` drives `random`. Scalars are written as
/// `TYPE=VALUE` or as a bare number (then `scalarType`, the type the function
/// expects, if any, gives the type).
llvm::Expected<HostTensor>
parseValueSpec(llvm::StringRef spec, uint64_t seed,
               std::optional<ElementType> scalarType = std::nullopt);

/// Prints `2x3xf32=[[1 2 3][4 5 6]]`; when the tensor has more than
/// `maxElements` elements, the middle of each long dimension is elided.
void printValue(llvm::raw_ostream &os, const HostTensor &value,
                int64_t maxElements);

/// Compares a result with its expected value. Floats match when
/// |x - y| <= threshold (NaN matches NaN, infinities match themselves).
/// On a mismatch, returns the message
/// `element at index j (x) does not match the expected (y)`.
std::optional<std::string> compareValues(const HostTensor &actual,
                                         const HostTensor &expected,
                                         double threshold);

/// Where one result goes.
struct OutputSpec {
  enum class Kind { Print, Skip, File };
  Kind kind = Kind::Print;
  std::string path;
  bool append = false;
  /// Raw bytes (.bin) rather than .npy.
  bool raw = false;
};

/// Parses one --output value.
llvm::Expected<OutputSpec> parseOutputSpec(llvm::StringRef spec);

/// Writes `value` to the file of a Kind::File spec; nothing otherwise.
llvm::Error writeOutput(const OutputSpec &spec, const HostTensor &value);

/// The --expected-output value that accepts any result.
inline bool isIgnoredSpec(llvm::StringRef spec) { return spec == "(ignored)"; }

} // namespace mlir::transformer::runner

#endif // TRANSFORMER_RUNNER_VALUES_H
