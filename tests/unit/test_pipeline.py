"""MainContentPipeline, ItemResponseMiddleware and ItemSources as Scrapy builds them (get_crawler).

The pages are the example project's own (always there); the crawls themselves are
in tests/crawl/test_crawl_pipeline.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import logging
import os
import threading
import time
import weakref

import attrs
import pytest
import scrapy
from pipeline_site import ARTICLES, site_file
from scrapy import Request, Spider, signals
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.http import HtmlResponse, JsonResponse, Response
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_boilerplate import Extractor, extract
from scrapy_boilerplate.crawl.worker_pool import WorkerPool
from scrapy_boilerplate.middlewares import ItemResponseMiddleware
from scrapy_boilerplate.pipelines import MainContentPipeline, item_sources

SITE = "http://127.0.0.1:8000"
ARTICLE = ARTICLES[0]
OTHER = ARTICLES[1]


def make_crawler(**settings):
    crawler = get_crawler(Spider, settings)
    crawler.spider = crawler._create_spider("test")  # what the engine does when the crawl starts
    return crawler


def response(path: str = ARTICLE, body: bytes | None = None, *, meta=None, cls=HtmlResponse, headers=None) -> Response:
    url = SITE + path
    return cls(
        url,
        body=site_file(path) if body is None else body,
        request=Request(url, meta=meta or {}),
        headers=headers or {"Content-Type": "text/html; charset=utf-8"},
    )


class Harness:
    """A pipeline and its middleware on one crawler; `run(items, response)` does what a
    crawl does: the middleware records the items, the pipeline processes them, and the
    scraper sends item_scraped."""

    def __init__(self, middleware: bool = True, **settings):
        if middleware:  # as the add-on lists it: the pipeline reads from the settings that it records
            settings.setdefault("SPIDER_MIDDLEWARES", {ItemResponseMiddleware: 10})
        self.crawler = make_crawler(**settings)
        self.pipeline = build_from_crawler(MainContentPipeline, self.crawler)
        self.middleware = build_from_crawler(ItemResponseMiddleware, self.crawler) if middleware else None

    def run(self, items: list, resp: Response | None = None) -> list:
        async def go():
            if self.middleware is not None:
                for item in items:
                    self.middleware.get_processed_item(item, resp)
            out = await asyncio.gather(*(self.pipeline.process_item(item) for item in items))
            for item in out:
                await self.crawler.signals.send_catch_log_async(
                    signals.item_scraped, item=item, response=resp, spider=self.crawler.spider
                )
            return out

        try:
            return asyncio.run(go())
        finally:
            self.close()

    def close(self) -> None:
        """What the end of a crawl does: close_spider, then spider_closed stops the workers."""
        self.pipeline.extractions.close()
        if self.pipeline.extractions.workers is not None:
            self.pipeline.extractions.workers.close()

    @property
    def stats(self) -> dict:
        return {
            k: v
            for k, v in self.crawler.stats.get_stats().items()
            if k.startswith("boilerplate/") and "_seconds_" not in k
        }


class PageItem(scrapy.Item):
    url = scrapy.Field()
    main_text = scrapy.Field()
    title = scrapy.Field()
    html = scrapy.Field()


@dataclasses.dataclass
class PageData:
    url: str
    main_text: str = ""
    html: str | None = None


@attrs.define
class PageAttrs:
    url: str
    main_text: str = ""


@dataclasses.dataclass(frozen=True)
class FrozenData:
    url: str
    main_text: str = ""


def expected_text(path: str = ARTICLE) -> str:
    return extract(response(path).selector, url=SITE + path).text


# -- configuration --------------------------------------------------------------------------


def test_disabled_means_not_configured():
    crawler = make_crawler(BOILERPLATE_ENABLED=False)
    for cls in (MainContentPipeline, ItemResponseMiddleware):
        with pytest.raises(NotConfigured):
            build_from_crawler(cls, crawler)


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"BOILERPLATE_EXECUTOR": "threads"}, "BOILERPLATE_EXECUTOR must be one of inline, thread, process"),
        ({"BOILERPLATE_FAVOR": "speed"}, "BOILERPLATE_FAVOR must be one of balanced, precision, recall"),
        ({"BOILERPLATE_MODEL": "/nonexistent/model.json"}, "model.json"),
    ],
)
def test_bad_settings_stop_the_crawl_before_it_starts(settings, message):
    with pytest.raises((ValueError, OSError)) as info:
        build_from_crawler(MainContentPipeline, make_crawler(**settings))
    assert message in str(info.value)


# -- items get the extraction of their response ---------------------------------------------


@pytest.mark.parametrize(
    "make_item",
    [
        lambda: {"url": "u"},
        lambda: PageItem(url="u"),
        lambda: PageData(url="u"),
        lambda: PageAttrs(url="u"),
    ],
    ids=["dict", "Item", "dataclass", "attrs"],
)
def test_every_item_type_gets_the_main_text(make_item):
    h = Harness()
    (item,) = h.run([make_item()], response())
    text = item["main_text"] if isinstance(item, dict | scrapy.Item) else item.main_text
    assert text == expected_text() and len(text) > 1000
    assert h.stats == {"boilerplate/pages_extracted": 1, "boilerplate/items_enriched": 1}


def test_all_output_fields():
    h = Harness(
        BOILERPLATE_TITLE_FIELD="headline",
        BOILERPLATE_MARKDOWN_FIELD="md",
        BOILERPLATE_CLEAN_HTML_FIELD="clean",
        BOILERPLATE_IMAGES_FIELD="images",
        BOILERPLATE_TEXT_FIELD="body",
    )
    (item,) = h.run([{}], response())
    ex = extract(response().selector, url=SITE + ARTICLE)
    assert item == {"body": ex.text, "headline": ex.title, "md": ex.markdown, "clean": ex.html, "images": ex.images}
    assert ex.images[0] == SITE + "/img/council-approves-riverside-park.jpg"


def test_extraction_options_come_from_settings():
    h = Harness(BOILERPLATE_INCLUDE_TITLE=True, BOILERPLATE_FAVOR="precision")
    (item,) = h.run([{}], response())
    assert (
        item["main_text"]
        == extract(response().selector, url=SITE + ARTICLE, include_title=True, favor="precision").text
    )
    assert item["main_text"].startswith("Council approves riverside park after three-year debate\n")


def test_many_items_from_one_response_are_extracted_once(monkeypatch):
    calls = []

    def counting(method):
        def extract(self, html, url=None, **options):
            calls.append(url)
            return method(self, html, url=url, **options)

        return extract

    monkeypatch.setattr(Extractor, "extract", counting(Extractor.extract))
    monkeypatch.setattr(Extractor, "extract_page", counting(Extractor.extract_page))
    h = Harness()
    resp = response()
    items = h.run([{"n": n} for n in range(5)], resp)
    assert calls == [resp.url]
    assert {item["main_text"] for item in items} == {expected_text()}
    assert h.stats == {"boilerplate/pages_extracted": 1, "boilerplate/items_enriched": 5}


def test_the_spiders_parse_is_reused():
    h = Harness()
    resp = response()
    selector = resp.selector  # the spider parsed the page
    h.run([{}], resp)
    assert resp.selector is selector


def test_items_of_two_responses_do_not_mix():
    h = Harness()
    a, b = response(ARTICLE), response(OTHER)
    h.run([{"n": 1}], a)
    (item,) = h.run([{"n": 2}], b)
    assert item["main_text"] == expected_text(OTHER) != expected_text(ARTICLE)


# -- what is not extracted ------------------------------------------------------------------


def test_meta_opt_out_leaves_the_item_untouched():
    h = Harness()
    (item,) = h.run([{"url": "u"}], response(meta={"boilerplate_extract": False}))
    assert item == {"url": "u"}
    assert h.stats == {"boilerplate/items_skipped": 1}


def test_non_html_response_gives_an_empty_field():
    h = Harness()
    resp = response(body=b'{"a": 1}', cls=JsonResponse, headers={"Content-Type": "application/json"})
    (item,) = h.run([{}], resp)
    assert item == {"main_text": ""}
    assert h.stats == {"boilerplate/items_not_html": 1}


def test_oversized_page_is_logged_and_counted_once(caplog):
    h = Harness(BOILERPLATE_MAX_BODY_SIZE=1000)
    with caplog.at_level(logging.WARNING, "scrapy_boilerplate"):
        items = h.run([{}, {}], response())
    assert items == [{"main_text": ""}, {"main_text": ""}]
    assert h.stats == {"boilerplate/body_too_large": 1}
    (record,) = caplog.records
    assert SITE + ARTICLE in record.getMessage() and "BOILERPLATE_MAX_BODY_SIZE=1000" in record.getMessage()


def test_max_body_size_zero_means_no_limit():
    h = Harness(BOILERPLATE_MAX_BODY_SIZE=0)
    (item,) = h.run([{}], response())
    assert item["main_text"] == expected_text()


def test_item_without_response_warns_once_when_the_middleware_is_missing(caplog):
    h = Harness(middleware=False)
    with caplog.at_level(logging.WARNING, "scrapy_boilerplate"):
        items = h.run([{}, {}, {}], response())
    assert items == [{"main_text": ""}] * 3
    assert h.stats == {"boilerplate/items_without_response": 3}
    (record,) = caplog.records
    assert "ItemResponseMiddleware" in record.getMessage()


def test_items_from_start_have_no_response_and_no_warning(caplog):
    h = Harness()
    with caplog.at_level(logging.WARNING, "scrapy_boilerplate"):
        (item,) = h.run([{}], None)
    assert item == {"main_text": ""} and not caplog.records
    assert h.stats == {"boilerplate/items_without_response": 1}


def test_non_items_pass_through():
    h = Harness()
    assert h.run(["a string"], response()) == ["a string"]
    assert h.stats == {}


# -- BOILERPLATE_HTML_FIELD -----------------------------------------------------------------


def test_html_field_is_used_instead_of_the_response():
    h = Harness(BOILERPLATE_HTML_FIELD="html")
    html = site_file(OTHER).decode()
    (item,) = h.run([{"html": html}], response(ARTICLE))
    assert item["main_text"] == extract(html, url=SITE + ARTICLE).text == expected_text(OTHER)
    assert item["html"] == html


@pytest.mark.parametrize(
    "make_item, left",
    [
        (lambda html: {"html": html}, lambda item: "html" not in item),
        (lambda html: PageItem(html=html), lambda item: "html" not in item),
        (lambda html: PageData(url="u", html=html), lambda item: item.html is None),
    ],
    ids=["dict", "Item", "dataclass"],
)
def test_html_field_removed_after_use(make_item, left):
    h = Harness(BOILERPLATE_HTML_FIELD="html", BOILERPLATE_HTML_FIELD_REMOVE=True)
    (item,) = h.run([make_item(site_file(OTHER))], None)
    assert left(item)
    text = item["main_text"] if isinstance(item, dict | scrapy.Item) else item.main_text
    assert text == extract(site_file(OTHER)).text and text


def test_empty_html_field_falls_back_to_the_response():
    h = Harness(BOILERPLATE_HTML_FIELD="html")
    (item,) = h.run([{"html": ""}], response())
    assert item["main_text"] == expected_text()


def test_html_field_of_another_type_is_ignored_with_a_warning(caplog):
    h = Harness(BOILERPLATE_HTML_FIELD="html")
    with caplog.at_level(logging.WARNING, "scrapy_boilerplate"):
        (item,) = h.run([{"html": 42}], response())
    assert item["main_text"] == expected_text()
    assert h.stats["boilerplate/html_field_invalid"] == 1
    assert "holds int" in caplog.records[0].getMessage()


# -- item classes without the field ---------------------------------------------------------


class BareItem(scrapy.Item):
    url = scrapy.Field()


def test_missing_field_gives_one_clear_error_not_a_keyerror_per_item(caplog):
    h = Harness(BOILERPLATE_TITLE_FIELD="title")
    with caplog.at_level(logging.ERROR, "scrapy_boilerplate"):
        items = h.run([BareItem(url=str(n)) for n in range(3)], response())
    assert [dict(item) for item in items] == [{"url": "0"}, {"url": "1"}, {"url": "2"}]
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2  # one per missing field, not per item
    assert all("BareItem" in m for m in messages)
    assert "'main_text'" in messages[0] and "BOILERPLATE_TEXT_FIELD" in messages[0]
    assert "'title'" in messages[1] and "BOILERPLATE_TITLE_FIELD" in messages[1]
    assert h.stats["boilerplate/field_missing"] == 3


def test_fields_the_class_has_are_still_written():
    h = Harness(BOILERPLATE_TITLE_FIELD="headline")
    (item,) = h.run([PageItem(url="u")], response())
    assert item["main_text"] == expected_text()


def test_frozen_dataclass_gives_one_error_and_the_item(caplog):
    h = Harness()
    with caplog.at_level(logging.ERROR, "scrapy_boilerplate"):
        items = h.run([FrozenData(url="a"), FrozenData(url="b")], response())
    assert items == [FrozenData(url="a"), FrozenData(url="b")]
    (record,) = caplog.records
    assert "FrozenData" in record.getMessage()
    assert h.stats["boilerplate/field_missing"] == 2


# -- failures -------------------------------------------------------------------------------


def broken_extract(self, html, url=None, **options):
    raise RuntimeError("bug")


@pytest.mark.parametrize("executor", ["inline", "thread"])
def test_a_failing_extraction_keeps_the_items(monkeypatch, caplog, executor):
    monkeypatch.setattr(Extractor, "extract", broken_extract)
    monkeypatch.setattr(Extractor, "extract_page", broken_extract)
    h = Harness(BOILERPLATE_EXECUTOR=executor)
    with caplog.at_level(logging.WARNING, "scrapy_boilerplate"):
        items = h.run([{"n": 1}, {"n": 2}], response())
    assert items == [{"n": 1, "main_text": ""}, {"n": 2, "main_text": ""}]
    assert h.stats == {"boilerplate/errors": 1}
    (record,) = caplog.records
    assert SITE + ARTICLE in record.getMessage() and "RuntimeError('bug')" in record.getMessage()


def test_a_bug_in_the_pipeline_itself_keeps_the_item(monkeypatch, caplog):
    h = Harness()
    monkeypatch.setattr(MainContentPipeline, "_outputs_for", lambda self, item: 1 / 0)
    with caplog.at_level(logging.ERROR, "scrapy_boilerplate"):
        (item,) = h.run([{"n": 1}], response())
    assert item == {"n": 1}
    assert h.stats == {"boilerplate/errors": 1}
    assert "goes on unchanged" in caplog.records[0].getMessage()


# -- executors ------------------------------------------------------------------------------


@pytest.mark.parametrize("executor", ["thread", "process"])
def test_executors_give_the_inline_result(executor):
    h = Harness(BOILERPLATE_EXECUTOR=executor, BOILERPLATE_EXECUTOR_WORKERS=2)
    responses = [response(path) for path in ARTICLES]
    for resp in responses[:2]:
        resp.selector  # noqa: B018 - parsed by the spider: "thread" reuses the tree
    items = []
    for resp in responses:
        items += h.run([{"n": 1}, {"n": 2}], resp)
    assert [item["main_text"] for item in items] == [expected_text(p) for p in ARTICLES for _ in (1, 2)]
    assert h.stats == {"boilerplate/pages_extracted": len(ARTICLES), "boilerplate/items_enriched": 2 * len(ARTICLES)}
    # close_spider shut the threads down, spider_closed the worker processes
    assert h.pipeline.extractions.pool is None and (
        h.pipeline.extractions.workers is None or h.pipeline.extractions.workers.pool is None
    )


def test_thread_executor_does_not_parse_in_the_reactor_thread():
    h = Harness(BOILERPLATE_EXECUTOR="thread")
    resp = response()
    (item,) = h.run([{}], resp)
    assert resp._cached_selector is None  # parsed in the worker thread instead
    assert item["main_text"] == expected_text()


@contextlib.contextmanager
def workers_die_on_marked_pages():
    """Worker tasks of pages holding "KILL-THE-WORKER" end their worker process (os._exit)."""
    original = WorkerPool.submit

    def submit(self, func, *args):
        if any(isinstance(arg, str) and "KILL-THE-WORKER" in arg for arg in args):
            return original(self, os._exit, 3)
        return original(self, func, *args)

    WorkerPool.submit = submit
    try:
        yield
    finally:
        WorkerPool.submit = original


def test_process_executor_recovers_from_a_dead_worker(caplog):
    """A worker that dies costs only its own page: the others are extracted beside it."""
    h = Harness(BOILERPLATE_EXECUTOR="process", BOILERPLATE_EXECUTOR_WORKERS=2)
    try:
        with workers_die_on_marked_pages():
            bad = response(OTHER, body=site_file(OTHER).replace(b"<body>", b"<body><!--KILL-THE-WORKER-->"))
            good = [response(path) for path in ARTICLES[2:]]
            with caplog.at_level(logging.WARNING, "scrapy_boilerplate"):

                async def go():
                    for resp in [bad, *good]:
                        h.middleware.get_processed_item(item := {"url": resp.url}, resp)
                        pending.append((item, h.pipeline.process_item(item)))
                    return await asyncio.gather(*(coro for _, coro in pending))

                pending: list = []
                items = asyncio.run(go())
    finally:
        h.close()
    assert items[0]["main_text"] == ""
    assert [item["main_text"] for item in items[1:]] == [expected_text(p) for p in ARTICLES[2:]]
    assert h.stats["boilerplate/errors"] == 1 and h.stats["boilerplate/workers/died"] == 1
    messages = [r.getMessage() for r in caplog.records]
    assert sum("worker process died" in m and bad.url in m for m in messages) == 1
    assert sum("extraction failed" in m for m in messages) == 1


def test_a_page_that_killed_its_worker_is_not_sent_again(caplog):
    """The second item of a page that killed its worker shares the first one's failure:
    no second worker is killed, one error for the page."""
    h = Harness(BOILERPLATE_EXECUTOR="process", BOILERPLATE_EXECUTOR_WORKERS=2)
    try:
        with workers_die_on_marked_pages():
            bad = response(OTHER, body=site_file(OTHER).replace(b"<body>", b"<body><!--KILL-THE-WORKER-->"))
            with caplog.at_level(logging.WARNING, "scrapy_boilerplate"):

                async def go(page):
                    out = []
                    for n in (1, 2):  # one after the other
                        h.middleware.get_processed_item(item := {"n": n}, page)
                        out.append(await h.pipeline.process_item(item))
                        await h.crawler.signals.send_catch_log_async(
                            signals.item_scraped, item=item, response=page, spider=h.crawler.spider
                        )
                    return out

                items = asyncio.run(go(bad))
        # The failure kept for the page's items does not keep the page alive.
        gone = weakref.ref(bad)
        del bad
        gc.collect()
        assert gone() is None
    finally:
        h.close()
    assert items == [{"n": 1, "main_text": ""}, {"n": 2, "main_text": ""}]
    assert h.stats == {"boilerplate/errors": 1, "boilerplate/workers/died": 1}
    messages = [r.getMessage() for r in caplog.records]
    assert sum("worker process died" in m for m in messages) == 1
    assert sum("extraction failed" in m for m in messages) == 1


def test_thread_executor_gives_up_a_page_that_does_not_come_back(caplog, monkeypatch):
    """A stuck thread cannot be stopped, but its items go on after BOILERPLATE_EXECUTOR_TIMEOUT."""
    release = threading.Event()
    original = Extractor.extract

    def stuck(self, html, url=None, **options):
        if url == SITE + OTHER:
            release.wait(60)
        return original(self, html, url=url, **options)

    monkeypatch.setattr(Extractor, "extract", stuck)  # the thread parses and extracts: extract()
    h = Harness(BOILERPLATE_EXECUTOR="thread", BOILERPLATE_EXECUTOR_TIMEOUT=0.5)
    try:
        with caplog.at_level(logging.WARNING, "scrapy_boilerplate"):
            start = time.monotonic()
            stuck_items = h.run([{"n": 1}, {"n": 2}], response(OTHER))
            waited = time.monotonic() - start
            (good,) = h.run([{}], response(ARTICLE))
    finally:
        release.set()
    assert stuck_items == [{"n": 1, "main_text": ""}, {"n": 2, "main_text": ""}] and waited < 5
    assert good["main_text"] == expected_text(ARTICLE)
    assert h.stats["boilerplate/workers/timeouts"] == 1 and h.stats["boilerplate/errors"] == 1
    messages = [r.getMessage() for r in caplog.records]
    assert sum("given up after BOILERPLATE_EXECUTOR_TIMEOUT" in m and OTHER in m for m in messages) == 1


@pytest.mark.parametrize("value", [-1, "soon", [1]])
def test_a_bad_executor_timeout_stops_the_crawl(value):
    with pytest.raises(ValueError, match="BOILERPLATE_EXECUTOR_TIMEOUT"):
        Harness(BOILERPLATE_EXECUTOR="thread", BOILERPLATE_EXECUTOR_TIMEOUT=value)


def test_spawned_worker_refuses_to_rerun_an_unguarded_crawl_script(monkeypatch):
    import multiprocessing

    monkeypatch.setattr(multiprocessing.current_process(), "_inheriting", True, raising=False)
    with pytest.raises(RuntimeError, match='if __name__ == "__main__"'):
        build_from_crawler(MainContentPipeline, make_crawler(BOILERPLATE_EXECUTOR="process"))
    build_from_crawler(MainContentPipeline, make_crawler())  # inline is fine


# -- ItemSources: nothing outlives the items ------------------------------------------------


def test_sources_are_cleared_by_the_final_signals():
    crawler = make_crawler()
    sources = item_sources(crawler)
    mw = build_from_crawler(ItemResponseMiddleware, crawler)
    resp = response()
    scraped, dropped, failed = {"n": 1}, {"n": 2}, {"n": 3}
    for item in (scraped, dropped, failed):
        mw.get_processed_item(item, resp)
    assert len(sources) == 3

    async def signal_all():
        send = crawler.signals.send_catch_log_async
        # An earlier pipeline replaced the first item by a copy: the copy is what is scraped.
        await send(signals.item_scraped, item=dict(scraped), response=resp, spider=crawler.spider)
        await send(signals.item_dropped, item=dropped, response=resp, spider=crawler.spider, exception=DropItem("x"))
        assert len(sources) == 2
        await send(signals.item_error, item=failed, response=resp, spider=crawler.spider, failure=None)

    asyncio.run(signal_all())
    assert len(sources) == 0 and not sources._pending


def test_sources_do_not_keep_responses_alive():
    crawler = make_crawler()
    mw = build_from_crawler(ItemResponseMiddleware, crawler)
    pipeline = build_from_crawler(MainContentPipeline, crawler)
    resp = response()
    ref = weakref.ref(resp)
    item = {}
    mw.get_processed_item(item, resp)
    asyncio.run(pipeline.process_item(item))
    asyncio.run(
        crawler.signals.send_catch_log_async(signals.item_scraped, item=item, response=resp, spider=crawler.spider)
    )
    del resp
    gc.collect()
    assert ref() is None


def test_items_from_a_failure_or_start_are_not_recorded():
    crawler = make_crawler()
    mw = build_from_crawler(ItemResponseMiddleware, crawler)
    mw.get_processed_item({}, None)
    mw.get_processed_item({}, object())  # an errback's Failure
    assert len(item_sources(crawler)) == 0


def test_sources_are_per_crawler():
    a, b = make_crawler(), make_crawler()
    assert item_sources(a) is item_sources(a) is not item_sources(b)


# -- one walk per response, shared with OverviewMiddleware (crawl/response_pages.py) ------------------------


def count_walks(monkeypatch) -> list:
    import scrapy_boilerplate.core.extractor as extractor_module
    import scrapy_boilerplate.crawl.response_pages as pages_module

    walks = []

    def counting(build):
        def build_page(root, **kwargs):
            walks.append(root)
            return build(root, **kwargs)

        return build_page

    monkeypatch.setattr(pages_module, "build_page", counting(pages_module.build_page))
    monkeypatch.setattr(extractor_module, "build_page", counting(extractor_module.build_page))
    return walks


@pytest.mark.parametrize("executor", ["inline", "thread"])
def test_a_walk_made_for_overview_detection_is_reused(monkeypatch, executor):
    from scrapy_boilerplate.crawl.response_pages import response_page

    walks = count_walks(monkeypatch)
    h = Harness(BOILERPLATE_EXECUTOR=executor)
    resp = response()
    response_page(resp)  # what OverviewMiddleware does with the response
    (item,) = h.run([{}], resp)
    assert len(walks) == 1
    assert item["main_text"] == expected_text()


def test_inline_extraction_walks_once_and_leaves_the_walk_for_others(monkeypatch):
    from scrapy_boilerplate.crawl.response_pages import cached_page

    walks = count_walks(monkeypatch)
    h = Harness()
    resp = response()
    h.run([{}, {}], resp)
    assert len(walks) == 1 and cached_page(resp) is not None


def test_comments_wanted_means_a_walk_of_its_own(monkeypatch):
    from scrapy_boilerplate.crawl.response_pages import response_page

    walks = count_walks(monkeypatch)
    h = Harness(BOILERPLATE_INCLUDE_COMMENTS=True)
    resp = response()
    response_page(resp)
    (item,) = h.run([{}], resp)
    assert len(walks) == 2
    assert item["main_text"] == extract(resp.selector, url=resp.url, include_comments=True).text
    assert "Who pays for the maintenance" in item["main_text"]  # a comment of the page
