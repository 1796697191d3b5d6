"""`scrapy-boilerplate overview FILE...`: one verdict line per file, on real pages of the shared set."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from overview_site import REAL_PAGES, page_file, pages_are_cut, real_page, shared_pages_missing

from scrapy_boilerplate.cli import main

pytestmark = [] if pages_are_cut() else [pytest.mark.needs_shared]


@pytest.fixture(scope="module")
def files():
    """(overview page, article page): .html.gz files of the site's real pages."""
    if reason := shared_pages_missing():
        pytest.skip(reason)
    return page_file(REAL_PAGES["/news/"][0]), page_file(REAL_PAGES["/2020/01/second-article.html"][0])


def run(capsys, *args):
    status = main(["overview", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def test_one_tab_separated_line_per_file(files, capsys):
    overview, article = files
    status, lines, err = run(capsys, overview, article)
    assert status == 0 and err == ""
    rows = [line.split("\t") for line in lines]
    assert [len(r) for r in rows] == [5, 5]
    assert [r[0] for r in rows] == [str(overview), str(article)]
    assert [r[1] for r in rows] == ["overview", "article-like"]
    for _, _, score, net, reason in rows:
        assert 0.0 <= float(score) <= 1.0 and int(net) >= 0 and reason
    assert float(rows[0][2]) > float(rows[1][2])
    assert int(rows[0][3]) < int(rows[1][3])  # less net text on the listing page


def test_json_lines(files, capsys):
    overview, article = files
    status, lines, _ = run(capsys, "--json", overview, article)
    assert status == 0
    records = [json.loads(line) for line in lines]
    assert [r["path"] for r in records] == [str(overview), str(article)]
    assert [r["is_overview"] for r in records] == [True, False]
    assert set(records[0]) == {"path", "url", "is_overview", "net_text_length", "threshold", "score", "reason"}


def test_plain_html_file_with_url_and_threshold(files, capsys, tmp_path):
    page = tmp_path / "article.html"
    page.write_bytes(real_page(REAL_PAGES["/2020/01/second-article.html"][0]))
    status, [line], _ = run(capsys, "--url", "https://example.org/2020/01/post.html", page)
    assert status == 0 and line.split("\t")[1] == "article-like"
    # The plain net-text rule with a threshold no article reaches.
    status, [line], _ = run(capsys, "--no-model", "--threshold", "10000000", page)
    assert line.split("\t")[1] == "overview" and "net-text rule" in line


def test_unreadable_file_is_reported_and_the_others_still_judged(files, capsys, tmp_path):
    overview, _ = files
    broken = tmp_path / "broken.html.gz"
    broken.write_bytes(b"\x1f\x8b" + b"not gzip")
    status, lines, err = run(capsys, tmp_path / "missing.html", broken, overview)
    assert status == 1
    assert len(lines) == 1 and lines[0].startswith(str(overview))
    assert "missing.html" in err and "broken.html.gz" in err and "Traceback" not in err


def test_url_needs_a_single_file(files, capsys):
    status, lines, err = run(capsys, "--url", "https://example.org/", *files)
    assert status == 1 and lines == [] and "--url" in err


def test_module_reads_stdin(files):
    overview, _ = files
    done = subprocess.run(
        [sys.executable, "-m", "scrapy_boilerplate", "overview", "-", "--url", "https://example.org/news/"],
        input=overview.read_bytes(),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    path, label, *_ = done.stdout.decode().rstrip("\n").split("\t")
    assert (path, label) == ("-", "overview")
