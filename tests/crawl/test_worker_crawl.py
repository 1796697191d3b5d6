"""Real crawls with BOILERPLATE_EXECUTOR = "process" that lose worker processes
(tests/support/worker_crawl.py, in a child process, against a loopback site): a worker killed
with SIGKILL, one that hangs, and a crawl stopped with SIGTERM or Ctrl-C.

Every item must come out, the crawl must end, and no process may be left behind:
each crawl runs with a marker in its environment, which its worker processes
inherit, and no process holding the marker may outlive the crawl.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from pipeline_site import ARTICLES, site_file
from server import LoopbackServer, index_page

from scrapy_boilerplate import extract

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parents[1] / "support"  # the scripts run in child processes
KILL, HANG = "/kill/page.html", "/hang/page.html"
CRAWL_TIMEOUT = 240  # seconds: far beyond what any of these crawls needs


@pytest.fixture(scope="module")
def site():
    routes = {path: site_file(path) for path in ARTICLES}
    routes[KILL] = site_file(ARTICLES[0])
    routes[HANG] = site_file(ARTICLES[1])
    routes["/"] = index_page([*ARTICLES, KILL, HANG])
    with LoopbackServer(routes) as server:
        yield server


def marked_processes(mark: str) -> list[int]:
    """Running processes whose environment holds `mark` (zombies are not running)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if mark.encode() in (proc / "environ").read_bytes():
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(proc.name))
        except OSError:
            continue
    return found


def none_left(mark: str, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while marked_processes(mark):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


class Crawl:
    """tests/support/worker_crawl.py in a new session (its own process group, as a terminal
    job has), with a marker in its environment."""

    def __init__(self, server: LoopbackServer, tmp_path: Path, **settings):
        self.mark = f"WORKER_CRAWL_MARK={uuid.uuid4().hex}"
        self.hang_mark = tmp_path / "hanging"
        self.progress = tmp_path / "progress"  # a byte per page a worker extracted
        self.output = tmp_path / "crawl.json"
        env = {
            **os.environ,
            "WORKER_CRAWL_MARK": self.mark.split("=", 1)[1],
            "WORKER_CRAWL_HANG_MARK": str(self.hang_mark),
            "WORKER_CRAWL_PROGRESS": str(self.progress),
        }
        settings = {"BOILERPLATE_EXECUTOR": "process", "BOILERPLATE_EXECUTOR_WORKERS": 2, **settings}
        # The log goes to a file: a pipe nobody reads while the crawl runs would fill and stop it.
        self.log = tmp_path / "crawl.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    str(TESTS / "worker_crawl.py"),
                    server.url("").rstrip("/"),
                    json.dumps(settings),
                    str(self.output),
                ],
                cwd=TESTS,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )

    def wait(self, timeout: float = CRAWL_TIMEOUT) -> tuple[int, str]:
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        return self.process.returncode, self.log.read_text(encoding="utf-8", errors="replace")

    def wait_for_hang(self) -> None:
        deadline = time.monotonic() + CRAWL_TIMEOUT
        while not self.hang_mark.exists():
            assert self.process.poll() is None, self.log.read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, "the /hang/ page never reached a worker"
            time.sleep(0.1)

    def pages_extracted(self) -> int:
        """Pages the workers have extracted so far."""
        try:
            return self.progress.stat().st_size
        except FileNotFoundError:
            return 0

    def signal_group(self, signum: int) -> None:
        os.killpg(self.process.pid, signum)

    def kill(self) -> None:
        """Clean up after a failed test: every process of the crawl."""
        for pid in marked_processes(self.mark):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def result(self) -> dict:
        return json.loads(self.output.read_text(encoding="utf-8"))


def test_killed_and_hung_workers_cost_only_their_own_pages(site, tmp_path):
    crawl = Crawl(site, tmp_path, BOILERPLATE_EXECUTOR_TIMEOUT=3)
    try:
        status, stderr = crawl.wait()
        assert status == 0, stderr[-5000:]
        assert none_left(crawl.mark)
    finally:
        crawl.kill()
    result = crawl.result()
    stats = result["stats"]
    assert stats["finish_reason"] == "finished"
    texts = {(item["url"], item["n"]): item.get("main_text") for item in result["items"]}
    # Every item out, two a page.
    assert set(texts) == {(site.url(path), n) for path in [*ARTICLES, KILL, HANG] for n in (1, 2)}
    for path in ARTICLES:
        expected = extract(site_file(path), url=site.url(path)).text
        assert expected and texts[site.url(path), 1] == texts[site.url(path), 2] == expected
    for path in (KILL, HANG):
        assert texts[site.url(path), 1] == texts[site.url(path), 2] == ""
    assert stats["boilerplate/workers/died"] == 1
    assert stats["boilerplate/workers/timeouts"] == 1
    assert stats["boilerplate/errors"] == 2
    assert stats["boilerplate/pages_extracted"] == len(ARTICLES)
    assert "worker process died" in stderr and site.url(KILL) in stderr
    assert "given up after BOILERPLATE_EXECUTOR_TIMEOUT" in stderr and site.url(HANG) in stderr


# 600 pages: the example project's articles again and again, each under its own path.
STORM = {f"/storm/{n}{ARTICLES[n % len(ARTICLES)]}": ARTICLES[n % len(ARTICLES)] for n in range(600)}
STORM_GATE = "/storm/gate.html"  # held back until the storm is over: the crawl cannot end before it
STORM_PAGES = [*STORM, STORM_GATE]


@pytest.fixture(scope="module")
def storm_site():
    routes: dict = {path: site_file(article) for path, article in STORM.items()}
    routes["/"] = index_page(STORM_PAGES)
    over = threading.Event()

    def gate(headers):
        over.wait(CRAWL_TIMEOUT)
        return site_file(ARTICLES[0])

    routes[STORM_GATE] = gate
    with LoopbackServer(routes) as server:
        server.storm_over = over
        yield server
    over.set()


def running_workers(mark: str, min_age: float = 1.5) -> list[int]:
    """The crawl's worker processes that have run for `min_age` seconds, past their start
    (not the crawl itself, nor multiprocessing's resource tracker)."""
    ticks = os.sysconf("SC_CLK_TCK")
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    found = []
    for pid in marked_processes(mark):
        try:
            if b"spawn_main" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            started = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
        except (OSError, IndexError, ValueError):
            continue
        if uptime - started / ticks >= min_age:
            found.append(pid)
    return found


def test_a_kill_storm_with_a_short_page_bound_times_out_no_page(storm_site, tmp_path):
    """600 pages (and one held back until the storm is over), 12 kills 0.3 s apart of workers past their start (as the out-of-memory
    killer picks them), pages bounded at 0.5 s: every item comes out, each killed worker
    costs at most its page, and no page that ran for milliseconds is given up (4 were,
    when a page's deadline counted its worker's start)."""
    # Paced (about 33 pages a second) so that most kills land on workers with pages; the crawl
    # cannot end before the storm however slow the machine is, as one page is held back until
    # the last kill (on a loaded CI machine, pacing alone once let the crawl end after 7 of 12).
    # Each kill waits for the workers to have extracted pages since the last: workers that die
    # before any page comes back are given up after five (MAX_DEATHS_IN_A_ROW), which a heavily
    # loaded machine, slow to start workers, reached at 0.3 s a kill.
    crawl = Crawl(storm_site, tmp_path, BOILERPLATE_EXECUTOR_TIMEOUT=0.5, DOWNLOAD_DELAY=0.03)
    kills = 0
    try:
        while kills < 12 and crawl.process.poll() is None:
            pids = running_workers(crawl.mark)
            if pids:
                extracted = crawl.pages_extracted()
                os.kill(pids[kills % len(pids)], signal.SIGKILL)
                kills += 1
                deadline = time.monotonic() + 60
                while crawl.pages_extracted() < extracted + 2 and crawl.process.poll() is None:
                    assert time.monotonic() < deadline, f"no page extracted in 60 s after kill {kills}"
                    time.sleep(0.05)
            time.sleep(0.3)
        storm_site.storm_over.set()
        status, stderr = crawl.wait()
        assert status == 0, stderr[-5000:]
        assert none_left(crawl.mark)
    finally:
        storm_site.storm_over.set()
        crawl.kill()
    assert kills == 12, "the crawl ended before the storm"
    result = crawl.result()
    stats = result["stats"]
    assert stats["finish_reason"] == "finished"
    items = {(item["url"], item["n"]) for item in result["items"]}
    assert items == {(storm_site.url(path), n) for path in STORM_PAGES for n in (1, 2)}
    assert "boilerplate/workers/timeouts" not in stats, stderr[-5000:]
    assert stats.get("boilerplate/workers/died", 0) <= kills
    assert stats["boilerplate/pages_extracted"] + stats.get("boilerplate/errors", 0) == len(STORM_PAGES)
    assert stats["boilerplate/pages_extracted"] >= len(STORM_PAGES) - kills


def test_sigterm_ends_the_crawl_and_its_workers(site, tmp_path):
    """SIGTERM: Scrapy's graceful stop, which waits for the page in a hung worker no
    longer than BOILERPLATE_EXECUTOR_TIMEOUT."""
    crawl = Crawl(site, tmp_path, BOILERPLATE_EXECUTOR_TIMEOUT=5)
    try:
        crawl.wait_for_hang()
        start = time.monotonic()
        crawl.process.send_signal(signal.SIGTERM)
        status, stderr = crawl.wait(timeout=60)
        assert time.monotonic() - start < 30
        assert status == 0, stderr[-5000:]
        assert none_left(crawl.mark)
    finally:
        crawl.kill()
    assert crawl.result()["stats"]["finish_reason"] == "shutdown"


def test_ctrl_c_twice_ends_the_crawl_and_its_workers_at_once(site, tmp_path):
    """Ctrl-C reaches the whole process group; the second one forces Scrapy to stop,
    without waiting for a page that would take BOILERPLATE_EXECUTOR_TIMEOUT (10 minutes)."""
    crawl = Crawl(site, tmp_path, BOILERPLATE_EXECUTOR_TIMEOUT=600)
    try:
        crawl.wait_for_hang()
        crawl.signal_group(signal.SIGINT)
        time.sleep(1.0)
        assert crawl.process.poll() is None  # the first one: a graceful stop, waiting
        start = time.monotonic()
        crawl.signal_group(signal.SIGINT)
        crawl.wait(timeout=60)
        assert time.monotonic() - start < 20
        assert none_left(crawl.mark)
    finally:
        crawl.kill()
