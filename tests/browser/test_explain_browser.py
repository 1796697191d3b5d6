"""The explain page opened in a real browser: Debian's Chromium, driven by Playwright.

Playwright launches the system browser (`executable_path`); its own browser download is never
used. Without Chromium or Playwright the tests skip with the reason (.ci/run installs both).
Screenshots are kept in test-artifacts/explain/ at the top of the checkout (ignored by git), or
in $EXPLAIN_ARTIFACTS: look at them.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from hostile_page import GLOBALS, hostile_page
from server import LoopbackServer

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.render.explain import explain_html

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("EXPLAIN_ARTIFACTS") or ROOT / "test-artifacts" / "explain")
CHROMIUM = next(
    (
        p
        for p in (
            os.environ.get("CHROMIUM"),
            shutil.which("chromium"),
            shutil.which("chromium-browser"),
            "/usr/bin/chromium",
        )
        if p and Path(p).is_file()
    ),
    None,
)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]
WORDS = re.compile(r"\w+")

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="needs Playwright (pip install playwright; the [test] extra has it)"
)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian: apt-get install chromium)")


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Exception as exc:  # noqa: BLE001 - a browser that cannot start: skip with why
            pytest.skip(f"Chromium at {CHROMIUM} does not start: {exc}")
        yield chromium
        chromium.close()


def open_explain(browser, tmp_path: Path, html: bytes | str, url: str | None, name: str):
    """The explain page written to a file and opened from it, as a user opens it; a screenshot kept."""
    path = tmp_path / f"{name}.html"
    path.write_text(explain_html(html, url=url), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1100, "height": 1400})
    page.goto(path.as_uri())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    return page


@pytest.mark.needs_shared("the first page with kept and dropped blocks of 20 of each set")
@pytest.mark.parametrize("dataset", ["wcxb-dev", "readability", "trafilatura-eval"])
def test_real_page_blocks_are_marked_and_visible(browser, tmp_path, dataset_pages, dataset):
    # The first article of the set with both kept and dropped blocks.
    for record in dataset_pages(dataset, 20):
        html = record.read_html()
        result = extract(html, url=record.url)
        if len({b.is_content for b in result.blocks}) == 2:
            break
    page = open_explain(browser, tmp_path, html, record.url, f"{dataset}-{record.id}")
    kept = page.locator('[data-decision="kept"]')
    dropped = page.locator('[data-decision="dropped"]')
    assert kept.count() == sum(b.is_content for b in result.blocks) > 0
    assert dropped.count() > 0
    # Kept blocks are all visible; dropped ones too, but those in a folded run until it is opened.
    assert all(kept.nth(i).is_visible() for i in range(kept.count()))
    folded = page.locator("details.run:not([open]) [data-decision]")
    outside = page.locator('main > [data-decision="dropped"]')
    assert all(outside.nth(i).is_visible() for i in range(outside.count()))
    if folded.count():
        assert not folded.first.is_visible()
        page.locator("details.run > summary").first.click()
        assert page.locator("details.run").first.locator("[data-decision]").first.is_visible()
    # Kept and dropped look different: the edge colour and the background.
    look = "el => [getComputedStyle(el).borderLeftColor, getComputedStyle(el).backgroundColor]"
    assert kept.first.evaluate(look) != dropped.first.evaluate(look)
    # What a reader sees of the kept blocks is the extraction's text.
    seen = " ".join(page.locator('[data-decision="kept"] .t').all_inner_texts())
    assert WORDS.findall(seen) == WORDS.findall(result.text)
    # The verdict and the metadata are at the top, in the first screen.
    assert page.locator(".verdict").is_visible() and page.locator("table.meta").is_visible()
    assert page.locator(".verdict").bounding_box()["y"] < 400
    page.close()


def test_hostile_page_never_runs_applies_or_fetches(browser, tmp_path):
    with LoopbackServer({}) as server:  # every resource of the hostile page points here
        source = hostile_page(server.url("").rstrip("/"))
        page = open_explain(browser, tmp_path, source, "https://harbour.example/news/pier.html", "hostile")
        # Hover and click what were links and handlers in the page; focus the body.
        page.mouse.move(300, 300)
        for locator in page.get_by_text("full notice").all() + page.get_by_text("Ferry pier to close").all():
            locator.click()
        page.wait_for_timeout(500)
        ran = page.evaluate(f"() => {list(GLOBALS)!r}.filter(name => name in window)")
        assert ran == []
        assert server.requests == []
        assert page.url.startswith("file:")  # no refresh, no javascript: navigation
        # The page's styles never applied: the body is shown, the text is not red.
        assert page.evaluate("getComputedStyle(document.body).display") == "block"
        colour = page.locator('[data-decision="kept"] .t').first.evaluate("el => getComputedStyle(el).color")
        assert colour != "rgb(255, 0, 0)"
        # The page's text is shown as text, its kept paragraphs included.
        body = page.inner_text("main")
        assert "<script>window.__hostile_text = 1</script>" in body
        assert "Ferries to the island will leave from the temporary landing" in body
        assert page.locator('[data-decision="kept"]').count() >= 3
        page.close()


def test_the_hostile_page_itself_does_run_in_this_browser(browser, tmp_path):
    """The check above can fail: opened as it is, the hostile page runs, hides and fetches."""
    with LoopbackServer({}) as server:
        path = tmp_path / "hostile-raw.html"
        path.write_text(hostile_page(server.url("").rstrip("/")), encoding="utf-8")
        page = browser.new_page()
        page.goto(path.as_uri())
        page.wait_for_timeout(500)
        ran = page.evaluate(f"() => {list(GLOBALS)!r}.filter(name => name in window)")
        assert "__hostile_script" in ran and "__hostile_onerror" in ran
        assert page.evaluate("getComputedStyle(document.body).display") == "none"
        assert server.requests  # its stylesheet, script and images were asked for
        page.close()
