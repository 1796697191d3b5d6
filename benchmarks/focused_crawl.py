"""Focused crawls of the real static sites of ../shared/sites: how soon the articles come.

    python benchmarks/focused_crawl.py [--sites NAME ...] [--modes off prioritize focus] [--json FILE]

Each site is crawled from its home page by a follow-everything ``CrawlSpider``
(``Rule(LinkExtractor(), callback=..., follow=True)``, ``allowed_domains`` the site's own hosts)
with the add-on on and ``CONCURRENT_REQUESTS = 1`` (the order is the scheduler's), once per value
of ``BOILERPLATE_LINKS``. URLs stay those of the live site (benchmarks/crawl_sites.py); a
downloader middleware serves them from the site's files at download time (a 404 for a path that
is no file), so offsite filtering and the dupefilter behave as on the live site. Each crawl runs in
a process of its own. Per site and over all sites:

- requests until 90 % of the site's articles were fetched, and the non-article requests among them;
- articles found (the crawl unbounded) of the site's articles;
- items from non-article pages (those the add-on did not drop as overview pages);
- pages per second (responses over the crawl's wall time, extraction of every item included), and
  the seconds spent on link roles beside those of overview detection (their stats).
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


def crawl(name: str, mode: str) -> dict:
    """One crawl of one site (run in a child process)."""
    from crawl_sites import load_site
    from scrapy.crawler import CrawlerProcess
    from scrapy.http import Response
    from scrapy.linkextractors import LinkExtractor
    from scrapy.spiders import CrawlSpider, Rule

    site = load_site(name)

    class SiteFiles:
        """Serves the site's own URLs from its files; other hosts never reach the network."""

        def process_request(self, request, spider=None):
            file = site.file_for(request.url)
            if file is None:
                return Response(request.url, status=404, body=b"", request=request)
            body = (site.root / file).read_bytes()
            kind = mimetypes.guess_type(file)[0] or "text/html"
            from scrapy.http import Headers
            from scrapy.responsetypes import responsetypes

            headers = Headers({"Content-Type": kind})
            cls = responsetypes.from_args(headers=headers, url=request.url, body=body)
            return cls(request.url, status=200, body=body, headers=headers, request=request)

    fetched: list = []
    items: list = []

    common = {
        "ADDONS": {"scrapy_boilerplate.Addon": 0},
        "CONCURRENT_REQUESTS": 1,
        "DOWNLOADER_MIDDLEWARES": {SiteFiles: 1},
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "ERROR",
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
    }

    class FollowEverything(CrawlSpider):
        name = "site"
        allowed_domains = sorted({h.split(":")[0] for h in site.own_hosts})
        start_urls = [site.origin + "/"]
        rules = (Rule(LinkExtractor(), callback="parse_page", follow=True),)
        custom_settings = {**common, "BOILERPLATE_LINKS": mode}

        def parse_start_url(self, response):
            return self.parse_page(response)

        def parse_page(self, response):
            yield {"url": response.url}

    from scrapy_boilerplate.spiders import ArticleSpider

    class Articles(ArticleSpider):
        # The site's own hosts, as on the live site (an own-domain link may name another of them).
        allowed_domains = sorted({h.split(":")[0] for h in site.own_hosts})
        start_urls = [site.origin + "/"]
        use_feeds = use_sitemaps = mode == "articles"
        custom_settings = dict(common)

    SiteSpider = Articles if mode.startswith("articles") else FollowEverything

    class Collect:
        def process_item(self, item, spider=None):
            items.append(item["url"])
            return item

    SiteSpider.custom_settings = {**SiteSpider.custom_settings, "ITEM_PIPELINES": {Collect: 900}}
    process = CrawlerProcess()
    crawler = process.create_crawler(SiteSpider)

    def on_response(response, request, spider=None):
        fetched.append(response.url)

    crawler.signals.connect(on_response, signal=__import__("scrapy").signals.response_received)
    process.crawl(crawler)
    start = time.perf_counter()
    process.start()
    seconds = time.perf_counter() - start
    return {
        "fetched": fetched,
        "items": items,
        "seconds": seconds,
        "stats": {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("boilerplate/")},
    }


def figures(name: str, run: dict) -> dict:
    from crawl_sites import load_site

    site = load_site(name)
    articles = {f for f, label in site.labels.items() if label == "article"}
    need = 0.9 * len(articles)
    seen: set = set()
    until, non_article = None, 0
    for i, url in enumerate(run["fetched"], 1):
        file = site.file_for(url)
        if file in articles:
            seen.add(file)
        else:
            non_article += 1
        if until is None and len(seen) >= need:
            until = i
            non_article_until = non_article
    found = {site.file_for(u) for u in run["fetched"]} & articles
    item_labels = [site.label(u) for u in run["items"]]
    return {
        "articles": len(articles),
        "requests_to_90": until,
        "non_article_to_90": non_article_until if until else None,
        "found": len(found),
        "requests": len(run["fetched"]),
        "items": len(run["items"]),
        "items_not_article": sum(label != "article" for label in item_labels),
        "items_overview": sum(label == "overview" for label in item_labels),
        "pages_per_second": len(run["fetched"]) / max(run["seconds"], 1e-9),
        "seconds": run["seconds"],
        # What link roles and overview detection cost in the crawl (seconds, summed over pages).
        "links_seconds": run["stats"].get("boilerplate/links/seconds_total", 0.0),
        "overview_seconds": run["stats"].get("boilerplate/overview/seconds_total", 0.0),
    }


def main() -> None:
    from crawl_sites import site_names

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", nargs="*", default=None)
    parser.add_argument(
        "--modes",
        nargs="*",
        default=["off", "prioritize", "focus", "articles", "articles-bare"],
        help="BOILERPLATE_LINKS values of the follow-everything crawl; articles: "
        "ArticleSpider, articles-bare: without feeds and sitemaps",
    )
    parser.add_argument("--json")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # SITE MODE: the child process
    args = parser.parse_args()
    if args.one:
        json.dump(crawl(*args.one), sys.stdout)
        return
    names = args.sites or site_names()
    results: dict = {}
    for name in names:
        for mode in args.modes:
            out = subprocess.run(
                [sys.executable, __file__, "--one", name, mode], capture_output=True, text=True, check=True
            )
            results[mode, name] = figures(name, json.loads(out.stdout))
            r = results[mode, name]
            print(
                f"{mode:10} {name:20} 90%: {r['requests_to_90']} requests ({r['non_article_to_90']} not "
                f"articles); found {r['found']}/{r['articles']} in {r['requests']} requests; items not "
                f"article {r['items_not_article']} (overview {r['items_overview']}) of {r['items']}; "
                f"{r['pages_per_second']:.1f} pages/s",
                flush=True,
            )
    print(
        "\nmode        requests to 90%  non-article among them  articles found  items not article  "
        "(overview)  pages/s  roles s  overview s"
    )
    for mode in args.modes:
        rows = [results[mode, n] for n in names]
        print(
            f"{mode:10}  {sum(r['requests_to_90'] or 0 for r in rows):15}  "
            f"{sum(r['non_article_to_90'] or 0 for r in rows):22}  "
            f"{sum(r['found'] for r in rows):7}/{sum(r['articles'] for r in rows):<6}  "
            f"{sum(r['items_not_article'] for r in rows):17}  {sum(r['items_overview'] for r in rows):10}  "
            f"{sum(r['requests'] for r in rows) / sum(r['seconds'] for r in rows):7.1f}  "
            f"{sum(r['links_seconds'] for r in rows):7.2f}  {sum(r['overview_seconds'] for r in rows):10.2f}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({f"{m}/{n}": r for (m, n), r in results.items()}, indent=1))


if __name__ == "__main__":
    main()
