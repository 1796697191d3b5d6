"""LinkRolesMiddleware as Scrapy builds it (get_crawler), on hand-made responses."""

from __future__ import annotations

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, TextResponse
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_boilerplate import settings as bp
from scrapy_boilerplate.link_roles import PRIORITY_OFFSETS, LinkRolesMiddleware

PAGE = b"""<html><body><nav><a href="/section/">Section</a></nav><main>
<article><h2><a href="/2020/a-long-story-title/">A long story title of the listing</a></h2><p>Teaser one.</p></article>
<article><h2><a href="/2020/b-long-story-title/">B long story title of the listing</a></h2><p>Teaser two.</p></article>
<article><h2><a href="/2020/c-long-story-title/">C long story title of the listing</a></h2><p>Teaser three.</p></article>
</main><a href="/page/2/">Next page</a><footer><a href="/privacy/#top">Privacy</a> <a href="#top">Top</a></footer></body></html>"""


def middleware(mode: str, **settings):
    crawler = get_crawler(Spider, {"BOILERPLATE_LINKS": mode, **settings})
    crawler.spider = Spider("s")
    return build_from_crawler(LinkRolesMiddleware, crawler), crawler


def response(body: bytes = PAGE, cls=HtmlResponse):
    url = "https://example.org/"
    return cls(url, body=body, encoding="utf-8", request=Request(url))


def test_off_is_not_configured():
    with pytest.raises(NotConfigured):
        middleware("off")
    with pytest.raises(NotConfigured):
        middleware("focus", BOILERPLATE_ENABLED=False)
    with pytest.raises(bp.SettingError):
        middleware("everything")


def test_prioritize_adds_the_role_offset_and_meta():
    mw, crawler = middleware("prioritize")
    page = response()
    story = mw.get_processed_request(Request("https://example.org/2020/a-long-story-title/", priority=5), page)
    assert story.meta[bp.META_LINK_ROLE] == "content" and story.priority == 5 + PRIORITY_OFFSETS["content"]
    nxt = mw.get_processed_request(Request("https://example.org/page/2/", meta={"depth": 3}), page)
    assert nxt.meta[bp.META_LINK_ROLE] == "next" and nxt.priority == PRIORITY_OFFSETS["next"]
    # The fragment does not count; boilerplate is kept with "prioritize", last.
    junk = mw.get_processed_request(Request("https://example.org/privacy/#x"), page)
    assert junk.meta[bp.META_LINK_ROLE] == "boilerplate" and junk.priority < 0
    # Not a link of the page: unchanged.
    own = Request("https://example.org/api/made-by-the-spider", priority=7)
    assert mw.get_processed_request(own, page) is own and own.priority == 7 and bp.META_LINK_ROLE not in own.meta
    stats = crawler.stats.get_stats()
    assert stats["boilerplate/links/pages"] == 1  # worked out once for the page
    assert stats["boilerplate/links/unmatched"] == 1 and stats["boilerplate/links/next"] == 1


def test_focus_drops_boilerplate_only_and_other_responses_pass():
    mw, crawler = middleware("focus")
    page = response()
    assert mw.get_processed_request(Request("https://example.org/privacy/"), page) is None
    assert mw.get_processed_request(Request("https://example.org/section/"), page) is not None
    assert crawler.stats.get_value("boilerplate/links/dropped") == 1
    # A link to the page itself is kept, last (dropped, a start page would be fetched again).
    itself = mw.get_processed_request(Request("https://example.org/#top"), page)
    assert itself is not None and itself.meta[bp.META_LINK_ROLE] == "boilerplate" and itself.priority < 0
    # Start requests (no response), non-HTML responses: unchanged, nothing worked out.
    start = Request("https://example.org/privacy/")
    assert mw.get_processed_request(start, None) is start
    text = response(b"/privacy/", TextResponse)
    assert mw.get_processed_request(start, text) is start


def test_a_failure_passes_the_requests_unchanged(monkeypatch, caplog):
    import scrapy_boilerplate.link_roles as module

    def broken(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(module, "page_links", broken)
    mw, crawler = middleware("focus")
    request = Request("https://example.org/privacy/")
    assert mw.get_processed_request(request, response()) is request
    assert crawler.stats.get_value("boilerplate/links/errors") == 1
    assert "Link roles failed" in caplog.text


def test_a_page_whose_requests_were_all_passed_before_is_not_worked_out():
    """Scrapy's dupefilter drops a second request for a URL whatever its role: a page whose
    requests all repeat earlier ones (a site's menus and tags) needs no roles."""
    mw, crawler = middleware("focus")
    first, second = (
        response(),
        HtmlResponse(
            "https://example.org/2020/a-long-story-title/",
            body=PAGE,
            encoding="utf-8",
            request=Request("https://example.org/"),
        ),
    )
    story = "https://example.org/2020/b-long-story-title/"
    assert mw.get_processed_request(Request(story), first).meta[bp.META_LINK_ROLE] == "content"
    assert mw.get_processed_request(Request("https://example.org/privacy/"), first) is None  # dropped: not passed
    assert crawler.stats.get_value("boilerplate/links/pages") == 1
    again = Request(story + "#comments")
    assert mw.get_processed_request(again, second) is again and bp.META_LINK_ROLE not in again.meta
    assert crawler.stats.get_value("boilerplate/links/pages") == 1  # the second page: not worked out
    assert crawler.stats.get_value("boilerplate/links/repeated") == 1
    # A request the dupefilter lets through, or one for a URL dropped before, gets its role.
    forced = mw.get_processed_request(Request(story, dont_filter=True), second)
    assert forced.meta[bp.META_LINK_ROLE] == "content"
    assert mw.get_processed_request(Request("https://example.org/privacy/"), second) is None
    assert crawler.stats.get_value("boilerplate/links/pages") == 2
