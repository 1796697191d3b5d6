"""Work counted in instructions: callgrind, switched on around the measured calls only.

A small C shim (``SHIM``), compiled at test time with gcc against valgrind's ``callgrind.h``,
gives Python the client requests that start and stop callgrind's instrumentation and dump its
counts. The runner (``count_work.py``) runs under ``valgrind --tool=callgrind
--instr-atstart=no``: Python starts, imports the package and makes its inputs uninstrumented
(valgrind's plain translation: a few times slower than native, not the fifty of callgrind), and
only the calls measured are counted, each dumped to a file of its own whose ``totals:`` line is
the call's instructions. Instructions do not move with the machine's load, as seconds do: the
same call on the same build counts the same, give or take a few hundred instructions.

Both sides use this module: the tests (which tools are missing, the shim's build, one runner
process per group of cases) and the runner (``Counter``).
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HEADER = Path("/usr/include/valgrind/callgrind.h")
RUNNER = Path(__file__).resolve().parent / "count_work.py"

SHIM = r"""
#include <valgrind/callgrind.h>
/* Counts start from zero at each start; the dump after each stop holds one call's work. */
void work_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void work_stop(const char *name) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS_AT(name); }
int work_on_valgrind(void) { return RUNNING_ON_VALGRIND; }
"""


def missing_tools() -> str | None:
    """Why work cannot be counted on this machine (None: it can)."""
    if shutil.which("valgrind") is None:
        return "valgrind is not installed (Debian: apt-get install valgrind); .ci/run installs it"
    if shutil.which("gcc") is None:
        return "gcc is not installed: the callgrind shim is compiled at test time"
    if not HEADER.is_file():
        return f"{HEADER} not found (Debian's valgrind package installs it)"
    return None


def build_shim(directory: Path) -> Path:
    """Compile the shim into `directory`; its path."""
    source, library = directory / "work_shim.c", directory / "work_shim.so"
    source.write_text(SHIM)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    return library


def run_group(shim: Path, cases: list[dict], directory: Path, cpu_seconds: float) -> dict:
    """Run the runner under callgrind on `cases` (count_work.py says their shape), starting no
    case after `cpu_seconds` of its CPU time; the results of the cases it counted."""
    directory.mkdir(parents=True, exist_ok=True)
    request, results = directory / "cases.json", directory / "results.json"
    request.write_text(json.dumps(cases))
    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",  # the same string hashes, the same dict layouts: the same counts
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--dump-line=no",
        f"--callgrind-out-file={directory / 'callgrind.out'}",
        sys.executable,
        str(RUNNER),
        str(shim),
        str(request),
        str(results),
        str(cpu_seconds),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0 or not results.is_file():
        raise RuntimeError(
            f"the callgrind runner failed ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-6000:]}"
        )
    return json.loads(results.read_text())


class Counter:
    """The runner's side: the instructions of one call, under callgrind."""

    def __init__(self, shim: str, out_dir: Path) -> None:
        self.lib = ctypes.CDLL(shim)
        self.lib.work_stop.argtypes = [ctypes.c_char_p]
        if not self.lib.work_on_valgrind():
            raise RuntimeError("not running under valgrind: nothing would be counted")
        self.out_dir = out_dir
        self.dumps = 0

    def count(self, call, name: str = "call") -> int:
        """The instructions `call()` executes (its result dropped), the garbage collector off: a
        collection's cost depends on everything the process holds, not on the call."""
        # What is there now is never collected again (gc.freeze): each collection here reads only
        # what was made since the last (under valgrind, a whole collection takes seconds).
        gc.collect()
        gc.freeze()
        gc.disable()
        try:
            self.lib.work_start()
            call()
            self.lib.work_stop(name.encode())
        finally:
            gc.enable()
        self.dumps += 1
        dump = self.out_dir / f"callgrind.out.{self.dumps}"
        totals = None
        with open(dump, "rb") as file:  # the totals are at the end of the dump's 100-200 KB
            file.seek(max(0, file.seek(0, os.SEEK_END) - 4096))
            for line in file.read().splitlines():
                if line.startswith(b"totals:"):
                    totals = int(line.split()[1])
        dump.unlink()
        if totals is None:
            raise RuntimeError(f"no totals in {dump}")
        return totals
