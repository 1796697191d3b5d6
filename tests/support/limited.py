"""Runs a command with less than this process may, to make file errors happen for real.

    python tests/support/limited.py [--no-file-privileges] [--file-size BYTES] -- COMMAND...

``--no-file-privileges``: file permissions apply to the command even when run as root (its
CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH are dropped from the capability bounding set before the
command is run, so a file of mode 0444 cannot be written, one of mode 0000 not read); as another
user they apply anyway. ``--file-size``: a write that would make a file larger than BYTES fails
(RLIMIT_FSIZE; EFBIG, as a full disk gives ENOSPC), without the signal that would kill the command.
Exits with status 77 when the privileges cannot be dropped.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import signal
import sys

PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2
CANNOT = 77


def drop_file_privileges() -> bool:
    if os.geteuid() != 0:
        return True
    libc = ctypes.CDLL(None, use_errno=True)
    return all(libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0 for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-file-privileges", action="store_true")
    parser.add_argument("--file-size", type=int)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    if args.no_file_privileges and not drop_file_privileges():
        sys.exit(CANNOT)
    if args.file_size is not None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # ignored stays ignored across exec
        resource.setrlimit(resource.RLIMIT_FSIZE, (args.file_size, args.file_size))
    os.execvp(args.command[0], args.command)


if __name__ == "__main__":
    main()
