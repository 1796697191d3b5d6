"""RedisTemplateStore against a real redis-server (started by the tests on a free loopback port)."""

from __future__ import annotations

import logging
import pickle
import time

import pytest
from redis_server import RedisServer, free_port
from template_site import page_html, page_url

from scrapy_boilerplate import Extractor, MemoryTemplateStore, extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import to_element
from scrapy_boilerplate.core.site_memory import templates as tpl


def redis_store(server, **kwargs):
    from scrapy_boilerplate import RedisTemplateStore

    return RedisTemplateStore.from_url(server.url, **kwargs)


def test_same_results_as_memory_store(redis_server, dataset_pages):
    """The same pages in the same order: the same counts, the same text, page after page;
    with a small cap, so that pruning happens in both."""
    memory = MemoryTemplateStore(max_fingerprints=300, warmup=2)
    redis = redis_store(redis_server, max_fingerprints=300, warmup=2, prefix="t:")
    extractor = Extractor()
    pages = [(page_html(i), page_url(i)) for i in range(8)]
    pages += [
        (p.read_html(), p.url)
        for p in dataset_pages("wcxb-dev", where=lambda p: tpl.site_key(p.url) in ("rei.com", "developer.mozilla.org"))
    ]
    for html, url in pages:
        a = extractor.extract(html, url=url, templates=memory)
        b = extractor.extract(html, url=url, templates=redis)
        assert a.text == b.text, url
        assert [x.probability for x in a.blocks] == [x.probability for x in b.blocks], url
        site = tpl.site_key(url)
        assert memory.site_state(site) == redis.site_state(site), url
    assert memory.stats == redis.stats
    assert redis.stats["evidence_used"] > 0 and redis.stats["errors"] == 0


def test_one_round_trip_per_page_ttl_and_prefix(redis_server):
    store = redis_store(redis_server, prefix="crawl7:", ttl=100)
    calls = []
    real = store.client.execute_command

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    store.client.execute_command = counting
    per_page = []
    for i in range(3):
        calls.clear()
        extract(page_html(i), url=page_url(i), templates=store)
        per_page.append(list(calls))
    # One EVALSHA a page; the very first also loads the script into the server.
    assert per_page[0][-1] == "EVALSHA" and set(per_page[0]) <= {"EVALSHA", "SCRIPT LOAD", "EVAL"}
    assert per_page[1:] == [["EVALSHA"], ["EVALSHA"]]
    assert store.client.keys("*") == [b"crawl7:courier.example"]
    assert 90 < store.client.ttl("crawl7:courier.example") <= 100
    assert int(store.client.hget("crawl7:courier.example", "#")) == 3


def test_unreachable_goes_on_without_and_logs_once(caplog):
    RedisServer()  # skips without the redis package
    from scrapy_boilerplate import RedisTemplateStore

    store = RedisTemplateStore.from_url(f"redis://127.0.0.1:{free_port()}/0", timeout=0.2, retry_after=60)
    caplog.set_level(logging.WARNING)
    start = time.monotonic()
    for i in range(5):
        html, url = page_html(i), page_url(i)
        assert extract(html, url=url, templates=store).text == extract(html, url=url).text
    assert time.monotonic() - start < 3
    assert store.stats["errors"] == 1  # then no new attempt before retry_after
    assert caplog.text.count("template store at redis://127.0.0.1") == 1


def test_server_killed_and_back(redis_server, caplog):
    store = redis_store(redis_server, timeout=0.2, retry_after=0.3, warmup=1)
    for i in range(3):
        extract(page_html(i), url=page_url(i), templates=store)
    redis_server.stop()
    caplog.set_level(logging.INFO)
    for i in range(3, 6):
        html, url = page_html(i), page_url(i)
        assert extract(html, url=url, templates=store).text == extract(html, url=url).text
    assert store.stats["errors"] >= 1
    assert caplog.text.count("failed (") == 1
    # The server comes back (empty: no persistence): the store reconnects by itself.
    RedisServer(redis_server.port).start()
    redis_server.process = None
    try:
        time.sleep(0.35)
        extract(page_html(7), url=page_url(7), templates=store)
        assert store.site_state("courier.example")[0] == 1
        assert "reachable again" in caplog.text
    finally:
        store.client.shutdown(nosave=True)


def test_pickles_to_a_new_connection(redis_server):
    store = redis_store(redis_server, prefix="p:", warmup=4, ttl=50)
    copy = pickle.loads(pickle.dumps(store))
    assert copy.settings() == store.settings() and copy.url == store.url
    page = build_page(to_element(page_html(1)), base_url=page_url(1))
    copy.evidence(page, page_url(1))
    assert store.site_state("courier.example")[0] == 1


def test_missing_package_message(no_redis_package):
    from scrapy_boilerplate.core.site_memory import redis_store as templates_redis

    with pytest.raises(ImportError, match=r"scrapy-boilerplate-removal\[redis\]"):
        templates_redis.RedisTemplateStore.from_url("redis://127.0.0.1:1/0")
