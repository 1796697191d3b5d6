"""WorkerPool (scrapy_boilerplate/crawl/worker_pool.py): real worker processes that die, hang,
raise, and are shut down, on the example project's pages.

The crawls that lose workers are in tests/crawl/test_worker_crawl.py.
"""

from __future__ import annotations

import dataclasses
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
from pool_faults import LoadsOnlyHere, slow_start

from scrapy_boilerplate import extract
from scrapy_boilerplate.crawl.config import WorkerConfig
from scrapy_boilerplate.crawl.tasks import extract_timed, in_worker, init_worker
from scrapy_boilerplate.crawl.worker_pool import (
    STARTS_BEFORE_FAILING,
    PoolBroken,
    RemoteTraceback,
    TaskTimeout,
    WorkerDied,
    WorkerLost,
    WorkerPool,
)
from scrapy_boilerplate.settings import BoilerplateSettings

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parents[1] / "support"  # the scripts run in child processes
WAIT = 120  # seconds: a generous bound for worker start-up on a loaded machine


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


def worker_config(**settings) -> WorkerConfig:
    """What a "process" crawl's workers start with: the default settings but `settings`."""
    return WorkerConfig(dataclasses.replace(BoilerplateSettings(), **settings))


@pytest.fixture
def pool():
    made: list[WorkerPool] = []

    def make(workers: int = 2, initializer=init_worker, initargs=None, **kwargs) -> WorkerPool:
        initargs = (worker_config(),) if initargs is None else initargs
        made.append(WorkerPool(workers, initializer, initargs, **kwargs))
        return made[-1]

    yield make
    for p in made:
        p.shutdown()


def test_results_are_those_of_the_task(pool):
    p = pool()
    html = site_file(ARTICLES[0])
    futures = [p.submit(in_worker, extract_timed, site_file(path), None) for path in ARTICLES]
    assert [f.result(timeout=WAIT)[0].text for f in futures] == [extract(site_file(path)).text for path in ARTICLES]
    assert extract(html).text
    assert len(p.pids()) == 2 and p.deaths == p.timeouts == 0


def test_a_dead_worker_costs_only_its_own_task(pool):
    p = pool()
    slow = p.submit(time.sleep, 1.0)  # in one worker, beside the task that kills the other
    dying = p.submit(os._exit, 3)
    with pytest.raises(WorkerDied, match="exit code 3"):
        dying.result(timeout=WAIT)
    assert slow.result(timeout=WAIT) is None  # the task beside it was not touched
    assert p.deaths == 1 and p.deaths_in_a_row == 0  # (a task came back since)
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
    pid = p.submit(os.getpid).result(timeout=WAIT)  # the first worker, started and idle
    hung = p.submit(time.sleep, 3600)
    quick = p.submit(pow, 3, 3)
    assert quick.result(timeout=WAIT) == 27  # the other worker goes on meanwhile
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
    """A worker whose initializer raises never gets a task; after a few failed starts
    with no worker left, queued tasks fail one per further failure, saying why."""
    p = WorkerPool(1, init_worker, (worker_config(model="/no/such/model.json"),))
    try:
        for _ in range(3):
            with pytest.raises(WorkerDied, match="could start: its initializer raised FileNotFoundError"):
                p.submit(pow, 2, 2).result(timeout=WAIT)
        assert p.deaths_in_a_row == p.deaths == STARTS_BEFORE_FAILING + 2
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
from scrapy_boilerplate.crawl.worker_pool import WorkerPool
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
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=TESTS)
    try:
        pids = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(pids) == 2 and all(alive(pid) for pid in pids)
    finally:
        parent.kill()
        parent.wait()
    assert gone(pids, within=15)


# -- the defects of issue 30, each by fault injection --


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_failing_supervisor_fails_every_pending_task_and_the_pool_says_so(pool):
    """Any error in the supervisor thread: pending tasks fail with PoolBroken (its cause
    attached), the workers end, the pool refuses work, shutdown() returns, twice."""
    p = pool(1)
    pid = p.submit(os.getpid).result(timeout=WAIT)
    held = p.submit(time.sleep, 3600)
    time.sleep(0.3)

    def fail(*args):
        raise OSError(24, "Too many open files")

    p._dispatch = fail  # the supervisor's next round raises
    queued = p.submit(pow, 2, 2)
    for future in (held, queued):
        with pytest.raises(PoolBroken, match="Too many open files") as info:
            future.result(timeout=15)
        assert isinstance(info.value.__cause__, OSError)
    assert p.broken and gone([pid])
    with pytest.raises(PoolBroken):
        p.submit(pow, 2, 2)
    p.shutdown()
    p.shutdown()


FD_SCRIPT = """
import os, resource, signal, sys, time
from scrapy_boilerplate.crawl.worker_pool import WorkerDied, WorkerPool
if __name__ == "__main__":
    pool = WorkerPool(1, task_timeout=5)
    pid = pool.submit(os.getpid).result(timeout=120)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    held = []
    try:
        while True:
            held.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        pass
    os.kill(pid, signal.SIGKILL)
    futures = [pool.submit(pow, 2, n) for n in (2, 3)]
    deadline = time.monotonic() + 15
    while not all(f.done() for f in futures) and time.monotonic() < deadline:
        time.sleep(0.05)
    outcome = [type(f.exception()).__name__ if f.done() else "pending" for f in futures]
    for fd in held:
        os.close(fd)
    after = pool.submit(pow, 2, 5).result(timeout=120)
    pool.shutdown()
    print(" ".join(outcome), after, flush=True)
"""


def test_descriptors_exhausted_at_a_replacement_fail_tasks_instead_of_hanging(tmp_path):
    """Out of file descriptors when a dead worker is replaced: the start fails, the tasks
    fail with WorkerDied within seconds (it hung the crawl for ever), and the pool
    starts workers again once descriptors are free."""
    script = tmp_path / "descriptors.py"
    script.write_text(FD_SCRIPT, encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=TESTS, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.split() == ["WorkerDied", "WorkerDied", "32"]


def test_submit_returns_at_once_while_a_worker_starts(pool):
    """Large pages sent to a worker that is still starting: submit() used to wait for the
    start (2.9 s with a 3 s initializer) under the lock the supervisor held."""
    p = pool(1, initializer=slow_start, initargs=(3.0,))
    page = "x" * 6_000_000
    futures = [p.submit(len, page)]
    time.sleep(0.5)  # the supervisor is busy with the worker's start
    times = []
    for _ in range(2):
        start = time.perf_counter()
        futures.append(p.submit(len, page))
        times.append(time.perf_counter() - start)
    assert max(times) < 0.5, times  # microseconds when quiet; 2.8 s when it waited for the start
    assert [f.result(timeout=WAIT) for f in futures] == [6_000_000] * 3
    start = time.perf_counter()
    p.shutdown(wait=False)
    assert time.perf_counter() - start < 0.5


def test_a_hanging_start_is_a_failed_start(pool):
    """A worker that never gets ready is killed after start_timeout; it counts as a death,
    and with no worker left, the queued task fails saying why."""
    p = pool(1, initializer=slow_start, initargs=(3600,), start_timeout=0.5)
    with pytest.raises(WorkerDied, match=r"not ready within 0\.5 s"):
        p.submit(pow, 2, 2).result(timeout=WAIT)
    assert p.deaths == STARTS_BEFORE_FAILING and p.timeouts == 0


def test_a_page_deadline_starts_when_its_worker_is_ready(pool):
    """BOILERPLATE_EXECUTOR_TIMEOUT below a worker's start-up: every page timed out before
    a worker ran anything, and a new worker was spawned for each."""
    p = pool(2, initializer=slow_start, initargs=(1.0,), task_timeout=0.4)
    futures = [p.submit(pow, 2, n) for n in range(6)]
    assert [f.result(timeout=WAIT) for f in futures] == [2**n for n in range(6)]
    assert p.timeouts == p.deaths == 0 and len(p.pids()) == 2


def test_ctrl_c_while_a_worker_starts_does_not_kill_it(pool):
    """SIGINT reaches the whole process group, also in the half second before a worker
    ignores it: it must not kill the worker (its page was reported dead)."""
    p = pool(1)
    future = p.submit(os.getpid)
    signalled = 0
    while not future.done():
        for pid in p.pids():
            try:
                os.kill(pid, signal.SIGINT)
                signalled += 1
            except ProcessLookupError:
                pass
        time.sleep(0.005)
    assert signalled > 10
    assert future.result() in p.pids() and p.deaths == 0


def test_a_task_that_cannot_be_loaded_in_the_worker_fails_alone(pool):
    """Five such tasks in a row killed five workers (and stopped a crawl's use of them)."""
    p = pool(1)
    pid = p.submit(os.getpid).result(timeout=WAIT)
    for _ in range(5):
        with pytest.raises(ImportError, match="cannot be loaded in a worker"):
            p.submit(len, LoadsOnlyHere()).result(timeout=WAIT)
    assert p.submit(os.getpid).result(timeout=WAIT) == pid
    assert p.deaths == p.deaths_in_a_row == 0


class BrokenPipeOnce:
    """A worker's pipe whose next send fails as if the idle worker had just died."""

    def __init__(self, conn):
        self._conn, self.failed = conn, False

    def send_bytes(self, data):
        if not self.failed:
            self.failed = True
            raise BrokenPipeError(32, "Broken pipe")
        return self._conn.send_bytes(data)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def test_a_task_whose_send_fails_on_a_dead_idle_worker_runs_on_another(pool):
    """It never started: it goes back to the head of the queue instead of failing."""
    p = pool(1)
    pid = p.submit(os.getpid).result(timeout=WAIT)
    [worker] = p._pool
    worker.conn = BrokenPipeOnce(worker.conn)
    assert p.submit(pow, 2, 4).result(timeout=WAIT) == 16
    assert worker.conn.failed and pid not in p.pids() and p.deaths == 0


def test_shutdown_from_two_threads_at_once_is_clean(pool):
    """Two shutdown() calls raced into InvalidStateError."""
    for _ in range(3):
        p = pool(2)
        futures = [p.submit(time.sleep, 3600) for _ in range(4)]
        time.sleep(0.2)
        errors = []

        def stop(p: WorkerPool = p, errors: list = errors) -> None:
            try:
                p.shutdown()
            except BaseException as exc:  # noqa: BLE001 - what the test looks for
                errors.append(exc)

        threads = [threading.Thread(target=stop) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT)
        assert not errors
        for future in futures:
            with pytest.raises(WorkerLost):
                future.result(timeout=1)


def test_no_descriptor_is_left_open_by_pools_shut_down():
    """The wake-up pipe leaked when the supervisor never ran or died."""
    WorkerPool(1).shutdown()  # the first pool imports what it needs
    before = open_descriptors()
    for _ in range(20):
        WorkerPool(1).shutdown()
    p = WorkerPool(1)
    p.submit(pow, 2, 2).result(timeout=WAIT)
    p._dispatch = lambda: 1 / 0
    with pytest.raises(PoolBroken):
        p.submit(pow, 2, 2).result(timeout=15)
    p.shutdown()
    assert open_descriptors() <= before


def test_a_worker_stopped_mid_reply_stalls_no_other_deadline(pool):
    """A worker stopped (SIGSTOP) while sending a large result: the supervisor must not wait
    for the rest; the other tasks' deadlines hold, and the stopped task's own."""
    from pool_faults import stop_mid_reply

    p = pool(3, task_timeout=2.0)
    started = [p.submit(time.sleep, 0.3) for _ in range(3)]  # three workers, started and idle
    assert [f.result(timeout=WAIT) for f in started] == [None] * 3
    pids = set(p.pids())
    stopped = p.submit(stop_mid_reply, 64 << 20, 4 << 20)
    time.sleep(0.5)  # the supervisor has 4 MB of the 64 MB reply, and no more comes
    try:
        start = time.monotonic()
        hung = p.submit(time.sleep, 3600)
        quick = p.submit(pow, 2, 5)
        assert quick.result(timeout=10) == 32
        with pytest.raises(TaskTimeout, match="within 2 s"):
            hung.result(timeout=10)
        with pytest.raises(TaskTimeout, match="within 2 s"):
            stopped.result(timeout=10)
        took = time.monotonic() - start
        assert took < 4, f"{took:.1f} s for deadlines of 2 s"
        assert p.submit(pow, 3, 2).result(timeout=WAIT) == 9  # (on a worker started anew)
    finally:
        for pid in pids | set(p.pids()):  # without the fix: free the blocked supervisor
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
