"""A crawl with BOILERPLATE_EXECUTOR = "process" in which workers are lost, as JSON.

    python tests/support/worker_crawl.py BASE_URL SETTINGS_JSON OUTPUT_JSON

The site (tests/crawl/test_worker_crawl.py serves it) links to pages under /kill/, whose
worker kills itself with SIGKILL (as the out-of-memory killer would), and under
/hang/, whose worker never comes back (it first creates the file named by the
environment variable WORKER_CRAWL_HANG_MARK, so a test knows it hangs); a worker appends
a byte to the file named by WORKER_CRAWL_PROGRESS, if set, for each page it extracted. The patch
is applied at import, so it holds in the worker processes, which import this
script again ("spawn"). Each page yields two items; the output holds the items
and the crawl's stats.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sys
import time
from pathlib import Path

import scrapy
from crawl_items import Collector
from scrapy.crawler import CrawlerProcess

from scrapy_boilerplate.core.extractor import Extractor


def _lose_the_worker(method):
    def extract(self, html, url=None, **options):
        if url and multiprocessing.parent_process() is not None:
            if "/kill/" in url:
                os.kill(os.getpid(), signal.SIGKILL)
            elif "/hang/" in url:
                Path(os.environ["WORKER_CRAWL_HANG_MARK"]).touch()
                time.sleep(3600)
        result = method(self, html, url=url, **options)
        progress = os.environ.get("WORKER_CRAWL_PROGRESS")
        if progress and multiprocessing.parent_process() is not None:
            with open(progress, "ab") as file:  # one byte a page, appended (atomic)
                file.write(b".")
        return result

    return extract


Extractor.extract = _lose_the_worker(Extractor.extract)
Extractor.extract_page = _lose_the_worker(Extractor.extract_page)


class PagesSpider(scrapy.Spider):
    name = "pages"

    def __init__(self, base_url: str, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [base_url + "/"]
        self.collected: list = []

    def parse(self, response):
        if response.url.endswith("/"):
            yield from response.follow_all(css="a")
            return
        for n in (1, 2):
            yield {"url": response.url, "n": n}


def main(base_url: str, settings: dict) -> dict:
    process = CrawlerProcess(
        {
            "LOG_LEVEL": "INFO",
            "TELNETCONSOLE_ENABLED": False,
            "ADDONS": {"scrapy_boilerplate.Addon": 0},
            "ITEM_PIPELINES": {Collector: 1000},
            **settings,
        }
    )
    crawler = process.create_crawler(PagesSpider)
    process.crawl(crawler, base_url=base_url)
    process.start()
    return {"items": crawler.spider.collected, "stats": crawler.stats.get_stats()}


if __name__ == "__main__":
    result = main(sys.argv[1], json.loads(sys.argv[2]))
    with open(sys.argv[3], "w", encoding="utf-8") as output:
        json.dump(result, output, default=str)
