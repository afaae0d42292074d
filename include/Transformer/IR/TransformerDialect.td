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

    Two discardable attributes belong to the dialect's CPU code generation
    and are verified wherever they appear:

    * `transformer.target` on a module: the CPU the code is built for, a
      dictionary `{cpu = "znver4", isa = ["avx512f", "avx2", "fma"],
      vector_bits = 512, vector_registers = 32, l1d = 32768, l2 = 1048576,
      l3 = 33554432, cores = 2, threads = 2}` (sizes in bytes), recorded by
      `--transformer-cpu-select-target` and read by every codegen pass.
    * `transformer.contraction` on a linalg op: the CPU schedule's tag, one
      of `mnk`, `bmnk`, `mnk_tile`, `bmnk_tile`, `mnk_panel`, `transpose`,
      `btranspose`, `transpose_tile`, `btranspose_tile`, `epilogue`,
      `bepilogue`, `dequantize` and `panels`.

    A function argument may carry the unit attribute `transformer.constant`:
    the caller passes the same, unchanged data on every call (a model's
    weights), so that `--transformer-cpu-cache-constant-weights` prepares
    it once. It is verified to be a unit attribute on an argument of a
    function.
  }];
  let cppNamespace = "::mlir::transformer";
  let hasConstantMaterializer = 0;
  // `transformer.target` (the CPU the codegen builds for) and
  // `transformer.contraction` (the CPU schedule's tags) are verified wherever
  // they appear.
  let hasOperationAttrVerify = 1;
  // `transformer.constant` on a function argument.
  let hasRegionArgAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // TRANSFORMER_IR_TRANSFORMERDIALECT
