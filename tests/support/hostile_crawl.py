"""Hostile inputs for ArticleSpider's feeds, robots.txt and sitemaps, sized by their parameters.

Each gives bytes (or a loopback server's routes) that cost an unbounded reader or crawl far more
than their size: a feed of many entries, a page announcing many feeds, a robots.txt of many
``Sitemap:`` lines, a sitemap index chain, a sitemap of many URLs, gzip files that inflate far.
The unit, property and crawl tests build them here at the sizes they need.
"""

from __future__ import annotations

import gzip

BASE = "https://blog.example"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML = {"Content-Type": "application/xml"}
#: How a ``sitemap.xml.gz`` is served as a file: no Content-Encoding, so no HTTP decompression.
GZIP_FILE = {"Content-Type": "application/x-gzip"}


def huge_feed(entries: int, *, atom: bool = False, base: str = BASE) -> bytes:
    """An RSS feed (or Atom) of `entries` entries, each with its own URL (about 90 bytes an entry:
    80,000 RSS entries are 7.3 MB)."""
    if atom:
        body = "".join(f'<entry><title>{i}</title><link href="{base}/p/{i:08d}/"/></entry>' for i in range(entries))
        return f'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>B</title>{body}</feed>'.encode()
    body = "".join(
        f"<item><title>{i}</title><link>{base}/posts/{i:08d}/an-entry/</link></item>" for i in range(entries)
    )
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>B</title>{body}</channel></rss>'.encode()


def page_with_feeds(links: int, *, base: str = BASE) -> bytes:
    """An HTML page announcing `links` feeds (about 80 bytes a link), each its own URL."""
    head = "".join(f'<link rel="alternate" type="application/rss+xml" href="{base}/f/{i}.xml">' for i in range(links))
    return f"<!DOCTYPE html><html><head><title>Feeds</title>{head}</head><body><p>Hi</p></body></html>".encode()


def robots_with_sitemaps(lines: int, *, distinct: bool = True) -> bytes:
    """A robots.txt of `lines` ``Sitemap:`` lines (about 25 bytes a line), each naming its own
    sitemap (or all the same one)."""
    names = (f"Sitemap: /s/{i if distinct else 0}.xml\n" for i in range(lines))
    return ("User-agent: *\nDisallow: /private/\n" + "".join(names)).encode()


def urlset(paths: list[str] | range, *, base: str = "") -> bytes:
    """A sitemap listing `paths` (or /u/N/ for a range of numbers)."""
    locs = "".join(f"<url><loc>{base}{p if isinstance(p, str) else f'/u/{p}/'}</loc></url>" for p in paths)
    return f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="{SITEMAP_NS}">{locs}</urlset>'.encode()


def sitemap_index(paths: list[str] | range, *, base: str = "") -> bytes:
    """A sitemap index listing the sitemaps `paths` (or /s/N.xml for a range of numbers)."""
    locs = "".join(f"<sitemap><loc>{base}{p if isinstance(p, str) else f'/s/{p}.xml'}</loc></sitemap>" for p in paths)
    return f'<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="{SITEMAP_NS}">{locs}</sitemapindex>'.encode()


def sitemap_chain(levels: int, prefix: str = "/chain/") -> dict[str, tuple[bytes, dict[str, str]]]:
    """Routes of a chain of `levels` sitemap indexes, each listing the next (PREFIX0.xml first), the
    last an empty urlset: a crawl that follows indexes to any depth fetches all of them."""
    routes = {f"{prefix}{i}.xml": (sitemap_index([f"{prefix}{i + 1}.xml"]), XML) for i in range(levels - 1)}
    routes[f"{prefix}{levels - 1}.xml"] = (urlset([]), XML)
    return routes


def gzip_file(body: bytes) -> tuple[bytes, dict[str, str]]:
    """A route serving `body` as a ``.gz`` file (gzip bytes, no Content-Encoding)."""
    return gzip.compress(body), GZIP_FILE


def gzip_bomb(inflated: int, *, first: str | None = None) -> bytes:
    """A gzip file of a sitemap that inflates to `inflated` bytes of blanks (about 1,000 to 1), its
    first entry `first` if given."""
    head = f'<?xml version="1.0"?><urlset xmlns="{SITEMAP_NS}">'
    if first:
        head += f"<url><loc>{first}</loc></url>"
    body = head.encode() + b" " * max(0, inflated - len(head) - 9) + b"</urlset>"
    return gzip.compress(body, compresslevel=9)


def junk_elements(size: int) -> bytes:
    """`size` bytes of empty elements that are no entry (``<a/>``) in a feed's root."""
    return b"<rss><channel>" + b"<a/>" * (size // 4) + b"</channel></rss>"
