"""Every path the docs, docstrings and comments name exists (a stale path misleads a newcomer).

A path counts when it starts at the repository (`tests/...`, `docs/...`, `benchmarks/...`,
`example_project/...`) or at the package (`scrapy_boilerplate/...`, `core/...`, `crawl/...`,
`training/...`). CHANGELOG.md is history: it names files as they were.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PATH_RE = re.compile(
    r"(?<![\w/.-])((?:scrapy_boilerplate|core|crawl|training|tests|benchmarks|docs|example_project)"
    r"/[\w/.-]*\w\.(?:py|pyx|pxd|md|json|jsonl|cfg|toml))\b"
)
SOURCES = (
    "*.md",
    "docs/**/*.md",
    "scrapy_boilerplate/**/*.py",
    "scrapy_boilerplate/**/*.pyx",
    "tests/**/*.py",
    "tests/**/*.md",
    "benchmarks/**/*.py",
    "benchmarks/*.md",
)


def named_paths() -> list[tuple[str, str]]:
    found = []
    for pattern in SOURCES:
        for file in sorted(ROOT.glob(pattern)):
            if file.name == "CHANGELOG.md" or ".venv" in file.parts:
                continue
            for match in PATH_RE.finditer(file.read_text(encoding="utf-8")):
                found.append((str(file.relative_to(ROOT)), match.group(1)))
    return found


def test_every_named_path_exists():
    found = named_paths()
    assert len(found) > 100  # the scan reads what it should
    missing = [
        (file, path)
        for file, path in found
        if not (ROOT / path).exists() and not (ROOT / "scrapy_boilerplate" / path).exists()
    ]
    assert missing == []
