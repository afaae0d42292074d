//===- Values.cpp - Parsing and printing transformer-run values -----------===//

#include "Transformer/Runner/Values.h"

#include "Transformer/Runner/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <random>

using namespace mlir::transformer;
using namespace mlir::transformer::runner;
using llvm::StringRef;

namespace {

/// Parses `2x3xf32` (or `f32` for a scalar) into a shape and a type. The
/// type is matched as a suffix, since `index` itself contains an `x`.
llvm::Error parseTypeSpec(StringRef text, llvm::SmallVectorImpl<int64_t> &shape,
                          ElementType &type, bool &isScalar) {
  StringRef dims;
  bool found = false;
  for (ElementType candidate :
       {ElementType::F32, ElementType::F16, ElementType::BF16, ElementType::I8,
        ElementType::I32, ElementType::I64, ElementType::Index}) {
    StringRef name = elementTypeName(candidate);
    if (text == name) {
      type = candidate;
      isScalar = true;
      return llvm::Error::success();
    }
    if (text.ends_with(name) && text.drop_back(name.size()).ends_with("x")) {
      type = candidate;
      dims = text.drop_back(name.size() + 1);
      found = true;
      break;
    }
  }
  if (!found)
    return llvm::createStringError(
        "bad type '%s' (expected SHAPExTYPE such as 2x3xf32, with TYPE one "
        "of f32, f16, bf16, i8, i32, i64, index)",
        text.str().c_str());
  isScalar = false;
  llvm::SmallVector<StringRef> parts;
  dims.split(parts, 'x');
  for (StringRef dim : parts) {
    int64_t value;
    if (dim.getAsInteger(10, value) || value < 0)
      return llvm::createStringError("bad dimension '%s' in '%s'",
                                     dim.str().c_str(), text.str().c_str());
    shape.push_back(value);
  }
  return llvm::Error::success();
}

/// Splits inline values on whitespace, commas and brackets.
llvm::SmallVector<StringRef> splitValues(StringRef text) {
  llvm::SmallVector<StringRef> tokens;
  while (true) {
    text = text.drop_while([](char c) {
      return llvm::isSpace(c) || c == ',' || c == '[' || c == ']';
    });
    if (text.empty())
      return tokens;
    StringRef token = text.take_until([](char c) {
      return llvm::isSpace(c) || c == ',' || c == '[' || c == ']';
    });
    tokens.push_back(token);
    text = text.drop_front(token.size());
  }
}

/// Stores the number `token` as element `i` of `tensor`.
llvm::Error storeToken(HostTensor &tensor, int64_t i, StringRef token) {
  std::string str = token.str();
  char *end = nullptr;
  errno = 0;
  if (isFloatType(tensor.getElementType())) {
    float value = std::strtof(str.c_str(), &end);
    if (end != str.c_str() + str.size() || str.empty())
      return llvm::createStringError(
          "bad %s value '%s'",
          elementTypeName(tensor.getElementType()).str().c_str(), str.c_str());
    tensor.setFromDouble(i, value);
    return llvm::Error::success();
  }
  long long value = std::strtoll(str.c_str(), &end, 10);
  if (end != str.c_str() + str.size() || str.empty() || errno == ERANGE)
    return llvm::createStringError(
        "bad %s value '%s'",
        elementTypeName(tensor.getElementType()).str().c_str(), str.c_str());
  if (tensor.getElementType() == ElementType::I8) {
    if (value < INT8_MIN || value > INT8_MAX)
      return llvm::createStringError("i8 value '%s' is out of range",
                                     str.c_str());
    static_cast<int8_t *>(tensor.getData())[i] = static_cast<int8_t>(value);
  } else if (tensor.getElementType() == ElementType::I32) {
    if (value < INT32_MIN || value > INT32_MAX)
      return llvm::createStringError("i32 value '%s' is out of range",
                                     str.c_str());
    static_cast<int32_t *>(tensor.getData())[i] = static_cast<int32_t>(value);
  } else {
    static_cast<int64_t *>(tensor.getData())[i] = value;
  }
  return llvm::Error::success();
}

void fillRandom(HostTensor &tensor, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < tensor.getNumElements(); ++i) {
    if (isFloatType(tensor.getElementType())) {
      // Uniform in [-1, 1).
      double unit = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      tensor.setFromDouble(i, 2.0 * unit - 1.0);
    } else {
      // Small non-negative integers: usable as token ids for a table of 16+.
      tensor.setFromDouble(i, static_cast<double>(rng() % 16));
    }
  }
}
} // namespace

llvm::Expected<HostTensor>
runner::parseValueSpec(StringRef spec, uint64_t seed,
                       std::optional<ElementType> scalarType) {
  if (spec.starts_with("@")) {
    if (spec.ends_with(".bin"))
      return llvm::createStringError(
          "'%s': a raw binary file needs its shape and type: "
          "SHAPExTYPE=%s",
          spec.str().c_str(), spec.str().c_str());
    return readNpyFile(spec.drop_front());
  }

  size_t eq = spec.find('=');
  if (eq == StringRef::npos) {
    // A bare number is a scalar of the type the function expects.
    if (!scalarType)
      return llvm::createStringError(
          "cannot parse '%s': expected @FILE.npy or SHAPExTYPE=VALUES "
          "(e.g. 2x3xf32=1 2 3 4 5 6)",
          spec.str().c_str());
    llvm::Expected<HostTensor> scalar =
        HostTensor::allocate(*scalarType, {}, /*isScalar=*/true);
    if (!scalar)
      return scalar.takeError();
    if (llvm::Error err = storeToken(*scalar, 0, spec.trim()))
      return std::move(err);
    return scalar;
  }

  llvm::SmallVector<int64_t> shape;
  ElementType type;
  bool isScalar;
  if (llvm::Error err =
          parseTypeSpec(spec.take_front(eq), shape, type, isScalar))
    return std::move(err);
  StringRef values = spec.drop_front(eq + 1).trim();

  if (values.starts_with("@") && values.ends_with(".bin"))
    return readRawFile(values.drop_front(), type, shape, isScalar);
  if (values.starts_with("@")) {
    llvm::Expected<HostTensor> file = readNpyFile(values.drop_front());
    if (!file)
      return file.takeError();
    if (file->getElementType() != type ||
        file->getShape() != llvm::ArrayRef<int64_t>(shape))
      return llvm::createStringError(
          "'%s' holds %s, not the %s the spec declares",
          values.drop_front().str().c_str(), file->getTypeString().c_str(),
          spec.take_front(eq).str().c_str());
    return file;
  }

  llvm::Expected<HostTensor> tensor =
      HostTensor::allocate(type, shape, isScalar);
  if (!tensor)
    return llvm::createStringError("'%s': %s",
                                   spec.take_front(eq).str().c_str(),
                                   llvm::toString(tensor.takeError()).c_str());
  if (values == "random") {
    fillRandom(*tensor, seed);
    return tensor;
  }
  llvm::SmallVector<StringRef> tokens = splitValues(values);
  int64_t count = tensor->getNumElements();
  if (tokens.size() == 1) {
    // One value fills the whole tensor.
    if (llvm::Error err = storeToken(*tensor, 0, tokens[0]))
      return std::move(err);
    size_t size = elementSize(type);
    char *data = static_cast<char *>(tensor->getData());
    for (int64_t i = 1; i < count; ++i)
      std::memcpy(data + i * size, data, size);
    return tensor;
  }
  if (static_cast<int64_t>(tokens.size()) != count)
    return llvm::createStringError(
        "'%s' needs %lld values (or one to fill it), got %zu",
        spec.take_front(eq).str().c_str(), static_cast<long long>(count),
        tokens.size());
  for (int64_t i = 0; i < count; ++i)
    if (llvm::Error err = storeToken(*tensor, i, tokens[i]))
      return std::move(err);
  return tensor;
}

namespace {
void printElement(llvm::raw_ostream &os, const HostTensor &value, int64_t i) {
  if (isFloatType(value.getElementType())) {
    double f = value.getAsDouble(i);
    if (std::isnan(f))
      os << "nan";
    else if (std::isinf(f))
      os << (f < 0 ? "-inf" : "inf");
    else
      os << llvm::format("%g", f);
    return;
  }
  if (value.getElementType() == ElementType::I8)
    os << static_cast<int>(static_cast<const int8_t *>(value.getData())[i]);
  else if (value.getElementType() == ElementType::I32)
    os << static_cast<const int32_t *>(value.getData())[i];
  else
    os << static_cast<const int64_t *>(value.getData())[i];
}

/// Prints dimension `dim` of `value` starting at flat `offset`, eliding the
/// middle of dimensions longer than 2 * edge when `elide` is set.
void printDim(llvm::raw_ostream &os, const HostTensor &value, int64_t dim,
              int64_t offset, bool elide, int64_t edge) {
  llvm::ArrayRef<int64_t> shape = value.getShape();
  int64_t stride = 1;
  for (int64_t d = dim + 1; d < value.getRank(); ++d)
    stride *= shape[d];
  os << '[';
  bool inner = dim + 1 == value.getRank();
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (elide && shape[dim] > 2 * edge && i == edge) {
      os << (inner ? " ..." : "...");
      i = shape[dim] - edge - 1;
      continue;
    }
    if (inner) {
      if (i)
        os << ' ';
      printElement(os, value, offset + i);
    } else {
      printDim(os, value, dim + 1, offset + i * stride, elide, edge);
    }
  }
  os << ']';
}
} // namespace

void runner::printValue(llvm::raw_ostream &os, const HostTensor &value,
                        int64_t maxElements) {
  if (value.isScalar()) {
    os << elementTypeName(value.getElementType()) << '=';
    printElement(os, value, 0);
    return;
  }
  os << value.getTypeString() << '=';
  if (value.getRank() == 0) {
    printElement(os, value, 0);
    return;
  }
  bool elide = value.getNumElements() > maxElements;
  printDim(os, value, 0, 0, elide, /*edge=*/3);
}

std::optional<std::string> runner::compareValues(const HostTensor &actual,
                                                 const HostTensor &expected,
                                                 double threshold) {
  // Float results compare by value across f32, f16 and bf16: a bf16 result
  // written to .npy comes back as f32.
  bool bothFloat = isFloatType(actual.getElementType()) &&
                   isFloatType(expected.getElementType());
  if ((actual.getElementType() != expected.getElementType() && !bothFloat) ||
      actual.getShape() != expected.getShape())
    return "the result " + actual.getTypeString() +
           " does not match the expected type " + expected.getTypeString();
  for (int64_t i = 0; i < actual.getNumElements(); ++i) {
    double x = actual.getAsDouble(i), y = expected.getAsDouble(i);
    bool match;
    if (!isFloatType(actual.getElementType()))
      match = x == y;
    else if (std::isnan(x) || std::isnan(y))
      match = std::isnan(x) && std::isnan(y);
    else if (std::isinf(x) || std::isinf(y))
      match = x == y;
    else
      match = std::fabs(x - y) <= threshold;
    if (!match) {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "element at index " << i << " (";
      printElement(os, actual, i);
      os << ") does not match the expected (";
      printElement(os, expected, i);
      os << ")";
      return message;
    }
  }
  return std::nullopt;
}

llvm::Expected<OutputSpec> runner::parseOutputSpec(StringRef spec) {
  OutputSpec out;
  if (spec == "-")
    return out;
  if (spec.empty()) {
    out.kind = OutputSpec::Kind::Skip;
    return out;
  }
  if ((spec.starts_with("@") || spec.starts_with("+")) && spec.size() > 1 &&
      (spec.ends_with(".npy") || spec.ends_with(".bin"))) {
    out.kind = OutputSpec::Kind::File;
    out.append = spec.front() == '+';
    out.raw = spec.ends_with(".bin");
    out.path = spec.drop_front().str();
    return out;
  }
  return llvm::createStringError(
      "--output=%s: expected @FILE.npy, +FILE.npy (append), @FILE.bin (raw), "
      "+FILE.bin, - (print) or nothing (skip)",
      spec.str().c_str());
}

llvm::Error runner::writeOutput(const OutputSpec &spec,
                                const HostTensor &value) {
  if (spec.kind != OutputSpec::Kind::File)
    return llvm::Error::success();
  if (spec.raw)
    return writeRawFile(spec.path, value, spec.append);
  return writeNpyFile(spec.path, value, spec.append);
}
