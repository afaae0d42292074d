// RUN: transformer-opt %s -split-input-file --transformer-to-llvm | mlir-translate --mlir-to-llvmir -split-input-file | FileCheck %s
// RUN: transformer-opt %s -split-input-file --transformer-to-llvm=opt-level=0 | mlir-translate --mlir-to-llvmir -split-input-file | FileCheck %s

// Every op of the dialect compiles through --transformer-to-llvm and the
// result translates to LLVM IR. Run-time checks become calls of the runtime library.

// CHECK-LABEL: define {{.*}} @matmul(
// CHECK-DAG: ret 
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = transformer.matmul %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @matmul_dynamic(
// CHECK-DAG: call {{.*}}@transformerRuntimeError
// CHECK-DAG: ret 
func.func @matmul_dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = transformer.matmul %a, %b {transpose_b} : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @transpose(
// CHECK-DAG: ret 
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = transformer.transpose %x {permutation = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @softmax(
// CHECK-DAG: ret 
func.func @softmax(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = transformer.softmax %x : tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @scale(
// CHECK-DAG: ret 
func.func @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.scale %x {factor = 3.0 : f32} : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @add(
// CHECK-DAG: ret 
func.func @add(%a: tensor<2x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = transformer.add %a, %b : tensor<2x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @sub(
// CHECK-DAG: call {{.*}}@transformerRuntimeError
// CHECK-DAG: ret 
func.func @sub(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = transformer.sub %a, %b : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @mul(
// CHECK-DAG: ret 
func.func @mul(%a: tensor<2x1xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = transformer.mul %a, %b : tensor<2x1xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @div(
// CHECK-DAG: ret 
func.func @div(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.div %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @relu(
// CHECK-DAG: ret 
func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.relu %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @gelu(
// CHECK-DAG: ret 
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.gelu %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @gelu_erf(
// CHECK-DAG: ret 
func.func @gelu_erf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = transformer.gelu %x {approximate = "none"} : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @layer_norm(
// CHECK-DAG: ret 
func.func @layer_norm(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = transformer.layer_norm %x, %g, %b : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @linear(
// CHECK-DAG: ret 
func.func @linear(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = transformer.linear %x, %w, %b : tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @embedding(
// CHECK-DAG: call {{.*}}@transformerRuntimeError
// CHECK-DAG: ret 
func.func @embedding(%ids: tensor<5xi32>, %t: tensor<10x4xf32>) -> tensor<5x4xf32> {
  %0 = transformer.embedding %ids, %t : tensor<5xi32>, tensor<10x4xf32> -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @create_causal_mask(
// CHECK-DAG: ret 
func.func @create_causal_mask() -> tensor<4x4xf32> {
  %0 = transformer.create_causal_mask : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @masked_softmax(
// CHECK-DAG: ret 
func.func @masked_softmax(%x: tensor<4x4xf32>, %m: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = transformer.masked_softmax %x, %m : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @rope(
// CHECK-DAG: call {{.*}}@transformerRuntimeError
// CHECK-DAG: ret 
func.func @rope(%x: tensor<3x8xf32>, %pos: index) -> tensor<3x8xf32> {
  %0 = transformer.rope %x at %pos : tensor<3x8xf32> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// CHECK-LABEL: define {{.*}} @attention(
// CHECK-DAG: ret 
func.func @attention(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>, %m: tensor<4x6xf32>) -> tensor<2x4x8xf32> {
  %0 = transformer.attention %q, %k, %v mask(%m : tensor<4x6xf32>) {causal} : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
