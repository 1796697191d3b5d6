"""Smoke test of an INSTALLED scrapy-boilerplate-removal (a wheel), run outside the checkout.

    python tests/support/smoke_installed.py        (from any directory; pytest does not collect it)

Checks that the package is not imported from a source tree, that every compiled module loaded,
and that extract, detect_overview, the `scrapy-boilerplate extract` console script and a one-page
crawl with the add-on (a file:// URL, no server) work. Used by .ci/artifacts and by cibuildwheel's
test command (docs/releasing.md). Portable: Linux, macOS and Windows. Exit status 0 when all pass.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "article_en.html"
FIRST_WORDS = "When the old parking lot on Fenwick Street closed three years ago"
SOURCE_TREE = Path(__file__).resolve().parents[2]

SPIDER = """
import scrapy

class OnePage(scrapy.Spider):
    name = "one_page"
    custom_settings = {"ADDONS": {"scrapy_boilerplate.Addon": 0}, "LOG_LEVEL": "WARNING",
                       "TELNETCONSOLE_ENABLED": False}

    async def start(self):
        yield scrapy.Request(self.page)

    def parse(self, response):
        yield {"url": response.url}
"""


def main() -> int:
    # The script's own folder is sys.path[0]: drop it, so nothing is imported from the source tree.
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() not in (SOURCE_TREE, SOURCE_TREE / "tests")]
    import scrapy_boilerplate
    from scrapy_boilerplate import detect_overview, extract
    from scrapy_boilerplate.core import speedups

    where = Path(scrapy_boilerplate.__file__).resolve()
    assert not where.is_relative_to(SOURCE_TREE), f"imported from the source tree: {where}"
    built = speedups.available()
    assert all(built.values()), f"a compiled module is missing or failed to load: {built}"

    html = FIXTURE.read_bytes()
    result = extract(html, url="https://example.com/news/a.html")
    assert FIRST_WORDS in result.text, result.text[:300]
    assert "Accept all cookies" not in result.text
    verdict = detect_overview(html, url="https://example.com/news/a.html")
    assert not verdict.is_overview, verdict

    scripts = Path(sys.executable).parent
    console = shutil.which("scrapy-boilerplate", path=str(scripts)) or shutil.which("scrapy-boilerplate")
    assert console, f"the scrapy-boilerplate console script is not installed next to {sys.executable}"
    done = subprocess.run([console, "extract", str(FIXTURE)], capture_output=True, timeout=300)
    assert done.returncode == 0 and FIRST_WORDS in done.stdout.decode("utf-8"), done.stderr.decode()

    with tempfile.TemporaryDirectory() as tmp:
        spider, items = Path(tmp, "one_page.py"), Path(tmp, "items.jsonl")
        spider.write_text(SPIDER, encoding="utf-8")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "scrapy",
                "runspider",
                str(spider),
                "-a",
                f"page={FIXTURE.as_uri()}",
                "-o",
                f"{items}:jsonlines",
            ],
            capture_output=True,
            timeout=300,
            cwd=tmp,
            env={**os.environ, "PYTHONPATH": ""},
        )
        assert done.returncode == 0, done.stderr.decode()
        rows = [json.loads(line) for line in items.read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 1 and FIRST_WORDS in rows[0].get("main_text", ""), (rows, done.stderr.decode())

    print(
        f"smoke test passed: scrapy_boilerplate {scrapy_boilerplate.__version__} from {where.parent}; "
        f"compiled modules {sorted(built)}; extract, detect_overview, the console script, a one-page crawl"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
