//===- Passes.td - transformer conversion passes -----------*- tablegen -*-===//
//
// The passes that convert the transformer dialect into other dialects, kept
// apart from the dialect's own transformations as upstream's
// mlir/Conversion/Passes.td is. Each pass keeps its code in
// lib/Conversion/<Name>.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CONVERSION_PASSES
#define TRANSFORMER_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// TransformerToLinalg
//===----------------------------------------------------------------------===//

def ConvertTransformerToLinalgPass : Pass<"lower-transformer"> {
  let summary = "Lower transformer ops to linalg, tensor, arith and math";
  let description = [{
    Replaces every `transformer` op with `linalg` ops on tensors (plus
    `tensor`, `arith`, `math`), for static and dynamic shapes. Dimensions
    that are only known at run time are checked with `cf.assert` (matmul
    inner dimensions, broadcasting, attention sequence lengths, embedding ids
    in range, a non-negative rope offset). A failed check prints the values
    involved with `vector.print` before the assertion fails.
    `--convert-transformer-to-linalg`
    is an alias of this flag.

    Ops with unranked types are rejected: run `--transformer-shape-inference`
    first.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // TRANSFORMER_CONVERSION_PASSES
