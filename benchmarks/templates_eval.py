"""Site memory (core/site_memory/templates.py) on the multi-page sites of the development sets.

For every site (``site_key`` of the page URLs) with at least ``--min-pages`` pages, its pages
go through one MemoryTemplateStore in a fixed order (sorted by page id); each page is scored
with and without the store (content F1 as in benchmarks/compare.py, DESIGN.md "Metrics";
snippet shares for pages without gold). Reported: overall, per site, per position in the
site's sequence (early pages see less), and "leave one out": each page after all the other
pages of its site. Every other page (the only page of its site, so a first page) is checked
to be unchanged with a store.

    python benchmarks/templates_eval.py DATASET_DIR... [--min-pages 3] [--warmup N]
        [--repeat-share S] [--repeat-weight W] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import to_element
from scrapy_boilerplate.core.extractor import Extractor
from scrapy_boilerplate.core.site_memory import templates as tpl
from scrapy_boilerplate.training.datasets import load_dataset
from scrapy_boilerplate.training.metrics import f1_from, score_page


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def summary(results: list) -> dict:
    """Averaged precision and recall, F1 of the averages (DESIGN.md), snippet shares."""
    p = mean(
        r.precision for r in results if r.precision is not None and r.recall is not None and r.precision == r.precision
    )
    rec = mean(r.recall for r in results)
    return {
        "pages": len(results),
        "precision": p,
        "recall": rec,
        "f1": f1_from(p, rec),
        "with": mean(r.with_share for r in results),
        "without": mean(r.without_share for r in results),
    }


def fmt(d: dict) -> str:
    def f(v):
        return "  -   " if v is None else f"{v:.4f}"

    return (
        f"n={d['pages']:3d} P={f(d['precision'])} R={f(d['recall'])} F1={f(d['f1'])} "
        f"with={f(d['with'])} without={f(d['without'])}"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--min-pages", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=tpl.DEFAULT_WARMUP)
    ap.add_argument("--repeat-share", type=float, default=tpl.REPEAT_SHARE)
    ap.add_argument("--repeat-weight", type=float, default=tpl.REPEAT_WEIGHT)
    ap.add_argument("--sure-content", type=float, default=tpl.SURE_CONTENT)
    ap.add_argument("--inside-factor", type=float, default=tpl.INSIDE_FACTOR)
    ap.add_argument("--headings-inside", type=float, default=tpl.HEADINGS_INSIDE)
    ap.add_argument("--no-loo", action="store_true", help="skip leave-one-out")
    ap.add_argument("--no-singles", action="store_true", help="skip the single-page sites check")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    tpl.REPEAT_SHARE, tpl.REPEAT_WEIGHT = args.repeat_share, args.repeat_weight
    tpl.SURE_CONTENT, tpl.INSIDE_FACTOR = args.sure_content, args.inside_factor
    tpl.HEADINGS_INSIDE = args.headings_inside

    extractor = Extractor()
    by_site = defaultdict(list)
    for path in args.datasets:
        for page in load_dataset(path):
            site = tpl.site_key(page.url)
            by_site[(page.dataset, site) if site else (page.dataset, "#" + page.id)].append(page)
    multi = {
        k: sorted(v, key=lambda p: p.id)
        for k, v in by_site.items()
        if len(v) >= args.min_pages and not k[1].startswith("#")
    }
    print(f"{len(multi)} sites with >= {args.min_pages} pages, {sum(map(len, multi.values()))} pages")

    base_all, seq_all, loo_all = [], [], []
    by_pos = defaultdict(lambda: ([], []))
    per_site = {}
    store_pages = 0
    base_seconds, store_total = [], []
    for (dataset, site), pages in sorted(multi.items()):
        htmls = [p.read_html() for p in pages]
        base = []
        for p, h in zip(pages, htmls):
            start = time.perf_counter()
            text = extractor.extract(h, url=p.url).text
            base_seconds.append(time.perf_counter() - start)
            base.append(score_page(p, text))
        store = tpl.MemoryTemplateStore(warmup=args.warmup)
        seq = []
        for pos, (p, h) in enumerate(zip(pages, htmls)):
            start = time.perf_counter()
            text = extractor.extract(h, url=p.url, templates=_Timed(store)).text
            store_total.append(time.perf_counter() - start)
            store_pages += 1
            seq.append(score_page(p, text))
            by_pos[min(pos, 10)][0].append(base[pos])
            by_pos[min(pos, 10)][1].append(seq[-1])
        loo = []
        if not args.no_loo:
            walked = [build_page(to_element(h), base_url=p.url) for p, h in zip(pages, htmls)]
            for i, (p, h) in enumerate(zip(pages, htmls)):
                store = tpl.MemoryTemplateStore(warmup=args.warmup)
                for j, other in enumerate(walked):
                    if j != i:  # recorded as a crawl records it: with the model's probabilities
                        extractor.extract_page(other, pages[j].url, templates=store)
                loo.append(score_page(p, extractor.extract(h, url=p.url, templates=store).text))
        base_all += base
        seq_all += seq
        loo_all += loo
        per_site[f"{dataset}/{site}"] = {
            "base": summary(base),
            "sequence": summary(seq),
            "loo": summary(loo) if loo else None,
        }
        print(f"{dataset}/{site} ({len(pages)} pages)")
        print(f"   without  {fmt(summary(base))}")
        print(f"   sequence {fmt(summary(seq))}")
        if loo:
            print(f"   loo      {fmt(summary(loo))}")

    out = {
        "settings": vars(args),
        "all": {"base": summary(base_all), "sequence": summary(seq_all), "loo": summary(loo_all) if loo_all else None},
        "by_position": {},
        "sites": per_site,
    }
    print("\nALL")
    print(f"   without  {fmt(summary(base_all))}")
    print(f"   sequence {fmt(summary(seq_all))}")
    if loo_all:
        print(f"   loo      {fmt(summary(loo_all))}")
    print("\nBY POSITION in the site's sequence (10 = 10th and later)")
    for pos in sorted(by_pos):
        b, s = by_pos[pos]
        out["by_position"][pos] = {"base": summary(b), "sequence": summary(s)}
        print(f"  {pos:2d} without  {fmt(summary(b))}\n     with     {fmt(summary(s))}")
    store_seconds = _Timed.seconds
    print(f"\nstore time (fingerprints + exchange): {1000 * store_seconds / max(store_pages, 1):.3f} ms/page")
    out["store_ms_per_page"] = 1000 * store_seconds / max(store_pages, 1)
    extra = sorted(b - a for a, b in zip(base_seconds, store_total))
    if extra:
        out["extract_ms"] = {
            "without_mean": 1000 * sum(base_seconds) / len(base_seconds),
            "with_mean": 1000 * sum(store_total) / len(store_total),
            "extra_median": 1000 * extra[len(extra) // 2],
        }
        print(
            "extraction ms/page: without {without_mean:.2f}, with the store {with_mean:.2f} (mean); "
            "extra per page, median {extra_median:.3f}".format(**out["extract_ms"])
        )

    if not args.no_singles:
        changed = checked = 0
        for key, pages in by_site.items():
            if key in multi:
                continue
            for p in pages:
                html = p.read_html()
                store = tpl.MemoryTemplateStore(warmup=args.warmup)
                checked += 1
                if extractor.extract(html, url=p.url, templates=store).text != extractor.extract(html, url=p.url).text:
                    changed += 1
                    print("CHANGED with a store:", p.dataset, p.id)
        print(f"single pages checked: {checked}, changed: {changed}")
        out["singles"] = {"checked": checked, "changed": changed}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


class _Timed:
    """The store, with the time its evidence() takes added up."""

    seconds = 0.0

    def __init__(self, store):
        self.store = store

    def evidence(self, page, url, proba=None):
        start = time.perf_counter()
        try:
            return self.store.evidence(page, url, proba)
        finally:
            _Timed.seconds += time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())
