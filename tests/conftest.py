"""Shared paths, helpers and markers of the test suite.

Markers (registered in setup.cfg):

- ``slow``: real crawls in child processes, worker processes, model training;
  ``pytest -m "not slow"`` leaves them out.
- ``scaling``: a stage's work counted under valgrind (tests/scaling; also ``slow``): the
  session fixture ``counted`` counts every case the session selected, once.
- ``needs_shared``: the test reads the development datasets in ``../shared/datasets``
  (next to the checkout). Where that folder is missing every such test is skipped with
  the reason (``-rs`` prints it); ``pytest -m "not needs_shared"`` leaves them out.
  A test never lowers what it checks when the data is missing: the part that needs
  the data is a test of its own, marked. A test of one rule on a few real pages reads
  their cut copies in tests/fixtures/real instead (``real_page``, ``shared_unless_cut``,
  ``unless_cut``: marked only where a page is not cut); what stays marked is a figure
  over a whole set or a sample of one, and says so: ``needs_shared("why")``.
"""

import functools
import json
import os
import sys
import tarfile
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
SHARED_SITES = SHARED.parent / "sites"

FIXTURE_NAMES = ["article_en", "article_de", "article_jsonld"]
# A handful of real pages cut down from ../shared/datasets (tests/support/cut_fixtures.py; their
# sources in tests/fixtures/README.md), in the dataset format: the tests that name one of them run
# without ../shared.
REAL_FIXTURES = FIXTURES / "real"


SHARED_MISSING = (
    f"needs the development datasets: {SHARED} not found (they live in ../shared/datasets "
    "next to the repository checkout)"
)


def pytest_collection_modifyitems(config, items):
    if SHARED.is_dir():
        return
    for item in items:
        if (marker := item.get_closest_marker("needs_shared")) is not None:
            # needs_shared("why"): why the test needs the whole sets, not a cut page (say it).
            why = f" (needed: {marker.args[0]})" if marker.args else ""
            item.add_marker(pytest.mark.skip(reason=SHARED_MISSING + why))


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


@functools.cache
def cut_page_ids(name: str) -> frozenset[str]:
    """The ids of the pages of dataset `name` that tests/fixtures/real holds."""
    folder = REAL_FIXTURES / name
    return frozenset(p.id for p in load_dataset(folder)) if (folder / "pages.jsonl").is_file() else frozenset()


def real_page(name: str, page_id: str):
    """Page `page_id` of dataset `name`: its cut copy in tests/fixtures/real if there is one
    (the same extraction, checked when it was cut), else the dataset's (or skip the test)."""
    if page_id in cut_page_ids(name):
        return next(p for p in load_dataset(REAL_FIXTURES / name) if p.id == page_id)
    return load_shared_pages(name, None, where=lambda p: p.id == page_id)[0]


def cut_real_pages() -> list:
    """Every page of tests/fixtures/real."""
    folders = sorted(f for f in REAL_FIXTURES.iterdir() if (f / "pages.jsonl").is_file())
    return [page for folder in folders for page in load_dataset(folder)]


def site_page(site: str, member: str) -> bytes | None:
    """File `member` of the real static site `site`: its copy in tests/fixtures/real/sites if there
    is one (tests/support/cut_fixtures.py), else from ../shared/sites/<site>/site.tar.gz; None
    without either."""
    copy = REAL_FIXTURES / "sites" / site / member
    if copy.is_file():
        return copy.read_bytes()
    archive = SHARED_SITES / site / "site.tar.gz"
    if not archive.is_file():
        return None
    with tarfile.open(archive) as tar:
        handle = tar.extractfile(member)
        return handle.read() if handle is not None else None


def site_labels(site: str) -> dict[str, str] | None:
    """The labels of the site's files (site.json's), from the copy or ../shared; None without either."""
    for folder in (REAL_FIXTURES / "sites" / site, SHARED_SITES / site):
        if (folder / "site.json").is_file():
            return json.loads((folder / "site.json").read_text(encoding="utf-8"))["labels"]
    return None


def site_pages_are_copied(site: str, *members: str) -> bool:
    return all((REAL_FIXTURES / "sites" / site / member).is_file() for member in (*members, "site.json"))


def unless_copied(site: str, *members: str):
    """Decorator: the test is marked needs_shared unless tests/fixtures/real has the site's pages."""
    return (lambda test: test) if site_pages_are_copied(site, *members) else needs_shared


def unless_cut(*pages: tuple[str, str]):
    """Decorator: the test is marked needs_shared unless every (dataset, id) of `pages` is cut."""
    if all(page_id in cut_page_ids(name) for name, page_id in pages):
        return lambda test: test
    return needs_shared


def shared_unless_cut(name: str, page_id: str, *values):
    """pytest.param(name, page_id, *values), marked needs_shared unless the page is cut."""
    marks = () if page_id in cut_page_ids(name) else (needs_shared,)
    return pytest.param(name, page_id, *values, marks=marks)


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


@pytest.fixture(scope="session")
def counted(request):
    """The scaling tests' work counts, by case (tests/scaling/counting.py)."""
    sys.path.insert(0, str(TESTS / "scaling"))
    import counting

    return counting.count_session(request)
