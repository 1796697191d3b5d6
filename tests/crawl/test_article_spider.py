"""Real crawls with scrapy_boilerplate.spiders.ArticleSpider of a small blog on 127.0.0.1.

The site is tests/support/links_crawl.py's (a listing of two pages, ten stories, tag pages, an about
page, legal and share links, related boxes, a feed and a sitemap); the crawls run in a child
process (tests/support/articles_crawl.py) with the spider's own settings (the add-on).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from links_crawl import FOOTER, MENU, article, page, routes
from server import LoopbackServer

from scrapy_boilerplate.logformatter import MAX_LOGGED_CHARS

pytestmark = pytest.mark.slow

SUPPORT = Path(__file__).resolve().parents[1] / "support"
LINKED = {f"/posts/story-number-{n}/" for n in range(1, 11)}


def run(server, specs: dict) -> dict:
    out = subprocess.run(
        [sys.executable, str(SUPPORT / "articles_crawl.py"), server.url("/"), json.dumps(specs)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=SUPPORT,
        check=True,
    )
    result = json.loads(out.stdout)
    base = server.url("")
    for crawl in result.values():
        crawl["paths"] = [url[len(base) :] for url in crawl["fetched"]]
        crawl["item_paths"] = [item["url"][len(base) :] for item in crawl["items"]]
    return result


def test_a_second_run_skips_the_articles_of_the_first(tmp_path):
    seen = tmp_path / "seen.txt"
    with LoopbackServer(routes()) as server:
        first = run(server, {"first": {"seen": str(seen), "feeds": "false", "sitemaps": "false"}})["first"]
        second = run(server, {"second": {"seen": str(seen), "feeds": "false", "sitemaps": "false"}})["second"]
    assert sorted(first["item_paths"]) == sorted(LINKED)
    assert len(seen.read_text().split()) == len(LINKED)
    assert second["item_paths"] == []
    assert not LINKED & set(second["paths"])
    # The home page's stories are all known: its next page is not fetched (the listing is still).
    assert "/" in second["paths"] and "/page/2/" not in second["paths"]


@pytest.fixture(scope="module")
def crawls():
    site = routes()
    site["/"] = site["/"].replace(b"</main>", b'<a href="https://elsewhere.example/x">Elsewhere</a></main>')
    with LoopbackServer(site) as server:
        specs = {
            "default": {},
            "bare": {"feeds": "false", "sitemaps": "false"},
            "shallow": {"max_navigation_depth": "0", "feeds": "false", "sitemaps": "false"},
        }
        out = subprocess.run(
            [sys.executable, str(SUPPORT / "articles_crawl.py"), server.url("/"), json.dumps(specs)],
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
        crawl["item_paths"] = [item["url"][len(base) :] for item in crawl["items"]]
    return result


def test_one_item_per_article_and_none_for_other_pages(crawls):
    crawl = crawls["default"]
    assert sorted(crawl["item_paths"]) == sorted(LINKED | {"/posts/feed-only/", "/posts/sitemap-only/"})
    item = next(i for i in crawl["items"] if i["url"].endswith("/posts/story-number-3/"))
    assert item["title"] in ("Story 3", "The story number 3 of this blog")  # best_title decides
    assert "Story 3 of this blog is about the" in item["text"]
    # The spider enables the add-on itself (update_settings): its OverviewMiddleware judged the pages.
    assert crawl["stats"]["boilerplate/overview/pages"] >= 2


def themed_routes() -> dict:
    """The blog in a theme that links, under each post, the previous and the next post in a box
    it calls a pager (Minimal Mistakes' ``nav.pagination``) and three other posts in its text;
    story 5 is a link and a line."""
    site = routes()
    for n in range(1, 11):
        older = f'<a class="pagination--pager" href="/posts/story-number-{n + 1}/">Next</a>' if n < 10 else ""
        newer = f'<a class="pagination--pager" href="/posts/story-number-{n - 1}/">Previous</a>' if n > 1 else ""
        seen = " ".join(f'<a href="/posts/story-number-{m}/">story {m}</a>' for m in (1, 2, 3, 4) if m != n)
        body = article(n).replace("</article>", f"<p>See also {seen}.</p></article>")
        site[f"/posts/story-number-{n}/"] = page(f"Story {n}", body + f'<nav class="pagination">{newer} {older}</nav>')
    short = '<article><h1>The story number 5 of this blog</h1><p>A link and a line: <a href="https://elsewhere.example/">this</a>.</p></article>'
    site["/posts/story-number-5/"] = page("Story 5", MENU + short + FOOTER)
    return site


def test_every_post_is_an_item_whatever_its_theme_links_under_it():
    # A post that links the next post in a box named a pager was taken for a page of a listing
    # (a next page and three content links): only the last post was an item. A post of a line
    # was too short to be one.
    with LoopbackServer(themed_routes()) as server:
        crawl = run(server, {"themed": {"feeds": "false", "sitemaps": "false"}})["themed"]
    assert sorted(crawl["item_paths"]) == sorted(LINKED)
    short = next(item for item in crawl["items"] if item["url"].endswith("/posts/story-number-5/"))
    assert "A link and a line: this." in short["text"]


def test_follows_by_role_and_stays_on_the_site(crawls):
    paths = crawls["default"]["paths"]
    # Boilerplate and related links are not followed; the other host is not fetched.
    assert not {p for p in paths if p.startswith(("/privacy", "/login", "/share", "/extra/"))}
    assert not any("elsewhere" in p for p in paths)
    # The listing's next page and the stories come before the sitemap's pages.
    assert paths.index("/page/2/") < paths.index("/posts/sitemap-only/")


def test_without_feeds_and_sitemaps(crawls):
    crawl = crawls["bare"]
    assert sorted(crawl["item_paths"]) == sorted(LINKED)
    assert "/feed.xml" not in crawl["paths"] and "/robots.txt" not in crawl["paths"]


def test_navigation_depth_limit(crawls):
    # Depth 0: no navigation link is followed (tag pages, about), content and next still are.
    paths = crawls["shallow"]["paths"]
    assert not any(p.startswith(("/tags/", "/about/")) for p in paths)
    assert LINKED <= set(paths)


def runspider(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """`scrapy runspider blog.py ...` on a file of one ArticleSpider subclass, as a newcomer runs it
    (no project: Scrapy's defaults, LOG_LEVEL DEBUG)."""
    spider = tmp_path / "blog.py"
    spider.write_text(
        'from scrapy_boilerplate.spiders import ArticleSpider\n\n\nclass Blog(ArticleSpider):\n    name = "blog"\n',
        encoding="utf-8",
    )
    exe = Path(sys.executable).with_name("scrapy")
    command = [str(exe)] if exe.exists() else [shutil.which("scrapy") or "scrapy"]
    return subprocess.run(
        [*command, "runspider", str(spider), *args], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )


def test_runspider_logs_each_item_without_its_whole_text(tmp_path):
    # At DEBUG, Scrapy's formatter logged every item whole: the article's text too (867 KB of log
    # for 50 articles of a real blog, 128 KB now). The spider's formatter cuts long fields.
    feed = tmp_path / "items.jsonl"
    with LoopbackServer(routes()) as server:
        done = runspider(tmp_path, "-a", f"url={server.url('/')}", "-O", str(feed))
        assert done.returncode == 0, done.stderr[-3000:]
        items = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines()]
        assert LINKED <= {item["url"][len(server.url("")) :] for item in items}
        assert all(len(item["text"]) > MAX_LOGGED_CHARS for item in items)
        entries = [entry for entry in re.split(r"\n(?=\d{4}-\d\d-\d\d )", done.stderr) if "Scraped from" in entry]
        assert len(entries) == len(items)
        for item in items:
            assert item["text"] not in done.stderr
            assert f"'title': {item['title']!r}" in done.stderr
        assert max(len(entry) for entry in entries) < 700
        # A formatter the user chose stays: Scrapy's, here, logs the texts whole.
        chosen = runspider(
            tmp_path, "-a", f"url={server.url('/')}", "-s", "LOG_FORMATTER=scrapy.logformatter.LogFormatter"
        )
    assert chosen.returncode == 0, chosen.stderr[-3000:]
    assert all(item["text"] in chosen.stderr for item in items)


def dated_routes_with_a_copy() -> dict:
    """The blog with a publication date on every story, and story 3 again at a second URL (a copy
    with one word changed), linked from the second listing page."""
    site = routes()
    for n in range(1, 11):
        dated = f'<meta property="article:published_time" content="2026-03-{n:02d}T08:00:00Z">'
        site[f"/posts/story-number-{n}/"] = page(f"Story {n}", article(n), dated)
    copy = article(3).replace("a bench, a sign", "a bench, a flag")
    site["/posts/story-copy/"] = page("Story 3", copy, '<meta property="article:published_time" content="2026-03-03">')
    site["/page/2/"] = site["/page/2/"].replace(
        b"</main>", b'<article class="post"><h2><a href="/posts/story-copy/">Story 3 again</a></h2></article></main>'
    )
    return site


def test_the_pipelines_settings_apply_to_its_items_as_to_any_spiders():
    """ArticleSpider's items go through MainContentPipeline: the field settings, the duplicates
    check and the process executor apply to them as to a CrawlSpider's with the add-on."""
    settings = {
        "BOILERPLATE_TEXT_FIELD": "body",
        "BOILERPLATE_TITLE_FIELD": "headline",
        "BOILERPLATE_DATE_PUBLISHED_FIELD": "published",
        "BOILERPLATE_DUPLICATES": "drop",
        "BOILERPLATE_EXECUTOR": "process",
        "BOILERPLATE_EXECUTOR_WORKERS": 1,
    }
    specs = {
        "articles": {"feeds": "false", "sitemaps": "false", "settings": settings},
        "crawl": {"spider": "crawl", "settings": settings},
    }
    with LoopbackServer(dated_routes_with_a_copy()) as server:
        result = run(server, specs)
    articles, crawl = result["articles"], result["crawl"]
    # One item per story, the copy dropped: the first of the two URLs fetched stays.
    assert len(articles["item_paths"]) == 10
    assert LINKED - {"/posts/story-number-3/"} <= set(articles["item_paths"])
    assert articles["stats"]["boilerplate/duplicates/dropped"] == 1
    # The CrawlSpider drops the copy too (and nine of the ten related pages, one text).
    copies = {"/posts/story-number-3/", "/posts/story-copy/"}
    assert len(copies & set(crawl["item_paths"])) == 1 == len(copies & set(articles["item_paths"]))
    assert articles["stats"]["boilerplate/pages_extracted"] >= 10  # in the worker processes' tasks
    assert "boilerplate/errors" not in articles["stats"]
    by_url = {item["url"]: item for item in crawl["items"]}
    for item in articles["items"]:
        # The settings' fields, not the spider's defaults ("text", "title").
        assert "text" not in item and "title" not in item
        assert item["body"] and item["headline"] and item["published"].startswith("2026-03-")
        # What the CrawlSpider's items of the same pages carry.
        same = by_url[item["url"]]
        assert {k: same[k] for k in ("body", "headline", "published")} == {
            k: item[k] for k in ("body", "headline", "published")
        }
        # The spider's default metadata fields (BOILERPLATE_METADATA_FIELDS) are on unless set.
        assert "authors" in item


def test_by_default_an_exact_copy_is_one_item_and_a_near_copy_its_own():
    """Without BOILERPLATE_DUPLICATES the spider drops exact copies only (the same post at a second
    URL), however short; a post that shares most of its words with another is an article."""
    site = dated_routes_with_a_copy()
    site["/posts/story-number-3/index.html"] = site["/posts/story-number-3/"]
    short = page("A note", MENU + "<article><h1>A note</h1><p>Back next week.</p></article>" + FOOTER)
    site["/posts/note/"] = site["/posts/note/index.html"] = short
    cards = "".join(
        f'<article class="post"><h2><a href="{path}">{path}</a></h2></article>'
        for path in ("/posts/story-number-3/index.html", "/posts/note/", "/posts/note/index.html")
    )
    site["/page/2/"] = site["/page/2/"].replace(b"</main>", cards.encode() + b"</main>")
    with LoopbackServer(site) as server:
        crawl = run(server, {"default": {"feeds": "false", "sitemaps": "false"}})["default"]
    paths = crawl["item_paths"]
    # The first of two exact copies fetched stays.
    assert "/posts/story-copy/" in paths
    assert ("/posts/story-number-3/" in paths) != ("/posts/story-number-3/index.html" in paths)
    assert ("/posts/note/" in paths) != ("/posts/note/index.html" in paths)
    assert crawl["stats"]["boilerplate/duplicates/dropped"] == 2
