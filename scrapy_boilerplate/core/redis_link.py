"""What the two Redis stores (site memory, duplicates) share: the optional package, a client that
fails fast, the server's URL fit for a log line, and the state of an outage."""

from __future__ import annotations

import re
import threading
import time
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from typing_extensions import Self

#: Seconds a store's keys live after their last write (0: forever).
DEFAULT_TTL = 7 * 24 * 3600
#: Seconds a store waits for Redis, on connecting and on every answer.
DEFAULT_TIMEOUT = 0.25
#: Seconds a store goes on without Redis after a failure, before it tries again.
DEFAULT_RETRY_AFTER = 30.0


def import_redis(needed_by: str) -> Any:
    """The optional `redis` package, or an ImportError saying how to install it."""
    try:
        import redis
    except ImportError as exc:
        raise ImportError(
            f'{needed_by} needs the "redis" package: pip install '
            '"scrapy-boilerplate-removal[redis]" (or pip install redis)'
        ) from exc
    return redis


def client_from_url(url: str, timeout: float, needed_by: str) -> Any:
    """A client of the Redis at `url`, connecting lazily, with `timeout` on connecting and on
    every answer and no retries: a store waits at most `timeout` for a page or an item."""
    redis = import_redis(needed_by)
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis.from_url(
        url, socket_timeout=timeout, socket_connect_timeout=timeout, retry=Retry(NoBackoff(), 0)
    )


#: Query parameters whose value is a credential (redis-py reads ``?password=``).
_SECRET_PARAMS = re.compile(r"pass|secret|token|auth|credential", re.IGNORECASE)
MASK = "***"


def redacted(url: str | None) -> str:
    """The server's URL fit for a log line or an error: every password masked, wherever the URL
    carries it (``redis://user:secret@host`` -> ``redis://user:***@host``, ``redis://:secret@host``,
    ``?password=secret``, ``rediss://``, ``unix://:secret@/path``), and anything that cannot be
    parsed safely (a typo such as ``redis:/:secret@host``) masked up to its last ``@``. Every
    message naming a Redis server goes through this function."""
    if not url:
        return "redis"
    url = str(url)
    if "://" not in url:
        return f"{MASK}@{url.rsplit('@', 1)[1]}" if "@" in url else url
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is no number
    except ValueError:
        scheme, _, rest = url.partition("://")
        return f"{scheme}://{MASK}@{rest.rsplit('@', 1)[1]}" if "@" in rest else f"{scheme}://{MASK}"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if colon else f"{MASK}@{host}"
    # An "@" past the host: a password holding "/", "?" or "#" unencoded; mask the rest.
    path = parts.path if "@" not in parts.path else "/" + MASK
    query = "&".join(_redacted_param(param) for param in parts.query.split("&")) if parts.query else ""
    if "@" in query:
        query = MASK
    # Not urlunsplit: it drops the "//" of unix:///path.
    return f"{parts.scheme}://{netloc}{path}" + (f"?{query}" if query else "")


def _redacted_param(param: str) -> str:
    name, equals, _ = param.partition("=")
    return f"{name}={MASK}" if equals and _SECRET_PARAMS.search(name) else param


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


class RedisLink:
    """What the two Redis stores share: the client and its script, the key prefix, the TTL,
    the timeout, the outage state; and `from_url`. Each store checks its own arguments."""

    #: The store's Lua script, registered on the client.
    SCRIPT: ClassVar[str]
    #: Who needs the `redis` package, for the ImportError without it.
    NEEDED_BY: ClassVar[str]

    if TYPE_CHECKING:  # each store has its own (its arguments and their checks)

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def _link(
        self, client: Any, prefix: str, ttl: int, retry_after: float, url: str | None, timeout: float, quiet: bool
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.ttl = int(ttl)
        self.retry_after = float(retry_after)
        self.url, self.timeout = url, timeout
        self._script = client.register_script(self.SCRIPT)
        self._outage = Outage()
        # True: failures are logged at DEBUG (a crawl logs them itself, once per outage).
        self.quiet = quiet

    @classmethod
    def from_url(cls, url: str, *, timeout: float = DEFAULT_TIMEOUT, **kwargs: Any) -> Self:
        """A store on the Redis at `url` ("redis://host:port/db", "rediss://", "unix://").
        Connects lazily, with `timeout` on connecting and on every answer and no retries: an
        unreachable server is found (and logged) at the first page or item."""
        client = client_from_url(url, timeout, cls.NEEDED_BY)
        return cls(client, url=url, timeout=timeout, **kwargs)
