"""Run one library in its own process, one page at a time, with a time limit per page.

A library that hangs or crashes on a page costs that page (an empty output and
a counted failure) and a restart of its worker, never the suite. The worker
times each call itself (the pipe is not timed) and the parent reads the
worker's peak resident memory (VmHWM) from /proc.
"""

from __future__ import annotations

import logging
import multiprocessing
import socket
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

# A tiny page for the untimed first call: imports, caches and models load on it.
WARM_UP_HTML = (
    b"<html><head><title>Warm-up</title></head><body><nav><a href='/'>Home</a></nav>"
    b"<article><h1>Warm-up</h1>" + b"<p>" + b"A sentence of warm-up text. " * 30 + b"</p>"
    b"</article><footer>Footer</footer></body></html>"
)
WARM_UP_URL = "https://example.com/warm-up.html"
START_TIMEOUT = 180.0  # importing and warming up a library, on a busy machine

# Blocked network attempts in this worker (see block_network).
network_attempts = 0


class NetworkBlocked(OSError):
    pass


def block_network() -> None:
    """No library may reach the network from a worker: the pages are given, and this
    machine may only talk to itself. An attempt fails (as an unreachable host would) and is
    counted."""

    def refuse(*args, **kwargs):
        global network_attempts
        network_attempts += 1
        raise NetworkBlocked("network access is blocked in benchmark workers")

    socket.getaddrinfo = refuse
    socket.create_connection = refuse
    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse


def worker_main(conn, kind: str, name: str, options: dict) -> None:
    """The worker process: set the library up, then answer pages until told to stop."""
    import os

    # One core per library: no thread pools under numpy or scikit-learn.
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    import extractors  # this folder is on sys.path: spawn gives the child the parent's

    block_network()
    # Libraries log or warn per page; writing that out would be timed too and drown the output.
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    try:
        run = extractors.adapter(kind, name).factory(**options)
    except ImportError as exc:
        conn.send(("not installed", str(exc)))
        return
    try:
        run(WARM_UP_HTML, WARM_UP_URL)
    except Exception:  # noqa: BLE001 - a failure on the warm-up page is not a failure on a real page
        pass
    conn.send(("ready", None))
    while True:
        message = conn.recv()
        if message is None:
            return
        html, url = message
        error = None
        start = time.perf_counter()
        cpu_start = time.process_time()
        try:
            value = run(html, url)
        except Exception as exc:  # noqa: BLE001 - RecursionError included
            value = None
            error = f"{type(exc).__name__}: {exc}"[:300]
        seconds = time.perf_counter() - start
        cpu_seconds = time.process_time() - cpu_start
        conn.send((value, seconds, cpu_seconds, error, network_attempts))


def peak_rss_bytes(pid: int) -> int | None:
    """Peak resident set size of a live process (Linux VmHWM), None where /proc has none."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


class NotInstalled(Exception):
    pass


@dataclass
class Call:
    value: object  # what the adapter returned; None on a failure
    seconds: float  # wall time of the call (the limit, on a timeout)
    cpu_seconds: float | None
    error: str | None  # "timeout", or the exception's type and message


@dataclass
class IsolatedRunner:
    """One library's worker process; restarted after a timeout or a crash."""

    kind: str
    name: str
    timeout: float = 20.0
    options: dict = field(default_factory=dict)  # keyword arguments of the adapter's factory
    restarts: int = 0
    peak_rss: int | None = None  # the highest VmHWM of all this runner's workers
    ready_rss: int | None = None  # VmHWM after import and warm-up, before any page
    network_attempts: int = 0
    _process: multiprocessing.Process | None = field(default=None, repr=False)
    _conn: object = field(default=None, repr=False)
    _attempts_seen: int = field(default=0, repr=False)

    def start(self) -> None:
        context = multiprocessing.get_context("spawn")  # a clean process: its memory is the library's
        parent_conn, child_conn = context.Pipe()
        process = context.Process(
            target=worker_main, args=(child_conn, self.kind, self.name, self.options), daemon=True
        )
        process.start()
        child_conn.close()
        self._process, self._conn, self._attempts_seen = process, parent_conn, 0
        if not parent_conn.poll(START_TIMEOUT):
            self._kill()
            raise RuntimeError(f"{self.name}: worker did not start within {START_TIMEOUT:.0f} s")
        try:
            status, detail = parent_conn.recv()
        except EOFError:
            self._kill()
            raise RuntimeError(f"{self.name}: worker died while starting") from None
        if status == "not installed":
            self._stop()
            raise NotInstalled(detail)
        if self.ready_rss is None:
            self.ready_rss = peak_rss_bytes(process.pid)

    def call(self, html: bytes, url: str | None) -> Call:
        if self._process is None:
            self.start()
        try:
            self._conn.send((html, url))
            if self._conn.poll(self.timeout):
                value, seconds, cpu_seconds, error, attempts = self._conn.recv()
                self.network_attempts += attempts - self._attempts_seen
                self._attempts_seen = attempts
                return Call(value, seconds, cpu_seconds, error)
            error, seconds = "timeout", self.timeout
        except (EOFError, BrokenPipeError, ConnectionResetError):
            # The worker died on this page (a crash in C code, or killed for memory).
            error, seconds = "worker died", float("nan")
        self._kill()
        self.restarts += 1
        return Call(None, seconds, None, error)

    def close(self) -> None:
        if self._process is not None:
            self._stop()

    def _remember_rss(self) -> None:
        rss = peak_rss_bytes(self._process.pid)
        if rss is not None:
            self.peak_rss = max(self.peak_rss or 0, rss)

    def _stop(self) -> None:
        self._remember_rss()
        try:
            self._conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self._process.join(10)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._process = None

    def _kill(self) -> None:
        self._remember_rss()
        self._process.kill()
        self._process.join()
        self._process = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
