// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=skylake-avx512 threads=2},transformer-cpu-panel-parameters)' --split-input-file | FileCheck %s
// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=haswell threads=2},transformer-cpu-panel-parameters)' --split-input-file | FileCheck %s --check-prefix=AVX2
// RUN: transformer-opt %s --pass-pipeline='builtin.module(transformer-cpu-select-target{cpu=skylake-avx512 threads=2},transformer-cpu-panel-parameters,func.func(transformer-cpu-prepare-contractions))' --split-input-file | FileCheck %s --check-prefix=PREPARE

// A weight bound by name and read only as a plain B is passed in panels of
// the register tile's width (32 columns with AVX-512, 16 with AVX2): the argument
// keeps its type and gets transformer.panels, the module records the widths
// of each public function's arguments, and the function views the buffer
// as [n / r, k, r], which the contraction reads as (n floordiv r, k, n mod r).
// CHECK-DAG: #[[$PANEL:.*]] = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2, d1 mod 32)>
// CHECK: module attributes {transformer.panel_parameters = {plain = array<i64: 0, 32, 0>}
// CHECK-LABEL: func.func @plain(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x64xf32>, %[[W:[^:]*]]: tensor<64x128xf32> {transformer.panels = 32 : i64, transformer.parameter = "w"}, %[[ACC:[^:]*]]: tensor<?x128xf32>
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<64x128xf32> to memref<64x128xf32>
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[BUF]] to offset: [0], sizes: [4, 64, 32], strides: [2048, 32, 1] : memref<64x128xf32> to memref<4x64x32xf32>
// CHECK: %[[P:.*]] = bufferization.to_tensor %[[VIEW]] restrict : memref<4x64x32xf32> to tensor<4x64x32xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$PANEL]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[P]] : tensor<?x64xf32>, tensor<4x64x32xf32>) outs(%[[ACC]] : tensor<?x128xf32>)
// AVX2: module attributes {transformer.panel_parameters = {plain = array<i64: 0, 16, 0>}
// AVX2: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [8, 64, 16], strides: [1024, 16, 1]

// Then the few rows take the row form, whose loads read the panels (panel
// n / 32, row k, column n mod 32: a tile starts a panel, so its vectors lie
// at constant columns of consecutive panels), and the other rows are tagged
// for the schedule's cache tiles.
// PREPARE-LABEL: func.func @plain(
// PREPARE: %[[P:[0-9a-z_]+]] = bufferization.to_tensor
// PREPARE: scf.if
// PREPARE: scf.forall
// PREPARE: %[[PANEL:[0-9a-z_]+]] = arith.divui %{{.*}}, %c32{{.*}} : index
// PREPARE: %[[NEXT:[0-9a-z_]+]] = arith.addi %[[PANEL]], %c1{{.*}} : index
// PREPARE: scf.for %[[K:[0-9a-z_]+]] =
// PREPARE: vector.transfer_read %[[P]][%[[PANEL]], %[[K]], %c0{{.*}}]
// PREPARE: vector.transfer_read %[[P]][%[[PANEL]], %[[K]], %c16{{.*}}]
// PREPARE: vector.transfer_read %[[P]][%[[NEXT]], %[[K]], %c0{{.*}}]
// PREPARE: } else {
// PREPARE: linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<?x64xf32>, tensor<4x64x32xf32>) {{.*}} attrs = {transformer.contraction = "mnk"}
func.func @plain(%x: tensor<?x64xf32>, %w: tensor<64x128xf32> {transformer.parameter = "w"}, %acc: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x128xf32>) outs(%acc : tensor<?x128xf32>) -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

// A bf16 weight too: its panels keep its type (a panel row of 32 is one
// cache line), and the contraction widens B in its body as before. The row
// form widens each vector of the panels it loads.
// CHECK-DAG: #[[$PANEL:.*]] = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2, d1 mod 32)>
// CHECK: module attributes {transformer.panel_parameters = {half = array<i64: 0, 32, 0>}
// CHECK-LABEL: func.func @half(
// CHECK-SAME: %{{[^:]*}}: tensor<64x128xbf16> {transformer.panels = 32 : i64, transformer.parameter = "w"}
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [4, 64, 32], strides: [2048, 32, 1] : memref<64x128xbf16> to memref<4x64x32xbf16>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$PANEL]], #{{.*}}], {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<4x64x32xbf16>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: bf16, %[[C:.*]]: f32):
// CHECK: arith.extf %[[B]] : bf16 to f32
// PREPARE-LABEL: func.func @half(
// PREPARE: scf.forall
// PREPARE: scf.for
// PREPARE: %[[V:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<4x64x32xbf16>, vector<16xbf16>
// PREPARE: arith.extf %[[V]] : vector<16xbf16> to vector<16xf32>
// PREPARE: } else {
// PREPARE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<4x64x32xbf16>) {{.*}} attrs = {transformer.contraction = "mnk"}
func.func @half(%x: tensor<?x64xf32>, %w: tensor<64x128xbf16> {transformer.parameter = "w"}, %acc: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x128xbf16>) outs(%acc : tensor<?x128xf32>) -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// -----

// A private function whose every call passes such a weight (a model's layer
// function) reads its argument in panels too; the calls pass the argument
// as it is.
// CHECK: module attributes {transformer.panel_parameters = {model = array<i64: 0, 32, 32>}
// CHECK-LABEL: func.func private @layer(
// CHECK-SAME: %{{[^:]*}}: tensor<4x64xf32>, %[[W:[^:]*]]: tensor<64x64xf32> {transformer.panels = 32 : i64}
// CHECK: bufferization.to_buffer %[[W]] read_only
// CHECK: memref.reinterpret_cast
// CHECK: linalg.generic
// CHECK-LABEL: func.func @model(
// CHECK-SAME: %[[W0:[^:]*]]: tensor<64x64xf32> {transformer.panels = 32 : i64, transformer.parameter = "h.0.w"}, %[[W1:[^:]*]]: tensor<64x64xf32> {transformer.panels = 32 : i64, transformer.parameter = "h.1.w"}
// CHECK-NOT: bufferization.to_buffer
// CHECK: call @layer(%{{.*}}, %[[W0]])
// CHECK: call @layer(%{{.*}}, %[[W1]])
func.func private @layer(%x: tensor<4x64xf32>, %w: tensor<64x64xf32>) -> tensor<4x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
func.func @model(%x: tensor<4x64xf32>, %w0: tensor<64x64xf32> {transformer.parameter = "h.0.w"}, %w1: tensor<64x64xf32> {transformer.parameter = "h.1.w"}) -> tensor<4x64xf32> {
  %h0 = call @layer(%x, %w0) : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %h1 = call @layer(%h0, %w1) : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  return %h1 : tensor<4x64xf32>
}

// -----

// Left as they are: a weight also read otherwise (returned, transposed,
// element-wise), one whose columns are not whole panels (48 with AVX-512;
// AVX2's 16 divide them), an i8 weight, an argument not bound by name, and
// a private function that one of its calls passes something else.
// CHECK-NOT: transformer.panel_parameters
// CHECK-NOT: transformer.panels
// CHECK-NOT: reinterpret_cast
// AVX2: module attributes {transformer.panel_parameters = {kept = array<i64: 0, 0, 16, 0, 0, 0, 0>}
func.func private @callee(%x: tensor<4x64xf32>, %w: tensor<64x64xf32>) -> tensor<4x64xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x64xf32>) outs(%x : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
func.func @kept(%x: tensor<4x64xf32>,
                %returned: tensor<64x64xf32> {transformer.parameter = "a"},
                %narrow: tensor<64x48xf32> {transformer.parameter = "b"},
                %bytes: tensor<64x64xi8> {transformer.parameter = "c"},
                %unnamed: tensor<64x64xf32>,
                %passed: tensor<64x64xf32> {transformer.parameter = "d"},
                %other: tensor<4x64xf32>)
    -> (tensor<4x64xf32>, tensor<64x64xf32>, tensor<4x48xf32>, tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  %e48 = tensor.empty() : tensor<4x48xf32>
  %acc48 = linalg.fill ins(%z : f32) outs(%e48 : tensor<4x48xf32>) -> tensor<4x48xf32>
  %a = linalg.matmul ins(%x, %returned : tensor<4x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<4x64xf32>) -> tensor<4x64xf32>
  %b = linalg.matmul ins(%x, %narrow : tensor<4x64xf32>, tensor<64x48xf32>) outs(%acc48 : tensor<4x48xf32>) -> tensor<4x48xf32>
  %c = linalg.matmul ins(%x, %bytes : tensor<4x64xf32>, tensor<64x64xi8>) outs(%acc : tensor<4x64xf32>) -> tensor<4x64xf32>
  %d = linalg.matmul ins(%x, %unnamed : tensor<4x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<4x64xf32>) -> tensor<4x64xf32>
  %f = call @callee(%x, %passed) : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %g = call @callee(%x, %unnamed) : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  return %a, %returned, %b, %c, %f, %g : tensor<4x64xf32>, tensor<64x64xf32>, tensor<4x48xf32>, tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>
}

// -----

// Left as they are too: the weight of a public function that the module
// also calls (its caller passes what it was given, as it is), and one read
// by a contraction that negates A in its body.
// CHECK-NOT: transformer.panel_parameters
// CHECK-NOT: transformer.panels
// CHECK-NOT: reinterpret_cast
func.func @inner(%x: tensor<4x64xf32>, %w: tensor<64x64xf32> {transformer.parameter = "w"}) -> tensor<4x64xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x64xf32>) outs(%x : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
func.func @outer(%x: tensor<4x64xf32>, %w: tensor<64x64xf32> {transformer.parameter = "w"}) -> tensor<4x64xf32> {
  %y = call @inner(%x, %w) : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
func.func @negated(%x: tensor<4x64xf32>, %w: tensor<64x64xf32> {transformer.parameter = "v"}) -> tensor<4x64xf32> {
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x64xf32>, tensor<64x64xf32>) outs(%x : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %na = arith.negf %a : f32
    %p = arith.mulf %na, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}
