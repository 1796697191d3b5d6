"""Speed of the extractor on a dataset, beside lxml's parse of the same pages.

For the comparison with other extractors see ``benchmarks/compare.py`` in
the repository; this command needs nothing but the package.
"""

from __future__ import annotations

import time
import tracemalloc
from typing import TYPE_CHECKING

import numpy as np
from lxml import etree

from ..core import speedups
from ..core.jsondata import JsonObject
from .datasets import load_dataset
from .train import progress

if TYPE_CHECKING:
    from pathlib import Path

    from ..core.extractor import Extractor


def bench_dataset(
    path: str | Path, extractor: Extractor, limit: int | None = None, page_type: str | None = None
) -> JsonObject:
    pages = load_dataset(path)
    if page_type:
        pages = [p for p in pages if p.page_type == page_type]
    if limit:
        pages = pages[:limit]
    if not pages:
        raise ValueError(f"{path}: no pages to time")
    docs = [p.read_html() for p in pages]
    parser = etree.HTMLParser()
    extractor.extract(docs[0])  # warm-up: model loaded, caches filled
    parse_ms, extract_ms = [], []
    for n, data in enumerate(docs, 1):
        progress(f"timing {n}/{len(docs)}")
        start = time.perf_counter()
        etree.fromstring(data, parser)
        parse_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        extractor.extract(data)
        extract_ms.append((time.perf_counter() - start) * 1000)
    progress("")
    largest = max(docs, key=len)
    tracemalloc.start()
    extractor.extract(largest)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    parse, ext = np.array(parse_ms), np.array(extract_ms)
    return {
        "pages": len(docs),
        "median_ms": float(np.median(ext)),
        "p90_ms": float(np.percentile(ext, 90)),
        "pages_per_s": float(len(ext) / ext.sum() * 1000),
        "total_s": float(ext.sum() / 1000),
        "lxml_median_ms": float(np.median(parse)),
        "lxml_total_s": float(parse.sum() / 1000),
        "x_lxml": float(ext.sum() / parse.sum()),
        "largest_page_kb": len(largest) / 1024,
        "peak_python_mb": peak / 1024 / 1024,
        "compiled": sorted(name for name, used in speedups.available().items() if used),
    }


def format_bench(name: str, r: JsonObject) -> str:
    return (
        f"{name}: {r['pages']} pages, median {r['median_ms']:.2f} ms, p90 {r['p90_ms']:.2f} ms, "
        f"{r['pages_per_s']:.0f} pages/s, total {r['total_s']:.2f} s = {r['x_lxml']:.1f}x lxml's parse "
        f"(lxml median {r['lxml_median_ms']:.2f} ms); peak Python heap {r['peak_python_mb']:.1f} MB "
        f"on the largest page ({r['largest_page_kb']:.0f} KB); compiled modules: "
        f"{', '.join(r['compiled']) or 'none (pure Python)'}"
    )
