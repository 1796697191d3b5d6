"""The stages that read web input, each as a call prepared outside the count.

``STAGES[name](data, url)`` does, uncounted, what comes before the stage (the parse, the walk,
the extraction the stage reads from) and returns the call whose work is counted: the stage alone.
Each call gets its own walked page, so no stage finds another's results in a page's caches, and
the caches kept across pages (link keys, class cues) are emptied before each count (``cold``):
every count is of a page from a site never seen before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Prepared = Callable[[], Any]

#: The caches kept across pages: (module, attribute), each emptied by its .clear().
CACHES = (
    ("scrapy_boilerplate.core.links.urls", "_KEYS"),
    ("scrapy_boilerplate.core.links.urls", "_KINDS"),
    ("scrapy_boilerplate.core.document.cue_words", "CUE_CACHE"),
    ("scrapy_boilerplate.core.document.cue_words", "UNIT_CACHE"),
    ("scrapy_boilerplate.core.document.cue_words", "KEY_CACHE"),
)


def cold() -> None:
    """Empty the caches kept across pages."""
    import importlib

    for module, name in CACHES:
        getattr(importlib.import_module(module), name).clear()


def _root(data: bytes) -> Any:
    from scrapy_boilerplate.core.document.parse import to_element

    return to_element(data)


def _scrapy_root(data: bytes, url: str) -> Any:
    """The tree Scrapy gives a crawl (``response.selector.root``: parsel's parser, whose trees
    go 2,047 levels deep where ours stop at 255)."""
    from scrapy.http import HtmlResponse

    return HtmlResponse(url, body=data, encoding="utf-8").selector.root


def _page(data: bytes, url: str) -> Any:
    """The page a crawl walks: Scrapy's tree of the response."""
    from scrapy_boilerplate.core.document.page import build_page

    return build_page(_scrapy_root(data, url), base_url=url)


def _all_kept(data: bytes, url: str) -> Any:
    """The extraction of the page with every block kept (the most a render or the metadata can
    be given to read: an article whose every block is content), made uncounted; its Markdown,
    HTML and metadata are made when first read."""
    import dataclasses

    import numpy as np

    from scrapy_boilerplate.core.extraction import build_extraction
    from scrapy_boilerplate.core.extractor import default_extractor
    from scrapy_boilerplate.core.metadata.title import best_title
    from scrapy_boilerplate.core.selection.steps import select

    extractor, page = default_extractor(), _page(data, url)
    model = extractor.model
    # Every block kept: the model's probabilities would change nothing (and cost the most here).
    proba = np.ones(len(page))
    kept = select(page, proba, model.decode if model else None, extractor.options, best_title(page)).kept()
    everything = dataclasses.replace(kept, mask=np.ones(len(page), bool))
    return lambda: build_extraction(everything, url, extractor.options)


def parse(data: bytes, url: str) -> Prepared:
    """Bytes to a tree: the encoding (sniffed, guessed where nothing is declared) and lxml's parse."""
    from scrapy_boilerplate.core.document.parse import to_element

    return lambda: to_element(data)


def walk(data: bytes, url: str) -> Prepared:
    """The walk of our own parse's tree (libxml2's depth limit: 255)."""
    from scrapy_boilerplate.core.document.page import build_page

    root = _root(data)
    return lambda: build_page(root, base_url=url)


def walk_scrapy(data: bytes, url: str) -> Prepared:
    """The walk of Scrapy's tree, as a crawl walks each response."""
    from scrapy_boilerplate.core.document.page import build_page

    root = _scrapy_root(data, url)
    return lambda: build_page(root, base_url=url)


def features(data: bytes, url: str) -> Prepared:
    """The blocks' features and the model's probabilities."""
    from scrapy_boilerplate.core.extractor import default_extractor

    page, extractor = _page(data, url), default_extractor()
    return lambda: extractor.block_probabilities(page)


def extraction(data: bytes, url: str) -> Prepared:
    """Everything after the walk up to the text: features, model, selection, fallbacks, text."""
    from scrapy_boilerplate.core.extractor import default_extractor

    page, extractor = _page(data, url), default_extractor()
    return lambda: extractor.extract_page(page, url).text


def overview(data: bytes, url: str) -> Prepared:
    """Overview detection: the evidence and the model, and both signs of the site's own links
    (a pager of its own, links elsewhere), which it reads on some pages only: all the work it
    may do on a page, whatever the verdict."""
    from scrapy_boilerplate.core.links.pager import own_pager
    from scrapy_boilerplate.core.overview.detector import default_detector
    from scrapy_boilerplate.core.overview.link_evidence import leads_elsewhere

    page, detector = _page(data, url), default_detector()
    return lambda: (detector.detect_page(page, url), own_pager(page, url), leads_elsewhere(page, url))


def link_roles(data: bytes, url: str) -> Prepared:
    """The role of every link, as ArticleSpider and LinkRolesMiddleware read them."""
    from scrapy_boilerplate.core.links.roles import page_links, url_roles

    page = _page(data, url)
    return lambda: url_roles(page_links(page, url))


def metadata(data: bytes, url: str) -> Prepared:
    """The article metadata (authors, dates, language, site name...) with every block kept."""
    made = _all_kept(data, url)()
    return lambda: made.metadata


def render(data: bytes, url: str) -> Prepared:
    """The text, Markdown and HTML of the page with every block kept."""
    build = _all_kept(data, url)
    return lambda: build().markdown


#: Selectors of each kind of combinator and a positional pseudo-class, as a site rule gives them.
CONTENT_SELECTOR = "article p, body > div p:not(.x)"
EXCLUDE_SELECTORS = ("p ~ p.share", "div .card a", "li:nth-child(2n) a", "span + a", "[class*=k1]")


def css_selectors(data: bytes, url: str) -> Prepared:
    """A site rule's selectors matched on the page (selection/site_rules.py, css_match.py)."""
    from scrapy_boilerplate.core.selection.site_rules import make_rule

    page = _page(data, url)
    rule = make_rule(CONTENT_SELECTOR, EXCLUDE_SELECTORS)
    assert rule is not None
    return lambda: rule.apply(page)


def feed_links(data: bytes, url: str) -> Prepared:
    """The feeds a page announces (crawl/articles/feeds.py feed_urls)."""
    from scrapy_boilerplate.core.render.urls import page_base
    from scrapy_boilerplate.crawl.articles.feeds import feed_urls

    page = _page(data, url)
    return lambda: feed_urls(page, page_base(url, page.base_href))


def charset_middleware(data: bytes, url: str) -> Prepared:
    """CharsetMiddleware's check of a response Scrapy decoded by a guess (crawl/charsets.py)."""
    from scrapy.http import HtmlResponse

    from scrapy_boilerplate.crawl.charsets import better_encoding

    response = HtmlResponse(url, body=data)
    response.text  # noqa: B018 - Scrapy's own decode, not counted
    return lambda: better_encoding(response)


def _spider() -> Any:
    from scrapy.utils.test import get_crawler

    from scrapy_boilerplate.spiders import ArticleSpider

    crawler = get_crawler(ArticleSpider)
    crawler._apply_settings()
    return crawler._create_spider()


def _response(url: str, data: bytes, meta: dict[str, Any] | None = None) -> Any:
    """A response of `data` to a request for `url`, as Scrapy hands one to a callback."""
    from scrapy import Request
    from scrapy.http import XmlResponse

    return XmlResponse(url, body=data, request=Request(url, meta=meta or {}))


def feed(data: bytes, url: str) -> Prepared:
    """ArticleSpider's reading of a feed: the requests for its entries."""
    spider, response = _spider(), _response(url, data)
    return lambda: list(spider.parse_feed(response))


def sitemap(data: bytes, url: str) -> Prepared:
    """ArticleSpider's reading of a sitemap: the requests for its pages or sitemaps."""
    spider, response = _spider(), _response(url, data)
    return lambda: list(spider.parse_sitemap(response))


def robots(data: bytes, url: str) -> Prepared:
    """ArticleSpider's reading of robots.txt: the requests for its sitemaps."""
    from scrapy import Request
    from scrapy.http import TextResponse

    origin = url.split("/", 3)
    request = Request(url, meta={"origin": "/".join(origin[:3])})
    spider, response = _spider(), TextResponse(url, body=data, request=request)
    return lambda: list(spider.parse_robots(response))


#: The stages of a page, in the order a crawl runs them.
PAGE_STAGES: dict[str, Callable[[bytes, str], Prepared]] = {
    f.__name__: f
    for f in (
        parse,
        walk,
        walk_scrapy,
        features,
        extraction,
        overview,
        link_roles,
        metadata,
        render,
        css_selectors,
        feed_links,
    )
}
#: The stages of bytes that are not UTF-8 and say nothing of their encoding.
UNDECLARED_STAGES: dict[str, Callable[[bytes, str], Prepared]] = {f.__name__: f for f in (parse, charset_middleware)}
STAGES: dict[str, Callable[[bytes, str], Prepared]] = {
    **PAGE_STAGES,
    **UNDECLARED_STAGES,
    "feed": feed,
    "sitemap": sitemap,
    "robots": robots,
}
