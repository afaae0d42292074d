// The CPU contraction schedule: how `--transformer-to-llvm` and
// transformer-run at -O2/-O3 turn every contraction into vector code for the
// target CPU. This file is embedded in the binary;
// `transformer-run --print-transform-schedule` prints it, and
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
// rows contiguously; the copy is vectorized here (%lanes x %lanes blocks transposed
// in registers). n indexes C's contiguous dimension. With at most 4 cache
// tiles along m, `transformer-cpu-fuse-epilogues` moves the copy into the
// cache tiles, one block per k step, read while in L2: written straight
// into the register tiles' panels where the sizes allow (then the tile is
// an "mnk_panel" contraction below), else
//   transformer.contraction = "transpose_tile"   that block (2-D)
//   transformer.contraction = "btranspose_tile"  the same, batched
// A constant weight copied in panels of the register tile's width (see
// transformer-cpu-cache-constant-weights) is read in place: its cache tiles
// come as loops over k blocks and panels (transformer-cpu-panel-contractions)
// around one contraction per panel and k block, which only needs its
// register tiles:
//   transformer.contraction = "mnk_panel"  loops (m, n, k), B a [k, r] panel
// B laid out in those panels once per call (the prepare pass does this for a
// contraction whose rows span several cache tiles) is read the same way; its
// copy is an scf.forall over the panels whose tasks are
//   transformer.contraction = "panels"   linalg.copy of k rows x r of B
// (B indexed (n, k): "transpose_tile" tasks, as above).
//
// The tiling numbers come from the target (the module's transformer.target,
// lib/Codegen/CPU/Target/CPUTarget.cpp) as the parameters of
// @__transform_main; `transformer-run --print-target` shows them:
//   cache tile     m %cache_m (128 to 256 rows of A, a k x m block in a
//                  quarter of the L2; a multiple of the register rows), n
//                  %cache_n, k %cache_k: a k x n block of
//                  B stays in half the L2, a register tile's k x n panel of
//                  B in two thirds of the L1 (AVX-512 with a 32 KiB L1:
//                  n 256 x k 128, with 48 KiB 256 x 256; AVX2: 256 x 256);
//                  m x n tiles are the units of work for the threads. The
//                  codegen pass passes half the target's k where that
//                  leaves fewer contractions with a remainder k block
//   register tile  m %reg_m, n %reg_n, k 1: two vectors along n and as many
//                  rows as leave room for B's two vectors and A's broadcast
//                  (AVX-512: 8 x 32, 16 of the 32 zmm; AVX2: 6 x 16, 12 of
//                  the 16 ymm); per k step 2 loads of B, m broadcasts of A,
//                  2m FMAs; the k loop is tagged transformer.unroll_k, for
//                  the codegen pass to unroll it (see its description)
//   transposes     %lanes x %lanes tiles (the target's f32 lanes: 16 x 16
//                  with AVX-512, 8 x 8 with AVX2), transposed in registers
// A schedule given with --transform-schedule may take the payload root
// followed by any leading part of these parameters (none, or up to all six
// in this order).
// B is packed: per k block, each panel one register tile wide that a cache
// tile reads is copied into a panel buffer that stays in L1 while the
// register tiles along m read it (allocated once per cache tile), 8 rows per
// vector step. The rows of such a copy lie a row of B apart, which the
// hardware prefetchers do not follow: transformer-cpu-prefetch-next-k-block
// has the register tiles prefetch the next block's rows of their panel. A
// batched B is copied per k block into one contiguous block first, then in
// panels from there.
// The prepare pass pads n to a multiple of the register tile. m (static, or
// the dynamic tokens of a prompt) is not padded: the register tiles'
// loop along m is peeled, and its remainder of fewer than %reg_m rows is
// computed in pairs of rows and a last single row (2 x %reg_n and 1 x
// %reg_n tiles, static, vectorized; slower than full tiles). Cache tiles that do not divide the problem are peeled the
// same way along n: the main part keeps the full static register tile; a remainder of
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
  // of fewer rows, which is tiled by pairs of rows, and the pairs' own
  // remainder by single rows (static shapes that vectorize). A pair keeps
  // twice as many FMA chains in flight as a single row: a single row's two
  // chains leave three quarters of two FMA pipes of latency 4 idle.
  // Fails (silenceably) when there is nothing to peel.
  transform.named_sequence @peel_rows(%loop: !transform.op<"scf.for"> {transform.consumed}) {
    %main, %rest = transform.loop.peel %loop
        : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.foreach %rest : !transform.any_op {
    ^bb0(%r: !transform.any_op):
      %ops = transform.structured.match interface{LinalgOp} in %r
          : (!transform.any_op) -> !transform.any_op
      %pairs, %l = transform.structured.tile_using_for %ops tile_sizes [2, 0, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
      transform.include @peel_single_rows failures(suppress) (%l) : (!transform.op<"scf.for">) -> ()
    }
    transform.yield
  }
  transform.named_sequence @peel_single_rows(%loop: !transform.op<"scf.for"> {transform.consumed}) {
    %main, %rest = transform.loop.peel %loop
        : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.include @static_pairs failures(suppress) (%main) : (!transform.any_op) -> ()
    transform.foreach %rest : !transform.any_op {
    ^bb0(%r: !transform.any_op):
      %ops = transform.structured.match interface{LinalgOp} in %r
          : (!transform.any_op) -> !transform.any_op
      %rows, %l = transform.structured.tile_using_for %ops tile_sizes [1, 0, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    transform.yield
  }
  // The pairs' size, min(2, rows left), is 2 in the peeled loop, which the
  // peeling does not see where the rows left are themselves a remainder
  // (the bounds of the value bounds analysis do). Fails (silenceably) when
  // there is nothing to simplify.
  transform.named_sequence @static_pairs(%main: !transform.any_op {transform.readonly}) {
    %mins = transform.structured.match ops{["affine.min"]} in %main
        : (!transform.any_op) -> !transform.any_op
    transform.affine.simplify_min_max_affine_ops %mins : !transform.any_op
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

  // Copies the k block of B that a cache tile reads (batched) into one
  // contiguous buffer, row by row (B's rows read along their length, which
  // the hardware prefetchers follow), 8 rows x one register tile per vector
  // step.
  transform.named_sequence @pack_bblock(%kblock: !transform.any_op {transform.readonly},
      %reg_n: !transform.param<i64> {transform.readonly}) {
    %copy = transform.structured.match ops{["linalg.copy"]} in %kblock
        : (!transform.any_op) -> !transform.any_op
    %rows, %l0, %l1, %l2 = transform.structured.tile_using_for %copy tile_sizes [1, 8, %reg_n]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %rows vector_sizes [1, 8, %reg_n] : !transform.any_op, !transform.param<i64>
    transform.apply_patterns to %kblock {
      transform.apply_patterns.vector.lower_masked_transfers
    } : !transform.any_op
    transform.yield
  }

  // Copies B's panel (k block x register tile n) into a contiguous buffer,
  // read by every register tile along m. The copy's rows go as vectors, 8
  // rows per step; a panel of dynamic size (the last k block, a dynamic n)
  // with masks.
  transform.named_sequence @pack_panel(%loop: !transform.any_op {transform.readonly},
      %reg_n: !transform.param<i64> {transform.readonly}) {
    %copy = transform.structured.match ops{["linalg.copy"]} in %loop
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %copy : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      %rows, %l = transform.structured.tile_using_for %c tile_sizes [8, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.structured.vectorize %rows vector_sizes [8, %reg_n] : !transform.any_op, !transform.param<i64>
    }
    // Masks as masked transfers (later folds would put ops in their regions).
    transform.apply_patterns to %loop {
      transform.apply_patterns.vector.lower_masked_transfers
    } : !transform.any_op
    transform.yield
  }
  transform.named_sequence @pack_bpanel(%loop: !transform.any_op {transform.readonly},
      %reg_n: !transform.param<i64> {transform.readonly}) {
    %copy = transform.structured.match ops{["linalg.copy"]} in %loop
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %copy : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      %rows, %b, %l = transform.structured.tile_using_for %c tile_sizes [1, 8, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %rows vector_sizes [1, 8, %reg_n] : !transform.any_op, !transform.param<i64>
    }
    // Masks as masked transfers (later folds would put ops in their regions).
    transform.apply_patterns to %loop {
      transform.apply_patterns.vector.lower_masked_transfers
    } : !transform.any_op
    transform.yield
  }

  // One panel's contraction (in its loop over panels): B's panel packed
  // (transform.structured.promote: a contiguous k x n buffer, which no row
  // stride or power of two makes alias in the L1), then the register tiles
  // along m that read it.
  transform.named_sequence @pack_panel_rows(%op: !transform.any_op {transform.consumed},
      %reg_m: !transform.param<i64> {transform.readonly}, %reg_n: !transform.param<i64> {transform.readonly}) {
    %panel = transform.get_parent_op %op {op_name = "scf.for"}
        : (!transform.any_op) -> !transform.any_op
    %packed = transform.structured.promote %op {operands_to_promote = [1]}
        : (!transform.any_op) -> !transform.any_op
    transform.include @pack_panel failures(propagate) (%panel, %reg_n) : (!transform.any_op, !transform.param<i64>) -> ()
    %t, %m = transform.structured.tile_using_for %packed tile_sizes [%reg_m, 0, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.include @peel_rows failures(suppress) (%m) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  transform.named_sequence @pack_panel_brows(%op: !transform.any_op {transform.consumed},
      %reg_m: !transform.param<i64> {transform.readonly}, %reg_n: !transform.param<i64> {transform.readonly}) {
    %panel = transform.get_parent_op %op {op_name = "scf.for"}
        : (!transform.any_op) -> !transform.any_op
    %packed = transform.structured.promote %op {operands_to_promote = [1]}
        : (!transform.any_op) -> !transform.any_op
    transform.include @pack_bpanel failures(propagate) (%panel, %reg_n) : (!transform.any_op, !transform.param<i64>) -> ()
    %t, %m = transform.structured.tile_using_for %packed tile_sizes [0, %reg_m, 0, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.include @peel_brows failures(suppress) (%m) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // (m, n, k) in one cache tile: k blocks (the loop peeled: full blocks of
  // static size, then the rest); in each, panels of B one register tile
  // wide (peeled the same way), each copied straight from B and read by the
  // register tiles along m. The cache tile is the only contraction in its
  // scf.forall.
  transform.named_sequence @tile_mnk_panels(%op: !transform.any_op {transform.consumed},
      %reg_m: !transform.param<i64> {transform.readonly}, %reg_n: !transform.param<i64> {transform.readonly}) {
    %kblock = transform.get_parent_op %op {op_name = "scf.for"}
        : (!transform.any_op) -> !transform.any_op
    %t, %n = transform.structured.tile_using_for %op tile_sizes [0, %reg_n, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%n) : (!transform.op<"scf.for">) -> ()
    %untiled = transform.structured.match attributes {transformer.contraction = "mnk"} in %kblock
        : (!transform.any_op) -> !transform.any_op
    %tiled = transform.structured.match attributes {transformer.contraction = "mnk_tile"} in %kblock
        : (!transform.any_op) -> !transform.any_op
    %panels = transform.merge_handles %untiled, %tiled : !transform.any_op
    transform.foreach %panels : !transform.any_op {
    ^bb0(%p: !transform.any_op):
      transform.include @pack_panel_rows failures(propagate) (%p, %reg_m, %reg_n)
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> ()
    }
    transform.yield
  }
  transform.named_sequence @tile_mnk_tile(%op: !transform.any_op {transform.consumed},
      %reg_m: !transform.param<i64> {transform.readonly}, %reg_n: !transform.param<i64> {transform.readonly},
      %cache_k: !transform.param<i64> {transform.readonly}) {
    %tile = transform.get_parent_op %op : (!transform.any_op) -> !transform.any_op
    %t, %k = transform.structured.tile_using_for %op tile_sizes [0, 0, %cache_k]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%k) : (!transform.op<"scf.for">) -> ()
    %untiled = transform.structured.match attributes {transformer.contraction = "mnk"} in %tile
        : (!transform.any_op) -> !transform.any_op
    %tiled = transform.structured.match attributes {transformer.contraction = "mnk_tile"} in %tile
        : (!transform.any_op) -> !transform.any_op
    %blocks = transform.merge_handles %untiled, %tiled : !transform.any_op
    transform.foreach %blocks : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @tile_mnk_panels failures(propagate) (%b, %reg_m, %reg_n)
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> ()
    }
    transform.yield
  }

  // Then (once every contraction has its rows) the register tiles along n
  // and k.
  transform.named_sequence @tile_mnk_registers(%op: !transform.any_op {transform.consumed},
      %reg_n: !transform.param<i64> {transform.readonly}) {
    %t, %n, %k1 = transform.structured.tile_using_for %op tile_sizes [0, %reg_n, 1]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">, !transform.any_op)
    transform.annotate %k1 "transformer.unroll_k" : !transform.any_op
    transform.include @peel failures(suppress) (%n) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // (m, n, k): cache tiles over threads, then as above.
  transform.named_sequence @tile_mnk(%op: !transform.any_op {transform.consumed},
      %reg_m: !transform.param<i64> {transform.readonly}, %reg_n: !transform.param<i64> {transform.readonly},
      %cache_m: !transform.param<i64> {transform.readonly},
      %cache_n: !transform.param<i64> {transform.readonly}, %cache_k: !transform.param<i64> {transform.readonly}) {
    %t1, %forall = transform.structured.tile_using_forall %op tile_sizes [%cache_m, %cache_n]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.include @tile_mnk_tile failures(propagate) (%t1, %reg_m, %reg_n, %cache_k)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }

  // One panel's k block of a cache tile whose B is a constant weight copied
  // in panels of one register tile's width: the contraction
  // (transformer-cpu-panel-contractions made the k block and panel loops)
  // reads the panel where it is, already the contiguous k x n block that
  // packing makes. Register tiles along m, peeled as above.
  transform.named_sequence @tile_mnk_panel(%op: !transform.any_op {transform.consumed},
      %reg_m: !transform.param<i64> {transform.readonly}) {
    %t, %m = transform.structured.tile_using_for %op tile_sizes [%reg_m, 0, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.include @peel_rows failures(suppress) (%m) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // (b, m, n, k) in one cache tile, B packed in panels as above.
  transform.named_sequence @tile_bmnk_panels(%op: !transform.any_op {transform.consumed},
      %reg_m: !transform.param<i64> {transform.readonly}, %reg_n: !transform.param<i64> {transform.readonly}) {
    %kblock = transform.get_parent_op %op {op_name = "scf.for"}
        : (!transform.any_op) -> !transform.any_op
    %blocked = transform.structured.promote %op {operands_to_promote = [1]}
        : (!transform.any_op) -> !transform.any_op
    transform.include @pack_bblock failures(propagate) (%kblock, %reg_n)
        : (!transform.any_op, !transform.param<i64>) -> ()
    %t, %n = transform.structured.tile_using_for %blocked tile_sizes [0, 0, %reg_n, 0]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%n) : (!transform.op<"scf.for">) -> ()
    %untiled = transform.structured.match attributes {transformer.contraction = "bmnk"} in %kblock
        : (!transform.any_op) -> !transform.any_op
    %tiled = transform.structured.match attributes {transformer.contraction = "bmnk_tile"} in %kblock
        : (!transform.any_op) -> !transform.any_op
    %panels = transform.merge_handles %untiled, %tiled : !transform.any_op
    transform.foreach %panels : !transform.any_op {
    ^bb0(%p: !transform.any_op):
      transform.include @pack_panel_brows failures(propagate) (%p, %reg_m, %reg_n)
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> ()
    }
    transform.yield
  }
  transform.named_sequence @tile_bmnk_tile(%op: !transform.any_op {transform.consumed},
      %reg_m: !transform.param<i64> {transform.readonly}, %reg_n: !transform.param<i64> {transform.readonly},
      %cache_k: !transform.param<i64> {transform.readonly}) {
    %tile = transform.get_parent_op %op : (!transform.any_op) -> !transform.any_op
    %t, %k = transform.structured.tile_using_for %op tile_sizes [0, 0, 0, %cache_k]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%k) : (!transform.op<"scf.for">) -> ()
    %untiled = transform.structured.match attributes {transformer.contraction = "bmnk"} in %tile
        : (!transform.any_op) -> !transform.any_op
    %tiled = transform.structured.match attributes {transformer.contraction = "bmnk_tile"} in %tile
        : (!transform.any_op) -> !transform.any_op
    %blocks = transform.merge_handles %untiled, %tiled : !transform.any_op
    transform.foreach %blocks : !transform.any_op {
    ^bb0(%b: !transform.any_op):
      transform.include @tile_bmnk_panels failures(propagate) (%b, %reg_m, %reg_n)
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> ()
    }
    transform.yield
  }

  // Then (once every contraction has its rows) the register tiles along n
  // and k.
  transform.named_sequence @tile_bmnk_registers(%op: !transform.any_op {transform.consumed},
      %reg_n: !transform.param<i64> {transform.readonly}) {
    %t, %n, %k1 = transform.structured.tile_using_for %op tile_sizes [0, 0, %reg_n, 1]
        : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.op<"scf.for">, !transform.any_op)
    transform.annotate %k1 "transformer.unroll_k" : !transform.any_op
    transform.include @peel failures(suppress) (%n) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // (b, m, n, k): one batch per task, then as above.
  transform.named_sequence @tile_bmnk(%op: !transform.any_op {transform.consumed},
      %reg_m: !transform.param<i64> {transform.readonly}, %reg_n: !transform.param<i64> {transform.readonly},
      %cache_m: !transform.param<i64> {transform.readonly},
      %cache_n: !transform.param<i64> {transform.readonly}, %cache_k: !transform.param<i64> {transform.readonly}) {
    %t1, %forall = transform.structured.tile_using_forall %op tile_sizes [1, %cache_m, %cache_n]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.include @tile_bmnk_tile failures(propagate) (%t1, %reg_m, %reg_n, %cache_k)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }

  // Element-wise ops fused into a cache tile (the accumulator's fill or bias
  // broadcast before the contraction, bias/GELU/residual after it): vectors
  // of %reg_n along the row, the remainder peeled.
  transform.named_sequence @tile_epilogue(%op: !transform.any_op {transform.consumed},
      %reg_n: !transform.param<i64> {transform.readonly}) {
    %t, %r, %c = transform.structured.tile_using_for %op tile_sizes [1, %reg_n]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  transform.named_sequence @tile_bepilogue(%op: !transform.any_op {transform.consumed},
      %reg_n: !transform.param<i64> {transform.readonly}) {
    %t, %b, %r, %c = transform.structured.tile_using_for %op tile_sizes [1, 1, %reg_n]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // B's transposed copy (k x n from n x k): blocks of 256 x 256 over the
  // threads, %lanes x %lanes tiles transposed in registers (vector.shuffle;
  // 16 x 16 on AVX2 took 32 ymm registers and spilled), the
  // remainders peeled (a block of dynamic size keeps static full tiles; only
  // its last partial tiles are scalar loops). Generalized first: the casts
  // that canonicalization leaves on the static tiles fold into a
  // linalg.generic, not into a linalg.transpose.
  transform.named_sequence @tile_transpose(%op: !transform.any_op {transform.consumed},
      %lanes: !transform.param<i64> {transform.readonly}) {
    %g = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op
    %tag = transform.param.constant "transpose" -> !transform.any_param
    transform.annotate %g "transformer.contraction" = %tag : !transform.any_op, !transform.any_param
    %t1, %forall = transform.structured.tile_using_forall %g tile_sizes [256, 256]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t2, %r, %c = transform.structured.tile_using_for %t1 tile_sizes [%lanes, %lanes]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%r) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  transform.named_sequence @tile_btranspose(%op: !transform.any_op {transform.consumed},
      %lanes: !transform.param<i64> {transform.readonly}) {
    %g = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op
    %tag = transform.param.constant "btranspose" -> !transform.any_param
    transform.annotate %g "transformer.contraction" = %tag : !transform.any_op, !transform.any_param
    %t1, %forall = transform.structured.tile_using_forall %g tile_sizes [1, 256, 256]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t2, %r, %c = transform.structured.tile_using_for %t1 tile_sizes [0, %lanes, %lanes]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%r) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // One panel of B's copy in panels made per call (the prepare pass's
  // scf.forall over the panels: k x %reg_n columns of B into a contiguous
  // panel), 8 rows per vector step.
  transform.named_sequence @tile_panels(%op: !transform.any_op {transform.consumed},
      %reg_n: !transform.param<i64> {transform.readonly}) {
    %rows, %loop = transform.structured.tile_using_for %op tile_sizes [8, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%loop) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // B's transposed copy made per cache tile (fused into the contraction's
  // scf.forall by transformer-cpu-fuse-epilogues when there are few tiles
  // along m): the same %lanes x %lanes register tiles, no threads of its
  // own.
  transform.named_sequence @tile_transpose_tile(%op: !transform.any_op {transform.consumed},
      %lanes: !transform.param<i64> {transform.readonly}) {
    %g = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op
    %tag = transform.param.constant "transpose" -> !transform.any_param
    transform.annotate %g "transformer.contraction" = %tag : !transform.any_op, !transform.any_param
    %t, %c, %r = transform.structured.tile_using_for %g tile_sizes [%lanes, %lanes] interchange = [1, 0]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.op<"scf.for">, !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%r) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  transform.named_sequence @tile_btranspose_tile(%op: !transform.any_op {transform.consumed},
      %lanes: !transform.param<i64> {transform.readonly}) {
    %g = transform.structured.generalize %op : (!transform.any_op) -> !transform.any_op
    %tag = transform.param.constant "btranspose" -> !transform.any_param
    transform.annotate %g "transformer.contraction" = %tag : !transform.any_op, !transform.any_param
    %t, %b, %r, %c = transform.structured.tile_using_for %g tile_sizes [1, %lanes, %lanes]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.op<"scf.for">,
            !transform.op<"scf.for">)
    transform.include @peel failures(suppress) (%c) : (!transform.op<"scf.for">) -> ()
    transform.include @peel failures(suppress) (%r) : (!transform.op<"scf.for">) -> ()
    transform.yield
  }

  // The payload, then the target's tile sizes (transformer.target, see
  // CPUTarget::contractionRegisterTile and contractionCacheTile).
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly},
      %reg_m: !transform.param<i64> {transform.readonly}, %reg_n: !transform.param<i64> {transform.readonly},
      %cache_m: !transform.param<i64> {transform.readonly}, %cache_n: !transform.param<i64> {transform.readonly},
      %cache_k: !transform.param<i64> {transform.readonly},
      %lanes: !transform.param<i64> {transform.readonly}) {
    // 1. Tiling.
    %mnk = transform.structured.match attributes {transformer.contraction = "mnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mnk : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_mnk failures(propagate) (%op, %reg_m, %reg_n, %cache_m, %cache_n, %cache_k)
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    }
    %bmnk = transform.structured.match attributes {transformer.contraction = "bmnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %bmnk : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_bmnk failures(propagate) (%op, %reg_m, %reg_n, %cache_m, %cache_n, %cache_k)
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    }
    %mnk_tile = transform.structured.match attributes {transformer.contraction = "mnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mnk_tile : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_mnk_tile failures(propagate) (%op, %reg_m, %reg_n, %cache_k)
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    }
    %bmnk_tile = transform.structured.match attributes {transformer.contraction = "bmnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %bmnk_tile : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_bmnk_tile failures(propagate) (%op, %reg_m, %reg_n, %cache_k)
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>, !transform.param<i64>) -> ()
    }
    %mnk_panel = transform.structured.match attributes {transformer.contraction = "mnk_panel"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mnk_panel : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_mnk_panel failures(propagate) (%op, %reg_m)
          : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %epi = transform.structured.match attributes {transformer.contraction = "epilogue"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %epi : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_epilogue failures(propagate) (%op, %reg_n)
          : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %bepi = transform.structured.match attributes {transformer.contraction = "bepilogue"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %bepi : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_bepilogue failures(propagate) (%op, %reg_n)
          : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %tr = transform.structured.match attributes {transformer.contraction = "transpose"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tr : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_transpose failures(propagate) (%op, %lanes)
          : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %btr = transform.structured.match attributes {transformer.contraction = "btranspose"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %btr : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_btranspose failures(propagate) (%op, %lanes)
          : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %panels = transform.structured.match attributes {transformer.contraction = "panels"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %panels : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_panels failures(propagate) (%op, %reg_n)
          : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %tr_tile = transform.structured.match attributes {transformer.contraction = "transpose_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tr_tile : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_transpose_tile failures(propagate) (%op, %lanes)
          : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %btr_tile = transform.structured.match attributes {transformer.contraction = "btranspose_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %btr_tile : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_btranspose_tile failures(propagate) (%op, %lanes)
          : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %mnk_rows = transform.structured.match attributes {transformer.contraction = "mnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %mnk_tile_rows = transform.structured.match attributes {transformer.contraction = "mnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    %mnk_panel_rows = transform.structured.match attributes {transformer.contraction = "mnk_panel"} in %root
        : (!transform.any_op) -> !transform.any_op
    %mnk_all = transform.merge_handles %mnk_rows, %mnk_tile_rows, %mnk_panel_rows : !transform.any_op
    transform.foreach %mnk_all : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_mnk_registers failures(propagate) (%op, %reg_n)
          : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %bmnk_rows = transform.structured.match attributes {transformer.contraction = "bmnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bmnk_tile_rows = transform.structured.match attributes {transformer.contraction = "bmnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bmnk_all = transform.merge_handles %bmnk_rows, %bmnk_tile_rows : !transform.any_op
    transform.foreach %bmnk_all : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @tile_bmnk_registers failures(propagate) (%op, %reg_n)
          : (!transform.any_op, !transform.param<i64>) -> ()
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
    %mnk_panel_tiles = transform.structured.match attributes {transformer.contraction = "mnk_panel"} in %root
        : (!transform.any_op) -> !transform.any_op
    %panel_tiles = transform.structured.match attributes {transformer.contraction = "panels"} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiles = transform.merge_handles %mnk_tiles, %bmnk_tiles, %mnk_tile_tiles, %bmnk_tile_tiles,
        %mnk_panel_tiles, %epi_tiles, %bepi_tiles, %tr_tiles, %btr_tiles, %panel_tiles : !transform.any_op
    transform.foreach %tiles : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      transform.include @vectorize_tile failures(suppress) (%op) : (!transform.any_op) -> ()
    }

    // Remainder tiles of dynamic size (of contractions and of the element-wise
    // ops fused with them: the accumulator's fill) become scalar loops now,
    // so that their subviews fold into loads and stores and do not keep the
    // accumulators of the vectorized tiles in memory (the hoisting below
    // gives up on buffers with views).
    %mnk_rest = transform.structured.match attributes {transformer.contraction = "mnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bmnk_rest = transform.structured.match attributes {transformer.contraction = "bmnk"} in %root
        : (!transform.any_op) -> !transform.any_op
    %mnk_tile_rest = transform.structured.match attributes {transformer.contraction = "mnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bmnk_tile_rest = transform.structured.match attributes {transformer.contraction = "bmnk_tile"} in %root
        : (!transform.any_op) -> !transform.any_op
    %epi_rest = transform.structured.match attributes {transformer.contraction = "epilogue"} in %root
        : (!transform.any_op) -> !transform.any_op
    %bepi_rest = transform.structured.match attributes {transformer.contraction = "bepilogue"} in %root
        : (!transform.any_op) -> !transform.any_op
    %mnk_panel_rest = transform.structured.match attributes {transformer.contraction = "mnk_panel"} in %root
        : (!transform.any_op) -> !transform.any_op
    %rest = transform.merge_handles %mnk_rest, %bmnk_rest, %mnk_tile_rest, %bmnk_tile_rest,
        %mnk_panel_rest, %epi_rest, %bepi_rest : !transform.any_op
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
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_16x16" avx2_lowering_strategy = true
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
    } : !transform.any_op
    transform.yield
  }
}
