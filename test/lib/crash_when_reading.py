"""Simulates a crash: SIGSEGV to a tool once it waits for its input on stdin.

Usage: crash_when_reading.py COMMAND [ARGS...]

The command's stdin is a pipe that stays open and empty; the signal goes out
when /proc shows one of its threads blocked in read(0, ...), so the crash
lands after the tool has installed its signal handlers however slowly the
machine starts it (a fixed delay once fired before the tool ran at all on a
stalled VM).
The tool's stdout and stderr pass through; the exit status is 0 when the tool
died of a signal, else 1.
"""

import os
import platform
import signal
import subprocess
import sys
import time

# read()'s number in /proc/PID/syscall.
READ_SYSCALL = {"x86_64": "0", "aarch64": "63"}.get(platform.machine(), "0")
DEADLINE_SECONDS = 300


def blocked_reading_stdin(pid):
    """True when a thread of the process sleeps in read() on descriptor 0."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/syscall") as f:
                fields = f.read().split()
        except OSError:
            continue
        if len(fields) > 1 and fields[0] == READ_SYSCALL and int(fields[1],
                                                                 16) == 0:
            return True
    return False


def main():
    process = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE)
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not blocked_reading_stdin(process.pid):
        if process.poll() is not None:
            print("crash_when_reading.py: the tool exited before reading stdin",
                  file=sys.stderr)
            return 1
        if time.monotonic() > deadline:
            process.kill()
            print("crash_when_reading.py: the tool never read stdin",
                  file=sys.stderr)
            return 1
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGSEGV)
    status = process.wait()
    process.stdin.close()
    if status >= 0:
        print(f"crash_when_reading.py: the tool exited with {status}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
