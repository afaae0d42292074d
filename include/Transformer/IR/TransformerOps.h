//===- TransformerOps.h - transformer dialect ops ---------------*- C++ -*-===//

#ifndef TRANSFORMER_IR_TRANSFORMEROPS_H
#define TRANSFORMER_IR_TRANSFORMEROPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Transformer/IR/TransformerDialect.h"
#include "Transformer/Interfaces/ShapeInferenceInterface.h"

#define GET_OP_CLASSES
#include "Transformer/IR/TransformerOps.h.inc"

#endif // TRANSFORMER_IR_TRANSFORMEROPS_H
