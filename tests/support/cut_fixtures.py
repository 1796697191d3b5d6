"""Cut the real-page fixtures of tests/fixtures/real from ../shared/datasets (a maintainer's tool).

    python tests/support/cut_fixtures.py

Each page in PAGES is copied with what the extraction never reads cut out of its bytes (scripts
other than JSON-LD, style sheets, SVG drawings, HTML comments, <link> tags other than canonical,
alternate and author ones, srcset and sizes attributes), and kept only if `extract()` gives the very same result on the cut page as
on the original (text, title, Markdown, HTML, metadata, images), so that a test on the fixture
checks what it would check on the dataset's page. Writes tests/fixtures/real/<set>/ in the dataset
format (pages.jsonl, html/ID.html.gz, gold/ID.txt); tests/fixtures/README.md names the sources.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
SHARED = TESTS.parents[1] / "shared" / "datasets"
OUT = TESTS / "fixtures" / "real"
# A handful of wcxb-dev pages (CC-BY-4.0) that tests name by id; see tests/fixtures/README.md.
PAGES = {
    "wcxb-dev": ["0225", "0327", "0389", "0415", "0501", "0513", "0538", "0543", "0604", "2911", "4087"],
}

SCRIPT = re.compile(rb"<script\b([^>]*)>.*?</script\s*>", re.I | re.S)
STYLE = re.compile(rb"<style\b[^>]*>.*?</style\s*>", re.I | re.S)
SVG = re.compile(rb"<svg\b[^>]*>.*?</svg\s*>", re.I | re.S)
COMMENT = re.compile(rb"<!--(?!\[if).*?-->", re.S)
LINK = re.compile(rb"<link\b([^>]*)>", re.I)
# Image candidate lists: the extraction reads src and its lazy-loading stand-ins, never these.
SRCSET = re.compile(rb"""\s(?:data-)?(?:srcset|sizes)\s*=\s*(?:"[^"]*"|'[^']*')""", re.I)
KEPT_LINKS = re.compile(rb"""rel\s*=\s*["']?(?:canonical|alternate|author|amphtml)""", re.I)


def cut(html: bytes) -> bytes:
    html = SCRIPT.sub(lambda m: m.group(0) if b"ld+json" in m.group(1).lower() else b"<script></script>", html)
    html = STYLE.sub(b"", html)
    html = SVG.sub(b"<svg></svg>", html)
    html = COMMENT.sub(b"", html)
    html = SRCSET.sub(b"", html)
    html = LINK.sub(lambda m: m.group(0) if KEPT_LINKS.search(m.group(1)) else b"", html)
    return re.sub(rb"\n\s*\n+", b"\n", html)


def result(html: bytes, url: str | None) -> dict:
    from scrapy_boilerplate import extract

    extraction = extract(html, url=url)
    return {**extraction.to_dict(), "markdown": extraction.markdown, "html": extraction.html}


def main() -> int:
    for name, ids in PAGES.items():
        records = {r["id"]: r for r in map(json.loads, (SHARED / name / "pages.jsonl").open(encoding="utf-8"))}
        folder = OUT / name
        (folder / "html").mkdir(parents=True, exist_ok=True)
        (folder / "gold").mkdir(exist_ok=True)
        lines = []
        for page_id in ids:
            record = dict(records[page_id])
            raw = gzip.decompress((SHARED / name / record["html"]).read_bytes())
            small = cut(raw)
            if result(small, record.get("url")) != result(raw, record.get("url")):
                print(f"{name} {page_id}: the cut changes the extraction; not written", file=sys.stderr)
                return 1
            record["html"] = f"html/{page_id}.html.gz"
            (folder / record["html"]).write_bytes(gzip.compress(small, mtime=0))
            if record.get("gold"):
                gold = (SHARED / name / record["gold"]).read_bytes()
                record["gold"] = f"gold/{page_id}.txt"
                (folder / record["gold"]).write_bytes(gold)
            lines.append(json.dumps(record, ensure_ascii=False))
            print(f"{name} {page_id}: {len(raw)} -> {len(small)} bytes")
        (folder / "pages.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
