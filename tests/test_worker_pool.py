"""WorkerPool (scrapy_boilerplate/worker_pool.py): real worker processes that die, hang,
raise, and are shut down, on the example project's pages.

The crawls that lose workers are in tests/test_worker_crawl.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from pipeline_site import ARTICLES, site_file
from scrapy_boilerplate import extract
from scrapy_boilerplate.executors import extract_timed, in_worker, init_worker
from scrapy_boilerplate.worker_pool import RemoteTraceback, TaskTimeout, WorkerDied, WorkerLost, WorkerPool

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parent
WAIT = 120   # seconds: a generous bound for worker start-up on a loaded machine


def alive(pid: int) -> bool:
    """True while `pid` is a running process (a zombie is not running)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def gone(pids, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def pool():
    made: list[WorkerPool] = []

    def make(workers: int = 2, **kwargs) -> WorkerPool:
        made.append(WorkerPool(workers, init_worker, (None, {}), **kwargs))
        return made[-1]

    yield make
    for p in made:
        p.shutdown()


def test_results_are_those_of_the_task(pool):
    p = pool()
    html = site_file(ARTICLES[0])
    futures = [p.submit(in_worker, extract_timed, site_file(path), None) for path in ARTICLES]
    assert [f.result(timeout=WAIT)[0].text for f in futures] == [extract(site_file(path)).text
                                                                  for path in ARTICLES]
    assert extract(html).text
    assert len(p.pids()) == 2 and p.deaths == p.timeouts == 0


def test_a_dead_worker_costs_only_its_own_task(pool):
    p = pool()
    slow = p.submit(time.sleep, 1.0)   # in one worker, beside the task that kills the other
    dying = p.submit(os._exit, 3)
    with pytest.raises(WorkerDied, match="exit code 3"):
        dying.result(timeout=WAIT)
    assert slow.result(timeout=WAIT) is None   # the task beside it was not touched
    assert p.deaths == 1 and p.deaths_in_a_row == 0   # (a task came back since)
    # A new worker takes the next task.
    assert p.submit(pow, 2, 10).result(timeout=WAIT) == 1024


def test_a_worker_killed_from_outside(pool):
    p = pool(1)
    started = p.submit(os.getpid)
    pid = started.result(timeout=WAIT)
    held = p.submit(time.sleep, 30)
    time.sleep(0.3)
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(WorkerDied, match=f"{pid}.*exit code -9"):
        held.result(timeout=WAIT)
    assert p.submit(os.getpid).result(timeout=WAIT) != pid


def test_a_task_that_hangs_is_given_up_and_its_worker_killed(pool):
    p = pool(2, task_timeout=1.0)
    pid = p.submit(os.getpid).result(timeout=WAIT)   # the first worker, started and idle
    hung = p.submit(time.sleep, 3600)
    quick = p.submit(pow, 3, 3)
    assert quick.result(timeout=WAIT) == 27   # the other worker goes on meanwhile
    start = time.monotonic()
    with pytest.raises(TaskTimeout, match="within 1 s"):
        hung.result(timeout=WAIT)
    assert time.monotonic() - start < 5
    assert p.timeouts == 1 and p.deaths == 0
    hung_pid = ({pid} | set(p.pids())) - set(p.pids())
    assert gone(hung_pid)
    assert p.submit(pow, 2, 3).result(timeout=WAIT) == 8


def test_exceptions_come_back_with_the_worker_traceback(pool):
    p = pool(1)
    failed = p.submit(int, "not a number")
    with pytest.raises(ValueError, match="invalid literal") as info:
        failed.result(timeout=WAIT)
    assert isinstance(info.value.__cause__, RemoteTraceback)
    assert "Traceback" in str(info.value.__cause__)
    # An exception is not a lost worker: the same worker takes the next task.
    pid = p.submit(os.getpid).result(timeout=WAIT)
    assert p.pids() == [pid] and p.deaths == 0


def test_a_task_that_cannot_be_sent_fails_alone(pool):
    p = pool(1)
    unpicklable = p.submit(len, threading.Lock())
    with pytest.raises(TypeError):
        unpicklable.result(timeout=WAIT)
    assert p.submit(len, "abc").result(timeout=WAIT) == 3 and p.deaths == 0


def test_work_beyond_one_task_per_worker_waits_in_order(pool):
    p = pool(1)
    first = p.submit(time.sleep, 0.5)
    queued = [p.submit(pow, 2, n) for n in range(5)]
    time.sleep(0.1)
    assert not any(f.done() for f in queued)
    first.result(timeout=WAIT)
    assert [f.result(timeout=WAIT) for f in queued] == [1, 2, 4, 8, 16]


def test_workers_that_cannot_start_fail_their_tasks():
    p = WorkerPool(1, init_worker, ("/no/such/model.json", {}))
    try:
        for _ in range(3):
            with pytest.raises(WorkerDied):
                p.submit(pow, 2, 2).result(timeout=WAIT)
        assert p.deaths_in_a_row == 3
    finally:
        p.shutdown()


def test_done_callbacks_may_submit_and_shut_down():
    """From Python 3.12 on, ProcessPoolExecutor calls done callbacks of a broken pool with
    its shutdown lock held: a callback that called shutdown() or submit() hung the crawl."""
    p = WorkerPool(1)
    chained: Future = Future()

    def after_death(future: Future) -> None:
        chained.set_result(p.submit(pow, 2, 5))

    dying = p.submit(os._exit, 3)
    dying.add_done_callback(after_death)
    assert chained.result(timeout=WAIT).result(timeout=WAIT) == 32

    pids = p.pids()
    stopped = threading.Event()
    last = p.submit(os._exit, 4)
    last.add_done_callback(lambda f: (p.shutdown(), stopped.set()))
    assert stopped.wait(WAIT)
    assert gone(pids)


def test_shutdown_ends_every_worker_and_fails_what_was_pending():
    p = WorkerPool(2, task_timeout=None)
    running = [p.submit(time.sleep, 3600) for _ in range(2)]
    queued = p.submit(pow, 2, 2)
    time.sleep(0.5)
    pids = p.pids()
    assert len(pids) == 2
    start = time.monotonic()
    p.shutdown()
    assert time.monotonic() - start < 10
    assert gone(pids)
    for future in [*running, queued]:
        with pytest.raises(WorkerLost):
            future.result(timeout=1)
    with pytest.raises(RuntimeError, match="shut down"):
        p.submit(pow, 2, 2)


ORPHAN_SCRIPT = """
import sys, time
from scrapy_boilerplate.worker_pool import WorkerPool
if __name__ == "__main__":
    pool = WorkerPool(2)
    idle = pool.submit(int, "1")
    busy = pool.submit(time.sleep, 3600)
    idle.result(timeout=120)
    time.sleep(0.5)
    print(" ".join(map(str, pool.pids())), flush=True)
    time.sleep(3600)
"""


def test_workers_end_when_the_crawl_process_is_killed(tmp_path):
    """SIGKILL of the crawl process: an idle worker reads end-of-file, a busy one notices
    that its parent is gone. No worker is left behind."""
    script = tmp_path / "orphans.py"
    script.write_text(ORPHAN_SCRIPT, encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                              cwd=TESTS)
    try:
        pids = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(pids) == 2 and all(alive(pid) for pid in pids)
    finally:
        parent.kill()
        parent.wait()
    assert gone(pids, within=15)
