"""Flags shared by the execution-test drivers (run_reference.py,
program_matrix.py)."""

import os


def with_default_opt_level(flags):
    """Adds TRANSFORMER_TEST_OPT_LEVEL (lit --param opt_level=-O3, which CTest
    sets for its second run of the execution tests) to a run that names no
    level, so that every numeric test runs at -O0 and -O3 as well as at the
    default level."""
    level = os.environ.get("TRANSFORMER_TEST_OPT_LEVEL", "")
    if level and not any(f.startswith("-O") for f in flags):
        flags = flags + [level]
    return with_target_features(flags)


def with_target_features(flags):
    """Adds TRANSFORMER_TEST_TARGET_FEATURES (lit --param
    target_features=-avx512f, which CTest's `avx2` label sets) as
    --target-features to a run that names no target, so that the numeric
    tests also run on the AVX2 target of an AVX-512 machine."""
    features = os.environ.get("TRANSFORMER_TEST_TARGET_FEATURES", "")
    if features and not any(f.startswith("--target-") for f in flags):
        return flags + ["--target-features=" + features]
    return flags
