"""Compare scrapy_boilerplate with trafilatura and readability-lxml.

Quality (DESIGN.md "Metrics") and speed, on the same pages, in one process,
on one core. lxml parsing alone is always timed as the speed baseline.

    python benchmarks/compare.py DATASET_DIR... [--split auto|all|validation|train]
        [--limit N] [--page-type TYPE] [--tools ours,trafilatura,readability] [--json OUT]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import logging
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import lxml.etree
import lxml.html
import numpy as np

# Let the script run from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # extractors.py, machine.py

from extractors import html_to_text
from machine import cpu_name, version_of

from scrapy_boilerplate.training.datasets import (
    DatasetPage,
    is_validation_site,
    load_dataset,
)
from scrapy_boilerplate.training.evaluate import TRAINED_ON
from scrapy_boilerplate.training.metrics import (
    PageResult,
    format_table,
    score_page,
    summarize_by,
)

ExtractFn = Callable[[bytes, "str | None"], str]

DEFAULT_TOOLS = "ours,trafilatura,readability"
BASELINE = "lxml"  # parse only; the unit of the "x lxml" speed column


# --- tools ------------------------------------------------------------------


def make_ours(spec: str | None = None) -> ExtractFn:
    """Our extractor, or a stand-in "module:function" with the same interface."""
    if spec:
        module_name, _, func_name = spec.partition(":")
        extract = getattr(importlib.import_module(module_name), func_name)
    else:
        from scrapy_boilerplate import extract

    def run(html: bytes, url: str | None) -> str:
        result = extract(html, url=url)
        # A stand-in may return plain text instead of an Extraction.
        return getattr(result, "text", result) or ""

    return run


def make_trafilatura() -> ExtractFn:
    import trafilatura

    def run(html: bytes, url: str | None) -> str:
        return (
            trafilatura.extract(html, url=url, output_format="txt", include_comments=False, include_tables=True) or ""
        )

    return run


def make_readability() -> ExtractFn:
    import readability

    def run(html: bytes, url: str | None) -> str:
        return html_to_text(readability.Document(html).summary())

    return run


def lxml_parse(html: bytes, url: str | None) -> str:
    lxml.html.fromstring(html)
    return ""


def make_tools(names: list[str], ours_spec: str | None) -> dict[str, ExtractFn]:
    factories = {
        "ours": lambda: make_ours(ours_spec),
        "trafilatura": make_trafilatura,
        "readability": make_readability,
    }
    tools = {}
    for name in names:
        if name not in factories:
            sys.exit(f"unknown tool {name!r}; choose from {', '.join(factories)}")
        try:
            tools[name] = factories[name]()
        except ImportError as exc:  # e.g. ours before the core exists
            print(f"skipping {name}: {exc}", file=sys.stderr)
    tools[BASELINE] = lxml_parse
    return tools


# --- running ----------------------------------------------------------------


@dataclass
class ToolRun:
    texts: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    errors: int = 0
    peak_bytes: int | None = None


def run_tool(name: str, fn: ExtractFn, pages: list[DatasetPage], htmls: list[bytes], label: str) -> ToolRun:
    run = ToolRun()
    call_safely(fn, htmls[0], pages[0].url)  # warm-up: imports, caches, models
    gc.collect()
    progress = sys.stderr.isatty()
    for i, (page, html) in enumerate(zip(pages, htmls), start=1):
        start = time.perf_counter()
        text, failed = call_safely(fn, html, page.url)
        run.seconds.append(time.perf_counter() - start)
        run.texts.append(text)
        run.errors += failed
        if progress:
            print(f"\r{label} {name}: {i}/{len(pages)}", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    run.peak_bytes = peak_memory(fn, pages, htmls)
    return run


def call_safely(fn: ExtractFn, html: bytes, url: str | None) -> tuple[str, bool]:
    """An exception counts as an error and an empty output."""
    try:
        return fn(html, url), False
    except Exception:  # noqa: BLE001 - any extractor's failure is an error, counted
        return "", True


def largest(htmls: list[bytes]) -> int:
    return max(range(len(htmls)), key=lambda i: len(htmls[i]))


def peak_memory(fn: ExtractFn, pages: list[DatasetPage], htmls: list[bytes]) -> int:
    """tracemalloc peak of one extraction of the largest page.

    Measured apart from the timed loop, since tracing slows everything down.
    Only the Python heap is seen: libxml2's own C allocations are not.
    """
    i = largest(htmls)
    gc.collect()
    tracemalloc.start()
    try:
        call_safely(fn, htmls[i], pages[i].url)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def select_pages(
    pages: list[DatasetPage], split: str, dataset: str, limit: int | None, page_type: str | None = None
) -> list[DatasetPage]:
    if page_type:
        pages = [p for p in pages if p.page_type == page_type]
    if split == "auto":
        # wcxb-dev is also used for training: only its held-out sites are fair.
        split = "validation" if dataset in TRAINED_ON else "all"
    if split != "all":
        wanted = split == "validation"
        pages = [p for p in pages if is_validation_site(p.site) == wanted]
    return pages[:limit] if limit else pages


# --- reporting --------------------------------------------------------------

QUALITY_COLUMNS = ["pages", "P", "R", "F1 ±", "BoW F1", "LCS F1", "with", "without", "errors"]
SPEED_COLUMNS = ["total s", "median ms", "p90 ms", "pages/s", "x lxml", "peak MB", "page KB", "errors"]


def quality_row(summary: dict, errors: int) -> dict:
    f1 = summary["f1"]
    ci = summary["f1_ci"]
    f1_text = "-" if f1 is None else f"{f1:.3f}" + ("" if ci is None else f" ± {ci:.3f}")
    return {
        "pages": summary["pages"],
        "P": summary["precision"],
        "R": summary["recall"],
        "F1 ±": f1_text,
        "BoW F1": summary["bow_f1"],
        "LCS F1": summary["lcs_f1"],
        "with": summary["with_share"],
        "without": summary["without_share"],
        "errors": errors,
    }


def speed_stats(run: ToolRun, baseline_total: float, page_bytes: int) -> dict:
    ms = np.array(run.seconds) * 1000
    total = float(np.sum(run.seconds))
    return {
        "total_s": total,
        "median_ms": float(np.median(ms)),
        "p90_ms": float(np.percentile(ms, 90)),
        "pages_per_s": len(ms) / total if total else None,
        "x_lxml": total / baseline_total if baseline_total else None,
        "peak_mb": run.peak_bytes / 2**20 if run.peak_bytes is not None else None,
        "page_kb": page_bytes / 1024,
        "errors": run.errors,
    }


def speed_row(stats: dict) -> dict:
    def fmt(value, spec):
        return "-" if value is None else format(value, spec)

    return {
        "total s": fmt(stats["total_s"], ".2f"),
        "median ms": fmt(stats["median_ms"], ".1f"),
        "p90 ms": fmt(stats["p90_ms"], ".1f"),
        "pages/s": fmt(stats["pages_per_s"], ".1f"),
        "x lxml": fmt(stats["x_lxml"], ".1f"),
        "peak MB": fmt(stats["peak_mb"], ".1f"),
        "page KB": fmt(stats["page_kb"], ".0f"),
        "errors": stats["errors"],
    }


def print_quality(quality: dict[str, dict], errors: dict[str, int]) -> None:
    groups = list(next(iter(quality.values())))
    # Per page_type tables only when the set has page types.
    has_types = any(g not in ("all", "(none)") for g in groups)
    for group in ["all", *([g for g in groups if g != "all"] if has_types else [])]:
        rows = {
            tool: quality_row(by_group[group], errors[tool]) for tool, by_group in quality.items() if group in by_group
        }
        title = "quality" if group == "all" else f"quality, page_type={group}"
        print(format_table(rows, QUALITY_COLUMNS, name=title))
        print()


def evaluate_dataset(folder: Path, args, tools: dict[str, ExtractFn]) -> dict | None:
    pages = select_pages(load_dataset(folder), args.split, folder.name, args.limit, args.page_type)
    if not pages:
        print(f"{folder.name}: no pages selected", file=sys.stderr)
        return None
    htmls = [page.read_html() for page in pages]  # read before any timing
    runs = {name: run_tool(name, fn, pages, htmls, folder.name) for name, fn in tools.items()}

    quality, errors, per_page = {}, {}, {}
    for name, run in runs.items():
        if name == BASELINE:
            continue
        results: list[PageResult] = [score_page(p, t) for p, t in zip(pages, run.texts)]
        quality[name] = summarize_by(results, key="page_type", bootstrap=args.bootstrap)
        errors[name] = run.errors
        per_page[name] = [asdict(r) for r in results]

    big = len(htmls[largest(htmls)])
    baseline_total = sum(runs[BASELINE].seconds)
    speed = {name: speed_stats(run, baseline_total, big) for name, run in runs.items()}

    print(f"== {folder.name}: {len(pages)} pages (split {args.split}{f', limit {args.limit}' if args.limit else ''})\n")
    if quality:
        print_quality(quality, errors)
    print(format_table({n: speed_row(s) for n, s in speed.items()}, SPEED_COLUMNS, name="speed"))
    print(
        "(one core; time of the extraction call only; peak MB = tracemalloc peak, Python heap"
        " only, extracting the largest page)\n"
    )
    return {"pages": len(pages), "quality": quality, "speed": speed, "per_page": per_page}


# --- machine ----------------------------------------------------------------


def machine_info() -> dict:
    return {
        "platform": platform.platform(),
        "cpu": cpu_name(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "lxml": ".".join(map(str, lxml.etree.LXML_VERSION)),
        "libxml2": ".".join(map(str, lxml.etree.LIBXML_VERSION)),
        "trafilatura": version_of("trafilatura"),
        "readability-lxml": version_of("readability-lxml"),
    }


# --- main -------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", type=Path, metavar="DATASET_DIR")
    parser.add_argument(
        "--split",
        choices=["auto", "all", "validation", "train"],
        default="auto",
        help="auto: the validation sites for wcxb-dev, all pages otherwise",
    )
    parser.add_argument("--limit", type=int, help="use the first N selected pages")
    parser.add_argument("--page-type", help="only pages of this page_type (e.g. article)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write results as JSON")
    parser.add_argument(
        "--tools", default=DEFAULT_TOOLS, help=f"comma-separated (default {DEFAULT_TOOLS}); lxml is always timed"
    )
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples for F1 ±")
    # Hidden: --only is an alias of --tools; --ours MODULE:FUNC replaces our
    # extractor by a stand-in with the same interface (for testing this script).
    parser.add_argument("--only", dest="tools", help=argparse.SUPPRESS)
    parser.add_argument("--ours", metavar="MODULE:FUNC", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Extractors log per-page warnings; they would drown the tables.
    for name in ("trafilatura", "readability", "htmldate", "courlan"):
        logging.getLogger(name).setLevel(logging.ERROR)
    tools = make_tools([t.strip() for t in args.tools.split(",") if t.strip()], args.ours)
    report = {"datasets": {}, "machine": machine_info()}
    for folder in args.datasets:
        result = evaluate_dataset(folder, args, tools)
        if result is not None:
            report["datasets"][folder.name] = result
    print("machine: " + ", ".join(f"{k} {v}" for k, v in report["machine"].items()))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
