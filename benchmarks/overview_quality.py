"""Overview-page detection quality, site-grouped cross-validation, beside simple baselines.

    python benchmarks/overview_quality.py [DATASET_DIR...]

On the labelled pages of the given sets (default: ../shared/datasets/overview-dev and wcxb-dev),
prints the overview-class precision, recall, F1, accuracy and the share of articles (and of other
single items) flagged, for:

- the overview model, out-of-fold (5 folds grouped by site), on each of six site-to-fold
  splits, at one cutoff chosen on the pooled out-of-fold scores for the best F1 with at most 5 %
  of articles flagged, as `train --overview` does, and the six splits pooled; the same models
  also score the pages with their URLs withheld, and with the URL each page declares
  (`<link rel="canonical">`, else `og:url`), as `detect_overview(html)` without `url` does;
  and the pooled scores with the signs of the pages' own links that `OverviewDetector` adds to
  the score (a pager of its own on a listing's URL; links to no other page of the site);
- TextSweeper's plain rule, net text of the best region below the default 1500 characters, and
  below the best threshold for this data (chosen on all pages: an optimistic baseline);
- whole-page link density above 0.4;
- Readability.js's isProbablyReaderable check (re-implemented on lxml): not readerable = overview.

and then the overview model's trade-off at other cutoffs (BOILERPLATE_OVERVIEW_CUTOFF), and the
pages the shipped model (trained on overview-dev and wcxb-dev) flags in sets of pages with a main
text, mostly articles, that it was not trained on (--articles; default:
../shared/datasets/trafilatura-eval and readability, where present), with the URLs the sets give
(readability's pages have none).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.overview.detector import (
    DEFAULT_NET_TEXT_THRESHOLD,
    LEADS_NOWHERE_MAX_SCORE,
    OverviewDetector,
    default_detector,
    leads_nowhere,
    paged_listing,
)
from scrapy_boilerplate.core.overview.evidence import FEATURE_NAMES, own_url, url_features
from scrapy_boilerplate.training.datasets import load_datasets
from scrapy_boilerplate.training.overview import (
    SPLITS,
    classification_report,
    collect_evidence,
    cross_validate,
    fmt_report,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
UNLIKELY = re.compile(
    r"-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|"
    r"footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|"
    r"skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|"
    r"yom-remote",
    re.I,
)
MAYBE = re.compile(r"and|article|body|column|content|main|mathjax|shadow", re.I)


def is_probably_readerable(html: bytes, min_content_length: int = 140, min_score: float = 20) -> bool:
    """Readability.js `isProbablyReaderable`: sum of sqrt(len - 140) over visible paragraphs > 20."""
    root = parse_html(html)
    if root is None:
        return False
    nodes = root.xpath("//p | //pre | //article | //div[br]")
    score = 0.0
    for node in nodes:
        style = (node.get("style") or "").replace(" ", "").lower()
        if "display:none" in style or node.get("hidden") is not None:
            continue
        match = f"{node.get('class') or ''} {node.get('id') or ''}"
        if UNLIKELY.search(match) and not MAYBE.search(match):
            continue
        if node.tag == "p" and node.getparent() is not None and node.getparent().tag == "li":
            continue
        length = len(" ".join("".join(node.itertext()).split()))
        if length < min_content_length:
            continue
        score += math.sqrt(length - min_content_length)
        if score > min_score:
            return True
    return False


def with_urls(ev, urls: list):
    """`ev` with the URL evidence of `urls` instead of the pages' own URLs."""
    names = list(url_features(None))
    columns = [FEATURE_NAMES.index(name) for name in names]
    X = ev.X.copy()
    for row, url in enumerate(urls):
        values = url_features(url)
        X[row, columns] = [values[name] for name in names]
    return dataclasses.replace(ev, X=X)


def site_signs(pages: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per page: a pager of its own on a listing's URL, links to no other page of its site, and the
    shipped detector's verdicts by its score alone and with those signs (in-sample: it was trained
    on overview-dev and wcxb-dev)."""
    shipped, plain = default_detector(), OverviewDetector(site_signs=False)
    paged, nowhere, alone, signed = [], [], [], []
    for p in pages:
        page = build_page(parse_html(p.read_html()), base_url=p.url)
        paged.append(paged_listing(page, p.url))
        nowhere.append(leads_nowhere(page, p.url))
        alone.append(plain.detect_page(page, p.url).is_overview)
        signed.append(shipped.detect_page(page, p.url).is_overview)
    return np.array(paged), np.array(nowhere), np.array(alone), np.array(signed)


def with_signs(scores: np.ndarray, cutoff: float, paged: np.ndarray, nowhere: np.ndarray) -> np.ndarray:
    """The verdicts at `cutoff` with the signs, as OverviewDetector.with_signs gives them."""
    pred = scores >= cutoff
    return (pred & ~(nowhere & (scores < LEADS_NOWHERE_MAX_SCORE))) | (~pred & paged)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", type=Path, default=[SHARED / "overview-dev", SHARED / "wcxb-dev"])
    parser.add_argument(
        "--articles",
        nargs="*",
        type=Path,
        metavar="DATASET_DIR",
        default=[d for d in (SHARED / "trafilatura-eval", SHARED / "readability") if d.is_dir()],
        help="sets of pages with a main text (mostly articles) to count the flagged ones of",
    )
    args = parser.parse_args()
    pages = load_datasets(args.datasets)
    labelled = [p for p in pages if p.label in ("overview", "article", "other")]
    ev = collect_evidence(labelled)
    X, y, labels, sites, ids = ev.X, ev.y, ev.labels, ev.sites, ev.ids
    by_id = {f"{p.dataset}/{p.id}": p for p in labelled}
    datasets = np.array([i.split("/")[0] for i in ids])

    rows = {}
    # As `train --overview` does: CV on several site-to-fold splits, one cutoff on their pooled scores.
    # The same models also score the pages without their URLs, and with the URLs they declare.
    no_url = with_urls(ev, [None] * len(ids))
    declared = with_urls(ev, [own_url(build_page(parse_html(by_id[i].read_html()))) for i in ids])
    cv = cross_validate(ev, variants=(no_url, declared), log=lambda line: None)
    cutoff = cv.cutoff
    for salt, split in zip(SPLITS, cv.scores):
        rows[f"overview model (CV split '{salt}', cutoff {cutoff:.2f})"] = split[0] >= cutoff
    # The splits pooled (rows k * pages long: the pages once per split).
    rows[f"overview model ({len(SPLITS)} splits pooled)"] = cv.pooled() >= cutoff
    rows["  the same, URLs withheld"] = cv.pooled(1) >= cutoff
    rows["  the same, the URL each page declares instead"] = cv.pooled(2) >= cutoff
    paged, nowhere, alone, signed = site_signs([by_id[i] for i in ids])
    k = len(SPLITS)
    rows["  the same, with a pager of its own on a listing's URL"] = with_signs(
        cv.pooled(), cutoff, np.tile(paged, k), np.zeros(len(ids) * k, bool)
    )
    rows["  the same, and links to no other page of the site"] = with_signs(
        cv.pooled(), cutoff, np.tile(paged, k), np.tile(nowhere, k)
    )
    rows["shipped model in-sample, its score alone"] = alone
    rows["shipped model in-sample, with both signs"] = signed
    net = np.expm1(X[:, FEATURE_NAMES.index("log_net_region")])
    rows[f"TextSweeper net text < {DEFAULT_NET_TEXT_THRESHOLD}"] = net < DEFAULT_NET_TEXT_THRESHOLD
    best = max((classification_report(net < t, y, labels)["f1"], t) for t in range(100, 5001, 100))
    rows[f"TextSweeper net text < {best[1]} (best on these pages)"] = net < best[1]
    rows["page link density > 0.4"] = X[:, FEATURE_NAMES.index("ld_page")] > 0.4
    rows["not isProbablyReaderable (Readability.js)"] = np.array(
        [not is_probably_readerable(by_id[i].read_html()) for i in ids]
    )

    print(
        f"{len(y)} labelled pages ({int(y.sum())} overview, {int((labels == 'article').sum())} article, "
        f"{int((labels == 'other').sum())} other) from {len(set(sites))} sites"
    )
    for name in [str(p.name) for p in args.datasets] + ["all"]:
        mask = np.ones(len(y), bool) if name == "all" else datasets == name
        print(f"\n== {name}: {int(mask.sum())} pages")
        for method, pred in rows.items():
            k = len(pred) // len(y)
            m = np.tile(mask, k)
            report = classification_report(pred[m], np.tile(y, k)[m], np.tile(labels, k)[m])
            print(f"{method:55s} {fmt_report(report)}")
    # What BOILERPLATE_OVERVIEW_CUTOFF trades: the same pooled out-of-fold scores at other cutoffs.
    print(f"\n== all: the overview model at other cutoffs ({len(SPLITS)} splits pooled)")
    pooled, k = cv.pooled(), len(SPLITS)
    for cut in sorted({0.3, 0.4, 0.5, 0.6, 0.7, 0.8, cutoff}):
        report = classification_report(pooled >= cut, np.tile(y, k), np.tile(labels, k))
        shipped = " (the chosen cutoff)" if cut == cutoff else ""
        print(f"cutoff {cut:.2f}{shipped:20s} {fmt_report(report)}")
    for path in args.articles:
        print_flagged_articles(path)
    return 0


def print_flagged_articles(path: Path) -> None:
    """The pages of a set of mostly articles that the shipped model calls overviews."""
    detector = default_detector()
    plain = OverviewDetector(site_signs=False)
    pages = load_datasets([path])
    flagged, by_score = [], 0
    for p in pages:
        page = build_page(parse_html(p.read_html()), base_url=p.url)
        verdict = detector.detect_page(page, p.url)
        by_score += plain.detect_page(page, p.url).is_overview
        if verdict.is_overview:
            flagged.append((p.id, verdict.score))
    with_url = sum(bool(p.url) for p in pages)
    print(
        f"\n== {path.name}: the shipped model (cutoff {detector.cutoff:.2f}) on {len(pages)} pages "
        f"({with_url} with a URL): {len(flagged)} flagged ({len(flagged) / max(len(pages), 1):.1%}); "
        f"by the score alone, without the signs of the page's own links: {by_score}"
    )
    for page_id, score in flagged:
        print(f"  {page_id} {score:.2f}")


if __name__ == "__main__":
    raise SystemExit(main())
