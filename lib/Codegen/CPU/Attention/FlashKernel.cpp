//===- FlashKernel.cpp - The flash attention kernel on memrefs ------------===//
//
// One task per (batch*head, query block[, key chunk]) in an scf.forall. A
// task keeps its query block transposed and pre-scaled by scale*log2(e)
// (queries on the vector lanes: 16 with AVX-512, 8 with AVX2), loops over the
// key blocks that its causal/window band or the mask's static classes leave
// visible, and keeps the online softmax (running max and sum, rescaled
// accumulator) in registers and a stack tile:
//
//   S^T[j][i] = sum_d K[j][d] * Q^T[d][i]    (keyRows x vectors tiles)
//   m' = max(m, max_j S^T[j]);  P^T = exp2(S^T - m');  l' = l 2^(m-m') + sum_j
//   P^T O^T[dv][i] = O^T[dv][i] 2^(m-m') + sum_j V[j][dv] P^T[j][i]
//
// Scores are transposed so that the row max and sum are element-wise vector
// ops. Only blocks that cross the causal diagonal, the window edge or a
// partial mask block apply a mask. exp2 is a short polynomial.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/FlashAttention.h"

#include "FlashEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::flash;

namespace {

/// The kernel's values shared by its pieces.
struct Kernel {
  Emitter &e;
  const FlashKernelConfig &cfg;
  Value q = {}, k = {}, v = {}, mask = {}, out = {}, opart = {}, mpart = {},
        lpart = {};
  Value bh = {}, sq = {}, d = {}, sk = {}, dv = {}, off = {}, qscale = {},
        maskB = {}, maskQ = {}, maskK = {};
  /// Query heads per key/value head (grouped-query attention; 1 without),
  /// and the key/value head `kvh = bh / group` that head `bh` reads.
  Value group = {}, kvh = {};
  int64_t nv = 4, br = 64, rows = 4;

  /// The key range [lo, hi) that queries [q0, q0 + nq) may see.
  std::pair<Value, Value> keyRange(Value q0, Value nq) {
    Value lo = e.idx(0), hi = sk;
    if (!cfg.causal)
      return {lo, hi};
    hi = e.max(e.idx(0), e.min(sk, e.add(e.add(q0, nq), off)));
    if (cfg.window)
      lo = e.max(e.idx(0), e.sub(e.add(q0, off), e.idx(*cfg.window - 1)));
    return {lo, e.max(lo, hi)};
  }

  /// Whether keys [k0, k0 + nk) are all visible to queries [q0, q0 + nq)
  /// under the causal/window rule.
  Value bandInside(Value q0, Value nq, Value k0, Value nk) {
    Value lastKey = e.add(k0, e.sub(nk, e.idx(1)));
    Value ok = e.cmp(arith::CmpIPredicate::sle, lastKey, e.add(q0, off));
    if (cfg.window) {
      // k0 > (q0 + nq - 1) + off - W
      Value edge = e.sub(e.add(e.add(q0, nq), off), e.idx(*cfg.window + 1));
      ok = arith::AndIOp::create(e.b, e.loc, ok,
                                 e.cmp(arith::CmpIPredicate::sgt, k0, edge));
    }
    return ok;
  }

  /// The mask block, transposed (keys on rows) and multiplied by log2(e),
  /// into `mt`; padding queries get 0.
  void loadMaskTile(Value mt, Value q0, Value nq, Value k0, Value nk) {
    Value mb =
        e.sel(e.cmp(arith::CmpIPredicate::eq, maskB, e.idx(1)), e.idx(0), bh);
    Value qOne = e.cmp(arith::CmpIPredicate::eq, maskQ, e.idx(1));
    Value kOne = e.cmp(arith::CmpIPredicate::eq, maskK, e.idx(1));
    Value log2e = e.f(kLog2E);
    e.loop(e.idx(0), e.idx(br), e.idx(1), {}, [&](Value i, ValueRange) {
      Value valid = e.cmp(arith::CmpIPredicate::slt, i, nq);
      Value qi =
          e.sel(qOne, e.idx(0), e.min(e.add(q0, i), e.sub(sq, e.idx(1))));
      e.loop(e.idx(0), nk, e.idx(1), {}, [&](Value j, ValueRange) {
        Value kj = e.sel(kOne, e.idx(0), e.add(k0, j));
        Value m = e.load(mask, {mb, qi, kj});
        e.store(e.sel(valid, e.fmul(m, log2e), e.f(0.0f)), mt, {j, i});
        return SmallVector<Value>();
      });
      return SmallVector<Value>();
    });
  }

  /// S^T rows [j, j + r) of the block starting at key k0: returns the updated
  /// per-lane maxima. `masked`: add the mask tile / apply the causal band.
  SmallVector<Value> scoreRows(Value st, Value qt, Value mt, Value j, int64_t r,
                               Value q0, Value k0, bool masked,
                               ValueRange maxIn) {
    SmallVector<Value> zeros(r * nv, e.vf(0.0f));
    SmallVector<Value> acc =
        e.loop(e.idx(0), d, e.idx(1), zeros, [&](Value dd, ValueRange a) {
          SmallVector<Value> qv, next;
          for (int64_t n = 0; n < nv; ++n)
            qv.push_back(e.vload(qt, {dd, e.idx(n * e.lanes)}));
          for (int64_t row = 0; row < r; ++row) {
            Value kv =
                e.splat(e.load(k, {kvh, e.add(k0, e.add(j, e.idx(row))), dd}));
            for (int64_t n = 0; n < nv; ++n)
              next.push_back(e.fma(kv, qv[n], a[row * nv + n]));
          }
          return next;
        });
    SmallVector<Value> mx(maxIn);
    Value iota;
    if (masked && cfg.causal) {
      SmallVector<int32_t> lanes;
      for (int32_t l = 0; l < e.lanes; ++l)
        lanes.push_back(l);
      iota = arith::ConstantOp::create(
          e.b, e.loc, DenseElementsAttr::get(e.ivecType(), ArrayRef(lanes)));
    }
    Value negInf = e.vf(-std::numeric_limits<float>::infinity());
    for (int64_t row = 0; row < r; ++row) {
      Value jr = e.add(j, e.idx(row));
      for (int64_t n = 0; n < nv; ++n) {
        Value x = acc[row * nv + n];
        Value col = e.idx(n * e.lanes);
        if (masked && mt)
          x = e.fadd(x, e.vload(mt, {jr, col}));
        if (masked && cfg.causal) {
          // Key kj is hidden from lane l (query q0 + lanes n + l) when
          // kj - off - q0 - lanes n > l, or with a window when that is
          // <= l - W.
          Value t = e.toI32(e.sub(e.sub(e.add(k0, jr), off), e.add(q0, col)));
          Value ts = e.splat(t);
          Value hidden = e.cmp(arith::CmpIPredicate::sgt, ts, iota);
          if (cfg.window) {
            Value tw = e.splat(
                e.toI32(e.add(e.sub(e.sub(e.add(k0, jr), off), e.add(q0, col)),
                              e.idx(*cfg.window))));
            hidden = arith::OrIOp::create(
                e.b, e.loc, hidden, e.cmp(arith::CmpIPredicate::sle, tw, iota));
          }
          x = e.sel(hidden, negInf, x);
        }
        e.vstore(x, st, {jr, col});
        mx[n] = e.fmax(x, mx[n]);
      }
    }
    return mx;
  }

  /// One key block: scores, online softmax update, P V. Returns (m, l).
  SmallVector<Value> keyBlock(Value st, Value qt, Value ot, Value mt, Value q0,
                              Value nq, Value kb, ValueRange ml, bool masked) {
    Value k0 = e.mul(kb, e.idx(kFlashBlockK));
    Value nk = e.min(e.idx(kFlashBlockK), e.sub(sk, k0));
    if (masked && mt)
      loadMaskTile(mt, q0, nq, k0, nk);
    SmallVector<Value> mx(nv, e.vf(-std::numeric_limits<float>::infinity()));
    Value nkr = e.sub(nk, e.rem(nk, e.idx(rows)));
    mx = e.loop(e.idx(0), nkr, e.idx(rows), mx, [&](Value j, ValueRange a) {
      return scoreRows(st, qt, mt, j, rows, q0, k0, masked, a);
    });
    mx = e.loop(nkr, nk, e.idx(1), mx, [&](Value j, ValueRange a) {
      return scoreRows(st, qt, mt, j, 1, q0, k0, masked, a);
    });
    SmallVector<Value> mNew, alpha;
    for (int64_t n = 0; n < nv; ++n) {
      mNew.push_back(e.fmax(mx[n], ml[n]));
      alpha.push_back(e.exp2(e.fsub(ml[n], mNew[n])));
    }
    SmallVector<Value> sums(nv, e.vf(0.0f));
    sums = e.loop(e.idx(0), nk, e.idx(1), sums, [&](Value j, ValueRange a) {
      SmallVector<Value> next;
      for (int64_t n = 0; n < nv; ++n) {
        Value col = e.idx(n * e.lanes);
        Value p = e.exp2(e.fsub(e.vload(st, {j, col}), mNew[n]));
        e.vstore(p, st, {j, col});
        next.push_back(e.fadd(a[n], p));
      }
      return next;
    });
    SmallVector<Value> result(mNew);
    for (int64_t n = 0; n < nv; ++n)
      result.push_back(e.fma(ml[nv + n], alpha[n], sums[n]));
    // O^T rows [dv0, dv0 + r) = O^T * alpha + V^T P^T.
    auto pvRows = [&](Value dv0, int64_t r) {
      SmallVector<Value> init;
      for (int64_t row = 0; row < r; ++row)
        for (int64_t n = 0; n < nv; ++n)
          init.push_back(
              e.fmul(e.vload(ot, {e.add(dv0, e.idx(row)), e.idx(n * e.lanes)}),
                     alpha[n]));
      SmallVector<Value> acc =
          e.loop(e.idx(0), nk, e.idx(1), init, [&](Value j, ValueRange a) {
            SmallVector<Value> pv, next;
            for (int64_t n = 0; n < nv; ++n)
              pv.push_back(e.vload(st, {j, e.idx(n * e.lanes)}));
            for (int64_t row = 0; row < r; ++row) {
              Value vv = e.splat(
                  e.load(v, {kvh, e.add(k0, j), e.add(dv0, e.idx(row))}));
              for (int64_t n = 0; n < nv; ++n)
                next.push_back(e.fma(vv, pv[n], a[row * nv + n]));
            }
            return next;
          });
      for (int64_t row = 0; row < r; ++row)
        for (int64_t n = 0; n < nv; ++n)
          e.vstore(acc[row * nv + n], ot,
                   {e.add(dv0, e.idx(row)), e.idx(n * e.lanes)});
    };
    Value dvr = e.sub(dv, e.rem(dv, e.idx(rows)));
    e.loop(e.idx(0), dvr, e.idx(rows), {}, [&](Value dv0, ValueRange) {
      pvRows(dv0, rows);
      return SmallVector<Value>();
    });
    e.loop(dvr, dv, e.idx(1), {}, [&](Value dv0, ValueRange) {
      pvRows(dv0, 1);
      return SmallVector<Value>();
    });
    return result;
  }

  /// The class of key block kb for query block q0 from the static table:
  /// 0 masked, 1 visible, 2 partial (as an index value).
  Value staticClass(Value q0, Value kb) {
    const MaskBlocks &blocks = *cfg.maskBlocks;
    int64_t nqb = blocks.rows.size(), nkb = blocks.rows.front().size();
    SmallVector<int8_t> table;
    for (const std::string &row : blocks.rows)
      for (char c : row)
        table.push_back(c == 'M' ? 0 : c == 'V' ? 1 : 2);
    auto type = RankedTensorType::get({nqb * nkb}, e.b.getI8Type());
    Value cst = arith::ConstantOp::create(
        e.b, e.loc, DenseElementsAttr::get(type, ArrayRef(table)));
    Value qb = e.div(q0, e.idx(blocks.blockQ));
    Value pos = e.add(e.mul(qb, e.idx(nkb)), kb);
    Value c = tensor::ExtractOp::create(e.b, e.loc, cst, pos);
    return arith::IndexCastOp::create(e.b, e.loc, e.b.getIndexType(), c);
  }

  /// One task: query block qb of head bh, key blocks [kbLo, kbHi).
  void task(Value task, Value q0, Value kbLo, Value kbHi) {
    Value nq = e.min(e.idx(br), e.sub(sq, q0));
    auto bufType = [&](int64_t rowsStatic) {
      return MemRefType::get({rowsStatic, br}, e.f32());
    };
    IntegerAttr align = e.b.getI64IntegerAttr(64);
    Value qt =
        memref::AllocaOp::create(e.b, e.loc, bufType(ShapedType::kDynamic),
                                 ValueRange{d}, ValueRange{}, align);
    Value ot =
        memref::AllocaOp::create(e.b, e.loc, bufType(ShapedType::kDynamic),
                                 ValueRange{dv}, ValueRange{}, align);
    Value st = memref::AllocaOp::create(e.b, e.loc, bufType(kFlashBlockK),
                                        ValueRange{}, ValueRange{}, align);
    Value mt;
    if (cfg.hasMask)
      mt = memref::AllocaOp::create(e.b, e.loc, bufType(kFlashBlockK),
                                    ValueRange{}, ValueRange{}, align);
    // Q^T, scaled; padding queries are zero.
    e.loop(e.idx(0), e.idx(br), e.idx(1), {}, [&](Value i, ValueRange) {
      Value valid = e.cmp(arith::CmpIPredicate::slt, i, nq);
      Value qi = e.min(e.add(q0, i), e.sub(sq, e.idx(1)));
      e.loop(e.idx(0), d, e.idx(1), {}, [&](Value dd, ValueRange) {
        Value x = e.fmul(e.load(q, {bh, qi, dd}), qscale);
        e.store(e.sel(valid, x, e.f(0.0f)), qt, {dd, i});
        return SmallVector<Value>();
      });
      return SmallVector<Value>();
    });
    e.loop(e.idx(0), dv, e.idx(1), {}, [&](Value r, ValueRange) {
      for (int64_t n = 0; n < nv; ++n)
        e.vstore(e.vf(0.0f), ot, {r, e.idx(n * e.lanes)});
      return SmallVector<Value>();
    });
    SmallVector<Value> ml(nv, e.vf(-1.0e30f));
    ml.append(nv, e.vf(0.0f));
    ml = e.loop(kbLo, kbHi, e.idx(1), ml, [&](Value kb, ValueRange a) {
      Value k0 = e.mul(kb, e.idx(kFlashBlockK));
      Value nk = e.min(e.idx(kFlashBlockK), e.sub(sk, k0));
      Value cls = e.idx(1);
      if (cfg.causal)
        cls = e.sel(bandInside(q0, nq, k0, nk), e.idx(1), e.idx(2));
      if (cfg.hasMask) {
        Value mcls = cfg.maskBlocks ? staticClass(q0, kb) : e.idx(2);
        // masked wins, then partial.
        cls = e.sel(e.cmp(arith::CmpIPredicate::eq, mcls, e.idx(0)), e.idx(0),
                    e.max(cls, mcls));
      }
      auto run = [&](bool masked) {
        return [&, masked]() {
          return keyBlock(st, qt, ot, mt, q0, nq, kb, a, masked);
        };
      };
      if (!cfg.causal && !cfg.hasMask)
        return run(false)();
      return e.ifElse(
          e.cmp(arith::CmpIPredicate::eq, cls, e.idx(0)),
          [&]() { return SmallVector<Value>(a); },
          [&]() {
            return e.ifElse(e.cmp(arith::CmpIPredicate::eq, cls, e.idx(1)),
                            run(false), run(true));
          });
    });
    if (cfg.split) {
      // Partial results of this key chunk.
      e.loop(e.idx(0), dv, e.idx(1), {}, [&](Value r, ValueRange) {
        for (int64_t n = 0; n < nv; ++n) {
          Value col = e.idx(n * e.lanes);
          e.vstore(e.vload(ot, {r, col}), opart, {task, r, col});
        }
        return SmallVector<Value>();
      });
      for (int64_t n = 0; n < nv; ++n) {
        e.vstore(ml[n], mpart, {task, e.idx(n * e.lanes)});
        e.vstore(ml[nv + n], lpart, {task, e.idx(n * e.lanes)});
      }
      return;
    }
    SmallVector<Value> inv;
    for (int64_t n = 0; n < nv; ++n)
      inv.push_back(reciprocal(ml[nv + n]));
    writeOut(ot, inv, q0, nq);
  }

  /// 1/l, or 0 for rows that saw no key (fully masked rows give zeros).
  Value reciprocal(Value l) {
    Value zero = e.vf(0.0f);
    Value pos =
        arith::CmpFOp::create(e.b, e.loc, arith::CmpFPredicate::OGT, l, zero);
    return e.sel(pos, arith::DivFOp::create(e.b, e.loc, e.vf(1.0f), l), zero);
  }

  /// out[bh, q0 + i, :] = O^T[:, i] * inv[i] for the nq real queries.
  void writeOut(Value ot, ArrayRef<Value> inv, Value q0, Value nq) {
    e.loop(e.idx(0), dv, e.idx(1), {}, [&](Value r, ValueRange) {
      for (int64_t n = 0; n < nv; ++n) {
        Value col = e.idx(n * e.lanes);
        e.vstore(e.fmul(e.vload(ot, {r, col}), inv[n]), ot, {r, col});
      }
      return SmallVector<Value>();
    });
    e.loop(e.idx(0), nq, e.idx(1), {}, [&](Value i, ValueRange) {
      e.loop(e.idx(0), dv, e.idx(1), {}, [&](Value r, ValueRange) {
        e.store(e.load(ot, {r, i}), out, {bh, e.add(q0, i), r});
        return SmallVector<Value>();
      });
      return SmallVector<Value>();
    });
  }
};

} // namespace

func::FuncOp transformer::buildFlashKernel(OpBuilder &b, Location loc,
                                           StringRef name,
                                           const FlashKernelConfig &cfg) {
  MLIRContext *ctx = b.getContext();
  int64_t dyn = ShapedType::kDynamic;
  Type f32 = b.getF32Type();
  auto m3 = MemRefType::get({dyn, dyn, dyn}, f32);
  MemRefType in = flashOperandType(ctx);
  SmallVector<Type> args = {in, in, in};
  if (cfg.hasMask)
    args.push_back(in);
  args.push_back(m3);
  if (cfg.split) {
    args.push_back(MemRefType::get({dyn, dyn, cfg.blockQ()}, f32));
    args.push_back(MemRefType::get({dyn, cfg.blockQ()}, f32));
    args.push_back(MemRefType::get({dyn, cfg.blockQ()}, f32));
  }
  auto func =
      func::FuncOp::create(b, loc, name, FunctionType::get(ctx, args, {}));
  func.setPrivate();
  OpBuilder::InsertionGuard guard(b);
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Emitter e{b, loc, cfg.lanes};
  Kernel kr{e, cfg};
  unsigned a = 0;
  kr.q = entry->getArgument(a++);
  kr.k = entry->getArgument(a++);
  kr.v = entry->getArgument(a++);
  if (cfg.hasMask)
    kr.mask = entry->getArgument(a++);
  kr.out = entry->getArgument(a++);
  if (cfg.split) {
    kr.opart = entry->getArgument(a++);
    kr.mpart = entry->getArgument(a++);
    kr.lpart = entry->getArgument(a++);
  }
  kr.nv = cfg.vectors;
  kr.br = cfg.blockQ();
  kr.rows = cfg.keyRows;
  Value bhCount = e.dim(kr.q, 0);
  kr.sq = e.dim(kr.q, 1);
  kr.d = e.dim(kr.q, 2);
  kr.sk = e.dim(kr.k, 1);
  kr.dv = e.dim(kr.v, 2);
  kr.off = e.sub(kr.sk, kr.sq);
  // The caller checked that the key/value heads divide the query heads;
  // max(., 1) keeps the division defined when there are none (then no
  // task runs).
  kr.group = e.div(bhCount, e.max(e.dim(kr.k, 0), e.idx(1)));
  if (cfg.hasMask) {
    kr.maskB = e.dim(kr.mask, 0);
    kr.maskQ = e.dim(kr.mask, 1);
    kr.maskK = e.dim(kr.mask, 2);
  }
  if (cfg.scale) {
    kr.qscale = e.f(*cfg.scale * kLog2E);
  } else {
    Value df = arith::UIToFPOp::create(
        b, loc, f32, arith::IndexCastOp::create(b, loc, b.getI64Type(), kr.d));
    kr.qscale = e.fmul(math::RsqrtOp::create(b, loc, df), e.f(kLog2E));
  }
  Value nqb = e.ceilDiv(kr.sq, e.idx(kr.br));
  Value perHead = nqb;
  Value ns = e.idx(1);
  if (cfg.split) {
    ns = e.div(e.dim(kr.mpart, 0), e.mul(bhCount, nqb));
    perHead = e.mul(nqb, ns);
  }
  Value tasks = e.mul(bhCount, perHead);
  // The two products per query and key (blocks a mask skips included).
  Value flops = e.mul(e.mul(e.mul(bhCount, kr.sq), kr.sk),
                      e.mul(e.add(kr.d, kr.dv), e.idx(2)));
  parallelTasks(
      e, tasks, flops, cfg.threads, [] {},
      [&](Value t) {
        // Heads outermost; query blocks zig-zag (0, n-1, 1, n-2, ...) so that a
        // static split of a causal problem gives each thread cheap and dear
        // blocks alike.
        kr.bh = e.div(t, perHead);
        kr.kvh = e.div(kr.bh, kr.group);
        Value r = e.rem(t, perHead);
        Value s = e.rem(r, ns);
        Value z = e.div(r, ns);
        Value half = e.div(z, e.idx(2));
        Value qb =
            e.sel(e.cmp(arith::CmpIPredicate::eq, e.rem(z, e.idx(2)), e.idx(0)),
                  half, e.sub(e.sub(nqb, e.idx(1)), half));
        Value q0 = e.mul(qb, e.idx(kr.br));
        Value nq = e.min(e.idx(kr.br), e.sub(kr.sq, q0));
        auto [lo, hi] = kr.keyRange(q0, nq);
        Value kbLo = e.div(lo, e.idx(kFlashBlockK));
        Value kbHi = e.max(kbLo, e.ceilDiv(hi, e.idx(kFlashBlockK)));
        if (cfg.split) {
          Value per = e.ceilDiv(e.sub(kbHi, kbLo), ns);
          Value a0 = e.min(kbHi, e.add(kbLo, e.mul(s, per)));
          kbHi = e.min(kbHi, e.add(a0, per));
          kbLo = a0;
          // Partial results are indexed (bh, qb, s) in natural order.
          t = e.add(e.mul(e.add(e.mul(kr.bh, nqb), qb), ns), s);
        }
        kr.task(t, q0, kbLo, kbHi);
      });
  if (cfg.split) {
    // Combine the partial softmaxes of each (bh, query block).
    parallelTasks(
        e, e.mul(bhCount, nqb), flops, cfg.threads, [] {},
        [&](Value t) {
          kr.bh = e.div(t, nqb);
          Value q0 = e.mul(e.rem(t, nqb), e.idx(kr.br));
          Value nq = e.min(e.idx(kr.br), e.sub(kr.sq, q0));
          Value first = e.mul(t, ns);
          int64_t nv = kr.nv;
          SmallVector<Value> m(nv, e.vf(-1.0e30f));
          m = e.loop(e.idx(0), ns, e.idx(1), m, [&](Value s, ValueRange a) {
            SmallVector<Value> next;
            for (int64_t n = 0; n < nv; ++n)
              next.push_back(e.fmax(
                  e.vload(kr.mpart, {e.add(first, s), e.idx(n * e.lanes)}),
                  a[n]));
            return next;
          });
          Value ot = memref::AllocaOp::create(
              b, loc, MemRefType::get({dyn, kr.br}, f32), ValueRange{kr.dv},
              ValueRange{}, b.getI64IntegerAttr(64));
          // The weight of each part, exp2(part max - max), computed once and
          // used for the sums and for every output row.
          Value weights = memref::AllocaOp::create(
              b, loc, MemRefType::get({dyn, kr.br}, f32), ValueRange{ns},
              ValueRange{}, b.getI64IntegerAttr(64));
          SmallVector<Value> l(nv, e.vf(0.0f));
          l = e.loop(e.idx(0), ns, e.idx(1), l, [&](Value s, ValueRange a) {
            SmallVector<Value> next;
            for (int64_t n = 0; n < nv; ++n) {
              Value col = e.idx(n * e.lanes);
              Value w = e.exp2(
                  e.fsub(e.vload(kr.mpart, {e.add(first, s), col}), m[n]));
              e.vstore(w, weights, {s, col});
              next.push_back(
                  e.fma(w, e.vload(kr.lpart, {e.add(first, s), col}), a[n]));
            }
            return next;
          });
          e.loop(e.idx(0), kr.dv, e.idx(1), {}, [&](Value r, ValueRange) {
            SmallVector<Value> acc(nv, e.vf(0.0f));
            acc =
                e.loop(e.idx(0), ns, e.idx(1), acc, [&](Value s, ValueRange a) {
                  SmallVector<Value> next;
                  for (int64_t n = 0; n < nv; ++n) {
                    Value col = e.idx(n * e.lanes);
                    next.push_back(e.fma(
                        e.vload(weights, {s, col}),
                        e.vload(kr.opart, {e.add(first, s), r, col}), a[n]));
                  }
                  return next;
                });
            for (int64_t n = 0; n < nv; ++n)
              e.vstore(acc[n], ot, {r, e.idx(n * e.lanes)});
            return SmallVector<Value>();
          });
          SmallVector<Value> inv;
          for (int64_t n = 0; n < nv; ++n)
            inv.push_back(kr.reciprocal(l[n]));
          kr.writeOut(ot, inv, q0, nq);
        });
  }
  func::ReturnOp::create(b, loc);
  return func;
}
