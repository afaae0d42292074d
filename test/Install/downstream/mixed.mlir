// Input of run-downstream-test.sh: transformer ops mixed with the upstream
// ops of the contract, through --transformer-to-llvm in a tool whose registry
// holds only what registerAllTransformer() adds. Without the bufferization
// models of arith, scf and tensor this fails with `op was not bufferized`.

// The exponential lives in a kernel outlined before @mixed (-O1 and up),
// which @mixed calls: an intrinsic at -O1, a polynomial (fma) at -O2/-O3.
// CHECK: llvm.intr.{{exp|fma}}
// CHECK-LABEL: llvm.func @mixed(
// CHECK: llvm.call @{{.*}}_kernel
// CHECK: llvm.return
func.func @mixed(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %n: index) -> tensor<4x8xf32> {
  %s = arith.addf %x, %y : tensor<4x8xf32>
  %e = math.exp %s : tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %e) -> tensor<4x8xf32> {
    %g = transformer.gelu %acc : tensor<4x8xf32> -> tensor<4x8xf32>
    scf.yield %g : tensor<4x8xf32>
  }
  %col = tensor.extract_slice %r[0, 4] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %sm = transformer.softmax %col : tensor<4x4xf32> -> tensor<4x4xf32>
  %out = tensor.insert_slice %sm into %r[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x8xf32>
  return %out : tensor<4x8xf32>
}
