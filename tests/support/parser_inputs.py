"""Hypothesis strategies for the parsers of what a crawl downloads: bytes that declare no charset,
feeds, sitemaps and robots.txt (tests/unit/test_charsets.py checks that no exception escapes the
charset's, tests/scaling/test_work_properties.py that the work of each stays within its bound).

Each input is pieces of the format (tags, the bytes that make it slow: ``<`` that opens no tag,
``<script`` and ``<!--`` that are never closed, URLs, stray bytes), chosen and ordered by
hypothesis; ``pumped`` repeats such a run of pieces many times over, as a page made to be slow
repeats what costs.
"""

from __future__ import annotations

from hypothesis import strategies as st

#: Words in legacy encodings, and bytes that no UTF-8 text holds.
LEGACY_WORDS = (
    "Привет мир".encode("cp1251"),
    "новости".encode("koi8_r"),
    "你好世界".encode("gb18030"),
    "こんにちは".encode("shift_jis"),
    "안녕하세요".encode("euc_kr"),
    "café naïve".encode("cp1252"),
    b"\xff",
    b"\x80\x81",
    b"\xe0\xa4",  # a UTF-8 lead byte cut short
)
CHARSET_PIECES = (
    b"<",
    b">",
    b"<p>",
    b"</p>",
    b"<script",
    b"<script>",
    b"</script>",
    b"<style",
    b"<style<!--",
    b"</style>",
    b"<!--",
    b"-->",
    b"<b class=x>",
    b" ",
    b"\n",
    b"plain ascii words",
    b'<meta charset="',
    b"utf-8",
    b'<?xml version="1.0" encoding="',
    b"\x00",
    *LEGACY_WORDS,
)
FEED_PIECES = (
    b'<?xml version="1.0"?>',
    b"<rss>",
    b"<channel>",
    b"<item>",
    b"</item>",
    b"<link>",
    b"</link>",
    b"https://example.org/a",
    b"/relative/path",
    b"javascript:alert(1)",
    b"http://[::1/x",
    b'<feed xmlns="http://www.w3.org/2005/Atom">',
    b"<entry>",
    b"</entry>",
    b'<link rel="alternate" href="https://example.org/b"/>',
    b'<link rel="self" href="/c"/>',
    b"<link href=",
    b"<![CDATA[",
    b"]]>",
    b"&amp;",
    b"&unknown;",
    b'<!DOCTYPE r [<!ENTITY e "x">]>',
    b"<",
    b" ",
    *LEGACY_WORDS,
)
SITEMAP_PIECES = (
    b'<?xml version="1.0" encoding="UTF-8"?>',
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    b"</urlset>",
    b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    b"</sitemapindex>",
    b"<url>",
    b"</url>",
    b"<sitemap>",
    b"</sitemap>",
    b"<loc>",
    b"</loc>",
    b"https://example.org/page",
    b"/relative",
    b"sitemap:/s.xml",
    b"http://[::1/x",
    b"https://example.org:99999/p",
    b"<lastmod>2024-01-01</lastmod>",
    b'<xhtml:link rel="alternate" hreflang="de" href="https://example.org/de"/>',
    b"&amp;",
    b"<",
    b" ",
    *LEGACY_WORDS,
)
ROBOTS_PIECES = (
    "Sitemap: https://example.org/sitemap.xml",
    "sitemap:/relative.xml",
    "SITEMAP :  https://example.org/s.xml.gz",
    "Sitemap:",
    "Sitemap: http://[::1/x",
    "Sitemap: https://example.org:99999/s.xml",
    "User-agent: *",
    "Disallow: /private",
    "Allow: /",
    "# a comment",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\x00",
    "Привет",
    "https://example.org/" + "a" * 200,
)


def soup(pieces: tuple, max_size: int = 40) -> st.SearchStrategy[bytes]:
    """Bytes of `pieces` in any order, and a few arbitrary bytes among them."""
    piece = st.one_of(st.sampled_from(pieces), st.binary(max_size=6))
    return st.lists(piece, max_size=max_size).map(b"".join)


def text_soup(pieces: tuple, max_size: int = 40) -> st.SearchStrategy[bytes]:
    """`pieces` (str) in any order, with a little arbitrary text, as UTF-8 bytes."""
    piece = st.one_of(st.sampled_from(pieces), st.text(max_size=6))
    return st.lists(piece, max_size=max_size).map(lambda parts: "".join(parts).encode("utf-8", "surrogatepass"))


def pumped(
    unit: st.SearchStrategy[bytes], head: st.SearchStrategy[bytes], max_repeats: int
) -> st.SearchStrategy[bytes]:
    """`head`, then a `unit` repeated up to `max_repeats` times: inputs of up to tens of KB whose
    cost, if it grows faster than their size, shows."""
    return st.builds(lambda h, u, n: h + u * n, head, unit.filter(bool), st.integers(1, max_repeats))
