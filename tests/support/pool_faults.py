"""Faults for the WorkerPool tests (tests/unit/test_worker_pool.py), importable in worker
processes: initializers that are slow or hang, and a task that cannot be loaded there."""

from __future__ import annotations

import multiprocessing
import time


def slow_start(seconds: float) -> None:
    """An initializer that takes `seconds` (a worker importing a large model, say)."""
    time.sleep(seconds)


def _refuse_in_a_worker() -> None:
    if multiprocessing.parent_process() is not None:
        raise ImportError("this task cannot be loaded in a worker process")


class LoadsOnlyHere:
    """Pickles fine in the crawl process; unpickling it in a worker raises (a task whose
    module the worker cannot import)."""

    def __reduce__(self):
        return (_refuse_in_a_worker, ())


def stop_mid_reply(size: int, sent: int) -> None:
    """In a worker: start the reply to this task as a `size`-byte message, send `sent` bytes of
    it, then stop this process (SIGSTOP), as a worker stopped while sending a large result."""
    import os
    import signal
    import struct
    import sys

    frame = sys._getframe(1)
    while frame.f_code.co_name != "_worker_main":  # the worker's end of its pipe
        frame = frame.f_back
    conn = frame.f_locals["conn"]
    conn._send(struct.pack("!i", size) + b"\0" * sent)
    os.kill(os.getpid(), signal.SIGSTOP)
