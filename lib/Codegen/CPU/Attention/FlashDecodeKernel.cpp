//===- FlashDecodeKernel.cpp - Attention of a few queries, keys on lanes --===//
//
// The decoding kernel: at most 16 queries against a long key/value cache.
// Keys are on the vector lanes (16 with AVX-512, 8 with AVX2; a single
// query uses every lane), and the
// keys are split into chunks over the threads (flash-decoding):
//
//   task (head set, chunk): for each key block of 64 and each query i of
//   the set's heads (grouped-query attention: query heads that share a
//   key/value head are one set, so that its key block is read once for
//   all of them):
//     acc_r = sum_c K[k0 + r][L c : L c + L] * q_i[L c : ...]   (r < 64)
//     s = transpose-reduce(acc_0..L-1), ...   (64 / L vectors of L scores)
//     m' = max(m, hmax s); p = exp2(s - m'); l = l 2^(m-m') + p
//     O_i = O_i 2^(m-m') + sum_j p_j V[k0 + j]    (V rows, vectors over Dv)
//   then the partial (O, m, l) of every chunk are combined on the calling
//   thread (a second parallel region would cost a thread wake-up).
//
// Head dims are static (unrolled over vectors of L lanes, masked loads on the
// tail). Blocks outside a query's causal/window band are not visited; only
// blocks that cross the band's edges, the end of the keys or a partial mask
// block compare lanes or add the mask.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/FlashAttention.h"

#include "FlashEmitter.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::flash;

namespace {

constexpr int64_t kBlock = 64;
constexpr int64_t kMinChunk = 256;

struct DecodeKernel {
  Emitter &e;
  const FlashDecodeConfig &cfg;
  Value q = {}, k = {}, v = {}, mask = {}, out = {};
  Value sq = {}, sk = {}, off = {}, qscale = {}, maskB = {}, maskQ = {},
        maskK = {};
  /// Query heads per key/value head (grouped-query attention; 1 without).
  Value group = {};
  /// The query heads of one task (a set of heads sharing a key/value head,
  /// at most kFlashDecodeMaxQueries queries in all), and the sets per
  /// key/value head.
  Value headsPerSet = {}, setsPerGroup = {};
  int64_t nd = 0, ndv = 0; // vectors per row of K and of V

  VectorType maskType() { return VectorType::get({e.lanes}, e.b.getI1Type()); }
  /// The lanes [0, n) of a vector (n static).
  Value tailMask(int64_t n) {
    return vector::ConstantMaskOp::create(e.b, e.loc, maskType(),
                                          ArrayRef<int64_t>{n});
  }
  /// Lanes of vector c of a row of `size` elements.
  int64_t lanesOf(int64_t c, int64_t size) {
    return std::min(e.lanes, size - c * e.lanes);
  }
  /// vector c of row `ix` (the last index is the row's start) of `m`;
  /// masked (zero padded) on the row's tail.
  Value loadRow(Value m, SmallVector<Value> ix, int64_t c, int64_t size) {
    ix.back() = e.idx(c * e.lanes);
    int64_t n = lanesOf(c, size);
    if (n == e.lanes)
      return e.vload(m, ix);
    return vector::MaskedLoadOp::create(e.b, e.loc, e.vecType(), m, ix,
                                        tailMask(n), e.vf(0.0f));
  }
  void storeRow(Value x, Value m, SmallVector<Value> ix, int64_t c,
                int64_t size) {
    ix.back() = e.idx(c * e.lanes);
    int64_t n = lanesOf(c, size);
    if (n == e.lanes)
      return e.vstore(x, m, ix);
    vector::MaskedStoreOp::create(e.b, e.loc, m, ix, tailMask(n), x);
  }

  Value shuffle(Value x, Value y, ArrayRef<int64_t> lanes) {
    return vector::ShuffleOp::create(e.b, e.loc, x, y, lanes);
  }
  /// The lane sums of acc[0..lanes) as one vector (lane r: sum of acc[r]):
  /// log2(lanes) levels of pairwise shuffles and adds.
  Value transposeReduce(SmallVector<Value> acc) {
    int64_t keys = 1, width = e.lanes;
    while (acc.size() > 1) {
      SmallVector<Value> next;
      SmallVector<int64_t> lo, hi;
      for (int64_t side = 0; side < 2; ++side)
        for (int64_t kk = 0; kk < keys; ++kk)
          for (int64_t w = 0; w < width / 2; ++w) {
            lo.push_back(side * e.lanes + kk * width + w);
            hi.push_back(side * e.lanes + kk * width + width / 2 + w);
          }
      for (size_t i = 0; i < acc.size(); i += 2)
        next.push_back(e.fadd(shuffle(acc[i], acc[i + 1], lo),
                              shuffle(acc[i], acc[i + 1], hi)));
      acc = std::move(next);
      keys *= 2;
      width /= 2;
    }
    return acc.front();
  }
  /// Every lane holds the max (or sum) of x's lanes.
  Value allReduce(Value x, bool isMax) {
    for (int64_t s = e.lanes / 2; s >= 1; s /= 2) {
      SmallVector<int64_t> lanes;
      for (int64_t l = 0; l < e.lanes; ++l)
        lanes.push_back(l ^ s);
      Value y = shuffle(x, x, lanes);
      x = isMax ? e.fmax(x, y) : e.fadd(x, y);
    }
    return x;
  }
  Value iota() {
    SmallVector<int32_t> lanes;
    for (int32_t l = 0; l < e.lanes; ++l)
      lanes.push_back(l);
    return arith::ConstantOp::create(
        e.b, e.loc, DenseElementsAttr::get(e.ivecType(), ArrayRef(lanes)));
  }

  /// Keys [lo, hi) that query i sees under the causal/window rule.
  std::pair<Value, Value> keyRange(Value i) {
    if (!cfg.causal)
      return {e.idx(0), sk};
    Value last = e.add(i, off); // the diagonal key
    Value hi = e.max(e.idx(0), e.min(sk, e.add(last, e.idx(1))));
    Value lo = e.idx(0);
    if (cfg.window)
      lo = e.max(e.idx(0), e.sub(last, e.idx(*cfg.window - 1)));
    return {lo, e.max(lo, hi)};
  }

  /// The static class of key block kb (0 masked, 1 visible, 2 partial); all
  /// queries lie in the table's first query block.
  Value staticClass(Value kb) {
    const std::string &row = cfg.maskBlocks->rows.front();
    SmallVector<int8_t> table;
    for (char c : row)
      table.push_back(c == 'M' ? 0 : c == 'V' ? 1 : 2);
    auto type = RankedTensorType::get({(int64_t)table.size()}, e.b.getI8Type());
    Value cst = arith::ConstantOp::create(
        e.b, e.loc, DenseElementsAttr::get(type, ArrayRef(table)));
    Value c = tensor::ExtractOp::create(e.b, e.loc, cst, kb);
    return arith::IndexCastOp::create(e.b, e.loc, e.b.getIndexType(), c);
  }

  /// One key block [k0, k0 + nk) of key/value head kvh for query i of
  /// head bh: scores, online softmax, P V, with the state (m, l, O) of the
  /// query in row j of qbuf/mbuf/lbuf/obuf.
  /// `masked`: compare the lanes with the band [lo, hi) and add the mask.
  void block(Value bh, Value kvh, Value i, Value j, Value k0, Value nk,
             Value lo, Value hi, bool masked, Value qbuf, Value mbuf,
             Value lbuf, Value obuf, Value pbuf) {
    int64_t d = cfg.headDim, dv = cfg.valueDim;
    SmallVector<Value> qv;
    for (int64_t c = 0; c < nd; ++c)
      qv.push_back(e.vload(qbuf, {j, e.idx(c * e.lanes)}));
    Value lastKey = e.sub(sk, e.idx(1));
    Value negInf = e.vf(-std::numeric_limits<float>::infinity());
    Value lanes = masked ? iota() : Value();
    // Scores of `lanes` keys per step into pbuf; the running max of the
    // lanes.
    Value mx = e.vf(-std::numeric_limits<float>::infinity());
    mx = e.loop(
        e.idx(0), e.idx(kBlock), e.idx(e.lanes), {mx},
        [&](Value g0, ValueRange a) -> SmallVector<Value> {
          SmallVector<Value> acc;
          for (int64_t r = 0; r < e.lanes; ++r) {
            // Rows past the keys (a short last block) read the last key;
            // their lanes are hidden below.
            Value row = e.add(k0, e.add(g0, e.idx(r)));
            if (masked)
              row = e.min(row, lastKey);
            Value sum;
            for (int64_t c = 0; c < nd; ++c) {
              Value kv = loadRow(k, {kvh, row, Value()}, c, d);
              sum = c == 0 ? e.fmul(kv, qv[c]) : e.fma(kv, qv[c], sum);
            }
            acc.push_back(sum);
          }
          Value x = transposeReduce(acc);
          if (masked) {
            Value first = e.add(k0, g0);
            Value kidx = arith::AddIOp::create(e.b, e.loc,
                                               e.splat(e.toI32(first)), lanes);
            if (cfg.hasMask)
              x = e.fadd(x, maskVector(bh, i, first, kidx));
            Value hidden = arith::OrIOp::create(
                e.b, e.loc,
                e.cmp(arith::CmpIPredicate::slt, kidx, e.splat(e.toI32(lo))),
                e.cmp(arith::CmpIPredicate::sge, kidx, e.splat(e.toI32(hi))));
            x = e.sel(hidden, negInf, x);
          }
          e.vstore(x, pbuf, {g0});
          return {e.fmax(x, a[0])};
        })[0];
    Value mOld = e.vload(mbuf, {j, e.idx(0)});
    Value mNew = e.fmax(allReduce(mx, /*isMax=*/true), mOld);
    Value alpha = e.exp2(e.fsub(mOld, mNew));
    Value psum;
    for (int64_t g = 0; g < kBlock / e.lanes; ++g) {
      Value col = e.idx(g * e.lanes);
      Value p = e.exp2(e.fsub(e.vload(pbuf, {col}), mNew));
      e.vstore(p, pbuf, {col});
      psum = g == 0 ? p : e.fadd(psum, p);
    }
    e.vstore(mNew, mbuf, {j, e.idx(0)});
    e.vstore(e.fma(e.vload(lbuf, {j, e.idx(0)}), alpha, psum), lbuf,
             {j, e.idx(0)});
    // O = O alpha + sum_j p_j V[k0 + j], four keys per step, in `sets`
    // interleaved accumulators so that at least 8 FMA chains are in flight.
    int64_t sets = std::min<int64_t>(4, (8 + ndv - 1) / ndv);
    sets = sets == 3 ? 4 : sets;
    SmallVector<Value> o;
    for (int64_t c = 0; c < ndv; ++c)
      o.push_back(e.fmul(e.vload(obuf, {j, e.idx(c * e.lanes)}), alpha));
    for (int64_t set = 1; set < sets; ++set)
      o.append(ndv, e.vf(0.0f));
    auto pvRows = [&](Value j, int64_t rows, ValueRange a) {
      SmallVector<Value> next(a);
      for (int64_t r = 0; r < rows; ++r) {
        Value jr = e.add(j, e.idx(r));
        Value p = e.splat(e.load(pbuf, {jr}));
        int64_t base = (r % sets) * ndv;
        for (int64_t c = 0; c < ndv; ++c)
          next[base + c] =
              e.fma(loadRow(v, {kvh, e.add(k0, jr), Value()}, c, dv), p,
                    next[base + c]);
      }
      return next;
    };
    Value nk4 = e.sub(nk, e.rem(nk, e.idx(4)));
    o = e.loop(e.idx(0), nk4, e.idx(4), o,
               [&](Value j, ValueRange a) { return pvRows(j, 4, a); });
    o = e.loop(nk4, nk, e.idx(1), o,
               [&](Value j, ValueRange a) { return pvRows(j, 1, a); });
    for (int64_t c = 0; c < ndv; ++c) {
      Value sum = o[c];
      for (int64_t set = 1; set < sets; ++set)
        sum = e.fadd(sum, o[set * ndv + c]);
      e.vstore(sum, obuf, {j, e.idx(c * e.lanes)});
    }
  }

  /// The query head and query of row j of a task whose set starts at
  /// query head h0 (rows: the set's heads, each with its sq queries).
  std::pair<Value, Value> rowQuery(Value h0, Value j) {
    return {e.add(h0, e.div(j, sq)), e.rem(j, sq)};
  }

  /// mask[.., i, g0 + lane] * log2(e), 0 past the keys.
  Value maskVector(Value bh, Value i, Value g0, Value kidx) {
    Value mb =
        e.sel(e.cmp(arith::CmpIPredicate::eq, maskB, e.idx(1)), e.idx(0), bh);
    Value qi =
        e.sel(e.cmp(arith::CmpIPredicate::eq, maskQ, e.idx(1)), e.idx(0), i);
    Value kOne = e.cmp(arith::CmpIPredicate::eq, maskK, e.idx(1));
    SmallVector<Value> m = e.ifElse(
        kOne,
        [&]() -> SmallVector<Value> {
          return {e.splat(e.load(mask, {mb, qi, e.idx(0)}))};
        },
        [&]() -> SmallVector<Value> {
          Value inKeys =
              e.cmp(arith::CmpIPredicate::slt, kidx, e.splat(e.toI32(sk)));
          return {vector::MaskedLoadOp::create(e.b, e.loc, e.vecType(), mask,
                                               ValueRange{mb, qi, g0}, inKeys,
                                               e.vf(0.0f))};
        });
    return e.fmul(m[0], e.vf(kLog2E));
  }
};

} // namespace

func::FuncOp transformer::buildFlashDecodeKernel(OpBuilder &b, Location loc,
                                                 StringRef name,
                                                 const FlashDecodeConfig &cfg) {
  MLIRContext *ctx = b.getContext();
  int64_t dyn = ShapedType::kDynamic;
  Type f32 = b.getF32Type();
  auto m3 = MemRefType::get({dyn, dyn, dyn}, f32);
  MemRefType in = flashOperandType(ctx);
  SmallVector<Type> args = {in, in, in};
  if (cfg.hasMask)
    args.push_back(in);
  args.push_back(m3);
  auto func =
      func::FuncOp::create(b, loc, name, FunctionType::get(ctx, args, {}));
  func.setPrivate();
  OpBuilder::InsertionGuard guard(b);
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Emitter e{b, loc, cfg.lanes};
  DecodeKernel kr{e, cfg};
  unsigned a = 0;
  kr.q = entry->getArgument(a++);
  kr.k = entry->getArgument(a++);
  kr.v = entry->getArgument(a++);
  if (cfg.hasMask)
    kr.mask = entry->getArgument(a++);
  kr.out = entry->getArgument(a++);
  kr.nd = (cfg.headDim + e.lanes - 1) / e.lanes;
  kr.ndv = (cfg.valueDim + e.lanes - 1) / e.lanes;
  int64_t dPad = kr.nd * e.lanes, dvPad = kr.ndv * e.lanes;
  Value bhCount = e.dim(kr.q, 0);
  kr.sq = e.dim(kr.q, 1);
  kr.sk = e.dim(kr.k, 1);
  kr.off = e.sub(kr.sk, kr.sq);
  // The caller checked that the key/value heads divide the query heads;
  // max(., 1) keeps the division defined when there are none (then no
  // task runs).
  Value kvhCount = e.dim(kr.k, 0);
  kr.group = e.div(bhCount, e.max(kvhCount, e.idx(1)));
  // Sets of query heads that share a key/value head, with at most
  // kFlashDecodeMaxQueries queries each (sq <= that, the caller checked).
  kr.headsPerSet =
      e.max(e.idx(1), e.min(kr.group, e.div(e.idx(kFlashDecodeMaxQueries),
                                            e.max(kr.sq, e.idx(1)))));
  kr.setsPerGroup = e.ceilDiv(kr.group, kr.headsPerSet);
  Value setCount = e.mul(kvhCount, kr.setsPerGroup);
  if (cfg.hasMask) {
    kr.maskB = e.dim(kr.mask, 0);
    kr.maskQ = e.dim(kr.mask, 1);
    kr.maskK = e.dim(kr.mask, 2);
  }
  kr.qscale = e.f(
      (cfg.scale ? *cfg.scale : 1.0f / std::sqrt((float)cfg.headDim)) * kLog2E);

  // The key blocks some query sees: [lo of query 0, hi of the last query).
  Value lo = kr.keyRange(e.idx(0)).first;
  Value bLo = e.div(lo, e.idx(kBlock));
  Value bHi = e.max(bLo, e.ceilDiv(kr.sk, e.idx(kBlock)));
  // Chunks: about 8 tasks per thread, at least kMinChunk keys each.
  Value ns = e.idx(1);
  if (cfg.threads > 1)
    ns = e.max(
        e.idx(1),
        e.min(e.ceilDiv(e.idx(8 * cfg.threads), e.max(setCount, e.idx(1))),
              e.div(e.mul(e.sub(bHi, bLo), e.idx(kBlock)), e.idx(kMinChunk))));
  Value per = e.max(e.idx(1), e.ceilDiv(e.sub(bHi, bLo), ns));
  Value tasks = e.mul(setCount, ns);
  Value rowsPerTask = e.mul(kr.headsPerSet, kr.sq);
  // The partial results (freed by the buffer deallocation pipeline).
  IntegerAttr align = b.getI64IntegerAttr(64);
  Value opart =
      memref::AllocOp::create(b, loc, MemRefType::get({dyn, dyn, dvPad}, f32),
                              ValueRange{tasks, rowsPerTask}, align);
  Value mpart =
      memref::AllocOp::create(b, loc, MemRefType::get({dyn, dyn}, f32),
                              ValueRange{tasks, rowsPerTask}, align);
  Value lpart =
      memref::AllocOp::create(b, loc, MemRefType::get({dyn, dyn}, f32),
                              ValueRange{tasks, rowsPerTask}, align);

  // One task: key chunk s of key/value head kvh for the query heads of
  // one set, in the stack buffers of its thread.
  Value qbuf, mbuf, lbuf, obuf, pbuf;
  auto runTask = [&](Value t) {
    Value set = e.div(t, ns);
    Value s = e.rem(t, ns);
    Value kvh = e.div(set, kr.setsPerGroup);
    Value firstHead = e.mul(e.rem(set, kr.setsPerGroup), kr.headsPerSet);
    Value h0 = e.add(e.mul(kvh, kr.group), firstHead);
    Value rows =
        e.mul(e.min(kr.headsPerSet, e.sub(kr.group, firstHead)), kr.sq);
    Value kbLo = e.min(bHi, e.add(bLo, e.mul(s, per)));
    Value kbHi = e.min(bHi, e.add(kbLo, per));
    // Queries scaled by scale*log2(e), zero padded; empty state.
    e.loop(e.idx(0), rows, e.idx(1), {}, [&](Value j, ValueRange) {
      Value bh, i;
      std::tie(bh, i) = kr.rowQuery(h0, j);
      for (int64_t c = 0; c < kr.nd; ++c) {
        Value x = kr.loadRow(kr.q, {bh, i, Value()}, c, cfg.headDim);
        e.vstore(e.fmul(x, e.splat(kr.qscale)), qbuf, {j, e.idx(c * e.lanes)});
      }
      e.vstore(e.vf(-1.0e30f), mbuf, {j, e.idx(0)});
      e.vstore(e.vf(0.0f), lbuf, {j, e.idx(0)});
      for (int64_t c = 0; c < kr.ndv; ++c)
        e.vstore(e.vf(0.0f), obuf, {j, e.idx(c * e.lanes)});
      return SmallVector<Value>();
    });
    e.loop(kbLo, kbHi, e.idx(1), {}, [&](Value kb, ValueRange) {
      Value k0 = e.mul(kb, e.idx(kBlock));
      Value nk = e.min(e.idx(kBlock), e.sub(kr.sk, k0));
      Value end = e.add(k0, e.idx(kBlock)); // past the block, even if short
      Value cls = e.idx(1);
      if (cfg.hasMask)
        cls = cfg.maskBlocks ? kr.staticClass(kb) : e.idx(2);
      auto body = [&]() {
        e.loop(e.idx(0), rows, e.idx(1), {}, [&](Value j, ValueRange) {
          Value bh, i;
          std::tie(bh, i) = kr.rowQuery(h0, j);
          std::pair<Value, Value> range = kr.keyRange(i);
          Value qlo = range.first, qhi = range.second;
          Value seen = arith::AndIOp::create(
              b, loc, e.cmp(arith::CmpIPredicate::slt, k0, qhi),
              e.cmp(arith::CmpIPredicate::sgt, e.add(k0, nk), qlo));
          e.ifThen(seen, [&]() {
            Value inside = arith::AndIOp::create(
                b, loc, e.cmp(arith::CmpIPredicate::sle, qlo, k0),
                e.cmp(arith::CmpIPredicate::sle, end, qhi));
            if (cfg.hasMask)
              inside = arith::AndIOp::create(
                  b, loc, inside,
                  e.cmp(arith::CmpIPredicate::eq, cls, e.idx(1)));
            auto run = [&](bool masked) {
              return [&, masked]() {
                kr.block(bh, kvh, i, j, k0, nk, qlo, qhi, masked, qbuf, mbuf,
                         lbuf, obuf, pbuf);
                return SmallVector<Value>();
              };
            };
            e.ifElse(inside, run(false), run(true));
          });
          return SmallVector<Value>();
        });
      };
      if (cfg.maskBlocks)
        e.ifThen(e.cmp(arith::CmpIPredicate::ne, cls, e.idx(0)), body);
      else
        body();
      return SmallVector<Value>();
    });
    // The chunk's partial softmax.
    e.loop(e.idx(0), rows, e.idx(1), {}, [&](Value j, ValueRange) {
      for (int64_t c = 0; c < kr.ndv; ++c) {
        Value col = e.idx(c * e.lanes);
        e.vstore(e.vload(obuf, {j, col}), opart, {t, j, col});
      }
      Value m = vector::ExtractOp::create(b, loc, e.vload(mbuf, {j, e.idx(0)}),
                                          ArrayRef<int64_t>{0});
      Value l = vector::ExtractOp::create(
          b, loc, kr.allReduce(e.vload(lbuf, {j, e.idx(0)}), /*isMax=*/false),
          ArrayRef<int64_t>{0});
      e.store(m, mpart, {t, j});
      e.store(l, lpart, {t, j});
      return SmallVector<Value>();
    });
  };
  auto allocBuffers = [&]() {
    auto buf = [&](ArrayRef<int64_t> shape) {
      return memref::AllocaOp::create(b, loc, MemRefType::get(shape, f32),
                                      ValueRange{}, ValueRange{}, align);
    };
    qbuf = buf({kFlashDecodeMaxQueries, dPad});
    mbuf = buf({kFlashDecodeMaxQueries, e.lanes});
    lbuf = buf({kFlashDecodeMaxQueries, e.lanes});
    obuf = buf({kFlashDecodeMaxQueries, dvPad});
    pbuf = buf({kBlock});
  };
  // The two products per key and query of the blocks some query sees.
  Value flops =
      e.mul(e.mul(e.mul(bhCount, kr.sq), e.mul(e.sub(bHi, bLo), e.idx(kBlock))),
            e.idx(2 * (cfg.headDim + cfg.valueDim)));
  parallelTasks(e, tasks, flops, cfg.threads, allocBuffers, runTask);

  // Combine the chunks of each (head, query) on this thread: head bh is
  // head g of its group, in set g / headsPerSet at row
  // (g mod headsPerSet) sq + i.
  e.loop(e.idx(0), bhCount, e.idx(1), {}, [&](Value bh, ValueRange) {
    Value g = e.rem(bh, kr.group);
    Value set = e.add(e.mul(e.div(bh, kr.group), kr.setsPerGroup),
                      e.div(g, kr.headsPerSet));
    Value first = e.mul(set, ns);
    Value row0 = e.mul(e.rem(g, kr.headsPerSet), kr.sq);
    e.loop(e.idx(0), kr.sq, e.idx(1), {}, [&](Value i, ValueRange) {
      Value j = e.add(row0, i);
      Value m = e.loop(e.idx(0), ns, e.idx(1), {e.vf(-1.0e30f)},
                       [&](Value s, ValueRange acc) -> SmallVector<Value> {
                         Value part =
                             e.splat(e.load(mpart, {e.add(first, s), j}));
                         return {e.fmax(part, acc[0])};
                       })[0];
      SmallVector<Value> init(kr.ndv, e.vf(0.0f));
      init.push_back(e.vf(0.0f));
      SmallVector<Value> acc =
          e.loop(e.idx(0), ns, e.idx(1), init, [&](Value s, ValueRange a) {
            Value part = e.add(first, s);
            Value w = e.exp2(e.fsub(e.splat(e.load(mpart, {part, j})), m));
            SmallVector<Value> next;
            for (int64_t c = 0; c < kr.ndv; ++c)
              next.push_back(e.fma(
                  w, e.vload(opart, {part, j, e.idx(c * e.lanes)}), a[c]));
            next.push_back(
                e.fma(w, e.splat(e.load(lpart, {part, j})), a[kr.ndv]));
            return next;
          });
      // 1/l, or 0 for a query that saw no key.
      Value l = acc[kr.ndv];
      Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, l,
                                        e.vf(0.0f));
      Value inv =
          e.sel(pos, arith::DivFOp::create(b, loc, e.vf(1.0f), l), e.vf(0.0f));
      for (int64_t c = 0; c < kr.ndv; ++c)
        kr.storeRow(e.fmul(acc[c], inv), kr.out, {bh, i, Value()}, c,
                    cfg.valueDim);
      return SmallVector<Value>();
    });
    return SmallVector<Value>();
  });
  func::ReturnOp::create(b, loc);
  return func;
}
