"""Properties of ArticleSpider's readers of feeds, robots.txt and sitemaps (crawl/articles/), on
any bytes and on XML made to be hostile (issue 46): no exception escapes them or the spider's
callbacks, what they give stays under their caps and is URLs a request can be made of, and on
well-formed XML the streaming reader gives what a reader of the whole tree gives
(tests/unit/test_feeds_sitemaps.py has the examples). Their work per byte is counted in
tests/scaling/test_work_properties.py."""

from __future__ import annotations

import functools
import gzip
import io
from html import escape
from urllib.parse import urljoin, urlsplit

from hostile_crawl import urlset
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from lxml import etree
from scrapy import Request
from scrapy.http import TextResponse, XmlResponse
from scrapy.utils.sitemap import sitemap_urls_from_robots
from scrapy.utils.test import get_crawler

from scrapy_boilerplate.core.links.urls import link_key
from scrapy_boilerplate.crawl.articles.feeds import feed_entry_urls
from scrapy_boilerplate.crawl.articles.sitemaps import is_gzip, robots_sitemaps, sitemap_entries
from scrapy_boilerplate.spiders import ArticleSpider

BASE = "https://blog.example/feed.xml"
ROBOTS = "https://blog.example/robots.txt"
CAP = 3  # small, so that examples go past it
# No deadline: the machine may be loaded; the work these readers do is bounded by the scaling tests.
PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- XML made to be hostile -------------------------------------------------------------------

NAMES = ["rss", "channel", "item", "entry", "link", "feed", "urlset", "sitemapindex", "url", "sitemap", "loc", "a"]
PREFIXES = ["", "", "atom:", "sm:"]
NAMESPACES = (
    ' xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"',
    ' xmlns="http://www.w3.org/2005/Atom"',
    ' xmlns:atom="http://www.w3.org/2005/Atom"',
    ' xmlns:sm="urn:x"',
    "",
)
# Pieces of text: URLs of every kind, entities defined and not, CDATA, comments, PIs, stray markup.
PIECES = st.sampled_from(
    [
        "/posts/a/",
        "https://blog.example/b?x=1&amp;y=2",
        "http://other.example/c",
        "javascript:alert(1)",
        "mailto:a@b.example",
        "sitemap:/s.xml",
        "http://[::1/x",
        "http://blog.example:99999/p/",
        "http:/no-host",
        "  /spaced/  ",
        "&amp;",
        "&lt;",
        "&#38;",
        "&#x1F600;",
        "&nbsp;",
        "&e;",
        "&#0;",
        "<![CDATA[/cdata/<x>]]>",
        "<!-- c -->",
        "<?pi x?>",
        "]]>",
        "<",
        "&",
        "\u2028",
        "ü",
    ]
)
TEXT = st.one_of(PIECES, st.text(max_size=12))
ATTRIBUTES = st.lists(
    st.tuples(st.sampled_from(["href", "rel", "type", "xml:base", "h ref"]), st.one_of(PIECES, st.text(max_size=8))),
    max_size=3,
)


def element(children):
    def render(prefix, name, attributes, content):
        attrs = "".join(f' {key}="{value.replace(chr(34), "&quot;")}"' for key, value in attributes)
        return f"<{prefix}{name}{attrs}>{''.join(content)}</{prefix}{name}>"

    return st.builds(
        render, st.sampled_from(PREFIXES), st.sampled_from(NAMES), ATTRIBUTES, st.lists(children, max_size=5)
    )


TREES = st.recursive(TEXT, element, max_leaves=25)
DOCTYPES = st.sampled_from(
    [
        "",
        '<!DOCTYPE r [<!ENTITY e "/entity/">]>',
        '<!DOCTYPE r [<!ENTITY a "xxxxxxxxxx"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        '<!ENTITY e "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
        '<!DOCTYPE r SYSTEM "http://127.0.0.1:9/x.dtd">',
        '<!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]>',
    ]
)
DECLARATIONS = st.sampled_from(
    [
        "",
        '<?xml version="1.0"?>',
        '<?xml version="1.0" encoding="ISO-8859-1"?>',
        '<?xml version="1.0" encoding="bogus"?>',
    ]
)


@st.composite
def documents(draw) -> bytes:
    """A feed or sitemap: a declaration, a DOCTYPE, a root of the names above and its content;
    sometimes cut short, or with bytes that are no UTF-8 spliced in."""
    root = draw(st.sampled_from(["rss", "feed", "urlset", "sitemapindex", "a"]))
    content = "".join(draw(st.lists(TREES, max_size=8)))
    text = f"{draw(DECLARATIONS)}{draw(DOCTYPES)}<{root}{draw(st.sampled_from(NAMESPACES))}>{content}</{root}>"
    body = text.encode("utf-8")
    if draw(st.booleans()):
        at = draw(st.integers(0, len(body)))
        body = body[:at] + draw(st.sampled_from([b"", b"\xff\xfe", b"\x00", b"\xc3"])) + body[at:]
    if draw(st.booleans()):
        body = body[: draw(st.integers(0, len(body)))]
    return body


# Well-formed ones, with entries (so that the streaming reader is compared with the tree's on URLs).
VALID_PIECES = st.one_of(
    st.sampled_from(
        [
            "/posts/a/",
            "https://blog.example/b?x=1&amp;y=2",
            "http://other.example/c",
            "javascript:alert(1)",
            "&#38;",
            "&lt;",
            "&#x1F600;",
            "<![CDATA[/cdata/<x>]]>",
            "<!-- c -->",
            "<?pi x?>",
            "&e;",
            "  ",
            "\n",
        ]
    ),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=10).map(escape),
)
VALID_TEXT = st.lists(VALID_PIECES, max_size=4).map("".join)
URLS = st.builds(
    lambda space, url, end: f"{space}{url}{end}",
    st.sampled_from(["", " ", "\n  "]),
    st.sampled_from(["/posts/a/", "/posts/b/", "https://blog.example/c?x=1&amp;y=2", "/d/&#38;", "/e<!-- c -->/f/"]),
    st.sampled_from(["", "  ", "<![CDATA[/g/]]>"]),
)
VALID_ATTRIBUTE = VALID_PIECES.map(lambda piece: piece if "<" not in piece else escape(piece))


@st.composite
def valid_entry(draw, kind: str) -> str:
    """An <item>, <entry>, <url> or <sitemap> with links or locations of every kind, and junk."""
    children = []
    main = "loc" if kind in ("url", "sitemap") else "link"
    for _ in range(draw(st.integers(1, 4))):
        child = draw(st.sampled_from([main, main, main, "atom:link", "loc", "link", "title", "a"]))
        attributes = ""
        if draw(st.booleans()):
            rel = draw(st.sampled_from(["alternate", "self", "", "enclosure"]))
            attributes = f' rel="{rel}" href="{draw(st.one_of(URLS.map(escape), VALID_ATTRIBUTE))}"'
        inner = draw(st.one_of(URLS, URLS, VALID_TEXT))
        if draw(st.integers(0, 3)) == 0:
            inner += f"<b>{draw(VALID_TEXT)}</b>{draw(VALID_TEXT)}"
        children.append(f"<{child}{attributes}>{inner}</{child}>")
    return f"<{kind}>{''.join(children)}</{kind}>"


@st.composite
def valid_documents(draw) -> bytes:
    root, kind, namespace = draw(
        st.sampled_from(
            [
                ("rss", "item", ' xmlns:atom="http://www.w3.org/2005/Atom"'),
                ("feed", "entry", ' xmlns="http://www.w3.org/2005/Atom" xmlns:atom="urn:atom"'),
                ("urlset", "url", ' xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:atom="urn:atom"'),
                ("sitemapindex", "sitemap", ' xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:atom="u:a"'),
            ]
        )
    )
    parts = draw(
        st.lists(
            st.one_of(valid_entry(kind), valid_entry(kind), VALID_TEXT, st.just("<a><b/></a>")), min_size=1, max_size=8
        )
    )
    doctype = '<!DOCTYPE r [<!ENTITY e "/entity/">]>'
    return f'<?xml version="1.0"?>{doctype}<{root}{namespace}><x/>{"".join(parts)}</{root}>'.encode()


# --- references: the whole tree at once, the same reading ----------------------------------------


def _tree(body: bytes):
    parser = etree.XMLParser(resolve_entities=False, no_network=True, remove_comments=True, remove_pis=True)
    try:
        return etree.fromstring(body, parser)
    except (etree.XMLSyntaxError, ValueError):
        return None  # not well-formed: no reference


def _name(element) -> str:
    return element.tag.rpartition("}")[2] if isinstance(element.tag, str) else ""


def _nested(root, names) -> bool:
    return any(_name(e) in names and any(_name(a) in names for a in e.iterancestors()) for e in root.iter())


def requestable(url: str) -> bool:
    """Whether `url` is an http(s) URL with a host that Scrapy makes a Request of (a Request that
    raises in a callback loses the entries after it)."""
    try:
        Request(url)
    except ValueError:
        return False
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def joined(location: str) -> str | None:
    """`location` joined to BASE (as Scrapy's SitemapSpider joins it) when that is requestable."""
    try:
        url = urljoin(BASE, location)
    except ValueError:  # urljoin refuses "http://[x"
        return None
    return url if requestable(url) else None


def reference_feed(root, cap: int) -> tuple[list[str], bool]:
    urls: dict[str, None] = {}
    read = 0
    for entry in root.iter():
        if _name(entry) not in ("item", "entry"):
            continue
        if read == cap:
            return list(urls), True
        read += 1
        links = [c for c in entry if _name(c) == "link"]
        if _name(entry) == "item":
            text = next((c.text for c in links if c.text), None)
            url = link_key(text.strip(), BASE) if text is not None else None
        else:
            chosen = next((c for c in links if (c.get("rel") or "alternate") == "alternate"), None)
            url = link_key(chosen.get("href"), BASE) if chosen is not None else None
        if url is not None:
            urls[url] = None
    return list(urls), False


def reference_sitemap(root, cap: int) -> tuple[str | None, list[str], bool]:
    urls: dict[str, None] = {}
    read = 0
    for entry in root.iter():
        if _name(entry) not in ("url", "sitemap"):
            continue
        loc = next((c.text.strip() for c in entry if _name(c) == "loc" and c.text and c.text.strip()), "")
        if not loc:
            continue
        url = joined(loc)
        if url is None:
            continue
        if read == cap:
            return _name(root), list(urls), True
        read += 1
        urls[url] = None
    return (_name(root) if urls else None), list(urls), False


# --- feeds ------------------------------------------------------------------------------------


def check_feed(body: bytes) -> None:
    read = feed_entry_urls(body, BASE, CAP)
    assert len(read.urls) <= CAP
    assert all(requestable(url) for url in read.urls)
    root = _tree(body)
    if root is not None and not _nested(root, {"item", "entry"}):
        event(f"compared with the tree: {len(read.urls)} URLs, capped {read.capped}")
        assert (read.urls, read.capped) == reference_feed(root, CAP)


@PROPERTY
@given(st.binary(max_size=2000))
@example(b"")
@example(b"\x1f\x8b\x08")
@example(b"<rss><item><link>" + b"\xff" * 10)
def test_any_bytes_as_a_feed(body):
    check_feed(body)


@PROPERTY
@given(documents())
def test_hostile_xml_as_a_feed(body):
    check_feed(body)


@PROPERTY
@given(valid_documents())
def test_well_formed_xml_as_a_feed(body):
    check_feed(body)


# --- sitemaps ---------------------------------------------------------------------------------


def check_sitemap(body: bytes) -> None:
    read = sitemap_entries(body, BASE, CAP)
    assert len(read.urls) <= CAP and not read.too_large
    assert all(requestable(url) for url in read.urls)
    assert (read.kind is None) == (not read.urls)
    if is_gzip(body):
        return
    # The same bytes as a gzip file: read the same; cut short (a location may be cut too), no more.
    packed = gzip.compress(body)
    assert sitemap_entries(packed, BASE, CAP)[:3] == read[:3]
    assert len(sitemap_entries(packed[: len(packed) // 2], BASE, CAP).urls) <= CAP
    root = _tree(body)
    if root is not None and not _nested(root, {"url", "sitemap"}):
        event(f"compared with the tree: {len(read.urls)} URLs, capped {read.capped}")
        assert (read.kind, read.urls, read.capped) == reference_sitemap(root, CAP)


@PROPERTY
@given(st.binary(max_size=2000))
@example(b"\x1f\x8b\x08\x00\x00\x00\x00\x00")
def test_any_bytes_as_a_sitemap(body):
    check_sitemap(body)
    assert len(sitemap_entries(gzip.compress(body) + body, BASE, CAP).urls) <= CAP


@PROPERTY
@given(documents())
def test_hostile_xml_as_a_sitemap(body):
    check_sitemap(body)


@PROPERTY
@given(valid_documents())
def test_well_formed_xml_as_a_sitemap(body):
    check_sitemap(body)


@PROPERTY
@given(st.binary(max_size=2000), st.integers(1, 4096))
def test_a_gzip_file_inflates_no_further_than_its_limit(body, limit):
    read = sitemap_entries(gzip.compress(body), BASE, CAP, max_size=limit)
    # (Reading may end before the limit: at the URL cap, or where the XML stops parsing.)
    assert len(body) > limit if read.too_large else not read.urls or len(read.urls) <= CAP
    assert read.inflated <= limit + 64 * 1024


# --- robots.txt -------------------------------------------------------------------------------

LINES = st.one_of(
    st.builds(
        lambda key, space, url, end: f"{space}{key}{space}{url}{end}".encode(),
        st.sampled_from(["Sitemap:", "sitemap:", "SITEMAP:", "Sitemaps:", "Site map:", "User-agent:", "Disallow:"]),
        st.sampled_from(["", " ", "\t"]),
        st.one_of(PIECES.map(escape), st.sampled_from(["/s.xml", "/s.xml", "http://x.example/s.xml.gz"])),
        st.sampled_from(["\n", "\r\n", "\r", ""]),
    ),
    st.binary(max_size=20),
)


def check_robots(body: bytes) -> None:
    read = robots_sitemaps(body, ROBOTS, CAP)
    # Scrapy's reading, line by line (on a line urljoin refuses it raises, and loses the lines
    # after it), of the URLs a Request can be made of.
    everything: dict[str, None] = {}
    for line in io.BytesIO(body):
        try:
            found = list(sitemap_urls_from_robots(line, base_url=ROBOTS))
        except ValueError:
            continue
        everything.update((url, None) for url in found if requestable(url))
    urls = list(everything)
    assert (read.urls, read.capped) == (urls[:CAP], len(urls) > CAP)


@PROPERTY
@given(st.binary(max_size=2000))
def test_any_bytes_as_robots_txt(body):
    check_robots(body)


@PROPERTY
@given(st.lists(LINES, max_size=20))
def test_hostile_robots_txt(lines):
    check_robots(b"".join(lines))


# --- the spider's callbacks: whatever the body, requests and no exception -------------------------


@functools.cache
def spider() -> ArticleSpider:
    crawler = get_crawler(ArticleSpider)
    crawler._apply_settings()
    return crawler._create_spider()


def callback_requests(callback: str, body: bytes, url: str) -> list[Request]:
    """What ArticleSpider's `callback` yields for a response of `body` to `url` (all of it: an
    exception would end the callback and lose the requests after it)."""
    request = Request(url, meta={"origin": "https://blog.example"})
    response = (TextResponse if callback == "parse_robots" else XmlResponse)(url, body=body, request=request)
    requests = list(getattr(spider(), callback)(response))
    assert all(isinstance(request, Request) and requestable(request.url) for request in requests)
    return requests


@PROPERTY
@given(st.one_of(documents(), valid_documents(), st.binary(max_size=2000)))
def test_the_spider_reads_any_feed_or_sitemap_into_requests(body):
    callback_requests("parse_feed", body, BASE)
    callback_requests("parse_sitemap", body, "https://blog.example/sitemap.xml")
    callback_requests("parse_sitemap", gzip.compress(body), "https://blog.example/sitemap.xml.gz")


@PROPERTY
@given(st.one_of(st.lists(LINES, max_size=20).map(b"".join), st.binary(max_size=2000)))
@example(b"Sitemap: sitemap:/s.xml\nSitemap: http://[::1/x\nSitemap: http://b.example:99999/\nSitemap: /news.xml\n")
def test_the_spider_reads_any_robots_txt_into_sitemap_requests(body):
    assert callback_requests("parse_robots", body, ROBOTS)  # its sitemaps, else /sitemap.xml


def test_a_location_no_request_can_be_made_of_costs_none_of_the_others():
    # "sitemap:/s.xml" (a scheme to urljoin), "http://[::1/x" (urljoin raises), a port out of
    # range (Request raises): each made the callback raise, and the lines after it were lost.
    robots = b"Sitemap: sitemap:/s.xml\nSitemap: http://[::1/x\nSitemap: http://b.example:99999/\nSitemap: /news.xml\n"
    assert [r.url for r in callback_requests("parse_robots", robots, ROBOTS)] == ["https://blog.example/news.xml"]
    locs = ["mailto:a@b.example", "http://[::1/x", "https://blog.example:99999/", "/a/"]
    sitemap = callback_requests("parse_sitemap", urlset(locs), "https://blog.example/sitemap.xml")
    assert [r.url for r in sitemap] == ["https://blog.example/a/"]
