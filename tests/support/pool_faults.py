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
