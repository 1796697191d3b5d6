"""The parsers of what a crawl downloads, as properties of their work (count_work.py runs them):
hypothesis makes a head and a unit of each format's pieces (parser_inputs.py), the unit is
repeated to about 4 KB and to four times that, and both calls are counted: the larger costs at
most ``fixed + per_byte x bytes`` instructions (the stage's bound, work_bounds.BOUNDS) and at
most GROWTH times the smaller's work (a unit that costs work in the square of its repeats
costs 16 times).

Hypothesis runs in the runner under callgrind, uncounted; only the parser's calls are counted.
It is derandomized (the same examples on every run) and keeps no example database.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from hypothesis import strategies as st
from parser_inputs import CHARSET_PIECES, FEED_PIECES, ROBOTS_PIECES, SITEMAP_PIECES, soup, text_soup

ORIGIN = "https://example.org"


def _quiet(call: Callable[[], Any]) -> Callable[[], Any]:
    """`call`, its exception (if any) swallowed: what is counted is the work until it ends
    (tests/unit/test_feed_properties.py and test_charsets.py check that none escapes)."""

    def run() -> Any:
        try:
            return call()
        except Exception:  # noqa: BLE001
            return None

    return run


def charset_guess(data: bytes) -> Callable[[], Any]:
    from scrapy_boilerplate.core.document.charset import guess_encoding

    return _quiet(lambda: guess_encoding(data))


def parse_bytes(data: bytes) -> Callable[[], Any]:
    from scrapy_boilerplate.core.document.parse import to_element

    return _quiet(lambda: to_element(data))


def feed(data: bytes) -> Callable[[], Any]:
    import stage_calls

    return _quiet(stage_calls.feed(data, ORIGIN + "/feed.xml"))


def sitemap(data: bytes) -> Callable[[], Any]:
    import stage_calls

    return _quiet(stage_calls.sitemap(data, ORIGIN + "/sitemap.xml"))


def robots(data: bytes) -> Callable[[], Any]:
    import stage_calls

    return _quiet(stage_calls.robots(data, ORIGIN + "/robots.txt"))


#: The smaller of an input's two sizes, in bytes (the larger: four times its repeats).
SMALL_BYTES = 4096


def sized(head: bytes, unit: bytes, repeats: int) -> bytes:
    """`head`, then `unit` `repeats` times, each followed by its number: a unit that ends in a URL
    or a name makes a distinct one each time (a feed of many entries, not one entry many times)."""
    return head + b"".join(b"%s%d" % (unit, k) for k in range(repeats))


def sizes(head: bytes, unit: bytes) -> tuple[bytes, bytes]:
    """The two inputs of a unit: about SMALL_BYTES of it repeated, and four times as many."""
    repeats = max(1, SMALL_BYTES // len(unit))
    return sized(head, unit, repeats), sized(head, unit, 4 * repeats)


class Property(NamedTuple):
    stage: str  # whose bound holds (work_bounds.BOUNDS)
    heads: st.SearchStrategy[bytes]  # what comes first (a declaration, a root)
    units: st.SearchStrategy[bytes]  # what is repeated
    call: Callable[[bytes], Callable[[], Any]]  # the call of one input, prepared
    #: (head, unit) pairs every run tries first: inputs that once cost work in the square of their
    #: size (the charset guess's "<" and "<script" without their end, a feed of many entries).
    examples: tuple[tuple[bytes, bytes], ...] = ()


def _units(pieces: tuple) -> st.SearchStrategy[bytes]:
    return soup(pieces, max_size=8).filter(bool)


def _heads(head: bytes, pieces: tuple) -> st.SearchStrategy[bytes]:
    return st.just(head) | soup(pieces, max_size=8)


HTML = b"<html><body>"
RSS = b'<?xml version="1.0"?><rss><channel>'
URLSET = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
PROPERTIES: dict[str, Property] = {
    "charset_guess": Property(
        "parse",
        _heads(HTML, CHARSET_PIECES),
        _units(CHARSET_PIECES),
        charset_guess,
        ((b"<\xff>", b"< xxxxxxxxxxxxx"), (b"<\xff>", b"<script"), (b"<\xff>", b"<style<!--")),
    ),
    "parse_bytes": Property(
        "parse",
        _heads(HTML, CHARSET_PIECES),
        _units(CHARSET_PIECES),
        parse_bytes,
        ((b"<\xff>", b"<script"), (b"\xff", b"<meta ")),
    ),
    "feed": Property(
        "feed",
        _heads(RSS, FEED_PIECES),
        _units(FEED_PIECES),
        feed,
        ((RSS + b"<item><link>https://example.org/p", b"</link></item><item><link>https://example.org/p"),),
    ),
    "sitemap": Property(
        "sitemap",
        _heads(URLSET, SITEMAP_PIECES),
        _units(SITEMAP_PIECES),
        sitemap,
        ((URLSET + b"<url><loc>/p", b"</loc></url><url><loc>/p"),),
    ),
    "robots": Property(
        "robots",
        st.just(b"User-agent: *\n") | text_soup(ROBOTS_PIECES, max_size=8),
        text_soup(ROBOTS_PIECES, max_size=8).filter(bool),
        robots,
        ((b"User-agent: *\n", b"\nDisallow: /private/"),),
    ),
}
