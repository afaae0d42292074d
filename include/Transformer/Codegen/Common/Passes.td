//===- Passes.td - target-independent codegen passes -------*- tablegen -*-===//
//
// The passes of the lowering that never look at a transformer op: they work
// on the upstream dialects the transformer ops lower to (linalg, tensor,
// memref, bufferization, the LLVM dialect) and on the program's own
// transform scripts, for any CPU. The dialect's own rewrites are in
// Transformer/Transforms/Passes.td; the CPU strategies in
// Codegen/CPU/Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CODEGEN_COMMON_PASSES
#define TRANSFORMER_CODEGEN_COMMON_PASSES

include "mlir/Pass/PassBase.td"

def TransformerFuseElementwisePass
    : Pass<"transformer-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse element-wise linalg.generic chains, with a size bound";
  let description = [{
    Fuses a `linalg.generic` into the element-wise generic that consumes it
    (upstream's elementwise fusion patterns), when the producer has no other
    user and the fused body stays within `max-body-ops` operations. The
    bound keeps compile time linear in the length of a chain: upstream's
    `--linalg-fuse-elementwise-ops` fuses a chain of n ops into one body by
    copying an ever-growing body n times (20,000 relus took 111 s).
  }];
  let options = [
    Option<"maxBodyOps", "max-body-ops", "unsigned", /*default=*/"64",
           "Largest fused body, in operations">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TransformerLowerRuntimeChecksPass
    : Pass<"transformer-lower-runtime-checks", "::mlir::ModuleOp"> {
  let summary = "Make failed run-time checks call transformerRuntimeError";
  let description = [{
    Rewrites the run-time checks of the lowering (a `cf.assert` marked
    `transformer.runtime_check`, inside the `scf.if` of its condition, after
    the `vector.print`s of the values involved) and every other
    `cf.assert` into a call of `transformerRuntimeError(format, values...)`
    from the project's runtime library (libTransformerRuntime.so), which
    reports `message (label = value, ...)` and unwinds to the runner. Other
    `vector.print` ops are left alone: standard symbols keep their meaning.
    Runs on loops (before `--convert-scf-to-cf`).
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect"
  ];
}

def TransformerApplyEmbeddedSchedulePass
    : Pass<"transformer-apply-embedded-schedule", "::mlir::ModuleOp"> {
  let summary = "Run the program's own transform script, then remove it";
  let description = [{
    A program written as upstream's integration tests are may carry a
    transform-dialect script (`transform.named_sequence @__transform_main`,
    usually in a nested `module attributes {transform.with_named_sequence}`)
    that its test pipeline applies with `--transform-interpreter` before
    lowering. This pass does the same: it runs `@__transform_main` on the
    module, then erases the transform ops (what
    `--test-transform-dialect-erase-schedule` does upstream), so that the
    rest of the pipeline sees only the program. A module without such a
    script is left unchanged; a script that fails is reported as the
    interpreter reports it. The `--transformer-to-llvm` pipeline runs it
    first.
  }];
}

def TransformerGenerateRuntimeChecksPass
    : Pass<"transformer-generate-runtime-checks", "::mlir::ModuleOp"> {
  let summary = "Check upstream ops' operands at run time";
  let description = [{
    Asks every op that implements upstream's `RuntimeVerifiableOpInterface`
    (linalg structured ops, tensor and memref ops: sizes that must agree,
    indices and slices that must stay in bounds) to emit its run-time checks,
    as `--generate-runtime-verification` does, but with a one-line message
    that names the op and its location:

    ```
    cf.assert %ok, "linalg.generic at prog.mlir:3:8: dimension #0 of input/output operand #1 is incompatible with inferred dimension size"
    ```

    `--transformer-lower-runtime-checks` then turns the assert into a call
    of the runtime library, which transformer-run reports as `Error: run-time
    check failed: ...`. Ops in transform-dialect scripts are skipped. The
    `--transformer-to-llvm` pipeline runs this pass first at opt-level 0, and
    at the other levels with `runtime-verification=true`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

def TransformerBufferDeallocationPass
    : Pass<"transformer-buffer-deallocation", "::mlir::ModuleOp"> {
  let summary = "Free the buffers bufferization allocated, not the program's";
  let description = [{
    Runs upstream's buffer deallocation pipeline (ownership-based
    deallocation and its simplifications) on every function except those
    that free memory themselves (a `memref.dealloc` in the body): a program
    written as upstream's integration tests are, with `memref.alloc` and
    `memref.dealloc` of its own, keeps its memory management as written,
    where the ownership-based pass would reject its deallocations. A
    function that frees nothing, like one that returns the buffer it
    allocated, is handled by the pass and keeps its ABI (returned buffers
    are owned by the caller).
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def TransformerCheckLLVMLoweringPass
    : Pass<"transformer-check-llvm-lowering", "::mlir::ModuleOp"> {
  let summary = "Report what did not lower to the LLVM dialect";
  let description = [{
    The last pass of `--transformer-to-llvm`: every op must now be in the
    LLVM dialect (or the OpenMP dialect, which has its own translation). An
    op that is not, usually a `builtin.unrealized_conversion_cast` left
    between a type LLVM has and one it has not, is reported with that type,
    at the location of the op it came from:

    ```
    prog.mlir:4:8: error: 'arith.addf' op has no lowering to LLVM for type 'vector<4xf8E4M3FN>': its element type f8E4M3FN is not supported
    ```

    instead of failing later in the translation to LLVM IR with the name of
    a cast.
  }];
}

def TransformerHalfFloatMemoryAsIntegersPass
    : Pass<"transformer-half-float-memory-as-integers", "::mlir::ModuleOp"> {
  let summary = "Move 16-bit float vectors through memory as i16 where LLVM cannot";
  let description = [{
    Three kinds of vector loads and stores of `bf16` / `f16` only move bits but
    trip or slow down LLVM's x86 backend:

    - masked ones (`llvm.intr.masked.load` / `.store`, from the masked vector
      transfers at the edges of a bf16 or f16 weight): without AVX-512
      BF16/FP16 the backend legalizes the vector by widening it to `float`
      and back, a library call per element (`__truncsfbf2`, which the JIT's
      process may not even have);
    - plain `llvm.load` / `llvm.store` of a vector whose lane count is not a
      power of two (the tail of a copy 50257 wide: `vector<17xbf16>`): with
      AVX-512 BF16 the type legalizer aborts ("Do not know how to soft
      promote this operator's operand");
    - a plain `llvm.load` of a power-of-two vector used only by `llvm.store`s
      (a copy: the packing of a bf16 or f16 weight's block): without native
      16-bit float support, instruction selection promotes it to `float` lane
      by lane and folds it back, six to eight times as slow to compile as the
      same copy of f32 (a GPT-2 `@prefill` in bf16 compiled in 1.5x f32's
      time on AVX2).

    Other power-of-two loads, the kernels' own, which are computed with, keep
    their type.

    This pass, run on the LLVM dialect, makes each such load or store one of
    `i16` lanes between two `llvm.bitcast`s:

    ```mlir
    %v = llvm.intr.masked.load %p, %m, %pass {alignment = 2 : i32}
        : (!llvm.ptr, vector<16xi1>, vector<16xbf16>) -> vector<16xbf16>
    // becomes
    %i = llvm.bitcast %pass : vector<16xbf16> to vector<16xi16>
    %l = llvm.intr.masked.load %p, %m, %i {alignment = 2 : i32}
        : (!llvm.ptr, vector<16xi1>, vector<16xi16>) -> vector<16xi16>
    %v = llvm.bitcast %l : vector<16xi16> to vector<16xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TransformerLowerStridedCopiesPass
    : Pass<"transformer-lower-strided-copies", "::mlir::func::FuncOp"> {
  let summary = "Turn memref.copy between non-contiguous buffers into linalg.copy";
  let description = [{
    `--finalize-memref-to-llvm` lowers a `memref.copy` between contiguous
    buffers to a `memcpy`, but one that reads or writes a strided view (a
    column block of a matrix: `tensor.extract_slice` / `tensor.insert_slice`
    with an offset in the innermost dimension, once bufferized) to a call of
    `memrefCopy` from `libmlir_c_runner_utils`. This pass rewrites those
    copies into `linalg.copy`, which later passes turn into loops, so the
    compiled code needs no runtime library for them.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TransformerReshapeMultiDynamicExpandsPass
    : Pass<"transformer-reshape-multi-dynamic-expands", "::mlir::func::FuncOp"> {
  let summary = "Rewrite expand_shape groups of several dynamic sizes into tensor.reshape";
  let description = [{
    A `tensor.expand_shape` that splits one dimension into several dynamic
    ones (`tensor<?x8xf32>` into `tensor<?x?x8xf32>` with
    `output_shape [%b, %s, 8]`) is valid, but MLIR 22's
    `--expand-strided-metadata` crashes on the `memref.expand_shape` it
    bufferizes into. This pass, run just before bufferization, rewrites such
    an op into `tensor.reshape` with the output sizes as a shape tensor
    (which bufferizes to `memref.reshape`, copying a non-contiguous source
    first); expand_shape ops with at most one dynamic size per group are left
    alone.

    ```mlir
    %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [%b, %s, 8]
        : tensor<?x8xf32> into tensor<?x?x8xf32>
    // becomes
    %shape = tensor.from_elements %b, %s, %c8 : tensor<3xindex>
    %e = tensor.reshape %x(%shape)
        : (tensor<?x8xf32>, tensor<3xindex>) -> tensor<?x?x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TransformerStackTaskTemporariesPass
    : Pass<"transformer-stack-task-temporaries", "::mlir::func::FuncOp"> {
  let summary = "Put the small temporary buffers of parallel tasks on the stack";
  let description = [{
    A task of an `scf.forall` (a cache tile of a row op or a contraction)
    that allocates its own temporaries (`memref.alloc` of static shape in
    the forall's body, freed there: the tile-sized buffers of softmax's
    and layer_norm's chains, B's transposed blocks) would call `malloc`
    and `free` once per task on whichever thread runs it. glibc's
    allocator serializes threads on an arena's lock, and transformer-run
    keeps one arena, so the threads of a small kernel wait on each other
    (a futex sleep) in about every other call. This pass turns those
    allocations into `memref.alloca` and wraps the body in
    `memref.alloca_scope`, so that each task's stack space is released when
    it ends and a thread that runs many tasks does not grow its stack. At
    most 64 KiB per task go on the stack (the OpenMP worker threads have 4
    MiB); larger buffers, and allocations of dynamic size, stay on the heap.
    Run before the forall becomes a parallel loop.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TransformerReturnInPlaceArgumentsPass
    : Pass<"transformer-return-in-place-arguments", "::mlir::ModuleOp"> {
  let summary = "Return an argument marked transformer.in_place without a copy";
  let description = [{
    Runs after the buffer deallocation pipeline. A public function returns
    buffers its caller owns, so a returned buffer that is one of the
    function's arguments is cloned (`bufferization.clone`, later alloc +
    copy): for a GPT-2 `@decode` step that is a copy of the whole KV cache
    per token. An argument with the unit attribute `transformer.in_place`
    opts out: the function writes that argument's buffer in place, and a
    clone of it that is only returned is replaced by the argument itself, so
    the result aliases the argument (transformer-run hands the caller the
    input's storage as the result; a C caller must not free it twice).

    ```mlir
    func.func @decode(..., %cache: tensor<...> {transformer.in_place}) -> (..., tensor<...>)
    ```
  }];
}

def TransformerOutlineKernelsPass
    : Pass<"transformer-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Move compute groups into kernel functions, one per distinct kernel";
  let description = [{
    Moves each group of linalg ops on tensors into a private function (a
    kernel, marked `transformer.kernel` and `no_inline`) and replaces the
    group with a `func.call`. Functions that are structurally equal (same
    ops, types and attributes: `OperationEquivalence`) are created once, so
    the layers of a model share their kernels and LLVM compiles each one
    once, as IREE deduplicates its dispatches. An op marked with
    the unit attribute `transformer.kernel_root` (vector code written on
    tensors, such as the contraction prep's few-rows forms) is a kernel of
    its own, with everything nested in it; the values it uses from above
    become arguments.

    A group is one linalg op, or a contraction with the chain of
    element-wise ops that only it feeds (bias, activation, residual, a gated
    product), so that tiling can still fuse them; when an op of that chain
    also reads another contraction of the same A directly (a gated MLP's
    `silu(x gate) * (x up)`), that contraction joins the group (with an
    operand made for it alone, such as its dequantized weight), for the CPU
    pipeline to compute both in the same cache tiles. A contraction is what
    `linalg::isaContractionOpInterface` accepts, or any op that multiplies
    its two inputs and accumulates into its init along a reduction, whatever
    its maps (a weight read in the CPU's register panels). A `linalg.fill` or a
    broadcast that only initialises results is cloned into the kernels it
    initialises. The kernel recomputes `tensor.empty`, `tensor.dim`, slices,
    reshapes, casts, scalar and splat constants and constants of up to
    `max-cloned-constant-elements` elements; it takes every other value it
    uses (tensors, dynamic sizes, scalars, larger constants) as an argument.
  }];
  let options = [
    Option<"maxClonedConstantElements", "max-cloned-constant-elements",
           "int64_t", /*default=*/"64",
           "Largest non-splat constant cloned into a kernel; larger ones are "
           "passed as arguments">
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // TRANSFORMER_CODEGEN_COMMON_PASSES
