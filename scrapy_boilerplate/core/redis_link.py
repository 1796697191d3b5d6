"""What the two Redis stores (site memory, duplicates) share: the optional package, a client that
fails fast, the server's URL fit for a log line, and the state of an outage."""

from __future__ import annotations

import threading
import time
from typing import Any


def import_redis(needed_by: str) -> Any:
    """The optional `redis` package, or an ImportError saying how to install it."""
    try:
        import redis
    except ImportError as exc:
        raise ImportError(f'{needed_by} needs the "redis" package: pip install '
                          '"scrapy-boilerplate-removal[redis]" (or pip install redis)') from exc
    return redis


def client_from_url(url: str, timeout: float, needed_by: str) -> Any:
    """A client of the Redis at `url`, connecting lazily, with `timeout` on connecting and on
    every answer and no retries: a store waits at most `timeout` for a page or an item."""
    redis = import_redis(needed_by)
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout,
                                retry=Retry(NoBackoff(), 0))


def redacted(url: str | None) -> str:
    """The server's URL without a password (redis://user:secret@host -> redis://host)."""
    url = url or "redis"
    scheme, sep, rest = url.partition("://")
    return f"{scheme}{sep}{rest.rsplit('@', 1)[-1]}" if sep else url


class Outage:
    """Whether the server is down: after a failure, calls are skipped for `retry_after` seconds,
    and the first failure and the recovery of each outage are reported once."""

    def __init__(self) -> None:
        self.down = False
        self._until = 0.0
        self._lock = threading.Lock()
        #: Failed calls, and outages (each a run of failures until a call succeeds).
        self.failures = 0
        self.outages = 0

    def skipping(self) -> bool:
        """Whether to go on without the server (an outage, retry time not reached)."""
        return self.down and time.monotonic() < self._until

    def failed(self, retry_after: float) -> bool:
        """Record a failed call; True when it starts an outage (the one to log)."""
        with self._lock:
            self.failures += 1
            first = not self.down
            self.down = True
            self._until = time.monotonic() + retry_after
            if first:
                self.outages += 1
        return first

    def recovered(self) -> bool:
        """Record a call that succeeded; True when it ends an outage (the one to log)."""
        if not self.down:
            return False
        with self._lock:
            back, self.down = self.down, False
        return back
