"""Train and cross-validate the overview-page model.

Pages with a `label` (overview-dev; wcxb-dev, where the label follows the
page type) become one row of page evidence each (core/overview.py). The
model is a small HistGradientBoostingClassifier exported to the same JSON
tree format as the block model. Evaluation is cross-validation grouped by
site, so no site is in a training and a test fold at once, and the cutoff is
chosen on out-of-fold scores: the best overview F1 with at most 5 % of the
articles flagged (a dropped article is lost data; a missed overview is only
noise).
"""

from __future__ import annotations

import hashlib
import time

import numpy as np

from ..core.model import Model
from ..core.overview import FEATURE_NAMES, page_evidence
from ..core.page import build_page, parse_html
from .datasets import DatasetPage
from .train import export_trees, progress

SEED = 20261122
HGB_PARAMS = {"max_iter": 250, "learning_rate": 0.08, "max_leaf_nodes": 12, "max_depth": 4,
              "min_samples_leaf": 15, "l2_regularization": 5.0}
MAX_ARTICLE_FLAG_RATE = 0.05
FOLDS = 5


def collect_evidence(pages: list[DatasetPage]):
    """(X, y, labels, sites, urls) for the labelled pages."""
    rows, y, labels, sites, ids = [], [], [], [], []
    for n, dp in enumerate(pages, 1):
        progress(f"reading pages {n}/{len(pages)}")
        if dp.label not in ("overview", "article", "other"):
            continue
        page = build_page(parse_html(dp.read_html()), base_url=dp.url)
        if not len(page):
            continue
        values = page_evidence(page, dp.url)
        rows.append([values[name] for name in FEATURE_NAMES])
        y.append(int(dp.label == "overview"))
        labels.append(dp.label)
        sites.append(dp.site)
        ids.append(f"{dp.dataset}/{dp.id}")
    progress("")
    return np.array(rows, float), np.array(y), np.array(labels), np.array(sites), ids


def fold_of(site: str) -> int:
    return int(hashlib.sha1(("fold:" + site).encode()).hexdigest(), 16) % FOLDS


def _fit(X, y):
    from sklearn.ensemble import HistGradientBoostingClassifier

    # Balance the classes: overviews are a minority in the data.
    w = np.where(y == 1, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
    clf = HistGradientBoostingClassifier(random_state=SEED, early_stopping=False, **HGB_PARAMS)
    clf.fit(X, y, sample_weight=w)
    return clf


def out_of_fold_scores(X, y, sites) -> np.ndarray:
    folds = np.array([fold_of(s) for s in sites])
    scores = np.zeros(len(y))
    for k in range(FOLDS):
        test = folds == k
        clf = _fit(X[~test], y[~test])
        scores[test] = clf.predict_proba(X[test])[:, 1]
    return scores


def classification_report(pred: np.ndarray, y: np.ndarray, labels: np.ndarray) -> dict:
    tp = int((pred & (y == 1)).sum())
    fp = int((pred & (y == 0)).sum())
    fn = int((~pred & (y == 1)).sum())
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    articles = labels == "article"
    others = labels == "other"
    return {
        "pages": int(len(y)), "overviews": int(y.sum()),
        "precision": precision, "recall": recall, "f1": f1,
        "accuracy": float((pred == (y == 1)).mean()),
        "articles_flagged": float(pred[articles].mean()) if articles.any() else 0.0,
        "others_flagged": float(pred[others].mean()) if others.any() else 0.0,
    }


def choose_cutoff(scores, y, labels, max_article_rate: float = MAX_ARTICLE_FLAG_RATE) -> float:
    """Best F1 among cutoffs that flag at most `max_article_rate` of the articles."""
    best, best_cut = -1.0, 0.5
    for cut in np.round(np.arange(0.20, 0.96, 0.01), 2):
        report = classification_report(scores >= cut, y, labels)
        if report["articles_flagged"] <= max_article_rate and report["f1"] > best:
            best, best_cut = report["f1"], float(cut)
    return best_cut


def train_overview(pages: list[DatasetPage], command: str, datasets: list[str], log=print):
    start = time.time()
    X, y, labels, sites, _ = collect_evidence(pages)
    log(f"labelled pages: {len(y)} ({int(y.sum())} overview) from {len(set(sites))} sites")
    scores = out_of_fold_scores(X, y, sites)
    cutoff = choose_cutoff(scores, y, labels)
    report = classification_report(scores >= cutoff, y, labels)
    log(f"site-grouped {FOLDS}-fold CV at cutoff {cutoff}: " + fmt_report(report))
    clf = _fit(X, y)
    import sklearn

    model = Model(feature_names=list(FEATURE_NAMES), vocabulary=[], trees=export_trees(clf),
                  decode={"cutoff": cutoff},
                  meta={"datasets": datasets, "command": command, "sklearn_version": sklearn.__version__,
                        "pages": int(len(y)), "overviews": int(y.sum()), "seed": SEED,
                        "hgb_params": HGB_PARAMS, "cv": {k: round(v, 4) if isinstance(v, float) else v
                                                         for k, v in report.items()},
                        "trained_at": time.strftime("%Y-%m-%d")})
    expected = clf.predict_proba(X)[:, 1]
    if not np.allclose(expected, model.predict_proba(X), atol=1e-9):
        raise AssertionError("exported overview model differs from scikit-learn")
    log(f"trained in {time.time() - start:.0f}s")
    return model


def fmt_report(r: dict) -> str:
    return (f"P {r['precision']:.3f} R {r['recall']:.3f} F1 {r['f1']:.3f} acc {r['accuracy']:.3f}, "
            f"articles flagged {r['articles_flagged']:.3f}, others flagged {r['others_flagged']:.3f}")
