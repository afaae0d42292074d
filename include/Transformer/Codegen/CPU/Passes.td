//===- Passes.td - CPU code generation passes --------------*- tablegen -*-===//
//
// The passes that turn linalg into fast CPU code at -O2 and up. The tiling
// decisions themselves live in transform-dialect schedules
// (lib/Codegen/CPU/Contraction/Schedules/*.mlir), which these passes apply.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_CODEGEN_CPU_PASSES
#define TRANSFORMER_CODEGEN_CPU_PASSES

include "mlir/Pass/PassBase.td"

def TransformerCPUSelectTargetPass
    : Pass<"transformer-cpu-select-target", "::mlir::ModuleOp"> {
  let summary = "Record the CPU the code is built for on the module";
  let description = [{
    Resolves the target CPU once, from the host (LLVM's host CPU name and
    features, the OS's cache sizes and core count) or from an LLVM CPU name
    and feature list as llc's `-mcpu`/`-mattr` take them, and records it on
    the module as the `transformer.target` attribute (see the dialect's
    description). Every CPU codegen pass after it reads the attribute: the
    contraction's register and cache tiles, the vector width of the dot
    kernels and the transform schedule's sizes derive from it. A module
    without the attribute is built for the host.

    Example: `--transformer-cpu-select-target="cpu=haswell"` records
    `{cpu = "haswell", isa = ["avx2", "fma"], vector_bits = 256,
    vector_registers = 16, ...}`; the contraction then gets 6 x 16 register
    tiles instead of AVX-512's 8 x 32.
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"\"",
           "LLVM CPU name (znver4, skylake-avx512, haswell, ...); empty or "
           "'host': the host">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Features added to or removed from the CPU's, comma-separated "
           "(+avx512f,-avx512bf16); implied features follow">,
    Option<"threads", "threads", "unsigned", /*default=*/"0",
           "Threads the code is built for (0: every core)">,
  ];
}

def TransformerCPUPanelParametersPass
    : Pass<"transformer-cpu-panel-parameters", "::mlir::ModuleOp"> {
  let summary = "Have the caller bind plain-B weights in the register "
                "tile's panels";
  let description = [{
    A weight bound by name (`transformer.parameter = "NAME"`, static f32,
    bf16 or f16 `[k, n]` with n a multiple of the target's register tile
    width r) whose every reader is the B of a plain contraction (`C[m, n] +=
    A[m, k] * B[k, n]` with f32 A and C, a 16-bit B widened in the body;
    the `linear` of a Llama projection bound transposed or of GPT-2's Conv1D
    weights) is passed laid out in panels instead:
    `[n / r, k, r]`, each register tile's r columns contiguous down k. The
    register tiles then read B in place on every call, where they would
    otherwise copy B's k blocks and panels on each call, and no cached copy
    is kept beside the bound weight (as
    `--transformer-cpu-cache-constant-weights` keeps for weights given
    `[n, k]`).

    This changes what the caller must pass, not the function's type: the
    argument keeps its type, and gets `transformer.panels = r`; the module
    gets `transformer.panel_parameters = {FUNCTION = array<i64: ...>}`, one
    width per argument (0: as the type says), which survives lowering to
    the LLVM dialect. transformer-run runs the pass when it binds
    `--parameters` and writes those weights in panels as it binds them; the
    pipelines leave it off by default (`panel-parameters=false`), since a
    caller that does not know of it would pass `[k, n]`.

    Each function that reads such a weight views the argument's buffer as
    the panels (`bufferization.to_buffer`, `memref.reinterpret_cast`,
    `bufferization.to_tensor`) and its contractions read B as
    `(n floordiv r, k, n mod r)`. A private function's argument is treated
    so when every call passes it such a weight (a model's layer function);
    calls pass the argument as it is, with its type. `--transformer-cpu-prepare-contractions` then gives the few-rows
    contractions the row form over the panels and
    `--transformer-cpu-panel-contractions` the cache tiles that read them
    in place. A weight with any other reader (a gather, a transposed
    product, a call of a public function) keeps its layout.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def TransformerCPUCacheConstantWeightsPass
    : Pass<"transformer-cpu-cache-constant-weights", "::mlir::ModuleOp"> {
  let summary = "Make the transposed copy of a constant weight once, not on "
                "every call";
  let description = [{
    A contraction whose B is given n x k (`transformer.linear`'s weight,
    `matmul {transpose_b}`) reads a transposed copy that
    `--transformer-cpu-prepare-contractions` makes on every call (a
    `linalg.transpose` tagged `transformer.contraction = "transpose"`).
    When B is an argument of the function that is the same on every call,
    this pass makes the copy into a buffer of the module (a `memref.global`,
    one per weight) on the first call and reuses it after: arguments bound
    from a weight file (`transformer.parameter = "NAME"`, transformer-run's
    `--parameters`) and arguments marked `transformer.constant` (a unit
    attribute: the caller promises to pass the same, unchanged data on
    every call).

    The buffer is keyed by the argument's data pointer: a call with another
    buffer (other weights) makes the copy again, so results stay right when
    the weights change between calls by buffer; a caller that changes a
    constant weight in place breaks its promise and reads the old copy. The
    cost is the memory of one transposed copy per weight for the lifetime
    of the compiled module (for GPT-2 small's `linear`-style weights about
    340 MB, as much as the weights themselves). Calls of one function from
    several threads at once must pass the same weights.

    A weight bound by name has one copy in the module, whichever functions
    read it (a model's `@forward`, `@prefill` and `@generate`); an argument
    marked `transformer.constant` has one per function. The copy is made by
    a private function (`@__transformer_weight_transpose`, never inlined),
    one per shape, so that the layers of a model share its code instead of
    compiling one copy loop per weight.

    A private function whose every call passes a constant argument where it
    transposes one (a model's layer function, called once per layer with
    that layer's weights, as transformer-translate's importers build it)
    gets a copy per call site's weights: the pass gives the function a last
    `index` argument, the slot, and each call the slot of the weights it
    passes (calls passing the same weights share one). The globals then
    hold one copy per slot, as bytes (`memref<N x i8>`) of which the
    function views its slot (`memref.view`, which keeps the identity layout
    that the kernels take), and the key global one pointer per slot.
    Functions whose slots bind the same weights (a model's prefill and
    decode layers) share the globals.

    Only 2-D weights of static shape are cached; others keep the copy per
    call. The copies are allocated when first used
    (`--transformer-cpu-allocate-weight-cache`).

    Where every reader of a copy is a plain contraction (`C[m, n] += A[m, k]
    * B[k, n]`, tagged `"mnk"`) and n is a multiple of the target's register
    tile width r (`CPUTarget::contractionRegisterTile`), the copy is made in
    panels instead: `[n / r, k, r]`, each register tile's columns of B
    contiguous down k, the order in which the register tiles read B (the same
    bytes as the k x n copy). The weight is viewed as `[n / r, r, k]` and
    each panel transposed (`"btranspose"`), and the contractions read B as
    `(n floordiv r, k, n mod r)`: `--transformer-cpu-panel-contractions` then
    makes their cache tiles read the panels in place, without the per-call
    packing of B.

    Example: for `%w: tensor<3072x768xf32> {transformer.constant}` used by
    `transformer.linear`, the first call transposes `%w` into
    `@__transformer_weight_cache` (a call of
    `@__transformer_weight_transpose`) and records `%w`'s pointer in
    `@__transformer_weight_cache_key`; the next calls with the same `%w`
    skip the copy (an `scf.if` on the pointer).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def TransformerCPUAllocateWeightCachePass
    : Pass<"transformer-cpu-allocate-weight-cache", "::mlir::ModuleOp"> {
  let summary = "Allocate the weight cache's copies when first used, not "
                "when the module is loaded";
  let description = [{
    Run on the LLVM dialect. The copies of
    `--transformer-cpu-cache-constant-weights` are uninitialized globals
    (`@__transformer_weight_cache`, as large as the weights they copy), which
    a JIT or loader zero-fills when it loads the module: every page touched
    before the program runs (about 3 s for 1.9 GB in a VM, and all of it
    resident even when no copy is ever made, as in a decode step). This pass
    makes each such global a pointer, null until the first use, which a
    private function (`@__transformer_weight_cache_buffer`) sets to an
    anonymous `mmap` of the copy's size (zero pages, given out as they are
    first written) advised for transparent huge pages
    (`madvise(MADV_HUGEPAGE)`: 2 MiB pages, 512 times fewer page faults
    when the copy is made). The pointer is set with a compare-and-swap, so
    concurrent first calls agree on one buffer. A failed `mmap` stops the
    program with a run-time error (transformerRuntimeError) naming the size.

    The buffers live until the process exits (Linux: `mmap`, `madvise` and
    `munmap` come from libc).

    Example:

    ```mlir
    llvm.mlir.global private @__transformer_weight_cache() {alignment = 64 : i64} : !llvm.array<4096 x i8>
    ...
    %p = llvm.mlir.addressof @__transformer_weight_cache : !llvm.ptr
    // becomes
    llvm.mlir.global private @__transformer_weight_cache() : !llvm.ptr   // null
    ...
    %slot = llvm.mlir.addressof @__transformer_weight_cache : !llvm.ptr
    %size = llvm.mlir.constant(4096 : i64) : i64
    %p = llvm.call @__transformer_weight_cache_buffer(%slot, %size)
        : (!llvm.ptr, i64) -> !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TransformerCPUPrepareContractionsPass
    : Pass<"transformer-cpu-prepare-contractions", "::mlir::func::FuncOp"> {
  let summary = "Normalize linalg contractions and tag them for the CPU "
                "schedule";
  let description = [{
    Finds every linalg op on tensors that implements a contraction
    (`linalg::isaContractionOpInterface`: `linalg.matmul` in any of its
    forms, `linalg.batch_matmul`, or a `linalg.generic` with a multiply-add
    body), whatever its name, and classifies its loops with
    `linalg::inferContractionDims` into batch, m, n and k dimensions.

    When the loops come in the order (batch..., m..., n..., k...) and the
    result is indexed (batch..., m..., n...), groups of several batch, m, n
    or k loops are collapsed into one loop each
    (`linalg::collapseOpIterationDims`, so `x @ w^T` on a `SxTxK` input
    becomes one `(S*T) x N x K` contraction), and the op is tagged
    `transformer.contraction = "mnk"` or `"bmnk"`. The CPU schedule
    (`transformer-cpu-codegen`) matches these tags. Other contractions are
    left alone and lowered to loops. The reshapes that the collapse puts
    around the contraction then move across its element-wise neighbours
    (`linalg::populateFoldReshapeOpsByCollapsingPatterns`, limited to the
    generics whose result is collapsed into a tagged contraction or that
    read its expanded result): a `linear` on `[1, S, D]` gets its bias
    broadcast, GELU and residual add on `[S, N]`, where
    `transformer-cpu-fuse-epilogues` fuses them into its cache tiles as it
    does for a 2-D `linear`. Ops one step further keep their shape, as
    does an op whose result the function returns (fused, the contraction
    would accumulate in the call's fresh result buffer).

    A contraction `C[m, n] += A[m, k] * B[n, k]` on f32 with at most 16 rows
    (or a dynamic number of rows, then checked at run time with `scf.if`)
    and a static k that is a multiple of 16 (a decode step's LM head or
    `linear`) is instead written out as vector code on tensors (the "dot"
    form, lib/Codegen/CPU/Contraction/DotKernel.cpp): blocks of 256 columns in an
    `scf.forall`, 8 columns x 16 lanes of partial sums along k, A and B both
    read along their rows, B read once and never copied. Likewise
    `C[m, n] += A[m, k] * B[k, n]` with at most 3 rows and a static n that
    is a multiple of 64 (a decode step's Conv1D-layout projections) takes
    the "row" form: 64 columns x 1 row per register tile, a broadcast of A
    and 4 loads of B's row per step of k, instead of padding m to 8. Both
    forms are marked `transformer.kernel_root`, so that
    `--transformer-outline-kernels` makes each a kernel shared by all layers.
    With a dynamic number of rows, the accumulator's element-wise producer
    (a fill) and the chain of single-use element-wise consumers (bias add,
    GELU, residual add) are cloned into both branches of the `scf.if`, so
    that `transformer-cpu-fuse-epilogues` fuses them into the register-tile
    branch's cache tiles. Two such branches that test the rows of the same
    A, where only the second's branches use the first's result (its
    epilogue combines both products: a gated MLP's `silu(x gate) * (x up)`),
    are merged into one `scf.if`, each branch holding both contractions and
    the epilogue, so that `--transformer-outline-kernels` makes them one
    kernel.

    An odd or dynamic n is padded with zeros to a multiple of the register
    tile's n (32 with AVX-512, `linalg::rewriteAsPaddedOp`); m is not: the
    schedule runs the rows past the last multiple of the register tile's m
    (8 with AVX-512, 6 with AVX2) as 2 x n tiles and a last 1 x n tile,
    where a pad would copy A and keep the epilogue out of the cache tiles. An accumulator made by an
    element-wise op that does not read its init (a zero fill, a linear's
    bias broadcast), and used by nothing else, is made at the padded size
    (a bias padded along n) instead of padded, and the element-wise ops
    that read the padded result's slice alone (GELU, a bias added after the
    product; other operands indexed by fewer loops than the result) move
    before the slice: both then fuse into the contraction's cache tiles.
    What the padding columns hold does not matter, as they are sliced off.
    A padded result that the program casts to an unranked tensor (to
    print it with `printMemrefF32`) is copied to a dense tensor first
    (`bufferization.alloc_tensor ... copy(...)`), so the callee sees the
    strides of the unpadded result.

    A static f32 `C[m, n] += A[m, k] * B` (B indexed (k, n) or (n, k)) whose
    rows span more than one cache tile (m above the target's cache tile m)
    reads B from a copy in the register tiles' panels, `[n / r, k, r]`, made
    once per call, instead of each cache tile copying its block of B and
    then each register tile's panel of that block (once per cache tile
    along m: four times for 1024 rows). The copy is an `scf.forall` marked
    `transformer.kernel_root`, its tasks shared by the threads, each a
    `linalg.copy` (tagged `"panels"`: 8 rows of one panel) or, for B indexed
    (n, k), a `linalg.transpose` (tagged `"transpose_tile"`: a panel's rows
    transposed in lanes x lanes tiles); n is padded to whole panels first,
    and the last panel is made from B's remaining columns padded with
    zeros. The contraction then reads B as `(n floordiv r, k, n mod r)`,
    like a weight bound in panels (`transformer-cpu-panel-contractions`
    gives its cache tiles the panel loops). A B indexed (n, k) with a k that
    is not a multiple of the lanes, a B dequantized from blocks, a constant
    weight (copied once by `transformer-cpu-cache-constant-weights`) and an
    argument of a private function (which its callers may bind to one) keep
    the per-tile copies. When A's rows are then a multiple of 8 KiB apart
    (2048 columns), where a register tile's rows share one L1 set with the
    panel and a cache tile's rows a sixteenth of the L2's sets, the
    contraction reads A from a copy whose rows are 16 values further
    apart (another `scf.forall` kernel, of 8 x 32 `"panels"` copies).

    Example:

    ```mlir
    // Before: linear with a 3-D input, B transposed (n x k).
    %r = linalg.generic {indexing_maps = [(d0,d1,d2,d3) -> (d0,d1,d3),
                                          (d0,d1,d2,d3) -> (d2,d3),
                                          (d0,d1,d2,d3) -> (d0,d1,d2)], ...}
    // After: one (m, n, k) contraction on collapsed operands.
    %r = linalg.generic {..., transformer.contraction = "mnk"}
    ```
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def TransformerCPUCodegenPass
    : Pass<"transformer-cpu-codegen", "::mlir::ModuleOp"> {
  let summary = "Apply the CPU transform-dialect schedule to tagged "
                "contractions";
  let description = [{
    Runs a transform-dialect schedule (its `@__transform_main` named
    sequence) on the module with the transform interpreter. By default the
    schedule is the one built into the compiler
    (lib/Codegen/CPU/Contraction/Schedules/contraction.mlir, printed by
    `transformer-run --print-transform-schedule`): cache tiles distributed
    over threads with `scf.forall`, register tiles of 8 x 32 peeled for odd
    sizes (the rows past the last multiple of 8 as 1 x 32 tiles), vectorized
    to `vector.contract`, accumulators hoisted, and contractions lowered to
    `vector.fma`. Then `math.exp`, `math.tanh` and `math.erf` (in the fused
    epilogues: GELU) become polynomials (upstream
    `populateMathPolynomialApproximationPatterns`), vectorized like the rest
    rather than libm calls per lane.

    The schedule's k block (its fifth parameter) is, of the multiples of 8
    from the target's down to its half, the largest of those that leave
    the fewest of the module's contractions of static depth with a
    remainder block (K = 896 is 3 x 256 + 128 but 4 x 224; K = 1000 is
    5 x 200): a remainder block is a second copy of every register-tile
    variant.

    The k loops that the schedule tagged `transformer.unroll_k` (the
    built-in one tags its register tiles' loops along k) are unrolled by 4
    when they run a static number of steps that 4 divides and carry a
    register tile of 2 rows or more: one step of k is 2m FMAs plus the
    loop's increment, compare and branch, which the core may issue on the
    ports the FMAs need. Remainder tiles (one row, or of dynamic size) stay
    rolled, to spare compile time. The tag is removed either way.

    The built-in schedule packs a batched B per k block
    (`transform.structured.promote`: the block a cache tile reads, copied
    whole into a buffer of its own, then each panel from there). Where B
    already is such a block (B given as n x k, transposed per k block into
    a local buffer of the same shape), that copy is forwarded: a loop nest
    that copies a whole local buffer (`memref.alloc`, static, identity
    layout) into the promotion's buffer, whose readers all follow the copy
    with no write of the source between, is removed and its readers read
    the source: 128 KiB fewer copied per k block and cache tile
    (4 x 128 x 256 by 4 x 512 x 256 with `transpose_b`: 3-5% faster on one
    thread of a Zen 4).

    Runs on bufferized IR (memrefs), after `transformer-cpu-prepare-
    contractions` tagged the contractions.
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"\"",
           "A .mlir file with a transform schedule (@__transform_main) "
           "used instead of the built-in one">,
  ];
  let dependentDialects = ["::mlir::transform::TransformDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

def TransformerCPUPrefetchNextKBlockPass
    : Pass<"transformer-cpu-prefetch-next-k-block", "::mlir::ModuleOp"> {
  let summary = "Prefetch the rows of B that each register tile reads in the "
                "next k block";
  let description = [{
    Runs after `transformer-cpu-codegen`, on the register tiles' k loops that
    the schedule left: an `scf.for` with constant bounds whose one
    loop-carried value is the accumulator tile (a 2-D vector). Each in-bounds
    `vector.transfer_read` of a 1 x N row of a memref (B) at a row that
    changes with the loop gets `memref.prefetch`es (one per 64-byte line of
    the row) of the same columns `distance` rows further on: by default the
    loop's trip count times its step, the same step of the next k block. The
    row is clamped to the memref's last row.

    Why: a tile's first pass over a k block reads rows of B a matrix row
    apart, which the hardware prefetchers do not follow, so its FMAs wait on
    memory. Prefetched one block ahead, at the pace of the FMAs, the rows are
    in L2 when they are needed. On the 128 x 3072 x 768 projection of GPT-2
    this is about 12% of the time on one thread; GPT-2 prefill at 128 tokens
    runs about 8% faster (docs/performance.md).

    For example, in a register tile's k loop over a 256-row block of B:

    ```mlir
    %row = vector.transfer_read %b[%k, %n], %pad {in_bounds = [true, true]}
        : memref<3072x768xf32>, vector<1x32xf32>
    ```

    is preceded by prefetches of `%b[min(%k + 256, 3071), %n]` and
    `%b[min(%k + 256, 3071), %n + 16]`.

    A read of a panel (a weight laid out `[n / r, k, r]`, read in place:
    the rows lie end to end, which the hardware prefetchers follow within
    the panel but not to the next one) gets prefetches of the next panel
    instead, `%p[min(%panel + 1, last), row, %c]` per line: the first
    register tile of each panel then finds it in cache. Where the k loop is
    directly in the loop over the panel's register tiles along m (T tiles,
    tile i) and reads the panel at its induction variable plus an invariant,
    the tiles share the next panel's block of Kb rows: tile i prefetches
    rows `i * c` to `(i + 1) * c - 1` of it (c = ceil(Kb / T)), one row per
    step of its loop (before the step's first read), row `i * c + j * c /
    Kb` at row offset j. The requests are then spread over the panel's
    tiles rather than all made by the first (32 KiB within one tile, more
    than a core keeps in flight), and an unrolled loop makes one prefetch
    row per step instead of one per read. Elsewhere each read prefetches
    its own row of the next panel. With weights that a prefill streams from
    memory (a model bound with `--parameters`), the next panel's prefetch
    made Qwen2.5-0.5B's prefill 4-8% faster and GPT-2's 8-14%, and sharing
    it among the tiles made Qwen2.5-0.5B's 24 MLPs another 9% faster at 128
    and at 512 tokens (the Xeon of docs/performance.md). Where the tiles'
    loop is in a loop over a cache tile's panels, in a loop over k blocks
    (transformer-cpu-panel-contractions' order), the panel read after the
    last one of a k block is the first panel of the next k block: the last
    panel's tiles prefetch that (rows one k block on), and in the last k
    block the next panel (the next cache tile's first) at the first k block.
    Qwen2.5-0.5B's prefill of 128 tokens on two threads of a Zen 4, minima
    of 8 calls in alternating processes: 506 / 476, 520 / 512, 538 / 507,
    526 / 495, 495 / 491 ms (old / new).

    Panels the schedule packs per k block (a block copy of B's k x n block
    into a local buffer, 8 rows x one register tile per step, then each
    panel copied from that buffer) are read from cache, but the block copy
    reads B where it lies, and at the start of every k block it waits for
    B's rows from L3 or memory while no FMA runs. Where a register tile's k
    loop is in the loop over a panel's tiles along m, in the loop over
    panels (stepping as the copy's columns), in the k block loop whose body
    starts with that copy, each tile prefetches its share of the panel's
    columns in the next k block before its k loop: tile i of T the rows `i
    * c` to `(i + 1) * c - 1` of the next block (c = ceil(Kb / T)), at the
    copy's row and column index with the copy's loops replaced by the share's
    row plus Kb and the panel, clamped to B's last row and column, one
    prefetch per line. With one cache tile of rows (GPT-2's 128-token projections as
    plain matmuls), where every block of B is copied once and read from L3,
    this made 128 x 3072 x 768 3-5% faster on one thread of a Zen 4 (the
    copies' share of its samples 13% -> 8%).

    The block of an n x k B (a linear's weight, B indexed (n, k)) is its
    transposed copy: a loop over the block's columns (B's rows) around one
    over its rows that read L x L tiles of B and write them transposed into
    a local buffer. B's rows are then read 16 at a time for a few lines
    each, too short a stream for the hardware prefetchers. There each
    register tile prefetches its share of the panel's r columns of the next
    k block, which are r rows of B: tile i of T rows `i * c` to `(i + 1) *
    c - 1` of the panel (c = ceil(r / T)), Kb elements each from the next
    block's first column, clamped to B's last row and column.

    A panel copied straight from a k x n B (the built-in schedule's 2-D
    contractions: no block copy; a loop over the block's rows in the loop
    over panels, before the register tiles, that reads B into the panel)
    reads rows a row of B apart: each tile prefetches its share of the
    panel's rows in the next k block, as for a block copy.

    In a cache tile's last k block, inside an `scf.forall` over cache
    tiles, the tiles prefetch the same share of the first k block of the
    next cache tile along n instead (the k block loop at its start, the
    forall's induction variables one step on): OpenMP's static schedule
    gives each thread consecutive tiles, so that is the block the thread
    reads next; the first k block of every cache tile would otherwise wait
    on memory. One thread of a Zen 4, minima of 300 calls, packed per k
    block before: 128 x 768 x 3072 5.67-5.74 -> 5.59-5.66 ms, 128 x 3072 x
    768 5.61-5.67 -> 5.44-5.45 ms, 256^3 0.308 -> 0.299 ms.
  }];
  let options = [
    Option<"distance", "distance", "int64_t", /*default=*/"0",
           "Rows ahead to prefetch (0: the k loop's trip count times its "
           "step, the next k block)">,
    Option<"locality", "locality", "unsigned", /*default=*/"1",
           "memref.prefetch locality hint, 0 (none) to 3 (keep in all cache "
           "levels); 1 measured best (a hint of 3 evicts the rows in use "
           "from L1)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TransformerCPUPrefetchNextRowsPass
    : Pass<"transformer-cpu-prefetch-next-rows", "::mlir::ModuleOp"> {
  let summary = "Prefetch the rows of B ahead of those a few-rows kernel "
                "reads";
  let description = [{
    Runs after `transformer-cpu-codegen`, on every `scf.for` whose body reads
    two or more rows of one memref side by side along the row: a
    `vector.load` or an unmasked in-bounds `vector.transfer_read` whose first
    index (the row) is the same on every iteration and whose other indices
    are not (the dot-product kernels of a B indexed (n, k): a group of 8
    rows of f32, bf16 or block-quantized weights per loop). Before each
    distinct place read in a row (reads that differ only by a constant last
    index, the scale and values of one quantized block, count once), it
    prefetches (`memref.prefetch`, locality 1: into L2) the same place in
    the row two groups of rows further on (one group of a 768-deep row
    is computed in less time than a read from memory takes). The row is
    clamped to the memref's last row. A memref with no more rows than the
    group (A's rows, read by every group) is left alone, and so are
    elements of 32 bits or more: f32 rows, which the hardware prefetchers
    follow on their own (no gain measured); and so are a weight's panels
    (`[n / r, k, r]` of whole cache lines per row, as
    `--transformer-cpu-panel-parameters` binds them), whose "rows" two
    groups further on are the next tiles' panels, often another thread's.

    Why: the kernels that widen their weights in registers (bf16, f16,
    Q8_0 and Q4_0 blocks) otherwise wait on memory at the start of every
    row. On Zen 5, a 1 x 896 by 38912 x 896 product took 3.2 ms in Q8_0 on
    one thread without the prefetches (13 GB/s) and 1.0-1.2 ms with them,
    in bf16 3.2 and 2.2 ms; a Qwen2.5-0.5B decode step in Q8_0, 29 ms and
    14.

    For example, in a loop over the blocks of 8 rows of Q8_0 weights:

    ```mlir
    %s = vector.load %w[%row3, %block, %c0] : memref<4864x28x34xi8>, vector<2xi8>
    %v = vector.load %w[%row3, %block, %c2] : memref<4864x28x34xi8>, vector<16xi8>
    ```

    is preceded by one prefetch of `%w[min(%row3 + 8, 4863), %block, %c0]`.

    Second, on every `scf.for` of step 1 whose induction variable is the row
    of 1-D `vector.load`s of a 2-D memref of 8- or 16-bit integers or floats
    at loop-invariant columns (the row form's kernels of a B indexed (k, n):
    each step of k reads a stretch of B's row k), or the row of such loads
    of 3-D panels `[n / r, k, r]` at a loop-invariant panel (the row form
    over a 16-bit weight bound in panels: each step reads row k of several
    panels), it prefetches each cache line those loads cover (counted from
    a column that is a value plus a constant, at most 32 lines per value)
    16 rows further on (in the same panel), clamped to the last row, before
    the first of the loads. f32 rows and panels are left alone here too,
    and so are the kernel's own buffers (`memref.alloc`, `memref.view`:
    packed panels, in cache).

    Why: the row form's steps of k read rows of B a matrix row apart, which
    the hardware prefetchers do not follow; a few hundred bytes per step
    are too few to keep the memory busy. On a Xeon with AVX-512, GPT-2's
    bf16 decode step took 17.8 ms without these prefetches and 15.9 ms with
    them (8 rows ahead: 16.2 ms; 32: 16.1); its f32 step 23.0 and 23.9 ms.
    In panels, a step reads one line of each of a tile's 12 panels (12
    streams, 64 bytes each per step): the bf16 step went from 14.1-14.8 to
    12.1-12.7 ms with the panels' rows prefetched (and the next-group
    prefetch, which had taken the panels for rows, dropped); the f32 step,
    two lines per panel row, did not change (20.5-21.0 ms either way).

    For example, in the loop over the rows of a bf16 B:

    ```mlir
    %v0 = vector.load %w[%k, %col] : memref<768x3072xbf16>, vector<16xbf16>
    %v1 = vector.load %w[%k, %col16] : memref<768x3072xbf16>, vector<16xbf16>
    ...
    ```

    with `%col16 = arith.addi %col, %c16` and so on to `%col + 48`, the
    loads are preceded by prefetches of `%w[min(%k + 16, 767), %col]` and
    `%w[min(%k + 16, 767), %col + 32]`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TransformerCPUFuseEpiloguesPass
    : Pass<"transformer-cpu-fuse-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Form the cache tiles of contractions on tensors and fuse "
                "their fills, bias and element-wise epilogues into them";
  let description = [{
    For every contraction tagged `transformer.contraction = "mnk"` or
    `"bmnk"` by `transformer-cpu-prepare-contractions`, tiles the last of
    its element-wise consumers (a chain of single-use, all-parallel
    `linalg` ops on the result: bias add, GELU, residual add, scale) into
    `scf.forall` cache tiles of `cache-tile-m` x `cache-tile-n` (one batch
    per tile for `"bmnk"`) and fuses into each tile the contraction and the
    element-wise ops that initialize its accumulator (a zero fill, the bias
    broadcast of `transformer.linear`), with
    `scf::tileConsumerAndFuseProducersUsingSCF`. A consumer that reads the
    result and ignores its own init is first rewritten to update the result
    in place, so that the epilogue needs no buffer of its own.

    In `scf.forall` tiles (not batched), a contraction whose accumulator
    starts as such a fill of the result's slice accumulates into a
    temporary of the tile's largest size instead, made at the start of the
    tile (sliced to the tile where its size is dynamic), and the tile's last
    op writes the result's slice once: the last epilogue op reads the
    accumulator as an input, and a tile without an epilogue gets a copy
    (tagged `"epilogue"`). The result's slice is memory the call has not
    touched yet, with rows a whole result row apart: the fill and every k
    block's loads and stores of the register tiles waited on its lines.
    The temporary is contiguous and, made again by the thread's next tile,
    still in L2.

    The cache tile is the target's (`transformer.target`,
    `CPUTarget::contractionCacheTile`) unless `cache-tile-m`/`cache-tile-n`
    name one. The cache tiles are balanced over the target's threads: while
    the last round of a result's tiles would leave more than 3% of the
    threads' time idle (19 tiles on two threads: 5%), the n tile is halved
    (down to 64), so that each tile still reads (or transposes) its slice
    of B once; if the columns
    cannot be split and the count is below 4 per thread, the m tile is
    halved (down to 32). One thread needs no balancing. A contraction of
    static sizes with fewer than 2^20 flops is tiled with `scf.for` instead
    of `scf.forall`: it runs on the calling thread, without a fork and join.

    A second contraction that an element-wise op of the chain reads directly
    (the up projection of a gated MLP whose epilogue is `silu(gate) * up`)
    is fused into the same cache tiles when it reads the same A, nothing
    else uses it, and both read B in whole panels, or both dequantize B
    from blocks into panels per k block (so that
    `transformer-cpu-panel-contractions` gives each its own loops): its
    accumulator becomes a temporary of the tile's largest size made in the
    tile, like the main one's, instead of a whole result written to memory
    and read back by the epilogue.

    A linear's weight (B given n x k, the prepare pass's transposed copy
    tagged `"transpose"`) is transposed in the cache tiles when there are
    at most 4 along m: the contraction tile is tiled along k and each k
    step transposes the block of B it reads. Where the tile is static, f32
    and a whole number of register tile panels wide, and a multiple of the
    target's f32 lanes from its k block down to half of it divides K, the
    block is written by vector code straight into panels [n / r, k block,
    r] (r the register tile's columns; lanes x lanes tiles of B transposed
    in registers), and the contraction reads them through the panel map:
    `transformer-cpu-panel-contractions` then gives the tile its loop over
    panels, and the schedule copies nothing. Otherwise each k step's block
    is a `linalg.transpose` tagged `"transpose_tile"` into a k x n buffer.
    A B dequantized from blocks is made per k block the same way.

    The tiled contraction is tagged `"mnk_tile"` / `"bmnk_tile"` (the CPU
    schedule tiles it only for k and registers), the fused element-wise ops
    `"epilogue"` / `"bepilogue"` (the schedule vectorizes them along the
    row). Contractions without anything to fuse are tiled the same way.

    Example:

    ```mlir
    // Before
    %c = linalg.contract ... {transformer.contraction = "mnk"} outs(%bias)
    %g = linalg.generic ins(%c) outs(%empty) { gelu }
    // After
    %r = scf.forall (%i, %j) ... shared_outs(%o = %empty) {
      %acc = tensor.empty() : tensor<128x256xf32>
      %os = tensor.extract_slice %o[%i, %j] [128, 256] [1, 1]
      %b = linalg.generic ... {transformer.contraction = "epilogue"}
          outs(%acc)                                            // bias
      %t = linalg.contract ... {transformer.contraction = "mnk_tile"} outs(%b)
      %g = linalg.generic ... {transformer.contraction = "epilogue"}
          ins(%t) outs(%os)                                     // GELU
      scf.forall.in_parallel { tensor.parallel_insert_slice %g into %o ... }
    }
    ```
  }];
  let options = [
    Option<"cacheTileM", "cache-tile-m", "int64_t", /*default=*/"0",
           "Rows of C per cache tile (the units of work for the threads); "
           "0: the target's (transformer.target)">,
    Option<"cacheTileN", "cache-tile-n", "int64_t", /*default=*/"0",
           "Columns of C per cache tile; 0: the target's">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def TransformerCPUPanelContractionsPass
    : Pass<"transformer-cpu-panel-contractions", "::mlir::func::FuncOp"> {
  let summary = "Compute the cache tiles of contractions that read B in "
                "panels panel by panel, reading the panels in place";
  let description = [{
    `--transformer-cpu-cache-constant-weights` makes the copy of a constant
    weight in panels, `[n / r, k, r]` for the target's register tiles `r`
    columns wide, where every reader is a plain contraction; those read B
    as `(n floordiv r, k, n mod r)`. After
    `--transformer-cpu-fuse-epilogues` has formed their cache tiles (tagged
    `"mnk_tile"`, a whole number of panels wide), this pass computes each
    such tile with two loops on tensors: over k blocks, and in
    each over the tile's panels, a plain contraction of the tile's rows by
    the panel's k block (a contiguous `[k, r]` slice of the copy) into the
    panel's columns of C, tagged `"mnk_panel"`. The CPU schedule tiles those
    into register tiles that read the panel where it is: per call, no copy
    of B is made, where a k x n B is packed per cache tile and k block
    (copied into a block buffer, then panel by panel into a panel buffer).

    The k block is the whole K where the tile's rows of A and one panel of
    that depth fill at most half the L2 (a tile of dynamic rows counted as
    the target's cache tile's): nothing is copied from f32 panels, so they
    need not fit the L1, the register tiles stream them from L2 and load
    and store their accumulators once. Otherwise it is the target's cache k
    (`CPUTarget::contractionCacheTile`), or the largest multiple of 8 from
    it down to its half that divides K (Qwen2's 896: four blocks of 224,
    not three of 256 and a second copy of the register tiles for the rest
    of 128; otherwise a last block of the rest).

    Panels of bf16 or f16 (a weight bound so by
    `--transformer-cpu-panel-parameters`) are widened to f32 per k block:
    each panel's `[k, r]` block is converted (vector loads widened in
    registers, stored) into one f32 buffer of the cache tile, made before
    the k loop, and the tile's contraction reads that; the register tiles
    along m then share one conversion of each vector of B instead of each
    converting it as it loads it (the conversions competed with the FMAs
    for the same ports: GPT-2's bf16 prefill ran 1.09-1.15x its f32 one).
    The buffer is a copy that the register tiles read, so its k block is
    always the target's, which keeps it in L1.

    A contraction that reads panels but is not a cache tile (its fusion
    failed, or K is dynamic) gets a copy of B in the k x n order instead,
    made on each call.

    Example (r = 32, a cache tile of 128 x 128, K = 2048, k blocks of
    256):

    ```mlir
    // Before
    %t = linalg.generic {indexing_maps = [(m, n, k) -> (m, k),
        (m, n, k) -> (n floordiv 32, k, n mod 32), (m, n, k) -> (m, n)]}
        {transformer.contraction = "mnk_tile"}
        ins(%a, %panels : tensor<128x2048xf32>, tensor<4x2048x32xf32>) outs(%c)
    // After
    %t = scf.for %k0 = %c0 to %c2048 step %c256 iter_args(%acc = %c) {
      %r = scf.for %p = %c0 to %c4 step %c1 iter_args(%acc2 = %acc) {
        %ak = tensor.extract_slice %a[0, %k0] [128, 256] [1, 1]
        %bk = tensor.extract_slice %panels[%p, %k0, 0] [1, 256, 32] [1, 1, 1]
            : tensor<4x2048x32xf32> to tensor<256x32xf32>
        %cp = tensor.extract_slice %acc2[0, %p * 32] [128, 32] [1, 1]
        %u = linalg.contract ... {transformer.contraction = "mnk_panel"}
            ins(%ak, %bk) outs(%cp)
        %i = tensor.insert_slice %u into %acc2[0, %p * 32] [128, 32] [1, 1]
        scf.yield %i
      }
      scf.yield %r
    }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::vector::VectorDialect"];
}

def TransformerCPUFlashAttentionPass
    : Pass<"transformer-cpu-flash-attention", "::mlir::ModuleOp"> {
  let summary = "Lower transformer.attention to a flash-style CPU kernel";
  let description = [{
    Replaces every `transformer.attention` on ranked f32 tensors by a call to
    a kernel function (`@__transformer_flash_attention*`, private, on
    memrefs) that never materialises the Sq x Sk scores: an `scf.forall`
    over (batch * heads, query block of 64), a loop over key blocks of 64
    with the online softmax, scores computed transposed (keys x queries, the
    queries on `vector<16xf32>` lanes) in 4 x 4 register tiles, exp2 as a
    short polynomial. With `causal`/`window` only the key blocks inside the
    band are visited and only the blocks crossing its edges are masked; with
    a `transformer.mask_blocks` attribute (`--transformer-mask-sparsity`)
    fully masked blocks are skipped and fully visible ones are not masked.
    Decoding shapes (Sq <= 16, static or checked at run time, static head
    dims) call `@__transformer_flash_decode*` instead: keys on the vector
    lanes, key chunks over the threads, partial softmaxes combined
    (flash-decoding). Operands are strided memrefs, so that slices of a KV
    cache are read in place. Masks that broadcast
    over some batch dimensions only keep the generic lowering. See
    docs/attention.md.
  }];
  let options = [
    Option<"threads", "threads", "unsigned", /*default=*/"0",
           "Threads the kernel will run on (0: the module's target, see "
           "--transformer-cpu-select-target); decoding shapes split their "
           "keys when more than one">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::omp::OpenMPDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

def TransformerMaskSparsityPass : Pass<"transformer-mask-sparsity"> {
  let summary = "Classify the blocks of masks known at compile time";
  let description = [{
    Evaluates every mask known at compile time (`create_causal_mask` with or
    without `window`, the `causal`/`window` attributes of `attention`,
    `arith.constant dense<...>` masks of 0 / -inf / other values, and
    `transformer.add` of such masks) and classifies each 64 x 64 block of
    (queries, keys): `M` fully masked, `V` fully visible (all zeros), `P`
    partial. The table is recorded on the consuming `attention` and
    `masked_softmax` ops and propagated to the users that keep the zero
    blocks of masked probabilities (scale, mul, div numerator, relu, gelu,
    and the `matmul` that takes them as its left operand):

    ```mlir
    %o = transformer.attention %q, %k, %v {causal,
           transformer.mask_blocks = {block = array<i64: 64, 64>,
                                      rows = ["PMM", "VPM", "VVP"]}} : ...
    ```

    The flash kernel (`--transformer-cpu-flash-attention`) never computes
    `M` blocks and applies no mask in `V` blocks; nor do the masked_softmax
    and P @ V of chains that were not fused into one attention
    (`--transformer-cpu-sparse-chains`). A malformed
    `transformer.mask_blocks` attribute already in the input is an error.
  }];
}

def TransformerCPUSparseChainsPass : Pass<"transformer-cpu-sparse-chains"> {
  let summary = "Skip the fully masked blocks of unfused attention chains";
  let description = [{
    Lowers the `masked_softmax` and `matmul` ops that carry a
    `transformer.mask_blocks` table (`--transformer-mask-sparsity`) block by
    block, for attention chains that were not fused into one `attention`:

    - `masked_softmax`: per block of 64 rows, the max, exp and sum run over
      the runs of `V` and `P` key blocks only, the mask is added in `P` runs
      only, `M` blocks are zeros (never computed); rows whose blocks are all
      `M` are fully masked and give zeros.
    - `matmul` (masked probabilities @ values): per block of 64 rows, one
      contraction per run of non-`M` key blocks on slices of both operands
      (one for a causal or window band); `M` blocks are neither loaded nor
      multiplied.

    Row blocks are unrolled at compile time, so every slice is static and
    takes the usual row vectorization and contraction schedule. Other ops
    carrying the table are left to `--lower-transformer`. A malformed table,
    or one that does not tile the op's static last two dimensions (or a
    masked_softmax mask that is not of those dimensions), is an error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def TransformerCPUFuseRowChainsPass
    : Pass<"transformer-cpu-fuse-row-chains", "::mlir::func::FuncOp"> {
  let summary = "Fuse row reductions and the element-wise ops around them "
                "into tiles of rows";
  let description = [{
    softmax and layer_norm decompose into chains of `linalg` ops on tensors:
    row reductions (every loop parallel but the innermost, which reduces:
    max, sum, mean, variance) and element-wise ops before and after them,
    each a pass over the whole tensor, with whole-tensor temporaries in
    between. For every such chain (the last element-wise op, and the row
    reductions, element-wise ops and fills it depends on whose only uses are
    in the chain), this pass tiles the last op along its rows (every loop
    but the innermost; the last row loop in tiles of about 4096 elements
    that divide it) and fuses the chain into the tiles with
    `scf::tileConsumerAndFuseProducersUsingSCF`. Each row is then read once
    from memory, and the temporaries are one tile's rows (fresh
    `tensor.empty` ops of the tile's size), which stay in L1.

    Chains of static shape only: with a dynamic one the tiles would be rows
    of one, each allocating its temporaries (slower than the separate
    passes on GPT-2's prefill). The tile loop is an `scf.forall` (split over
    the threads) for chains of at least `min-threaded-elements` elements
    (64K, as the row strategy), an `scf.for` otherwise; it is marked `transformer.kernel_root`, so that
    `--transformer-outline-kernels` makes the chain one kernel.
    `transformer-cpu-vectorize-rows` vectorizes the fused ops after
    bufferization.

    Example (softmax, 1536 x 128):

    ```mlir
    // Before: fill, max, sub + exp, fill, sum, div over 1536 x 128
    // After (with min-threaded-elements above 196608: on one thread)
    %r = scf.for %i = %c0 to %c1536 step %c32 iter_args(%o = %empty) {
      %m = linalg.fill ... -> tensor<32xf32>
      %max = linalg.generic {["parallel", "reduction"]} ... -> tensor<32xf32>
      %e = linalg.generic ... -> tensor<32x128xf32>      // exp(x - max)
      ...
      %d = linalg.generic ... -> tensor<32x128xf32>      // e / sum
      %u = tensor.insert_slice %d into %o[%i, 0] [32, 128] [1, 1]
      scf.yield %u
    } {transformer.kernel_root}
    ```
  }];
  let options = [
    Option<"minThreadedElements", "min-threaded-elements", "int64_t",
           /*default=*/"::mlir::transformer::kMinThreadedRowElements",
           "Smallest static chain (in elements) whose tiles are split over "
           "the threads">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
}

def TransformerCPUVectorizeRowsPass
    : Pass<"transformer-cpu-vectorize-rows", "::mlir::func::FuncOp"> {
  let summary = "Vectorize element-wise ops and row reductions along the row";
  let description = [{
    The CPU strategy for every linalg op on memrefs that is not a
    contraction, matched by structure: element-wise (all loops parallel) or
    row reduction (parallel loops and one innermost reduction), every operand
    indexed by an ordered subset of the loops (broadcasts allowed,
    transposes not). Such an op is tiled into rows (one `scf.forall` over
    all but the innermost loop, split over the threads later) and vector
    tiles of 64 along the row (`scf.for`, peeled), vectorized, and its
    vectors lowered to 1-D: reductions become `vector.reduction`, and
    `math.exp`, `math.tanh` and `math.erf` become polynomial approximations.
    Row lengths that do not divide 64 get a remainder tile vectorized at its
    static size; dynamic remainders stay scalar loops.

    Runs on bufferized IR, after `transformer-cpu-codegen` (contractions and
    their remainder tiles are left alone).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

#endif // TRANSFORMER_CODEGEN_CPU_PASSES
