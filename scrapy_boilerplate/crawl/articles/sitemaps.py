"""Sitemaps for ArticleSpider: the sitemaps robots.txt names, and the URLs a sitemap lists.

Both cost time linear in what they read and read no further than their caps: the first
`max_sitemaps` distinct ``Sitemap:`` lines of robots.txt (BOILERPLATE_ROBOTS_MAX_SITEMAPS), the
first `max_urls` entries of a sitemap or sitemap index (BOILERPLATE_SITEMAP_MAX_URLS). A sitemap
served as a gzip file (``sitemap.xml.gz`` without ``Content-Encoding``, which Scrapy's
HttpCompressionMiddleware leaves as it is) is decompressed as it is read, up to `max_size` bytes
(DOWNLOAD_MAXSIZE, as Scrapy's SitemapSpider reads it); past that it is ignored, as there.
How deep sitemap indexes are followed is the spider's (``request.meta``). A location that is
no http(s) URL a request can be made of (``mailto:``, ``sitemap:/x``, ``http://[x``, a port out of
range) is skipped: the spider's Request would raise, and lose the entries after it.
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urljoin, urlsplit

from .xml_stream import CHUNK, chunks, ended, localname

if TYPE_CHECKING:
    from collections.abc import Iterator

    from lxml import etree
    from scrapy import Spider
    from scrapy.http import Response

#: The elements of a sitemap's entries: ``<url>`` in a urlset, ``<sitemap>`` in an index.
ENTRIES = frozenset({"url", "sitemap"})
#: A gzip member starts so (Scrapy's ``gzip_magic_number``).
GZIP_MAGIC = b"\x1f\x8b\x08"


class RobotsSitemaps(NamedTuple):
    """The sitemaps a robots.txt names, each once, in its order."""

    urls: list[str]
    #: It names more than were read (`max_sitemaps`).
    capped: bool


class SitemapEntries(NamedTuple):
    """What a sitemap lists: its root's name (``"urlset"``, ``"sitemapindex"``; None without
    entries) and the URLs of its entries, each once, in its order."""

    kind: str | None
    urls: list[str]
    #: It lists more entries than were read (`max_urls`).
    capped: bool = False
    #: A gzip file: the bytes it decompressed to (as far as it was read); 0 for a plain body.
    inflated: int = 0
    #: A gzip file that decompressed past `max_size`: ignored (no URLs).
    too_large: bool = False


class TooLarge(Exception):
    """A gzip body decompressed past its size limit."""


def robots_sitemaps(body: bytes, base: str, max_sitemaps: int) -> RobotsSitemaps:
    """The first `max_sitemaps` distinct sitemap URLs of robots.txt's ``Sitemap:`` lines (read as
    Scrapy's ``sitemap_urls_from_robots`` reads them, but for the ones no request can be made of)."""
    found: dict[str, None] = {}
    for line in io.BytesIO(body):
        if line.lstrip()[:8].lower() != b"sitemap:":
            continue
        try:
            url = web_url(base, line.partition(b":")[2].strip().decode())
        except UnicodeDecodeError:
            continue
        if url is None or url in found:
            continue
        if len(found) == max_sitemaps:
            return RobotsSitemaps(list(found), capped=True)
        found[url] = None
    return RobotsSitemaps(list(found), capped=False)


def web_url(base: str, location: str) -> str | None:
    """`location` joined to `base` (relative locations are not allowed, but they happen) when it is
    an http(s) URL a request can be made of; else None."""
    try:
        url = urljoin(base, location)
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError when out of range, as a Request would
    except ValueError:  # an IPv6 host without its "]", a port out of range
        return None
    return url if parts.scheme in ("http", "https") and parts.netloc else None


def download_sizes(response: Response, spider: Spider) -> tuple[int, int]:
    """DOWNLOAD_MAXSIZE and DOWNLOAD_WARNSIZE for a response, as Scrapy's SitemapSpider reads them:
    the request's meta, else the spider's attribute, else the setting (0: no limit)."""
    settings = getattr(spider, "settings", None)

    def size(name: str) -> int:
        value = response.meta.get(name.lower(), getattr(spider, name.lower(), None))
        if value is None:
            return settings.getint(name) if settings is not None else 0
        return int(value)

    return size("DOWNLOAD_MAXSIZE"), size("DOWNLOAD_WARNSIZE")


def is_gzip(body: bytes) -> bool:
    return body[:3] == GZIP_MAGIC


def sitemap_entries(body: bytes, base: str, max_urls: int, max_size: int = 0) -> SitemapEntries:
    """The URLs of a sitemap's (or a sitemap index's) first `max_urls` entries (``<loc>``, joined
    to `base`); a gzip file is decompressed up to `max_size` bytes (0: no limit)."""
    gunzipped = _Gunzipped(body, max_size) if is_gzip(body) else None
    kind: str | None = None
    urls: dict[str, None] = {}
    read, capped = 0, False
    try:
        for entry in ended(chunks(body) if gunzipped is None else gunzipped, ENTRIES):
            loc = _loc(entry)
            url = web_url(base, loc) if loc else None
            if url is None:
                continue
            if read == max_urls:
                capped = True
                break
            read += 1
            if kind is None:
                kind = localname(entry.getroottree().getroot().tag)
            urls[url] = None
    except TooLarge:
        return SitemapEntries(None, [], inflated=gunzipped.size if gunzipped is not None else 0, too_large=True)
    return SitemapEntries(kind, list(urls), capped, gunzipped.size if gunzipped is not None else 0)


def _loc(entry: etree._Element) -> str:
    for child in entry:
        if localname(child.tag) == "loc" and child.text and child.text.strip():
            return child.text.strip()
    return ""


class _Gunzipped:
    """The decompressed bytes of a gzip body, a chunk at a time, and how many so far; TooLarge
    past `max_size` (0: no limit). A truncated or damaged file ends where it can no longer be read
    (as Scrapy's gunzip)."""

    def __init__(self, body: bytes, max_size: int):
        self.body, self.max_size, self.size = body, max_size, 0

    def __iter__(self) -> Iterator[bytes]:
        stream = gzip.GzipFile(fileobj=io.BytesIO(self.body))
        while True:
            try:
                piece = stream.read1(CHUNK)
            except (OSError, EOFError, zlib.error, struct.error):
                return
            if not piece:
                return
            self.size += len(piece)
            if self.max_size and self.size > self.max_size:
                raise TooLarge
            yield piece
