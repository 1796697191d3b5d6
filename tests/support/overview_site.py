"""A small web site built from real pages, served on 127.0.0.1, and the spiders that crawl it.

The pages come from ../shared/datasets/overview-dev (news and blog home pages,
section listings and articles), cut down in tests/fixtures/real/overview-dev
(tests/support/cut_fixtures.py: the same extraction and the same overview verdict). A ``<nav class="bp-site">`` is added to the
home and section pages: those are the only links the test spiders follow, so
a crawl is small and its outcome known. Site map (``*`` = overview page):

    /*                      home page, the start URL; links to all below
      /news/*               section listing, served gzip-compressed; links to /2020/02/fourth-article.html
        /2020/02/fourth-article.html   reachable only through /news/
      /2020/01/first-article.html      served gzip-compressed
      /2020/01/second-article.html
      /latest               301 -> /2020/01/third-article.html
      /go/archive.html      meta refresh -> /news/archive/*  (a blog front page)
      /feed                 JSON
      /empty.html           200, empty body
      /big.html             an overview page padded past MAX_BODY_SIZE below
      /missing.html         404

``tests/support/overview_crawl.py`` runs the spiders in a separate process (a Twisted
reactor cannot be restarted, and the rest of the suite must not depend on one).
"""

from __future__ import annotations

import gzip
import json
import re
from contextlib import contextmanager
from pathlib import Path

import scrapy
from scrapy import signals
from scrapy.http import HtmlResponse
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule
from server import LoopbackServer

SHARED = Path(__file__).resolve().parents[3] / "shared" / "datasets"
CUT = Path(__file__).resolve().parents[1] / "fixtures" / "real"

# path -> (overview-dev id, is an overview page); ids picked for clear-cut verdicts.
REAL_PAGES = {
    "/": ("TeamHG-Mem-9a58301f64", True),  # news home: 90 teaser cards
    "/news/": ("TeamHG-Mem-d62d05c912", True),  # news section listing
    "/news/archive/": ("TeamHG-Mem-57dd2935a6", True),  # blog front page
    "/2020/01/first-article.html": ("codelucas-c9d119b159", False),
    "/2020/01/second-article.html": ("adbar-e513f56c3b", False),
    "/2020/01/third-article.html": ("adbar-e6f1dd65a1", False),
    "/2020/02/fourth-article.html": ("adbar-9da80068c2", False),
}
BIG_PAGE_ID = "TeamHG-Mem-9a90c725a3"  # another blog front page, padded to BIG_PAGE_SIZE
GZIPPED = {"/news/", "/2020/01/first-article.html"}

# Crawls set BOILERPLATE_MAX_BODY_SIZE to MAX_BODY_SIZE; the real pages are all smaller.
MAX_BODY_SIZE = 300_000
BIG_PAGE_SIZE = 400_000

HOME_LINKS = [
    "/news/",
    "/2020/01/first-article.html",
    "/2020/01/second-article.html",
    "/latest",
    "/go/archive.html",
    "/feed",
    "/empty.html",
    "/big.html",
    "/missing.html",
]
SECTION_LINKS = ["/2020/02/fourth-article.html"]

HTML = "text/html; charset=utf-8"


def page_file(page_id: str) -> Path:
    """The page's .html.gz: its cut copy in tests/fixtures/real if there is one, else the dataset's."""
    cut = CUT / "overview-dev" / "html" / f"{page_id}.html.gz"
    return cut if cut.is_file() else SHARED / "overview-dev" / "html" / f"{page_id}.html.gz"


def real_page(page_id: str) -> bytes:
    return gzip.decompress(page_file(page_id).read_bytes())


def shared_pages_missing() -> str | None:
    """Why the site cannot be built here, or None."""
    missing = [i for i in (*(i for i, _ in REAL_PAGES.values()), BIG_PAGE_ID) if not page_file(i).is_file()]
    if missing:
        return f"overview-dev pages missing: {', '.join(missing)} (neither cut in {CUT} nor in {SHARED})"
    return None


def pages_are_cut() -> bool:
    """Whether tests/fixtures/real holds every page of the site (then ../shared is not needed)."""
    return all(page_file(i).is_relative_to(CUT) for i in (*(i for i, _ in REAL_PAGES.values()), BIG_PAGE_ID))


def add_nav(html: bytes, base_url: str, paths: list[str]) -> bytes:
    """Put the links the spiders follow right after <body> (absolute: some pages have <base>)."""
    items = "".join(f'<li><a href="{base_url}{p}">{p}</a></li>' for p in paths)
    nav = f'<nav class="bp-site"><ul>{items}</ul></nav>'.encode()
    match = re.search(rb"<body[^>]*>", html, re.IGNORECASE)
    at = match.end() if match else len(html)
    return html[:at] + nav + html[at:]


def build_site(base_url: str) -> dict[str, tuple[int, dict, bytes]]:
    """path -> (status, headers, body) for the site map above."""
    site = {}
    for path, (page_id, _) in REAL_PAGES.items():
        site[path] = (200, {"Content-Type": HTML}, real_page(page_id))
    status, headers, body = site["/"]
    site["/"] = (status, headers, add_nav(body, base_url, HOME_LINKS))
    status, headers, body = site["/news/"]
    site["/news/"] = (status, headers, add_nav(body, base_url, SECTION_LINKS))
    site["/latest"] = (301, {"Location": f"{base_url}/2020/01/third-article.html"}, b"")
    site["/go/archive.html"] = (
        200,
        {"Content-Type": HTML},
        (
            b'<html><head><meta http-equiv="refresh" content="0; url=/news/archive/"></head>'
            b"<body><p>The archive has moved.</p></body></html>"
        ),
    )
    site["/feed"] = (
        200,
        {"Content-Type": "application/json"},
        json.dumps({"items": [{"title": "First", "url": "/2020/01/first-article.html"}]}).encode(),
    )
    site["/empty.html"] = (200, {"Content-Type": HTML}, b"")
    big = real_page(BIG_PAGE_ID)
    big = big.replace(b"</body>", b"<!-- " + b"x" * (BIG_PAGE_SIZE - len(big)) + b" --></body>", 1)
    site["/big.html"] = (200, {"Content-Type": HTML}, big)
    site["/missing.html"] = (404, {"Content-Type": HTML}, b"<html><body><h1>Not found</h1></body></html>")
    for path in GZIPPED:
        status, headers, body = site[path]
        site[path] = (status, {**headers, "Content-Encoding": "gzip"}, gzip.compress(body))
    return site


@contextmanager
def serve_site():
    """Serve build_site() on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    with LoopbackServer() as server:
        base_url = server.url("")
        # The pages link to absolute URLs of the site: built once the port is known.
        server.routes.update(
            {path: (status, body, headers) for path, (status, headers, body) in build_site(base_url).items()}
        )
        yield base_url


# ---- spiders -------------------------------------------------------------


class RecordingSpiderMixin:
    """What a crawl produced: one entry per response that reached the spider, and the items scraped."""

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.responses = []
        spider.scraped = []
        spider.logged = []  # scrapy_boilerplate log records (overview_crawl.SpiderLogHandler)
        # A bound method, not a lambda: signal handlers are held by weak reference.
        crawler.signals.connect(spider.on_item_scraped, signals.item_scraped)
        return spider

    def on_item_scraped(self, item, response):
        self.scraped.append(dict(item))

    @staticmethod
    def page_item(response):
        # Was the page already parsed when the callback got it (OverviewMiddleware's parse,
        # cached by response.selector)? Then the css() below reuses it.
        parse_reused = getattr(response, "_cached_selector", None) is not None
        title = response.css("title::text").get() if isinstance(response, HtmlResponse) else None
        return {"url": response.url, "title": (title or "").strip(), "parse_reused": parse_reused}


class SitePlainSpider(RecordingSpiderMixin, scrapy.Spider):
    """A plain spider: an item per page, and the links of the site's <nav>."""

    name = "site_plain"
    allowed_domains = ("127.0.0.1",)

    def __init__(self, base_url, link_meta=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.base_url = base_url
        # path -> Request.meta for links to that path (the per-request meta keys under test)
        self.link_meta = json.loads(link_meta) if isinstance(link_meta, str) else (link_meta or {})

    async def start(self):
        yield scrapy.Request(self.base_url + "/", meta=self.meta_for("/"))

    def meta_for(self, path):
        return dict(self.link_meta.get(path, {}))

    def parse(self, response):
        yield self.page_item(response)
        if isinstance(response, HtmlResponse):
            for href in response.css("nav.bp-site a::attr(href)").getall():
                path = href[len(self.base_url) :]
                yield response.follow(href, meta=self.meta_for(path))


class SiteCrawlSpider(RecordingSpiderMixin, CrawlSpider):
    """The same with CrawlSpider rules: callback and follow=True."""

    name = "site_crawl"
    allowed_domains = ("127.0.0.1",)
    rules = (Rule(LinkExtractor(restrict_css="nav.bp-site"), callback="parse_page", follow=True),)

    def __init__(self, base_url, *args, **kwargs):
        self.start_urls = [base_url + "/"]
        super().__init__(*args, **kwargs)

    def parse_start_url(self, response):
        return [self.page_item(response)]

    def parse_page(self, response):
        yield self.page_item(response)


SPIDERS = {"plain": SitePlainSpider, "crawl": SiteCrawlSpider}


class RecorderMiddleware:
    """Spider middleware next to the engine: records what each response finally yields."""

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    async def process_spider_output(self, response, result):
        entry = {"url": response.url, "flags": list(response.flags), "items": [], "requests": []}
        self.crawler.spider.responses.append(entry)
        async for output in result:
            if isinstance(output, scrapy.Request):
                entry["requests"].append(output.url)
            else:
                entry["items"].append(output["url"])
            yield output
