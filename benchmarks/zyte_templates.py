"""zyte-spider-templates' ``article`` spider on this project's page objects, over ../shared/sites.

    python benchmarks/zyte_templates.py [--sites NAME ...] [--models loso|shipped|FILE] [--jobs N]
        [--json FILE] [--lists]

Needs the ``poet`` extra and zyte-spider-templates on a Scrapy it runs on (docs/zyte.md):
``pip install -e ".[poet]" zyte-spider-templates "scrapy<2.16"``.

Each site is crawled from its home page by ``scrapy crawl article -a url=HOME`` as a project
would run it: the add-ons of scrapy-poet, zyte-common-items and the templates, and
``scrapy_boilerplate.poet.Addon`` (which discovers the page objects and reads the BOILERPLATE_*
settings: here only the overview model, ``--models``). URLs stay those of the live site
(benchmarks/crawl_sites.py); a downloader middleware serves them from the site's files
(redirecting an own URL of the other scheme to the origin's, as the live sites do), and
nothing reaches the network (tldextract's suffix list download is turned off as docs/zyte.md
says). Each crawl runs in a process of its own. Per site and in all:

- the site's articles that became ``Article`` items (a URL once), of its articles;
- ``Article`` items from pages that are not articles (lists, other pages);
- requests, and pages per second.

``--lists`` also judges the page objects on every list page of the sites, alone (no crawl):
``ArticleList.articles`` against the articles the page links to in its content (its teasers:
the site's articles among the page's links outside menus, header, footer and sidebars),
and ``ArticleNavigation.nextPage`` against the list's next page (benchmarks/crawl_sites.py
``gold_next``; none on a list's last page) and on articles (none).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

# tldextract (which the templates use) downloads the public suffix list on first use unless told
# not to (tldextract >= 5.3); it then reads the copy it ships.
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")


def crawl(name: str, model: str = "") -> dict:
    """One crawl of one site by the templates' article spider (run in a child process)."""
    from crawl_sites import load_site, site_files_middleware
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.utils.project import get_project_settings

    site = load_site(name)
    SiteFiles = site_files_middleware(site, one_scheme=True)

    items: list = []

    class Collect:
        def process_item(self, item, spider=None):
            items.append({"url": item.url, "probability": item.metadata.probability})
            return item

    settings = get_project_settings()
    settings.setdict(
        {
            "ADDONS": {
                "scrapy_poet.Addon": 300,
                "zyte_common_items.Addon": 400,
                "scrapy_boilerplate.poet.Addon": 500,
                "zyte_spider_templates.Addon": 1000,
            },
            "SPIDER_MODULES": ["zyte_spider_templates.spiders"],
            "DOWNLOADER_MIDDLEWARES": {SiteFiles: 950},
            "ITEM_PIPELINES": {Collect: 900},
            "LOG_LEVEL": os.environ.get("ZT_LOG", "ERROR"),
            "TELNETCONSOLE_ENABLED": False,
            "CLOSESPIDER_TIMEOUT_NO_ITEM": 0,
        },
        priority="cmdline",
    )
    if model:
        settings.set("BOILERPLATE_OVERVIEW_MODEL", model, priority="cmdline")
    process = CrawlerProcess(settings)
    crawler = process.create_crawler("article")
    fetched: list = []
    clock: dict = {}
    crawler.signals.connect(
        lambda spider=None: clock.setdefault("opened", time.perf_counter()), signals.spider_opened, weak=False
    )

    def on_response(response, request, spider=None):
        fetched.append(response.url)
        clock["last"] = time.perf_counter()

    crawler.signals.connect(on_response, signal=signals.response_received)
    process.crawl(crawler, url=site.origin + "/")
    process.start()
    seconds = clock.get("last", 0.0) - clock.get("opened", 0.0)
    return {"fetched": fetched, "items": items, "seconds": seconds}


def figures(name: str, run: dict) -> dict:
    from crawl_sites import load_site

    site = load_site(name)
    articles = {site.url_of(f) for f, label in site.labels.items() if label == "article"}
    urls = {item["url"] for item in run["items"]}
    found = {site.file_for(u) for u in urls if site.label(u) == "article"}
    wrong = sorted(u for u in urls if site.label(u) != "article")
    files = [site.file_for(u) for u in urls]
    return {
        "articles": len(articles),
        "found": len(found),
        "items": len(urls),
        "not_articles": len(wrong),
        "not_articles_urls": wrong[:20],
        "duplicates": len(files) - len(set(files)),
        "missed": sorted(site.url_of(f) for f, label in site.labels.items() if label == "article" and f not in found)[
            :20
        ],
        "requests": len(run["fetched"]),
        "pages_per_second": len(run["fetched"]) / run["seconds"] if run["seconds"] else 0.0,
    }


def judge_lists(name: str, model: str = "") -> dict:
    """ArticleList and nextPage on every page of one site, alone."""
    from crawl_sites import gold_next, load_site
    from web_poet import HttpResponse

    from scrapy_boilerplate import Extractor, OverviewDetector
    from scrapy_boilerplate.core.document.elements import FLAG
    from scrapy_boilerplate.core.links.anchors import page_anchors
    from scrapy_boilerplate.core.render.urls import page_base
    from scrapy_boilerplate.poet import AnalysisConfig, PageAnalysis
    from scrapy_boilerplate.poet.pages import BoilerplateArticleListPage, BoilerplateArticleNavigationPage

    site = load_site(name)
    config = AnalysisConfig(Extractor(), OverviewDetector(model=model or None), 1000)
    outside = FLAG["nav"] | FLAG["header"] | FLAG["footer"] | FLAG["aside"]
    out = {
        "listed": 0,
        "listed_not_article": 0,
        "lists": 0,
        "teased": 0,
        "covered": 0,
        "next_right": 0,
        "next_pages": 0,
        "next_wrong": [],
        "articles": 0,
        "article_next": 0,
        "uncovered": [],
    }
    for file, label in sorted(site.labels.items()):
        if label not in ("overview", "article"):
            continue
        url = site.url_of(file)
        body = (site.root / file).read_bytes()
        response = HttpResponse(url=url, body=body, headers={"Content-Type": "text/html"})
        analysis = PageAnalysis(response, config)
        nav = BoilerplateArticleNavigationPage(response, analysis).nextPage
        if label == "article":
            out["articles"] += 1
            out["article_next"] += nav is not None
            continue
        page = analysis.page
        base = page_base(url, page.base_href)
        teased = {
            a.key
            for a in page_anchors(page, base)
            if a.key and not a.flags & outside and site.label(a.key) == "article" and a.key != url
        }
        if teased:
            listed = {a.url for a in BoilerplateArticleListPage(response, analysis).articles}
            out["listed"] += len(listed)
            out["listed_not_article"] += len({u for u in listed if site.label(u) != "article"})
            out["lists"] += 1
            out["teased"] += len(teased)
            out["covered"] += len(teased & listed)
            if len(teased - listed) > 0.05 * len(teased):
                out["uncovered"].append((url, len(teased - listed), len(teased)))
        gold = gold_next(site, file)
        expected = site.url_of(gold) if gold else None
        out["next_pages"] += 1
        got = nav.url if nav is not None else None
        if got is not None and expected is not None and site.file_for(got) == gold:
            out["next_right"] += 1
        elif got is None and expected is None:
            out["next_right"] += 1
        else:
            out["next_wrong"].append((url, got, expected))
    return out


def main() -> None:
    from crawl_sites import site_names
    from loso_models import site_models

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", nargs="*", default=None)
    parser.add_argument("--models", default="loso", help="'loso' (default), 'shipped', or a model file")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", help="the figures per site")
    parser.add_argument("--lists", action="store_true", help="also judge ArticleList and nextPage on every list page")
    parser.add_argument("--one", nargs="+", help=argparse.SUPPRESS)  # SITE [MODEL]: the child process
    args = parser.parse_args()
    if args.one:
        json.dump(crawl(*args.one), sys.stdout)
        return
    names = args.sites or site_names()
    models = {name: model or "" for name, model in site_models(names, args.models).items()}

    def one(name: str) -> dict:
        out = subprocess.run([sys.executable, __file__, "--one", name, models[name]], capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(f"{name}: {out.stderr[-3000:]}")
        return json.loads(out.stdout)

    results = {}
    total = {"articles": 0, "found": 0, "items": 0, "not_articles": 0, "duplicates": 0, "requests": 0}
    with ThreadPoolExecutor(args.jobs) as pool:
        for name, run in zip(names, pool.map(one, names)):
            r = figures(name, run)
            results[name] = r
            for key in total:
                total[key] += r[key]
            print(
                f"{name:20} articles {r['found']:4}/{r['articles']:<4} ({r['found'] / r['articles']:.1%})  items from "
                f"other pages {r['not_articles']:3} of {r['items']:4}  same page twice {r['duplicates']}  "
                f"requests {r['requests']:5}  {r['pages_per_second']:.0f} pages/s",
                flush=True,
            )
    print(
        f"{'all':20} articles {total['found']:4}/{total['articles']:<4} ({total['found'] / total['articles']:.2%})  "
        f"items from other pages {total['not_articles']} of {total['items']} "
        f"({total['not_articles'] / max(total['items'], 1):.2%})  same page twice {total['duplicates']}  "
        f"requests {total['requests']}"
    )
    if args.lists:
        sums = {
            "lists": 0,
            "teased": 0,
            "covered": 0,
            "next_right": 0,
            "next_pages": 0,
            "articles": 0,
            "article_next": 0,
        }
        for name in names:
            r = judge_lists(name, models[name])
            results[name]["lists"] = r
            for key in sums:
                sums[key] += r[key]
            print(
                f"{name:20} ArticleList: {r['covered']}/{r['teased']} teased articles on {r['lists']} lists; "
                f"nextPage right on {r['next_right']}/{r['next_pages']} list pages; on articles: {r['article_next']}",
                flush=True,
            )
        print(
            f"{'all':20} ArticleList: {sums['covered']}/{sums['teased']} "
            f"({sums['covered'] / max(sums['teased'], 1):.2%}); "
            f"nextPage right on {sums['next_right']}/{sums['next_pages']} list pages; on {sums['article_next']} of "
            f"{sums['articles']} articles"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
