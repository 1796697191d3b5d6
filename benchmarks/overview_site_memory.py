"""Does site memory help overview detection? A measured experiment (issue 15, item 5).

    python benchmarks/overview_site_memory.py [DATASET_DIR...] [--min-pages 3]

On the labelled pages (overview / article / other) of the given sets (default: ../shared/datasets
overview-dev and wcxb-dev), every page gets the overview model's out-of-fold score: a model
trained (as `train --overview` does) without the page's site, averaged over the six site-to-fold
splits of the cross-validation. Then, on the hosts (`site_key` of the URL, as the template store
keys them) with at least --min-pages labelled pages, each page is judged after the other pages of
its host went through one MemoryTemplateStore (the other pages first, then the page), with these
signals from the site's memory:

- repeated_share: the share of the page's characters in blocks whose fingerprint (text and tag
  path, templates.page_fingerprints) the store holds from at least half of the host's other pages
  (and two or more): the site's template. Listing pages are mostly template and teasers, articles
  hold text of their own;
- own_net: log of the net characters (text minus link text) of the page's blocks that are not
  repeated: TextSweeper's net text without the site's template;
- slot_vote: the other pages' out-of-fold scores weighted by how much of their layout the page
  shares (Jaccard similarity of the sets of slot fingerprints: tag and class paths, no text): a
  site's listing pages share a template its articles do not. (slot_vote_gold: the same with the
  other pages' gold labels instead of scores, a ceiling a crawl cannot reach.)

Each signal is stacked on the model's score with a logistic regression (log-odds of the score plus
the signal) fitted leave-one-host-out, beside the same regression on the score alone (the
recalibration the stacking brings by itself); and, with nothing fitted, the score blended with
slot_vote ((1 - a) * score + a * slot_vote) at the model's cutoff. Reported: ROC AUC, log loss and, at the model's
cutoff (0.5 for the stacked scores), P/R/F1 and the shares of articles and others flagged.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.site_memory.templates import MemoryTemplateStore, _fingerprints, site_key
from scrapy_boilerplate.training.datasets import load_datasets
from scrapy_boilerplate.training.overview import (
    classification_report,
    collect_evidence,
    cross_validate,
    fmt_report,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
SIGNALS = ("repeated_share", "own_net", "slot_vote", "slot_vote_gold")


def host_signals(walks: list, scores: np.ndarray, gold: np.ndarray) -> list[dict]:
    """The site-memory signals of each page of one host, the other pages recorded first."""
    fps = [_fingerprints(page, with_slots=True) for page in walks]
    slot_sets = [set(s for s in slots if s) for _, slots in fps]
    out = []
    for k, page in enumerate(walks):
        store = MemoryTemplateStore()
        site = "host"
        for j in range(len(walks)):
            if j != k:
                store.exchange(site, fps[j][0])
        known = store.exchange(site, fps[k][0])
        chars = np.asarray(page.chars, float)
        net = np.maximum(chars - np.asarray(page.link_chars, float), 0)
        repeated = np.array(
            [bool(fp) and known.counts.get(fp, 0) >= max(2, 0.5 * known.pages) for fp in fps[k][0]], bool
        )
        sims = np.array(
            [
                len(slot_sets[k] & slot_sets[j]) / max(len(slot_sets[k] | slot_sets[j]), 1) if j != k else 0.0
                for j in range(len(walks))
            ]
        )
        weights = sims / sims.sum() if sims.sum() else np.full(len(walks), 1 / max(len(walks) - 1, 1))
        weights[k] = 0.0
        out.append(
            {
                "repeated_share": float(chars[repeated].sum() / max(chars.sum(), 1)),
                "own_net": math.log1p(net[~repeated].sum()),
                "slot_vote": float(weights @ scores),
                "slot_vote_gold": float(weights @ gold),
            }
        )
    return out


def logit(p):
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def stacked(columns: list, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Leave-one-host-out probabilities of a logistic regression on `columns`."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    X = np.column_stack(columns)
    out = np.zeros(len(y))
    for g in np.unique(groups):
        test = groups == g
        scaler = StandardScaler().fit(X[~test])
        clf = LogisticRegression(C=1.0, max_iter=1000).fit(scaler.transform(X[~test]), y[~test])
        out[test] = clf.predict_proba(scaler.transform(X[test]))[:, 1]
    return out


def describe(name: str, scores: np.ndarray, cutoff: float, y, labels) -> str:
    from sklearn.metrics import log_loss, roc_auc_score

    report = classification_report(scores >= cutoff, y, labels)
    return (
        f"{name:34s} AUC {roc_auc_score(y, scores):.3f} log loss {log_loss(y, np.clip(scores, 1e-4, 1 - 1e-4)):.3f}"
        f" | cutoff {cutoff:.2f}: {fmt_report(report)}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", type=Path, default=[SHARED / "overview-dev", SHARED / "wcxb-dev"])
    parser.add_argument("--min-pages", type=int, default=3)
    args = parser.parse_args()
    pages = [p for p in load_datasets(args.datasets) if p.label in ("overview", "article", "other")]
    ev = collect_evidence(pages)
    cv = cross_validate(ev, log=lambda line: None)
    oof = np.mean([split[0] for split in cv.scores], axis=0)
    by_id = {f"{p.dataset}/{p.id}": p for p in pages}
    hosts = defaultdict(list)
    for row, page_id in enumerate(ev.ids):
        host = site_key(by_id[page_id].url)
        if host:
            hosts[host].append(row)
    hosts = {h: rows for h, rows in hosts.items() if len(rows) >= args.min_pages}
    rows = [r for h in sorted(hosts) for r in hosts[h]]
    signals: dict = {}
    for host in sorted(hosts):
        members = hosts[host]
        walks = [build_page(parse_html(by_id[ev.ids[r]].read_html()), base_url=by_id[ev.ids[r]].url) for r in members]
        for r, values in zip(members, host_signals(walks, oof[members], ev.y[members].astype(float))):
            signals[r] = values
    y, labels = ev.y[rows], ev.labels[rows]
    groups = np.array([site_key(by_id[ev.ids[r]].url) for r in rows])
    base = oof[rows]
    print(
        f"{len(rows)} pages of {len(hosts)} hosts with {args.min_pages}+ labelled pages "
        f"({int(y.sum())} overview, {int((labels == 'article').sum())} article, "
        f"{int((labels == 'other').sum())} other); model cutoff {cv.cutoff:.2f}"
    )
    print(describe("model (out-of-fold)", base, cv.cutoff, y, labels))
    print(describe("stacked: score alone", stacked([logit(base)], y, groups), 0.5, y, labels))
    for name in SIGNALS:
        values = np.array([signals[r][name] for r in rows])
        label = f"stacked: score + {name}"
        print(describe(label, stacked([logit(base), values], y, groups), 0.5, y, labels))
    vote = np.array([signals[r]["slot_vote"] for r in rows])
    for a in (0.2, 0.4):
        print(describe(f"blend: score + {a} slot_vote", (1 - a) * base + a * vote, cv.cutoff, y, labels))
    for name in SIGNALS:
        values = np.array([signals[r][name] for r in rows])
        means = {lab: values[labels == lab].mean() for lab in ("overview", "article", "other")}
        print(f"  {name:16s} mean by label: " + ", ".join(f"{k} {v:.3f}" for k, v in means.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
