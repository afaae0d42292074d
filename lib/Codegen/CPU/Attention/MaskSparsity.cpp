//===- MaskSparsity.cpp - Static block classes of compile-time masks ------===//
//
// --transformer-mask-sparsity: evaluates every mask the compiler can see at
// compile time (create_causal_mask with or without a window, the causal and
// window attributes of attention, arith.constant masks, transformer.add of
// such masks) element by element, classifies each 64 x 64 (query block, key
// block) as fully masked, fully visible or partial, and records the table as
// a `transformer.mask_blocks` attribute on the ops that consume the mask
// (attention, masked_softmax) and on the ops that keep its zero blocks
// (element-wise ops mapping 0 to 0, the matmul consuming masked
// probabilities). The flash kernel reads it back: masked blocks are never
// computed, visible blocks apply no mask.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Codegen/CPU/FlashAttention.h"
#include "Transformer/Codegen/CPU/Passes.h"
#include "Transformer/IR/TransformerOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

namespace mlir::transformer {
#define GEN_PASS_DEF_TRANSFORMERMASKSPARSITYPASS
#include "Transformer/Codegen/CPU/Passes.h.inc"
} // namespace mlir::transformer

using namespace mlir;
using namespace mlir::transformer;

namespace {

/// Element kinds of a mask known at compile time.
enum Elem : uint8_t { kZero = 0, kMasked = 1, kBias = 2 };

/// An Sq x Sk mask known element by element.
struct KnownMask {
  int64_t sq = 0, sk = 0;
  std::vector<uint8_t> elems;
  uint8_t at(int64_t i, int64_t j) const { return elems[i * sk + j]; }
};

/// Largest mask evaluated (elements).
constexpr int64_t kMaxElements = int64_t(1) << 26;

/// The static trailing (Sq, Sk) of a mask type whose leading dims are all 1.
std::optional<std::pair<int64_t, int64_t>> maskShape(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || t.getRank() < 2 || !t.hasStaticShape())
    return std::nullopt;
  for (int64_t i = 0; i + 2 < t.getRank(); ++i)
    if (t.getDimSize(i) != 1)
      return std::nullopt;
  int64_t sq = t.getDimSize(t.getRank() - 2),
          sk = t.getDimSize(t.getRank() - 1);
  if (sq == 0 || sk == 0 || sq * sk > kMaxElements)
    return std::nullopt;
  return std::make_pair(sq, sk);
}

KnownMask causalMask(int64_t sq, int64_t sk, std::optional<int64_t> window) {
  KnownMask m{sq, sk, std::vector<uint8_t>(sq * sk)};
  for (int64_t i = 0; i < sq; ++i)
    for (int64_t j = 0; j < sk; ++j) {
      int64_t last = i + sk - sq;
      bool hidden = j > last || (window && j <= last - *window);
      m.elems[i * sk + j] = hidden ? kMasked : kZero;
    }
  return m;
}

/// The mask `value` as known at compile time, if it is.
std::optional<KnownMask> evaluate(Value value) {
  auto shape = maskShape(value.getType());
  if (!shape)
    return std::nullopt;
  auto [sq, sk] = *shape;
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto causal = dyn_cast<CreateCausalMaskOp>(def)) {
    std::optional<int64_t> window;
    if (std::optional<uint64_t> w = causal.getWindow())
      window = static_cast<int64_t>(*w);
    return causalMask(sq, sk, window);
  }
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
    if (!dense || !dense.getElementType().isF32())
      return std::nullopt;
    KnownMask m{sq, sk, std::vector<uint8_t>(sq * sk)};
    auto classify = [](float x) -> uint8_t {
      if (x == 0.0f)
        return kZero;
      return std::isinf(x) && x < 0 ? kMasked : kBias;
    };
    if (dense.isSplat()) {
      std::fill(m.elems.begin(), m.elems.end(),
                classify(dense.getSplatValue<float>()));
      return m;
    }
    int64_t n = 0;
    for (float x : dense.getValues<float>())
      m.elems[n++] = classify(x);
    return m;
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(def)) {
    // A block written into a mask (block-diagonal masks are built so).
    auto src = dyn_cast<RankedTensorType>(insert.getSourceType());
    if (!src || src.getRank() != 2 || insert.getType().getRank() != 2 ||
        insert.hasUnitStride() == false ||
        ShapedType::isDynamicShape(insert.getStaticOffsets()) ||
        ShapedType::isDynamicShape(insert.getStaticSizes()))
      return std::nullopt;
    std::optional<KnownMask> dest = evaluate(insert.getDest());
    std::optional<KnownMask> block = evaluate(insert.getSource());
    if (!dest || !block)
      return std::nullopt;
    int64_t i0 = insert.getStaticOffsets()[0],
            j0 = insert.getStaticOffsets()[1];
    for (int64_t i = 0; i < block->sq; ++i)
      for (int64_t j = 0; j < block->sk; ++j)
        dest->elems[(i0 + i) * sk + j0 + j] = block->at(i, j);
    return dest;
  }
  if (auto add = dyn_cast<AddOp>(def)) {
    // Only same-shaped operands (no broadcasting to reason about).
    if (add.getLhs().getType() != value.getType() ||
        add.getRhs().getType() != value.getType())
      return std::nullopt;
    std::optional<KnownMask> l = evaluate(add.getLhs());
    if (!l)
      return std::nullopt;
    std::optional<KnownMask> r = evaluate(add.getRhs());
    if (!r)
      return std::nullopt;
    for (size_t e = 0; e < l->elems.size(); ++e)
      l->elems[e] = (l->elems[e] == kMasked || r->elems[e] == kMasked) ? kMasked
                    : (l->elems[e] == kZero && r->elems[e] == kZero)   ? kZero
                                                                       : kBias;
    return l;
  }
  return std::nullopt;
}

MaskBlocks classify(const KnownMask &m) {
  MaskBlocks blocks;
  int64_t nqb = (m.sq + blocks.blockQ - 1) / blocks.blockQ;
  int64_t nkb = (m.sk + blocks.blockK - 1) / blocks.blockK;
  for (int64_t qb = 0; qb < nqb; ++qb) {
    std::string row;
    for (int64_t kb = 0; kb < nkb; ++kb) {
      bool allMasked = true, allZero = true;
      for (int64_t i = qb * blocks.blockQ;
           i < std::min(m.sq, (qb + 1) * blocks.blockQ); ++i)
        for (int64_t j = kb * blocks.blockK;
             j < std::min(m.sk, (kb + 1) * blocks.blockK); ++j) {
          uint8_t e = m.at(i, j);
          allMasked &= e == kMasked;
          allZero &= e == kZero;
        }
      row.push_back(allMasked ? 'M' : allZero ? 'V' : 'P');
    }
    blocks.rows.push_back(row);
  }
  return blocks;
}

/// Whether `op` maps zero inputs (from the annotated operand) to zero.
bool keepsZeros(Operation *op, Value from) {
  if (isa<ScaleOp, ReluOp, GeluOp>(op))
    return true;
  // x * y is zero where either is; x / y where the numerator is.
  if (isa<MulOp>(op))
    return true;
  if (auto div = dyn_cast<DivOp>(op))
    return div.getLhs() == from;
  return false;
}

struct MaskSparsityPass
    : transformer::impl::TransformerMaskSparsityPassBase<MaskSparsityPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();
    // Existing annotations must be well formed: the lowering trusts them.
    WalkResult checked = root->walk([&](Operation *op) {
      Attribute attr = op->getAttr(kMaskBlocksAttrName);
      if (!attr)
        return WalkResult::advance();
      if (!MaskBlocks::fromAttr(attr)) {
        op->emitError() << kMaskBlocksAttrName
                        << " must be {block = array<i64: BQ, BK>, rows = "
                           "[\"...\"]} with rows of equal length made of M, "
                           "V and P";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();

    SmallVector<std::pair<Value, MaskBlocks>> zeroBlocks;
    root->walk([&](Operation *op) {
      if (auto attn = dyn_cast<AttentionOp>(op)) {
        auto q = dyn_cast<RankedTensorType>(attn.getQuery().getType());
        auto k = dyn_cast<RankedTensorType>(attn.getKey().getType());
        if (!q || !k || q.getRank() < 2 || k.getRank() < 2)
          return;
        int64_t sq = q.getDimSize(q.getRank() - 2);
        int64_t sk = k.getDimSize(k.getRank() - 2);
        if (ShapedType::isDynamic(sq) || ShapedType::isDynamic(sk) ||
            sq * sk > kMaxElements || sq == 0 || sk == 0)
          return;
        std::optional<KnownMask> known;
        if (Value mask = attn.getMask()) {
          known = evaluate(mask);
          if (!known || known->sq != sq || known->sk != sk)
            return; // a run-time mask: every block is partial
        }
        if (attn.getCausal()) {
          std::optional<int64_t> window;
          if (std::optional<uint64_t> w = attn.getWindow())
            window = static_cast<int64_t>(*w);
          KnownMask c = causalMask(sq, sk, window);
          if (known) {
            for (size_t e = 0; e < c.elems.size(); ++e)
              if (c.elems[e] == kMasked)
                known->elems[e] = kMasked;
          } else {
            known = std::move(c);
          }
        }
        if (known)
          op->setAttr(kMaskBlocksAttrName, classify(*known).toAttr(ctx));
        return;
      }
      if (auto softmax = dyn_cast<MaskedSoftmaxOp>(op)) {
        auto x = dyn_cast<RankedTensorType>(softmax.getInput().getType());
        std::optional<KnownMask> known = evaluate(softmax.getMask());
        if (!x || x.getRank() < 2 || !known ||
            x.getDimSize(x.getRank() - 2) != known->sq ||
            x.getDimSize(x.getRank() - 1) != known->sk)
          return;
        MaskBlocks blocks = classify(*known);
        op->setAttr(kMaskBlocksAttrName, blocks.toAttr(ctx));
        zeroBlocks.push_back({softmax.getResult(), blocks});
      }
    });
    // Propagate zero blocks to the users that keep them.
    while (!zeroBlocks.empty()) {
      auto [value, blocks] = zeroBlocks.pop_back_val();
      for (Operation *user : value.getUsers()) {
        if (user->hasAttr(kMaskBlocksAttrName))
          continue;
        if (auto mm = dyn_cast<MatmulOp>(user)) {
          // The matmul skips the key blocks its lhs has as zero.
          if (mm.getLhs() == value)
            user->setAttr(kMaskBlocksAttrName, blocks.toAttr(ctx));
          continue;
        }
        if (user->getNumResults() == 1 &&
            user->getResult(0).getType() == value.getType() &&
            keepsZeros(user, value)) {
          user->setAttr(kMaskBlocksAttrName, blocks.toAttr(ctx));
          zeroBlocks.push_back({user->getResult(0), blocks});
        }
      }
    }
  }
};

} // namespace
