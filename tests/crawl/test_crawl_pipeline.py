"""Real crawls with MainContentPipeline: a loopback site of the example project's pages and
real pages from ../shared/datasets (tests/support/pipeline_site.py), crawled in one child process
(tests/support/pipeline_crawl.py) with Scrapy's default reactor, download handlers and middlewares.

Every crawl's items are checked against what ``extract()`` gives for the same page.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pipeline_site import ARTICLES, BIG, FAIL, FEED, GZ, MAX_BODY_SIZE, OVERVIEWS, REAL_COUNT, build_routes, real_pages
from scrapy.http import HtmlResponse
from server import LoopbackServer

from scrapy_boilerplate import extract

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parents[1] / "support"  # the scripts run in child processes

ADDON = {"ADDONS": {"scrapy_boilerplate.Addon": 0}, "BOILERPLATE_MAX_BODY_SIZE": MAX_BODY_SIZE}
ALL_FIELDS = {
    "BOILERPLATE_TITLE_FIELD": "headline",
    "BOILERPLATE_MARKDOWN_FIELD": "markdown",
    "BOILERPLATE_CLEAN_HTML_FIELD": "clean_html",
    "BOILERPLATE_IMAGES_FIELD": "images",
}
BY_HAND = {
    "DOWNLOADER_MIDDLEWARES": {"scrapy_boilerplate.OverviewMiddleware": 570},
    "SPIDER_MIDDLEWARES": {
        "scrapy_boilerplate.OverviewLinksOnlyMiddleware": 100,
        "scrapy_boilerplate.ItemResponseMiddleware": 10,
    },
    "ITEM_PIPELINES": {"scrapy_boilerplate.MainContentPipeline": 100},
    "BOILERPLATE_MAX_BODY_SIZE": MAX_BODY_SIZE,
}
TYPED = ("dict", "item", "dataclass", "attrs")


def crawl_specs(jobdir: Path) -> dict:
    specs = {kind: {"settings": {**ADDON, **ALL_FIELDS}, "kwargs": {"item_type": kind}} for kind in TYPED}
    specs.update(
        {
            "inline": {"settings": ADDON},
            "thread": {"settings": {**ADDON, "BOILERPLATE_EXECUTOR": "thread"}},
            "process": {"settings": {**ADDON, "BOILERPLATE_EXECUTOR": "process", "BOILERPLATE_EXECUTOR_WORKERS": 2}},
            "by-hand": {"settings": BY_HAND},
            "jobdir": {"settings": {**ADDON, "JOBDIR": str(jobdir)}},
            "html-field": {
                "settings": {**ADDON, "BOILERPLATE_HTML_FIELD": "html", "BOILERPLATE_HTML_FIELD_REMOVE": True},
                "kwargs": {"store_html": True},
            },
            "drops": {
                "settings": {
                    **ADDON,
                    "ITEM_PIPELINES": {"pipeline_site.DropSecondPipeline": 50, "pipeline_site.FailThirdPipeline": 60},
                },
                "kwargs": {"per_page": 3},
            },
            "bare": {"settings": ADDON, "kwargs": {"item_type": "bare"}},
            "metadata": {
                "settings": {**ADDON, "BOILERPLATE_METADATA_FIELDS": True, "BOILERPLATE_AUTHORS_FIELD": "byline"}
            },
            "metadata-process": {
                "settings": {
                    **ADDON,
                    "BOILERPLATE_METADATA_FIELDS": True,
                    "BOILERPLATE_EXECUTOR": "process",
                    "BOILERPLATE_EXECUTOR_WORKERS": 1,
                }
            },
            "disabled": {"settings": {**ADDON, "BOILERPLATE_ENABLED": False}},
        }
    )
    return specs


@pytest.fixture(scope="module")
def site():
    routes = build_routes()
    with LoopbackServer(routes) as server:
        yield server, routes


@pytest.fixture(scope="module")
def crawls(site, tmp_path_factory):
    server, _ = site
    specs = crawl_specs(tmp_path_factory.mktemp("jobdir"))
    output = tmp_path_factory.mktemp("crawls") / "crawls.json"
    done = subprocess.run(
        [sys.executable, str(TESTS / "pipeline_crawl.py"), server.url(""), json.dumps(specs), str(output)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=TESTS,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    results = json.loads(output.read_text(encoding="utf-8"))
    assert set(results) == set(specs)
    for name, result in results.items():
        assert result["stats"].get("finish_reason") == "finished", (name, done.stderr[-3000:])
        # Whatever happened to the items, nothing is left in the item -> response registry.
        assert result["left_in_sources"] == 0, name
    return results


@pytest.fixture(scope="module")
def expected(site):
    """path -> (Extraction from Scrapy's parse of the page, Extraction from its raw bytes)."""
    server, routes = site
    out = {}
    for path in ARTICLES + list(real_pages()) + [GZ]:
        body, headers = (
            (routes[path], {"Content-Type": "text/html; charset=utf-8"})
            if isinstance(routes[path], bytes)
            else routes[path]
        )
        if headers.get("Content-Encoding") == "gzip":
            body, headers = gzip.decompress(body), {"Content-Type": headers["Content-Type"]}
        url = server.url(path)
        response = HtmlResponse(url, body=body, headers=headers)
        out[path] = (extract(response.selector, url=url), extract(body, url=url))
    return out


def path_of(item: dict, server) -> str:
    return item["url"][len(server.url("")) :]


def items_by_path(result: dict, server) -> dict:
    out: dict = {}
    for item in result["items"]:
        out.setdefault(path_of(item, server), []).append(item)
    return out


@pytest.mark.parametrize("name", [*TYPED, "thread", "process", "by-hand", "jobdir"])
def test_main_text_is_what_extract_gives(crawls, site, expected, name):
    server, _ = site
    by_path = items_by_path(crawls[name], server)
    for path, (from_parse, from_bytes) in expected.items():
        items = by_path.get(path)
        if not items:
            # Only pages judged to be overviews lose their items.
            assert crawls[name]["stats"].get("boilerplate/overview/items_dropped"), (name, path)
            continue
        assert len(items) == 2, (name, path)
        for item in items:
            assert item["main_text"] == from_parse.text, (name, path)
        if path in ARTICLES:
            # Our pages declare their charset: the raw bytes give the very same text.
            assert item["main_text"] == from_bytes.text, (name, path)
            assert len(item["main_text"]) > 1000, (name, path)
    assert all(p in by_path for p in ARTICLES + [GZ]), name


METADATA = ("date_published", "date_modified", "language", "site_name", "canonical_url", "description", "image")


@pytest.mark.parametrize("name", ["metadata", "metadata-process"])
def test_article_metadata_fields_are_written(crawls, site, expected, name):
    """BOILERPLATE_METADATA_FIELDS: every item gets the page's metadata, as extract() gives it;
    the real pages (when the datasets are there) have authors and dates to give."""
    server, _ = site
    by_path = items_by_path(crawls[name], server)
    authors_field = "byline" if name == "metadata" else "authors"
    found = {"authors": 0, "date_published": 0}
    for path, (from_parse, _) in expected.items():
        for item in by_path.get(path, []):
            assert item[authors_field] == from_parse.authors, (name, path)
            for attr in METADATA:
                assert item[attr] == getattr(from_parse, attr), (name, path, attr)
            found["authors"] += bool(item[authors_field])
            found["date_published"] += bool(item["date_published"])
            assert item["language"] == "en", (name, path)
    if real_pages():
        assert found["authors"] >= REAL_COUNT and found["date_published"] >= REAL_COUNT, found


@pytest.mark.parametrize("name", TYPED)
def test_every_configured_field_is_written(crawls, site, expected, name):
    server, _ = site
    by_path = items_by_path(crawls[name], server)
    for path in ARTICLES:
        from_parse, _ = expected[path]
        for item in by_path[path]:
            assert (
                item["class"]
                == {"dict": "dict", "item": "PageItem", "dataclass": "PageData", "attrs": "PageAttrs"}[name]
            )
            assert item["headline"] == from_parse.title
            assert item["markdown"] == from_parse.markdown
            assert item["clean_html"] == from_parse.html
            assert item["images"] == from_parse.images
            assert item["images"] and item["images"][0].startswith(server.url("/img/"))


@pytest.mark.parametrize("name", [*TYPED, "thread", "process", "by-hand", "jobdir", "drops"])
def test_no_item_from_overview_pages(crawls, site, name):
    server, _ = site
    paths = {path_of(item, server) for item in crawls[name]["items"]}
    assert not paths & set(OVERVIEWS + ["/real/"]), name
    assert crawls[name]["stats"]["boilerplate/overview/items_dropped"] >= 2 * len(OVERVIEWS)


@pytest.mark.parametrize("name", [*TYPED, "thread", "process", "by-hand", "jobdir"])
def test_each_response_is_extracted_once(crawls, site, name):
    server, _ = site
    result = crawls[name]
    pages = {path_of(item, server) for item in result["items"]} - {FAIL, BIG, FEED}
    stats = result["stats"]
    assert stats["boilerplate/pages_extracted"] == len(pages), name
    assert stats["boilerplate/items_enriched"] == 2 * len(pages), name
    assert stats["boilerplate/extract_seconds_total"] > 0
    assert 0 < stats["boilerplate/extract_seconds_max"] <= stats["boilerplate/extract_seconds_total"]


@pytest.mark.parametrize("name", [*TYPED, "thread", "process", "by-hand", "jobdir"])
def test_a_failing_page_still_gives_its_items(crawls, site, name):
    server, _ = site
    result = crawls[name]
    failed = items_by_path(result, server)[FAIL]
    assert len(failed) == 2 and all(item["main_text"] == "" for item in failed)
    assert result["stats"]["boilerplate/errors"] == 1
    warnings = [m for level, m in result["log"] if level == "WARNING" and "extraction failed" in m]
    assert len(warnings) == 1 and server.url(FAIL) in warnings[0], result["log"]
    if name == "process":
        # The worker died; new workers took over, and the later pages were extracted.
        assert sum("worker process died" in m for _, m in result["log"]) == 1
        assert result["stats"]["boilerplate/workers/died"] == 1


@pytest.mark.parametrize("name", ["dict", "process"])
def test_oversized_and_non_html_pages_pass_through(crawls, site, name):
    server, _ = site
    result = crawls[name]
    by_path = items_by_path(result, server)
    assert [item["main_text"] for item in by_path[BIG]] == ["", ""]
    assert [item["main_text"] for item in by_path[FEED]] == ["", ""]
    assert result["stats"]["boilerplate/body_too_large"] == 1
    assert result["stats"]["boilerplate/items_not_html"] == 2
    assert any(
        level == "WARNING" and "BOILERPLATE_MAX_BODY_SIZE" in m and server.url(BIG) in m for level, m in result["log"]
    )


def errors(result: dict) -> list:
    # Not the log_count/ERROR stat: it counts the records of every crawl in the process.
    return [message for level, message in result["log"] if level in ("ERROR", "CRITICAL")]


def test_process_gives_what_inline_gives(crawls, site):
    """The same crawl with "inline" and "process" (one worker task per page: overview
    detection and extraction): the same items, the same main_text, the same verdicts."""
    server, _ = site
    inline, process = crawls["inline"], crawls["process"]

    def texts(result):
        return sorted((path_of(item, server), item["n"], item["main_text"]) for item in result["items"])

    assert texts(process) == texts(inline)
    # Not a trivially empty crawl: every page of our own site gave items (the real pages:
    # the next test).
    assert set(ARTICLES + [GZ]) <= {path for path, _, _ in texts(inline)}
    same = (
        "boilerplate/overview/pages",
        "boilerplate/overview/items_dropped",
        "boilerplate/pages_extracted",
        "boilerplate/items_enriched",
        "boilerplate/errors",
    )
    assert {k: process["stats"].get(k) for k in same} == {k: inline["stats"].get(k) for k in same}
    # But for FAIL, which kills its worker in "process" (the response is passed on unjudged,
    # its items go on with an empty text) and fails extraction only inline.
    assert process["stats"]["boilerplate/overview/checked"] == inline["stats"]["boilerplate/overview/checked"] - 1
    assert process["stats"]["boilerplate/overview/errors"] == 1
    assert "boilerplate/overview/errors" not in inline["stats"]
    failed = [m for level, m in process["log"] if level == "WARNING" and "Overview detection failed" in m]
    assert len(failed) == 1 and server.url(FAIL) in failed[0]


@pytest.mark.needs_shared
def test_real_pages_are_crawled_too(crawls, site):
    """With ../shared/datasets beside the checkout, the site serves real wcxb-dev articles too:
    each gives an item with main text, the same in "inline" and "process"."""
    server, _ = site
    reals = set(real_pages())
    assert len(reals) == REAL_COUNT
    for name in ("inline", "process"):
        texts = {
            path_of(item, server): item["main_text"] for item in crawls[name]["items"] if path_of(item, server) in reals
        }
        assert set(texts) == reals and sum(bool(text) for text in texts.values()) >= REAL_COUNT - 1


def test_jobdir_requests_stay_picklable(crawls):
    stats = crawls["jobdir"]["stats"]
    assert stats["scheduler/enqueued/disk"] > 10
    assert "scheduler/unserializable" not in stats
    assert not errors(crawls["jobdir"])


def test_html_field_is_used_and_removed(crawls, site, expected):
    server, _routes = site
    result = crawls["html-field"]
    by_path = items_by_path(result, server)
    for path in ARTICLES:
        for item in by_path[path]:
            assert "html" not in item
            # The spider stored response.text: the same page as the crawl's parse.
            assert item["main_text"] == expected[path][0].text
    # One extraction per item here: each item brings its own HTML.
    html_items = [i for i in result["items"] if path_of(i, server) not in (FAIL, BIG, FEED)]
    assert result["stats"]["boilerplate/pages_extracted"] == len(html_items)


def test_dropped_and_failed_items_leave_nothing_behind(crawls, site):
    server, _ = site
    result = crawls["drops"]
    assert {item["n"] for item in result["items"]} == {0}
    stats = result["stats"]
    pages = {path_of(item, server) for item in result["items"]} - {FAIL, BIG, FEED}
    assert stats["item_dropped_count"] == stats["item_scraped_count"]
    assert stats["boilerplate/items_enriched"] == len(pages)
    # FailThirdPipeline's errors, one per page
    assert len(errors(result)) == stats["item_scraped_count"]
    assert all(m.startswith("Error processing") for m in errors(result))


def test_an_item_class_without_the_field_gives_one_clear_error(crawls):
    result = crawls["bare"]
    found = errors(result)
    assert len(found) == 1, found
    assert "BareItem" in found[0] and "'main_text'" in found[0] and "BOILERPLATE_TEXT_FIELD" in found[0]
    assert result["stats"]["boilerplate/field_missing"] == len(result["items"]) > 10
    assert all(set(item) == {"class", "url", "n"} for item in result["items"])


def test_disabled(crawls):
    result = crawls["disabled"]
    assert result["items"] and not any("main_text" in item for item in result["items"])
    assert not [k for k in result["stats"] if k.startswith("boilerplate/")]


def test_no_errors_in_plain_crawls(crawls):
    for name in [*TYPED, "thread", "process", "by-hand", "jobdir", "html-field"]:
        assert not errors(crawls[name]), (name, errors(crawls[name]))
