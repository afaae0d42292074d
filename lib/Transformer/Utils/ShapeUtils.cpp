//===- ShapeUtils.cpp - Shape arithmetic shared by the ops ----------------===//

#include "Transformer/Utils/ShapeUtils.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

bool transformer::dimsMayMatch(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

int64_t transformer::meetDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) ? b : a;
}

FailureOr<SmallVector<int64_t>>
transformer::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align at the trailing dimension; missing leading dims act as 1.
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1)
      result[i] = db;
    else if (db == 1)
      result[i] = da;
    else if (!dimsMayMatch(da, db))
      return failure();
    else
      result[i] = meetDims(da, db);
  }
  return result;
}

bool transformer::broadcastsInto(ArrayRef<int64_t> small,
                                 ArrayRef<int64_t> large) {
  if (small.size() > large.size())
    return false;
  size_t lead = large.size() - small.size();
  for (size_t i = 0; i < small.size(); ++i) {
    int64_t s = small[i], l = large[lead + i];
    if (s != 1 && !dimsMayMatch(s, l))
      return false;
  }
  return true;
}

std::string transformer::quoted(Type type) {
  std::string str;
  llvm::raw_string_ostream os(str);
  os << "'" << type << "'";
  return str;
}
