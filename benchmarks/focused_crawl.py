"""Focused crawls of the real static sites of ../shared/sites: how soon the articles come.

    python benchmarks/focused_crawl.py [--sites NAME ...] [--modes off prioritize focus] [--repeat N]
        [--models loso|shipped|FILE] [--jobs N] [--json FILE] [--runs FILE] [--table FILE]

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
- pages per second (responses over the crawl's working time, from the spider's opening to its last
  response or item, extraction of every item included), and
  the seconds spent on link roles beside those of overview detection (their stats).

``--repeat N`` crawls every site N times in each mode, the modes taking turns (so a change in the
machine's load falls on all of them), and gives pages per second as the median over the N rounds of
all sites' responses over their summed wall time (and over their summed CPU time, the crawl
process's, which other work on a busy machine moves less), beside the share of "off"'s that each
mode loses. Mode ``none`` is the add-on without ``LinkRolesMiddleware``
(``SPIDER_MIDDLEWARES = {"scrapy_boilerplate.LinkRolesMiddleware": None}``): beside ``off``, what an
``"off"`` add-on costs the crawl. Each crawl reports the number of pages whose link roles were
worked out, and whether the middleware was in the crawl's spider middlewares.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


def crawl(name: str, mode: str, model: str = "") -> dict:
    """One crawl of one site (run in a child process); `model`: the overview model's path ("": the
    shipped one)."""
    from crawl_sites import load_site, site_files_middleware
    from scrapy.crawler import CrawlerProcess
    from scrapy.linkextractors import LinkExtractor
    from scrapy.spiders import CrawlSpider, Rule

    site = load_site(name)

    SiteFiles = site_files_middleware(site)

    fetched: list = []
    flagged: list = []  # responses OverviewMiddleware flagged
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
    if model:
        common["BOILERPLATE_OVERVIEW_MODEL"] = model

    class FollowEverything(CrawlSpider):
        name = "site"
        allowed_domains = sorted({h.split(":")[0] for h in site.own_hosts})
        start_urls = [site.origin + "/"]
        rules = (Rule(LinkExtractor(), callback="parse_page", follow=True),)
        custom_settings = {**common, "BOILERPLATE_LINKS": "off" if mode == "none" else mode}
        if mode == "none":
            custom_settings["SPIDER_MIDDLEWARES"] = {"scrapy_boilerplate.LinkRolesMiddleware": None}

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

    from scrapy import signals

    # The crawl's working time: from the spider's opening to its last response or item, without
    # the start-up before it nor the engine's idle wait (up to 5 s) before it closes.
    clock: dict = {}

    def tick(key: str) -> None:
        clock[key] = (time.perf_counter(), time.process_time())

    def on_response(response, request, spider=None):
        fetched.append(response.url)
        if "overview" in response.flags:
            flagged.append(response.url)
        tick("last")

    crawler.signals.connect(lambda spider=None: tick("opened"), signal=signals.spider_opened, weak=False)
    crawler.signals.connect(on_response, signal=signals.response_received)
    crawler.signals.connect(lambda *a, **k: tick("last"), signal=signals.item_scraped, weak=False)
    process.crawl(crawler)
    process.start()
    seconds = clock["last"][0] - clock["opened"][0]
    cpu = clock["last"][1] - clock["opened"][1]
    from scrapy_boilerplate.link_roles import LinkRolesMiddleware

    middlewares = crawler.engine.scraper.spidermw.middlewares if crawler.engine else ()
    return {
        "links_middleware": any(isinstance(m, LinkRolesMiddleware) for m in middlewares),
        "fetched": fetched,
        "flagged": flagged,
        "items": items,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "stats": {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("boilerplate/")},
    }


def figures(name: str, run: dict) -> dict:
    from crawl_sites import has_text, load_site

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
    fetched_files = {site.file_for(u) for u in run["fetched"]} - {None}
    flagged_files = {site.file_for(u) for u in run.get("flagged", ())} - {None}
    # List pages with no text of their own (an empty tag page, a redirect stub) are not judged.
    lists = {f for f in fetched_files if site.labels.get(f) == "overview" and has_text(site, f)}
    return {
        "articles": len(articles),
        "requests_to_90": until,
        "non_article_to_90": non_article_until if until else None,
        "found": len(found),
        "requests": len(run["fetched"]),
        "items": len(run["items"]),
        "items_articles": len({site.file_for(u) for u in run["items"]} & articles),
        "items_not_article": sum(label != "article" for label in item_labels),
        "items_overview": sum(label == "overview" for label in item_labels),
        "lists_fetched": len(lists),
        "lists_flagged": len(lists & flagged_files),
        "articles_flagged": len(found & flagged_files),
        "pages_per_second": len(run["fetched"]) / max(run["seconds"], 1e-9),
        "seconds": run["seconds"],
        "cpu_seconds": run["cpu_seconds"],
        # What link roles and overview detection cost in the crawl (seconds, summed over pages).
        "links_seconds": run["stats"].get("boilerplate/links/seconds_total", 0.0),
        "links_pages": run["stats"].get("boilerplate/links/pages", 0),
        "links_middleware": run.get("links_middleware"),
        "overview_seconds": run["stats"].get("boilerplate/overview/seconds_total", 0.0),
    }


def record_table(results: dict, names: list[str]) -> str:
    """The crawl side's figures of record per site and summed (Markdown): the default crawl
    (follow everything, the add-on, BOILERPLATE_LINKS "off"), "focus" and ArticleSpider."""

    def share(a: int, b: int) -> str:
        return f"{a} / {b} ({100 * a / b:.1f} %)" if b else f"{a} / {b}"

    def ratio(a, b) -> str:
        return f"{a / b:.2f}x" if a is not None and b else "–"

    head = (
        "| site | articles | default: items from list pages | default: lists flagged | default: articles "
        "flagged | focus: articles fetched | focus: non-article requests to 90 % | ArticleSpider: articles "
        "as items | ArticleSpider: items not articles | ArticleSpider: non-article requests to 90 % |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    rows = []
    keys = (
        "articles",
        "items",
        "items_overview",
        "lists_flagged",
        "lists_fetched",
        "articles_flagged",
        "found",
        "non_article_to_90",
        "items_articles",
        "items_not_article",
    )
    total = {mode: dict.fromkeys(keys, 0) for mode in ("off", "focus", "articles")}
    for name in [*names, None]:
        if name is None:
            off, focus, art, label = total["off"], total["focus"], total["articles"], "**all**"
        else:
            off, focus, art, label = results["off", name], results["focus", name], results["articles", name], name
            for mode, r in (("off", off), ("focus", focus), ("articles", art)):
                for key in keys:
                    total[mode][key] += r[key] or 0
        rows.append(
            f"| {label} | {off['articles']} | {share(off['items_overview'], off['items'])} "
            f"| {share(off['lists_flagged'], off['lists_fetched'])} | {share(off['articles_flagged'], off['found'])} "
            f"| {share(focus['found'], focus['articles'])} "
            f"| {focus['non_article_to_90']} ({ratio(focus['non_article_to_90'], off['non_article_to_90'])}) "
            f"| {share(art['items_articles'], art['articles'])} | {share(art['items_not_article'], art['items'])} "
            f"| {art['non_article_to_90']} ({ratio(art['non_article_to_90'], off['non_article_to_90'])}) |"
        )
    return head + "\n".join(rows) + "\n"


def main() -> None:
    from crawl_sites import site_names
    from loso_models import site_models

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", nargs="*", default=None)
    parser.add_argument(
        "--modes",
        nargs="*",
        default=["off", "prioritize", "focus", "articles", "articles-bare"],
        help="BOILERPLATE_LINKS values of the follow-everything crawl; articles: "
        "ArticleSpider, articles-bare: without feeds and sitemaps",
    )
    parser.add_argument("--repeat", type=int, default=1, help="crawls per site and mode (pages/s: the median)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="crawls at once (default 1; more change no crawl's order, but the pages per second)",
    )
    parser.add_argument(
        "--models",
        default="loso",
        help="the overview model of each site's crawls: 'loso' (default: trained without the site, "
        "benchmarks/loso_models.py), 'shipped', or a model file for every site",
    )
    parser.add_argument("--json", help="the figures per mode and site")
    parser.add_argument("--runs", help="the crawls themselves (URLs fetched, flagged, items) as JSON")
    parser.add_argument("--table", help="write the per-site table of the figures of record (Markdown)")
    parser.add_argument("--one", nargs="+", help=argparse.SUPPRESS)  # SITE MODE [MODEL]: the child process
    args = parser.parse_args()
    if args.one:
        json.dump(crawl(*args.one), sys.stdout)
        return
    names = args.sites or site_names()
    models = {name: model or "" for name, model in site_models(names, args.models).items()}
    raw: dict = {}
    results: dict = {}
    # Per mode and round: pages per second, and per CPU second (the crawl's process time: on a
    # machine that other work keeps busy, closer to what an idle one gives).
    rounds: dict = {mode: [] for mode in args.modes}
    cpu_rounds: dict = {mode: [] for mode in args.modes}

    def one(task: tuple[str, str]) -> dict:
        name, mode = task
        out = subprocess.run(
            [sys.executable, __file__, "--one", name, mode, models[name]], capture_output=True, text=True, check=True
        )
        return json.loads(out.stdout)

    for round_ in range(args.repeat):
        sums = {mode: [0, 0.0, 0.0] for mode in args.modes}
        tasks = [(name, mode) for name in names for mode in args.modes]
        with ThreadPoolExecutor(args.jobs) as pool:
            for (name, mode), run in zip(tasks, pool.map(one, tasks)):
                raw.setdefault(f"{mode}/{name}", run)
                r = figures(name, run)
                sums[mode][0] += r["requests"]
                sums[mode][1] += r["seconds"]
                sums[mode][2] += r["cpu_seconds"]
                results.setdefault((mode, name), r)  # the order is the same every round
                print(
                    f"{mode:10} {name:20} 90%: {r['requests_to_90']} requests ({r['non_article_to_90']} not "
                    f"articles); found {r['found']}/{r['articles']} in {r['requests']} requests; items not "
                    f"article {r['items_not_article']} (overview {r['items_overview']}) of {r['items']}; "
                    f"{r['pages_per_second']:.1f} pages/s; roles of {r['links_pages']} pages "
                    f"(middleware {'on' if r['links_middleware'] else 'off'})",
                    flush=True,
                )
        for mode, (responses, seconds, cpu) in sums.items():
            rounds[mode].append(responses / seconds)
            cpu_rounds[mode].append(responses / cpu)
        print(
            f"round {round_ + 1}: "
            + ", ".join(f"{m} {rounds[m][-1]:.1f} ({cpu_rounds[m][-1]:.1f} per CPU s)" for m in args.modes),
            "pages/s",
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
            f"{statistics.median(rounds[mode]):7.1f}  "
            f"{sum(r['links_seconds'] for r in rows):7.2f}  {sum(r['overview_seconds'] for r in rows):10.2f}"
        )
    if "off" in rounds:
        base = statistics.median(rounds["off"])
        cpu_base = statistics.median(cpu_rounds["off"])
        print(
            f"\npages per second and per CPU second, medians of {args.repeat} rounds, and the share of "
            "off's that each mode loses:"
        )
        for mode, per_round in rounds.items():
            median, cpu_median = statistics.median(per_round), statistics.median(cpu_rounds[mode])
            spread = ", ".join(f"{x:.1f}" for x in per_round)
            cpu_spread = ", ".join(f"{x:.1f}" for x in cpu_rounds[mode])
            print(
                f"{mode:10} {median:7.1f} pages/s {1 - median / base:+7.1%} (rounds: {spread}); "
                f"{cpu_median:7.1f} per CPU s {1 - cpu_median / cpu_base:+7.1%} (rounds: {cpu_spread})"
            )
    if {"off", "focus", "articles"} <= set(args.modes):
        table = record_table(results, names)
        print("\n" + table)
        if args.table:
            Path(args.table).write_text(table)
    if args.runs:
        Path(args.runs).write_text(json.dumps(raw))
    if args.json:
        out = {f"{m}/{n}": r for (m, n), r in results.items()}
        Path(args.json).write_text(
            json.dumps({**out, "pages_per_second_rounds": rounds, "pages_per_cpu_second_rounds": cpu_rounds}, indent=1)
        )


if __name__ == "__main__":
    main()
