//===- ShapeInferenceInterface.td - Shape inference interface -*- tablegen -*-===//
//
// The interface through which `--transformer-shape-inference` refines result
// types. Each op computes its result type from its operand types with the same
// shape functions that its verifier uses (lib/Transformer/Utils/ShapeUtils.cpp),
// so the verifier and the pass can never disagree.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_INTERFACES_SHAPEINFERENCEINTERFACE
#define TRANSFORMER_INTERFACES_SHAPEINFERENCEINTERFACE

include "mlir/IR/OpBase.td"

def ShapeInferenceOpInterface : OpInterface<"ShapeInferenceOpInterface"> {
  let description = [{
    An op whose result type is a function of its operand types and attributes.

    `inferResultType` returns the most precise result type that the operands
    allow: a ranked type (possibly with dynamic dimensions) when the operands
    are ranked, an unranked type when some operand is unranked and the result
    rank cannot be known. It fails when the operands are inconsistent; with
    `emitErrors` set it then reports the problem on the op.

    `inferShapes` (used by the pass) meets the inferred type with the declared
    result type and writes the more precise one back to the result.
  }];
  let cppNamespace = "::mlir::transformer";

  let methods = [
    InterfaceMethod<
      /*desc=*/"Computes the result type from the operand types.",
      /*retTy=*/"::mlir::FailureOr<::mlir::TensorType>",
      /*methodName=*/"inferResultType",
      /*args=*/(ins "bool":$emitErrors)>,
    InterfaceMethod<
      /*desc=*/[{Refines the result type in place from the operand types.
                 Returns failure (with a diagnostic) when the operands are
                 inconsistent or the declared type contradicts them.}],
      /*retTy=*/"::mlir::LogicalResult",
      /*methodName=*/"inferShapes",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return ::mlir::transformer::refineResultType($_op.getOperation(),
            ::llvm::cast<ShapeInferenceOpInterface>($_op.getOperation()));
      }]>,
  ];
}

#endif // TRANSFORMER_INTERFACES_SHAPEINFERENCEINTERFACE
