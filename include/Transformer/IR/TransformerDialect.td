//===- TransformerDialect.td - The transformer dialect -----*- tablegen -*-===//

#ifndef TRANSFORMER_IR_TRANSFORMERDIALECT
#define TRANSFORMER_IR_TRANSFORMERDIALECT

include "mlir/IR/OpBase.td"

def Transformer_Dialect : Dialect {
  let name = "transformer";
  let summary = "Tensor-level ops for transformer models.";
  let description = [{
    The `transformer` dialect holds the building blocks of transformer models
    (matmul, softmax, attention, layer_norm, linear, gelu, embedding, rope,
    masks, ...) as ops with value semantics on ranked `f32` tensors. Every
    op accepts any number of leading batch dimensions and dynamic (`?`)
    dimensions; a result type may be written unranked (`tensor<*xf32>`) and
    refined by `--transformer-shape-inference`.

    Statically known shape mismatches are verifier errors. Mismatches that
    only show at run time (dynamic dimensions) are checked by the code that
    `--lower-transformer` generates (`cf.assert`).

    The ops lower to `linalg`, `tensor`, `arith` and `math` on tensors with
    `--lower-transformer`, and all the way to the LLVM dialect with the
    `--transformer-to-llvm` pipeline.
  }];
  let cppNamespace = "::mlir::transformer";
  let hasConstantMaterializer = 0;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // TRANSFORMER_IR_TRANSFORMERDIALECT
