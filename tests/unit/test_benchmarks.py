"""benchmarks/report.py end to end on a tiny set built from the fixtures: the workers, the
scorer, RESULTS.md. Only our extractor (the others are in the `bench` extra, not `test`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURE_NAMES, TESTS, fixture_bytes

from scrapy_boilerplate import extract

pytestmark = pytest.mark.slow
REPORT = TESTS.parent / "benchmarks" / "report.py"


def tiny_sets(root: Path) -> None:
    """readability: the fixtures with our own output as gold (F1 1); trafilatura-eval: snippets."""
    for name in ("readability", "trafilatura-eval"):
        folder = root / name
        (folder / "html").mkdir(parents=True)
        lines = []
        for fixture in FIXTURE_NAMES:
            html = fixture_bytes(fixture)
            (folder / "html" / f"{fixture}.html").write_bytes(html)
            text = extract(html, url=f"https://example.org/{fixture}").text
            record = {
                "id": fixture,
                "html": f"html/{fixture}.html",
                "gold": None,
                "url": f"https://example.org/{fixture}",
                "lang": None,
                "label": "article",
                "source": "fixtures",
            }
            if name == "readability":
                (folder / "gold").mkdir(exist_ok=True)
                (folder / "gold" / f"{fixture}.txt").write_text(text, encoding="utf-8")
                record["gold"] = f"gold/{fixture}.txt"
            else:
                record["with"] = [text.splitlines()[0]]
            lines.append(json.dumps(record))
        (folder / "pages.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_report_runs_scores_and_writes_results(tmp_path):
    tiny_sets(tmp_path / "data")
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            str(REPORT),
            "--datasets",
            str(tmp_path / "data"),
            "--out",
            str(out),
            "--extractors",
            "ours",
            "--no-overview",
            "--no-crawl",
            "--bootstrap",
            "20",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())
    ours = results["extraction"]["tools"]["ours"]
    assert ours["status"] == "ok" and ours["network_attempts"] == 0
    quality = ours["quality"]["readability"]
    assert quality["all"]["f1"] == pytest.approx(1.0) and quality["catastrophic"] == 0
    assert ours["quality"]["trafilatura-eval"]["all"]["with_share"] == pytest.approx(1.0)
    assert results["extraction"]["tools"]["lxml"]["speed"]["pages"] == 2 * len(FIXTURE_NAMES)
    text = (out / "RESULTS.md").read_text()
    assert "| **scrapy_boilerplate" in text and "1.000 ±" in text
    try:
        import matplotlib  # noqa: F401 - in the bench extra only
    except ImportError:
        assert "no figure" in done.stderr
    else:
        assert (out / "quality-speed.png").stat().st_size > 10_000
