"""The site, items and spiders of the MainContentPipeline crawl tests.

Site map (served by tests/support/server.py's LoopbackServer on 127.0.0.1):

    /                       example_project's home page (overview)
    /news/, /science/       its section pages (overview)
    /news/*.html, /science/*.html   its five articles
    /real/                  a bare index of all the pages below (a start URL)
    /real/ID.html           those pages, bytes as stored (when the datasets are there)
    /fail/page.html         an article on which tests/support/pipeline_crawl.py makes extraction fail
    /big.html               an article padded past MAX_BODY_SIZE
    /feed.json              JSON, not HTML
    /gz/article.html        an article served gzip-compressed

The example site's own pages are always there, so the crawl tests always run;
the real pages add variety when ../shared/datasets is present.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import attrs
import scrapy
from scrapy.exceptions import DropItem
from scrapy.http import HtmlResponse
from server import gzipped, index_page

TESTS = Path(__file__).resolve().parents[1]
SITE = TESTS.parent / "example_project" / "site"
SHARED = TESTS.parents[1] / "shared" / "datasets"

OVERVIEWS = ["/", "/news/", "/science/"]
ARTICLES = sorted("/" + p.relative_to(SITE).as_posix() for p in SITE.glob("*/*.html") if p.name != "index.html")
FAIL = "/fail/page.html"
BIG = "/big.html"
FEED = "/feed.json"
GZ = "/gz/article.html"
MAX_BODY_SIZE = 1_000_000
REAL_COUNT = 12
HTML = "text/html; charset=utf-8"


def real_pages(n: int = REAL_COUNT) -> dict[str, bytes]:
    """path -> bytes of the first `n` article pages of wcxb-dev ({} without the datasets)."""
    folder = SHARED / "wcxb-dev"
    if not (folder / "pages.jsonl").is_file():
        return {}
    from scrapy_boilerplate.training.datasets import load_dataset

    pages = {f"/real/{p.id}.html": p.read_html() for p in load_dataset(folder) if p.page_type == "article"}
    return dict(list((path, body) for path, body in pages.items() if len(body) < MAX_BODY_SIZE // 2)[:n])


def site_file(path: str) -> bytes:
    return (SITE / (path.lstrip("/") + ("index.html" if path.endswith("/") else ""))).read_bytes()


def build_routes() -> dict:
    """path -> route for LoopbackServer."""
    routes: dict = {path: site_file(path) for path in OVERVIEWS + ARTICLES}
    reals = real_pages()
    # Served without a charset, as many real servers do: Scrapy decodes them itself.
    routes.update({path: (body, {"Content-Type": "text/html"}) for path, body in reals.items()})
    routes["/real/"] = index_page(sorted(reals) + [FAIL, BIG, FEED, GZ], "More pages")
    article = site_file(ARTICLES[0])
    routes[FAIL] = article
    routes[GZ] = gzipped(site_file(ARTICLES[1]))
    routes[BIG] = article.replace(b"</body>", b"<!-- " + b"x" * MAX_BODY_SIZE + b" --></body>")
    routes[FEED] = (json.dumps({"articles": ARTICLES}).encode(), {"Content-Type": "application/json"})
    return routes


# -- items --


class PageItem(scrapy.Item):
    url = scrapy.Field()
    n = scrapy.Field()
    title = scrapy.Field()
    html = scrapy.Field()
    main_text = scrapy.Field()
    headline = scrapy.Field()
    markdown = scrapy.Field()
    clean_html = scrapy.Field()
    images = scrapy.Field()


class BareItem(scrapy.Item):
    """No main_text field: the pipeline must say so once, not fail on every item."""

    url = scrapy.Field()
    n = scrapy.Field()


@dataclasses.dataclass
class PageData:
    url: str
    n: int
    title: str | None = None
    html: str | None = None
    main_text: str = ""
    headline: str | None = None
    markdown: str = ""
    clean_html: str = ""
    images: list = dataclasses.field(default_factory=list)


@attrs.define
class PageAttrs:
    url: str
    n: int
    title: str | None = None
    html: str | None = None
    main_text: str = ""
    headline: str | None = None
    markdown: str = ""
    clean_html: str = ""
    images: list = attrs.field(factory=list)


ITEM_TYPES = {"dict": dict, "item": PageItem, "dataclass": PageData, "attrs": PageAttrs, "bare": BareItem}


def make_item(kind: str, **values):
    cls = ITEM_TYPES[kind]
    if cls is BareItem:
        values = {k: v for k, v in values.items() if k in ("url", "n")}
    return cls(**values)


# -- spiders --

FOLLOW = re.compile(r"^/(?:news/|science/|real/|fail/|gz/|big\.html$|feed\.json$)")


class PagesSpider(scrapy.Spider):
    """Follows the site's links; yields `per_page` items for every page (two by default).

    With store_html, the spider puts the page's HTML into the items' "html" field itself.
    """

    name = "pages"

    def __init__(
        self, base_url: str, item_type: str = "dict", per_page: int = 2, store_html: bool = False, *args, **kwargs
    ):
        super().__init__(*args, **kwargs)
        self.base_url = base_url
        self.item_type = item_type
        self.per_page = int(per_page)
        self.store_html = store_html
        self.logged: list = []  # scrapy_boilerplate log records (tests/support/pipeline_crawl.py)

    async def start(self):
        for path in ("/", "/real/"):
            yield scrapy.Request(self.base_url + path)

    def parse(self, response):
        for n in range(self.per_page):
            values = {"url": response.url, "n": n}
            if isinstance(response, HtmlResponse):
                values["title"] = response.css("title::text").get()
                if self.store_html:
                    values["html"] = response.text
            yield make_item(self.item_type, **values)
        if not isinstance(response, HtmlResponse):
            return
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href)
            if url.startswith(self.base_url) and FOLLOW.match(url[len(self.base_url) :]):
                yield scrapy.Request(url)


# -- pipelines placed before MainContentPipeline in some crawls --


class DropSecondPipeline:
    """Drops every item with n == 1: they must leave nothing behind in ItemSources."""

    def process_item(self, item):
        if item["n"] == 1 if isinstance(item, dict | scrapy.Item) else item.n == 1:
            raise DropItem("second item of the page")
        return item


class FailThirdPipeline:
    """Raises on every item with n == 2 (an item_error): it must leave nothing behind either."""

    def process_item(self, item):
        if (item["n"] if isinstance(item, dict | scrapy.Item) else item.n) == 2:
            raise ValueError("a bug in another pipeline")
        return item
