// The CPU contraction schedule: how `--transformer-to-llvm` and transformer-run
// at -O2/-O3 turn every contraction into AVX-512 code. This file is embedded in
// the binary; `transformer-run --print-transform-schedule` prints it, and
// `--transform-schedule=FILE.mlir` (pipeline option `transform-schedule=FILE`)
// replaces it. A replacement must define `@__transform_main`.
//
// The payload is one bufferized function whose contractions the pass
// `transformer-cpu-prepare-contractions` has normalized and tagged (on tensors,
// before bufferization):
//   transformer.contraction = "mnk"   loops (m, n, k):    C[m,n] += A * B
//   transformer.contraction = "bmnk"  loops (b, m, n, k): the same per batch
//   transformer.contraction = "transpose"   linalg.transpose of a 2-D B
//   transformer.contraction = "btranspose"  the same, batched (3-D)
// When B came as n x k (transpose_b, linear), the prepare pass gave the
// contraction a transposed k x n copy, so that the register tile reads B's
// rows contiguously; the copy is vectorized here (16 x 16 blocks transposed
// in registers). n indexes C's contiguous dimension. With at most 4 cache
// tiles along m, `transformer-cpu-fuse-epilogues` moves the copy into the
// cache tiles, one 256 x 256 block per k step, read while in L2:
//   transformer.contraction = "transpose_tile"   that block (2-D)
//   transformer.contraction = "btranspose_tile"  the same, batched
//
// The tiling numbers, in one place (measured on Zen 5: L1d 48 KiB, L2 1 MiB):
//   cache tile     m 128, n 256, k 256  (a 256 x 256 B block stays in L2;
//                  m x n tiles are the units of work for the threads)
//   register tile  m 8, n 32, k 1       (8 x 2 zmm accumulators = 16 of the
//                  32 registers; per k step 2 loads of B, 8 broadcasts of A,
//                  16 FMAs)
// The prepare pass pads n, and a static m, to multiples of the register tile.
// A dynamic m (the tokens of a prompt) is not padded: the register tiles'
// loop along m is peeled, and its remainder of fewer than 8 rows is computed
// row by row (1 x 32 tiles, static, vectorized; about 0.7x the speed of full
// tiles). Cache tiles that do not divide the problem are peeled the same way
// along n: the main part keeps the full static register tile; a remainder of
// dynamic size (which then runs no iteration, or only when the user's own
// schedule differs) becomes scalar loops before the hoisting, whose subviews
// would otherwise keep it from working.

module attributes {transform.with_named_sequence} {

  // Splits a loop into a part whose trip count divides its step and a
  // remainder. Fails (silenceably) when there is nothing to peel.
  transform.named_sequence @peel(%loop: !transform.op<"scf.for"> {transform.consumed}) {
    %main, %rest = transform.loop.peel %loop
        : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  // Vectorizes one register tile; fails (silenceably) on dynamic shapes, which
  // then stay scalar.
  transform.named_sequence @vectorize_tile(%op: !transform.any_op {transform.consumed}) {
    transform.structured.vectorize %op {create_named_contraction} : !transform.any_op
    transform.yield
  }

  // Splits the register tiles' loop along m into full tiles and a remainder
  // of fewer rows, which is tiled by single rows (static shapes that
  // vectorize). Fails (silenceably) when there is nothing to peel.
  transform.named_sequence @peel_rows(%loop: !transform.op<"scf.for"> {transform.consumed}) {
    %main, %rest = transform.loop.peel %loop
        : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.foreach %rest : !transform.any_op {
    ^bb0(%r: !transform.any_op):
      %ops = transform.structured.match interface{LinalgOp} in %r
          : (!transform.any_op) -> !transform.any_op
      %rows, %l = transform.structured.tile_using_for %ops tile_sizes [1, 0, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    transform.yield
  }
  transform.named_sequence @peel_brows(%loop: !transform.op<"scf.for"> {transform.consumed}) {
    %main, %rest = transform.loop.peel %loop
        : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.foreach %rest : !transform.any_op {
    ^bb0(%r: !transform.any_op):
      %ops = transform.structured.match interface{LinalgOp} in %r
          : (!transform.any_op) -> !transform.any_op
      %rows, %l = transform.structured.tile_using_for %ops tile_sizes [0, 1, 0, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    transform.yield
  }

  // (m, n, k) in one cache tile: k blocks, then register tiles.
  transform.named_sequence @tile_mnk_tile(%op: !transform.any_op {transform.consumed}) {
    %t2, %k = transform.structured.tile_using_for %op tile_sizes [0, 0, 256]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t3, %m = transform.structured.tile_using_for %t2 tile_sizes [8, 0, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.include @peel_rows failures(suppress) (%m) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // Then (once every contraction has its rows) the register tiles along n
  // and k.
  transform.named_sequence @tile_mnk_registers(%op: !transform.any_op {transform.consumed}) {
    %t, %n, %k1 = transform.structured.tile_using_for %op tile_sizes [0, 32, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.any_op)
    transform.include @peel failures(suppress) (%n) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // (m, n, k): cache tiles over threads, then as above.
  transform.named_sequence @tile_mnk(%op: !transform.any_op {transform.consumed}) {
    %t1, %forall = transform.structured.tile_using_forall %op tile_sizes [128, 256]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @tile_mnk_tile failures(propagate) (%t1) : (!transform.any_op) -> ()
    transform.yield
  }

  // (b, m, n, k) in one cache tile.
  transform.named_sequence @tile_bmnk_tile(%op: !transform.any_op {transform.consumed}) {
    %t2, %k = transform.structured.tile_using_for %op tile_sizes [0, 0, 0, 256]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t3, %m = transform.structured.tile_using_for %t2 tile_sizes [0, 8, 0, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.include @peel_brows failures(suppress) (%m) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // Then (once every contraction has its rows) the register tiles along n
  // and k.
  transform.named_sequence @tile_bmnk_registers(%op: !transform.any_op {transform.consumed}) {
    %t, %n, %k1 = transform.structured.tile_using_for %op tile_sizes [0, 0, 32, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">, !transform.any_op)
    transform.include @peel failures(suppress) (%n) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // (b, m, n, k): one batch per task, then as above.
  transform.named_sequence @tile_bmnk(%op: !transform.any_op {transform.consumed}) {
    %t1, %forall = transform.structured.tile_using_forall %op tile_sizes [1, 128, 256]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @tile_bmnk_tile failures(propagate) (%t1) : (!transform.any_op) -> ()
    transform.yield
  }

  // Element-wise ops fused into a cache tile (the accumulator's fill or bias
  // broadcast before the contraction, bias/GELU/residual after it): vectors
  // of 32 along the row, the remainder peeled.
  transform.named_sequence @tile_epilogue(%op: !transform.any_op {transform.consumed}) {
    %t, %r, %c = transform.structured.tile_using_for %op tile_sizes [1, 32]
        : (!transform.any_op)
        -> (!transform.any_op, !transform.any_op, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  transform.named_sequence @tile_bepilogue(%op: !transform.any_op {transform.consumed}) {
    %t, %b, %r, %c = transform.structured.tile_using_for %op tile_sizes [1, 1, 32]
        : (!transform.any_op)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // B's transposed copy (k x n from n x k): blocks of 256 x 256 over the
  // threads, 16 x 16 tiles transposed in registers (vector.shuffle), the
  // remainders peeled (a block of dynamic size keeps static full tiles; only
  // its last partial tiles are scalar loops). Generalized first: the casts
  // that canonicalization leaves on the static tiles fold into a
  // linalg.generic, not into a linalg.transpose.
  transform.named_sequence @tile_transpose(%op: !transform.any_op {transform.consumed}) {
    %g = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op
    %tag = transform.param.constant "transpose" -> !transform.any_param
    transform.annotate %g "transformer.contraction" = %tag : !transform.any_op, !transform.any_param
    %t1, %forall = transform.structured.tile_using_forall %g tile_sizes [256, 256]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t2, %r, %c = transform.structured.tile_using_for %t1 tile_sizes [16, 16]
        : (!transform.any_op)
        -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%r) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  transform.named_sequence @tile_btranspose(%op: !transform.any_op {transform.consumed}) {
    %g = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op
    %tag = transform.param.constant "btranspose" -> !transform.any_param
    transform.annotate %g "transformer.contraction" = %tag : !transform.any_op, !transform.any_param
    %t1, %forall = transform.structured.tile_using_forall %g tile_sizes [1, 256, 256]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t2, %r, %c = transform.structured.tile_using_for %t1 tile_sizes [0, 16, 16]
        : (!transform.any_op)
        -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%r) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // B's transposed copy made per cache tile (fused into the contraction's
  // scf.forall by transformer-cpu-fuse-epilogues when there are few tiles
  // along m): the same 16 x 16 register tiles, no threads of its own.
  transform.named_sequence @tile_transpose_tile(%op: !transform.any_op {transform.consumed}) {
    %g = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op
    %tag = transform.param.constant "transpose" -> !transform.any_param
    transform.annotate %g "transformer.contraction" = %tag : !transform.any_op, !transform.any_param
    %t, %c, %r = transform.structured.tile_using_for %g tile_sizes [16, 16] interchange = [1, 0]
        : (!transform.any_op)
        -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%r) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  transform.named_sequence @tile_btranspose_tile(%op: !transform.any_op {transform.consumed}) {
    %g = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op
    %tag = transform.param.constant "btranspose" -> !transform.any_param
    transform.annotate %g "transformer.contraction" = %tag : !transform.any_op, !transform.any_param
    %t, %b, %r, %c = transform.structured.tile_using_for %g tile_sizes [1, 16, 16]
        : (!transform.any_op)
        -> (!transform.any_op, !transform.any_op, !transform.op<"scf.for">,
            !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%r) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // 1. Tiling.
    %mnk = transform.structured.match attributes {transformer.contraction = "mnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mnk : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_mnk failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %bmnk = transform.structured.match attributes {transformer.contraction = "bmnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %bmnk : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_bmnk failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %mnk_tile = transform.structured.match attributes {transformer.contraction = "mnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mnk_tile : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_mnk_tile failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %bmnk_tile = transform.structured.match attributes {transformer.contraction = "bmnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %bmnk_tile : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_bmnk_tile failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %epi = transform.structured.match attributes {transformer.contraction = "epilogue"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %epi : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_epilogue failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %bepi = transform.structured.match attributes {transformer.contraction = "bepilogue"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %bepi : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_bepilogue failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %tr = transform.structured.match attributes {transformer.contraction = "transpose"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tr : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_transpose failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %btr = transform.structured.match attributes {transformer.contraction = "btranspose"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %btr : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_btranspose failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %tr_tile = transform.structured.match attributes {transformer.contraction = "transpose_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tr_tile : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_transpose_tile failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %btr_tile = transform.structured.match attributes {transformer.contraction = "btranspose_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %btr_tile : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_btranspose_tile failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %mnk_rows = transform.structured.match attributes {transformer.contraction = "mnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %mnk_tile_rows = transform.structured.match attributes {transformer.contraction = "mnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    %mnk_all = transform.merge_handles %mnk_rows, %mnk_tile_rows : !transform.any_op
    transform.foreach %mnk_all : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_mnk_registers failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %bmnk_rows = transform.structured.match attributes {transformer.contraction = "bmnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bmnk_tile_rows = transform.structured.match attributes {transformer.contraction = "bmnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bmnk_all = transform.merge_handles %bmnk_rows, %bmnk_tile_rows : !transform.any_op
    transform.foreach %bmnk_all : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_bmnk_registers failures(propagate) (%op) : (!transform.any_op) -> ()
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    // Peeled loops of one iteration fold away; remainder sizes become static
    // where the problem sizes are.
    transform.apply_patterns to %funcs {
      transform.apply_patterns.canonicalization
    } : !transform.any_op

    // 2. Vectorization of every register tile with a static shape.
    %mnk_tiles = transform.structured.match attributes {transformer.contraction = "mnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bmnk_tiles = transform.structured.match attributes {transformer.contraction = "bmnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %tr_tiles = transform.structured.match attributes {transformer.contraction = "transpose"} in %root
        : (!transform.any_op) -> !transform.any_op
    %btr_tiles = transform.structured.match attributes {transformer.contraction = "btranspose"} in %root
        : (!transform.any_op) -> !transform.any_op
    %mnk_tile_tiles = transform.structured.match attributes {transformer.contraction = "mnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bmnk_tile_tiles = transform.structured.match attributes {transformer.contraction = "bmnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    %epi_tiles = transform.structured.match attributes {transformer.contraction = "epilogue"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bepi_tiles = transform.structured.match attributes {transformer.contraction = "bepilogue"} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiles = transform.merge_handles %mnk_tiles, %bmnk_tiles, %mnk_tile_tiles, %bmnk_tile_tiles,
        %epi_tiles, %bepi_tiles, %tr_tiles, %btr_tiles : !transform.any_op
    transform.foreach %tiles : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @vectorize_tile failures(suppress) (%op) : (!transform.any_op) -> ()
    }

    // Remainder tiles of dynamic size become scalar loops now, so that their
    // subviews fold into loads and stores and do not keep the accumulators of
    // the vectorized tiles in memory (the hoisting below gives up on buffers
    // with views).
    %mnk_rest = transform.structured.match attributes {transformer.contraction = "mnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bmnk_rest = transform.structured.match attributes {transformer.contraction = "bmnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %mnk_tile_rest = transform.structured.match attributes {transformer.contraction = "mnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bmnk_tile_rest = transform.structured.match attributes {transformer.contraction = "bmnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    %rest = transform.merge_handles %mnk_rest, %bmnk_rest, %mnk_tile_rest, %bmnk_tile_rest
        : !transform.any_op
    transform.foreach %rest : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %loops = transform.structured.convert_to_loops %op : (!transform.any_op) -> !transform.any_op
    }

    // 3. Keep the accumulators in registers across the k loop: the reads and
    // writes of C must use the same SSA indices for the hoisting to see them,
    // so fold the subviews into the transfers and CSE first.
    transform.apply_patterns to %funcs {
      transform.apply_patterns.memref.fold_memref_alias_ops
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %funcs : !transform.any_op
    %hoisted = transform.structured.hoist_redundant_vector_transfers %funcs
        : (!transform.any_op) -> !transform.any_op

    // 4. vector.contract -> outer products -> FMAs on 1-D vectors.
    transform.apply_patterns to %hoisted {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_16x16"
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
    } : !transform.any_op
    transform.yield
  }
}
