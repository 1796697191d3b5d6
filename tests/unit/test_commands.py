"""``scrapy boilerplate URL|FILE``, run as users run it (the ``scrapy`` command, a child process)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pipeline_site import ARTICLES, SITE, site_file
from scrapy.http import HtmlResponse
from server import LoopbackServer

from scrapy_boilerplate import detect_overview, extract

ARTICLE = ARTICLES[0]
EXAMPLE_PROJECT = Path(__file__).resolve().parents[2] / "example_project"


def scrapy(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    # The console script of this interpreter's environment (installed with the package).
    exe = Path(sys.executable).with_name("scrapy")
    command = [str(exe)] if exe.exists() else [shutil.which("scrapy") or "scrapy"]
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=120, cwd=cwd or Path(__file__).parent
    )


@pytest.fixture(scope="module")
def server():
    with LoopbackServer({path: site_file(path) for path in ["/", "/news/", ARTICLE]}) as srv:
        yield srv


def test_command_is_listed():
    done = scrapy("-h")
    assert done.returncode == 0
    assert "boilerplate" in done.stdout and "overview page" in done.stdout


def test_file_prints_verdict_title_and_text():
    path = SITE / ARTICLE.lstrip("/")
    done = scrapy("boilerplate", str(path))
    assert done.returncode == 0, done.stderr
    expected = extract(path.read_bytes())
    head, _, body = done.stdout.partition("\n\n")
    assert head.startswith("Overview page: no (score ")
    assert f"Title: {expected.title}" in head
    assert body == expected.text + "\n"


def test_file_as_json():
    path = SITE / "index.html"
    done = scrapy("boilerplate", str(path), "--format", "json", "--url", "http://127.0.0.1/")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    verdict = detect_overview(path.read_bytes(), url="http://127.0.0.1/")
    assert out["overview"]["is_overview"] is verdict.is_overview is True
    assert out["overview"]["score"] == verdict.score
    assert out["extraction"]["text"] == extract(path.read_bytes(), url="http://127.0.0.1/").text
    assert out["url"] == "http://127.0.0.1/"


def test_url_is_downloaded_by_scrapy(server):
    done = scrapy("boilerplate", server.url(ARTICLE), "--format", "markdown", "--include-title")
    assert done.returncode == 0, done.stderr
    page = HtmlResponse(
        server.url(ARTICLE), body=site_file(ARTICLE), headers={"Content-Type": "text/html; charset=utf-8"}
    )
    expected = extract(page.selector, url=page.url, include_title=True)
    assert done.stdout.split("\n\n", 1)[1] == expected.markdown + "\n"
    assert expected.markdown.startswith("# Council approves")
    assert server.requests[-1] == ARTICLE


def test_overview_page_is_printed_even_when_the_project_drops_overviews(server):
    # example_project enables the add-on; "drop" would hide the page from a crawl.
    done = scrapy("boilerplate", server.url("/news/"), "-s", "BOILERPLATE_OVERVIEW_ACTION=drop", cwd=EXAMPLE_PROJECT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Overview page: yes (score ")


def test_a_project_is_left_as_it_was(server, tmp_path):
    # Run inside example_project, the command's one-page crawl ran the project's FEEDS (with
    # "overwrite": True) and emptied its articles.jsonl (issue 46).
    project = tmp_path / "example_project"
    shutil.copytree(EXAMPLE_PROJECT, project, ignore=shutil.ignore_patterns("__pycache__", "articles.jsonl"))
    feed = project / "articles.jsonl"
    feed.write_text('{"url": "http://127.0.0.1/news/a.html", "main_text": "An earlier crawl."}\n', encoding="utf-8")
    settings = project / "courier" / "settings.py"
    # What else a project's crawls write: the job state, the HTTP cache, the log file.
    settings.write_text(
        settings.read_text(encoding="utf-8")
        + 'JOBDIR = "crawls/job"\nHTTPCACHE_ENABLED = True\nLOG_FILE = "courier.log"\n',
        encoding="utf-8",
    )

    def files() -> list[str]:
        return sorted(str(p.relative_to(project)) for p in project.rglob("*") if "__pycache__" not in p.parts)

    before = files()
    done = scrapy("boilerplate", server.url(ARTICLE), cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Overview page: no (score ")
    assert feed.read_text(encoding="utf-8").startswith('{"url": "http://127.0.0.1/news/a.html"')
    assert files() == before  # no crawls/job, .scrapy/httpcache or courier.log
    # The project's LOG_LEVEL = "INFO" is for its crawls: the command's output is the page.
    assert " INFO: " not in done.stderr
    # Its own command line still decides.
    done = scrapy("boilerplate", server.url(ARTICLE), "-L", "INFO", "-s", "FEEDS={}", cwd=project)
    assert done.returncode == 0 and " INFO: " in done.stderr


def test_unreachable_url_fails_with_a_message():
    done = scrapy("boilerplate", "http://127.0.0.1:9/nothing", "-s", "RETRY_ENABLED=False")
    assert done.returncode == 1
    assert "Cannot download http://127.0.0.1:9/nothing" in done.stderr


def test_neither_file_nor_url_is_a_usage_error():
    done = scrapy("boilerplate", "no-such-file.html")
    assert done.returncode == 2
    assert "neither a file nor an http(s) URL" in done.stderr


def test_site_rules_of_the_settings_apply():
    path = SITE / ARTICLE.lstrip("/")
    rules = json.dumps({"news.example": {"content": "article", "exclude": ["h2"]}})
    done = scrapy(
        "boilerplate",
        str(path),
        "--url",
        "https://www.news.example/a",
        "--format",
        "json",
        "-s",
        f"BOILERPLATE_SITE_RULES={rules}",
    )
    assert done.returncode == 0, done.stderr
    text = json.loads(done.stdout)["extraction"]["text"]
    expected = extract(
        path.read_bytes(), url="https://www.news.example/a", content_selector="article", exclude_selectors=["h2"]
    )
    assert text == expected.text
    assert text != extract(path.read_bytes(), url="https://www.news.example/a").text
    # Another site: no rule.
    done = scrapy(
        "boilerplate",
        str(path),
        "--url",
        "https://other.example/a",
        "--format",
        "json",
        "-s",
        f"BOILERPLATE_SITE_RULES={rules}",
    )
    assert json.loads(done.stdout)["extraction"]["text"] == extract(path.read_bytes()).text


def test_a_bad_site_rule_is_one_error_line():
    done = scrapy(
        "boilerplate",
        str(SITE / ARTICLE.lstrip("/")),
        "-s",
        'BOILERPLATE_SITE_RULES={"news.example": {"content": "div[["}}',
    )
    assert done.returncode == 1
    assert done.stderr.startswith("scrapy boilerplate: error: BOILERPLATE_SITE_RULES must be ")
    assert "the site rule for 'news.example': invalid CSS selector 'div[['" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
