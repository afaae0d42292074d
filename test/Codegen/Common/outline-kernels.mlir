// RUN: transformer-opt %s --transformer-outline-kernels -split-input-file | FileCheck %s
// Kernels are not outlined again, and equal groups of a second run reuse
// the kernels of the first.
// RUN: transformer-opt %s --transformer-outline-kernels --transformer-outline-kernels -split-input-file | FileCheck %s
// RUN: transformer-opt %s --transformer-outline-kernels=max-cloned-constant-elements=0 -split-input-file | FileCheck %s --check-prefix=NOCLONE

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

// Two identical layers, relu(x @ w^T + b) (a contraction initialised with
// the broadcast bias, then an element-wise consumer that only it feeds),
// become one kernel called twice, once per layer with that layer's weights.
// The broadcast is cloned into the kernel; the caller passes the result's
// buffer (a tensor.empty) as the last argument.
// CHECK-LABEL: func.func private @layers_kernel(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x16xf32>, %[[W:[a-z0-9]+]]: tensor<16x16xf32>, %[[B:[a-z0-9]+]]: tensor<16xf32>, %[[DEST:[a-z0-9]+]]: tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-SAME: attributes {no_inline, passthrough = ["noinline"], transformer.kernel}
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<16xf32>) outs(%[[E]] : tensor<4x16xf32>)
// CHECK: %[[MM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : {{.*}}) outs(%[[BIAS]] : tensor<4x16xf32>)
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<4x16xf32>) outs(%[[DEST]] : tensor<4x16xf32>)
// CHECK: arith.maximumf
// CHECK: return %[[RELU]] : tensor<4x16xf32>
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @layers(
// CHECK-SAME: %[[X0:[a-z0-9]+]]: tensor<4x16xf32>, %[[W0:[a-z0-9]+]]: tensor<16x16xf32>, %[[B0:[a-z0-9]+]]: tensor<16xf32>, %[[W1:[a-z0-9]+]]: tensor<16x16xf32>, %[[B1:[a-z0-9]+]]: tensor<16xf32>
// CHECK: %[[D0:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[Y0:.*]] = call @layers_kernel(%[[X0]], %[[W0]], %[[B0]], %[[D0]])
// CHECK: %[[D1:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[Y1:.*]] = call @layers_kernel(%[[Y0]], %[[W1]], %[[B1]], %[[D1]])
// CHECK-NOT: linalg.
// CHECK: return %[[Y1]]
func.func @layers(%x: tensor<4x16xf32>, %w0: tensor<16x16xf32>, %b0: tensor<16xf32>,
                  %w1: tensor<16x16xf32>, %b1: tensor<16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %bias0 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%b0 : tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<4x16xf32>
  %mm0 = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w0 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%bias0 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %zero = arith.constant 0.0 : f32
  %relu0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm0 : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %bias1 = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%b1 : tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<4x16xf32>
  %mm1 = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%relu0, %w1 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%bias1 : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  %relu1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm1 : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  return %relu1 : tensor<4x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// The same op on two shapes: two kernels. A contraction whose result is
// also used elsewhere takes no consumer.
// CHECK-LABEL: func.func private @shapes_kernel(
// CHECK-SAME: tensor<4x8xf32>, %{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @shapes_kernel_0(
// CHECK-SAME: tensor<4x16xf32>, %{{.*}}: tensor<16x8xf32>, %{{.*}}: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: linalg.matmul
// CHECK-LABEL: func.func private @shapes_kernel_1(
// CHECK-SAME: tensor<4x16xf32>, %{{.*}}: tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: arith.addf
// CHECK-LABEL: func.func @shapes(
// CHECK: call @shapes_kernel(
// CHECK: call @shapes_kernel_0(
// CHECK: call @shapes_kernel_1(
func.func @shapes(%x: tensor<4x8xf32>, %w0: tensor<8x16xf32>, %w1: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y0 = linalg.matmul ins(%x, %w0 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f0 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y1 = linalg.matmul ins(%y0, %w1 : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y0 : tensor<4x16xf32>) outs(%e0 : tensor<4x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %y1, %d : tensor<4x8xf32>, tensor<4x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Dynamic shapes: the kernel reads the sizes from the tensors it takes, and
// the caller makes the destination with the size it already has. Both
// layers share the kernel.
// CHECK-LABEL: func.func private @dynamic_kernel(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x8xf32>, %[[DEST:[a-z0-9]+]]: tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[DEST]] : tensor<?x8xf32>)
// CHECK: linalg.matmul ins(%[[X]], %[[W]] : tensor<?x8xf32>, tensor<8x8xf32>) outs(%[[F]] : tensor<?x8xf32>)
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[X0:[a-z0-9]+]]: tensor<?x8xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X0]]
// CHECK: %[[D0:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: %[[Y0:.*]] = call @dynamic_kernel(%[[X0]], %{{.*}}, %[[D0]])
// CHECK: %[[D1:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: call @dynamic_kernel(%[[Y0]], %{{.*}}, %[[D1]])
func.func @dynamic(%x: tensor<?x8xf32>, %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %y0 = linalg.matmul ins(%x, %w0 : tensor<?x8xf32>, tensor<8x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  %y1 = linalg.matmul ins(%y0, %w1 : tensor<?x8xf32>, tensor<8x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y1 : tensor<?x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Captured values: a small constant is cloned into the kernel (a large one,
// or any with max-cloned-constant-elements=0, is passed in); a scalar that
// is not a constant is an argument; a slice is taken inside the kernel from
// the whole tensor, so the call passes a contiguous buffer.
// CHECK-LABEL: func.func private @captured_kernel(
// CHECK-SAME: %[[T:[a-z0-9]+]]: tensor<8x8xf32>, %[[S:[a-z0-9]+]]: f32, %[[DEST:[a-z0-9]+]]: tensor<4x8xf32>)
// CHECK-DAG: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<8xf32>
// CHECK-DAG: %[[X:.*]] = tensor.extract_slice %[[T]][4, 0] [4, 8] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[C]] : tensor<4x8xf32>, tensor<8xf32>) outs(%[[DEST]] : tensor<4x8xf32>)
// CHECK: arith.mulf %{{.*}}, %[[S]]
// CHECK-LABEL: func.func @captured(
// CHECK-SAME: %[[T0:[a-z0-9]+]]: tensor<8x8xf32>, %[[S0:[a-z0-9]+]]: f32
// CHECK-NOT: arith.constant dense
// CHECK: call @captured_kernel(%[[T0]], %[[S0]], %{{.*}})
// NOCLONE-LABEL: func.func private @captured_kernel(
// NOCLONE-SAME: %{{.*}}: tensor<8x8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: f32, %{{.*}}: tensor<4x8xf32>)
// NOCLONE-LABEL: func.func @captured(
// NOCLONE: %[[C:.*]] = arith.constant dense
// NOCLONE: call @captured_kernel(%{{.*}}, %[[C]], %{{.*}}, %{{.*}})
func.func @captured(%t: tensor<8x8xf32>, %s: f32) -> tensor<4x8xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %x = tensor.extract_slice %t[4, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %c : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.mulf %m, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A row reduction is a kernel of its own, and the fill that two reductions
// share is cloned into both kernels. Ops that are not linalg stay in the
// caller, and so do linalg ops on buffers.
// CHECK-LABEL: func.func private @rows_kernel(
// CHECK-SAME: %{{.*}}: tensor<4x8xf32>, %[[DEST:[a-z0-9]+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[DEST]] : tensor<4xf32>)
// CHECK: arith.addf
// CHECK-LABEL: func.func private @rows_kernel_0(
// CHECK: arith.maximumf
// CHECK-LABEL: func.func @rows(
// CHECK: call @rows_kernel(
// CHECK: call @rows_kernel_0(
// CHECK: tensor.concat
// CHECK: linalg.copy ins(%{{.*}} : memref<4xf32>)
func.func @rows(%x: tensor<4x8xf32>, %m: memref<4xf32>, %n: memref<4xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
  %max = linalg.reduce { arith.maximumf } ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
  %both = tensor.concat dim(0) %sum, %max : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  linalg.copy ins(%m : memref<4xf32>) outs(%n : memref<4xf32>)
  return %both : tensor<8xf32>
}

// -----

// A reshape of a contraction's accumulator stays in the caller (inside the
// kernel it would be a view of the buffer the kernel writes, which keeps the
// CPU schedule from holding the accumulators in registers); a reshape of an
// input is cloned into the kernel.
// CHECK-LABEL: func.func private @reshaped_init_kernel(
// CHECK-SAME:      %{{.*}}: tensor<1x8x4xf32>, %{{.*}}: tensor<4x16xf32>, %{{.*}}: tensor<8x16xf32>)
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x8x4xf32> into tensor<8x4xf32>
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         linalg.matmul
// CHECK-LABEL: func.func @reshaped_init(
// CHECK:         %[[C:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x8x16xf32> into tensor<8x16xf32>
// CHECK:         call @reshaped_init_kernel(%{{.*}}, %{{.*}}, %[[C]])
func.func @reshaped_init(%a: tensor<1x8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<1x8x16xf32>) -> tensor<8x16xf32> {
  %a2 = tensor.collapse_shape %a [[0, 1], [2]] : tensor<1x8x4xf32> into tensor<8x4xf32>
  %c2 = tensor.collapse_shape %c [[0, 1], [2]] : tensor<1x8x16xf32> into tensor<8x16xf32>
  %0 = linalg.matmul ins(%a2, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// An op marked transformer.kernel_root (the contraction prep's few-rows forms,
// vector code on tensors) is a kernel of its own with everything it holds,
// values it uses from above becoming arguments; equal roots share a kernel.
// CHECK-LABEL: func.func private @roots_kernel(
// CHECK-SAME:    %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: f32) -> tensor<8xf32>
// CHECK:         scf.forall
// CHECK:           tensor.extract
// CHECK:         } {transformer.kernel_root}
// CHECK-NOT:   func.func private @roots_kernel
// CHECK-LABEL: func.func @roots(
// CHECK:         %[[A:.*]] = call @roots_kernel(
// CHECK:         %[[B:.*]] = call @roots_kernel(
// CHECK:         return %[[A]], %[[B]]
func.func @roots(%x: tensor<8xf32>, %y: tensor<8xf32>, %s: f32) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = scf.forall (%i) in (8) shared_outs(%o = %x) -> (tensor<8xf32>) {
    %v = tensor.extract %y[%i] : tensor<8xf32>
    %w = arith.addf %v, %s : f32
    %t = tensor.from_elements %w : tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[%i] [1] [1] : tensor<1xf32> into tensor<8xf32>
    }
  } {transformer.kernel_root}
  %1 = scf.forall (%i) in (8) shared_outs(%o = %y) -> (tensor<8xf32>) {
    %v = tensor.extract %x[%i] : tensor<8xf32>
    %w = arith.addf %v, %s : f32
    %t = tensor.from_elements %w : tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[%i] [1] [1] : tensor<1xf32> into tensor<8xf32>
    }
  } {transformer.kernel_root}
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// A fill that initializes a kernel root's shared outputs (the few-rows
// branch of a contraction) and a contraction's accumulator in the other
// branch is cloned into both kernels, not made a kernel of its own.
// CHECK-LABEL: func.func private @fill_of_root_kernel(
// CHECK:         linalg.fill
// CHECK:         scf.forall
// CHECK:         } {transformer.kernel_root}
// CHECK-LABEL: func.func private @fill_of_root_kernel_0(
// CHECK:         linalg.fill
// CHECK:         linalg.matmul
// CHECK-LABEL: func.func @fill_of_root(
// CHECK-NOT:     linalg.fill
// CHECK:         scf.if
// CHECK:           call @fill_of_root_kernel(
// CHECK:         } else {
// CHECK:           call @fill_of_root_kernel_0(
func.func @fill_of_root(%c: i1, %x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %r = scf.if %c -> (tensor<8x8xf32>) {
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %0 = scf.forall (%i) in (8) shared_outs(%o = %z) -> (tensor<8x8xf32>) {
      %v = tensor.extract %x[%i, %i] : tensor<8x16xf32>
      %t = tensor.from_elements %v : tensor<1x1xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %t into %o[%i, %i] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<8x8xf32>
      }
    } {transformer.kernel_root}
    scf.yield %0 : tensor<8x8xf32>
  } else {
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %0 = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %0 : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// -----

// An op marked transformer.outline_with_user (a dequantized weight) that
// only feeds a contraction goes into the contraction's kernel.
// CHECK-LABEL: func.func private @with_user_kernel(
// CHECK-SAME:    %{{.*}}: tensor<16x32xf32>, %{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK:         linalg.generic {{.*}}{transformer.outline_with_user}
// CHECK:         linalg.matmul
// CHECK-NOT:   func.func private
// CHECK-LABEL: func.func @with_user(
// CHECK:         call @with_user_kernel(
func.func @with_user(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %te = tensor.empty() : tensor<16x32xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%te : tensor<16x32xf32>) attrs = {transformer.outline_with_user} {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = tensor.extract %w[%i, %j] : tensor<16x32xf32>
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %y = linalg.matmul ins(%x, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// A transpose that only feeds a contraction (a linear's transposed weight)
// goes into the contraction's kernel; one with another use stays a kernel of
// its own.
// CHECK-LABEL: func.func private @transposed_rhs_kernel(
// CHECK-SAME:    %{{.*}}: tensor<32x16xf32>, %{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK:         linalg.transpose
// CHECK:         linalg.matmul
// CHECK-LABEL: func.func private @transposed_rhs_kernel_0(
// CHECK:         linalg.transpose
// CHECK-NOT:     linalg.matmul
// CHECK:         return
// CHECK-LABEL: func.func @transposed_rhs(
// CHECK:         call @transposed_rhs_kernel(
// CHECK:         %[[T:.*]] = call @transposed_rhs_kernel_0(
// CHECK:         call @transposed_rhs_kernel_1(%{{.*}}, %[[T]],
func.func @transposed_rhs(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<16x32xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %te = tensor.empty() : tensor<16x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%te : tensor<16x32xf32>) permutation = [1, 0]
  %y = linalg.matmul ins(%x, %wt : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %te2 = tensor.empty() : tensor<16x32xf32>
  %wt2 = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%te2 : tensor<16x32xf32>) permutation = [1, 0]
  %y2 = linalg.matmul ins(%x, %wt2 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y, %y2, %wt2 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<16x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A fill written as a linalg.generic that yields a value from outside (as
// element-wise conversion makes it) is cloned into the kernel it
// initializes, like linalg.fill, rather than being a kernel of its own (a
// pass over the accumulator in memory, and a copy of it into the kernel's).
// CHECK-LABEL: func.func private @generic_fill_kernel(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x8xf32>, %[[DEST:[a-z0-9]+]]: tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: %[[F:.*]] = linalg.generic {{.*}} outs(%[[DEST]] : tensor<?x8xf32>)
// CHECK: linalg.matmul ins(%[[X]], %[[W]] : tensor<?x8xf32>, tensor<8x8xf32>) outs(%[[F]] : tensor<?x8xf32>)
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @generic_fill(
// CHECK-NOT: linalg.generic
// CHECK: call @generic_fill_kernel(
func.func @generic_fill(%x: tensor<?x8xf32>, %w: tensor<8x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %f = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<?x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#panels = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2, d1 mod 32)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// A contraction that reads B through a map that is not a projected
// permutation (a weight in the CPU's register panels, [n / 32, k, 32]) is
// a contraction all the same: the residual add that only it feeds goes
// into its kernel, where the CPU pipeline fuses it into the cache tiles.
// CHECK-LABEL: func.func private @panel_residual_kernel(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x16xf32>, %[[P:[a-z0-9]+]]: tensor<2x16x32xf32>, %[[R:[a-z0-9]+]]: tensor<?x64xf32>
// CHECK: %[[MM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[P]] : tensor<?x16xf32>, tensor<2x16x32xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[MM]], %[[R]] : tensor<?x64xf32>, tensor<?x64xf32>)
// CHECK: arith.addf
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @panel_residual(
// CHECK-NOT: linalg.generic
// CHECK: call @panel_residual_kernel(
// CHECK-NOT: call
func.func @panel_residual(%x: tensor<?x16xf32>, %p: tensor<2x16x32xf32>, %r: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %mm = linalg.generic {indexing_maps = [#a, #panels, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %p : tensor<?x16xf32>, tensor<2x16x32xf32>) outs(%f : tensor<?x64xf32>) {
  ^bb0(%in: f32, %w: f32, %acc: f32):
    %m = arith.mulf %in, %w : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x64xf32>
  %e2 = tensor.empty(%n) : tensor<?x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %r : tensor<?x64xf32>, tensor<?x64xf32>) outs(%e2 : tensor<?x64xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// Two contractions of the same A whose results one element-wise op
// combines (a gated MLP's gate and up projections) go into one kernel with
// it, for the CPU pipeline to compute in the same cache tiles; a
// contraction of another A whose result is added to a third's is its own
// kernel, and the other goes with the sum.
// CHECK-LABEL: func.func private @gated_kernel(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[G:[a-z0-9]+]]: tensor<16x32xf32>, %[[U:[a-z0-9]+]]: tensor<16x32xf32>, %[[DEST:[a-z0-9]+]]: tensor<8x32xf32>)
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[GATE:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[G]] : {{.*}}) outs(%[[F]] :
// CHECK: %[[UP:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[U]] : {{.*}}) outs(%[[F]] :
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[GATE]], %[[UP]] : {{.*}}) outs(%[[DEST]] :
// CHECK: return %[[P]]
// CHECK-LABEL: func.func private @gated_kernel_0(
// CHECK-SAME: tensor<8x16xf32>, %{{.*}}: tensor<16x32xf32>, %{{.*}}: tensor<8x32xf32>, %{{.*}}: tensor<8x32xf32>)
// CHECK: linalg.generic {{.*}}"reduction"
// CHECK-NOT: "reduction"
// CHECK: return
// CHECK-LABEL: func.func private @gated_kernel_1(
// CHECK-LABEL: func.func @gated(
// CHECK-SAME: %[[X0:[a-z0-9]+]]: tensor<8x16xf32>, %[[G0:[a-z0-9]+]]: tensor<16x32xf32>, %[[U0:[a-z0-9]+]]: tensor<16x32xf32>, %[[V0:[a-z0-9]+]]: tensor<8x16xf32>)
// CHECK: %[[PROD:.*]] = call @gated_kernel(%[[X0]], %[[G0]], %[[U0]], %{{.*}})
// CHECK: %[[THIRD:.*]] = call @gated_kernel_1(%[[V0]], %[[U0]], %{{.*}})
// CHECK: %[[SUM:.*]] = call @gated_kernel_0(%[[X0]], %[[G0]], %[[THIRD]], %{{.*}})
// CHECK: return %[[PROD]], %[[SUM]]
#mm_a = affine_map<(d0, d1, d2) -> (d0, d2)>
#mm_b = affine_map<(d0, d1, d2) -> (d2, d1)>
#mm_c = affine_map<(d0, d1, d2) -> (d0, d1)>
#ew = affine_map<(d0, d1) -> (d0, d1)>
func.func @gated(%x: tensor<8x16xf32>, %g: tensor<16x32xf32>, %u: tensor<16x32xf32>, %v: tensor<8x16xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %gate = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %g : tensor<8x16xf32>, tensor<16x32xf32>) outs(%fill : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %up = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %u : tensor<8x16xf32>, tensor<16x32xf32>) outs(%fill : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %prod = linalg.generic {indexing_maps = [#ew, #ew, #ew], iterator_types = ["parallel", "parallel"]} ins(%gate, %up : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  // Another A: not a sibling of the first.
  %other = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %g : tensor<8x16xf32>, tensor<16x32xf32>) outs(%fill : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %third = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%v, %u : tensor<8x16xf32>, tensor<16x32xf32>) outs(%fill : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %sum = linalg.generic {indexing_maps = [#ew, #ew, #ew], iterator_types = ["parallel", "parallel"]} ins(%other, %third : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  return %prod, %sum : tensor<8x32xf32>, tensor<8x32xf32>
}
