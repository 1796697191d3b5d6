"""Worker processes that each hold one task at a time, on a pipe of their own.

``concurrent.futures.ProcessPoolExecutor`` is not used: when one of its workers
dies, every task in the pool fails with it, and from Python 3.12 on it calls
the futures' done callbacks while holding the lock that ``shutdown()`` and
``submit()`` take, so a callback that reacts to the broken pool deadlocks the
thread that runs it (the crawl then hangs). pebble, loky and billiard were
measured too (docs/executors.md): each lost or stalled crawls under worker
kills this pool survives. Here each worker has its own pipe and at most one
task, so a worker that dies or hangs costs exactly the task it held: the task
fails with :class:`WorkerDied` or :class:`TaskTimeout`, a new worker takes the
worker's place, and no other task notices.

A worker says it is ready once it ignores Ctrl-C and has run its initializer;
only ready workers get tasks, and a task's deadline starts when its worker
receives it, so a worker's start-up (half a second: Scrapy's modules imported
again) never counts against a page. A start that fails, or takes longer than
``start_timeout``, counts as a death.

One supervisor thread owns the workers: it starts them, sends tasks, reads
results, watches sentinels and deadlines, and resolves the futures. The lock it
shares with ``submit()`` and ``shutdown()`` guards only the queue and two
flags, so the caller (the reactor thread) never waits for a process start, a
large send or a kill. Should the supervisor itself fail, every pending task
fails with :class:`PoolBroken` and the pool refuses new work: nothing waits
forever.

This module imports no Scrapy: worker processes import it to run tasks.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import struct
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Container
from concurrent.futures import Future, InvalidStateError
from multiprocessing.connection import wait as wait_for_ready
from multiprocessing.reduction import ForkingPickler
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

# A worker that does not exit within this many seconds of its pipe closing is killed.
EXIT_GRACE_SECONDS = 2.0
# The default bound on a worker's start (spawn, imports, initializer) until it says it is ready.
START_TIMEOUT_SECONDS = 60.0
# Failed starts in a row before queued tasks fail, one per further failure, when no worker is
# left to run them; the pool waits RESTART_DELAY_SECONDS * 2**(n - 1) (at most 1 s) between them.
STARTS_BEFORE_FAILING = 3
RESTART_DELAY_SECONDS = 0.1

_READY, _FAILED = "ready", "failed"
_STARTING, _IDLE, _BUSY, _GONE = "starting", "idle", "busy", "gone"


class WorkerLost(Exception):
    """The worker process holding a task was lost; the task gave no result."""

    #: Logged and counted already (crawl/workers.py count_lost): once per error.
    counted: bool = False


class WorkerDied(WorkerLost):
    """The worker process ended (a crash, a kill) while it held the task, or no worker
    process could be started to run it."""


class TaskTimeout(WorkerLost):
    """The task did not come back in time; its worker process was killed."""


class PoolBroken(WorkerLost):
    """The pool's supervisor failed (its cause is the error); every pending task failed
    with it and the pool takes no more work."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, as text (its __cause__)."""

    def __str__(self) -> str:
        return str(self.args[0])


# (future, func, args): any picklable function and arguments, hence Any.
_Task = tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]


class _Reply:
    """A worker's reply read in pieces, one read of its pipe each time the pipe is readable, so
    that the supervisor never waits inside a message (a worker stopped or slowed while sending a
    large result would hold every other task's deadline). multiprocessing's framing on POSIX:
    a 4-byte big-endian length, or -1 and an 8-byte length for messages of 2 GiB or more."""

    __slots__ = ("header", "body", "got")

    def __init__(self) -> None:
        self.header = bytearray()
        self.body: bytearray | None = None
        self.got = 0

    def read(self, fd: int) -> bytes | None:
        """One read from `fd` (readable: it does not block); the whole message once complete,
        else None. EOFError when the pipe ends first."""
        if self.body is None:
            want = 12 if self.header[:4] == b"\xff\xff\xff\xff" else 4
            chunk = os.read(fd, want - len(self.header))
            if not chunk:
                raise EOFError
            self.header += chunk
            if len(self.header) < 4 or (self.header[:4] == b"\xff\xff\xff\xff" and len(self.header) < 12):
                return None
            (size,) = struct.unpack("!i", self.header[:4])
            if size == -1:
                (size,) = struct.unpack("!Q", self.header[4:12])
            self.body = bytearray(size)
        else:
            count = os.readv(fd, [memoryview(self.body)[self.got :]])
            if not count:
                raise EOFError
            self.got += count
        return bytes(self.body) if self.got == len(self.body) else None


# Replies are read in pieces where the pipe is a file descriptor (POSIX); elsewhere whole.
_PIECEWISE = hasattr(os, "readv") and sys.platform != "win32"


class _Worker:
    __slots__ = ("process", "conn", "pid", "state", "task", "deadline", "exitcode", "reply")

    def __init__(self, process: Any, conn: Any, deadline: float):
        self.process = process
        self.conn = conn
        self.pid: int = process.pid
        self.state = _STARTING
        self.task: _Task | None = None
        self.deadline: float | None = deadline  # of the start, then of the task held
        self.exitcode: int | None = None  # once retired
        self.reply: _Reply | None = None  # the task's reply, while it comes in


class WorkerPool:
    """`workers` processes ("spawn"), each built by `initializer(*initargs)`.

    ``submit(func, *args)`` returns a Future; tasks wait here, in order, until
    a worker is free. ``task_timeout`` (seconds, or None): a task that runs
    longer fails with TaskTimeout and its worker is killed. ``start_timeout``:
    a worker not ready within it is killed (a failed start). Thread-safe.
    """

    def __init__(
        self,
        workers: int,
        initializer: Callable[..., object] | None = None,
        initargs: tuple[object, ...] = (),
        task_timeout: float | None = None,
        start_timeout: float = START_TIMEOUT_SECONDS,
    ):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.workers = workers
        self.task_timeout = task_timeout
        self.start_timeout = start_timeout
        self._initializer, self._initargs = initializer, initargs
        self._context = multiprocessing.get_context("spawn")  # forking a crawl with threads is unsafe
        # Shared with the callers, under the lock: the queue, the flags, the wake-up pipe.
        self._lock = threading.Lock()
        self._queue: deque[_Task] = deque()
        self._closed = False
        self._broken: BaseException | None = None
        self._wakeup_reader, self._wakeup_writer = self._context.Pipe(duplex=False)
        self._wakeup_sent = False  # one wake-up message at a time: the pipe never fills
        self._pipes_closed = False
        self._supervisor: threading.Thread | None = None
        # The supervisor's own.
        self._pool: list[_Worker] = []
        self._failed_starts = 0  # in a row, since a worker last became ready
        self._next_start = 0.0  # monotonic time before which no worker is started
        self.deaths = 0  # workers that died holding a task, or could not start
        self.deaths_in_a_row = 0  # ... since a task last came back
        self.timeouts = 0  # tasks given up after task_timeout

    # -- the caller's side --

    @property
    def broken(self) -> bool:
        """True once the supervisor has failed (every pending task failed with PoolBroken)."""
        return self._broken is not None

    def submit(self, func: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run `func(*args)` in a worker (both must be picklable). Returns at once."""
        future: Future[Any] = Future()
        with self._lock:
            if self._broken is not None:
                raise PoolBroken(f"the worker pool failed: {_describe(self._broken)}")
            if self._closed:
                raise RuntimeError("the worker pool is shut down")
            if self._supervisor is None:
                supervisor = threading.Thread(target=self._supervise, daemon=True, name="boilerplate-worker-pool")
                supervisor.start()
                self._supervisor = supervisor
            self._queue.append((future, func, args))
            self._wake_locked()
        return future

    def pids(self) -> list[int]:
        """Process ids of the workers, those still starting included."""
        return [w.pid for w in list(self._pool)]

    def shutdown(self, wait: bool = True) -> None:
        """Stop the workers; queued and running tasks fail with WorkerLost. Idempotent.

        With `wait`, returns once the supervisor and every worker have exited
        (workers that do not exit within EXIT_GRACE_SECONDS are killed)."""
        with self._lock:
            self._closed = True
            supervisor = self._supervisor
            if supervisor is None:
                self._close_pipes_locked()  # never started: nothing else to stop
            else:
                self._wake_locked()
        if wait and supervisor is not None and supervisor is not threading.current_thread():
            supervisor.join()

    # -- shared with the supervisor (lock held) --

    def _wake_locked(self) -> None:
        if self._wakeup_sent or self._pipes_closed:
            return
        self._wakeup_sent = True
        self._wakeup_writer.send_bytes(b"")

    def _close_pipes_locked(self) -> None:
        if not self._pipes_closed:
            self._pipes_closed = True
            self._wakeup_reader.close()
            self._wakeup_writer.close()

    # -- the supervisor thread --

    def _supervise(self) -> None:
        if hasattr(signal, "pthread_sigmask"):
            # Workers inherit this thread's signal mask: Ctrl-C stays blocked in a worker
            # until it ignores it, so it cannot kill one that is still starting.
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self._run()
        except BaseException as exc:  # noqa: BLE001 - never die silently: fail what is pending
            with self._lock:
                self._broken = exc
                self._closed = True
        finally:
            self._close()

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                queued = len(self._queue)
            self._start_workers(queued)
            self._dispatch()
            waitables: list[Connection | int] = [self._wakeup_reader]
            for worker in self._pool:
                waitables += [worker.process.sentinel, worker.conn]
            ready = set(wait_for_ready(waitables, self._wait_timeout()))
            if self._wakeup_reader in ready:
                with self._lock:
                    self._wakeup_reader.recv_bytes()
                    self._wakeup_sent = False
            self._collect(ready)

    def _wait_timeout(self) -> float | None:
        """Seconds until the next deadline or restart, None for none."""
        times = [w.deadline for w in self._pool if w.deadline is not None]
        with self._lock:
            queued = len(self._queue)
        if self._wanted(queued) > 0:  # a start is due (at once, or after a failed one)
            times.append(self._next_start)
        return max(0.0, min(times) - time.monotonic()) if times else None

    def _start_workers(self, queued: int) -> None:
        """Start the workers wanted, unless a failed start asks to wait."""
        wanted = self._wanted(queued)
        if wanted <= 0 or time.monotonic() < self._next_start:
            return
        for _ in range(wanted):
            try:
                self._pool.append(self._start_worker())
            except Exception as exc:  # noqa: BLE001 - out of descriptors, fork failing, pickling
                self._start_failed(_describe(exc))
                return

    def _wanted(self, queued: int) -> int:
        """Workers to start: for the queued tasks no idle or starting worker will take."""
        waiting = sum(1 for w in self._pool if w.state != _BUSY)
        return min(queued - waiting, self.workers - len(self._pool))

    def _start_worker(self) -> _Worker:
        parent_conn, child_conn = self._context.Pipe()
        try:
            process = self._context.Process(
                target=_worker_main,
                name="boilerplate-worker",
                daemon=True,
                args=(child_conn, self._initializer, self._initargs),
            )
            process.start()
        except BaseException:
            parent_conn.close()
            raise
        finally:
            child_conn.close()
        return _Worker(process, parent_conn, time.monotonic() + self.start_timeout)

    def _start_failed(self, reason: str) -> None:
        """A worker could not start: a death; past a few in a row with no worker left to run
        the queue, the oldest task fails, so a pool that cannot start workers fails its tasks
        one by one instead of holding them for ever."""
        self.deaths += 1
        self.deaths_in_a_row += 1
        self._failed_starts += 1
        delay = RESTART_DELAY_SECONDS * 2 ** min(self._failed_starts - 1, 4)
        self._next_start = time.monotonic() + min(delay, 1.0)
        if self._failed_starts < STARTS_BEFORE_FAILING or self._pool:
            return
        with self._lock:
            task = self._queue.popleft() if self._queue else None
        if task is not None:
            _settle(task[0], False, WorkerDied(f"no worker process could start: {reason}"))

    def _dispatch(self) -> None:
        """Send queued tasks to idle workers (the send outside the lock: pages are large)."""
        for worker in list(self._pool):
            if worker.state != _IDLE:
                continue
            while True:
                with self._lock:
                    task = self._queue.popleft() if self._queue else None
                if task is None:
                    return
                if self._send(worker, task):
                    break
                if worker.state == _GONE:  # it died idle: the task goes back first in line
                    with self._lock:
                        self._queue.appendleft(task)
                    break

    def _send(self, worker: _Worker, task: _Task) -> bool:
        """True once `worker` holds `task`; False when the task failed (it cannot be
        pickled, or was cancelled) or the worker is gone (retired here)."""
        future, func, args = task
        if future.cancelled():
            return False
        try:
            data = ForkingPickler.dumps((func, args))
        except Exception as exc:  # noqa: BLE001 - the task cannot be sent (pickling)
            _settle(future, False, exc)
            return False
        try:
            worker.conn.send_bytes(data)
        except (OSError, EOFError):
            self._retire(worker)
            return False
        future.set_running_or_notify_cancel()
        worker.state, worker.task = _BUSY, task
        worker.deadline = None if self.task_timeout is None else time.monotonic() + self.task_timeout
        return True

    def _collect(self, ready: Container[object]) -> None:
        """Ready messages, results, deaths and timeouts of the workers."""
        now = time.monotonic()
        for worker in list(self._pool):
            signalled = worker.conn in ready or worker.process.sentinel in ready
            if worker.state == _STARTING:
                if signalled:
                    self._started(worker)
                elif worker.deadline is not None and worker.deadline <= now:
                    self._retire(worker)
                    self._start_failed(f"not ready within {self.start_timeout:g} s")
            elif worker.state == _IDLE:
                if signalled:
                    self._retire(worker)  # an idle worker killed from outside: no task lost
            else:
                if signalled:
                    self._finished(worker)
                # Busy still (its reply, if any, incomplete): the task's deadline holds.
                if worker.state == _BUSY and worker.deadline is not None and worker.deadline <= now:
                    self._retire(worker)
                    self.timeouts += 1
                    self._fail_held(
                        worker,
                        TaskTimeout(f"no result within {self.task_timeout:g} s; worker process {worker.pid} killed"),
                    )

    def _started(self, worker: _Worker) -> None:
        message = _receive(worker.conn)
        if message is not None and message[0] == _READY:
            worker.state, worker.deadline = _IDLE, None
            self._failed_starts = 0
            return
        self._retire(worker)
        if message is not None and message[0] == _FAILED:
            self._start_failed(f"its initializer raised {message[1]}")
        else:
            self._start_failed(f"worker process {worker.pid} exited with code {worker.exitcode} while starting")

    def _finished(self, worker: _Worker) -> None:
        """A busy worker's pipe or sentinel is ready: read a piece of its reply (POSIX), and
        once whole, its result, read even when it exited right after sending it."""
        assert worker.task is not None
        future = worker.task[0]
        try:
            if _PIECEWISE:
                if worker.reply is None:
                    worker.reply = _Reply()
                message = worker.reply.read(worker.conn.fileno())
                if message is None:
                    return  # more to come: wait for the pipe again, with the others
                worker.reply = None
                reply = ForkingPickler.loads(message)
            else:
                reply = worker.conn.recv() if worker.conn.poll() else None
        except (OSError, EOFError):
            reply = None
        except Exception as exc:  # noqa: BLE001 - a result that cannot be unpickled
            worker.state, worker.task, worker.deadline = _IDLE, None, None
            _settle(future, False, exc)
            return
        if reply is None:  # died holding the task
            self._retire(worker)
            self.deaths += 1
            self.deaths_in_a_row += 1
            self._fail_held(worker, WorkerDied(f"worker process {worker.pid} died (exit code {worker.exitcode})"))
            return
        worker.state, worker.task, worker.deadline = _IDLE, None, None
        self.deaths_in_a_row = 0
        ok, value, remote = reply
        if not ok and remote:
            value.__cause__ = RemoteTraceback(remote)
        _settle(future, ok, value)

    def _fail_held(self, worker: _Worker, error: WorkerLost) -> None:
        if worker.task is not None:
            _settle(worker.task[0], False, error)
            worker.task = None

    def _retire(self, worker: _Worker) -> None:
        """Take `worker` out of the pool and make sure it ends."""
        self._pool.remove(worker)
        worker.state = _GONE
        worker.conn.close()
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join(EXIT_GRACE_SECONDS)
        _release(worker)

    def _close(self) -> None:
        """Fail every pending task, stop the workers, close the pipes: whatever happened."""
        with self._lock:
            self._closed = True
            queued, self._queue = list(self._queue), deque()
            broken = self._broken
        workers, self._pool = self._pool, []

        def error() -> WorkerLost:
            if broken is None:
                return WorkerLost("the worker pool was shut down")
            lost = PoolBroken(f"the worker pool failed: {_describe(broken)}")
            lost.__cause__ = broken
            return lost

        for future, _func, _args in queued:
            _settle(future, False, error())
        for worker in workers:
            if worker.task is not None:
                _settle(worker.task[0], False, error())
        try:
            _stop_workers(workers)
        finally:
            with self._lock:
                self._close_pipes_locked()


def _settle(future: Future[Any], ok: bool, value: Any) -> None:
    """Resolve `future` unless it is already done or cancelled."""
    try:
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)
    except InvalidStateError:
        pass


def _receive(conn: Any) -> Any:
    """The next message on `conn`, or None when it is closed or unreadable."""
    try:
        return conn.recv() if conn.poll() else None
    except Exception:  # noqa: BLE001 - closed, or a message that cannot be unpickled
        return None


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _stop_workers(workers: list[_Worker]) -> None:
    for worker in workers:
        worker.conn.close()  # an idle worker reads end-of-file and exits
    deadline = time.monotonic() + EXIT_GRACE_SECONDS
    for worker in workers:
        worker.process.join(max(0.0, deadline - time.monotonic()))
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        _release(worker)


def _release(worker: _Worker) -> None:
    """Close the ended process's sentinel and start pipe now, not whenever it is collected."""
    worker.exitcode = worker.process.exitcode
    if worker.exitcode is not None:
        worker.process.close()


# -- the worker's side --


def _worker_main(conn: Any, initializer: Callable[..., object] | None, initargs: tuple[object, ...]) -> None:
    # Ctrl-C reaches the whole process group: stopping is the crawl's decision, and it
    # stops its workers itself. It arrives blocked (the supervisor's mask) until now.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _exit_when_orphaned()
    try:
        if initializer is not None:
            initializer(*initargs)
    except BaseException as exc:  # noqa: BLE001 - a failed start, reported as such
        _send_quietly(conn, (_FAILED, _describe(exc), traceback.format_exc()))
        return
    _send_quietly(conn, (_READY, os.getpid(), None))
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return  # the pool closed the pipe, or its process is gone
        try:
            func, args = pickle.loads(data)  # a task that cannot be loaded fails alone
            reply: tuple[bool, Any, str | None] = (True, func(*args), None)
        except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller
            reply = (False, exc, traceback.format_exc())
        try:
            conn.send(reply)
        except (OSError, EOFError):
            return
        except Exception as exc:  # noqa: BLE001 - a result or exception that cannot be pickled
            conn.send((False, RuntimeError(f"the worker's reply cannot be pickled: {exc!r}"), reply[2]))


def _send_quietly(conn: Any, message: tuple[object, ...]) -> None:
    try:
        conn.send(message)
    except Exception:  # noqa: BLE001 - the pool is gone: nothing to tell
        pass


def _exit_when_orphaned() -> None:
    """End this process when the one that started it is gone (killed with SIGKILL, say):
    an idle worker sees its pipe close, but a busy one would run its task to the end.
    The parent's sentinel works on every platform (os.getppid() never changes on Windows)."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait_for_ready([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="orphan-check").start()
