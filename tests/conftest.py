"""Shared paths, helpers and markers of the test suite.

Markers (registered in setup.cfg):

- ``slow``: real crawls in child processes, worker processes, model training;
  ``pytest -m "not slow"`` leaves them out.
- ``needs_shared``: the test reads the development datasets in ``../shared/datasets``
  (next to the checkout). Where that folder is missing every such test is skipped with
  the reason (``-rs`` prints it); ``pytest -m "not needs_shared"`` leaves them out.
  A test never lowers what it checks when the data is missing: the part that needs
  the data is a test of its own, marked.
"""

import os
import sys
from pathlib import Path

import pytest

from scrapy_boilerplate.training.datasets import load_dataset

TESTS = Path(__file__).resolve().parent
# Crawls, commands and worker processes run in child processes: they must import this
# checkout's package, not another one installed in the environment (an editable install
# of another working tree, a release).
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS.parent), os.environ.get("PYTHONPATH")]))
FIXTURES = TESTS / "fixtures"
# The modules and scripts the tests share: loopback servers, sites, crawls run in child processes.
SUPPORT = TESTS / "support"
sys.path.insert(0, str(SUPPORT))
# CI clones the repository next to ../shared, which holds the development datasets.
SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"

FIXTURE_NAMES = ["article_en", "article_de", "article_jsonld"]


SHARED_MISSING = (
    f"needs the development datasets: {SHARED} not found (they live in ../shared/datasets "
    "next to the repository checkout)"
)


def pytest_collection_modifyitems(config, items):
    if SHARED.is_dir():
        return
    skip = pytest.mark.skip(reason=SHARED_MISSING)
    for item in items:
        if item.get_closest_marker("needs_shared") is not None:
            item.add_marker(skip)


needs_shared = pytest.mark.needs_shared
slow = pytest.mark.slow


def fixture_bytes(name: str) -> bytes:
    """Raw bytes of tests/fixtures/<name>.html."""
    return (FIXTURES / f"{name}.html").read_bytes()


def load_shared_pages(name: str, n: int | None = None, where=None) -> list:
    """The first `n` pages of ../shared/datasets/<name> for which `where(page)` is true.

    Skips the calling test, with the reason, when the dataset is not there. A test
    that calls it is marked ``needs_shared``.
    """
    folder = SHARED / name
    if not (folder / "pages.jsonl").is_file():
        pytest.skip(
            f"../shared/datasets/{name} not found: expected {folder / 'pages.jsonl'} "
            "(the development datasets live next to the repository checkout)"
        )
    pages = [p for p in load_dataset(folder) if where is None or where(p)]
    if not pages:
        pytest.skip(f"../shared/datasets/{name} has no page matching the test's selection")
    return pages if n is None else pages[:n]


@pytest.fixture
def dataset_pages():
    """`dataset_pages(name, n, where=None)`: pages of a shared dataset, or skip the test."""
    return load_shared_pages


@pytest.fixture
def redis_server():
    """A redis-server of its own on a free loopback port (tests/support/redis_server.py); skips without one."""
    from redis_server import RedisServer

    server = RedisServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def no_redis_package(monkeypatch):
    """Every import of the optional `redis` package fails, as where it is not installed."""
    import builtins

    real_import = builtins.__import__

    def no_redis(name, *args, **kwargs):
        if name == "redis" or name.startswith("redis."):
            raise ImportError("No module named 'redis'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_redis)
