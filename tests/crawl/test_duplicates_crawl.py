"""Real crawls with BOILERPLATE_DUPLICATES: real articles (wcxb-dev) and their copies (a print
version, a repost, an AMP-like page; tests/support/duplicates_site.py) on a loopback server,
"flag" and "drop" with every executor; a Redis store killed mid-crawl; two Scrapy processes
sharing one scrapy-redis queue and one Redis store."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections import defaultdict

import pytest
from conftest import SUPPORT, needs_shared
from duplicates_site import COPIES, KINDS, build_routes, stories, story_of
from redis_server import RedisServer
from server import LoopbackServer

pytestmark = [pytest.mark.slow, needs_shared]

STORIES = 4
PAGES = STORIES * len(KINDS)
BASE = {"ADDONS": {"scrapy_boilerplate.Addon": 0}, "BOILERPLATE_OVERVIEW_ACTION": "off"}
SPIDER = "duplicates_site.StoriesSpider"
EXECUTORS = ("inline", "thread", "process")


@pytest.fixture(scope="module")
def site():
    items = stories(STORIES)
    if len(items) < STORIES:
        pytest.skip("needs ../shared/datasets/wcxb-dev (the development datasets)")
    with LoopbackServer(build_routes(items)) as server:
        yield server


def run_crawls(server, specs: dict, tmp_path, timeout: int = 300) -> dict:
    output = tmp_path / "crawls.json"
    done = subprocess.run(
        [sys.executable, str(SUPPORT / "pipeline_crawl.py"), server.url(""), json.dumps(specs), str(output)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=SUPPORT,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    results = json.loads(output.read_text(encoding="utf-8"))
    for name, result in results.items():
        assert result["stats"].get("finish_reason") == "finished", (name, done.stderr[-3000:])
    return results


@pytest.fixture(scope="module")
def crawls(site, tmp_path_factory):
    specs = {}
    for executor in EXECUTORS:
        settings = {**BASE, "BOILERPLATE_EXECUTOR": executor, "BOILERPLATE_EXECUTOR_WORKERS": 2}
        specs[f"flag-{executor}"] = {
            "spider": SPIDER,
            "settings": {
                **settings,
                "BOILERPLATE_DUPLICATES": "flag",
                "BOILERPLATE_DUPLICATE_OF_FIELD": "duplicate_of",
            },
        }
        specs[f"drop-{executor}"] = {"spider": SPIDER, "settings": {**settings, "BOILERPLATE_DUPLICATES": "drop"}}
    specs["off"] = {"spider": SPIDER, "settings": BASE}
    return run_crawls(site, specs, tmp_path_factory.mktemp("crawls"))


def by_story(items: list) -> dict:
    out = defaultdict(list)
    for item in items:
        out[story_of(item["url"])].append(item)
    return out


@pytest.mark.parametrize("executor", EXECUTORS)
def test_flag_names_the_first_of_each_story(crawls, executor):
    result = crawls[f"flag-{executor}"]
    items = result["items"]
    assert len(items) == 2 * PAGES  # nothing lost
    for story, group in by_story(items).items():
        firsts = {item["url"] for item in group if item["duplicate_of"] is None}
        assert len(firsts) == 1, (story, firsts)  # the two items of the first page
        (first,) = firsts
        assert all(item["duplicate_of"] == first for item in group if item["url"] != first), group
        assert all(len(item["main_text"]) > 500 for item in group)
    stats = result["stats"]
    assert stats["boilerplate/duplicates/copies"] == 2 * STORIES * len(COPIES)
    assert stats["boilerplate/duplicates/judged"] == 2 * PAGES
    assert not [r for r in result["log"] if r[0] in ("WARNING", "ERROR", "CRITICAL")], result["log"]


@pytest.mark.parametrize("executor", EXECUTORS)
def test_drop_keeps_each_story_once(crawls, executor):
    result = crawls[f"drop-{executor}"]
    groups = by_story(result["items"])
    assert sorted(groups) == list(range(STORIES))
    for story, group in groups.items():
        assert len({item["url"] for item in group}) == 1 and len(group) == 2, (story, group)
    assert result["stats"]["boilerplate/duplicates/dropped"] == 2 * STORIES * len(COPIES)
    assert result["stats"]["item_dropped_count"] == 2 * STORIES * len(COPIES)
    assert not [r for r in result["log"] if r[0] in ("WARNING", "ERROR", "CRITICAL")], result["log"]


def test_off_judges_nothing(crawls):
    result = crawls["off"]
    assert len(result["items"]) == 2 * PAGES
    assert all("duplicate_of" not in item for item in result["items"])
    assert not any(k.startswith("boilerplate/duplicates/") for k in result["stats"])


def test_redis_killed_mid_crawl_items_go_on_one_warning(site, tmp_path):
    redis_server = RedisServer().start()
    try:
        settings = {
            **BASE,
            "BOILERPLATE_DUPLICATES": "flag",
            "BOILERPLATE_DUPLICATE_OF_FIELD": "duplicate_of",
            "BOILERPLATE_DUPLICATES_STORE": redis_server.url,
            "BOILERPLATE_TEMPLATE_TIMEOUT": 0.2,
            "BOILERPLATE_TEMPLATE_RETRY_AFTER": 1,
            "CONCURRENT_REQUESTS": 1,
            "DOWNLOAD_DELAY": 0.2,
            "RANDOMIZE_DOWNLOAD_DELAY": False,
        }
        site.requests.clear()

        def kill_after_a_few_stories():
            deadline = time.monotonic() + 120
            while sum("/news/" in p for p in list(site.requests)) < 6 and time.monotonic() < deadline:
                time.sleep(0.02)
            redis_server.stop()

        killer = threading.Thread(target=kill_after_a_few_stories, daemon=True)
        killer.start()
        result = run_crawls(site, {"outage": {"spider": SPIDER, "settings": settings}}, tmp_path)["outage"]
        killer.join()
    finally:
        redis_server.stop()
    stats, log = result["stats"], result["log"]
    assert len(result["items"]) == 2 * PAGES  # nothing lost
    assert stats["boilerplate/duplicates/judged"] >= 8 and stats["boilerplate/duplicates/unavailable"] > 0
    warnings = [r for r in log if r[0] == "WARNING"]
    assert len(warnings) == 1 and "Duplicates: the store redis://127.0.0.1" in warnings[0][1], log
    assert not [r for r in log if r[0] in ("ERROR", "CRITICAL")], log


@pytest.mark.parametrize("executor", ["inline", "process"])
def test_two_processes_one_redis_each_story_once(site, tmp_path, executor):
    pytest.importorskip("scrapy_redis", reason="scrapy-redis is not installed (pip install scrapy-redis)")
    server = RedisServer().start()
    try:
        import redis

        client = redis.Redis.from_url(server.url)
        client.lpush("distributed:start_urls", site.url("/"))
        site.requests.clear()
        extra = {
            "BOILERPLATE_EXECUTOR": executor,
            "BOILERPLATE_EXECUTOR_WORKERS": 1,
            "BOILERPLATE_DUPLICATES": "drop",
            "BOILERPLATE_DUPLICATES_STORE": server.url,
            # One request at a time and a delay, so that neither process takes every queued
            # request; and a longer idle time before closing than distributed_crawl.py's
            # 3 s, so that a process waiting for the first pages on a loaded machine stays.
            "CONCURRENT_REQUESTS": 1,
            "DOWNLOAD_DELAY": 0.4,
            "RANDOMIZE_DOWNLOAD_DELAY": False,
            "MAX_IDLE_TIME_BEFORE_CLOSE": 10,
        }
        outputs = [tmp_path / f"crawl{n}.json" for n in range(2)]
        procs = [
            subprocess.Popen(
                [sys.executable, str(SUPPORT / "distributed_crawl.py"), server.url, str(out), json.dumps(extra)],
                cwd=SUPPORT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for out in outputs
        ]
        errs = [p.communicate(timeout=240)[1] for p in procs]
        for p, err in zip(procs, errs):
            assert p.returncode == 0, err[-3000:]
        results = [json.loads(out.read_text(encoding="utf-8")) for out in outputs]
        requested = list(site.requests)
        keys = [k.decode() for k in client.keys("scrapybot:boilerplate:duplicates:i:*")]
    finally:
        server.stop()
    urls = [item["url"] for result in results for item in result["items"]]
    # Each story once, from one process or the other; every page fetched once.
    assert sorted(story_of(u) for u in urls) == list(range(STORIES)), urls
    assert sum("/news/" in p for p in requested) == PAGES and len(set(requested)) == len(requested)
    stats = [r["stats"] for r in results]
    assert all(s.get("boilerplate/pages_extracted", 0) > 0 for s in stats), stats
    assert sum(s.get("boilerplate/duplicates/dropped", 0) for s in stats) == STORIES * len(COPIES)
    assert len(keys) == STORIES  # the first of each story, remembered once for both processes
    for r in results:
        assert not [rec for rec in r["log"] if rec[0] in ("ERROR", "CRITICAL")], r["log"]
