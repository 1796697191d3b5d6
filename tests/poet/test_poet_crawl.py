"""Real crawls with the web-poet page objects (scrapy_boilerplate.poet), in child processes
(tests/support/poet_crawl.py), against sites on 127.0.0.1:

- a plain scrapy-poet spider asking for ``Article`` (and one asking for the page object) on the
  example project's site: every ``articleBody`` is ``extract()``'s text of the response;
- the project's BOILERPLATE_* settings reach the page objects through the add-on, and a bad one
  stops the crawl at start-up with one ERROR line;
- zyte-spider-templates' ``article`` spider on a shared blog (binglau7, served from its files):
  every article an ``Article`` item, none from its list pages, nothing fetched from the network.

The page objects need the ``poet`` extra; the templates test needs zyte-spider-templates on a
Scrapy it runs on (docs/zyte.md): each skips, with the reason, where its packages are missing.
"""

from __future__ import annotations

import json
import mimetypes
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

pytest.importorskip("scrapy_poet", reason="the page objects need the 'poet' extra (pip install -e '.[poet]')")
pytest.importorskip("zyte_common_items", reason="the page objects need the 'poet' extra (pip install -e '.[poet]')")

from pipeline_site import ARTICLES, site_file
from poet_crawl import ADDONS
from server import LoopbackServer, index_page

from scrapy_boilerplate import extract

pytestmark = pytest.mark.slow

SUPPORT = Path(__file__).resolve().parents[1] / "support"
SHARED_SITES = Path(__file__).resolve().parents[3] / "shared" / "sites"
# tldextract (the templates use it) fetches the public suffix list on first use unless told not
# to, as docs/zyte.md says: the crawls here must not reach the network.
NO_SUFFIX_DOWNLOAD = {"TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}


def scrapy_version() -> tuple[int, int]:
    import scrapy

    major, minor = scrapy.__version__.split(".")[:2]
    return int(major), int(minor)


def crawl(mode: str, url: str, settings: dict | None = None, check: bool = True) -> dict:
    out = subprocess.run(
        [sys.executable, str(SUPPORT / "poet_crawl.py"), mode, url, json.dumps(settings or {})],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=SUPPORT,
        env={**os.environ, **NO_SUFFIX_DOWNLOAD},
    )
    if check:
        assert out.returncode == 0, out.stderr[-5000:]
        result: dict = json.loads(out.stdout)
        result["stderr"] = out.stderr
        return result
    return {"returncode": out.returncode, "stderr": out.stderr}


@pytest.fixture(scope="module")
def example_site():
    routes = {path: site_file(path) for path in ARTICLES}
    routes["/"] = index_page(ARTICLES)
    with LoopbackServer(routes) as server:
        yield server


def test_a_scrapy_poet_spider_gets_extract_s_text_as_article_body(example_site):
    result = crawl("article", example_site.url("/"))
    items = {item["url"]: item for item in result["items"]}
    assert set(items) == {example_site.url(path) for path in ARTICLES}
    for path in ARTICLES:
        url = example_site.url(path)
        item = items[url]
        expected = extract(site_file(path).decode("utf-8"), url=url)
        assert item["articleBody"] == expected.text
        assert item["headline"] == expected.title
        assert item["metadata"]["probability"] > 0.5
    assert result["outside"] == []


def test_a_page_object_as_the_callback_s_argument(example_site):
    result = crawl("page", example_site.url("/"))
    assert len(result["items"]) == len(ARTICLES)
    for item in result["items"]:
        assert item["article"]["articleBody"] == item["extract_text"]
        assert item["article"]["articleBody"]


def test_the_project_s_settings_reach_the_page_objects(example_site):
    plain = crawl("article", example_site.url("/"))["items"]
    titled = crawl("article", example_site.url("/"), {"BOILERPLATE_INCLUDE_TITLE": True})["items"]
    by_url = {item["url"]: item for item in plain}
    for item in titled:
        headline = by_url[item["url"]]["headline"]
        assert item["articleBody"].startswith(headline)
        assert not by_url[item["url"]]["articleBody"].startswith(headline)


def test_a_bad_setting_stops_the_crawl_with_one_error_line(example_site):
    """As a project runs it (``scrapy runspider``, the add-ons in ADDONS)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "runspider",
            "poet_crawl.py",
            "-a",
            f"url={example_site.url('/')}",
            "-s",
            f"ADDONS={json.dumps(ADDONS)}",
            "-s",
            "BOILERPLATE_FAVOR=everything",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=SUPPORT,
        env={**os.environ, **NO_SUFFIX_DOWNLOAD},
    )
    if scrapy_version() >= (2, 15):
        # (Scrapy 2.14's runspider exits with status 0 all the same, whatever stopped the crawl.)
        assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if "ERROR" in line or "CRITICAL" in line]
    assert len(errors) == 1, done.stderr[-3000:]
    assert "BOILERPLATE_FAVOR" in errors[0]
    assert "Traceback" not in done.stderr and "Spider opened" not in done.stderr


def site_routes(name: str) -> tuple[dict, dict]:
    """A shared site's files as LoopbackServer routes (its links are relative), and its labels by path."""
    import tarfile

    folder = SHARED_SITES / name
    meta = json.loads((folder / "site.json").read_text())
    routes: dict = {}
    labels: dict = {}
    with tarfile.open(folder / "site.tar.gz") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            file = member.name.removeprefix("./")
            body = tar.extractfile(member).read()
            kind = mimetypes.guess_type(file)[0] or "text/html"
            paths = ["/" + quote(file)]
            if file == "index.html" or file.endswith("/index.html"):
                paths.append("/" + quote(file[: -len("index.html")]))
            for path in paths:
                routes[path] = (body, {"Content-Type": kind})
                if file in meta["labels"]:
                    labels[path] = meta["labels"][file]
    return routes, labels


@pytest.mark.needs_shared
def test_zyte_spider_templates_article_spider_on_a_shared_blog():
    pytest.importorskip("zyte_spider_templates", reason="needs zyte-spider-templates (docs/zyte.md)")
    import scrapy

    if scrapy_version() >= (2, 16):
        pytest.skip(
            f"zyte-spider-templates does not run on Scrapy {scrapy.__version__} (>= 2.16: its spider "
            "middlewares are sync-only; docs/zyte.md)"
        )
    if not SHARED_SITES.is_dir():
        pytest.skip(f"needs ../shared/sites ({SHARED_SITES})")
    routes, labels = site_routes("binglau7")
    with LoopbackServer(routes) as server:
        result = crawl("templates", server.url("/"))
    base = server.url("")
    item_paths = {item["url"][len(base) :] for item in result["items"]}
    articles = {path for path, label in labels.items() if label == "article" and path.endswith("/")}
    assert articles <= item_paths, sorted(articles - item_paths)[:5]
    assert not {path for path in item_paths if labels.get(path) == "overview"}
    assert result["outside"] == [], result["outside"][:5]
    assert all(item["articleBody"] for item in result["items"])
