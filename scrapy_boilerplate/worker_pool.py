"""Worker processes that each hold one task at a time, on a pipe of their own.

``concurrent.futures.ProcessPoolExecutor`` is not used: when one of its workers
dies, every task in the pool fails with it, and from Python 3.12 on it calls
the futures' done callbacks while holding the lock that ``shutdown()`` and
``submit()`` take, so a callback that reacts to the broken pool deadlocks the
thread that runs it (the crawl then hangs). Here each worker has its own pipe
and at most one task, so a worker that dies or hangs costs exactly the task
it held: the task fails with :class:`WorkerDied` or :class:`TaskTimeout`, a
new worker takes the worker's place, and no other task notices.

One supervisor thread sends tasks, reads results, watches the workers'
sentinels and deadlines, and resolves the futures, never while holding the
pool's lock, so a done callback may call ``submit()`` or ``shutdown()``.

This module imports no Scrapy: worker processes import it to run tasks.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections import deque
from concurrent.futures import Future
from multiprocessing.connection import wait as wait_for_ready

# A worker that does not exit within this many seconds of its pipe closing is killed.
EXIT_GRACE_SECONDS = 2.0
# How often a worker checks that the process that started it is still there.
ORPHAN_CHECK_SECONDS = 1.0


class WorkerLost(Exception):
    """The worker process holding a task was lost; the task gave no result."""


class WorkerDied(WorkerLost):
    """The worker process ended (a crash, a kill) while it held the task."""


class TaskTimeout(WorkerLost):
    """The task did not come back in time; its worker process was killed."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, as text (its __cause__)."""

    def __str__(self) -> str:
        return self.args[0]


class _Worker:
    __slots__ = ("process", "conn", "task", "deadline", "pid")

    def __init__(self, process, conn):
        self.process = process
        self.conn = conn
        self.pid = process.pid
        self.task: tuple | None = None     # (future, func, args) while busy
        self.deadline: float | None = None


class WorkerPool:
    """`workers` processes ("spawn"), each built by `initializer(*initargs)`.

    ``submit(func, *args)`` returns a Future; tasks wait here, in order, until
    a worker is free. ``task_timeout`` (seconds, or None): a task that runs
    longer fails with TaskTimeout and its worker is killed. Thread-safe.
    """

    def __init__(self, workers: int, initializer=None, initargs: tuple = (),
                 task_timeout: float | None = None):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.workers = workers
        self.task_timeout = task_timeout
        self._initializer, self._initargs = initializer, initargs
        self._context = multiprocessing.get_context("spawn")   # forking a crawl with threads is unsafe
        self._lock = threading.Lock()
        self._queue: deque = deque()
        self._pool: list[_Worker] = []
        self._closed = False
        self._wakeup_reader, self._wakeup_writer = self._context.Pipe(duplex=False)
        self._wakeup_sent = False   # one wake-up message at a time: the pipe never fills
        self._supervisor: threading.Thread | None = None
        self.deaths = 0             # workers that died holding a task
        self.deaths_in_a_row = 0    # ... since a task last came back
        self.timeouts = 0           # tasks given up after task_timeout

    # -- the caller's side --

    def submit(self, func, *args) -> Future:
        """Run `func(*args)` in a worker (both must be picklable)."""
        future: Future = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the worker pool is shut down")
            self._queue.append((future, func, args))
            if self._supervisor is None:
                self._supervisor = threading.Thread(target=self._supervise, daemon=True,
                                                    name="boilerplate-worker-pool")
                self._supervisor.start()
        self._wake()
        return future

    def pids(self) -> list[int]:
        """Process ids of the running workers."""
        with self._lock:
            return [w.pid for w in self._pool]

    def shutdown(self, wait: bool = True) -> None:
        """Stop the workers; queued and running tasks fail with WorkerLost.

        With `wait`, returns once the supervisor and every worker have exited
        (workers that do not exit within EXIT_GRACE_SECONDS are killed)."""
        with self._lock:
            if self._closed:
                supervisor = None
            else:
                self._closed = True
                supervisor = self._supervisor
        self._wake()
        if supervisor is None:
            self._stop_workers(self._take_all())   # never started, or stopping already
        elif wait and supervisor is not threading.current_thread():
            supervisor.join()

    # -- the supervisor thread --

    def _wake(self) -> None:
        with self._lock:
            if self._wakeup_sent:
                return
            self._wakeup_sent = True
        try:
            self._wakeup_writer.send_bytes(b"")
        except OSError:   # closed: the pool is gone
            pass

    def _supervise(self) -> None:
        while True:
            done: list = []   # (future, ok, value): resolved outside the lock
            with self._lock:
                if self._closed:
                    break
                self._dispatch(done)
                waitables = [self._wakeup_reader]
                for worker in self._pool:
                    waitables.append(worker.process.sentinel)
                    if worker.task is not None:
                        waitables.append(worker.conn)
                deadlines = [w.deadline for w in self._pool if w.deadline is not None]
            self._resolve(done)
            timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            ready = set(wait_for_ready(waitables, timeout))
            with self._lock:
                if self._wakeup_reader in ready:
                    self._wakeup_reader.recv_bytes()
                    self._wakeup_sent = False
                self._collect(ready, done)
            self._resolve(done)
        workers = self._take_all()
        self._stop_workers(workers)
        self._wakeup_reader.close()
        self._wakeup_writer.close()

    def _dispatch(self, done: list) -> None:
        """Send queued tasks to idle workers, starting workers as needed (lock held)."""
        while self._queue:
            worker = next((w for w in self._pool if w.task is None), None)
            if worker is None:
                if len(self._pool) >= self.workers:
                    return
                worker = self._start_worker()
            future, func, args = self._queue.popleft()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                worker.conn.send((func, args))
            except (OSError, EOFError):
                # The worker is gone before it took the task (it could not start).
                self._retire(worker)
                self._lost(future, WorkerDied(f"worker process {worker.pid} died (exit code "
                                              f"{worker.process.exitcode})"), done, death=True)
                continue
            except Exception as exc:   # noqa: BLE001 - the task cannot be sent (pickling)
                done.append((future, False, exc))
                continue
            worker.task = (future, func, args)
            if self.task_timeout is not None:
                worker.deadline = time.monotonic() + self.task_timeout

    def _start_worker(self) -> _Worker:
        parent_conn, child_conn = self._context.Pipe()
        process = self._context.Process(
            target=_worker_main, name="boilerplate-worker", daemon=True,
            args=(child_conn, os.getpid(), self._initializer, self._initargs))
        process.start()
        child_conn.close()
        worker = _Worker(process, parent_conn)
        self._pool.append(worker)
        return worker

    def _collect(self, ready: set, done: list) -> None:
        """Results, deaths and timeouts of the workers (lock held)."""
        now = time.monotonic()
        for worker in list(self._pool):
            if worker.conn in ready or (worker.task is not None and worker.process.sentinel in ready
                                        and worker.conn.poll()):
                # A result (read even when the worker exited right after sending it).
                try:
                    ok, value, remote = worker.conn.recv()
                except (OSError, EOFError):
                    pass   # died: handled below
                except Exception as exc:   # noqa: BLE001 - a result that cannot be unpickled
                    future = worker.task[0]
                    worker.task, worker.deadline = None, None
                    done.append((future, False, exc))
                    continue
                else:
                    future = worker.task[0]
                    worker.task, worker.deadline = None, None
                    self.deaths_in_a_row = 0
                    if not ok and remote:
                        value.__cause__ = RemoteTraceback(remote)
                    done.append((future, ok, value))
                    continue
            if worker.process.sentinel in ready or worker.conn in ready:
                self._retire(worker)
                if worker.task is not None:
                    self._lost(worker.task[0], WorkerDied(
                        f"worker process {worker.pid} died (exit code {worker.process.exitcode})"),
                        done, death=True)
            elif worker.deadline is not None and worker.deadline <= now:
                self._retire(worker)
                self.timeouts += 1
                self._lost(worker.task[0], TaskTimeout(
                    f"no result within {self.task_timeout:g} s; worker process {worker.pid} killed"),
                    done)

    def _retire(self, worker: _Worker) -> None:
        """Take `worker` out of the pool and make sure it ends (lock held)."""
        self._pool.remove(worker)
        worker.conn.close()
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join(EXIT_GRACE_SECONDS)

    def _lost(self, future: Future, error: WorkerLost, done: list, death: bool = False) -> None:
        if death:
            self.deaths += 1
            self.deaths_in_a_row += 1
        done.append((future, False, error))

    @staticmethod
    def _resolve(done: list) -> None:
        for future, ok, value in done:
            if future.done():
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)
        done.clear()

    def _take_all(self) -> list[_Worker]:
        """Empty the queue and the pool; their tasks fail."""
        with self._lock:
            queued, self._queue = list(self._queue), deque()
            workers, self._pool = self._pool, []
        for future, _func, _args in queued:
            if future.set_running_or_notify_cancel():
                future.set_exception(WorkerLost("the worker pool was shut down"))
        for worker in workers:
            if worker.task is not None and not worker.task[0].done():
                worker.task[0].set_exception(WorkerLost("the worker pool was shut down"))
        return workers

    @staticmethod
    def _stop_workers(workers: list[_Worker]) -> None:
        for worker in workers:
            worker.conn.close()   # an idle worker reads end-of-file and exits
        deadline = time.monotonic() + EXIT_GRACE_SECONDS
        for worker in workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()


# -- the worker's side --

def _worker_main(conn, parent_pid: int, initializer, initargs) -> None:
    # Ctrl-C reaches the whole process group: stopping is the crawl's decision,
    # and it stops its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_when_orphaned(parent_pid)
    if initializer is not None:
        initializer(*initargs)   # an error ends the worker: its task fails with WorkerDied
    while True:
        try:
            func, args = conn.recv()
        except (EOFError, OSError):
            return   # the pool closed the pipe, or its process is gone
        try:
            reply = (True, func(*args), None)
        except BaseException as exc:   # noqa: BLE001 - every failure goes back to the caller
            reply = (False, exc, traceback.format_exc())
        try:
            conn.send(reply)
        except (OSError, EOFError):
            return
        except Exception as exc:   # noqa: BLE001 - a result or exception that cannot be pickled
            conn.send((False, RuntimeError(f"the worker's reply cannot be pickled: {exc!r}"),
                       None))


def _exit_when_orphaned(parent_pid: int) -> None:
    """End this process when the one that started it is gone (killed with SIGKILL, say):
    an idle worker sees its pipe close, but a busy one would run its task to the end."""
    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(ORPHAN_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="orphan-check").start()
