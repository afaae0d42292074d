//===- TransformerOps.td - transformer dialect ops ---------*- tablegen -*-===//
//
// The ops of the `transformer` dialect. Names, operand order, attribute names
// and assembly formats follow ../shared/dialect-contract.md exactly.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_IR_TRANSFORMEROPS
#define TRANSFORMER_IR_TRANSFORMEROPS

include "Transformer/IR/TransformerDialect.td"
include "Transformer/Interfaces/ShapeInferenceInterface.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// Ranked or unranked tensor of f32. Operands are normally ranked; unranked
/// values appear between ops before `--transformer-shape-inference` runs.
def Transformer_FloatTensor : TensorOf<[F32]>;
/// A weight: f32, or bf16/f16 read by f32 code (the contractions and the
/// embedding widen each element to f32 where they load it; results and
/// accumulation stay f32).
def Transformer_WeightTensor : TensorOf<[F32, F16, BF16]>;
/// Block-quantized weights: the raw bytes of ggml's blocks, one block of 32
/// weights per innermost row.
def Transformer_BlockTensor : TensorOf<[I8]>;
/// Token ids for `transformer.embedding`.
def Transformer_IdTensor : TensorOf<[I32, I64]>;

/// ggml's block formats: 32 weights along the reduction dimension share one
/// f16 scale.
def Transformer_BlockFormatQ8_0 : I32EnumAttrCase<"q8_0", 0>;
def Transformer_BlockFormatQ4_0 : I32EnumAttrCase<"q4_0", 1>;
def Transformer_BlockFormat
    : I32EnumAttr<"BlockFormat", "a block-quantized weight format (ggml's)",
                  [Transformer_BlockFormatQ8_0, Transformer_BlockFormatQ4_0]> {
  let cppNamespace = "::mlir::transformer";
}

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

/// Every op is pure, declares the shape inference interface and is verified
/// by its own shape function (`inferResultType`), so that the verifier and
/// `--transformer-shape-inference` share one implementation.
class Transformer_Op<string mnemonic, list<Trait> traits = []>
    : Op<Transformer_Dialect, mnemonic,
         !listconcat([Pure, DeclareOpInterfaceMethods<ShapeInferenceOpInterface,
                                                      ["inferResultType"]>],
                     traits)> {
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::verify() {
      return ::mlir::transformer::verifyInferredResultType(
          getOperation(), ::llvm::cast<ShapeInferenceOpInterface>(getOperation()));
    }
  }];
}

class Transformer_UnaryOp<string mnemonic, list<Trait> traits = []>
    : Transformer_Op<mnemonic, traits> {
  let arguments = (ins Transformer_FloatTensor:$input);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($result)";
}

class Transformer_BinaryOp<string mnemonic, string what, string symbol,
                           list<Trait> traits = []>
    : Transformer_Op<mnemonic, traits> {
  let summary = "element-wise " # what # " with numpy broadcasting";
  let description = [{
    Computes `lhs }] # symbol # [{ rhs` element by element. The operands
    broadcast by numpy's rules: shapes are aligned at the trailing dimension
    and a dimension of size 1 stretches to the other operand's size. A
    dynamic dimension never broadcasts: it must equal the other operand's
    dimension at run time, which the lowered code checks.

    Example:

    ```mlir
    %c = transformer.}] # mnemonic # [{ %a, %b
        : tensor<2x8x64xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins Transformer_FloatTensor:$lhs,
                       Transformer_FloatTensor:$rhs);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Transformer_MatmulOp : Transformer_Op<"matmul"> {
  let summary = "batched matrix product";
  let description = [{
    `%a` is `..xMxK` and `%b` is `..xKxN` (or `..xNxK` with the unit
    attribute `transpose_b`); the result is `..xMxN`. Both operands have rank
    2 or more. Their leading batch dimensions are equal, or `%b` has rank 2
    and is broadcast over the batch of `%a`.

    `%b` may be `bf16` or `f16` (a weight stored in 16 bits): each element
    is widened to f32 where it is read, and the product and its sums are f32.

    Example:

    ```mlir
    %c = transformer.matmul %a, %b
        : tensor<2x8x16x64xf32>, tensor<2x8x64x16xf32> -> tensor<2x8x16x16xf32>
    %s = transformer.matmul %q, %k {transpose_b}
        : tensor<16x64xf32>, tensor<32x64xf32> -> tensor<16x32xf32>
    ```
  }];
  let arguments = (ins Transformer_FloatTensor:$lhs,
                       Transformer_WeightTensor:$rhs,
                       UnitAttr:$transpose_b);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasCanonicalizer = 1;
}

def Transformer_DequantizeOp : Transformer_Op<"dequantize"> {
  let summary = "expands block-quantized weights (ggml's Q8_0, Q4_0) to f32";
  let description = [{
    `%input` is `..xNxBxS` of `i8`: for each of the `..xN` rows, `B` blocks
    of `S` bytes, laid out exactly as ggml stores them (GGUF files, llama.cpp).
    The result is `..xNx(32*B)` of f32: block `b` gives elements
    `32*b .. 32*b+31` of its row, each `f32(d) * q` with `d` the block's
    scale.

    - `q8_0`: `S = 34`; an f16 scale `d` (little-endian), then 32 signed
      bytes `q`.
    - `q4_0`: `S = 18`; an f16 scale `d`, then 16 bytes: byte `j` holds
      element `j` in its low nibble and element `j + 16` in its high nibble,
      each stored as `q + 8` (so `q` is in `[-8, 7]`).

    The blocks run along the row, the reduction dimension of the weight's
    consumer: `transformer.matmul` with `transpose_b` (and `transformer.linear`)
    take an `NxK` weight, `transformer.embedding` a `VxD` table. Consumed by
    them, the op is fused into their kernels: the decode kernels expand each
    block in registers, the embedding expands the rows it gathers; no f32 copy
    of the weights is made there. A row length that is not a multiple of 32
    cannot be expressed: the verifier names the block size.

    Example:

    ```mlir
    %w = transformer.dequantize q8_0 %blocks
        : tensor<2304x24x34xi8> -> tensor<2304x768xf32>
    %y = transformer.matmul %x, %w {transpose_b}
        : tensor<1x768xf32>, tensor<2304x768xf32> -> tensor<1x2304xf32>
    ```
  }];
  let arguments = (ins Transformer_BlockTensor:$input,
                       Transformer_BlockFormat:$format);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat = [{
    $format $input attr-dict `:` type($input) `->` type($result)
  }];
}

def Transformer_TransposeOp : Transformer_Op<"transpose"> {
  let summary = "swaps the last two dimensions, or permutes all of them";
  let description = [{
    Without `permutation`, swaps the last two dimensions of a tensor of rank
    2 or more. With `permutation = array<i64: ...>`, result dimension `i` is
    input dimension `permutation[i]`; the array must be a permutation of
    `0 .. rank-1`.

    Example:

    ```mlir
    %kt = transformer.transpose %k : tensor<2x16x64xf32> -> tensor<2x64x16xf32>
    %h = transformer.transpose %x {permutation = array<i64: 0, 2, 1, 3>}
        : tensor<1x16x12x64xf32> -> tensor<1x12x16x64xf32>
    ```
  }];
  let arguments = (ins Transformer_FloatTensor:$input,
                       OptionalAttr<DenseI64ArrayAttr>:$permutation);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($result)";
  let extraClassDeclaration = [{
    /// The permutation this op applies for an input of rank `rank`: the
    /// `permutation` attribute, or a swap of the last two dimensions.
    ::llvm::SmallVector<int64_t> getEffectivePermutation(int64_t rank);
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Transformer_LinearOp : Transformer_Op<"linear"> {
  let summary = "fully connected layer, `x @ w^T + b`";
  let description = [{
    PyTorch's `nn.Linear`: `%x` is `..xK`, the weight `%w` is `NxK`, the bias
    `%b` is `N`, and the result is `..xN`.

    The weight may be `bf16` or `f16`: each element is widened to f32 where
    it is read (no f32 copy of the weight is made), and the products and
    their sums are f32.

    Example:

    ```mlir
    %y = transformer.linear %x, %w, %b
        : tensor<4x16x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>
        -> tensor<4x16x3072xf32>
    ```
  }];
  let arguments = (ins Transformer_FloatTensor:$input,
                       Transformer_WeightTensor:$weight,
                       Transformer_FloatTensor:$bias);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight `,` $bias attr-dict `:` type($input) `,` type($weight)
    `,` type($bias) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Element-wise ops
//===----------------------------------------------------------------------===//

def Transformer_ScaleOp : Transformer_Op<"scale"> {
  let summary = "multiplies every element by a constant";
  let description = [{
    Example:

    ```mlir
    %y = transformer.scale %x {factor = 0.125 : f32}
        : tensor<8x16x16xf32> -> tensor<8x16x16xf32>
    ```
  }];
  let arguments = (ins Transformer_FloatTensor:$input, F32Attr:$factor);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Transformer_AddOp : Transformer_BinaryOp<"add", "addition", "+"> {
  let hasFolder = 1;
}
def Transformer_SubOp : Transformer_BinaryOp<"sub", "subtraction", "-">;
def Transformer_MulOp : Transformer_BinaryOp<"mul", "multiplication", "*"> {
  let hasFolder = 1;
}
def Transformer_DivOp : Transformer_BinaryOp<"div", "division", "/">;

def Transformer_ReluOp : Transformer_UnaryOp<"relu"> {
  let summary = "rectified linear unit, `max(x, 0)`";
  let description = [{
    Example:

    ```mlir
    %y = transformer.relu %x : tensor<4x64xf32> -> tensor<4x64xf32>
    ```
  }];
}

def Transformer_GeluOp : Transformer_Op<"gelu"> {
  let summary = "Gaussian error linear unit";
  let description = [{
    With the default `approximate = "tanh"`, the tanh approximation used by
    GPT-2: `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`. With
    `approximate = "none"`, the exact form `0.5 x (1 + erf(x / sqrt(2)))`.
    Any other value is rejected.

    Example:

    ```mlir
    %y = transformer.gelu %x : tensor<4x3072xf32> -> tensor<4x3072xf32>
    %z = transformer.gelu %x {approximate = "none"}
        : tensor<4x3072xf32> -> tensor<4x3072xf32>
    ```
  }];
  let arguments = (ins Transformer_FloatTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "tanh">:$approximate);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($result)";
}

def Transformer_SiluOp : Transformer_UnaryOp<"silu"> {
  let summary = "sigmoid linear unit, `x * sigmoid(x)`";
  let description = [{
    `x / (1 + exp(-x))` element by element (PyTorch's `nn.SiLU`, the
    activation of the gated MLPs of Llama-family models:
    `down(silu(gate(x)) * up(x))`).

    Example:

    ```mlir
    %y = transformer.silu %x : tensor<4x4864xf32> -> tensor<4x4864xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

def Transformer_SoftmaxOp : Transformer_UnaryOp<"softmax"> {
  let summary = "numerically stable softmax over the last dimension";
  let description = [{
    `exp(x - max(x)) / sum(exp(x - max(x)))` along the last dimension.

    Example:

    ```mlir
    %p = transformer.softmax %s : tensor<8x16x16xf32> -> tensor<8x16x16xf32>
    ```
  }];
}

def Transformer_MaskedSoftmaxOp : Transformer_Op<"masked_softmax"> {
  let summary = "softmax of `x + mask` over the last dimension";
  let description = [{
    Adds the additive `mask` (which broadcasts to the shape of `x` by numpy's
    rules and may not enlarge it) and takes the softmax over the last
    dimension. A row in which every element is `-inf` gives zeros, not NaN.
    Both operands have rank 2 or more.

    Example:

    ```mlir
    %m = transformer.create_causal_mask : tensor<16x16xf32>
    %p = transformer.masked_softmax %s, %m
        : tensor<8x16x16xf32>, tensor<16x16xf32> -> tensor<8x16x16xf32>
    ```
  }];
  let arguments = (ins Transformer_FloatTensor:$input,
                       Transformer_FloatTensor:$mask);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $mask attr-dict `:` type($input) `,` type($mask) `->` type($result)
  }];
  let hasCanonicalizer = 1;
}

def Transformer_LayerNormOp : Transformer_Op<"layer_norm"> {
  let summary = "layer normalisation over the last dimension";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * gamma + beta` over the last dimension
    `D` of `x`, with the biased variance (as PyTorch's `nn.LayerNorm`).
    `gamma` and `beta` are rank-1 tensors of size `D`. `epsilon` defaults to
    `1.0e-05` and may not be negative.

    Example:

    ```mlir
    %y = transformer.layer_norm %x, %gamma, %beta {epsilon = 1.0e-05 : f32}
        : tensor<4x16x768xf32>, tensor<768xf32>, tensor<768xf32>
        -> tensor<4x16x768xf32>
    ```
  }];
  let arguments = (ins Transformer_FloatTensor:$input,
                       Transformer_FloatTensor:$gamma,
                       Transformer_FloatTensor:$beta,
                       DefaultValuedAttr<F32Attr, "1.0e-05">:$epsilon);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta attr-dict `:` type($input) `,` type($gamma)
    `,` type($beta) `->` type($result)
  }];
}

def Transformer_RmsNormOp : Transformer_Op<"rms_norm"> {
  let summary = "root-mean-square normalisation over the last dimension";
  let description = [{
    `x * rsqrt(mean(x^2) + epsilon) * gamma` over the last dimension `D` of
    `x` (Llama's `RMSNorm`; no centring, no bias). `gamma` is a rank-1 tensor
    of size `D`. `epsilon` defaults to `1.0e-06` and may not be negative.

    Example:

    ```mlir
    %y = transformer.rms_norm %x, %gamma {epsilon = 1.0e-05 : f32}
        : tensor<1x16x896xf32>, tensor<896xf32> -> tensor<1x16x896xf32>
    ```
  }];
  let arguments = (ins Transformer_FloatTensor:$input,
                       Transformer_FloatTensor:$gamma,
                       DefaultValuedAttr<F32Attr, "1.0e-06">:$epsilon);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $gamma attr-dict `:` type($input) `,` type($gamma) `->`
    type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Embeddings and positions
//===----------------------------------------------------------------------===//

def Transformer_EmbeddingOp : Transformer_Op<"embedding"> {
  let summary = "looks up rows of an embedding table";
  let description = [{
    For ids of shape `..` (`i32` or `i64`) and a table `VxD`, the result
    `..xD` holds row `ids[..]` of the table. An id outside `[0, V)` stops the
    program at run time with a message; it is never read out of bounds.
    The table may be `bf16` or `f16`; the rows it gives are widened to f32.

    Example:

    ```mlir
    %e = transformer.embedding %ids, %wte
        : tensor<1x16xi32>, tensor<50257x768xf32> -> tensor<1x16x768xf32>
    ```
  }];
  let arguments = (ins Transformer_IdTensor:$ids,
                       Transformer_WeightTensor:$table);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat = [{
    $ids `,` $table attr-dict `:` type($ids) `,` type($table) `->` type($result)
  }];
}

def Transformer_RopeOp
    : Transformer_Op<"rope", [AttrSizedOperandSegments]> {
  let summary = "rotary position embedding";
  let description = [{
    For `x` of shape `..xSxD` (`D` even), rotates each pair of the row at
    position `p` by the angle `p * theta_j`, `j` in `[0, D/2)`:

    - by default the interleaved pairs `(x[2j], x[2j+1])` (GPT-J, the
      contract's original form);
    - with the unit attribute `rotate_half`, the pairs `(x[j], x[j + D/2])`
      (Hugging Face's `rotate_half`: Llama, Qwen2, Mistral).

    `theta_j = base^(-2j/D)` (`base` defaults to `10000.0`), or, when the
    optional operand `freqs(%f : tensor<D/2 x f32>)` is given, `theta_j =
    f[j]`: a table of inverse frequencies that carries any frequency scaling
    (linear, Llama 3's), computed once by whoever builds the program; `base`
    is then unused. Positions run `0 .. S-1`, or `offset .. offset+S-1` when
    an `index` offset is given with `at` (decoding with a KV cache). A
    negative offset stops the program at run time.

    Example:

    ```mlir
    %y = transformer.rope %x : tensor<1x12x16x64xf32> -> tensor<1x12x16x64xf32>
    %z = transformer.rope %x at %pos {base = 500000.0 : f32}
        : tensor<1x12x1x64xf32> -> tensor<1x12x1x64xf32>
    %w = transformer.rope %x at %pos freqs(%inv : tensor<32xf32>) {rotate_half}
        : tensor<1x14x1x64xf32> -> tensor<1x14x1x64xf32>
    ```
  }];
  let arguments = (ins Transformer_FloatTensor:$input,
                       Optional<Index>:$offset,
                       Optional<Transformer_FloatTensor>:$freqs,
                       DefaultValuedAttr<F32Attr, "10000.0">:$base,
                       UnitAttr:$rotate_half);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`at` $offset^)? (`freqs` `(` $freqs^ `:` type($freqs) `)`)?
    attr-dict `:` type($input) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Masks and attention
//===----------------------------------------------------------------------===//

def Transformer_CreateCausalMaskOp : Transformer_Op<"create_causal_mask"> {
  let summary = "an additive causal mask";
  let description = [{
    Produces a statically shaped `..xSqxSk` tensor that is `0` where key `j`
    may be seen by query `i` (`j <= i + Sk - Sq`, aligned bottom-right as in
    decoding with a KV cache) and `-inf` elsewhere. Leading dimensions repeat
    the same mask.

    The optional `window = W` (W >= 1) also hides the keys that are `W` or
    more positions behind the query: with `i' = i + Sk - Sq`, key `j` is
    seen iff `i' - W < j <= i'` (sliding-window attention).

    Example:

    ```mlir
    %m = transformer.create_causal_mask : tensor<16x16xf32>
    %w = transformer.create_causal_mask {window = 4 : i64} : tensor<16x16xf32>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$window);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Transformer_AttentionOp : Transformer_Op<"attention"> {
  let summary = "scaled dot-product attention";
  let description = [{
    `softmax(q k^T * scale + mask) v` for `q: ..xSqxD`, `k: ..xSkxD`,
    `v: ..xSkxDv`, giving `..xSqxDv`. The batch dimensions of `q`, `k` and `v`
    are equal, except that with rank 4 or more the heads (the dimension
    before the sequence) of `k` and `v` may divide those of `q`: grouped-query
    attention, where query head `h` of `H` reads key/value head
    `h / (H / Hkv)` of `Hkv` (Hugging Face's `repeat_kv`), without a copy of
    the keys and values per query head.

    - `scale` defaults to `1/sqrt(D)`.
    - The unit attribute `causal` hides key `j` from query `i` when
      `j > i + Sk - Sq` (the rule of `create_causal_mask`).
    - `window = W` (W >= 1, only with `causal`): sliding-window attention;
      with `i' = i + Sk - Sq`, query `i` sees key `j` iff `i' - W < j <= i'`.
    - The optional `mask(%m : type)` operand is an additive mask that
      broadcasts to `..xSqxSk`.

    A query row whose keys are all masked gives zeros (as `masked_softmax`).

    Example:

    ```mlir
    %o = transformer.attention %q, %k, %v {causal}
        : tensor<1x12x16x64xf32>, tensor<1x12x16x64xf32>, tensor<1x12x16x64xf32>
        -> tensor<1x12x16x64xf32>
    %p = transformer.attention %q, %k, %v mask(%m : tensor<9x12xf32>)
        {scale = 0.125 : f32} : tensor<9x64xf32>, tensor<12x64xf32>,
        tensor<12x64xf32> -> tensor<9x64xf32>
    %s = transformer.attention %q, %k, %v {causal, window = 256 : i64}
        : tensor<4096x64xf32>, tensor<4096x64xf32>, tensor<4096x64xf32>
        -> tensor<4096x64xf32>
    %g = transformer.attention %q, %k, %v {causal}
        : tensor<1x14x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
        -> tensor<1x14x16x64xf32>
    ```
  }];
  let arguments = (ins Transformer_FloatTensor:$query,
                       Transformer_FloatTensor:$key,
                       Transformer_FloatTensor:$value,
                       Optional<Transformer_FloatTensor>:$mask,
                       OptionalAttr<F32Attr>:$scale,
                       UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$window);
  let results = (outs Transformer_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `->`
    type($result)
  }];
  let extraClassDeclaration = [{
    /// The scale applied to `q k^T`: the `scale` attribute, or 1/sqrt(D)
    /// when D is static. Returns std::nullopt when neither is known.
    std::optional<float> getEffectiveScale();
  }];
}

#endif // TRANSFORMER_IR_TRANSFORMEROPS
