"""Real crawls for BOILERPLATE_LINKS: a follow-everything CrawlSpider over a small blog on 127.0.0.1.

The site and the spider are in tests/support/links_crawl.py; the three crawls (off, prioritize,
focus) run in one child process with the add-on and CONCURRENT_REQUESTS = 1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from links_crawl import routes
from server import LoopbackServer

pytestmark = pytest.mark.slow

SUPPORT = Path(__file__).resolve().parents[1] / "support"
ARTICLES = {f"/posts/story-number-{n}/" for n in range(1, 11)}
JUNK = {"/privacy/", "/login/", *(f"/share?story={n}" for n in range(1, 11))}
RELATED = {f"/extra/related-{n}/" for n in range(1, 11)}


@pytest.fixture(scope="module")
def crawls():
    with LoopbackServer(routes()) as server:
        out = subprocess.run(
            [
                sys.executable,
                str(SUPPORT / "links_crawl.py"),
                server.url("/"),
                json.dumps(["off", "prioritize", "focus"]),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=SUPPORT,
            check=True,
        )
        base = server.url("")
    result = json.loads(out.stdout)
    for crawl in result.values():
        crawl["paths"] = [url[len(base) :] for url in crawl["fetched"]]
        crawl["roles"] = {url[len(base) :]: role for url, role in crawl["roles"].items()}
    return result


def test_off_changes_nothing_and_computes_nothing(crawls):
    off = crawls["off"]
    assert not any(key.startswith("boilerplate/links/") for key in off["stats"])
    assert set(off["roles"].values()) == {None}
    assert ARTICLES | JUNK | RELATED <= set(off["paths"])


def test_prioritize_fetches_next_and_content_first(crawls):
    crawl = crawls["prioritize"]
    paths = crawl["paths"]
    # Everything is still fetched (an offset, not a filter).
    assert set(paths) == set(crawls["off"]["paths"])
    last_article = max(paths.index(p) for p in ARTICLES)
    assert all(paths.index(p) > last_article for p in JUNK)
    assert crawl["roles"]["/page/2/"] == "next"
    assert {crawl["roles"][p] for p in ARTICLES} == {"content"}
    assert crawl["roles"]["/privacy/"] == "boilerplate"
    stats = crawl["stats"]
    assert stats["boilerplate/links/content"] >= 10 and stats["boilerplate/links/next"] >= 1
    # Worked out at most once per HTML page that yields requests (the share pages link nowhere),
    # and not for a page whose requests all repeat earlier ones (the dupefilter's).
    pages = len([p for p in paths if not p.startswith(("/share", "/feed"))])
    assert 0 < stats["boilerplate/links/pages"] < pages and stats["boilerplate/links/repeated"] > 0
    assert "boilerplate/links/dropped" not in stats


def test_focus_drops_boilerplate_and_related(crawls):
    crawl = crawls["focus"]
    paths = set(crawl["paths"])
    assert ARTICLES <= paths
    assert not paths & (JUNK | RELATED)
    stats = crawl["stats"]
    # Every boilerplate and related request is dropped but the links of a page to itself (kept, last).
    assert (
        0
        < stats["boilerplate/links/boilerplate"]
        + stats["boilerplate/links/related"]
        - stats["boilerplate/links/dropped"]
        <= len(crawl["paths"])
    )
    assert stats["boilerplate/links/related"] >= 10
    # The start request is made by the spider: no role.
    assert crawl["roles"]["/"] is None
