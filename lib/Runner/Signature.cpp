//===- Signature.cpp - The signature of the function to call --------------===//

#include "Transformer/Runner/Signature.h"
#include "Transformer/Runner/BlockQuant.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::transformer;
using namespace mlir::transformer::runner;

std::string ValueSignature::str() const {
  if (isScalar)
    return elementTypeName(elementType).str();
  std::string s = "tensor<";
  for (int64_t dim : shape)
    s += (ShapedType::isDynamic(dim) ? "?" : std::to_string(dim)) + "x";
  return s + elementTypeName(elementType).str() + ">";
}

std::optional<std::string>
ValueSignature::mismatch(const HostTensor &value) const {
  auto describe = [&]() {
    return "expected " + str() + ", got " + value.getTypeString();
  };
  if (elementType != value.getElementType())
    return describe();
  // `f32=3.5` passes for a tensor<f32>, a 0-d .npy for an f32.
  int64_t rank = isScalar ? 0 : shape.size();
  if (rank != value.getRank())
    return describe();
  for (auto [expected, actual] : llvm::zip(shape, value.getShape()))
    if (!ShapedType::isDynamic(expected) && expected != actual)
      return describe();
  return std::nullopt;
}

static llvm::Error unsupportedType(Type type) {
  std::string str;
  llvm::raw_string_ostream(str) << type;
  return llvm::createStringError(
      "unsupported type %s at the function boundary (only ranked tensors "
      "and scalars of f32, f16, bf16, i8, i32, i64, index)",
      str.c_str());
}

static std::optional<ElementType> getElementType(Type element) {
  if (element.isF32())
    return ElementType::F32;
  if (element.isF16())
    return ElementType::F16;
  if (element.isBF16())
    return ElementType::BF16;
  if (element.isSignlessInteger(8))
    return ElementType::I8;
  if (element.isSignlessInteger(32))
    return ElementType::I32;
  if (element.isSignlessInteger(64))
    return ElementType::I64;
  if (element.isIndex())
    return ElementType::Index;
  return std::nullopt;
}

static llvm::Expected<ValueSignature> getValueSignature(Type type) {
  ValueSignature sig;
  Type element = type;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    element = tensor.getElementType();
    sig.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  } else if (isa<ShapedType>(type)) {
    return unsupportedType(type);
  } else {
    sig.isScalar = true;
  }
  std::optional<ElementType> elementType = getElementType(element);
  if (!elementType)
    return unsupportedType(type);
  sig.elementType = *elementType;
  return sig;
}

/// An llvm.func can be called with scalars only: a memref argument is
/// several LLVM-level arguments whose element type is gone.
static llvm::Expected<EntrySignature>
getLLVMEntrySignature(LLVM::LLVMFuncOp func, llvm::StringRef entry) {
  EntrySignature sig;
  auto add = [&](std::vector<ValueSignature> &list, Type type) -> llvm::Error {
    std::optional<ElementType> elementType =
        type.isIndex() ? std::nullopt : getElementType(type);
    if (!elementType) {
      std::string str;
      llvm::raw_string_ostream(str) << type;
      return llvm::createStringError(
          "@%s is in the LLVM dialect: only f32, i32 and i64 arguments and "
          "results can be passed to it (got %s); run the module before "
          "--transformer-to-llvm to pass tensors",
          entry.str().c_str(), str.c_str());
    }
    ValueSignature value;
    value.isScalar = true;
    value.elementType = *elementType;
    list.push_back(value);
    return llvm::Error::success();
  };
  LLVM::LLVMFunctionType type = func.getFunctionType();
  if (type.isVarArg())
    return llvm::createStringError("@%s is variadic", entry.str().c_str());
  for (Type param : type.getParams())
    if (llvm::Error err = add(sig.arguments, param))
      return std::move(err);
  if (!isa<LLVM::LLVMVoidType>(type.getReturnType()))
    if (llvm::Error err = add(sig.results, type.getReturnType()))
      return std::move(err);
  return sig;
}

llvm::Expected<EntrySignature>
runner::getEntrySignature(ModuleOp module, llvm::StringRef entry) {
  Operation *symbol = module.lookupSymbol(entry);
  if (auto llvmFunc = dyn_cast_or_null<LLVM::LLVMFuncOp>(symbol)) {
    if (llvmFunc.isExternal())
      return llvm::createStringError("function @%s has no body",
                                     entry.str().c_str());
    return getLLVMEntrySignature(llvmFunc, entry);
  }
  auto func = dyn_cast_or_null<func::FuncOp>(symbol);
  if (!func)
    return llvm::createStringError("no function @%s in the module",
                                   entry.str().c_str());
  if (func.isExternal())
    return llvm::createStringError("function @%s has no body",
                                   entry.str().c_str());
  EntrySignature sig;
  for (auto [list, types] : {std::pair{&sig.arguments, func.getArgumentTypes()},
                             std::pair{&sig.results, func.getResultTypes()}}) {
    for (Type type : types) {
      llvm::Expected<ValueSignature> value = getValueSignature(type);
      if (!value)
        return llvm::createStringError("@" + entry + ": " +
                                       llvm::toString(value.takeError()));
      list->push_back(std::move(*value));
    }
  }
  // Arguments bound by name from a weights file (docs/transformer-run.md).
  for (auto [i, arg] : llvm::enumerate(sig.arguments)) {
    Attribute attr = func.getArgAttr(i, kParameterAttrName);
    if (!attr)
      continue;
    auto name = dyn_cast<StringAttr>(attr);
    if (!name || name.getValue().empty())
      return llvm::createStringError(
          "@" + entry + ": argument " + llvm::Twine(i) + " has a " +
          kParameterAttrName + " attribute that is not a non-empty string");
    arg.parameter = name.getValue().str();
    Attribute transposed = func.getArgAttr(i, kTransposedAttrName);
    if (transposed && !isa<UnitAttr>(transposed))
      return llvm::createStringError(
          "@" + entry + ": argument " + llvm::Twine(i) + " has a " +
          kTransposedAttrName + " attribute that is not a unit attribute");
    arg.transposed = transposed != nullptr;
    if (arg.transposed && !func.getArgAttr(i, kBlockFormatAttrName) &&
        (!isFloatType(arg.elementType) || arg.shape.size() != 2))
      return llvm::createStringError(
          "@" + entry + ": argument " + llvm::Twine(i) + " has a " +
          kTransposedAttrName + " attribute but is not a matrix of f32, f16 " +
          "or bf16 (or ggml blocks)");
    if (Attribute format = func.getArgAttr(i, kBlockFormatAttrName)) {
      auto formatName = dyn_cast<StringAttr>(format);
      if (!formatName || !parseQuantFormat(formatName.getValue()) ||
          arg.elementType != ElementType::I8 || arg.shape.size() != 3)
        return llvm::createStringError(
            "@" + entry + ": argument " + llvm::Twine(i) + " has a " +
            kBlockFormatAttrName +
            " attribute that is not \"q8_0\" or \"q4_0\" on a tensor of "
            "rank 3 of i8");
      arg.blockFormat = formatName.getValue().str();
    }
  }
  return sig;
}

bool runner::isLLVMDialectModule(ModuleOp module) {
  bool onlyLLVM = true;
  module.getBody()->walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    if (!dialect || !isa<LLVM::LLVMDialect>(dialect)) {
      onlyLLVM = false;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return onlyLLVM;
}

llvm::Error runner::readPanelWidths(ModuleOp module, llvm::StringRef entry,
                                    EntrySignature &signature) {
  // The dialect's kPanelParametersAttrName
  // (Transformer/IR/TransformerDialect.h).
  auto all =
      module->getAttrOfType<DictionaryAttr>("transformer.panel_parameters");
  auto widths = all ? all.getAs<DenseI64ArrayAttr>(entry) : DenseI64ArrayAttr();
  if (!widths)
    return llvm::Error::success();
  if (widths.size() != static_cast<int64_t>(signature.arguments.size()))
    return llvm::createStringError(
        "transformer.panel_parameters gives @" + entry + " " +
        llvm::Twine(widths.size()) + " panel widths for its " +
        llvm::Twine(signature.arguments.size()) + " arguments");
  for (auto [i, width] : llvm::enumerate(widths.asArrayRef())) {
    ValueSignature &arg = signature.arguments[i];
    if (width == 0)
      continue;
    if (width < 0 || arg.parameter.empty() || !arg.blockFormat.empty() ||
        !isFloatType(arg.elementType) || arg.shape.size() != 2 ||
        arg.shape[0] < 0 || arg.shape[1] < 0 || arg.shape[1] % width != 0)
      return llvm::createStringError(
          "transformer.panel_parameters: argument " + llvm::Twine(i) + " of @" +
          entry + " (" + arg.str() + ") cannot be bound in panels " +
          llvm::Twine(width) + " wide");
    arg.panelWidth = width;
  }
  return llvm::Error::success();
}
