"""Real crawls of a small site of real pages on 127.0.0.1, for each BOILERPLATE_OVERVIEW_ACTION.

The site and the spiders (a CrawlSpider with rules and a plain spider) are in
tests/support/overview_site.py; the crawls run together in one child process
(tests/support/overview_crawl.py), with Scrapy's default reactor, download handlers
and middlewares, OverviewMiddleware at 570 and OverviewLinksOnlyMiddleware at 800.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from overview_site import GZIPPED, REAL_PAGES, build_site, pages_are_cut, real_page, serve_site, shared_pages_missing

from scrapy_boilerplate import detect_overview

pytestmark = [pytest.mark.slow, *([] if pages_are_cut() else [pytest.mark.needs_shared])]

TESTS = Path(__file__).resolve().parents[1] / "support"  # the scripts run in child processes

ARTICLES = {
    "/2020/01/first-article.html",
    "/2020/01/second-article.html",
    "/2020/01/third-article.html",
    "/2020/02/fourth-article.html",
}
OVERVIEWS = {"/", "/news/", "/news/archive/"}
# Not judged (JSON, empty, over BOILERPLATE_MAX_BODY_SIZE): pass through, items kept.
PASSED_ON = {"/feed", "/empty.html", "/big.html"}
HOME_LINKS = 9
ONLY_VIA_NEWS = "/2020/02/fourth-article.html"

SPIDERS = ("plain", "crawl")
CRAWLS = {
    **{
        f"{action}-{spider}": {"spider": spider, "settings": {"BOILERPLATE_OVERVIEW_ACTION": action}}
        for action in ("follow", "drop", "flag", "off")
        for spider in SPIDERS
    },
    "drop-start-setting": {
        "spider": "plain",
        "settings": {"BOILERPLATE_OVERVIEW_ACTION": "drop", "BOILERPLATE_OVERVIEW_DROP_START": True},
    },
    "drop-start-meta": {
        "spider": "plain",
        "settings": {"BOILERPLATE_OVERVIEW_ACTION": "drop"},
        "kwargs": {"link_meta": json.dumps({"/": {"boilerplate_overview": True}})},
    },
    "drop-news-skipped": {
        "spider": "plain",
        "settings": {"BOILERPLATE_OVERVIEW_ACTION": "drop"},
        "kwargs": {"link_meta": json.dumps({"/news/": {"boilerplate_overview": False}})},
    },
    # The one-line activation instead of components listed by hand (the add-on also
    # brings MainContentPipeline).
    "addon-crawl": {
        "spider": "crawl",
        "settings": {
            "ADDONS": {"scrapy_boilerplate.Addon": 0},
            "DOWNLOADER_MIDDLEWARES": {},
            "SPIDER_MIDDLEWARES": {"overview_site.RecorderMiddleware": 5},
        },
    },
    # The verdict on each item's page in an item field (the add-on brings the pipeline that writes it).
    "field-flag": {
        "spider": "plain",
        "settings": {
            "ADDONS": {"scrapy_boilerplate.Addon": 0},
            "BOILERPLATE_OVERVIEW_ACTION": "flag",
            "BOILERPLATE_OVERVIEW_FIELD": "overview",
        },
    },
    "field-follow": {
        "spider": "crawl",
        "settings": {
            "ADDONS": {"scrapy_boilerplate.Addon": 0},
            "BOILERPLATE_OVERVIEW_FIELD": "overview",
        },
    },
}
# The same crawls judged (and with the add-on extracted) in worker processes.
PROCESS = {"BOILERPLATE_EXECUTOR": "process", "BOILERPLATE_EXECUTOR_WORKERS": 2}
PROCESS_CRAWLS = ("follow-crawl", "drop-plain", "flag-plain", "addon-crawl", "field-flag")
CRAWLS.update(
    {
        f"{name}-process": {**CRAWLS[name], "settings": {**CRAWLS[name]["settings"], **PROCESS}}
        for name in PROCESS_CRAWLS
    }
)


@pytest.fixture(scope="module")
def crawls():
    if reason := shared_pages_missing():
        pytest.skip(reason)
    with serve_site() as base_url:
        done = subprocess.run(
            [sys.executable, str(TESTS / "overview_crawl.py"), base_url, json.dumps(CRAWLS)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=TESTS,
        )
    assert done.returncode == 0, done.stderr[-5000:]
    results = json.loads(done.stdout)
    for name, result in results.items():
        result["base_url"] = base_url
        assert result["stats"].get("finish_reason") == "finished", (name, done.stderr[-5000:])
        # Neither the pages nor the middlewares may cost an error anywhere in the crawl.
        assert "log_count/ERROR" not in result["stats"], (name, done.stderr[-5000:])
    return results


class Outcome:
    """One crawl, with paths instead of URLs."""

    def __init__(self, result: dict):
        cut = len(result["base_url"])
        self.items = sorted(item["url"][cut:] for item in result["items"])
        self.responses = {r["url"][cut:]: r for r in result["responses"]}
        # The boilerplate/ counters; the timings are checked on their own.
        self.stats = {k: v for k, v in result["stats"].items() if k.startswith("boilerplate/") and "/seconds_" not in k}
        self.all_stats = result["stats"]
        self.log = result["log"]
        self.cut = cut

    def flagged(self) -> set:
        return {path for path, r in self.responses.items() if "overview" in r["flags"]}

    def requests_from(self, path: str) -> list:
        return [url[self.cut :] for url in self.responses[path]["requests"]]

    def items_from(self, path: str) -> list:
        return [url[self.cut :] for url in self.responses[path]["items"]]


def outcome(crawls, name) -> Outcome:
    return Outcome(crawls[name])


SKIPPED = {
    "boilerplate/overview/skipped/non_html": 1,
    "boilerplate/overview/skipped/empty": 1,
    "boilerplate/overview/skipped/too_large": 1,
}


def test_site_pages_are_clear_cut():
    """The crawls below rely on these verdicts; if the detector changes its mind, say which page."""
    if reason := shared_pages_missing():
        pytest.skip(reason)
    wrong = []
    for path, (page_id, is_overview) in REAL_PAGES.items():
        verdict = detect_overview(real_page(page_id), url="http://127.0.0.1:8000" + path)
        if verdict.is_overview != is_overview:
            wrong.append(f"{path} ({page_id}): expected overview={is_overview}, got {verdict}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("spider", SPIDERS)
def test_follow_keeps_links_drops_items_of_overview_pages(crawls, spider):
    o = outcome(crawls, f"follow-{spider}")
    assert o.items == sorted(ARTICLES | PASSED_ON)
    assert o.flagged() == OVERVIEWS
    for path in OVERVIEWS:
        assert o.items_from(path) == []
    # The overview pages' links were followed: all of the home page's, and the
    # article only the section page links to was crawled.
    assert len(o.requests_from("/")) == HOME_LINKS
    assert o.requests_from("/news/") == [ONLY_VIA_NEWS]
    assert ONLY_VIA_NEWS in o.responses
    assert o.stats == {
        "boilerplate/overview/checked": len(OVERVIEWS | ARTICLES),
        "boilerplate/overview/pages": len(OVERVIEWS),
        "boilerplate/overview/items_dropped": len(OVERVIEWS),
        **SKIPPED,
    }


@pytest.mark.parametrize("spider", SPIDERS)
def test_drop_ignores_overview_pages_but_the_start_page(crawls, spider):
    o = outcome(crawls, f"drop-{spider}")
    # The section page and the blog front page never reach the spider, so the
    # article only the section page links to is never found.
    assert o.items == sorted(ARTICLES - {ONLY_VIA_NEWS} | PASSED_ON)
    assert set(o.responses) == {"/", "/missing.html"} | ARTICLES - {ONLY_VIA_NEWS} | PASSED_ON
    # The start page is kept for its links, its items dropped as with "follow".
    assert o.flagged() == {"/"}
    assert o.items_from("/") == [] and len(o.requests_from("/")) == HOME_LINKS
    assert o.stats == {
        "boilerplate/overview/checked": 3 + 3,
        "boilerplate/overview/pages": 3,
        "boilerplate/overview/dropped": 2,
        "boilerplate/overview/items_dropped": 1,
        **SKIPPED,
    }
    dropped = sorted(msg for level, msg in o.log if msg.startswith("Dropped overview page"))
    assert len(dropped) == 2 and "/news/>" in dropped[0] and "/news/archive/>" in dropped[1]
    assert all(level == "DEBUG" for level, msg in o.log if msg.startswith("Dropped overview page"))


@pytest.mark.parametrize("spider", SPIDERS)
def test_flag_marks_overview_pages_and_keeps_everything(crawls, spider):
    o = outcome(crawls, f"flag-{spider}")
    assert o.items == sorted(ARTICLES | OVERVIEWS | PASSED_ON)
    assert o.flagged() == OVERVIEWS
    assert o.items_from("/news/") == ["/news/"]
    assert o.stats == {"boilerplate/overview/checked": 7, "boilerplate/overview/pages": 3, **SKIPPED}


@pytest.mark.parametrize("spider", SPIDERS)
def test_off_changes_nothing(crawls, spider):
    o = outcome(crawls, f"off-{spider}")
    assert o.items == sorted(ARTICLES | OVERVIEWS | PASSED_ON)
    assert o.flagged() == set() and o.stats == {} and o.log == []


@pytest.mark.parametrize("spider", SPIDERS)
def test_spider_reuses_the_middlewares_parse(crawls, spider):
    cut = len(crawls[f"flag-{spider}"]["base_url"])
    reused = {i["url"][cut:]: i["parse_reused"] for i in crawls[f"flag-{spider}"]["items"]}
    assert reused == {**{path: True for path in ARTICLES | OVERVIEWS}, **{path: False for path in PASSED_ON}}
    # Without the middleware, nothing is parsed before the callback.
    assert not any(i["parse_reused"] for i in crawls[f"off-{spider}"]["items"])


def test_addon_enables_follow(crawls):
    o = outcome(crawls, "addon-crawl")
    follow = outcome(crawls, "follow-crawl")
    assert o.items == follow.items == sorted(ARTICLES | PASSED_ON)
    assert o.flagged() == OVERVIEWS
    assert {k: v for k, v in o.stats.items() if k.startswith("boilerplate/overview/")} == follow.stats
    # The pipeline enriched the articles the overview middlewares let through.
    cut = len(crawls["addon-crawl"]["base_url"])
    assert all(item.get("main_text") for item in crawls["addon-crawl"]["items"] if item["url"][cut:] in ARTICLES)


@pytest.mark.parametrize("name", PROCESS_CRAWLS)
def test_process_executor_gives_the_inline_outcome(crawls, name):
    inline, process = outcome(crawls, name), outcome(crawls, f"{name}-process")
    assert process.items == inline.items and process.flagged() == inline.flagged()
    assert {path: r["items"] for path, r in process.responses.items()} == {
        path: r["items"] for path, r in inline.responses.items()
    }

    def counters(o):
        return {k: v for k, v in o.stats.items() if "seconds" not in k}

    assert counters(process) == counters(inline)
    # The same verdicts, scores and reasons (logged for each overview page).
    assert sorted(process.log) == sorted(inline.log)
    assert any("(score " in msg for _, msg in inline.log)

    def items(name):
        # The workers parsed the pages: the spider's parse is its own.
        return sorted(
            [{k: v for k, v in item.items() if k != "parse_reused"} for item in crawls[name]["items"]],
            key=lambda item: item["url"],
        )

    assert items(f"{name}-process") == items(name)
    assert not any(item["parse_reused"] for item in crawls[f"{name}-process"]["items"])
    if name.startswith("addon"):
        assert sum(bool(item.get("main_text")) for item in crawls[f"{name}-process"]["items"]) >= len(ARTICLES)


def test_crawl_sees_final_decompressed_pages(crawls):
    o = outcome(crawls, "follow-plain")
    # gzip-compressed pages were judged after HttpCompressionMiddleware: the
    # section page (gzip) is flagged, the first article (gzip) is not.
    assert o.all_stats["httpcompression/response_count"] == 2
    assert "/news/" in o.flagged() and "/2020/01/first-article.html" not in o.flagged()
    # The meta-refresh stub (/go/archive.html) went to MetaRefreshMiddleware first
    # and was never judged: "checked" counts only the 3 overview pages and 4 articles,
    # and the 301 target was judged as the article it is.
    assert "/go/archive.html" not in o.responses and "/news/archive/" in o.flagged()
    assert "/2020/01/third-article.html" in o.items


def test_detection_time_is_counted(crawls):
    stats = outcome(crawls, "follow-crawl").all_stats
    assert 0 < stats["boilerplate/overview/seconds_max"] < stats["boilerplate/overview/seconds_total"]


def test_too_large_page_is_logged(crawls):
    o = outcome(crawls, "drop-plain")
    [warning] = [msg for level, msg in o.log if level == "WARNING"]
    assert "BOILERPLATE_MAX_BODY_SIZE" in warning and "/big.html" in warning


@pytest.mark.parametrize("name", ["drop-start-setting", "drop-start-meta"])
def test_start_page_dropped_when_asked(crawls, name):
    o = outcome(crawls, name)
    assert o.items == [] and o.responses == {}
    assert o.stats == {
        "boilerplate/overview/checked": 1,
        "boilerplate/overview/pages": 1,
        "boilerplate/overview/dropped": 1,
    }
    assert o.all_stats["downloader/request_count"] == 1


def test_meta_false_skips_one_page(crawls):
    o = outcome(crawls, "drop-news-skipped")
    # /news/ was requested with boilerplate_overview=False: neither judged nor
    # dropped, so its item is kept and its article reached.
    assert "/news/" in o.items and ONLY_VIA_NEWS in o.items
    assert "/news/" not in o.flagged()
    assert o.stats["boilerplate/overview/skipped/meta"] == 1
    assert o.stats["boilerplate/overview/dropped"] == 1  # the blog front page still is


VERDICT_KEYS = {"is_overview", "net_text_length", "threshold", "score", "reason"}


@pytest.mark.parametrize("name", ["field-flag", "field-flag-process"])
def test_overview_field_holds_the_verdict_on_the_items_page(crawls, name):
    result = crawls[name]
    base_url = result["base_url"]
    cut = len(base_url)
    items = {item["url"][cut:]: item for item in result["items"]}
    assert set(items) == ARTICLES | OVERVIEWS | PASSED_ON
    site = build_site(base_url)
    for path in ARTICLES | OVERVIEWS:
        field = items[path]["overview"]
        assert set(field) == VERDICT_KEYS
        assert field["is_overview"] is (path in OVERVIEWS)
        # The verdict detect_overview() gives on the page as served (gunzipped), as a plain dict.
        body = site[path][2]
        if path in GZIPPED:
            body = gzip.decompress(body)
        assert field == detect_overview(body, url=base_url + path).to_dict()
    # Pages OverviewMiddleware did not judge (JSON, empty, over the size limit): None.
    assert all(items[path]["overview"] is None for path in PASSED_ON)
    # The rest of the item is as without the field.
    assert all(items[path].get("main_text") for path in ARTICLES)


def test_overview_field_with_follow_scores_the_items_that_remain(crawls):
    o = outcome(crawls, "field-follow")
    assert o.items == sorted(ARTICLES | PASSED_ON)
    cut = len(crawls["field-follow"]["base_url"])
    fields = {item["url"][cut:]: item["overview"] for item in crawls["field-follow"]["items"]}
    assert all(fields[path]["is_overview"] is False and 0 <= fields[path]["score"] <= 1 for path in ARTICLES)
