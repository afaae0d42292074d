//===- Passes.td - transformer passes ----------------------*- tablegen -*-===//
//
// The passes that rewrite the transformer dialect's own ops. Conversions to
// other dialects are declared apart, in Transformer/Conversion/Passes.td, as
// upstream separates Transforms and Conversion; the lowering's passes over
// upstream dialects in Transformer/Codegen/Common/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_TRANSFORMS_PASSES
#define TRANSFORMER_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TransformerShapeInferencePass
    : Pass<"transformer-shape-inference", "::mlir::ModuleOp"> {
  let summary = "Refine unranked and dynamic result types from operand types";
  let description = [{
    Walks every function and asks each op that implements
    `ShapeInferenceOpInterface` to refine its result type from its operand
    types (the same shape functions the verifiers use). A refined value that
    feeds an op outside the dialect is cast back to the type that op expects
    (`tensor.cast`), and the result types of a function that has no callers
    are updated from its `func.return`. Run `--inline` first to infer through
    calls.

    The pass fails with a diagnostic when the operands of an op contradict
    its declared result type, or when the result of a transformer op, or a
    value a transformer op reads, stays unranked (for example because a
    function argument is unranked). Other dialects' ops may keep unranked
    results (`tensor.cast` to `tensor<*xf32>` before a call of
    `printMemrefF32`).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def TransformerFuseAttentionPass
    : Pass<"transformer-fuse-attention", "::mlir::func::FuncOp"> {
  let summary = "Fuse matmul/softmax/matmul chains into transformer.attention";
  let description = [{
    Rewrites `matmul(softmax(scale(matmul(q, transpose(k)))), v)` into one
    `transformer.attention`. Recognised variants:

    - `k` transposed by `transformer.transpose` or by `transpose_b`;
    - the scale given by `transformer.scale`, or `transformer.mul` /
      `transformer.div` by a splat constant, or absent (scale 1.0); several
      scales multiply;
    - `masked_softmax` whose mask comes from `create_causal_mask` of the
      scores' shape (becomes `causal`) or is any other tensor (becomes the
      `mask` operand).

    A chain is left alone when one of its intermediate values has another
    user, so no work is duplicated.
  }];
  let dependentDialects = ["::mlir::transformer::TransformerDialect"];
}

#endif // TRANSFORMER_TRANSFORMS_PASSES
