//===- TransformerCanonicalize.td - DRR canonicalizations --*- tablegen -*-===//
//
// Declarative rewrite rules run by `--canonicalize`. The identity rewrites
// (transpose by the identity, scale by 1.0, add of zeros, mul by ones) are
// folders in TransformerOps.cpp; these are the rewrites that build new ops.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CANONICALIZE
#define TRANSFORMER_CANONICALIZE

include "mlir/IR/PatternBase.td"
include "Transformer/IR/TransformerOps.td"

def HasRankedType : Constraint<
    CPred<"::llvm::isa<::mlir::RankedTensorType>($0.getType())">,
    "has a ranked type">;

def IsZeroSplat : Constraint<CPred<"isSplatConstant($0, 0.0)">,
                             "is a splat constant of zeros">;

def IsUnset : Constraint<CPred<"!$0">, "attribute is unset">;

/// The permutation swaps the last two dimensions of `$0` (an unset
/// permutation always does).
def SwapsLastTwoDims : Constraint<CPred<"swapsLastTwoDims($0, $1)">,
                                  "permutation swaps the last two dims">;

def ComposePermutations : NativeCodeCall<
    "composePermutations($_builder, $0, $1, $2)">;

def MultiplyFactors : NativeCodeCall<
    "$_builder.getF32FloatAttr($0.getValue().convertToFloat() * "
    "$1.getValue().convertToFloat())">;

def SetUnitAttr : NativeCodeCall<"$_builder.getUnitAttr()">;

// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2). An identity
// composition is then removed by TransposeOp::fold.
def TransposeTransposeOptPattern : Pat<
    (Transformer_TransposeOp (Transformer_TransposeOp $x, $p1), $p2),
    (Transformer_TransposeOp $x, (ComposePermutations $x, $p1, $p2)),
    [(HasRankedType $x)]>;

// scale(scale(x, a), b) -> scale(x, a * b).
def ScaleScaleOptPattern : Pat<
    (Transformer_ScaleOp (Transformer_ScaleOp $x, $a), $b),
    (Transformer_ScaleOp $x, (MultiplyFactors $a, $b))>;

// matmul(a, transpose(b)) -> matmul(a, b) {transpose_b}.
def MatmulTransposeBOptPattern : Pat<
    (Transformer_MatmulOp $a, (Transformer_TransposeOp $b, $perm), $tb),
    (Transformer_MatmulOp $a, $b, (SetUnitAttr)),
    [(IsUnset $tb), (SwapsLastTwoDims $b, $perm)]>;

// masked_softmax(x, zeros) -> softmax(x).
def MaskedSoftmaxZeroMaskOptPattern : Pat<
    (Transformer_MaskedSoftmaxOp $x, $mask),
    (Transformer_SoftmaxOp $x),
    [(IsZeroSplat $mask)]>;

#endif // TRANSFORMER_CANONICALIZE
