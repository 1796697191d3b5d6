"""OverviewMiddleware and OverviewLinksOnlyMiddleware as Scrapy builds them (get_crawler).

Pages come from the example project's bundled site (example_project/site: a home page, two
section pages, five articles), so these tests always run; one more test compares the
middleware with detect_overview on real pages of ../shared/datasets (needs_shared).
The verdicts themselves belong to core/overview/detector.py: these tests check what
the middlewares do with them, not scores.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from conftest import load_shared_pages
from pipeline_site import ARTICLES, OVERVIEWS, site_file
from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, JsonResponse, Response, TextResponse
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_boilerplate import detect_overview
from scrapy_boilerplate.core.overview.detector import OverviewDetector
from scrapy_boilerplate.middlewares import OverviewLinksOnlyMiddleware, OverviewMiddleware

SITE = "http://127.0.0.1:8000"
OVERVIEW_PATH = "/news/"
ARTICLE_PATH = "/news/council-approves-riverside-park.html"


@pytest.fixture(scope="module")
def pages():
    """path -> page bytes of the example project's site (its home and section pages, its articles)."""
    return {path: site_file(path) for path in OVERVIEWS + ARTICLES}


def make_crawler(**settings):
    crawler = get_crawler(Spider, settings)
    crawler.spider = crawler._create_spider("test")  # what the engine does when the crawl starts
    return crawler


def make_mw(**settings) -> OverviewMiddleware:
    return build_from_crawler(OverviewMiddleware, make_crawler(**settings))


def html_response(
    body: bytes, path: str = "/page.html", *, cls=HtmlResponse, status=200, meta=None, headers=None
) -> Response:
    request = Request(SITE + path, meta=meta or {})
    return cls(
        SITE + path,
        body=body,
        status=status,
        request=request,
        headers=headers or {"Content-Type": "text/html; charset=utf-8"},
    )


def stats(mw) -> dict:
    """The boilerplate/ counters (not the timings)."""
    return {
        k: v for k, v in mw.crawler.stats.get_stats().items() if k.startswith("boilerplate/") and "/seconds_" not in k
    }


# -- configuration ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "settings",
    [
        {"BOILERPLATE_OVERVIEW_ACTION": "off"},
        {"BOILERPLATE_ENABLED": False},
        {"BOILERPLATE_ENABLED": False, "BOILERPLATE_OVERVIEW_ACTION": "drop"},
    ],
)
def test_off_or_disabled_means_not_configured(settings):
    crawler = make_crawler(**settings)
    for cls in (OverviewMiddleware, OverviewLinksOnlyMiddleware):
        with pytest.raises(NotConfigured):
            build_from_crawler(cls, crawler)


def test_links_only_middleware_is_off_with_action_flag():
    # "flag" leaves overview items to the spider.
    with pytest.raises(NotConfigured):
        build_from_crawler(OverviewLinksOnlyMiddleware, make_crawler(BOILERPLATE_OVERVIEW_ACTION="flag"))
    assert build_from_crawler(OverviewMiddleware, make_crawler(BOILERPLATE_OVERVIEW_ACTION="flag"))


def test_unknown_action_is_an_error_not_a_silent_default():
    with pytest.raises(ValueError, match="BOILERPLATE_OVERVIEW_ACTION"):
        make_mw(BOILERPLATE_OVERVIEW_ACTION="skip")


def test_action_is_case_insensitive():
    assert make_mw(BOILERPLATE_OVERVIEW_ACTION="Drop").action == "drop"


def test_defaults_without_the_addon():
    mw = make_mw()
    assert mw.action == "follow"
    assert mw.detector.threshold == 1500
    assert mw.max_body_size == 8 * 1024 * 1024
    assert mw.drop_start is False
    assert mw.detector.cutoff == OverviewDetector().cutoff  # the model's own cutoff


def test_detector_settings_reach_the_detector():
    mw = make_mw(
        BOILERPLATE_OVERVIEW_THRESHOLD="900", BOILERPLATE_OVERVIEW_MODEL="false", BOILERPLATE_OVERVIEW_CUTOFF="0.7"
    )
    assert (mw.detector.threshold, mw.detector.model, mw.detector.cutoff) == (900, None, 0.7)


def test_missing_model_file_fails_at_start_not_per_page(tmp_path):
    with pytest.raises(Exception, match=r"nope\.json"):
        make_mw(BOILERPLATE_OVERVIEW_MODEL=str(tmp_path / "nope.json"))


def test_threshold_and_cutoff_change_the_verdicts(pages):
    article = html_response(pages[ARTICLE_PATH], ARTICLE_PATH)
    # The plain net-text rule with a threshold no article reaches: everything with text is an overview.
    mw = make_mw(BOILERPLATE_OVERVIEW_MODEL=False, BOILERPLATE_OVERVIEW_THRESHOLD=10_000_000)
    assert "overview" in mw.process_response(article.request, article).flags
    # Scores are at most 1: a cutoff above 1 flags nothing.
    overview = html_response(pages[OVERVIEW_PATH], OVERVIEW_PATH)
    mw = make_mw(BOILERPLATE_OVERVIEW_CUTOFF=1.01)
    assert mw.process_response(overview.request, overview).flags == []


# -- the downloader middleware on real pages ------------------------------------------------------


def test_site_pages_are_clear_cut(pages):
    """These tests rely on these verdicts; if the detector changes its mind, say which page."""
    wrong = []
    for path, body in pages.items():
        verdict = detect_overview(body, url=SITE + path)
        if verdict.is_overview != (path in OVERVIEWS):
            wrong.append(f"{path}: expected overview={path in OVERVIEWS}, got {verdict}")
    assert not wrong, "\n".join(wrong)
    assert OVERVIEW_PATH in OVERVIEWS and "/" in OVERVIEWS and ARTICLE_PATH in ARTICLES


def test_overview_page_is_flagged_and_its_parse_kept_for_the_spider(pages):
    mw = make_mw()
    response = html_response(pages[OVERVIEW_PATH], OVERVIEW_PATH)
    assert response._cached_selector is None
    out = mw.process_response(response.request, response)
    # The same response object: a replace() would lose the parse cached on it.
    assert out is response
    assert out.flags == ["overview"]
    # The middleware parsed through response.selector, so the spider gets that parse.
    assert response._cached_selector is not None
    assert out.selector is response._cached_selector
    assert stats(mw) == {"boilerplate/overview/checked": 1, "boilerplate/overview/pages": 1}


def test_detection_time_is_counted(pages):
    mw = make_mw()
    for path in (OVERVIEW_PATH, ARTICLE_PATH):
        response = html_response(pages[path], path)
        mw.process_response(response.request, response)
    total = mw.crawler.stats.get_value("boilerplate/overview/seconds_total")
    most = mw.crawler.stats.get_value("boilerplate/overview/seconds_max")
    assert 0 < most < total < 5


def test_article_passes_unflagged(pages):
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="drop")
    response = html_response(pages[ARTICLE_PATH], ARTICLE_PATH)
    out = mw.process_response(response.request, response)
    assert out is response and out.flags == []
    assert stats(mw) == {"boilerplate/overview/checked": 1}


@pytest.mark.needs_shared("100 pages of both sets, overview and article")
def test_flags_agree_with_detect_overview_on_shared_pages():
    """On real pages of both shared sets, the middleware flags exactly what detect_overview calls an overview."""

    def wanted(page):
        return page.url and page.label in ("overview", "article")

    pages = load_shared_pages("overview-dev", 60, where=wanted) + load_shared_pages("wcxb-dev", 40, where=wanted)
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="flag")
    flagged = 0
    for page in pages:
        body = page.read_html()
        # The core decodes the bytes itself; the middleware reads Scrapy's decoding
        # (response.text). They must agree on these pages.
        verdict = detect_overview(body, url=page.url)
        response = HtmlResponse(page.url, body=body, request=Request(page.url))
        out = mw.process_response(response.request, response)
        assert ("overview" in out.flags) == verdict.is_overview, (page.id, verdict)
        flagged += verdict.is_overview
    assert 10 <= flagged <= len(pages) - 10, (len(pages), flagged)


# -- drop ------------------------------------------------------------------------------------------


def test_drop_raises_ignore_request_with_a_debug_line_and_a_stat(pages, caplog):
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="drop")
    response = html_response(pages[OVERVIEW_PATH], OVERVIEW_PATH)
    with caplog.at_level(logging.DEBUG, logger="scrapy_boilerplate"), pytest.raises(IgnoreRequest):
        mw.process_response(response.request, response)
    assert stats(mw)["boilerplate/overview/dropped"] == 1
    assert stats(mw)["boilerplate/overview/pages"] == 1
    [record] = [r for r in caplog.records if "Dropped overview page" in r.getMessage()]
    assert record.levelno == logging.DEBUG and SITE + OVERVIEW_PATH in record.getMessage()


def test_start_requests_are_flagged_not_dropped(pages):
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="drop")
    # Scrapy's StartSpiderMiddleware sets is_start_request on requests from Spider.start().
    response = html_response(pages["/"], "/", meta={"is_start_request": True})
    out = mw.process_response(response.request, response)
    assert out.flags == ["overview"]
    assert "boilerplate/overview/dropped" not in stats(mw)


@pytest.mark.parametrize(
    "settings, meta",
    [
        ({"BOILERPLATE_OVERVIEW_DROP_START": True}, {}),
        ({}, {"boilerplate_overview": True}),
    ],
)
def test_start_requests_dropped_when_asked(pages, settings, meta):
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="drop", **settings)
    response = html_response(pages["/"], "/", meta={"is_start_request": True, **meta})
    with pytest.raises(IgnoreRequest):
        mw.process_response(response.request, response)
    assert stats(mw)["boilerplate/overview/dropped"] == 1


# -- per-request meta ----------------------------------------------------------------------------


def test_meta_false_skips_detection(pages, caplog):
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="drop")
    response = html_response(pages[OVERVIEW_PATH], OVERVIEW_PATH, meta={"boilerplate_overview": False})
    with caplog.at_level(logging.DEBUG, logger="scrapy_boilerplate"):
        out = mw.process_response(response.request, response)
    assert out is response and out.flags == []
    assert response._cached_selector is None  # not even parsed
    assert stats(mw) == {"boilerplate/overview/skipped/meta": 1}
    assert "skipped by request meta" in caplog.text


def test_meta_true_judges_html_served_as_plain_text(pages):
    mw = make_mw()
    body = pages[OVERVIEW_PATH]
    plain = html_response(body, OVERVIEW_PATH, cls=TextResponse, headers={"Content-Type": "text/plain"})
    assert mw.process_response(plain.request, plain).flags == []
    assert stats(mw) == {"boilerplate/overview/skipped/non_html": 1}
    forced = html_response(
        body,
        OVERVIEW_PATH,
        cls=TextResponse,
        meta={"boilerplate_overview": True},
        headers={"Content-Type": "text/plain"},
    )
    assert mw.process_response(forced.request, forced).flags == ["overview"]


# -- pass-through: a crawl never stops because of detection ------------------------------------------


@pytest.mark.parametrize("status", [404, 500, 301])
def test_non_2xx_passes_untouched(pages, status):
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="drop")
    response = html_response(pages[OVERVIEW_PATH], OVERVIEW_PATH, status=status)
    assert mw.process_response(response.request, response) is response
    assert response.flags == [] and stats(mw) == {}


@pytest.mark.parametrize(
    "response",
    [
        JsonResponse(SITE + "/feed", body=b'{"items": []}', request=Request(SITE + "/feed")),
        Response(SITE + "/logo.png", body=b"\x89PNG\r\n\x1a\n" + bytes(200), request=Request(SITE + "/logo.png")),
    ],
    ids=["json", "binary"],
)
def test_non_html_passes_with_a_stat(response, caplog):
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="drop")
    with caplog.at_level(logging.DEBUG, logger="scrapy_boilerplate"):
        out = mw.process_response(response.request, response)
    assert out is response and out.flags == []
    assert stats(mw) == {"boilerplate/overview/skipped/non_html": 1}
    assert "not HTML" in caplog.text and response.url in caplog.text


def test_empty_body_passes_with_a_stat():
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="drop")
    response = html_response(b"")
    assert mw.process_response(response.request, response) is response
    assert stats(mw) == {"boilerplate/overview/skipped/empty": 1}


@pytest.mark.parametrize(
    "body",
    [b"   \n ", b"\x00\x01\xff\xfe" * 500, b"<html><body></body></html>", b"<frameset><frame src=a.html></frameset>"],
)
def test_bad_html_never_raises(body):
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="drop")
    response = html_response(body)
    out = mw.process_response(response.request, response)
    assert out is response and out.flags == []
    assert "boilerplate/overview/errors" not in stats(mw)


def test_body_over_max_size_passes_with_a_warning(pages, caplog):
    body = pages[OVERVIEW_PATH]
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="drop", BOILERPLATE_MAX_BODY_SIZE=len(body) - 1)
    response = html_response(body, OVERVIEW_PATH)
    with caplog.at_level(logging.DEBUG, logger="scrapy_boilerplate"):
        assert mw.process_response(response.request, response) is response
    assert response.flags == [] and response._cached_selector is None
    assert stats(mw) == {"boilerplate/overview/skipped/too_large": 1}
    [record] = caplog.records
    assert record.levelno == logging.WARNING and "BOILERPLATE_MAX_BODY_SIZE" in record.getMessage()
    # 0: no limit.
    mw = make_mw(BOILERPLATE_MAX_BODY_SIZE=0)
    response = html_response(body, OVERVIEW_PATH)
    assert mw.process_response(response.request, response).flags == ["overview"]


class FailingDetector(OverviewDetector):
    """Fault injection: a detector with a bug."""

    def detect_page(self, page, url=None):
        raise RuntimeError("bug in detection")


def test_error_inside_detection_passes_the_response_on(pages, caplog):
    mw = make_mw(BOILERPLATE_OVERVIEW_ACTION="drop")
    mw.detector = FailingDetector()
    response = html_response(pages[OVERVIEW_PATH], OVERVIEW_PATH)
    with caplog.at_level(logging.DEBUG, logger="scrapy_boilerplate"):
        assert mw.process_response(response.request, response) is response
    assert response.flags == []
    assert stats(mw) == {"boilerplate/overview/errors": 1}
    [record] = caplog.records
    assert record.levelno == logging.WARNING and record.exc_info[0] is RuntimeError
    assert response.url in record.getMessage()


# -- the spider middleware ----------------------------------------------------------------------


def make_sm(**settings) -> OverviewLinksOnlyMiddleware:
    return build_from_crawler(OverviewLinksOnlyMiddleware, make_crawler(**settings))


def callback_output(response):
    return [{"url": response.url}, Request(SITE + "/a.html"), {"url": "second"}, Request(SITE + "/b.html")]


def test_links_only_drops_items_of_flagged_responses_and_keeps_requests():
    sm = make_sm()
    flagged = html_response(b"<html></html>", "/news/")
    flagged.flags.append("overview")
    out = list(sm.process_spider_output(flagged, callback_output(flagged)))
    assert [r.url for r in out] == [SITE + "/a.html", SITE + "/b.html"]
    assert sm.crawler.stats.get_value("boilerplate/overview/items_dropped") == 2


def test_links_only_keeps_everything_of_other_responses():
    sm = make_sm(BOILERPLATE_OVERVIEW_ACTION="drop")
    response = html_response(b"<html></html>")
    output = callback_output(response)
    assert list(sm.process_spider_output(response, output)) == output
    assert sm.crawler.stats.get_value("boilerplate/overview/items_dropped") is None


def test_links_only_async_output():
    """Scrapy >= 2.16 calls process_spider_output_async for async callbacks."""
    sm = make_sm()
    flagged = html_response(b"<html></html>", "/news/")
    flagged.flags.append("overview")

    async def callback():
        for output in callback_output(flagged):
            yield output

    async def collect():
        return [o async for o in sm.process_spider_output_async(flagged, callback())]

    out = asyncio.run(collect())
    assert [r.url for r in out] == [SITE + "/a.html", SITE + "/b.html"]


def test_links_only_passes_start_items_and_errback_output():
    sm = make_sm()

    async def start():
        yield {"url": "from start"}
        yield Request(SITE + "/")

    async def collect():
        return [o async for o in sm.process_start(start())]

    assert len(asyncio.run(collect())) == 2
    # Errback output comes with a Failure instead of a response.
    from twisted.python.failure import Failure

    failure = Failure(IgnoreRequest("dropped"))
    assert list(sm.process_spider_output(failure, [{"url": "from errback"}])) == [{"url": "from errback"}]


def test_the_link_a_page_was_reached_by_is_evidence(pages):
    """BOILERPLATE_LINKS (and ArticleSpider) put the role of the link into meta: a page reached by
    a listing's next link is a listing, one reached by a content link an article (unless its own
    score is 0.9 or more)."""
    from scrapy_boilerplate import settings as bp

    mw = make_mw()
    article = html_response(pages[ARTICLE_PATH], ARTICLE_PATH, meta={bp.META_LINK_ROLE: "next"})
    assert mw.process_response(article.request, article).flags == ["overview"]
    listing = html_response(pages[OVERVIEW_PATH], OVERVIEW_PATH, meta={bp.META_LINK_ROLE: "content"})
    score = detect_overview(pages[OVERVIEW_PATH], url=SITE + OVERVIEW_PATH).score
    assert mw.process_response(listing.request, listing).flags == ([] if score < 0.9 else ["overview"])
    from scrapy_boilerplate.core.links.roles import reached_by

    verdict = OverviewDetector().detect(pages[OVERVIEW_PATH], url=SITE + OVERVIEW_PATH)
    low = type(verdict)(True, verdict.net_text_length, verdict.threshold, 0.6, "r")
    assert reached_by(low, "content").is_overview is False
    assert reached_by(low, "navigation") is low and reached_by(low, None) is low
    high = type(verdict)(True, verdict.net_text_length, verdict.threshold, 0.95, "r")
    assert reached_by(high, "content").is_overview is True
