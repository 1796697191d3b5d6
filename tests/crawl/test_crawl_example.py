"""The example project, crawled as the README says (``scrapy crawl articles``), in a child process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pipeline_site import ARTICLES, OVERVIEWS, site_file
from scrapy.http import HtmlResponse
from server import LoopbackServer

from scrapy_boilerplate import extract

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parents[2] / "example_project"
# Boilerplate on every article page of the example site, that must not reach main_text.
BOILERPLATE = [
    "We use cookies",  # cookie banner
    "Subscribe",
    "What's on",  # navigation
    "Related articles",  # related links
    "Log in to comment",
    "comments",  # comment section
    "The morning briefing",  # newsletter box
    "Share this article",  # share bar
    "All rights reserved",  # footer
    "Most read",  # sidebar
    "Valley Garden Centre",  # sidebar ad
]


def crawl(tmp_path: Path, *args: str) -> list[dict]:
    exe = Path(sys.executable).with_name("scrapy")
    command = [str(exe)] if exe.exists() else [shutil.which("scrapy") or "scrapy"]
    out = tmp_path / "articles.jsonl"
    done = subprocess.run(
        [*command, "crawl", "articles", "-O", str(out), *args], cwd=PROJECT, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ERROR" not in done.stderr, done.stderr[-3000:]
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def items(tmp_path_factory):
    return crawl(tmp_path_factory.mktemp("example"))


def path_of(url: str) -> str:
    return "/" + url.split("/", 3)[3]


def test_one_item_per_article_and_none_from_home_or_sections(items):
    assert sorted(path_of(item["url"]) for item in items) == sorted(ARTICLES)
    assert not {path_of(item["url"]) for item in items} & set(OVERVIEWS)


def test_items_carry_the_clean_text_of_their_page(items):
    for item in items:
        path = path_of(item["url"])
        page = HtmlResponse(item["url"], body=site_file(path))
        assert item["main_text"] == extract(page.selector, url=item["url"]).text
        assert item["title"] and item["title"] in page.css("title::text").get()
        assert len(item["main_text"]) > 1500
        for snippet in BOILERPLATE:
            assert snippet not in item["main_text"], (path, snippet)
        # The last paragraph of the story is there.
        last = page.css("article.story > p:not(.article-tags)::text").getall()[-1]
        assert last in item["main_text"], path


def test_in_article_ad_label_and_byline_are_left_out(items):
    for item in items:
        text = item["main_text"]
        assert "Advertisement" not in text
        assert "\nBy " not in text and not text.startswith("By ")


def test_in_article_ads_and_topics_line_are_left_out(items):
    for item in items:
        text = item["main_text"]
        assert "Riverside Motors" not in text and "Courier Plus" not in text
        assert "Topics:" not in text


def test_start_url_crawls_another_site(tmp_path):
    # Any site works: here the same pages, served by the test instead of the project.
    routes = {path: site_file(path) for path in OVERVIEWS + ARTICLES}
    with LoopbackServer(routes) as server:
        items = crawl(tmp_path, "-a", f"start_url={server.url('/news/')}")
        requested = set(server.requests)
    assert {path_of(item["url"]) for item in items} == set(ARTICLES)
    assert all(item["url"].startswith(server.url("/")) for item in items)
    assert "/news/" in requested and "/" in requested  # reached through the site's own links


def run_crawl(*args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("scrapy")
    command = [str(exe)] if exe.exists() else [shutil.which("scrapy") or "scrapy"]
    return subprocess.run(
        [*command, "crawl", "articles", "-s", "FEEDS={}", *args],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("BOILERPLATE_EXECUTOR=gpu", "BOILERPLATE_EXECUTOR must be one of inline, thread, process, not 'gpu'"),
        (
            "BOILERPLATE_MODEL=" + str(PROJECT.parent / "scrapy_boilerplate" / "models" / "overview.json"),
            "BOILERPLATE_MODEL = ",
        ),
    ],
)
def test_a_bad_setting_stops_the_crawl_with_the_message_alone(setting, message):
    # Issue 17: the message came at the end of a "Task exception was never retrieved" traceback.
    done = run_crawl("-s", setting)
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if "ERROR" in line]
    assert len(errors) == 1, done.stderr[-3000:]
    assert message in errors[0] and errors[0].endswith("the crawl stops")
    assert "Traceback" not in done.stderr and "never retrieved" not in done.stderr
    assert "Spider opened" not in done.stderr
