"""RedisDuplicateStore against a real redis-server (started by the tests on a free loopback port):
the same verdicts as the memory store, one round trip an item, prefix and TTL, outages."""

from __future__ import annotations

import asyncio
import logging
import time

import numpy as np
import pytest
from redis_server import RedisServer, free_port
from test_duplicates import recrawled_page_and_a_closer_page
from test_pipeline import Harness, make_crawler

from scrapy_boilerplate import DuplicateIndex, MemoryDuplicateStore
from scrapy_boilerplate import settings as bp
from scrapy_boilerplate.crawl.duplicates import CrawlDuplicates, store_from_settings


def judged(duplicates, text: str, url: str):
    """CrawlDuplicates.judge(text, url), awaited."""
    return asyncio.run(duplicates.judge(text, url))


def redis_store(server, **kwargs):
    from scrapy_boilerplate import RedisDuplicateStore

    return RedisDuplicateStore.from_url(server.url, **kwargs)


def _text(i: int, words: int = 200) -> str:
    rng = np.random.default_rng(i)
    return " ".join(f"t{n}" for n in rng.integers(0, 50_000, words))


def _stream() -> list[tuple[str, str]]:
    """New texts, exact copies, near copies (one word in 25 changed), a copy under its own key."""
    items = []
    for i in range(15):
        items.append((_text(i), f"https://a.example/{i}"))
    for i in range(0, 15, 3):
        items.append((_text(i).upper(), f"https://b.example/exact/{i}"))
        words = _text(i).split()
        words[::25] = ["changed"] * len(words[::25])
        items.append((" ".join(words), f"https://c.example/near/{i}"))
    items.append((_text(2), "https://a.example/2"))
    return items


def test_same_verdicts_as_memory_store(redis_server):
    memory = DuplicateIndex(store=MemoryDuplicateStore())
    redis = DuplicateIndex(store=redis_store(redis_server, prefix="t:"))
    reasons = []
    for text, key in _stream():
        verdict = memory.judge(text, key)
        assert verdict == redis.judge(text, key), key
        reasons.append(verdict.reason)
    assert reasons == ["new"] * 15 + ["exact", "near"] * 5 + ["same_key"]
    assert sum(1 for _ in redis.store.client.scan_iter("t:i:*")) == len(memory.store) == 15


def test_one_round_trip_per_item_prefix_and_ttl(redis_server):
    store = redis_store(redis_server, prefix="crawl9:", ttl=100)
    index = DuplicateIndex(store=store)
    calls = []
    real = store.client.execute_command

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    store.client.execute_command = counting
    per_item = []
    for text, key in _stream()[:20]:
        calls.clear()
        index.judge(text, key)
        per_item.append(list(calls))
    assert per_item[0][-1] == "EVALSHA" and set(per_item[0]) <= {"EVALSHA", "SCRIPT LOAD", "EVAL"}
    assert all(calls == ["EVALSHA"] for calls in per_item[1:])
    keys = [k.decode() for k in store.client.keys("*")]
    items = [k for k in keys if k.startswith("crawl9:i:")]
    periods = [k for k in keys if k.startswith("crawl9:b:")]
    assert len(items) == 15 and len(periods) == 1 and len(keys) == 16  # one band hash per period
    # A text is found for at least ttl seconds, at most twice as long.
    assert all(190 < store.client.ttl(k) <= 200 for k in items)
    assert 250 < store.client.ttl(periods[0]) <= 260


def test_forgotten_after_twice_the_ttl(redis_server):
    index = DuplicateIndex(store=redis_store(redis_server, prefix="short:", ttl=1))
    assert index.add(_text(5), "k5") is None
    assert index.add(_text(5) + " more", "k5-copy") == "k5"
    time.sleep(2.1)
    assert index.judge(_text(5) + " more", "k5-later").reason == "new"


def test_two_processes_meeting_copies_at_once(redis_server):
    """Two stores (as two crawl processes) judging the same new story: one first, one copy."""
    a = DuplicateIndex(store=redis_store(redis_server, prefix="race:"))
    b = DuplicateIndex(store=redis_store(redis_server, prefix="race:"))
    assert a.add(_text(1), "https://a.example/story") is None
    assert b.add(_text(1) + " update", "https://b.example/story") == "https://a.example/story"


def test_unreachable_is_not_judged_within_the_timeout_and_logs_once(caplog):
    RedisServer()  # skips without the redis package
    from scrapy_boilerplate import RedisDuplicateStore

    store = RedisDuplicateStore.from_url(f"redis://127.0.0.1:{free_port()}/0", timeout=0.2, retry_after=60)
    index = DuplicateIndex(store=store)
    caplog.set_level(logging.WARNING)
    start = time.monotonic()
    verdicts = [index.judge(_text(i), f"k{i}") for i in range(5)]
    assert time.monotonic() - start < 2
    assert {v.reason for v in verdicts} == {"unavailable"} and not any(v.judged for v in verdicts)
    assert store.errors == 1 and store.outages == 1  # no new attempt before retry_after
    assert caplog.text.count("duplicates store at redis://127.0.0.1") == 1


def test_server_killed_and_back(redis_server, caplog):
    store = redis_store(redis_server, timeout=0.2, retry_after=0.3)
    index = DuplicateIndex(store=store)
    assert index.add(_text(1), "k1") is None
    redis_server.stop()
    caplog.set_level(logging.INFO)
    assert {index.judge(_text(i), f"k{i}").reason for i in range(2, 5)} == {"unavailable"}
    assert caplog.text.count("failed (") == 1
    RedisServer(redis_server.port).start()  # back, empty (no persistence)
    redis_server.process = None
    try:
        time.sleep(0.35)
        assert index.judge(_text(1), "k1-again").reason == "new"
        assert index.judge(_text(1), "k1-copy").first == "k1-again"
        assert "reachable again" in caplog.text and store.outages == 1
    finally:
        store.client.shutdown(nosave=True)


def test_pickles_to_a_new_connection(redis_server):
    import pickle

    store = redis_store(redis_server, prefix="p:", ttl=50)
    copy = pickle.loads(pickle.dumps(store))
    assert (copy.prefix, copy.ttl, copy.url) == ("p:", 50, store.url)
    DuplicateIndex(store=copy).add(_text(3), "k3")
    assert DuplicateIndex(store=store).add(_text(3), "k4") == "k3"


def test_missing_package_message(no_redis_package):
    from scrapy_boilerplate.core.duplicates import redis_store as module

    with pytest.raises(ImportError, match=r"scrapy-boilerplate-removal\[redis\]"):
        module.RedisDuplicateStore.from_url("redis://127.0.0.1:1/0")


SECRET = "s3cr3t-Pa55"
# Every way a Redis URL carries a password (redis-py reads each), and mistyped ones.
SECRET_URLS = {
    f"redis://user:{SECRET}@127.0.0.1:6379/0": "redis://user:***@127.0.0.1:6379/0",
    f"redis://:{SECRET}@127.0.0.1:6379": "redis://:***@127.0.0.1:6379",
    f"redis://127.0.0.1:6379/0?password={SECRET}&db=1": "redis://127.0.0.1:6379/0?password=***&db=1",
    f"rediss://default:{SECRET}@cache.example:6380/2": "rediss://default:***@cache.example:6380/2",
    f"unix://:{SECRET}@/run/redis.sock?db=0": "unix://:***@/run/redis.sock?db=0",
    f"unix:///run/redis.sock?db=0&password={SECRET}": "unix:///run/redis.sock?db=0&password=***",
    "redis://user:pa@ss@host:6379/0": "redis://user:***@host:6379/0",
    "redis://:pa/ss@host/0": "redis://***@host/0",
    "redis://host/0?password=p@ss": "redis://host/0?password=***",
    f"redis:/:{SECRET}@host": "***@host",
    "redis://127.0.0.1:6379/0": "redis://127.0.0.1:6379/0",
    "unix:///run/redis.sock": "unix:///run/redis.sock",
}


def test_redacted_masks_every_password():
    from scrapy_boilerplate.core.redis_link import redacted

    assert {url: redacted(url) for url in SECRET_URLS} == SECRET_URLS


@pytest.mark.parametrize("form", ["query", "userinfo"])
def test_outage_and_recovery_lines_name_no_password(form, caplog):
    """The store's WARNING and INFO, and the crawl's, through a server that needs the password."""
    from scrapy_boilerplate.crawl.duplicates import CrawlDuplicates

    server = RedisServer(password=SECRET)
    url = (
        f"redis://127.0.0.1:{server.port}/0?password={SECRET}"
        if form == "query"
        else f"redis://default:{SECRET}@127.0.0.1:{server.port}/0"
    )
    crawler = make_crawler(
        BOILERPLATE_DUPLICATES="flag", BOILERPLATE_DUPLICATES_STORE=url, BOILERPLATE_TEMPLATE_RETRY_AFTER=0
    )
    settings = bp.read(crawler.settings)
    duplicates = CrawlDuplicates(crawler, settings)
    store = duplicates.index.store
    store.quiet = False  # the store's own lines too
    caplog.set_level(logging.DEBUG)
    try:
        assert judged(duplicates, _text(1), "https://a.example/1") is None  # down: not judged
        server.start()
        assert judged(duplicates, _text(1), "https://a.example/1") is None  # judged: the first
        assert judged(duplicates, _text(1), "https://b.example/1") == "https://a.example/1"
        assert crawler.stats.get_value("boilerplate/duplicates/unavailable") == 1
        assert "failed (" in caplog.text and "reachable again" in caplog.text
        assert "did not answer" in caplog.text and "answers again" in caplog.text
        assert SECRET not in caplog.text and "***" in caplog.text
    finally:
        duplicates.close()
        server.stop()


def test_setting_errors_name_no_password(no_redis_package):
    for url in (f"redis://:{SECRET}@127.0.0.1:6379/0", f"unix:///run/r.sock?password={SECRET}"):
        with pytest.raises(bp.SettingError) as caught:  # the package is missing
            store_from_settings(bp.read({"BOILERPLATE_DUPLICATES": "flag", "BOILERPLATE_DUPLICATES_STORE": url}))
        assert SECRET not in str(caught.value) and "***" in str(caught.value)
    for name in ("BOILERPLATE_DUPLICATES_STORE", "BOILERPLATE_TEMPLATE_STORE"):  # a typo
        with pytest.raises(bp.SettingError) as caught:
            bp.read({"BOILERPLATE_DUPLICATES": "flag", name: f"redis:/:{SECRET}@127.0.0.1"})
        assert SECRET not in str(caught.value) and name in str(caught.value)


def test_a_page_crawled_again_is_never_a_copy(redis_server):
    """As in the memory store: the page's own earlier text wins over a closer other page."""
    index = DuplicateIndex(store=redis_store(redis_server))
    (a, key), (c, other), (again, _) = recrawled_page_and_a_closer_page()
    assert index.judge(a, key).reason == "new" and index.judge(c, other).reason == "new"
    assert index.judge(again, key).reason == "same_key"
    assert index.add(again, "https://b.example/copy") == "https://c.example/other"


def test_default_prefix_names_the_project(redis_server):
    """Two projects on one Redis: each its own keys, neither flags the other's items."""
    found = {}
    for bot in ("alpha", "beta"):
        crawler = make_crawler(
            BOT_NAME=bot, BOILERPLATE_DUPLICATES="flag", BOILERPLATE_DUPLICATES_STORE=redis_server.url
        )
        duplicates = CrawlDuplicates(crawler, bp.read(crawler.settings))
        try:
            assert duplicates.index.store.prefix == f"{bot}:boilerplate:duplicates:"
            found[bot] = [
                judged(duplicates, _text(1), f"https://{bot}.example/story"),
                judged(duplicates, _text(1), f"https://{bot}.example/print"),
            ]
        finally:
            duplicates.close()
    assert found == {"alpha": [None, "https://alpha.example/story"], "beta": [None, "https://beta.example/story"]}
    import redis

    client = redis.Redis.from_url(redis_server.url)
    assert {k.decode().split(":")[0] for k in client.keys("*")} == {"alpha", "beta"}


def test_empty_prefix_is_refused_at_start_up(redis_server):
    for empty in ("", "  "):
        with pytest.raises(bp.SettingError, match=r"BOILERPLATE_DUPLICATES_PREFIX must be .*not empty"):
            Harness(
                BOILERPLATE_DUPLICATES="flag",
                BOILERPLATE_DUPLICATES_STORE=redis_server.url,
                BOILERPLATE_DUPLICATES_PREFIX=empty,
            )
    with pytest.raises(ValueError, match="prefix must not be empty"):
        redis_store(redis_server, prefix="")
    assert bp.read({"BOILERPLATE_DUPLICATES_PREFIX": "shop:"}).duplicates_prefix == "shop:"
