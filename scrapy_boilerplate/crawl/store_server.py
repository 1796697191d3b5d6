"""A MemoryTemplateStore of the crawl process, reached from its worker processes.

With BOILERPLATE_TEMPLATE_STORE = "memory" and BOILERPLATE_EXECUTOR = "process", pages are
extracted in worker processes but the site memory lives in the crawl process:
:class:`StoreServer` answers each page's exchange (read the counts, record the page) over a
local socket (``multiprocessing.connection``, with a random key), one round trip per page, in
a thread of the crawl process; :class:`RemoteTemplateStore` is the workers' side. Pages reach
the store in the order the workers extract them, as with threads, and a worker sees every page
recorded before its own, whichever worker extracted it.

If the server cannot be reached (or does not answer within ``timeout``), the page is extracted
without site memory, as with Redis. This module imports no Scrapy.
"""

from __future__ import annotations

import logging
import os
import threading
from multiprocessing.connection import Client, Listener
from typing import TYPE_CHECKING, Any

from ..core.site_memory.templates import SiteCounts, TemplateStore

if TYPE_CHECKING:
    from collections.abc import Callable
    from multiprocessing.connection import Connection

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 2.0


class StoreServer:
    """Serves `store` (a TemplateStore of this process) to other processes; one thread per
    connected process, plus one accepting them. `close()` stops it."""

    def __init__(self, store: TemplateStore) -> None:
        self.store = store
        self.authkey = os.urandom(32)
        self._listener = Listener(authkey=self.authkey)
        self.address = self._listener.address
        self._closed = False
        self._thread = threading.Thread(target=self._accept, name="boilerplate-templates", daemon=True)
        self._thread.start()

    def client(self, timeout: float = DEFAULT_TIMEOUT) -> RemoteTemplateStore:
        remote = RemoteTemplateStore(self.address, self.authkey, self.store.warmup, timeout)
        remote.quiet = True  # the crawl logs failures itself (site_memory.py)
        return remote

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn = self._listener.accept()
            except Exception:  # noqa: BLE001 - a bad handshake, or closed
                if self._closed:
                    return
                continue
            threading.Thread(target=self._serve, args=(conn,), name="boilerplate-templates-conn", daemon=True).start()

    def _serve(self, conn: Connection) -> None:
        with conn:
            while not self._closed:
                try:
                    site, fingerprints = conn.recv()
                except Exception:  # noqa: BLE001 - the worker went away
                    return
                try:
                    reply = self.store.exchange(site, fingerprints)
                except Exception as exc:  # noqa: BLE001
                    logger.warning("template store failed: %r", exc)
                    reply = None
                try:
                    conn.send(reply)
                except Exception:  # noqa: BLE001
                    return

    def close(self) -> None:
        self._closed = True
        try:
            self._listener.close()
        except Exception:  # noqa: BLE001
            pass


class RemoteTemplateStore(TemplateStore):
    """The worker side of a StoreServer: `exchange` is one round trip to it."""

    def __init__(self, address: Any, authkey: bytes, warmup: int, timeout: float = DEFAULT_TIMEOUT) -> None:
        super().__init__()
        self.address, self.authkey, self.warmup, self.timeout = address, authkey, warmup, timeout
        self._conn: Connection | None = None
        self._lock = threading.Lock()
        self._warned = False
        self.quiet = False

    def __reduce__(self) -> tuple[Callable[..., RemoteTemplateStore], tuple[object, ...]]:
        return (_remote, (self.address, self.authkey, self.warmup, self.timeout, self.quiet))

    def exchange(self, site: str, fingerprints: list[int]) -> SiteCounts | None:
        with self._lock:
            try:
                if self._conn is None:
                    self._conn = Client(self.address, authkey=self.authkey)
                self._conn.send((site, fingerprints))
                if not self._conn.poll(self.timeout):
                    raise TimeoutError(f"no answer within {self.timeout:g} s")
                counts: SiteCounts | None = self._conn.recv()  # what the server sends (serve())
                return counts
            except Exception as exc:  # noqa: BLE001 - go on without site memory
                self._count("errors")
                if self._conn is not None:
                    try:
                        self._conn.close()
                    except Exception:  # noqa: BLE001
                        pass
                    self._conn = None
                if not self._warned:
                    self._warned = True
                    logger.log(
                        logging.DEBUG if self.quiet else logging.WARNING,
                        "the crawl's template store cannot be reached (%r): pages are extracted without site memory",
                        exc,
                    )
                return None


def _remote(address: Any, authkey: bytes, warmup: int, timeout: float, quiet: bool) -> RemoteTemplateStore:
    remote = RemoteTemplateStore(address, authkey, warmup, timeout)
    remote.quiet = quiet
    return remote
