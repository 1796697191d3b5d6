"""ArticleSpider's readers of feeds, robots.txt and sitemaps (crawl/articles/: feeds,
sitemaps, xml_stream): what they read of real files, their caps, gzip files, and that their cost
grows with their input and no faster (issue 46). Real crawls: tests/crawl/test_article_spider_bounds.py.

The real files are the first entries of feeds and sitemaps of ../shared/sites, cut into
tests/fixtures/feeds; every feed and sitemap of those sites is read too where ../shared is there.
"""

from __future__ import annotations

import gzip
import tarfile
import time
from urllib.parse import urljoin

import pytest
from conftest import FIXTURES, SHARED_SITES, needs_shared
from hostile_crawl import (
    gzip_bomb,
    huge_feed,
    junk_elements,
    page_with_feeds,
    robots_with_sitemaps,
    sitemap_index,
    urlset,
)
from lxml import etree
from scrapy.utils.sitemap import Sitemap, sitemap_urls_from_robots

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import to_element
from scrapy_boilerplate.core.links.urls import link_key
from scrapy_boilerplate.crawl.articles.feeds import ENTRIES, feed_entry_urls, feed_urls
from scrapy_boilerplate.crawl.articles.sitemaps import robots_sitemaps, sitemap_entries
from scrapy_boilerplate.crawl.articles.xml_stream import CHUNK, chunks, ended
from scrapy_boilerplate.settings import BoilerplateSettings

FEEDS = FIXTURES / "feeds"
CAPS = BoilerplateSettings()
FEED_URL = "https://blog.example/feed.xml"


# --- references: what the spider read before (the whole tree at once) ---------------------------


def reference_feed(body: bytes, base: str | None) -> list[str]:
    """crawl/articles/feeds.py's reading before issue 46 (a tree of the whole feed), its URLs kept once."""
    try:
        parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=False)
        root = etree.fromstring(body, parser)
    except (etree.XMLSyntaxError, ValueError):
        return []
    if root is None:
        return []
    urls: dict[str, None] = {}
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        tag = etree.QName(el).localname
        url = None
        if tag == "item":
            for child in el:
                if isinstance(child.tag, str) and etree.QName(child).localname == "link" and child.text:
                    url = link_key(child.text.strip(), base)
                    break
        elif tag == "entry":
            links = [c for c in el if isinstance(c.tag, str) and etree.QName(c).localname == "link"]
            chosen = next((c for c in links if (c.get("rel") or "alternate") == "alternate"), None)
            url = link_key(chosen.get("href"), base) if chosen is not None else None
        if url is not None:
            urls[url] = None
    return list(urls)


def reference_sitemap(body: bytes, base: str) -> tuple[str | None, list[str]]:
    """ArticleSpider's reading before issue 46: Scrapy's Sitemap, locations joined to the URL."""
    try:
        sitemap = Sitemap(body)
    except Exception:  # noqa: BLE001 - as the spider did
        return None, []
    urls = {urljoin(base, entry["loc"]): None for entry in sitemap if entry.get("loc")}
    return sitemap.type, list(urls)


# --- real files ------------------------------------------------------------------------------


def test_real_feeds_give_their_entries_links():
    atom = feed_entry_urls((FEEDS / "hoodie-atom.xml").read_bytes(), "https://www.hoodie.de/atom.xml", 100)
    assert atom.urls == [
        "https://www.hoodie.de/blog/handpicked-rusty-crates/",
        "https://www.hoodie.de/blog/time-and-datetime-again/",
        "https://www.hoodie.de/blog/hendriks-singalong-git/",
    ]
    rss = (FEEDS / "rfernandezdo-rss.xml").read_bytes()
    read = feed_entry_urls(rss, "https://rfernandezdo.github.io/feed_rss_created.xml", 100)
    # Not the channel's own <link> or <atom:link>, nor its image's.
    assert [url.split("/blog/")[1] for url in read.urls] == [
        "2026/04/25/vs-code-como-plataforma-de-ia-agentes-skills-y-tools-propias/",
        "2026/04/24/pi-hole-bloqueador-de-anuncios-y-filtro-dns-a-nivel-de-red/",
        "2026/04/23/truenas-almacenamiento-de-datos-escalable-con-zfs/",
    ]
    assert not atom.capped and not read.capped
    assert feed_entry_urls(rss, FEED_URL, 2) == (read.urls[:2], True)


def test_a_real_sitemap_and_robots_txt():
    robots = robots_sitemaps((FEEDS / "hoodie-robots.txt").read_bytes(), "https://www.hoodie.de/robots.txt", 50)
    assert robots == (["https://www.hoodie.de/sitemap.xml"], False)
    body = (FEEDS / "hoodie-sitemap.xml").read_bytes()
    sitemap = sitemap_entries(body, "https://www.hoodie.de/sitemap.xml", 50)
    assert (sitemap.kind, sitemap.urls) == reference_sitemap(body, "https://www.hoodie.de/sitemap.xml")
    assert sitemap.kind == "urlset" and len(sitemap.urls) == 6 and not sitemap.capped
    # The same file served as sitemap.xml.gz, no Content-Encoding: read the same.
    assert sitemap_entries(gzip.compress(body), "https://www.hoodie.de/sitemap.xml.gz", 50).urls == sitemap.urls


@needs_shared("every feed, sitemap and robots.txt of the twenty real sites, against the readers before issue 46")
def test_every_real_feed_and_sitemap_reads_as_before():
    compared = {"feeds": 0, "sitemaps": 0, "robots": 0}
    for archive in sorted(SHARED_SITES.glob("*/site.tar.gz")):
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                name = member.name.removeprefix("./")
                if not member.isfile() or not (name.endswith(".xml") or name == "robots.txt"):
                    continue
                body = tar.extractfile(member).read()
                url = f"https://{archive.parent.name}.example/{name}"
                if name == "robots.txt":
                    expected = list(dict.fromkeys(sitemap_urls_from_robots(body, base_url=url)))
                    assert robots_sitemaps(body, url, CAPS.robots_max_sitemaps).urls == expected, url
                    compared["robots"] += 1
                    continue
                feed = reference_feed(body, url)
                assert feed_entry_urls(body, url, CAPS.feed_max_entries).urls == feed, url
                compared["feeds"] += bool(feed)
                kind, urls = reference_sitemap(body, url)
                sitemap = sitemap_entries(body, url, CAPS.sitemap_max_urls)
                assert sitemap.urls == urls, url
                if urls:
                    assert sitemap.kind == kind, url
                    compared["sitemaps"] += 1
    assert compared["feeds"] >= 800 and compared["sitemaps"] >= 20 and compared["robots"] >= 7, compared


# --- caps ------------------------------------------------------------------------------------


def test_a_feed_is_read_up_to_its_cap():
    read = feed_entry_urls(huge_feed(80_000), FEED_URL, CAPS.feed_max_entries)  # 7 MB
    assert read.capped and len(read.urls) == CAPS.feed_max_entries == 50_000
    assert read.urls[-1] == "https://blog.example/posts/00049999/an-entry/"


@pytest.mark.parametrize("atom", [False, True], ids=["rss", "atom"])
def test_a_feed_at_its_cap_is_whole(atom):
    for entries, capped in ((5, False), (6, True)):
        body = huge_feed(entries, atom=atom)
        assert feed_entry_urls(body, FEED_URL, 5) == (reference_feed(body, FEED_URL)[:5], capped)


def test_robots_txt_sitemaps_are_capped_and_counted_once_each():
    read = robots_sitemaps(robots_with_sitemaps(10_000), "https://blog.example/robots.txt", 50)
    assert read.capped and len(read.urls) == 50
    assert read.urls[:2] == ["https://blog.example/s/0.xml", "https://blog.example/s/1.xml"]
    # 10,000 lines naming one sitemap: one sitemap, under the cap.
    assert robots_sitemaps(robots_with_sitemaps(10_000, distinct=False), "https://blog.example/robots.txt", 1) == (
        ["https://blog.example/s/0.xml"],
        False,
    )


def test_a_sitemap_is_read_up_to_its_cap():
    read = sitemap_entries(urlset(range(60_000)), "https://blog.example/sitemap.xml", CAPS.sitemap_max_urls)
    assert read.kind == "urlset" and read.capped and len(read.urls) == 50_000
    assert read.urls[-1] == "https://blog.example/u/49999/"
    index = sitemap_entries(sitemap_index(range(3)), "https://blog.example/sitemap.xml", 2)
    assert index == ("sitemapindex", ["https://blog.example/s/0.xml", "https://blog.example/s/1.xml"], True, 0, False)
    assert not sitemap_entries(sitemap_index(range(2)), "https://blog.example/sitemap.xml", 2).capped


def test_gzip_sitemaps_inflate_up_to_the_limit_and_no_further():
    base = "https://blog.example/sitemap.xml.gz"
    body = urlset(["/a/", "/b/"])
    assert sitemap_entries(gzip.compress(body), base, 10).urls == ["https://blog.example/a/", "https://blog.example/b/"]
    # A truncated file gives what it holds (Scrapy's gunzip does too).
    whole = urlset(range(2000))
    truncated = sitemap_entries(gzip.compress(whole)[: len(gzip.compress(whole)) // 2], base, 10_000)
    assert 0 < len(truncated.urls) < 2000
    # A bomb: 64 MB of blanks from 64 KB; past the limit nothing is read, and inflating stops there.
    bomb = gzip_bomb(64 << 20, first="/listed/")
    assert len(bomb) < 100_000
    read = sitemap_entries(bomb, base, 10, max_size=1 << 20)
    assert read.too_large and read.urls == [] and read.inflated <= (1 << 20) + CHUNK
    # Under the limit it is read; with the URL cap reached, inflating stops there too.
    assert sitemap_entries(gzip_bomb(2 << 20, first="/listed/"), base, 10, max_size=4 << 20).urls == [
        "https://blog.example/listed/"
    ]
    capped = sitemap_entries(gzip.compress(urlset(range(200_000))), base, 10)
    assert capped.capped and capped.inflated < 10 * CHUNK
    # Not gzip after its magic bytes: nothing, no exception.
    assert sitemap_entries(b"\x1f\x8b\x08" + b"junk" * 100, base, 10).urls == []


def test_the_stream_keeps_no_more_than_one_chunk_of_elements():
    """Elements that ended are dropped as the stream goes: when an entry comes, the elements beside
    it are those the parser read in the same chunk, at most; so for 20,000 entries (1.8 MB), and for
    1 MB of junk elements (262,144 of them)."""
    for body, names, size in ((huge_feed(20_000), ENTRIES, 90), (junk_elements(1 << 20), frozenset({"a"}), 4)):
        count, around = 0, 0
        for element in ended(chunks(body), names):
            count += 1
            if count % 1000 == 0:  # len() counts the children
                around = max(around, len(element.getparent()))
        assert count in (20_000, 1 << 18) and 0 < around <= 2 * CHUNK // size + 2


# --- cost: 4x the input costs about 4x the time, not 16x (issue 46: a list scan per URL) --------


def cpu_seconds(function, *args) -> float:
    start = time.process_time()
    function(*args)
    return time.process_time() - start


def growth(function, small, large, repeats: int = 3) -> float:
    """How much longer `function` takes on `large` than on `small` (the fastest of a few runs each,
    taking turns, in CPU time: the machine's load moves both alike)."""
    smalls, larges = [], []
    for _ in range(repeats):
        smalls.append(cpu_seconds(function, *small))
        larges.append(cpu_seconds(function, *large))
    return min(larges) / max(min(smalls), 1e-6)


def test_reading_a_feed_grows_linearly_with_its_entries():
    big = 10**9
    ratio = growth(
        feed_entry_urls, (huge_feed(4_000), FEED_URL, big), (huge_feed(16_000), FEED_URL, big)
    )  # before: about 15x
    assert ratio < 8, ratio


def test_the_feeds_of_a_page_grow_linearly_with_its_links():
    small, large = (build_page(to_element(page_with_feeds(n))) for n in (5_000, 20_000))
    ratio = growth(feed_urls, (small, "https://blog.example/"), (large, "https://blog.example/"))
    assert len(feed_urls(large, "https://blog.example/")) == 20_000
    assert ratio < 8, ratio
