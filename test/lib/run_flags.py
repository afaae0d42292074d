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
        return flags + [level]
    return flags
