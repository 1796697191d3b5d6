"""A real crawl (tests/support/charset_crawl.py) of a page whose JSON-LD holds lone surrogates and
of a KOI8-R page served without a charset: both items reach the JSON-lines and CSV feeds, and with
BOILERPLATE_DETECT_CHARSET the spider and the pipeline read the Russian page right (issue 34,
items 2 and 11)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from charset_crawl import routes
from charset_pages import PARAGRAPH, RU_SENTENCE, RU_TITLE
from server import LoopbackServer

pytestmark = pytest.mark.slow

SUPPORT = Path(__file__).resolve().parents[1] / "support"


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("charsets")
    with LoopbackServer(routes()) as server:
        done = subprocess.run(
            [sys.executable, str(SUPPORT / "charset_crawl.py"), str(server.port), str(out)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=SUPPORT,
        )
    assert done.returncode == 0, done.stderr[-5000:]
    result = json.loads((out / "crawl.json").read_text(encoding="utf-8"))
    assert result["stats"].get("finish_reason") == "finished", done.stderr[-3000:]
    return out, result


def by_page(items: list) -> dict:
    return {item["url"].rsplit("/", 1)[1]: item for item in items}


def test_both_items_reach_the_json_lines_feed(crawl):
    out, result = crawl
    lines = (out / "items.jsonl").read_text(encoding="utf-8").splitlines()
    items = by_page([json.loads(line) for line in lines])
    assert sorted(items) == ["koi8.html", "surrogate.html"], result["log"]
    surrogate = items["surrogate.html"]
    assert surrogate["authors"] == ["Bob \ufffd"]
    assert surrogate["description"] == "The pier plan \ufffd"
    assert PARAGRAPH in surrogate["main_text"]
    russian = items["koi8.html"]
    assert russian["spider_title"] == RU_TITLE  # the spider's own parse reads it right
    assert RU_SENTENCE in russian["main_text"]
    assert result["stats"].get("boilerplate/charset/detected") == 1
    assert result["stats"].get("boilerplate/charset/detected/koi8_r") == 1
    assert not [message for level, message in result["log"] if level in ("ERROR", "CRITICAL")]


def test_both_items_reach_the_csv_feed(crawl):
    out, _ = crawl
    with open(out / "items.csv", encoding="utf-8", newline="") as rows:
        items = by_page(list(csv.DictReader(rows)))
    assert sorted(items) == ["koi8.html", "surrogate.html"]
    assert "Bob \ufffd" in items["surrogate.html"]["authors"]
    assert RU_SENTENCE in items["koi8.html"]["main_text"]
