//===- RunnerLibraryTest.cpp - Calls a compiled function via lib/Runner ---===//
//
// transformer-runner-test FILE.mlir: compiles @scale_add(tensor<?xf32>,
// tensor<?xf32>, f32) from FILE with the runner library, calls it with host
// tensors built here and checks the result against a reference computed
// here. Prints `PASS` or `FAIL: ...`; run from lit (runner-library.mlir).
//
//===----------------------------------------------------------------------===//

#include "Transformer/Runner/CompiledModule.h"
#include "Transformer/Runner/Compiler.h"
#include "Transformer/Runner/HostMemory.h"
#include "Transformer/Runner/Values.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::transformer::runner;

static int fail(const llvm::Twine &why) {
  llvm::outs() << "FAIL: " << why << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  if (argc != 2)
    return fail("usage: transformer-runner-test FILE.mlir");

  DialectRegistry registry;
  registerRunnerDialects(registry);
  MLIRContext context(registry);
  OneLineDiagnosticHandler handler(&context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &context);
  if (!module)
    return fail("cannot parse the module");
  mlir::transformer::TransformerPipelineOptions options;
  if (failed(lowerToLinalg(*module, options)))
    return fail("the linalg stage failed");
  llvm::Expected<EntrySignature> signature =
      getEntrySignature(*module, "scale_add");
  if (!signature)
    return fail(llvm::toString(signature.takeError()));
  if (failed(lowerToLLVM(*module, options)))
    return fail("the LLVM stage failed");
  llvm::Expected<std::unique_ptr<CompiledModule>> compiled =
      CompiledModule::create(*module, /*optLevel=*/2, {});
  if (!compiled)
    return fail(llvm::toString(compiled.takeError()));

  // Host tensors made here, not parsed: x = 0..4, y = 10..14, s = 0.5.
  const int64_t n = 5;
  llvm::Expected<HostTensor> x = HostTensor::allocate(ElementType::F32, {n});
  llvm::Expected<HostTensor> y = HostTensor::allocate(ElementType::F32, {n});
  llvm::Expected<HostTensor> s =
      HostTensor::allocate(ElementType::F32, {}, /*isScalar=*/true);
  if (!x || !y || !s)
    return fail("allocation failed");
  for (int64_t i = 0; i < n; ++i) {
    x->setFromDouble(i, i);
    y->setFromDouble(i, 10 + i);
  }
  s->setFromDouble(0, 0.5);
  for (auto [sig, value] : llvm::zip(signature->arguments,
                                     std::vector<HostTensor *>{&*x, &*y, &*s}))
    if (std::optional<std::string> why = sig.mismatch(*value))
      return fail(*why);

  llvm::Expected<std::vector<HostTensor>> results =
      (*compiled)->invoke("scale_add", *signature, {&*x, &*y, &*s});
  if (!results)
    return fail(llvm::toString(results.takeError()));
  if (results->size() != 1 || (*results)[0].getShape() != x->getShape())
    return fail("unexpected result shape");
  for (int64_t i = 0; i < n; ++i) {
    double expected = 0.5 * i + (10 + i);
    if (std::fabs((*results)[0].getAsDouble(i) - expected) > 1e-6)
      return fail("element " + llvm::Twine(i) + " is wrong");
  }

  // A failed run-time check comes back as an error, and the library (and
  // this process) can go on calling.
  llvm::Expected<HostTensor> shorter =
      HostTensor::allocate(ElementType::F32, {n - 1});
  if (!shorter)
    return fail("allocation failed");
  llvm::Expected<std::vector<HostTensor>> bad =
      (*compiled)->invoke("scale_add", *signature, {&*x, &*shorter, &*s});
  if (bad)
    return fail("a size mismatch was not caught");
  llvm::outs() << "caught: " << llvm::toString(bad.takeError()) << "\n";
  results = (*compiled)->invoke("scale_add", *signature, {&*x, &*y, &*s});
  if (!results)
    return fail(llvm::toString(results.takeError()));
  printValue(llvm::outs(), (*results)[0], 100);

  // Once the compiler's code pages are dropped (as transformer-run does after
  // its compile), LLVM and MLIR still work: they are read back on use.
  if (releaseCompilerCode() == 0)
    return fail("no code of libLLVM or libMLIR was found to drop");
  OwningOpRef<ModuleOp> again = parseSourceFile<ModuleOp>(argv[1], &context);
  if (!again || failed(lowerToLinalg(*again, options)) ||
      failed(lowerToLLVM(*again, options)))
    return fail("the module does not compile again");
  llvm::Expected<std::unique_ptr<CompiledModule>> recompiled =
      CompiledModule::create(*again, /*optLevel=*/2, {});
  if (!recompiled)
    return fail(llvm::toString(recompiled.takeError()));
  results = (*recompiled)->invoke("scale_add", *signature, {&*x, &*y, &*s});
  if (!results)
    return fail(llvm::toString(results.takeError()));
  if (std::fabs((*results)[0].getAsDouble(n - 1) -
                (0.5 * (n - 1) + 10 + n - 1)) > 1e-6)
    return fail("the recompiled module's result is wrong");
  llvm::outs() << "\nPASS\n";
  return 0;
}
