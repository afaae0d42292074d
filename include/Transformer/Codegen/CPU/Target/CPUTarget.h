//===- CPUTarget.h - The CPU that code is generated for ---------*- C++ -*-===//
//
// One description of the machine the CPU codegen targets: its ISA features,
// vector width and register count, cache sizes and cores. It comes from the
// host by default, or from an LLVM CPU name and feature list as llc's
// -mcpu/-mattr take them (`target-cpu`/`target-features` pipeline options,
// transformer-run's --target-cpu/--target-features), so that code for
// another machine can be built and inspected here.
//
// It is resolved once, at the start of the pipeline, and recorded on the
// module as the `transformer.target` attribute; the codegen passes read it
// from there, and every tile size derives from it (contractionRegisterTile,
// contractionCacheTile, f32Lanes).
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CODEGEN_CPU_TARGET_CPUTARGET_H
#define TRANSFORMER_CODEGEN_CPU_TARGET_CPUTARGET_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::transformer {

/// The module attribute that records the target (a dictionary; see
/// CPUTarget::toAttr). Verified by the dialect.
inline constexpr llvm::StringLiteral kTargetAttrName = "transformer.target";

/// A register tile of a contraction: `m` rows of C by `n` columns (a multiple
/// of the vector lanes), accumulated in registers across the k loop.
struct RegisterTile {
  int64_t m = 0, n = 0;
};

/// The most rows of a contraction's register tile. Two FMA pipes with a
/// latency of 4 cycles keep 8 accumulators in flight; 8 rows of two vectors
/// (16 accumulators) hide that twice over, and more rows would only lengthen
/// the remainder of an m that is not a multiple of them.
constexpr int64_t kMaxRegisterTileRows = 8;

/// A cache tile: `m` x `n` of C per unit of work for the threads, `k` the
/// depth of one block of A and B.
struct CacheTile {
  int64_t m = 0, n = 0, k = 0;
};

struct CPUTarget {
  /// LLVM's name of the CPU (`znver3`, `skylake-avx512`, ...).
  std::string cpu;
  /// Every feature as LLVM's subtarget takes it (`+avx2`, `-avx512f`, ...):
  /// what the JIT compiles for.
  std::vector<std::string> llvmFeatures;
  /// Whether the description is the host's (no --target-cpu/--target-features).
  bool isHost = true;

  bool hasAVX512 = false, hasAVX2 = false, hasFMA = false, hasVNNI = false,
       hasBF16 = false, hasAMX = false;
  /// Width of the vector registers codegen uses, and how many there are.
  unsigned vectorBits = 128;
  unsigned vectorRegisters = 16;
  /// Data cache sizes in bytes (L2 and L3 as one core sees them).
  uint64_t l1dBytes = 32 * 1024, l2Bytes = 1024 * 1024,
           l3Bytes = 32 * 1024 * 1024;
  /// Cores the generated code may use, and the threads it is built for.
  unsigned cores = 1;
  unsigned threads = 1;

  /// The host, as LLVM and the OS describe it.
  static const CPUTarget &host();

  /// The target named by an LLVM CPU name (empty or "host": the host's) with
  /// `features` applied on top ("+avx512f,-avx512bf16", implied features
  /// follow), built for `threads` threads (0: every core). Fails with a
  /// one-line message on an unknown CPU or feature.
  static llvm::Expected<CPUTarget>
  resolve(llvm::StringRef cpu, llvm::StringRef features, unsigned threads);

  /// The target recorded on `op`'s module (or `op` itself when it is the
  /// module), or the host's when none is.
  static CPUTarget forOp(Operation *op);

  /// The dictionary recorded as kTargetAttrName.
  DictionaryAttr toAttr(MLIRContext *context) const;
  /// Reads a dictionary made by toAttr; reports what is wrong through
  /// `emitError` otherwise.
  static FailureOr<CPUTarget>
  fromAttr(DictionaryAttr attr, function_ref<InFlightDiagnostic()> emitError);

  /// Features of this target that the host lacks: code built for it would
  /// stop on an illegal instruction here.
  std::vector<std::string> featuresMissingOnHost() const;

  /// f32 values per vector register.
  int64_t f32Lanes() const { return vectorBits / 32; }
  /// The contraction's register tile: two vectors along n, and as many rows
  /// (up to kMaxRegisterTileRows) as leave registers for B's two vectors and
  /// A's broadcast: 8 x 32 with 32 zmm registers, 6 x 16 with 16 ymm.
  RegisterTile contractionRegisterTile() const;
  /// The contraction's cache tile: k such that a register tile's packed
  /// panel of B (k x n) fills at most two thirds of the L1, n such that a k x n
  /// block of B fills at most half the L2.
  CacheTile contractionCacheTile() const;

  /// What --print-target shows: the facts and the tiles derived from them.
  void print(llvm::raw_ostream &os) const;
};

} // namespace mlir::transformer

#endif // TRANSFORMER_CODEGEN_CPU_TARGET_CPUTARGET_H
