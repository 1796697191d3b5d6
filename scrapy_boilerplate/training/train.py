"""Fit the block model with scikit-learn and export it as plain JSON.

Steps: read the pages that have gold text, label their blocks by aligning
the gold (align.py), choose id/class tokens by Naive-Bayes log-odds (only
tokens seen on many sites, so the model does not learn one site's class
names), fit a HistGradientBoostingClassifier on part of the training sites,
tune the decoder on the other part (page-macro shingle F1, the metric we are
judged by), then refit on all training sites and export the trees.
Everything is seeded: the same data and command give the same model.
"""

from __future__ import annotations

import math
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.document.page import Page, build_page
from ..core.document.parse import parse_html
from ..core.jsondata import JsonObject
from ..core.metadata.title import best_title
from ..core.options import Options
from ..core.scoring.decode import DEFAULT_PARAMS
from ..core.scoring.features import dense_feature_names, feature_matrix, token_features
from ..core.scoring.model import Model, TreeEnsemble
from ..core.selection.steps import Scorer, select
from .align import block_labels, snippet_labels
from .datasets import DatasetPage, is_validation_site
from .metrics import f1_from, shingle_scores, snippet_scores

if TYPE_CHECKING:
    from sklearn.ensemble import HistGradientBoostingClassifier

    from .cache import CachedPage

SEED = 20261121
HGB_PARAMS = {
    "max_iter": 150,
    "learning_rate": 0.1,
    "max_leaf_nodes": 24,
    "max_depth": 6,
    "min_samples_leaf": 40,
    "l2_regularization": 1.0,
}
TOKEN_MIN_SITES = 8
SNIPPET_PAGE_WEIGHT = 0.5
VOCABULARY_SIZE = 200
DECODE_GRID: dict[str, list[float]] = {
    "threshold": [0.35, 0.5, 0.65],
    "switch_penalty": [0.5, 1.5, 3.0],
    "size_weight": [0.0, 0.5],
    "min_segment_share": [0.05, 0.2],
    "max_gap": [4, 12],
    "min_probability": [0.0, 0.15, 0.3],
}


@dataclass
class PageData:
    page_id: str
    site: str
    page: Page
    gold: str | None  # None for snippet-labelled pages

    dense: np.ndarray
    labels: np.ndarray  # 1 content, 0 boilerplate, -1 unknown (snippet-labelled pages)
    with_: tuple[str, ...] = ()  # snippets that must / must not be in the output
    without: tuple[str, ...] = ()
    weight: float = 1.0  # the page's weight against a gold page of a narrow set (training/recipes.py)
    negative_weight: float = 1.0  # its boilerplate blocks' weight against its content blocks'


def progress(message: str) -> None:
    """Progress on stderr, only for a person watching a terminal."""
    if sys.stderr.isatty():
        print(f"\r{message}\x1b[K", end="", file=sys.stderr, flush=True)


def collect(pages: list[DatasetPage]) -> list[PageData]:
    """Parse pages and label their blocks: from gold text, else from with/without snippets."""
    out = []
    for n, dp in enumerate(pages, 1):
        progress(f"reading pages {n}/{len(pages)}")
        gold = dp.read_gold() if dp.gold_path else None
        if not (gold and gold.strip()) and not (dp.with_ or dp.without):
            continue
        page = build_page(parse_html(dp.read_html()), base_url=dp.url)
        if not len(page):
            continue
        if gold and gold.strip():
            labels = block_labels(page.texts, gold)
        else:
            labels = snippet_labels(page.texts, dp.with_, dp.without)
            if not (labels >= 0).any():
                continue
            gold = None
        out.append(
            PageData(dp.id, dp.site, page, gold, feature_matrix(page), labels, tuple(dp.with_), tuple(dp.without))
        )
    progress("")
    return out


def choose_vocabulary(data: list[PageData], size: int = VOCABULARY_SIZE, min_sites: int = TOKEN_MIN_SITES) -> list[str]:
    """Top id/class tokens by Naive-Bayes log-odds of content vs boilerplate (Yao & Zuo)."""
    pos: defaultdict[str, float] = defaultdict(float)
    neg: defaultdict[str, float] = defaultdict(float)
    sites: defaultdict[str, set[str]] = defaultdict(set)
    total_pos = total_neg = 0.0
    for d in data:
        for chain, label, chars in zip(d.page.tokens, d.labels, d.page.chars):
            if label < 0:
                continue
            weight = math.log1p(chars)
            if label:
                total_pos += weight
            else:
                total_neg += weight
            for tok in set(chain):
                (pos if label else neg)[tok] += weight
                sites[tok].add(d.site)
    scored = []
    for tok, seen in sites.items():
        if len(seen) < min_sites:
            continue
        lo = math.log((pos[tok] + 1) / (total_pos + 2)) - math.log((neg[tok] + 1) / (total_neg + 2))
        support = math.log1p(len(seen))
        scored.append((abs(lo) * support, tok))
    scored.sort(reverse=True)
    return sorted(tok for _, tok in scored[:size])


def sample_weights(d: PageData) -> np.ndarray:
    """Each page weighs the same in total (the metric averages pages); long blocks weigh more within it.

    Snippet-labelled pages (few, biased labels) weigh half a gold page.
    """
    w: np.ndarray = (np.minimum(np.asarray(d.page.words, float), 200) + 5) * (d.labels >= 0)
    w = w / max(w.sum(), 1e-9) * (1.0 if d.gold is not None else SNIPPET_PAGE_WEIGHT) * d.weight
    if d.negative_weight != 1.0:
        w = np.where(d.labels == 0, w * d.negative_weight, w)
    return w


def design(data: list[PageData], vocabulary: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    index = {t: i for i, t in enumerate(vocabulary)}
    X = np.vstack([np.hstack([d.dense, token_features(d.page, index)]) for d in data])
    y = np.concatenate([d.labels for d in data])
    w = np.concatenate([sample_weights(d) for d in data]) * 1000
    known = y >= 0
    return X[known], y[known], w[known]


def fit(data: list[PageData], vocabulary: list[str]) -> tuple[HistGradientBoostingClassifier, np.ndarray]:
    from sklearn.ensemble import HistGradientBoostingClassifier

    X, y, w = design(data, vocabulary)
    clf = HistGradientBoostingClassifier(random_state=SEED, early_stopping=False, **HGB_PARAMS)
    clf.fit(X, y, sample_weight=w)
    return clf, X


def export_trees(clf: HistGradientBoostingClassifier) -> TreeEnsemble:
    """Flatten a fitted binary HistGradientBoostingClassifier into a TreeEnsemble."""
    feature: list[int] = []
    threshold: list[float] = []
    missing_left: list[bool] = []
    left: list[int] = []
    right: list[int] = []
    value: list[float] = []
    roots: list[int] = []
    depth = 0
    for stage in clf._predictors:
        (predictor,) = stage  # binary classification: one tree per iteration
        nodes = predictor.nodes
        if nodes["is_categorical"].any():
            raise ValueError("categorical splits are not supported by the exporter")
        offset = len(feature)
        roots.append(offset)
        leaf = nodes["is_leaf"].astype(bool)
        feature.extend(np.where(leaf, -1, nodes["feature_idx"]).tolist())
        threshold.extend(nodes["num_threshold"].tolist())
        missing_left.extend(nodes["missing_go_to_left"].astype(bool).tolist())
        left.extend(np.where(leaf, 0, nodes["left"].astype(np.int64) + offset).tolist())
        right.extend(np.where(leaf, 0, nodes["right"].astype(np.int64) + offset).tolist())
        value.extend(np.where(leaf, nodes["value"], 0.0).tolist())
        depth = max(depth, int(nodes["depth"].max()))
    return TreeEnsemble(
        feature=np.asarray(feature, np.int64),
        threshold=np.asarray(threshold, float),
        missing_left=np.asarray(missing_left, bool),
        left=np.asarray(left, np.int64),
        right=np.asarray(right, np.int64),
        value=np.asarray(value, float),
        roots=np.asarray(roots, np.int64),
        baseline=float(np.ravel(clf._baseline_prediction)[0]),
        depth=depth,
    )


def to_model(
    clf: HistGradientBoostingClassifier,
    vocabulary: list[str],
    X_check: np.ndarray,
    decode_params: Mapping[str, float],
    meta: JsonObject,
) -> Model:
    model = Model(
        feature_names=dense_feature_names() + [f"tok={t}" for t in vocabulary],
        vocabulary=list(vocabulary),
        trees=export_trees(clf),
        decode=dict(decode_params),
        meta=dict(meta),
    )
    # The exported trees must reproduce scikit-learn exactly, or the export is wrong.
    sample = X_check[:: max(1, len(X_check) // 5000)]
    expected = clf.predict_proba(sample)[:, 1]
    got = model.predict_proba(sample)
    if not np.allclose(expected, got, atol=1e-9):
        raise AssertionError(f"exported model differs from scikit-learn by {np.abs(expected - got).max()}")
    return model


def scorer(clf: Any, vocabulary: list[str]) -> Scorer:
    """The probabilities `clf` gives a page's blocks: what the selection's thread re-walk scores
    a page walked again with (selection/steps.py), as the extractor's model would."""
    index = {t: i for i, t in enumerate(vocabulary)}

    def score(page: Page) -> np.ndarray:
        proba: np.ndarray = clf.predict_proba(np.hstack([feature_matrix(page), token_features(page, index)]))[:, 1]
        return proba

    return score


def tuning_score(
    data: list[PageData], probas: list[np.ndarray], params: JsonObject, score: Scorer | None = None
) -> float:
    """The decoder's tuning score: shingle F1 on the gold pages and, on the pages that only
    have snippets, the F1 of the `with` share (found) and the `without` share (left out),
    weighted by their numbers of pages. `score`: the model the probabilities are from, for the
    pages the selection walks again (its thread re-walk)."""
    precisions, recalls, with_shares, without_shares = [], [], [], []
    for d, proba in zip(data, probas):
        # The selection inference runs (default options), fallbacks included, so the decoder is
        # tuned for it.
        s = select(d.page, proba, params, Options(), best_title(d.page), url=d.page.base_url, score=score)
        text = "\n".join(t for t, m in zip(s.page.texts, s.mask) if m)
        if d.gold is not None:
            p, r = shingle_scores(text, d.gold)
            if p is not None:
                precisions.append(p)
            if r is not None:
                recalls.append(r)
        else:
            found, left_out = snippet_scores(text, d.with_, d.without)
            if found is not None:
                with_shares.append(found)
            if left_out is not None:
                without_shares.append(left_out)
    n_gold, n_snippet = len(recalls), max(len(with_shares), len(without_shares))
    gold_f1 = f1_from(float(np.mean(precisions)) if precisions else 0.0, float(np.mean(recalls)) if recalls else 0.0)
    snippet_f1 = f1_from(
        float(np.mean(with_shares)) if with_shares else 1.0, float(np.mean(without_shares)) if without_shares else 1.0
    )
    assert gold_f1 is not None and snippet_f1 is not None  # f1_from of two numbers
    return (n_gold * gold_f1 + n_snippet * snippet_f1) / max(n_gold + n_snippet, 1)


def tune_decoder(
    data: list[PageData],
    probas: list[np.ndarray],
    log: Callable[[str], None] = print,
    score: Scorer | None = None,
) -> JsonObject:
    """Coordinate search over DECODE_GRID, starting from the defaults (cheap and deterministic)."""
    params = dict(DEFAULT_PARAMS)
    best = tuning_score(data, probas, params, score)
    log(f"decoder: defaults, tuning score {best:.4f}")
    for _round in range(2):
        for key, values in DECODE_GRID.items():
            for value in values:
                trial = {**params, key: value}
                trial_score = tuning_score(data, probas, trial, score)
                if trial_score > best + 1e-4:
                    best, params = trial_score, trial
        log(f"decoder: after round {_round + 1} tuning score {best:.4f} with {params}")
    return params


def training_pages(
    pages: list[DatasetPage], datasets: list[str], log: Callable[[str], None] = print, all_sites: bool = False
) -> list[DatasetPage]:
    """The pages with gold text or snippets, the validation sites held out unless `all_sites`."""
    usable = [p for p in pages if p.gold_path or p.with_ or p.without]
    if not usable:
        raise ValueError(
            f"no page of {', '.join(datasets)} has gold text or with/without snippets: "
            f"the block model trains on them (docs/training.md); for the overview "
            f"model from labels, add --overview"
        )
    train_pages = usable if all_sites else [p for p in usable if not is_validation_site(p.site)]
    held = "all sites, none held out" if all_sites else "validation sites held out"
    log(f"training pages with gold or snippets ({held}): {len(train_pages)}")
    if not train_pages:
        raise ValueError(
            f"all {len(usable)} pages with gold or snippets are on validation sites: add --all-sites to train on them"
        )
    return train_pages


def walk_pages(pages: list[DatasetPage]) -> list[tuple[DatasetPage, CachedPage]]:
    """(page, its CachedPage) for the pages that have blocks (training/cache.py walk_page)."""
    from .cache import walk_page

    out = []
    for n, p in enumerate(pages, 1):
        progress(f"reading pages {n}/{len(pages)}")
        c = walk_page(p)
        if c is not None and len(c):
            out.append((p, c))
    progress("")
    return out


def train(
    pages: list[DatasetPage],
    command: str,
    datasets: list[str],
    log: Callable[[str], None] = print,
    all_sites: bool = False,
) -> Model:
    """The block model. `all_sites`: train on every site (no validation sites held out)."""
    start = time.time()
    train_pages = training_pages(pages, datasets, log, all_sites)
    data = collect(train_pages)
    labels = np.concatenate([d.labels for d in data])
    log(
        f"pages read: {len(data)} ({sum(d.gold is not None for d in data)} with gold), "
        f"labelled blocks: {int((labels >= 0).sum())}, content share: {labels[labels >= 0].mean():.3f}"
    )
    # Tune the decoder on sites the tuning fit has not seen (a second site split).
    tune_part = [d for d in data if is_validation_site("tune:" + d.site, 0.25)]
    fit_part = [d for d in data if not is_validation_site("tune:" + d.site, 0.25)]
    vocabulary = choose_vocabulary(fit_part)
    clf, _ = fit(fit_part, vocabulary)
    index = {t: i for i, t in enumerate(vocabulary)}
    probas = [clf.predict_proba(np.hstack([d.dense, token_features(d.page, index)]))[:, 1] for d in tune_part]
    params = tune_decoder(tune_part, probas, log, scorer(clf, vocabulary))
    # Final model: all training sites.
    vocabulary = choose_vocabulary(data)
    clf, X = fit(data, vocabulary)
    import sklearn

    meta = {
        "datasets": datasets,
        "command": command,
        "sklearn_version": sklearn.__version__,
        "training_pages": len(data),
        "hgb_params": HGB_PARAMS,
        "seed": SEED,
        "validation": (
            "none: trained on all sites (--all-sites)"
            if all_sites
            else "sites where is_validation_site(site) is true were held out"
        ),
    }
    model = to_model(clf, vocabulary, X, params, meta)
    log(
        f"trained in {time.time() - start:.0f}s: {len(model.trees.roots)} trees, "
        f"{len(vocabulary)} tokens, {len(model.feature_names)} features"
    )
    return model
