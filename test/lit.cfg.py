# -*- Python -*-
# lit configuration of the transformer-mlir regression tests.

import os
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TRANSFORMER"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
# A rerun with other code generation (`--param opt_level=...`, below) gets
# its own Output/ tree: CTest runs a test and its rerun side by side, and
# sharing one would let each overwrite the other's script and %t files.
config.test_exec_root = os.path.join(
    config.transformer_obj_root,
    "test-rerun" if lit_config.params.get("opt_level") or
    lit_config.params.get("target_features") else "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%src_root", config.transformer_src_root))
config.substitutions.append(("%obj_root", config.transformer_obj_root))
config.substitutions.append(("%test_lib", os.path.join(config.test_source_root, "lib")))

# Catch variables that leak between CHECK-LABEL blocks, as upstream does.
# `--param opt_level=-O3`: the execution tests' runs that name no level use
# it (test/lib/run_reference.py, program_matrix.py).
config.environment["TRANSFORMER_TEST_OPT_LEVEL"] = lit_config.params.get("opt_level", "")
# `--param target_features=-avx512f`: the execution tests build for that
# target (the AVX2 code of an AVX-512 machine; CTest label `avx2`): every
# transformer-run of a test, and the drivers' (test/lib/run_flags.py). The
# tests that CTest runs so (transformer-run/, Matrix/) name no target
# themselves: a second --target-features would be an error.
target_features = lit_config.params.get("target_features", "")
config.environment["TRANSFORMER_TEST_TARGET_FEATURES"] = target_features
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# The reference helper (test/lib/run_reference.py) calls transformer-run.
llvm_config.with_environment("PATH", config.transformer_tools_dir, append_path=True)

tool_dirs = [config.transformer_tools_dir, config.llvm_tools_dir]
# mlir-opt is LLVM's own (Debian's mlir-opt-22): the plugin tests load
# TransformerPlugin.so into it.
tools = ["transformer-opt", "transformer-lsp-server", "transformer-translate",
         "mlir-translate", "mlir-opt"]
if os.path.exists(os.path.join(config.transformer_tools_dir, "transformer-run")):
    tools.append(ToolSubst(
        "transformer-run",
        extra_args=(["--target-features=" + target_features]
                    if target_features else None)))
    config.available_features.add("transformer-run")
llvm_config.add_tool_substitutions(tools, tool_dirs)

config.substitutions.append(("%transformer_plugin", config.transformer_plugin))

# Leak checks of transformer-run use valgrind when it is installed; a
# sanitizer build checks leaks with LeakSanitizer instead (valgrind cannot
# run ASan binaries).
import shutil
if config.sanitizers:
    config.available_features.add("asan")
elif shutil.which("valgrind"):
    config.available_features.add("valgrind")

def add_feature_if_importable(module):
    """`REQUIRES: MODULE` holds when the test python can import it."""
    try:
        subprocess.check_call([config.python_executable, "-c", "import " + module],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        config.available_features.add(module)
    except (OSError, subprocess.CalledProcessError):
        pass


# The execution tests compare with numpy computed by test/lib helpers; the
# GPT-2 parity tests compare with PyTorch (Debian: python3-torch).
add_feature_if_importable("numpy")
add_feature_if_importable("torch")
