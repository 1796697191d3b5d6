"""Article metadata (issues 19, 37) on the development sets, beside trafilatura, htmldate and newspaper4k.

    python benchmarks/metadata_eval.py [DATASETS_DIR] [--limit N] [--tools this,trafilatura,...]
        [--no-timing] [--json OUT] [--dump OUT]

``--dump`` writes one JSON line per page and tool (set, part, id, url, the gold and the
tool's answer for title, authors, date and language), to list a row's misses. ``--reuse DUMP``
(repeatable) takes the other tools' answers from such a file instead of running them again (they
do not change while these rules do; a tool whose answers for a set are not all there is run).

Sets and parts:

* ``wcxb-dev`` (human gold title, author, publish_date), split in two halves by site: a
  page's registered domain (``registered_domain`` of training/groups.py, the cross-validation's
  sites: the last two labels, three under co/com/org/net/ac/gov/edu/ne with a two-letter
  country code, the full host on hosting platforms or an IP) hashed with sha1 after the prefix
  "metadata-split:" (``metadata_half``; the prefix keeps the split independent of the block
  model's validation sites). "rules" = the
  half whose pages the metadata rules are written from (bucket < 0.5); "reported" = the
  other half, only scored: its figures are the ones to quote.
* ``mercury`` (Mercury Parser's asserted title, author and UTC date_published: another
  extractor's checked output): dates count within a day (a UTC stamp can be a day off the
  page's date); a page without ``author`` is not an unsigned page (Mercury's tests leave it
  unasserted), so no invented names are counted there.
* ``readability`` (Readability.js's own title, byline and publishedTime: an extractor's
  output, not human gold).

A tool that is not installed is skipped; a tool's failure on a page counts as a miss.
newspaper4k is handed the page (``input_html``), with its domain list read offline, as
benchmarks/extractors.py calls it. htmldate runs twice: ``htmldate`` = its extensive search
(``find_date(extensive_search=True, original_date=True)``: what trafilatura's dates use),
``htmldate-fast`` = without it.

Scoring (a page counts when the gold has the field):

* title: exact match after NFKC and whitespace normalisation (case kept).
* authors: set match. Gold and output are split into names at ",", ";", "&", "|" and
  " and "; credentials after a name ("MD", "PhD", "RD", "FAND": one upper-case word of at
  most five letters and dots) are dropped; names are compared after NFKC, whitespace
  normalisation and casefold. A page scores 1 when the two sets are equal.
* authors invented: wcxb-dev pages whose gold has no author (the annotators found no byline)
  where the tool gives one, as a count and a share.
* publication date: the same day (the first ten characters of an ISO date); on mercury,
  within one day.
* date on undated pages: wcxb-dev pages whose gold has no publication date where the tool
  gives one, as a count and a share. Not all are wrong (the annotators left out dates that
  some of these pages show), but a tool that dates everything scores high here.
* language: no set has language gold. The reference is py3langid's answer on human-checked
  text: the gold text on wcxb-dev and readability (pages with at least 500 characters of
  it), Mercury's title, dek and asserted first words of the body (at least 60 characters,
  probability at least 0.9). That identifier is the one this project uses on the extracted
  text when a page declares no language, so this row measures declared-vs-text agreement,
  not an independent gold.

Timing: on wcxb-dev article pages, the median time of ``Extractor.extract()`` and of the
metadata step alone (the first read of ``.metadata`` after it; each page three times, the
fastest kept).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import statistics
import sys
import time
import unicodedata
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scrapy_boilerplate.core.extractor import Extractor
from scrapy_boilerplate.training.datasets import _hostname
from scrapy_boilerplate.training.groups import registered_domain

DEFAULT_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
TOOLS = ("this", "trafilatura", "htmldate", "htmldate-fast", "newspaper4k")
SETS = ("wcxb-dev", "mercury", "readability")
#: Sets whose dates are UTC stamps of the page's day: a day either way counts.
DATE_SLACK_SETS = {"mercury": 1}
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


def metadata_half(record: dict) -> str:
    """ "rules" (the half the metadata rules are written from) or "reported" (only scored), by a
    hash of the page's registered domain: every page of a site falls in the same half."""
    site = registered_domain(_hostname(record.get("url")) or record["id"])
    digest = hashlib.sha1(f"metadata-split:{site}".encode()).digest()
    return "rules" if int.from_bytes(digest[:8], "big") / 2**64 < 0.5 else "reported"


def same_day(found: str | None, gold: str, slack: int = 0) -> bool:
    if not found:
        return False
    if found[:10] == gold[:10]:
        return True
    if not slack:
        return False
    try:
        return abs((date.fromisoformat(found[:10]) - date.fromisoformat(gold[:10])).days) <= slack
    except ValueError:
        return False


# --- the tools: each returns {"title", "authors" (list), "date", "language"} -------------------


def run_this(extractor):
    def run(html: bytes, url):
        result = extractor.extract(html, url)
        return {
            "title": result.title,
            "authors": result.authors,
            "date": result.date_published,
            "language": result.language,
        }

    return run


def run_trafilatura():
    from trafilatura import extract_metadata

    def run(html: bytes, url):
        # Its metadata alone (the content is not needed for it); it names no language (that is
        # only checked against a target language when one is asked for).
        doc = extract_metadata(html.decode("utf-8", "replace"), default_url=url)
        if doc is None:
            return {"title": None, "authors": [], "date": None}
        authors = doc.author.split("; ") if doc.author else []
        return {"title": doc.title, "authors": authors, "date": doc.date}

    return run


def run_htmldate(extensive: bool):
    def make():
        from htmldate import find_date

        def run(html: bytes, url):
            return {
                "date": find_date(
                    html.decode("utf-8", "replace"), url=url, extensive_search=extensive, original_date=True
                )
            }

        return run

    return make


def run_newspaper():
    import newspaper
    from extractors import newspaper_article, offline_tldextract

    offline_tldextract()

    def run(html: bytes, url):
        article = newspaper_article(newspaper, html, url or "http://example.com/")
        date = article.publish_date.date().isoformat() if article.publish_date else None
        return {
            "title": article.title,
            "authors": list(article.authors),
            "date": date,
            "language": article.meta_lang or None,
        }

    return run


def load_tools(names):
    makers = {
        "this": lambda: run_this(Extractor()),
        "trafilatura": run_trafilatura,
        "htmldate": run_htmldate(True),
        "htmldate-fast": run_htmldate(False),
        "newspaper4k": run_newspaper,
    }
    tools = {}
    for name in names:
        try:
            tools[name] = makers[name]()
        except ImportError as exc:
            print(f"skipped {name}: not installed ({exc})", file=sys.stderr)
    return tools


# --- scoring -----------------------------------------------------------------------------


def language_reference(root: Path, record: dict):
    """py3langid on human-checked text (see the module docstring), or None."""
    from scrapy_boilerplate.core.metadata.language import _get_identifier

    identifier = _get_identifier()
    if identifier is None:
        return None
    if record.get("gold"):
        gold = (root / record["gold"]).read_text(encoding="utf-8")
        return identifier.classify(gold[:3000])[0] if len(gold) >= 500 else None
    text = " ".join([record.get("title") or "", record.get("dek") or "", *(record.get("with") or [])])
    if len(text) < 60:
        return None
    found, probability = identifier.classify(text)
    return found if probability >= 0.9 else None


def score(records, outputs, slack: int = 0) -> dict:
    """Per measure: [hits, pages]; for invented authors: [pages with authors, unsigned pages]."""
    rows = {
        "title": [0, 0],
        "authors": [0, 0],
        "invented": [0, 0],
        "date": [0, 0],
        "undated": [0, 0],
        "language": [0, 0],
    }
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
            rows["date"][0] += same_day(out.get("date"), record["publish_date"], slack)
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
            yield {
                "set": set_name,
                "part": part,
                "tool": tool,
                "id": record["id"],
                "url": record.get("url"),
                "page_type": record.get("page_type"),
                "gold": {
                    "title": record.get("title"),
                    "authors": record.get("author"),
                    "date": record.get("publish_date"),
                    "language": record.get("lang_ref"),
                },
                "out": {key: out.get(key) for key in ("title", "authors", "date", "language") if key in out},
            }


def load_parts(datasets: Path, set_name: str, limit=None, part=None) -> dict:
    """{part: records} of a set (wcxb-dev: "rules" and "reported"; the others: "all"), with each
    record's language reference; `part` keeps only that part of wcxb-dev."""
    root = datasets / set_name
    records = [json.loads(line) for line in (root / "pages.jsonl").open(encoding="utf-8")]
    if set_name == "wcxb-dev":
        parts = {"rules": [], "reported": []}
        for record in records:
            parts[metadata_half(record)].append(record)
    else:
        parts = {"all": records}
    parts = {
        name: part_records[:limit] for name, part_records in parts.items() if part in (None, name) or name == "all"
    }
    for part_records in parts.values():
        for record in part_records:
            record["lang_ref"] = language_reference(root, record)
    return parts


def load_reused(paths) -> dict:
    """{(set, tool): {id: answer}} from earlier --dump files."""
    reused: dict = {}
    for path in paths or ():
        for line in Path(path).open(encoding="utf-8"):
            row = json.loads(line)
            reused.setdefault((row["set"], row["tool"]), {})[row["id"]] = row["out"]
    return reused


def evaluate(datasets: Path, names, limit=None, dump=None, sets=SETS, part=None, reuse=()) -> dict:
    tools = load_tools(names)
    reused = load_reused(reuse)
    results = {}
    for set_name in sets:
        root = datasets / set_name
        if not (root / "pages.jsonl").exists():
            print(f"skipped {set_name}: no {root / 'pages.jsonl'}", file=sys.stderr)
            continue
        parts = load_parts(datasets, set_name, limit, part)
        records = [record for part_records in parts.values() for record in part_records]
        for tool, run in tools.items():
            outputs = {}
            start = time.perf_counter()
            earlier = reused.get((set_name, tool), {}) if tool != "this" else {}
            if all(record["id"] in earlier for record in records):
                outputs = {record["id"]: earlier[record["id"]] for record in records}
                records_to_run = []
            else:
                records_to_run = records
            for record in records_to_run:
                html = gzip.decompress((root / record["html"]).read_bytes())
                try:
                    outputs[record["id"]] = run(html, record.get("url"))
                except Exception as exc:  # noqa: BLE001 - a tool's failure is a miss
                    print(f"{tool} failed on {set_name}/{record['id']}: {exc!r}", file=sys.stderr)
                    outputs[record["id"]] = (
                        {"date": None}
                        if tool.startswith("htmldate")
                        else {"title": None, "authors": [], "date": None}
                        if tool == "trafilatura"
                        else {"title": None, "authors": [], "date": None, "language": None}
                    )
            seconds = time.perf_counter() - start if records_to_run else float("nan")
            for part_name, part_records in parts.items():
                results[(set_name, part_name, tool)] = score(
                    part_records, [outputs[r["id"]] for r in part_records], DATE_SLACK_SETS.get(set_name, 0)
                )
            results[(set_name, "seconds", tool)] = seconds
            if dump is not None:
                for row in dump_rows(set_name, parts, tool, outputs):
                    dump.write(json.dumps(row, ensure_ascii=False) + "\n")
    return results


def timing(datasets: Path, limit=None) -> dict:
    """extract() and the metadata step alone (the first read of .metadata) on wcxb-dev's article pages."""
    root = datasets / "wcxb-dev"
    records = [json.loads(line) for line in (root / "pages.jsonl").open(encoding="utf-8")]
    pages = [
        (gzip.decompress((root / r["html"]).read_bytes()), r.get("url"))
        for r in records
        if r.get("page_type") == "article"
    ][:limit]
    extractor = Extractor()
    extractor.extract(*pages[0]).metadata  # noqa: B018 - loads the language model outside the timing
    extract_times, meta_times = [], []
    for html, url in pages:
        a, b = [], []
        for _ in range(3):
            start = time.perf_counter()
            result = extractor.extract(html, url)
            middle = time.perf_counter()
            result.metadata  # noqa: B018 - made on first read: what is timed
            b.append(time.perf_counter() - middle)
            a.append(middle - start)
        extract_times.append(min(a))
        meta_times.append(min(b))
    return {
        "pages": len(pages),
        "median_ms_extract": statistics.median(extract_times) * 1e3,
        "median_ms_metadata": statistics.median(meta_times) * 1e3,
        "mean_ms_metadata": statistics.fmean(meta_times) * 1e3,
    }


def print_table(results: dict, names) -> None:
    tools = [t for t in names if any(k[2] == t for k in results)]
    measures = (
        ("title", "title"),
        ("authors", "authors"),
        ("invented", "authors invented (unsigned pages)"),
        ("date", "publication date"),
        ("undated", "date given on undated pages"),
        ("language", "language (py3langid on checked text)"),
    )
    print("| set | measure | pages | " + " | ".join(tools) + " |")
    print("|---|---|---|" + "---|" * len(tools))
    keys = sorted(
        {(k[0], k[1]) for k in results if k[1] != "seconds"},
        key=lambda k: (SETS.index(k[0]), ["reported", "rules", "all"].index(k[1])),
    )
    for set_name, part in keys:
        for key, label in measures:
            cells, pages = [], 0
            for tool in tools:
                hits, n = results.get((set_name, part, tool), {}).get(key, (0, 0))
                if n == 0:
                    cells.append("—")
                    continue
                pages = max(pages, n)
                cells.append(
                    f"{hits} ({hits / n:.0%})" if key in ("invented", "undated") else f"{hits / n:.3f} ({hits})"
                )
            if pages:
                print(f"| {set_name} {part} | {label} | {pages} | " + " | ".join(cells) + " |")
    for tool in tools:
        secs = [
            f"{k[0]} {v:.1f} s" if v == v else f"{k[0]} reused"
            for k, v in results.items()
            if k[1] == "seconds" and k[2] == tool
        ]
        print(f"time, {tool}: " + ", ".join(secs))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="?", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--limit", type=int, help="at most N pages per part")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated: " + ", ".join(TOOLS))
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    parser.add_argument("--part", choices=("rules", "reported"), help="only this half of wcxb-dev")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--dump", type=Path, help="write each page's gold and answers here (JSON lines)")
    parser.add_argument(
        "--reuse",
        type=Path,
        action="append",
        help="take the other tools' answers from this earlier --dump (repeatable)",
    )
    args = parser.parse_args(argv)
    names = [t.strip() for t in args.tools.split(",") if t.strip()]
    sets = [t.strip() for t in args.sets.split(",") if t.strip()]
    unknown = set(names) - set(TOOLS) | set(sets) - set(SETS)
    if unknown:
        parser.error(f"unknown tool(s) or set(s): {', '.join(sorted(unknown))}")
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    try:
        results = evaluate(args.datasets, names, args.limit, dump, sets, args.part, args.reuse)
    finally:
        if dump is not None:
            dump.close()
    print_table(results, names)
    timed = None
    if not args.no_timing and "this" in names:
        timed = timing(args.datasets, args.limit)
        print(
            f"on {timed['pages']} wcxb-dev article pages: extract() median {timed['median_ms_extract']:.2f} ms; "
            f"the metadata step alone median {timed['median_ms_metadata']:.3f} ms, "
            f"mean {timed['mean_ms_metadata']:.3f} ms"
        )
    if args.json:
        flat = {" / ".join(k): v for k, v in results.items()}
        args.json.write_text(json.dumps({"results": flat, "timing": timed}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
