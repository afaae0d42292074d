//===- MaskBlocks.cpp - The transformer.mask_blocks attribute -------------===//

#include "Transformer/Codegen/CPU/FlashAttention.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::transformer;

DictionaryAttr MaskBlocks::toAttr(MLIRContext *ctx) const {
  Builder b(ctx);
  SmallVector<Attribute> rowAttrs;
  for (const std::string &row : rows)
    rowAttrs.push_back(b.getStringAttr(row));
  return b.getDictionaryAttr(
      {b.getNamedAttr("block", b.getDenseI64ArrayAttr({blockQ, blockK})),
       b.getNamedAttr("rows", b.getArrayAttr(rowAttrs))});
}

std::optional<MaskBlocks> MaskBlocks::fromAttr(Attribute attr) {
  auto dict = dyn_cast_or_null<DictionaryAttr>(attr);
  if (!dict)
    return std::nullopt;
  auto block = dyn_cast_or_null<DenseI64ArrayAttr>(dict.get("block"));
  auto rows = dyn_cast_or_null<ArrayAttr>(dict.get("rows"));
  if (!block || block.size() != 2 || !rows || rows.empty() || block[0] <= 0 ||
      block[1] <= 0)
    return std::nullopt;
  MaskBlocks blocks;
  blocks.blockQ = block[0];
  blocks.blockK = block[1];
  for (Attribute row : rows) {
    auto s = dyn_cast<StringAttr>(row);
    if (!s || s.empty() || s.size() != cast<StringAttr>(rows[0]).size() ||
        s.getValue().find_first_not_of("MVP") != StringRef::npos)
      return std::nullopt;
    blocks.rows.push_back(s.str());
  }
  return blocks;
}
