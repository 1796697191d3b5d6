"""Crawl throughput with and without scrapy_boilerplate, on real pages served on loopback.

    python benchmarks/crawl_throughput.py [DATASET_DIR...] [--pages 600] [--executor inline]
        [--workers N] [--concurrency 16] [--settings JSON]

A server process serves the pages (raw bytes as stored, decompressed) from
memory on 127.0.0.1, behind listing pages of 50 links each. The same spider
crawls them twice, each crawl in a fresh process: once without the add-on,
once with ``ADDONS = {"scrapy_boilerplate.Addon": 0}`` (overview middleware and
main-content pipeline). The spider does what a real one does: a CrawlSpider
following every link of the site (the pages' own links to other sites are
extracted and filtered out, as on a real site), yielding an item with the URL
and the <title> of each page. ``--spider minimal`` follows only the listing
links (the least work a spider can do, so the add-on's share is largest).
``--executor`` sets BOILERPLATE_EXECUTOR, which both components read (with
"process", OverviewMiddleware's worker task also extracts for the pipeline);
``--workers`` sets BOILERPLATE_EXECUTOR_WORKERS (default: the add-on's default).
Pages per second = 200 responses / the crawl's elapsed_time_seconds. Reactor
lag = how late a 5 ms timer fires: how long the reactor thread was kept busy
at a time (what BOILERPLATE_EXECUTOR changes).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# This checkout's package, not another installed one (the crawls run this script again).
sys.path.insert(0, str(HERE.parent))
DEFAULT_DATASETS = [HERE.parent.parent / "shared" / "datasets" / "wcxb-dev"]
PER_LISTING = 50


def load_pages(datasets: list[str], limit: int) -> list[bytes]:
    from scrapy_boilerplate.training.datasets import load_dataset

    pages = []
    for folder in datasets:
        for page in load_dataset(folder):
            pages.append(page.read_html())
            if len(pages) >= limit:
                return pages
    return pages


def serve(datasets: list[str], limit: int, ready, delay: float = 0.0) -> None:
    """Server process: listing pages /list/N and the pages /p/N.html, each after `delay` s."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    pages = load_pages(datasets, limit)
    routes = {f"/p/{i}.html": body for i, body in enumerate(pages)}
    paths = list(routes)
    chunks = [paths[i : i + PER_LISTING] for i in range(0, len(paths), PER_LISTING)]
    for n, chunk in enumerate(chunks):
        links = "".join(f'<li><a class="page" href="{p}">Page {p}</a></li>' for p in chunk)
        more = f'<a class="next" href="/list/{n + 1}">Next</a>' if n + 1 < len(chunks) else ""
        routes[f"/list/{n}"] = (
            f"<html><head><title>Listing {n}</title></head><body><ul>{links}</ul>{more}</body></html>"
        ).encode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            if delay:
                time.sleep(delay)  # a network round trip and a server's own work
            body = routes.get(self.path)
            self.send_response(200 if body is not None else 404)
            body = body if body is not None else b"not found"
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    class Server(ThreadingHTTPServer):
        request_queue_size = 128  # the default 5 drops connections under load

    httpd = Server(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    ready.send((httpd.server_address[1], len(pages)))
    httpd.serve_forever()


class ReactorLag:
    """How late a 5 ms timer fires during the crawl: how long the reactor was kept busy."""

    INTERVAL = 0.005

    def __init__(self):
        self.late: list[float] = []
        self.call = None

    def start(self) -> None:
        from twisted.internet.task import LoopingCall

        self.last = time.perf_counter()
        self.call = LoopingCall(self.tick)
        self.call.start(self.INTERVAL, now=False)

    def tick(self) -> None:
        now = time.perf_counter()
        self.late.append(max(0.0, now - self.last - self.INTERVAL))
        self.last = now

    def stop(self) -> None:
        if self.call is not None and self.call.running:
            self.call.stop()

    def summary(self) -> dict:
        late = sorted(self.late) or [0.0]
        return {"p50": 1000 * late[len(late) // 2], "p99": 1000 * late[int(len(late) * 0.99)], "max": 1000 * late[-1]}


def run_crawl(base: str, settings: dict, spider: str) -> dict:
    """One crawl in this process; returns its figures."""
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.linkextractors import LinkExtractor
    from scrapy.spiders import CrawlSpider, Rule

    class ThroughputCrawlSpider(CrawlSpider):
        # The shape of example_project's spider: follow every link of the site.
        name = "throughput"
        # The site's own URL patterns, as a real CrawlSpider has them (the stored
        # pages' relative links would otherwise lead to 404s on this server).
        rules = (Rule(LinkExtractor(allow=[re.escape(base) + r"/(?:p|list)/"]), callback="parse_page", follow=True),)

        async def start(self):
            yield scrapy.Request(base + "/list/0")

        def parse_page(self, response):
            yield {"url": response.url, "title": response.css("title::text").get()}

    class ThroughputMinimalSpider(scrapy.Spider):
        # Only the listing links, and one CSS query per page.
        name = "throughput"

        async def start(self):
            yield scrapy.Request(base + "/list/0", callback=self.parse_listing)

        def parse_listing(self, response):
            yield from response.follow_all(css="a.page", callback=self.parse_page)
            yield from response.follow_all(css="a.next", callback=self.parse_listing)

        def parse_page(self, response):
            yield {"url": response.url, "title": response.css("title::text").get()}

    items = []

    class Count:
        def process_item(self, item):
            items.append(bool(item.get("main_text")))
            return item

    process = CrawlerProcess(
        {"LOG_LEVEL": "WARNING", "ITEM_PIPELINES": {Count: 999}, "TELNETCONSOLE_ENABLED": False, **settings}
    )
    crawler = process.create_crawler(ThroughputCrawlSpider if spider == "crawl" else ThroughputMinimalSpider)
    lag = ReactorLag()
    crawler.signals.connect(lag.start, signal=signals.spider_opened)
    crawler.signals.connect(lag.stop, signal=signals.spider_closed)
    process.crawl(crawler)
    process.start()
    stats = crawler.stats.get_stats()
    pages = stats.get("downloader/response_status_count/200", 0)
    elapsed = stats["elapsed_time_seconds"]
    return {
        "pages": pages,
        "items": len(items),
        "items_with_text": sum(items),
        "seconds": elapsed,
        "pages_per_second": pages / elapsed,
        "reactor_lag_ms": lag.summary(),
        "boilerplate": {k: v for k, v in stats.items() if k.startswith("boilerplate/")},
    }


def cpu_seconds() -> tuple[float | None, float]:
    """(CPU seconds the whole machine has been busy, None off Linux; CPU seconds of this
    process and its waited-for children): their growth apart = other processes' work."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(n) for n in stat.readline().split()[1:9]]
        busy = (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # not idle, iowait
    except OSError:
        busy = None
    own = sum(
        r.ru_utime + r.ru_stime
        for r in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )
    return busy, own


def crawl_in_subprocess(base: str, settings: dict, spider: str) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--run-crawl", base, "--spider", spider, "--settings", json.dumps(settings)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"crawl failed with status {out.returncode}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="*", default=[str(d) for d in DEFAULT_DATASETS])
    parser.add_argument("--pages", type=int, default=600)
    parser.add_argument("--executor", default="inline", choices=("inline", "thread", "process"))
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="BOILERPLATE_EXECUTOR_WORKERS (default: None, the number of CPUs, at most 4)",
    )
    parser.add_argument(
        "--spider",
        default="crawl",
        choices=("crawl", "minimal"),
        help="crawl: a CrawlSpider following every link (default); minimal: listing links only, one CSS query per page",
    )
    parser.add_argument("--concurrency", type=int, default=16, help="CONCURRENT_REQUESTS")
    parser.add_argument(
        "--server-delay-ms",
        type=float,
        default=0.0,
        help="answer each request after this delay (a slow network; default 0)",
    )
    parser.add_argument("--settings", default="{}", help="extra Scrapy settings (JSON) for both crawls")
    parser.add_argument("--run-crawl", metavar="BASE_URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    extra = json.loads(args.settings)
    if args.run_crawl:
        print(json.dumps(run_crawl(args.run_crawl, extra, args.spider)))
        return

    for folder in args.datasets:
        if not (Path(folder) / "pages.jsonl").is_file():
            raise SystemExit(f"no dataset at {folder} (expected pages.jsonl); pass DATASET_DIR")
    load_before = os.getloadavg()[0]  # the machine may be shared: say how busy it was
    busy_before, own_before = cpu_seconds()
    receive, send = multiprocessing.Pipe(duplex=False)
    server = multiprocessing.Process(
        target=serve, daemon=True, args=(args.datasets, args.pages, send, args.server_delay_ms / 1000)
    )
    server.start()
    port, served = receive.recv()
    base = f"http://127.0.0.1:{port}"
    common = {"CONCURRENT_REQUESTS": args.concurrency, "CONCURRENT_REQUESTS_PER_DOMAIN": args.concurrency, **extra}
    try:
        without = crawl_in_subprocess(base, common, args.spider)
        with_addon = crawl_in_subprocess(
            base,
            {
                **common,
                "ADDONS": {"scrapy_boilerplate.Addon": 0},
                "BOILERPLATE_EXECUTOR": args.executor,
                "BOILERPLATE_EXECUTOR_WORKERS": args.workers,
            },
            args.spider,
        )
    finally:
        server.terminate()
        server.join()
    busy_after, own_after = cpu_seconds()

    for crawl in (without, with_addon):
        if crawl["pages"] < served:
            raise SystemExit(f"a crawl saw {crawl['pages']} pages of {served}: {crawl}")
    ratio = with_addon["pages_per_second"] / without["pages_per_second"]
    print(
        f"{time.strftime('%Y-%m-%d %H:%M')}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, {served} real pages + listings from {', '.join(args.datasets)}, "
        f"spider={args.spider}, CONCURRENT_REQUESTS={args.concurrency}, executor={args.executor}, "
        f"workers={args.workers or f'default ({max(1, min(4, os.cpu_count() or 1))})'}, "
        f"server delay {args.server_delay_ms:g} ms, "
        f"load average before {load_before:.2f}"
    )
    print(
        f"without the add-on: {without['pages']} pages in {without['seconds']:.2f} s = "
        f"{without['pages_per_second']:.1f} pages/s ({without['items']} items); "
        f"reactor lag p99 {without['reactor_lag_ms']['p99']:.0f} ms, "
        f"max {without['reactor_lag_ms']['max']:.0f} ms"
    )
    print(
        f"with the add-on:    {with_addon['pages']} pages in {with_addon['seconds']:.2f} s = "
        f"{with_addon['pages_per_second']:.1f} pages/s ({with_addon['items']} items, "
        f"{with_addon['items_with_text']} with main_text); "
        f"reactor lag p99 {with_addon['reactor_lag_ms']['p99']:.0f} ms, "
        f"max {with_addon['reactor_lag_ms']['max']:.0f} ms"
    )
    print(f"ratio: {ratio:.0%} (target: at least 70%)")
    if busy_before is not None:
        others = (busy_after - busy_before) - (own_after - own_before)
        print(
            f"CPU: this benchmark {own_after - own_before:.1f} s, other processes {max(0.0, others):.1f} s "
            f"meanwhile (more than about 1 s: the figures above are disturbed)"
        )
    bp = with_addon["boilerplate"]
    where = " (in the workers)" if args.executor == "process" else ""
    if bp.get("boilerplate/overview/checked"):
        print(
            f"overview detection{where}: {bp['boilerplate/overview/checked']} pages, "
            f"{bp['boilerplate/overview/seconds_total']:.2f} s in total, "
            f"max {bp['boilerplate/overview/seconds_max'] * 1000:.0f} ms"
        )
    if bp.get("boilerplate/pages_extracted"):
        print(
            f"extraction{where}: {bp['boilerplate/pages_extracted']} pages, "
            f"{bp['boilerplate/extract_seconds_total']:.2f} s in total, "
            f"max {bp['boilerplate/extract_seconds_max'] * 1000:.0f} ms"
        )
    print(json.dumps({"without": without, "with": with_addon, "ratio": ratio}), file=sys.stderr)


if __name__ == "__main__":
    main()
