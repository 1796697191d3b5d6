"""Site memory in Redis: one store shared by every process of a crawl.

``RedisTemplateStore.from_url("redis://host:port/db")`` keeps one Redis hash per site
(``<prefix><site>``): a field per block fingerprint (16 hex digits) holding the number of the
site's pages that had the block, and the field ``#`` holding the site's page count. A page costs
one round trip: a small Lua script (EVALSHA) reads the counts of the page's fingerprints,
records the page, applies the cap per site exactly as :class:`MemoryTemplateStore` does, and
renews the hash's TTL, atomically, so processes sharing a crawl never interleave inside a page.
Given the same pages in the same order, both stores give the same counts, so the same output.

If Redis is unreachable, slow (``timeout``, default 0.25 s) or fails, the page is extracted
without template evidence (the text is that of no store), one WARNING is logged for the
outage, ``stats["errors"]`` counts it, and the store tries again after ``retry_after`` seconds
(pages in between go without the store at no cost).

Needs the optional ``redis`` package: ``pip install "scrapy-boilerplate-removal[redis]"``.
This module imports no Scrapy.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..redis_link import DEFAULT_RETRY_AFTER, DEFAULT_TIMEOUT, DEFAULT_TTL, RedisLink, redacted
from .templates import DEFAULT_MAX_FINGERPRINTS, DEFAULT_WARMUP, SiteCounts, TemplateStore

if TYPE_CHECKING:
    from collections.abc import Callable

logger = logging.getLogger(__name__)

DEFAULT_PREFIX = "boilerplate:templates:"
PAGES_FIELD = "#"

# KEYS[1]: the site's hash. ARGV[1]: cap on fingerprints, ARGV[2]: TTL in seconds (0: none),
# ARGV[3...]: the page's distinct fingerprints. Returns {pages before this one, {count before
# this page of each fingerprint}}. The cap: forget the fingerprints held by at most 1 page,
# then 2, ... until under it (templates._prune).
RECORD_PAGE = """
local key = KEYS[1]
local cap = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local pages = tonumber(redis.call('HGET', key, '#') or '0')
local counts = {}
for i = 3, #ARGV do
  counts[i - 2] = redis.call('HINCRBY', key, ARGV[i], 1) - 1
end
redis.call('HINCRBY', key, '#', 1)
local floor = 1
while redis.call('HLEN', key) - 1 > cap do
  local all = redis.call('HGETALL', key)
  local drop = {}
  for j = 1, #all, 2 do
    if all[j] ~= '#' and tonumber(all[j + 1]) <= floor then drop[#drop + 1] = all[j] end
  end
  for s = 1, #drop, 1000 do
    redis.call('HDEL', key, unpack(drop, s, math.min(s + 999, #drop)))
  end
  floor = floor + 1
end
if ttl > 0 then redis.call('EXPIRE', key, ttl) end
return {pages, counts}
"""


class RedisTemplateStore(RedisLink, TemplateStore):
    """Site memory in Redis, shared by processes and machines; see the module docstring.

    ``prefix``: of the hash keys; ``ttl``: seconds a site's hash lives after its last page
    (0: forever); ``max_fingerprints``: cap per site; ``warmup``: pages of a site before its
    evidence is used; ``timeout``: seconds to wait for Redis per page; ``retry_after``: seconds
    without Redis after a failure. Redis's memory: about 40 bytes a fingerprint, so at most
    ``sites * max_fingerprints * 40`` bytes; sites not crawled for ``ttl`` seconds expire.
    """

    SCRIPT = RECORD_PAGE
    NEEDED_BY = "RedisTemplateStore"

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = DEFAULT_PREFIX,
        ttl: int = DEFAULT_TTL,
        max_fingerprints: int = DEFAULT_MAX_FINGERPRINTS,
        warmup: int = DEFAULT_WARMUP,
        retry_after: float = DEFAULT_RETRY_AFTER,
        url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        quiet: bool = False,
    ) -> None:
        super().__init__()
        if max_fingerprints < 1 or warmup < 0 or ttl < 0:
            raise ValueError("max_fingerprints must be positive, warmup and ttl not negative")
        self._link(client, prefix, ttl, retry_after, url, timeout, quiet)
        self.max_fingerprints = int(max_fingerprints)
        self.warmup = int(warmup)

    def __reduce__(self) -> tuple[Callable[..., RedisTemplateStore], tuple[object, ...]]:
        # A worker process gets its own connection to the same Redis, with the same settings.
        if self.url is None:
            raise TypeError(
                "a RedisTemplateStore made from a client object cannot be pickled; use RedisTemplateStore.from_url()"
            )
        return (_from_url, (self.url, self.timeout, self.settings()))

    def settings(self) -> dict[str, Any]:
        """from_url's keyword arguments that make this store again (values of several types)."""
        return {
            "prefix": self.prefix,
            "ttl": self.ttl,
            "max_fingerprints": self.max_fingerprints,
            "warmup": self.warmup,
            "retry_after": self.retry_after,
            "quiet": self.quiet,
        }

    def key(self, site: str) -> str:
        return self.prefix + site

    def exchange(self, site: str, fingerprints: list[int]) -> SiteCounts | None:
        if self._outage.skipping():
            return None
        fields = [format(fp, "016x") for fp in fingerprints]
        try:
            pages, before = self._script(
                keys=[self.key(site)], args=[self.max_fingerprints, self.ttl, *fields], client=self.client
            )
        except Exception as exc:  # noqa: BLE001 - redis errors, timeouts, OSError: go on without
            self._failed(exc)
            return None
        if self._outage.recovered():
            logger.log(
                logging.DEBUG if self.quiet else logging.INFO, "template store at %s is reachable again", self.where()
            )
        counts = {fp: int(c) for fp, c in zip(fingerprints, before) if int(c) > 0}
        return SiteCounts(int(pages), counts, frozenset(fingerprints))

    def _failed(self, exc: Exception) -> None:
        self._count("errors")
        if self._outage.failed(self.retry_after):
            logger.log(
                logging.DEBUG if self.quiet else logging.WARNING,
                "template store at %s failed (%r): pages are extracted without site memory; trying again in %g s",
                self.where(),
                exc,
                self.retry_after,
            )

    def where(self) -> str:
        return redacted(self.url)

    def site_state(self, site: str) -> tuple[int, dict[int, int]] | None:
        """(pages, {fingerprint: pages holding it}) of a site, as MemoryTemplateStore gives it."""
        raw = self.client.hgetall(self.key(site))
        if not raw:
            return None
        pages = int(raw.pop(PAGES_FIELD.encode(), 0))
        return pages, {int(k, 16): int(v) for k, v in raw.items()}

    def clear_site(self, site: str) -> None:
        self.client.delete(self.key(site))

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:  # noqa: BLE001
            pass


def _from_url(url: str, timeout: float, settings: dict[str, Any]) -> RedisTemplateStore:
    return RedisTemplateStore.from_url(url, timeout=timeout, **settings)
