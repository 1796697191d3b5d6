"""RedisDuplicateStore against a real redis-server (started by the tests on a free loopback port):
the same verdicts as the memory store, one round trip an item, prefix and TTL, outages."""

from __future__ import annotations

import logging
import time

import numpy as np
import pytest
from redis_server import RedisServer, free_port

from scrapy_boilerplate import DuplicateIndex, MemoryDuplicateStore


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
    assert len(items) == 15 and len(periods) == 1 and len(keys) == 16   # one band hash per period
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
    RedisServer()   # skips without the redis package
    from scrapy_boilerplate import RedisDuplicateStore

    store = RedisDuplicateStore.from_url(f"redis://127.0.0.1:{free_port()}/0", timeout=0.2, retry_after=60)
    index = DuplicateIndex(store=store)
    caplog.set_level(logging.WARNING)
    start = time.monotonic()
    verdicts = [index.judge(_text(i), f"k{i}") for i in range(5)]
    assert time.monotonic() - start < 2
    assert {v.reason for v in verdicts} == {"unavailable"} and not any(v.judged for v in verdicts)
    assert store.errors == 1 and store.outages == 1   # no new attempt before retry_after
    assert caplog.text.count("duplicates store at redis://127.0.0.1") == 1


def test_server_killed_and_back(redis_server, caplog):
    store = redis_store(redis_server, timeout=0.2, retry_after=0.3)
    index = DuplicateIndex(store=store)
    assert index.add(_text(1), "k1") is None
    redis_server.stop()
    caplog.set_level(logging.INFO)
    assert {index.judge(_text(i), f"k{i}").reason for i in range(2, 5)} == {"unavailable"}
    assert caplog.text.count("failed (") == 1
    RedisServer(redis_server.port).start()   # back, empty (no persistence)
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
