"""Article metadata (issue 19) on the development sets, beside trafilatura, htmldate and newspaper4k.

    python benchmarks/metadata_eval.py [DATASETS_DIR] [--limit N] [--tools this,trafilatura,...]
        [--no-timing] [--json OUT] [--dump OUT]

``--dump`` writes one JSON line per page and tool (set, part, id, url, the gold and the
tool's answer for title, authors and date), to list a row's misses.

Sets: ``wcxb-dev`` (human gold title, author, publish_date), split by site as the block
model was trained: "dev" = the sites the model and the metadata rules were developed on,
"held-out" = the validation sites (``training.datasets.is_validation_site``), which were
only scored; and ``readability`` (Readability.js's own title, byline and publishedTime: an
extractor's output, not human gold). A tool that is not installed is skipped.

Scoring (a page counts when the gold has the field):

* title: exact match after NFKC and whitespace normalisation (case kept).
* authors: set match. Gold and output are split into names at ",", ";", "&", "|" and
  " and "; credentials after a name ("MD", "PhD", "RD", "FAND": one upper-case word of at
  most five letters and dots) are dropped; names are compared after NFKC, whitespace
  normalisation and casefold. A page scores 1 when the two sets are equal.
* authors invented: pages whose gold has no author (wcxb-dev; the annotators found no byline)
  where the tool gives one, as a count and a share.
* publication date: the same day (the first ten characters of an ISO date).
* date on undated pages: pages whose gold has no publication date (wcxb-dev) where the tool
  gives one, as a count and a share. Not all are wrong (the annotators left out dates that
  some of these pages show), but a tool that dates everything scores high here.
* language: wcxb-dev has no language gold; the reference is py3langid's answer on the
  human gold text (pages with at least 500 characters of it). That identifier is the one
  this project uses on the extracted text when a page declares no language, so this row
  measures declared-vs-text agreement, not an independent gold.

Timing: the median time of ``Extractor.extract()`` on wcxb-dev article pages, alone and
followed by reading ``.metadata`` (each page timed three times, the fastest kept).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import time
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scrapy_boilerplate.core.extractor import Extractor
from scrapy_boilerplate.training.datasets import _hostname, is_validation_site

DEFAULT_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
TOOLS = ("this", "trafilatura", "htmldate", "newspaper4k")
_SPLIT = re.compile(r"\s*(?:,|;|&|\||\band\b)\s*")
_CREDENTIAL = re.compile(r"^[A-Z][A-Z.]{0,4}®?$|^Ph\.?D\.?$|^M\.?D\.?$", re.I)


def norm(text) -> str:
    return " ".join(unicodedata.normalize("NFKC", text or "").split())


def author_set(value) -> frozenset:
    if not value:
        return frozenset()
    values = value if isinstance(value, list | tuple) else [value]
    names = set()
    for item in values:
        for position, part in enumerate(_SPLIT.split(norm(item))):
            part = part.strip()
            if not part or (position and _CREDENTIAL.match(part) and part.upper() == part):
                continue
            names.add(part.casefold())
    return frozenset(names)


# --- the tools: each returns {"title", "authors" (list), "date", "language"} -------------------

def run_this(extractor):
    def run(html: bytes, url):
        result = extractor.extract(html, url)
        return {"title": result.title, "authors": result.authors, "date": result.date_published,
                "language": result.language}
    return run


def run_trafilatura():
    from trafilatura import extract_metadata

    def run(html: bytes, url):
        doc = extract_metadata(html.decode("utf-8", "replace"), default_url=url)
        if doc is None:
            return {}
        authors = doc.author.split("; ") if doc.author else []
        return {"title": doc.title, "authors": authors, "date": doc.date,
                "language": getattr(doc, "language", None)}
    return run


def run_htmldate():
    from htmldate import find_date

    def run(html: bytes, url):
        return {"date": find_date(html.decode("utf-8", "replace"), url=url, extensive_search=False,
                                  original_date=True)}
    return run


def run_newspaper():
    from newspaper import Article

    def run(html: bytes, url):
        article = Article(url or "http://example.com/", fetch_images=False)
        article.download(input_html=html.decode("utf-8", "replace"))
        article.parse()
        date = article.publish_date.date().isoformat() if article.publish_date else None
        return {"title": article.title, "authors": list(article.authors), "date": date,
                "language": article.meta_lang or None}
    return run


def load_tools(names):
    makers = {"this": lambda: run_this(Extractor()), "trafilatura": run_trafilatura,
              "htmldate": run_htmldate, "newspaper4k": run_newspaper}
    tools = {}
    for name in names:
        try:
            tools[name] = makers[name]()
        except ImportError as exc:
            print(f"skipped {name}: not installed ({exc})", file=sys.stderr)
    return tools


# --- scoring -----------------------------------------------------------------------------

def language_reference(root: Path, record: dict):
    """py3langid on the human gold text (see the module docstring), or None."""
    from scrapy_boilerplate.core.metadata.language import _get_identifier

    identifier = _get_identifier()
    if identifier is None or not record.get("gold"):
        return None
    gold = (root / record["gold"]).read_text(encoding="utf-8")
    return identifier.classify(gold[:3000])[0] if len(gold) >= 500 else None


def score(records, outputs) -> dict:
    """Per measure: [hits, pages]; for invented authors: [pages with authors, unsigned pages]."""
    rows = {"title": [0, 0], "authors": [0, 0], "invented": [0, 0], "date": [0, 0], "undated": [0, 0],
            "language": [0, 0]}
    for record, out in zip(records, outputs):
        if out is None:
            continue
        if record.get("title") and "title" in out:
            rows["title"][1] += 1
            rows["title"][0] += norm(out.get("title")) == norm(record["title"])
        if "authors" in out:
            if record.get("author"):
                rows["authors"][1] += 1
                rows["authors"][0] += author_set(out.get("authors")) == author_set(record["author"])
            elif record.get("source") == "wcxb":
                rows["invented"][1] += 1
                rows["invented"][0] += bool(out.get("authors"))
        if record.get("publish_date") and "date" in out:
            rows["date"][1] += 1
            rows["date"][0] += (out.get("date") or "")[:10] == record["publish_date"][:10]
        elif "date" in out and record.get("source") == "wcxb":
            rows["undated"][1] += 1
            rows["undated"][0] += bool(out.get("date"))
        if record.get("lang_ref") and "language" in out:
            rows["language"][1] += 1
            rows["language"][0] += (out.get("language") or "").lower()[:2] == record["lang_ref"]
    return rows


def dump_rows(set_name, parts, tool, outputs):
    """One row per page: the gold and the tool's answer (for --dump)."""
    for part, part_records in parts.items():
        for record in part_records:
            out = outputs[record["id"]] or {}
            yield {"set": set_name, "part": part, "tool": tool, "id": record["id"],
                   "url": record.get("url"), "page_type": record.get("page_type"),
                   "gold": {"title": record.get("title"), "authors": record.get("author"),
                            "date": record.get("publish_date")},
                   "out": {key: out.get(key) for key in ("title", "authors", "date") if key in out}}


def evaluate(datasets: Path, names, limit=None, dump=None) -> dict:
    tools = load_tools(names)
    results = {}
    for set_name in ("wcxb-dev", "readability"):
        root = datasets / set_name
        if not (root / "pages.jsonl").exists():
            print(f"skipped {set_name}: no {root / 'pages.jsonl'}", file=sys.stderr)
            continue
        records = [json.loads(line) for line in (root / "pages.jsonl").open(encoding="utf-8")][:limit]
        if set_name == "wcxb-dev":
            for record in records:
                record["lang_ref"] = language_reference(root, record)
        parts = {"all": records}
        if set_name == "wcxb-dev":
            host = lambda r: (_hostname(r.get("url")) or r["id"]).removeprefix("www.")  # noqa: E731
            parts = {"dev": [r for r in records if not is_validation_site(host(r))],
                     "held-out": [r for r in records if is_validation_site(host(r))]}
        for tool, run in tools.items():
            outputs = {}
            start = time.perf_counter()
            for record in records:
                html = gzip.decompress((root / record["html"]).read_bytes())
                try:
                    outputs[record["id"]] = run(html, record.get("url"))
                except Exception as exc:   # noqa: BLE001 - a tool's failure is a miss
                    print(f"{tool} failed on {set_name}/{record['id']}: {exc!r}", file=sys.stderr)
                    outputs[record["id"]] = ({"date": None} if tool == "htmldate" else
                                             {"title": None, "authors": [], "date": None, "language": None})
            seconds = time.perf_counter() - start
            for part, part_records in parts.items():
                results[(set_name, part, tool)] = score(part_records, [outputs[r["id"]] for r in part_records])
            results[(set_name, "seconds", tool)] = seconds
            if dump is not None:
                for row in dump_rows(set_name, parts, tool, outputs):
                    dump.write(json.dumps(row, ensure_ascii=False) + "\n")
    return results


def timing(datasets: Path, limit=None) -> dict:
    root = datasets / "wcxb-dev"
    records = [json.loads(line) for line in (root / "pages.jsonl").open(encoding="utf-8")]
    pages = [(gzip.decompress((root / r["html"]).read_bytes()), r.get("url"))
             for r in records if r.get("page_type") == "article"][:limit]
    extractor = Extractor()
    extractor.extract(*pages[0]).metadata   # noqa: B018 - loads the language model outside the timing
    without, with_meta = [], []
    for html, url in pages:
        a, b = [], []
        for _ in range(3):
            start = time.perf_counter()
            extractor.extract(html, url)
            a.append(time.perf_counter() - start)
            start = time.perf_counter()
            extractor.extract(html, url).metadata   # noqa: B018 - made on first read: what is timed
            b.append(time.perf_counter() - start)
        without.append(min(a))
        with_meta.append(min(b))
    m0, m1 = statistics.median(without), statistics.median(with_meta)
    ratios = sorted(b / a for a, b in zip(without, with_meta))
    return {"pages": len(pages), "median_ms_without": m0 * 1e3, "median_ms_with": m1 * 1e3,
            "overhead": m1 / m0 - 1, "median_page_overhead": statistics.median(ratios) - 1}


def print_table(results: dict, names) -> None:
    tools = [t for t in names if any(k[2] == t for k in results)]
    measures = (("title", "title"), ("authors", "authors"),
                ("invented", "authors invented (unsigned pages)"), ("date", "publication date"),
                ("undated", "date given on undated pages"),
                ("language", "language (py3langid on gold text)"))
    print("| set | measure | pages | " + " | ".join(tools) + " |")
    print("|---|---|---|" + "---|" * len(tools))
    keys = sorted({(k[0], k[1]) for k in results if k[1] != "seconds"},
                  key=lambda k: (k[0] != "wcxb-dev", ["dev", "held-out", "all"].index(k[1])))
    for set_name, part in keys:
        for key, label in measures:
            cells, pages = [], 0
            for tool in tools:
                hits, n = results.get((set_name, part, tool), {}).get(key, (0, 0))
                if n == 0:
                    cells.append("—")
                    continue
                pages = max(pages, n)
                cells.append(f"{hits} ({hits / n:.0%})" if key in ("invented", "undated") else f"{hits / n:.2f}")
            if pages:
                print(f"| {set_name} {part} | {label} | {pages} | " + " | ".join(cells) + " |")
    for tool in tools:
        secs = [f"{k[0]} {v:.1f} s" for k, v in results.items() if k[1] == "seconds" and k[2] == tool]
        print(f"time, {tool}: " + ", ".join(secs))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="?", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--limit", type=int, help="at most N pages per set")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated: " + ", ".join(TOOLS))
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--dump", type=Path, help="write each page's gold and answers here (JSON lines)")
    args = parser.parse_args(argv)
    names = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = set(names) - set(TOOLS)
    if unknown:
        parser.error(f"unknown tool(s): {', '.join(sorted(unknown))}")
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    try:
        results = evaluate(args.datasets, names, args.limit, dump)
    finally:
        if dump is not None:
            dump.close()
    print_table(results, names)
    timed = None
    if not args.no_timing and "this" in names:
        timed = timing(args.datasets, args.limit)
        print(f"extract() on {timed['pages']} wcxb-dev article pages: median "
              f"{timed['median_ms_without']:.2f} ms without metadata, {timed['median_ms_with']:.2f} ms "
              f"with (+{timed['overhead']:.1%}; median per-page overhead "
              f"+{timed['median_page_overhead']:.1%})")
    if args.json:
        flat = {" / ".join(k): v for k, v in results.items()}
        args.json.write_text(json.dumps({"results": flat, "timing": timed}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
