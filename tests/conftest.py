"""Shared paths and helpers for the test suite."""

import os
from pathlib import Path

import pytest

from scrapy_boilerplate.training.datasets import load_dataset

TESTS = Path(__file__).resolve().parent
# Crawls, commands and worker processes run in child processes: they must import this
# checkout's package, not another one installed in the environment (an editable install
# of another working tree, a release).
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS.parent), os.environ.get("PYTHONPATH")]))
FIXTURES = TESTS / "fixtures"
# CI clones the repository next to ../shared, which holds the development datasets.
SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"

FIXTURE_NAMES = ["article_en", "article_de", "article_jsonld"]


def fixture_bytes(name: str) -> bytes:
    """Raw bytes of tests/fixtures/<name>.html."""
    return (FIXTURES / f"{name}.html").read_bytes()


def load_shared_pages(name: str, n: int | None = None, where=None) -> list:
    """The first `n` pages of ../shared/datasets/<name> for which `where(page)` is true.

    Skips the calling test, with the reason, when the dataset is not there.
    """
    folder = SHARED / name
    if not (folder / "pages.jsonl").is_file():
        pytest.skip(f"../shared/datasets/{name} not found: expected {folder / 'pages.jsonl'} "
                    "(the development datasets live next to the repository checkout)")
    pages = [p for p in load_dataset(folder) if where is None or where(p)]
    if not pages:
        pytest.skip(f"../shared/datasets/{name} has no page matching the test's selection")
    return pages if n is None else pages[:n]


@pytest.fixture
def dataset_pages():
    """`dataset_pages(name, n, where=None)`: pages of a shared dataset, or skip the test."""
    return load_shared_pages
