"""Site memory in real crawls: BOILERPLATE_TEMPLATE_STORE = "memory" and a real redis-server,
inline and with the "process" executor, against a loopback site where one template wraps
different articles; and a crawl whose Redis is not there."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import SUPPORT
from redis_server import RedisServer, free_port
from server import LoopbackServer
from template_site import PRINT_NOTE, page_html

from scrapy_boilerplate import Extractor, MemoryTemplateStore

PAGES = 10
WARMUP = 3

pytestmark = pytest.mark.filterwarnings("ignore")


def routes() -> dict:
    out = {}
    for i in range(PAGES):
        links = [f"/news/story-{i + 1}.html"] if i + 1 < PAGES else []
        out[f"/news/story-{i}.html"] = page_html(i, links).encode()
    return out


@pytest.fixture(scope="module")
def site():
    with LoopbackServer(routes()) as server:
        yield server


def run_crawls(server, specs: dict, tmp_path) -> dict:
    output = tmp_path / "crawls.json"
    done = subprocess.run(
        [
            sys.executable,
            str(SUPPORT / "templates_crawl.py"),
            server.url("/news/story-0.html"),
            json.dumps(specs),
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=SUPPORT,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    results = json.loads(output.read_text(encoding="utf-8"))
    for name, result in results.items():
        assert result["stats"].get("finish_reason") == "finished", (name, done.stderr[-3000:])
    return results


def expected_texts(server, store) -> dict:
    extractor = Extractor()
    out = {}
    for i in range(PAGES):
        url = server.url(f"/news/story-{i}.html")
        out[url] = extractor.extract(
            page_html(i, [f"/news/story-{i + 1}.html"] if i + 1 < PAGES else []), url=url, templates=store
        ).text
    return out


def check(result: dict, expected: dict, errors: int = 0, name: str = "") -> None:
    texts = {item["url"]: item["main_text"] for item in result["items"]}
    assert texts == expected, name
    stats = result["stats"]
    if errors:
        assert stats.get("boilerplate/templates/errors", 0) >= errors
        assert "boilerplate/templates/evidence_used" not in stats
    else:
        assert stats["boilerplate/templates/pages_recorded"] == PAGES
        assert stats["boilerplate/templates/sites"] == 1
        assert stats["boilerplate/templates/evidence_used"] == PAGES - WARMUP
        assert "boilerplate/templates/errors" not in stats


def test_crawls_with_site_memory(site, tmp_path):
    server = RedisServer().start()
    try:
        common = {"BOILERPLATE_TEMPLATE_WARMUP": WARMUP}
        specs = {
            "memory_inline": {**common, "BOILERPLATE_TEMPLATE_STORE": "memory"},
            "memory_process": {
                **common,
                "BOILERPLATE_TEMPLATE_STORE": "memory",
                "BOILERPLATE_EXECUTOR": "process",
                "BOILERPLATE_EXECUTOR_WORKERS": 1,
            },
            "redis_inline": {**common, "BOILERPLATE_TEMPLATE_STORE": server.url, "BOILERPLATE_TEMPLATE_PREFIX": "a:"},
            "redis_process": {
                **common,
                "BOILERPLATE_TEMPLATE_STORE": server.url,
                "BOILERPLATE_TEMPLATE_PREFIX": "b:",
                "BOILERPLATE_EXECUTOR": "process",
                "BOILERPLATE_EXECUTOR_WORKERS": 1,
            },
            # Two workers: pages in flight together reach the store in either order.
            "memory_process_2": {
                **common,
                "BOILERPLATE_TEMPLATE_STORE": "memory",
                "BOILERPLATE_EXECUTOR": "process",
                "BOILERPLATE_EXECUTOR_WORKERS": 2,
            },
            "memory_thread": {
                **common,
                "BOILERPLATE_TEMPLATE_STORE": "memory",
                "BOILERPLATE_EXECUTOR": "thread",
                "BOILERPLATE_EXECUTOR_WORKERS": 2,
            },
            "off": {},
        }
        results = run_crawls(site, specs, tmp_path)
        with_memory = expected_texts(site, MemoryTemplateStore(warmup=WARMUP))
        for name in ("memory_inline", "memory_process", "redis_inline", "redis_process"):
            check(results[name], with_memory, name=name)
            assert not [r for r in results[name]["log"] if r[0] in ("WARNING", "ERROR")], name
        for name in ("memory_process_2", "memory_thread"):
            stats = results[name]["stats"]
            assert stats["boilerplate/templates/pages_recorded"] == PAGES, name
            assert stats["boilerplate/templates/sites"] == 1, name
            assert 0 < stats["boilerplate/templates/evidence_used"] <= PAGES - WARMUP, name
            assert len(results[name]["items"]) == PAGES, name
            assert all(item["main_text"] for item in results[name]["items"]), name
        plain = expected_texts(site, None)
        assert {i["url"]: i["main_text"] for i in results["off"]["items"]} == plain
        # Site memory made a difference: the template's print note is gone after the warm-up.
        assert [PRINT_NOTE in with_memory[site.url(f"/news/story-{i}.html")] for i in range(PAGES)] == [
            True
        ] * WARMUP + [False] * (PAGES - WARMUP)
        assert all(PRINT_NOTE in text for text in plain.values())
        assert not any(k.startswith("boilerplate/templates/") for k in results["off"]["stats"])
        # Both Redis crawls wrote their own hash, with every page.
        import redis

        client = redis.Redis.from_url(server.url)
        site_key = "127.0.0.1"
        assert {k.decode() for k in client.keys("*")} == {f"a:{site_key}", f"b:{site_key}"}
        assert int(client.hget(f"a:{site_key}", "#")) == PAGES == int(client.hget(f"b:{site_key}", "#"))
    finally:
        server.stop()


def test_crawl_without_redis_goes_on(site, tmp_path):
    RedisServer()  # skips without redis-server or the redis package
    url = f"redis://127.0.0.1:{free_port()}/0"
    specs = {
        "inline": {"BOILERPLATE_TEMPLATE_STORE": url, "BOILERPLATE_TEMPLATE_TIMEOUT": 0.2},
        "process": {
            "BOILERPLATE_TEMPLATE_STORE": url,
            "BOILERPLATE_TEMPLATE_TIMEOUT": 0.2,
            "BOILERPLATE_EXECUTOR": "process",
            "BOILERPLATE_EXECUTOR_WORKERS": 1,
        },
    }
    results = run_crawls(site, specs, tmp_path)
    plain = expected_texts(site, None)
    for name, result in results.items():
        check(result, plain, errors=1)
        warnings = [r for r in result["log"] if r[0] == "WARNING"]
        assert len(warnings) == 1 and "the template store redis://127.0.0.1" in warnings[0][2], (name, warnings)


def test_bad_setting_stops_the_crawl(site, tmp_path):
    output = tmp_path / "out.json"
    done = subprocess.run(
        [
            sys.executable,
            str(SUPPORT / "templates_crawl.py"),
            site.url("/news/story-0.html"),
            json.dumps({"bad": {"BOILERPLATE_TEMPLATE_STORE": "memcached://x"}}),
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=SUPPORT,
    )
    assert "BOILERPLATE_TEMPLATE_STORE must be" in done.stderr


def test_redis_killed_mid_crawl(site, tmp_path):
    """The server goes away at the 6th page: the crawl goes on, those pages get the text they
    would get without a store, one WARNING, the errors counted; the first pages kept theirs."""
    server = RedisServer().start()
    try:
        specs = {
            "killed": {
                "BOILERPLATE_TEMPLATE_STORE": server.url,
                "BOILERPLATE_TEMPLATE_TIMEOUT": 0.2,
                "BOILERPLATE_TEMPLATE_WARMUP": WARMUP,
                "TEST_REDIS_SHUTDOWN_AT": [server.url, 5],
            }
        }
        result = run_crawls(site, specs, tmp_path)["killed"]
    finally:
        server.stop()
    with_memory = expected_texts(site, MemoryTemplateStore(warmup=WARMUP))
    plain = expected_texts(site, None)
    texts = {item["url"]: item["main_text"] for item in result["items"]}
    urls = [site.url(f"/news/story-{i}.html") for i in range(PAGES)]
    assert [texts[u] for u in urls] == [with_memory[u] for u in urls[:5]] + [plain[u] for u in urls[5:]]
    stats = result["stats"]
    assert stats["boilerplate/templates/pages_recorded"] == 5
    assert stats["boilerplate/templates/evidence_used"] == 5 - WARMUP
    assert stats["boilerplate/templates/errors"] == PAGES - 5
    assert stats["boilerplate/items_enriched"] == PAGES
    warnings = [r for r in result["log"] if r[0] == "WARNING"]
    assert len(warnings) == 1 and "story-5.html" in warnings[0][2], warnings
