"""Runs a command and succeeds only if it exits with the given status.

Usage: exit_status.py STATUS COMMAND [ARGS...]

lit's `not` accepts any non-zero status; the runner promises exactly 1 for a
user error or a failed run-time check (and a crash is never one of them).
The command's stdout and stderr pass through unchanged.
"""

import subprocess
import sys


def main():
    expected = int(sys.argv[1])
    status = subprocess.call(sys.argv[2:])
    if status != expected:
        sys.stdout.flush()
        print(f"exit_status.py: expected exit status {expected}, got {status}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
