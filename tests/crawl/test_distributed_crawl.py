"""Two Scrapy processes sharing one crawl through scrapy-redis (scheduler and dupefilter) and one
site-memory store in the same real redis-server: every page crawled once, every item complete,
every page recorded once in the shared store."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pytest
from conftest import SUPPORT
from redis_server import RedisServer
from server import LoopbackServer
from template_site import article, page_html

ARTICLES = 18


#: Seconds a story waits, at most, for the other process to ask for a page.
BOTH_STARTED_TIMEOUT = 120


def routes(processes: int = 1) -> dict:
    """The site; its stories are held back until `processes` crawls (by their User-Agent) have
    asked for pages, so that each process gets a share however slowly the other starts."""
    out: dict = {}
    agents: set[str] = set()
    all_started = threading.Event()

    def story(body: bytes):
        def route(headers):
            agents.add(headers.get("User-Agent", ""))
            if len(agents) >= processes:
                all_started.set()
            all_started.wait(BOTH_STARTED_TIMEOUT)
            return body

        return route

    per_section = 6
    sections = []
    for s in range(ARTICLES // per_section):
        ids = range(s * per_section, (s + 1) * per_section)
        links = "".join(f'<li><a href="/news/story-{i}.html">Story {i}</a></li>' for i in ids)
        out[f"/section/{s}.html"] = f"<html><body><h1>Section {s}</h1><ul>{links}</ul></body></html>".encode()
        sections.append(f'<li><a href="/section/{s}.html">Section {s}</a></li>')
    out["/"] = f"<html><body><h1>Home</h1><ul>{''.join(sections)}</ul></body></html>".encode()
    for i in range(ARTICLES):
        out[f"/news/story-{i}.html"] = story(page_html(i).encode())
    return out


@pytest.mark.parametrize("executor", ["inline", "process"])
def test_two_processes_share_a_crawl_and_the_site_memory(tmp_path, executor):
    pytest.importorskip("scrapy_redis", reason="scrapy-redis is not installed (pip install scrapy-redis)")
    server = RedisServer().start()
    try:
        import redis

        client = redis.Redis.from_url(server.url)
        with LoopbackServer(routes(processes=2)) as site:
            client.lpush("distributed:start_urls", site.url("/"))
            # Both take requests from the shared queue; the site holds its stories back until both
            # have asked for one, so that the first cannot take the whole crawl.
            extra = {
                "BOILERPLATE_EXECUTOR": executor,
                "BOILERPLATE_EXECUTOR_WORKERS": 1,
                "CONCURRENT_REQUESTS": 4,
                "DOWNLOAD_DELAY": 0.5,
                "RANDOMIZE_DOWNLOAD_DELAY": False,
            }
            outputs = [tmp_path / f"crawl{n}.json" for n in range(2)]

            def start(n: int) -> subprocess.Popen:
                return subprocess.Popen(
                    [
                        sys.executable,
                        str(SUPPORT / "distributed_crawl.py"),
                        server.url,
                        str(outputs[n]),
                        json.dumps({**extra, "USER_AGENT": f"crawl{n}"}),
                    ],
                    cwd=SUPPORT,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )

            # The second process starts once the first has queued requests in Redis: one that
            # finds the shared queue empty for MAX_IDLE_TIME_BEFORE_CLOSE (3 s) closes, and on a
            # loaded machine the first can take longer than that to start.
            procs = [start(0)]
            deadline = time.monotonic() + 120
            while not client.zcard("distributed:requests") and procs[0].poll() is None:
                assert time.monotonic() < deadline, "the first process queued no request"
                time.sleep(0.05)
            procs.append(start(1))
            errs = [p.communicate(timeout=240)[1] for p in procs]
            for p, err in zip(procs, errs):
                assert p.returncode == 0, err[-3000:]
            results = [json.loads(out.read_text(encoding="utf-8")) for out in outputs]
            requested = list(site.requests)
        items = [item for result in results for item in result["items"]]
        urls = [item["url"] for item in items]
        # Every article once, from one process or the other; every page fetched once.
        assert sorted(urls) == sorted(site.url(f"/news/story-{i}.html") for i in range(ARTICLES))
        duplicates = sorted({path for path in requested if requested.count(path) > 1})
        assert not duplicates and len(requested) == ARTICLES + ARTICLES // 6 + 1, (duplicates, len(requested))
        # Every item complete: its article's text.
        for item in items:
            i = int(item["url"].rsplit("-", 1)[1].split(".")[0])
            _, paragraphs = article(i)
            assert all(p in item["main_text"] for p in paragraphs), item["url"]
        # Both processes worked, and the shared store saw each page once.
        stats = [r["stats"] for r in results]
        assert all(s.get("boilerplate/pages_extracted", 0) > 0 for s in stats), stats
        recorded = sum(s.get("boilerplate/templates/pages_recorded", 0) for s in stats)
        assert recorded == ARTICLES + ARTICLES // 6 + 1 or recorded == ARTICLES
        assert int(client.hget("boilerplate:templates:127.0.0.1", "#")) == recorded
        assert sum(s.get("boilerplate/templates/evidence_used", 0) for s in stats) > 0
        assert not any(s.get("boilerplate/templates/errors") for s in stats)
        for r in results:
            assert not [rec for rec in r["log"] if rec[0] in ("ERROR", "CRITICAL")], r["log"]
    finally:
        server.stop()
