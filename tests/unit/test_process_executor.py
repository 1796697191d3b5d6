"""BOILERPLATE_EXECUTOR = "process": OverviewMiddleware and MainContentPipeline on one crawler
(get_crawler), sharing real worker processes, on the example project's pages.

Each HTML response costs one worker task (crawl/tasks.judge_page) that judges the page
and extracts it; the pipeline takes that extraction instead of sending a task of its
own. Crawls in this mode are in tests/crawl/test_crawl_pipeline.py and tests/crawl/test_overview_crawl.py.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import logging
import operator
import os
import weakref

import pytest
from pipeline_site import ARTICLES, OVERVIEWS, site_file
from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, TextResponse
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_boilerplate import detect_overview, extract
from scrapy_boilerplate.crawl.config import crawl_settings, worker_config
from scrapy_boilerplate.crawl.tasks import judge_page
from scrapy_boilerplate.crawl.worker_pool import WorkerPool
from scrapy_boilerplate.crawl.workers import crawl_workers
from scrapy_boilerplate.middlewares import ItemResponseMiddleware, OverviewMiddleware
from scrapy_boilerplate.pipelines import MainContentPipeline

SITE = "http://127.0.0.1:8000"
PROCESS = {"BOILERPLATE_EXECUTOR": "process", "BOILERPLATE_EXECUTOR_WORKERS": 2}


def response(path: str, body: bytes | None = None, meta=None, cls=HtmlResponse, headers=None):
    url = SITE + path
    return cls(
        url,
        body=site_file(path) if body is None else body,
        request=Request(url, meta=meta or {}),
        headers=headers or {"Content-Type": "text/html; charset=utf-8"},
    )


class Crawl:
    """The components of a crawl on one crawler; `page(response, n)` does what Scrapy does
    with a downloaded response: the middleware's process_response (awaited when it
    returns a coroutine), then, unless the page was dropped or is an overview page
    (whose items OverviewLinksOnlyMiddleware drops), `n` items through the pipeline."""

    def __init__(self, pipeline: bool = True, **settings):
        # The components listed as the add-on lists them: what the workers do follows the settings.
        components = {"SPIDER_MIDDLEWARES": {ItemResponseMiddleware: 10}}
        if pipeline:
            components["ITEM_PIPELINES"] = {MainContentPipeline: 100}
        crawler = get_crawler(Spider, {**PROCESS, **components, **settings})
        crawler.spider = crawler._create_spider("test")
        self.crawler = crawler
        self.mw = build_from_crawler(OverviewMiddleware, crawler)
        self.pipeline = build_from_crawler(MainContentPipeline, crawler) if pipeline else None
        self.sources = build_from_crawler(ItemResponseMiddleware, crawler)
        self.tasks: list[str] = []  # the functions sent to the worker processes

    def page(self, resp, n: int = 2) -> tuple:
        async def go():
            out = self.mw.process_response(resp.request, resp)
            if inspect.isawaitable(out):
                out = await out
            if self.pipeline is None or "overview" in out.flags:
                return out, []
            items = [{"n": i} for i in range(n)]
            for item in items:
                self.sources.get_processed_item(item, out)
            return out, list(await asyncio.gather(*(self.pipeline.process_item(i) for i in items)))

        original = WorkerPool.submit

        def submit(pool, func, *args):
            self.tasks.append(getattr(args[0], "__name__", None) if func.__name__ == "in_worker" else func.__name__)
            return original(pool, func, *args)

        WorkerPool.submit = submit
        try:
            return asyncio.run(go())
        finally:
            WorkerPool.submit = original

    def close(self) -> None:
        if self.pipeline is not None:
            self.pipeline.extractions.close()
        self.mw.workers.close()  # what spider_closed does

    @property
    def stats(self) -> dict:
        return {
            k: v
            for k, v in self.crawler.stats.get_stats().items()
            if k.startswith("boilerplate/") and "seconds" not in k
        }


@pytest.fixture
def crawl():
    made = []

    def make(**kwargs) -> Crawl:
        made.append(Crawl(**kwargs))
        return made[-1]

    yield make
    for c in made:
        c.close()


def inline_text(path: str) -> str:
    return extract(response(path).selector, url=SITE + path).text


def test_one_worker_task_per_page_judges_and_extracts(crawl):
    c = crawl()
    assert c.mw.workers is c.pipeline.extractions.workers  # one pool for the crawl
    for path in ARTICLES:
        resp = response(path)
        out, items = c.page(resp)
        assert out is resp and out.flags == []
        assert [item["main_text"] for item in items] == [inline_text(path)] * 2
        # Parsed in the worker, not in the reactor thread.
        assert resp._cached_selector is None
    assert c.tasks == ["judge_page"] * len(ARTICLES)
    assert c.stats == {
        "boilerplate/overview/checked": len(ARTICLES),
        "boilerplate/pages_extracted": len(ARTICLES),
        "boilerplate/items_enriched": 2 * len(ARTICLES),
    }
    assert not c.mw.workers._extractions  # each taken by the pipeline
    seconds = c.crawler.stats.get_value
    assert 0 < seconds("boilerplate/overview/seconds_max") <= seconds("boilerplate/overview/seconds_total")
    assert 0 < seconds("boilerplate/extract_seconds_max") <= seconds("boilerplate/extract_seconds_total")


@pytest.mark.parametrize("action", ["follow", "drop", "flag"])
def test_verdicts_are_the_inline_ones_and_overviews_extracted_only_with_flag(crawl, action):
    c = crawl(BOILERPLATE_OVERVIEW_ACTION=action)
    inline = build_from_crawler(OverviewMiddleware, get_crawler(Spider, {"BOILERPLATE_OVERVIEW_ACTION": action}))
    for path in OVERVIEWS:
        assert detect_overview(site_file(path), url=SITE + path).is_overview  # the site's premise
        expected = response(path)
        meta = {"is_start_request": path == "/"}
        resp = response(path, meta=meta)
        if action == "drop" and path != "/":
            with pytest.raises(IgnoreRequest):
                c.page(resp)
            with pytest.raises(IgnoreRequest):
                inline.process_response(expected.request, expected)
        else:
            out, _ = c.page(resp)
            assert (
                out.flags
                == inline.process_response(response(path, meta=meta).request, response(path, meta=meta)).flags
                == ["overview"]
            )
        # An overview page's items are dropped with "follow" and "drop": nothing extracted for them.
        assert (resp in c.mw.workers._extractions) == (action == "flag")
    assert c.tasks == ["judge_page"] * len(OVERVIEWS)
    assert c.stats["boilerplate/overview/pages"] == len(OVERVIEWS)


def test_no_extraction_when_not_wanted(crawl):
    # The pipeline is off: the workers judge only.
    c = crawl(pipeline=False)
    resp = response(ARTICLES[0])
    c.page(resp)
    assert not c.mw.workers.extract_responses and not c.mw.workers._extractions
    # Items bring their own HTML: extraction is the pipeline's, from that HTML.
    c = crawl(BOILERPLATE_HTML_FIELD="html")
    c.page(resp := response(ARTICLES[0]), n=0)
    assert not c.mw.workers._extractions
    # meta boilerplate_extract False: the pipeline leaves the items alone.
    c = crawl()
    c.page(resp := response(ARTICLES[0], meta={"boilerplate_extract": False}), n=0)
    assert not c.mw.workers._extractions
    assert c.stats == {"boilerplate/overview/checked": 1}


def test_extraction_with_comments_walks_again_in_the_worker(crawl):
    c = crawl(BOILERPLATE_INCLUDE_COMMENTS=True)
    _, items = c.page(response(ARTICLES[0]), n=1)
    expected = extract(response(ARTICLES[0]).selector, url=SITE + ARTICLES[0], include_comments=True).text
    assert items[0]["main_text"] == expected and "Who pays for the maintenance" in expected
    assert c.tasks == ["judge_page"]


def test_forced_text_response_is_judged_in_the_worker(crawl):
    c = crawl()
    body = site_file(OVERVIEWS[1])
    forced = response(
        OVERVIEWS[1],
        body,
        meta={"boilerplate_overview": True},
        cls=TextResponse,
        headers={"Content-Type": "text/plain"},
    )
    out, _ = c.page(forced)
    assert out.flags == ["overview"]
    assert c.tasks == ["judge_page"]


def test_an_unused_extraction_goes_with_its_response(crawl):
    c = crawl(BOILERPLATE_OVERVIEW_ACTION="flag")
    resp = response(ARTICLES[0])
    c.page(resp, n=0)  # a response that yields no item
    assert len(c.mw.workers._extractions) == 1
    del resp
    gc.collect()
    assert len(c.mw.workers._extractions) == 0


@pytest.mark.parametrize("failure", ["exception", "dead worker"])
def test_a_failed_task_passes_the_response_on_and_the_item_still_arrives(crawl, monkeypatch, caplog, failure):
    c = crawl()
    body = site_file(ARTICLES[0]).replace(b"<body>", b"<body><!--FAIL-IN-THE-WORKER-->")
    original = WorkerPool.submit
    # In the worker: a ZeroDivisionError, or the worker's death.
    kill_or_raise = (operator.truediv, 1, 0) if failure == "exception" else (os._exit, 3)

    def submit(self, func, *args):
        # Only the middleware's task fails.
        if func is judge_page and "FAIL-IN-THE-WORKER" in args[0]:
            return original(self, *kill_or_raise)
        return original(self, func, *args)

    monkeypatch.setattr(WorkerPool, "submit", submit)
    resp = response(ARTICLES[0], body)
    with caplog.at_level(logging.WARNING, "scrapy_boilerplate"):
        out, items = c.page(resp)
    assert out is resp and out.flags == []
    assert c.stats["boilerplate/overview/errors"] == 1
    assert "boilerplate/overview/checked" not in c.stats
    [failed] = [r for r in caplog.records if "Overview detection failed" in r.getMessage()]
    assert failed.levelno == logging.WARNING and resp.url in failed.getMessage()
    deaths = [r for r in caplog.records if "worker process died" in r.getMessage()]
    if failure == "exception":
        # The item arrives, extracted by the pipeline's own task, as inline would extract it.
        expected = extract(response(ARTICLES[0], body).selector, url=resp.url).text
        assert [item["main_text"] for item in items] == [expected] * 2 and expected
        assert c.stats["boilerplate/pages_extracted"] == 1 and "boilerplate/errors" not in c.stats
        assert not deaths and failed.exc_info is not None
    else:
        # The page killed its worker: no other worker is risked on it, its items go on empty.
        assert [item["main_text"] for item in items] == ["", ""]
        assert c.stats["boilerplate/errors"] == 1 and c.stats["boilerplate/workers/died"] == 1
        assert "boilerplate/pages_extracted" not in c.stats
        assert len(deaths) == 1 and resp.url in deaths[0].getMessage()
        assert not failed.exc_info  # the death is the log line that says why
        assert c.tasks == ["judge_page"]
    # The crawl goes on: the next page is judged and extracted in one task.
    c.tasks.clear()
    out, items = c.page(response(ARTICLES[1]))
    assert c.tasks == ["judge_page"] and items[0]["main_text"] == inline_text(ARTICLES[1])


def test_workers_that_keep_dying_are_given_up(crawl, monkeypatch, caplog):
    c = crawl()
    original = WorkerPool.submit
    monkeypatch.setattr(WorkerPool, "submit", lambda self, func, *args: original(self, os._exit, 3))
    pages = (ARTICLES * 2)[:5]
    with caplog.at_level(logging.WARNING, "scrapy_boilerplate"):
        for path in pages:
            out, items = c.page(resp := response(path), n=1)
            assert out is resp and items[0]["main_text"] == ""
    assert c.stats["boilerplate/workers/died"] == 5
    assert c.mw.workers.given_up and c.mw.workers.pool is None
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and "died 5 times in a row" in errors[0].getMessage()
    # From then on, no task is sent: responses pass unjudged, items go on with empty fields.
    c.tasks.clear()
    out, items = c.page(response(ARTICLES[3]), n=1)
    assert c.tasks == [] and out.flags == [] and items[0]["main_text"] == ""


def test_thread_and_inline_do_not_start_workers():
    for executor in ("inline", "thread"):
        crawler = get_crawler(Spider, {"BOILERPLATE_EXECUTOR": executor})
        assert build_from_crawler(OverviewMiddleware, crawler).workers is None
        assert build_from_crawler(MainContentPipeline, crawler).extractions.workers is None


def test_process_with_overview_off_still_extracts_in_workers(crawl):
    with pytest.raises(NotConfigured):
        Crawl(BOILERPLATE_OVERVIEW_ACTION="off")
    settings = {"SPIDER_MIDDLEWARES": {ItemResponseMiddleware: 10}, "BOILERPLATE_OVERVIEW_ACTION": "off"}
    crawler = get_crawler(Spider, {**PROCESS, **settings})
    crawler.spider = crawler._create_spider("test")
    pipeline = build_from_crawler(MainContentPipeline, crawler)
    sources = build_from_crawler(ItemResponseMiddleware, crawler)
    resp = response(ARTICLES[0])
    item = {}
    sources.get_processed_item(item, resp)
    try:
        asyncio.run(pipeline.process_item(item))
    finally:
        pipeline.extractions.workers.close()
    assert item["main_text"] == inline_text(ARTICLES[0])
    assert not pipeline.extractions.workers.config.judges  # the workers judge no page


def test_the_workers_take_their_config_from_the_settings_read_once():
    """What the workers do is the crawler's WorkerConfig (read once), whichever component asks
    first and whether or not the others were built yet."""
    settings = {
        **PROCESS,
        "ITEM_PIPELINES": {"scrapy_boilerplate.pipelines.MainContentPipeline": 100},
        "BOILERPLATE_MARKDOWN_FIELD": "md",
        "BOILERPLATE_HTML_FIELD": "html",
        "BOILERPLATE_FAVOR": "recall",
    }
    crawler = get_crawler(Spider, settings)
    crawler.spider = crawler._create_spider("test")
    workers = crawl_workers(crawler)  # before any component
    assert workers.config is worker_config(crawler)
    try:
        config, templates = workers._worker_args(None)
        assert config.settings is crawl_settings(crawler) and config.settings.favor == "recall"
        assert config.judges and config.markup and not config.metadata and templates is None
        assert not workers.extract_responses  # items bring their own HTML: the pipeline extracts that
        assert (workers.config.workers, workers.config.timeout) == (2, 30)
        assert build_from_crawler(OverviewMiddleware, crawler).workers is workers
        assert build_from_crawler(MainContentPipeline, crawler).extractions.workers is workers
    finally:
        workers.close()
    # The overview action "off": the workers judge no page; no pipeline listed: the middleware's
    # tasks extract for nobody, so they do not extract.
    crawler = get_crawler(Spider, {**PROCESS, "BOILERPLATE_OVERVIEW_ACTION": "off"})
    workers = crawl_workers(crawler)
    assert not workers.config.judges and not workers.extract_responses


def test_the_workers_registry_does_not_keep_the_crawler_alive():
    crawler = get_crawler(Spider, PROCESS)
    assert crawl_workers(crawler) is crawl_workers(crawler)
    ref = weakref.ref(crawler)
    del crawler
    gc.collect()
    assert ref() is None and len(crawl_workers) == 0


def test_a_failing_pool_is_replaced_then_the_crawl_goes_on_inline(crawl, monkeypatch, caplog):
    """A pool whose supervisor fails (out of descriptors, say) fails its pending pages with
    PoolBroken: their items go on with empty fields, a new pool takes its place; when that
    one fails too, pages are judged and extracted in the crawl process."""
    c = crawl()

    def fail(self):
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(WorkerPool, "_dispatch", fail)
    with caplog.at_level(logging.WARNING, "scrapy_boilerplate"):
        for path in ARTICLES[:2]:
            out, items = c.page(resp := response(path), n=1)
            assert out is resp and items[0]["main_text"] == ""
        out, items = c.page(response(ARTICLES[2]), n=1)
    assert items[0]["main_text"] == inline_text(ARTICLES[2]) != ""
    assert c.mw.workers.inline and c.mw.workers.pool is None
    assert c.stats["boilerplate/workers/pools_broken"] == 2
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 2 and all("Too many open files" in e for e in errors)
    assert "a new pool" in errors[0] and "in the crawl process" in errors[1]
