"""Real crawls with ArticleSpider and seen files it cannot use (issue 46): a seen file that cannot
be used stops the crawl at start-up with one ERROR line; a write to it that fails later costs no
item.

The site is tests/support/links_crawl.py's blog; the crawls run in child processes
(tests/support/articles_crawl.py, or ``scrapy runspider`` of it), through tests/support/limited.py
where a file error must happen for real.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from links_crawl import routes
from server import LoopbackServer

pytestmark = pytest.mark.slow

SUPPORT = Path(__file__).resolve().parents[1] / "support"
LINKED = {f"/posts/story-number-{n}/" for n in range(1, 11)}


def run_crawls(servers: dict, specs: dict, *limits: str) -> tuple[dict, str]:
    """The crawls of `specs` (name -> spider arguments, "settings"), each of its server's site, in
    one child process; their results (items, paths fetched, stats) and the log."""
    for name, spec in specs.items():
        spec["url"] = servers[name].url("/")
    done = subprocess.run(
        [sys.executable, str(SUPPORT / "limited.py"), *limits, "--"]
        + [sys.executable, str(SUPPORT / "articles_crawl.py"), "http://127.0.0.1:9/", json.dumps(specs)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=SUPPORT,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    result = json.loads(done.stdout)
    for name, crawl in result.items():
        base = servers[name].url("")
        crawl["paths"] = [url[len(base) :] for url in crawl["fetched"]]
        crawl["item_paths"] = {item["url"][len(base) :] for item in crawl["items"]}
    return result, done.stderr


def warnings(log: str, text: str) -> list[str]:
    return [line for line in log.splitlines() if " WARNING: " in line and text in line]


# --- the seen file -----------------------------------------------------------------------------


def test_a_seen_file_that_fails_mid_crawl_costs_no_item(tmp_path):
    """Writes past 150 bytes fail (EFBIG, as ENOSPC for a full disk): the first URLs are written,
    every item is yielded and its links followed (before: the write raised before `yield item`)."""
    seen = tmp_path / "seen.txt"
    with LoopbackServer(routes()) as server:
        specs = {"seen": {"seen": str(seen), "feeds": "false", "sitemaps": "false"}}
        result, log = run_crawls({"seen": server}, specs, "--file-size", "150")
    crawl = result["seen"]
    assert crawl["item_paths"] == LINKED
    written = [line for line in seen.read_text(encoding="utf-8").splitlines() if line.endswith("/")]
    assert 1 <= len(written) < len(LINKED)
    assert crawl["stats"]["boilerplate/seen/write_errors"] == len(LINKED) - len(written)
    assert len(warnings(log, "to the seen file")) == 1
    assert "Traceback" not in log


def runspider(seen: str) -> subprocess.CompletedProcess:
    """`scrapy runspider` of the blog spider with `-a seen=SEEN`, without root's file privileges."""
    scrapy = Path(sys.executable).with_name("scrapy")
    done = subprocess.run(
        [sys.executable, str(SUPPORT / "limited.py"), "--no-file-privileges", "--"]
        + [str(scrapy), "runspider", str(SUPPORT / "articles_crawl.py"), "-a", "url=http://127.0.0.1:9/"]
        + ["-a", f"seen={seen}", "-s", "TELNETCONSOLE_ENABLED=False"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=SUPPORT,
    )
    if done.returncode == 77:
        pytest.skip("cannot drop root's file privileges here (limited.py)")
    return done


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda path: path.mkdir(), "it is a directory"),
        (lambda path: path.write_bytes(b"https://a.example/\n\xff\xfe\n"), "it is not UTF-8 text: byte 0xff on line 2"),
        (lambda path: (path.write_text("x\n"), path.chmod(0)), "it cannot be read: Permission denied"),
        (lambda path: (path.write_text("x\n"), path.chmod(0o444)), "it cannot be appended to: Permission denied"),
        (lambda path: None, "does not exist"),
        (lambda path: path.parent.chmod(0o555), "it cannot be created: Permission denied"),
    ],
    ids=["directory", "not-utf8", "unreadable", "not-writable", "no-folder", "folder-not-writable"],
)
def test_a_seen_file_that_cannot_be_used_stops_the_crawl_with_one_error_line(tmp_path, make, problem):
    folder = tmp_path / "seen"
    if problem != "does not exist":
        folder.mkdir()
    path = folder / "seen.txt"
    make(path)
    try:
        done = runspider(str(path))
    finally:
        if folder.exists():
            folder.chmod(0o755)  # so that pytest can remove it
    assert done.returncode == 1, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if " ERROR: " in line]
    assert len(errors) == 1, done.stderr[-3000:]
    assert "ArticleSpider's seen file (-a seen=PATH" in errors[0] and repr(str(path)) in errors[0]
    assert problem in errors[0] and errors[0].endswith("the crawl stops")
    assert "Traceback" not in done.stderr and "Spider opened" not in done.stderr
