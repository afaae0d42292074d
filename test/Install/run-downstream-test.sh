#!/usr/bin/env bash
# CTest `install/downstream` (test/Install/CMakeLists.txt): installs this
# build into <build>/test/Install/prefix, builds test/Install/downstream (its
# own opt tool, from the installed package only) and checks that tool:
#  - mixed.mlir through --transformer-to-llvm, checked with FileCheck;
#  - the examples give the same output as transformer-opt, so the small
#    registry of registerAllTransformer() holds all the pipeline needs.
set -euo pipefail
build="$1" src="$2" cmake="$3" generator="$4" cxx="$5" filecheck="$6"
launcher="${7:-}"

out="$build/test/Install"
prefix="$out/prefix"
work="$out/downstream-build"
rm -rf "$prefix" "$work"
"$cmake" --install "$build" --prefix "$prefix" > "$out/install.log"

"$cmake" -S "$src/test/Install/downstream" -B "$work" -G "$generator" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher"} \
  > "$out/configure.log"
"$cmake" --build "$work" > "$out/build.log"
tool="$work/downstream-opt"

"$tool" "$src/test/Install/downstream/mixed.mlir" --transformer-to-llvm \
  | "$filecheck" "$src/test/Install/downstream/mixed.mlir"

for f in "$src"/examples/*.mlir; do
  "$tool" "$f" --transformer-to-llvm > "$out/downstream.out"
  "$prefix/bin/transformer-opt" "$f" --transformer-to-llvm > "$out/opt.out"
  diff -u "$out/opt.out" "$out/downstream.out" \
    || { echo "Error: $f: downstream-opt differs from transformer-opt"; exit 1; }
done
echo "downstream tool built from the installed package: OK"
