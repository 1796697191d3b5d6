"""A loopback site of real articles (wcxb-dev) and their copies, for the duplicates crawls.

``/`` links to ``/section/<s>.html``, which link to the story pages
``/news/story-<i>-<kind>.html``: kind "original" is the real page as served, the others are its
copies made by duplicate_pages.py (print, repost, amp). Story pages follow no links.
:class:`StoriesSpider` yields two items ``{"url", "n"}`` per story page (two items of one page
are no copies of each other); tests/support/distributed_crawl.py's spider crawls the same paths.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import scrapy
from duplicate_pages import make_copy

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.duplicates import minhash

SHARED = Path(__file__).resolve().parents[3] / "shared" / "datasets"
COPIES = ("print", "repost", "amp")
KINDS = ("original", *COPIES)
PER_SECTION = 4


def stories(n: int = 4) -> list[dict]:
    """The first `n` wcxb-dev articles (one per site, 150 words of gold or more) on which our
    extraction finds the article: its 5-word shingles are at least 80 % those of the gold.
    [] without the datasets."""
    folder = SHARED / "wcxb-dev"
    if not (folder / "pages.jsonl").is_file():
        return []
    out, sites = [], set()
    for line in (folder / "pages.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("label") != "article" or not record.get("gold") or not record.get("title"):
            continue
        gold = (folder / record["gold"]).read_text(encoding="utf-8")
        site = record["url"].split("/")[2]
        if site in sites or len(minhash.words(gold)) < 150:
            continue
        raw = gzip.decompress((folder / record["html"]).read_bytes())
        if _overlap(extract(raw, url=record["url"]).text, gold) < 0.8:
            continue
        sites.add(site)
        out.append({"raw": raw, "title": record["title"], "lines": [g.strip() for g in gold.splitlines() if g.strip()]})
        if len(out) == n:
            break
    return out


def _overlap(text: str, gold: str) -> float:
    a = set(minhash.shingle_hashes(minhash.words(text)).tolist())
    b = set(minhash.shingle_hashes(minhash.words(gold)).tolist())
    return len(a & b) / len(a | b) if a and b else 0.0


def story_path(i: int, kind: str) -> str:
    return f"/news/story-{i}-{kind}.html"


def build_routes(items: list[dict]) -> dict:
    """path -> route for LoopbackServer."""
    html = {"Content-Type": "text/html; charset=utf-8"}
    routes: dict = {}
    paths = []
    for i, story in enumerate(items):
        routes[story_path(i, "original")] = (story["raw"], {"Content-Type": "text/html"})
        for kind in COPIES:
            routes[story_path(i, kind)] = (
                make_copy(kind, story["raw"], story["title"], story["lines"], seed=i).encode("utf-8"),
                html,
            )
        paths += [story_path(i, kind) for kind in KINDS]
    sections = []
    for s in range(0, len(paths), PER_SECTION):
        links = "".join(f'<li><a href="{p}">{p}</a></li>' for p in paths[s : s + PER_SECTION])
        routes[f"/section/{s}.html"] = (f"<html><body><ul>{links}</ul></body></html>".encode(), html)
        sections.append(f'<li><a href="/section/{s}.html">Section {s}</a></li>')
    routes["/"] = (f"<html><body><ul>{''.join(sections)}</ul></body></html>".encode(), html)
    return routes


def story_of(url: str) -> int:
    """The story number of a story page's URL."""
    return int(url.rsplit("/story-", 1)[1].split("-")[0])


class StoriesSpider(scrapy.Spider):
    name = "stories"

    def __init__(self, base_url: str, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.base_url = base_url
        self.logged: list = []  # log records (tests/crawl/test_duplicates_crawl.py)

    async def start(self):
        yield scrapy.Request(self.base_url + "/")

    def parse(self, response):
        if "/news/" in response.url:
            for n in range(2):
                yield {"url": response.url, "n": n}
            return
        for href in response.css("a::attr(href)").getall():
            if href.startswith(("/section/", "/news/story-")):
                yield response.follow(href)
