"""Train and cross-validate the overview-page model.

Pages with a `label` (overview-dev; wcxb-dev, where the label follows the
page type) become one row of page evidence each (core/overview/evidence.py). The
model is a small HistGradientBoostingClassifier blended with a regularised
logistic model over the same row, exported to the block model's JSON format
(with its linear part: format version 2). Beside the dense evidence it sees 0/1 token
features: the id/class tokens and short-link words found on enough distinct
sites of the training data (a site's template counts once, so one big site
cannot make its CSS names a feature); in cross-validation the tokens are
chosen on the training folds only. Evaluation is cross-validation grouped by
site, so no site is in a training and a test fold at once, and the cutoff is
chosen on out-of-fold scores (of six site-to-fold splits, pooled): the best
overview F1 with at most 5 % of the articles flagged (a dropped article is
lost data; a missed overview is only noise).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.document.page import build_page
from ..core.document.parse import parse_html
from ..core.overview.evidence import FEATURE_NAMES, LINK_WORD, NODE_TOKEN, page_evidence, page_tokens
from ..core.scoring.model import LinearPart, Model
from .datasets import DatasetPage
from .sites import SitePage
from .train import export_trees, progress

if TYPE_CHECKING:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

SEED = 20261122
HGB_PARAMS = {
    "max_iter": 500,
    "learning_rate": 0.08,
    "max_leaf_nodes": 8,
    "max_depth": 4,
    "min_samples_leaf": 20,
    "l2_regularization": 5.0,
}
# A token becomes a feature when this share of the training sites has it (and at least MIN_SITES):
# common enough to be a convention across sites rather than one template's CSS name.
NODE_TOKEN_SITE_SHARE = 0.05
LINK_WORD_SITE_SHARE = 0.035
MIN_SITES = 5
#: What a crawled site's pages weigh together in training, in pages (page_weights).
SITE_PAGES = 100
# The trees' probability is blended with a logistic model's over the same row (standardised,
# strongly regularised): the trees split one token at a time, the linear part sums many weak ones.
LINEAR_WEIGHT = 0.3
LINEAR_C = 0.05
MAX_ARTICLE_FLAG_RATE = 0.05
FOLDS = 5
# Site-to-fold splits of the cross-validation (salts of the fold hash): one cutoff for all of them.
# Six, as the F1 moves with the split alone: pooled over the first three 0.847, over the last
# three 0.834, for the same evidence and model (2026-11-23).
SPLITS = ("fold", "a", "b", "c", "d", "e")


@dataclass
class Evidence:
    """One row per labelled page: dense evidence (FEATURE_NAMES order), tokens, label, site."""

    X: np.ndarray
    y: np.ndarray
    labels: np.ndarray
    sites: np.ndarray
    ids: list[str]
    tokens: list[set[str]]  # per page: the set of prefixed token names it holds (NODE_TOKEN..., LINK_WORD...)
    crawled: np.ndarray | None = None  # per page: of a crawled site (training/sites.py); None: none is

    def subset(self, mask: np.ndarray) -> Evidence:
        index = np.flatnonzero(mask)
        return Evidence(
            self.X[index],
            self.y[index],
            self.labels[index],
            self.sites[index],
            [self.ids[i] for i in index],
            [self.tokens[i] for i in index],
            None if self.crawled is None else self.crawled[index],
        )

    def weights(self) -> np.ndarray:
        """page_weights of these pages."""
        crawled = np.zeros(len(self.y), bool) if self.crawled is None else self.crawled
        return page_weights(self.y, self.sites, crawled)


def collect_evidence(pages: Sequence[DatasetPage | SitePage]) -> Evidence:
    """The evidence of the labelled pages."""
    rows, y, labels, sites, ids, tokens, crawled = [], [], [], [], [], [], []
    for n, dp in enumerate(pages, 1):
        progress(f"reading pages {n}/{len(pages)}")
        if dp.label not in ("overview", "article", "other"):
            continue
        page = build_page(parse_html(dp.read_html()), base_url=dp.url)
        if not len(page):
            continue
        values = page_evidence(page, dp.url)
        rows.append([values[name] for name in FEATURE_NAMES])
        node_tokens, words = page_tokens(page)
        tokens.append({NODE_TOKEN + t for t in node_tokens} | {LINK_WORD + w for w in words})
        y.append(int(dp.label == "overview"))
        labels.append(dp.label)
        sites.append(dp.site)
        ids.append(f"{dp.dataset}/{dp.id}")
        crawled.append(isinstance(dp, SitePage))
    progress("")
    return Evidence(
        np.array(rows, float).reshape(-1, len(FEATURE_NAMES)),
        np.array(y, int),
        np.array(labels),
        np.array(sites),
        ids,
        tokens,
        np.array(crawled, bool),
    )


def choose_tokens(ev: Evidence) -> list[str]:
    """Token features: id/class tokens (alphabetic, 3+ letters) and link words on enough sites."""
    per_site: dict[str, set[str]] = {}
    for site, tokens in zip(ev.sites, ev.tokens):
        per_site.setdefault(site, set()).update(tokens)
    counts: dict[str, int] = {}
    for tokens in per_site.values():
        for t in tokens:
            counts[t] = counts.get(t, 0) + 1
    n_sites = len(per_site)
    node_min = max(MIN_SITES, NODE_TOKEN_SITE_SHARE * n_sites)
    link_min = max(MIN_SITES, LINK_WORD_SITE_SHARE * n_sites)
    chosen = []
    for t, n in counts.items():
        if t.startswith(NODE_TOKEN):
            name = t[len(NODE_TOKEN) :]
            if n >= node_min and len(name) > 2 and name.isalpha():
                chosen.append(t)
        elif n >= link_min:
            chosen.append(t)
    return sorted(chosen)


def design(ev: Evidence, token_names: list[str]) -> np.ndarray:
    """Dense evidence, then one 0/1 column per token feature."""
    index = {t: i for i, t in enumerate(token_names)}
    T = np.zeros((len(ev.y), len(token_names)))
    for r, tokens in enumerate(ev.tokens):
        for t in tokens:
            i = index.get(t)
            if i is not None:
                T[r, i] = 1.0
    return np.hstack([ev.X, T])


def fold_of(site: str, salt: str = "fold") -> int:
    """A site's fold: a hash, so a site keeps its fold when pages are added (other salts, other splits)."""
    return int(hashlib.sha1(f"{salt}:{site}".encode()).hexdigest(), 16) % FOLDS


class Blend:
    """The fitted trees and logistic model; predict_proba blends them as the exported Model does."""

    def __init__(
        self, trees: HistGradientBoostingClassifier, scaler: StandardScaler, linear: LogisticRegression
    ) -> None:
        self.trees, self.scaler, self.linear = trees, scaler, linear

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        p = (1 - LINEAR_WEIGHT) * self.trees.predict_proba(X)[:, 1] + LINEAR_WEIGHT * self.linear.predict_proba(
            self.scaler.transform(X)
        )[:, 1]
        return np.column_stack([1 - p, p])

    def linear_part(self) -> LinearPart:
        """The logistic model on the raw features: the standardisation folded into its weights."""
        coef = self.linear.coef_[0] / self.scaler.scale_
        intercept = float(self.linear.intercept_[0] - coef @ self.scaler.mean_)
        return LinearPart(coef, intercept, LINEAR_WEIGHT)


def page_weights(y: np.ndarray, sites: np.ndarray, crawled: np.ndarray) -> np.ndarray:
    """A weight per page. A dataset's page weighs one page (a dataset samples a few pages each of
    many sites); a crawled site's pages (every page of one site) weigh SITE_PAGES pages together,
    half of it its overview pages, half the others: one site's theme, with its hundreds of tag
    pages, must not make the model its own. Then the classes are balanced (overviews are a
    minority in the data)."""
    w = np.ones(len(y), float)
    for site in np.unique(sites[crawled]):
        of_site = sites == site
        for kind in (0, 1):
            these = of_site & (y == kind)
            if these.any():
                w[these] = SITE_PAGES / 2 / these.sum()
    positive, negative = (w * y).sum(), (w * (1 - y)).sum()
    weights: np.ndarray = np.where(
        y == 1, w * 0.5 * w.sum() / max(positive, 1e-9), w * 0.5 * w.sum() / max(negative, 1e-9)
    )
    return weights


def _fit(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> Blend:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    trees = HistGradientBoostingClassifier(random_state=SEED, early_stopping=False, **HGB_PARAMS)
    trees.fit(X, y, sample_weight=w)
    scaler = StandardScaler().fit(X)
    linear = LogisticRegression(C=LINEAR_C, max_iter=2000).fit(scaler.transform(X), y, sample_weight=w)
    return Blend(trees, scaler, linear)


def out_of_fold_scores(ev: Evidence, salt: str = "fold", variants: Sequence[Evidence] = ()) -> list[np.ndarray]:
    """Scores of each page by a model trained (tokens chosen too) without its site's fold: for
    `ev`, then for each of `variants`, the same pages with other evidence (say, without their
    URLs) scored by the same models. One score array each."""
    folds = np.array([fold_of(s, salt) for s in ev.sites])
    scored = [ev, *variants]
    scores = [np.zeros(len(ev.y)) for _ in scored]
    for k in range(FOLDS):
        test = folds == k
        train = ev.subset(~test)
        token_names = choose_tokens(train)
        clf = _fit(design(train, token_names), train.y, train.weights())
        for evidence, out in zip(scored, scores):
            out[test] = clf.predict_proba(design(evidence.subset(test), token_names))[:, 1]
    return scores


def classification_report(pred: np.ndarray, y: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    tp = int((pred & (y == 1)).sum())
    fp = int((pred & (y == 0)).sum())
    fn = int((~pred & (y == 1)).sum())
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    articles = labels == "article"
    others = labels == "other"
    return {
        "pages": len(y),
        "overviews": int(y.sum()),
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "accuracy": float((pred == (y == 1)).mean()),
        "articles_flagged": float(pred[articles].mean()) if articles.any() else 0.0,
        "others_flagged": float(pred[others].mean()) if others.any() else 0.0,
    }


def choose_cutoff(
    scores: np.ndarray, y: np.ndarray, labels: np.ndarray, max_article_rate: float = MAX_ARTICLE_FLAG_RATE
) -> float:
    """Best F1 among cutoffs that flag at most `max_article_rate` of the articles."""
    best, best_cut = -1.0, 0.5
    for cut in np.round(np.arange(0.20, 0.96, 0.01), 2):
        report = classification_report(scores >= cut, y, labels)
        if report["articles_flagged"] <= max_article_rate and report["f1"] > best:
            best, best_cut = report["f1"], float(cut)
    return best_cut


@dataclass
class CrossValidation:
    cutoff: float  # one cutoff for all splits, chosen on their pooled out-of-fold scores
    report: dict[str, float]  # the splits pooled, at the cutoff
    per_split: list[dict[str, float]]  # a report per split, at the cutoff
    scores: list[list[np.ndarray]]  # per split: the out-of-fold scores of the evidence, then of each variant

    def pooled(self, variant: int = 0) -> np.ndarray:
        """The out-of-fold scores of all splits end to end (0: the evidence; 1...: the variants)."""
        return np.concatenate([split[variant] for split in self.scores])


def cross_validate(
    ev: Evidence,
    splits: Sequence[str] = SPLITS,
    variants: Sequence[Evidence] = (),
    log: Callable[[str], None] = print,
) -> CrossValidation:
    """Site-grouped CV on several site-to-fold splits, with one cutoff for all of them.

    The cutoff is chosen on the pooled out-of-fold scores: a cutoff chosen
    per split fits that split's noise (the F1 of one split then varies by
    +-0.01 with the split alone). `variants` (the same pages with other
    evidence) are scored by the same models, for the caller to compare.
    """
    scores = [out_of_fold_scores(ev, salt, variants) for salt in splits]
    k = len(splits)
    y, labels = np.tile(ev.y, k), np.tile(ev.labels, k)
    pooled = np.concatenate([split[0] for split in scores])
    cutoff = choose_cutoff(pooled, y, labels)
    per_split = [classification_report(split[0] >= cutoff, ev.y, ev.labels) for split in scores]
    for salt, report in zip(splits, per_split):
        log(f"  split '{salt}': " + fmt_report(report))
    return CrossValidation(cutoff, classification_report(pooled >= cutoff, y, labels), per_split, scores)


LABELS = ("overview", "article", "other")


def check_labels(pages: Sequence[DatasetPage | SitePage], datasets: list[str]) -> None:
    """One clear error before any work when the pages cannot train an overview model."""
    counts = {label: sum(p.label == label for p in pages) for label in LABELS}
    named = ", ".join(datasets)
    if not any(counts.values()):
        others = sorted({str(p.label) for p in pages if p.label is not None})
        found = f" (labels found: {', '.join(others[:5])})" if others else ""
        raise ValueError(
            f"no page of {named} has a label{found}: overview training needs pages "
            f'labelled "overview", "article" or "other" in pages.jsonl '
            f"(docs/training.md)"
        )
    if not counts["overview"] or not (counts["article"] + counts["other"]):
        missing = '"overview"' if not counts["overview"] else '"article" or "other"'
        raise ValueError(
            f"the labelled pages of {named} have no {missing} page: overview training "
            f"needs both overview pages and others (docs/training.md)"
        )


def train_overview(
    pages: Sequence[DatasetPage | SitePage],
    command: str,
    datasets: list[str],
    log: Callable[[str], None] = print,
    splits: Sequence[str] = SPLITS,
) -> Model:
    """The overview model of the labelled `pages` (see model_from_evidence)."""
    check_labels(pages, datasets)
    return model_from_evidence(collect_evidence(pages), command, datasets, log=log, splits=splits)


def model_from_evidence(
    ev: Evidence,
    command: str,
    datasets: list[str],
    log: Callable[[str], None] = print,
    splits: Sequence[str] = SPLITS,
) -> Model:
    """The overview model of `ev`: its cutoff chosen by the site-grouped cross-validation on
    `splits` (site-to-fold splits; benchmarks that train twenty models leave-one-site-out use
    one), then fitted on every page."""
    start = time.time()
    y = ev.y
    if len(set(ev.sites)) < FOLDS or y.sum() < FOLDS or (len(y) - y.sum()) < FOLDS:
        raise ValueError(
            f"too few labelled pages that could be read ({len(y)}, {int(y.sum())} "
            f"overview, from {len(set(ev.sites))} sites): overview training needs at "
            f"least {FOLDS} sites and {FOLDS} pages of each kind for its "
            f"{FOLDS}-fold cross-validation"
        )
    log(f"labelled pages: {len(y)} ({int(y.sum())} overview) from {len(set(ev.sites))} sites")
    log(f"site-grouped {FOLDS}-fold CV on {len(splits)} site-to-fold splits:")
    cv = cross_validate(ev, splits=splits, log=log)
    cutoff = cv.cutoff
    log(f"all splits at cutoff {cutoff}: " + fmt_report(cv.report))
    token_names = choose_tokens(ev)
    X = design(ev, token_names)
    clf = _fit(X, y, ev.weights())
    import sklearn

    def rounded(r: dict[str, float]) -> dict[str, float]:
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()}

    model = Model(
        feature_names=list(FEATURE_NAMES) + token_names,
        vocabulary=[],
        trees=export_trees(clf.trees),
        linear=clf.linear_part(),
        decode={"cutoff": cutoff},
        meta={
            "datasets": datasets,
            "command": command,
            "sklearn_version": sklearn.__version__,
            "pages": len(y),
            "overviews": int(y.sum()),
            "seed": SEED,
            "hgb_params": HGB_PARAMS,
            "linear": {"C": LINEAR_C, "weight": LINEAR_WEIGHT},
            "site_pages": SITE_PAGES,
            "token_site_share": {"node": NODE_TOKEN_SITE_SHARE, "link": LINK_WORD_SITE_SHARE, "min_sites": MIN_SITES},
            "cv": {
                **rounded(cv.report),
                "folds": FOLDS,
                "splits": list(splits),
                "f1_per_split": [round(r["f1"], 4) for r in cv.per_split],
            },
        },
    )
    expected = clf.predict_proba(X)[:, 1]
    if not np.allclose(expected, model.predict_proba(X), atol=1e-9):
        raise AssertionError("exported overview model differs from scikit-learn")
    log(f"trained in {time.time() - start:.0f}s")
    return model


def fmt_report(r: dict[str, float]) -> str:
    return (
        f"P {r['precision']:.3f} R {r['recall']:.3f} F1 {r['f1']:.3f} acc {r['accuracy']:.3f}, "
        f"articles flagged {r['articles_flagged']:.3f}, others flagged {r['others_flagged']:.3f}"
    )
