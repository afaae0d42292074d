//===- Npy.cpp - Reading and writing numpy .npy files ---------------------===//
//
// The format: the magic "\x93NUMPY", a major and minor version byte, a
// little-endian header length (2 bytes in version 1, 4 in versions 2 and 3),
// a Python dict literal with 'descr', 'fortran_order' and 'shape', then the
// raw data.
//
//===----------------------------------------------------------------------===//

#include "Transformer/Runner/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir::transformer;
using namespace mlir::transformer::runner;
using llvm::StringRef;

namespace {
llvm::Error npyError(const llvm::Twine &message) {
  return llvm::createStringError("malformed .npy file: " + message);
}

/// Finds `'key':` in the header dict and returns the text after it.
std::optional<StringRef> findValue(StringRef header, StringRef key) {
  std::string quoted1 = "'" + key.str() + "'";
  std::string quoted2 = "\"" + key.str() + "\"";
  size_t pos = header.find(quoted1);
  size_t len = quoted1.size();
  if (pos == StringRef::npos) {
    pos = header.find(quoted2);
    len = quoted2.size();
  }
  if (pos == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(pos + len).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  return rest.ltrim();
}
} // namespace

llvm::Expected<HostTensor> runner::parseNpy(StringRef bytes) {
  if (!bytes.starts_with("\x93NUMPY"))
    return npyError("missing the \\x93NUMPY magic");
  if (bytes.size() < 10)
    return npyError("truncated header");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) |
                static_cast<unsigned char>(bytes[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return npyError("truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i]))
                   << (8 * i);
    headerStart = 12;
  } else {
    return npyError("unsupported version " + llvm::Twine(major));
  }
  if (headerLen > bytes.size() - headerStart)
    return npyError("truncated header");
  StringRef header = bytes.substr(headerStart, headerLen);
  StringRef data = bytes.drop_front(headerStart + headerLen);

  std::optional<StringRef> descr = findValue(header, "descr");
  std::optional<StringRef> fortran = findValue(header, "fortran_order");
  std::optional<StringRef> shapeText = findValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return npyError("the header lacks 'descr', 'fortran_order' or 'shape'");

  ElementType type;
  if (descr->starts_with("'<f4'") || descr->starts_with("\"<f4\""))
    type = ElementType::F32;
  else if (descr->starts_with("'<f2'") || descr->starts_with("\"<f2\""))
    type = ElementType::F16;
  else if (descr->starts_with("'|i1'") || descr->starts_with("\"|i1\""))
    type = ElementType::I8;
  else if (descr->starts_with("'<i4'") || descr->starts_with("\"<i4\""))
    type = ElementType::I32;
  else if (descr->starts_with("'<i8'") || descr->starts_with("\"<i8\""))
    type = ElementType::I64;
  else
    return llvm::createStringError(
        "unsupported .npy dtype %s (expected little-endian f4, f2, i1, i4 or "
        "i8)",
        descr->take_until([](char c) { return c == ','; }).str().c_str());
  if (!fortran->starts_with("False"))
    return llvm::createStringError(
        "unsupported .npy layout: fortran_order must be False (C order)");

  if (!shapeText->consume_front("("))
    return npyError("'shape' is not a tuple");
  size_t close = shapeText->find(')');
  if (close == StringRef::npos)
    return npyError("'shape' is not a tuple");
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<StringRef> parts;
  shapeText->take_front(close).split(parts, ',');
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t dim;
    if (part.getAsInteger(10, dim) || dim < 0)
      return npyError("bad dimension '" + part + "' in 'shape'");
    shape.push_back(dim);
  }
  llvm::Expected<HostTensor> tensor = HostTensor::allocate(type, shape);
  if (!tensor)
    return tensor.takeError();
  if (data.size() != tensor->getNumBytes())
    return npyError("expected " + llvm::Twine(tensor->getNumBytes()) +
                    " bytes of data for shape " + tensor->getTypeString() +
                    ", found " + llvm::Twine(data.size()));
  std::memcpy(tensor->getData(), data.data(), data.size());
  return tensor;
}

llvm::Expected<HostTensor> runner::readNpyFile(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot read '%s': %s", path.str().c_str(),
                                   buffer.getError().message().c_str());
  llvm::Expected<HostTensor> tensor = parseNpy((*buffer)->getBuffer());
  if (!tensor)
    return llvm::createStringError("'" + path +
                                   "': " + llvm::toString(tensor.takeError()));
  return tensor;
}

/// Writes `prefix` then the tensor's bytes to `path` (appended to what is
/// there with `append`): the body of both the .npy and the raw writer.
static llvm::Error writeTensorBytes(StringRef path, StringRef prefix,
                                    const HostTensor &tensor, bool append) {
  std::error_code ec;
  llvm::raw_fd_ostream os(
      path, ec, append ? llvm::sys::fs::OF_Append : llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write '%s': %s", path.str().c_str(),
                                   ec.message().c_str());
  os << prefix;
  os.write(static_cast<const char *>(tensor.getData()), tensor.getNumBytes());
  os.close();
  if (os.has_error())
    return llvm::createStringError("cannot write '%s'", path.str().c_str());
  return llvm::Error::success();
}

llvm::Error runner::writeNpyFile(StringRef path, const HostTensor &tensor,
                                 bool append) {
  // numpy has no bf16: its values go out as f32, which holds each exactly.
  if (tensor.getElementType() == ElementType::BF16) {
    llvm::Expected<HostTensor> widened = HostTensor::allocate(
        ElementType::F32, tensor.getShape(), tensor.isScalar());
    if (!widened)
      return widened.takeError();
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i)
      widened->setFromDouble(i, tensor.getAsDouble(i));
    return writeNpyFile(path, *widened, append);
  }
  std::string descr;
  switch (tensor.getElementType()) {
  case ElementType::F32:
  case ElementType::BF16:
    descr = "<f4";
    break;
  case ElementType::F16:
    descr = "<f2";
    break;
  case ElementType::I8:
    descr = "|i1";
    break;
  case ElementType::I32:
    descr = "<i4";
    break;
  case ElementType::I64:
  case ElementType::Index:
    descr = "<i8";
    break;
  }
  // A Python tuple: "()", "(5,)", "(2, 3)".
  std::string shape =
      "(" +
      llvm::join(llvm::map_range(tensor.getShape(),
                                 [](int64_t d) { return std::to_string(d); }),
                 ", ") +
      (tensor.getRank() == 1 ? ",)" : ")");
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces and a newline so that the data starts 64-byte aligned.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::string prefix = "\x93NUMPY";
  prefix +=
      {char(1), char(0), char(header.size() & 0xff), char(header.size() >> 8)};
  return writeTensorBytes(path, prefix + header, tensor, append);
}

llvm::Expected<HostTensor> runner::readRawFile(StringRef path, ElementType type,
                                               llvm::ArrayRef<int64_t> shape,
                                               bool isScalar) {
  llvm::Expected<HostTensor> tensor =
      HostTensor::allocate(type, shape, isScalar);
  if (!tensor)
    return tensor.takeError();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot read '%s': %s", path.str().c_str(),
                                   buffer.getError().message().c_str());
  StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() != tensor->getNumBytes())
    return llvm::createStringError(
        "'%s' holds %zu bytes, not the %zu of %s", path.str().c_str(),
        bytes.size(), tensor->getNumBytes(), tensor->getTypeString().c_str());
  std::memcpy(tensor->getData(), bytes.data(), bytes.size());
  return tensor;
}

llvm::Error runner::writeRawFile(StringRef path, const HostTensor &tensor,
                                 bool append) {
  return writeTensorBytes(path, /*prefix=*/"", tensor, append);
}
