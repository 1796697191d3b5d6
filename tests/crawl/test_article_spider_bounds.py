"""Real crawls with ArticleSpider of sites made to cost it unbounded work, and with seen files it
cannot use (issue 46): every cap stops what it caps, counts it and says so once; a seen file that
cannot be used stops the crawl at start-up with one ERROR line; a write to it that fails later
costs no item.

The sites are tests/support/links_crawl.py's blog with its feeds, robots.txt and sitemaps replaced
(tests/support/hostile_crawl.py makes them); the crawls run in child processes
(tests/support/articles_crawl.py, or ``scrapy runspider`` of it), through tests/support/limited.py
where a file error must happen for real.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_crawl import XML, gzip_bomb, gzip_file, robots_with_sitemaps, sitemap_chain, sitemap_index, urlset
from links_crawl import FEED_LINK, article, page, routes
from server import LoopbackServer

pytestmark = pytest.mark.slow

SUPPORT = Path(__file__).resolve().parents[1] / "support"
LINKED = {f"/posts/story-number-{n}/" for n in range(1, 11)}
TEXT = {"Content-Type": "text/plain"}
RSS = {"Content-Type": "application/rss+xml"}


def feed(paths: list[str]) -> tuple[bytes, dict[str, str]]:
    items = "".join(f"<item><title>{p}</title><link>{p}</link></item>" for p in paths)
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>B</title>{items}</channel></rss>'.encode(), RSS


def blog(**replaced) -> dict:
    """The blog, with `replaced` routes ("/robots.txt": ...) and pages for every path a cap keeps out
    (so that fetching one would show)."""
    site = routes()
    for n in range(1, 4):
        site[f"/posts/over-the-cap-{n}/"] = page(f"Over {n}", article(20 + n))
    site.update(replaced)
    return site


def run_crawls(servers: dict, specs: dict, *limits: str) -> tuple[dict, str]:
    """The crawls of `specs` (name -> spider arguments, "settings"), each of its server's site, in
    one child process; their results (items, paths fetched, stats) and the log."""
    for name, spec in specs.items():
        spec["url"] = servers[name].url("/")
    done = subprocess.run(
        [sys.executable, str(SUPPORT / "limited.py"), *limits, "--"]
        + [sys.executable, str(SUPPORT / "articles_crawl.py"), "http://127.0.0.1:9/", json.dumps(specs)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=SUPPORT,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    result = json.loads(done.stdout)
    for name, crawl in result.items():
        base = servers[name].url("")
        crawl["paths"] = [url[len(base) :] for url in crawl["fetched"]]
        crawl["item_paths"] = {item["url"][len(base) :] for item in crawl["items"]}
    return result, done.stderr


def warnings(log: str, text: str) -> list[str]:
    return [line for line in log.splitlines() if " WARNING: " in line and text in line]


@pytest.fixture(scope="module")
def capped():
    """One crawl per cap, side by side, each hitting its cap twice where a site can."""
    over = [f"/posts/over-the-cap-{n}/" for n in range(1, 4)]
    home = routes()["/"].replace(FEED_LINK.encode(), (FEED_LINK + FEED_LINK.replace("feed.xml", "feed2.xml")).encode())
    sites = {
        # Two feeds over BOILERPLATE_FEED_MAX_ENTRIES = 3.
        "feeds": blog(
            **{
                "/": home,
                "/feed.xml": feed(["/posts/feed-only/", "/posts/story-number-1/", "/posts/story-number-2/", *over[:2]]),
                "/feed2.xml": feed(["/posts/story-number-3/", "/posts/story-number-4/", "/posts/feed-only/", over[2]]),
            }
        ),
        # Two chains of 14 sitemap indexes, past the default depth (10).
        "chain": blog(
            **{"/robots.txt": (b"Sitemap: /chain-a/0.xml\nSitemap: /chain-b/0.xml\n", TEXT)},
            **sitemap_chain(14, "/chain-a/"),
            **sitemap_chain(14, "/chain-b/"),
        ),
        # 121 Sitemap: lines, past the default cap (50): the real sitemap first.
        "robots": blog(**{"/robots.txt": (b"Sitemap: /sitemap.xml\n" + robots_with_sitemaps(120), TEXT)}),
        # Sitemaps served as gzip files: one read, one over DOWNLOAD_MAXSIZE when inflated, one over
        # DOWNLOAD_WARNSIZE.
        "gzip": blog(
            **{
                "/robots.txt": (b"Sitemap: /sitemap.xml.gz\nSitemap: /bomb.xml.gz\nSitemap: /big.xml.gz\n", TEXT),
                "/sitemap.xml.gz": gzip_file(routes()["/sitemap.xml"][0]),
                "/bomb.xml.gz": (
                    gzip_bomb(4 << 20, first="/posts/over-the-cap-1/"),
                    {"Content-Type": "application/gzip"},
                ),
                "/big.xml.gz": (
                    gzip_bomb(600 << 10, first="/posts/over-the-cap-2/"),
                    {"Content-Type": "application/gzip"},
                ),
            }
        ),
        # An index of two sitemaps of 3 URLs each, over BOILERPLATE_SITEMAP_MAX_URLS = 2.
        "urls": blog(
            **{
                "/robots.txt": (b"Sitemap: /index.xml\n", TEXT),
                "/index.xml": (sitemap_index(["/a.xml", "/b.xml"]), XML),
                "/a.xml": (urlset(["/posts/sitemap-only/", "/about/", over[0]]), XML),
                "/b.xml": (urlset(["/posts/story-number-1/", "/posts/story-number-2/", over[1]]), XML),
            }
        ),
    }
    specs = {
        "feeds": {"sitemaps": "false", "settings": {"BOILERPLATE_FEED_MAX_ENTRIES": 3}},
        "chain": {"feeds": "false"},
        "robots": {"feeds": "false"},
        "gzip": {"feeds": "false", "settings": {"DOWNLOAD_MAXSIZE": 1 << 20, "DOWNLOAD_WARNSIZE": 512 << 10}},
        "urls": {"feeds": "false", "settings": {"BOILERPLATE_SITEMAP_MAX_URLS": 2}},
    }
    servers = {name: LoopbackServer(site) for name, site in sites.items()}
    for server in servers.values():
        server.__enter__()
    try:
        result, log = run_crawls(servers, specs)
    finally:
        for server in servers.values():
            server.__exit__(None, None, None)
    return result, log


def test_a_feed_is_read_up_to_its_cap(capped):
    result, log = capped
    crawl = result["feeds"]
    assert "/feed2.xml" in crawl["paths"] and "/posts/feed-only/" in crawl["item_paths"]
    assert not [p for p in crawl["paths"] if p.startswith("/posts/over-the-cap-")]
    assert crawl["stats"]["boilerplate/feeds/too_many_entries"] == 2
    assert len(warnings(log, "BOILERPLATE_FEED_MAX_ENTRIES")) == 1


def test_sitemap_indexes_are_followed_to_the_depth_cap(capped):
    result, log = capped
    crawl = result["chain"]
    for chain in ("/chain-a/", "/chain-b/"):
        fetched = [p for p in crawl["paths"] if p.startswith(chain)]
        # Before: all 14 (1,646 levels in 30 s with a chain without end).
        assert sorted(fetched) == sorted(f"{chain}{i}.xml" for i in range(11))
    assert crawl["stats"]["boilerplate/sitemaps/too_deep"] == 2
    assert len(warnings(log, "BOILERPLATE_SITEMAP_MAX_DEPTH")) == 1
    assert LINKED <= crawl["item_paths"]


def test_robots_txt_sitemaps_are_capped(capped):
    result, log = capped
    crawl = result["robots"]
    sitemaps = [p for p in crawl["paths"] if p.startswith("/s/")]
    assert len(sitemaps) == 49 and "/sitemap.xml" in crawl["paths"]  # before: all 120
    assert "/posts/sitemap-only/" in crawl["item_paths"]
    assert crawl["stats"]["boilerplate/sitemaps/too_many_in_robots"] == 1
    assert len(warnings(log, "BOILERPLATE_ROBOTS_MAX_SITEMAPS")) == 1


def test_a_gzip_sitemap_file_is_read_up_to_download_maxsize(capped):
    result, log = capped
    crawl = result["gzip"]
    # Served as a file (no Content-Encoding): read, its pages fetched (before: dropped unsaid).
    assert "/posts/sitemap-only/" in crawl["item_paths"]
    # The bomb inflates past DOWNLOAD_MAXSIZE: ignored, as Scrapy's SitemapSpider ignores it.
    assert "/posts/over-the-cap-1/" not in crawl["paths"]
    assert crawl["stats"]["boilerplate/sitemaps/too_large"] == 1
    assert len(warnings(log, "DOWNLOAD_MAXSIZE")) == 1
    # Past DOWNLOAD_WARNSIZE, under DOWNLOAD_MAXSIZE: read, with Scrapy's warning.
    assert "/posts/over-the-cap-2/" in crawl["paths"]
    assert len(warnings(log, "is larger than the download warning size")) == 1


def test_a_sitemap_is_read_up_to_its_cap(capped):
    result, log = capped
    crawl = result["urls"]
    assert {"/posts/sitemap-only/", "/posts/story-number-1/"} <= crawl["item_paths"]
    assert not [p for p in crawl["paths"] if p.startswith("/posts/over-the-cap-")]
    assert crawl["stats"]["boilerplate/sitemaps/too_many_urls"] == 2
    assert len(warnings(log, "BOILERPLATE_SITEMAP_MAX_URLS")) == 1


def test_the_capped_crawls_raise_nothing(capped):
    result, log = capped
    for crawl in result.values():
        assert not any(stat.startswith("boilerplate/seen/") for stat in crawl["stats"])
        assert "spider_exceptions" not in " ".join(crawl["stats"]), crawl["stats"]
    assert "is not a scrapy_boilerplate setting" not in log


# --- the seen file -----------------------------------------------------------------------------


def test_a_seen_file_that_fails_mid_crawl_costs_no_item(tmp_path):
    """Writes past 150 bytes fail (EFBIG, as ENOSPC for a full disk): the first URLs are written,
    every item is yielded and its links followed (before: the write raised before `yield item`)."""
    seen = tmp_path / "seen.txt"
    with LoopbackServer(routes()) as server:
        specs = {"seen": {"seen": str(seen), "feeds": "false", "sitemaps": "false"}}
        result, log = run_crawls({"seen": server}, specs, "--file-size", "150")
    crawl = result["seen"]
    assert crawl["item_paths"] == LINKED
    written = [line for line in seen.read_text(encoding="utf-8").splitlines() if line.endswith("/")]
    assert 1 <= len(written) < len(LINKED)
    assert crawl["stats"]["boilerplate/seen/write_errors"] == len(LINKED) - len(written)
    assert len(warnings(log, "to the seen file")) == 1
    assert "Traceback" not in log


def runspider(seen: str) -> subprocess.CompletedProcess:
    """`scrapy runspider` of the blog spider with `-a seen=SEEN`, without root's file privileges."""
    scrapy = Path(sys.executable).with_name("scrapy")
    done = subprocess.run(
        [sys.executable, str(SUPPORT / "limited.py"), "--no-file-privileges", "--"]
        + [str(scrapy), "runspider", str(SUPPORT / "articles_crawl.py"), "-a", "url=http://127.0.0.1:9/"]
        + ["-a", f"seen={seen}", "-s", "TELNETCONSOLE_ENABLED=False"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=SUPPORT,
    )
    if done.returncode == 77:
        pytest.skip("cannot drop root's file privileges here (limited.py)")
    return done


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda path: path.mkdir(), "it is a directory"),
        (lambda path: path.write_bytes(b"https://a.example/\n\xff\xfe\n"), "it is not UTF-8 text: byte 0xff on line 2"),
        (lambda path: (path.write_text("x\n"), path.chmod(0)), "it cannot be read: Permission denied"),
        (lambda path: (path.write_text("x\n"), path.chmod(0o444)), "it cannot be appended to: Permission denied"),
        (lambda path: None, "does not exist"),
        (lambda path: path.parent.chmod(0o555), "it cannot be created: Permission denied"),
    ],
    ids=["directory", "not-utf8", "unreadable", "not-writable", "no-folder", "folder-not-writable"],
)
def test_a_seen_file_that_cannot_be_used_stops_the_crawl_with_one_error_line(tmp_path, make, problem):
    folder = tmp_path / "seen"
    if problem != "does not exist":
        folder.mkdir()
    path = folder / "seen.txt"
    make(path)
    try:
        done = runspider(str(path))
    finally:
        if folder.exists():
            folder.chmod(0o755)  # so that pytest can remove it
    assert done.returncode == 1, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if " ERROR: " in line]
    assert len(errors) == 1, done.stderr[-3000:]
    assert "ArticleSpider's seen file (-a seen=PATH" in errors[0] and repr(str(path)) in errors[0]
    assert problem in errors[0] and errors[0].endswith("the crawl stops")
    assert "Traceback" not in done.stderr and "Spider opened" not in done.stderr
