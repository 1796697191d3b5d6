"""The texts a crawl has seen, in Redis: one store shared by every process of a distributed crawl.

Keys (``prefix`` default ``boilerplate:duplicates:``): ``<prefix>i:<text hash>``, a hash with the
item's key (``u``, its URL) and its signature (``s``, 2 bytes a position); ``<prefix>b:<period>``,
one hash per period of ``ttl`` seconds mapping each LSH band key (8 bytes) to the text hashes
that have it. An item costs one round trip: a Lua script (EVALSHA) looks for the exact copy, then
checks the candidates of the bands (in this period's and the previous period's hash) on their
signatures, and remembers the text when it is no copy, atomically, so two processes meeting two
copies of one story at once never both take the first place.

Expiry: a remembered text is found for at least ``ttl`` seconds (default 7 days) and at most
twice as long (its bands are in the hash of the period it came in, read during that period and
the next; the period hashes and item hashes expire after that). ``ttl`` 0: never forgotten.
One hash per period instead of one set per band keeps Redis's memory at about 3.4 KB an item
rather than 10 KB (docs/duplicates.md).

If Redis is unreachable, slow (``timeout``, default 0.25 s) or fails, the item is not judged
(:class:`~.index.DuplicateIndex` says "unavailable"), one WARNING is logged per outage (or
DEBUG with ``quiet``: a crawl logs it itself), and the store tries again after ``retry_after``
seconds; items in between are not judged, at no cost. Needs the optional ``redis`` package.
This module imports no Scrapy.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..redis_link import DEFAULT_RETRY_AFTER, DEFAULT_TIMEOUT, DEFAULT_TTL, RedisLink, redacted
from .store import DuplicateStore, Match, needed

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

logger = logging.getLogger(__name__)

DEFAULT_PREFIX = "boilerplate:duplicates:"

# KEYS[1]: the item's hash. ARGV: TTL (0: none), equal positions needed, the item's key, its
# signature, the item-key prefix, the text hash, the band-hash prefix, then the band keys.
# Returns {key of the copy or "", equal positions of the best candidate (-1: none), 1 if exact}.
FIND_OR_ADD = """
local ttl = tonumber(ARGV[1])
local need = tonumber(ARGV[2])
local sig = ARGV[4]
local first = redis.call('HGET', KEYS[1], 'u')
if first then return {first, #sig / 2, 1} end
local period = 0
if ttl > 0 then period = math.floor(tonumber(redis.call('TIME')[1]) / ttl) end
local current = ARGV[7] .. period
local hashes = {current}
if ttl > 0 then hashes[2] = ARGV[7] .. (period - 1) end
local seen, best, best_equal, own_equal = {}, '', -1, -1
for _, hash in ipairs(hashes) do
  for i = 8, #ARGV do
    local held = redis.call('HGET', hash, ARGV[i])
    if held then
      for p = 1, #held, 16 do
        local digest = string.sub(held, p, p + 15)
        if not seen[digest] then
          seen[digest] = true
          local other = redis.call('HMGET', ARGV[5] .. digest, 'u', 's')
          if other[1] and other[2] and #other[2] == #sig then
            local equal = 0
            for q = 1, #sig, 2 do
              if string.sub(sig, q, q + 1) == string.sub(other[2], q, q + 1) then equal = equal + 1 end
            end
            if equal > best_equal then best, best_equal = other[1], equal end
            if other[1] == ARGV[3] and equal > own_equal then own_equal = equal end
          end
        end
      end
    end
  end
end
-- A page crawled again is no copy, even when another page is closer.
if own_equal >= need then return {ARGV[3], own_equal, 0} end
if best_equal >= need then return {best, best_equal, 0} end
redis.call('HSET', KEYS[1], 'u', ARGV[3], 's', sig)
if ttl > 0 then redis.call('EXPIRE', KEYS[1], 2 * ttl) end
for i = 8, #ARGV do
  local held = redis.call('HGET', current, ARGV[i]) or ''
  -- At most 64 texts a band (the latest): texts alike enough to share bands yet no copies are few.
  redis.call('HSET', current, ARGV[i], string.sub(held .. ARGV[6], -1024))
end
if ttl > 0 then redis.call('EXPIRE', current, 2 * ttl + 60) end
return {'', best_equal, 0}
"""


class RedisDuplicateStore(RedisLink, DuplicateStore):
    """Seen texts in Redis, shared by processes and machines; see the module docstring.

    Redis's memory: about 3.4 KB an item (docs/duplicates.md); texts are forgotten after ``ttl``
    to ``2 * ttl`` seconds. A single Redis, not a cluster (the script reads keys it derives).
    """

    SCRIPT = FIND_OR_ADD
    NEEDED_BY = "a Redis duplicates store"

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = DEFAULT_PREFIX,
        ttl: int = DEFAULT_TTL,
        retry_after: float = DEFAULT_RETRY_AFTER,
        url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        quiet: bool = False,
    ) -> None:
        if ttl < 0:
            raise ValueError("ttl must not be negative")
        if not prefix:
            raise ValueError(
                "prefix must not be empty (the keys would be at the top level of the "
                "database, among any other program's)"
            )
        self._link(client, prefix, ttl, retry_after, url, timeout, quiet)

    def __reduce__(self) -> tuple[Callable[..., RedisDuplicateStore], tuple[object, ...]]:
        if self.url is None:
            raise TypeError(
                "a RedisDuplicateStore made from a client object cannot be pickled; use RedisDuplicateStore.from_url()"
            )
        return (
            _from_url,
            (
                self.url,
                self.timeout,
                {"prefix": self.prefix, "ttl": self.ttl, "retry_after": self.retry_after, "quiet": self.quiet},
            ),
        )

    @property
    def down(self) -> bool:
        """Whether the store is in an outage (items are not judged)."""
        return self._outage.down

    @property
    def errors(self) -> int:
        """Items the store failed on (not judged)."""
        return self._outage.failures

    @property
    def outages(self) -> int:
        """Outages, each logged once."""
        return self._outage.outages

    def find_or_add(self, digest: str, sig: np.ndarray, bands: list[int], key: str, threshold: float) -> Match | None:
        if self._outage.skipping():
            return None
        args = [
            self.ttl,
            needed(threshold, len(sig)),
            key,
            sig.tobytes(),
            f"{self.prefix}i:",
            digest,
            f"{self.prefix}b:",
            *(band.to_bytes(8, "little") for band in bands),
        ]
        try:
            first, equal, exact = self._script(keys=[f"{self.prefix}i:{digest}"], args=args, client=self.client)
        except Exception as exc:  # noqa: BLE001 - redis errors, timeouts, OSError: not judged
            self._failed(exc)
            return None
        if self._outage.recovered():
            logger.log(
                logging.DEBUG if self.quiet else logging.INFO, "duplicates store at %s is reachable again", self.where()
            )
        first = first.decode("utf-8", "replace") if isinstance(first, bytes) else first
        return Match(first or None, max(int(equal), 0) / len(sig), exact=bool(exact))

    def _failed(self, exc: Exception) -> None:
        if self._outage.failed(self.retry_after):
            logger.log(
                logging.DEBUG if self.quiet else logging.WARNING,
                "duplicates store at %s failed (%r): items are not judged; trying again in %g s",
                self.where(),
                exc,
                self.retry_after,
            )

    def where(self) -> str:
        return redacted(self.url)

    def clear(self) -> None:
        """Delete every key of the prefix (tests, a new crawl)."""
        for name in self.client.scan_iter(match=self.prefix + "*", count=1000):
            self.client.delete(name)

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:  # noqa: BLE001
            pass


def _from_url(url: str, timeout: float, settings: dict[str, Any]) -> RedisDuplicateStore:
    return RedisDuplicateStore.from_url(url, timeout=timeout, **settings)
