"""Cross-validation grouped by site over all labelled sets: the protocol every model change is
judged by (docs/training.md, "Cross-validation").

- Groups: groups.py (registered domain across sets; pages in two sets dropped).
- 15 % of the groups are untouched (assign_folds: -1), reported once, at the end; the other
  groups are dealt to 3 folds (screening) or 5 (the figure of record).
- A `Recipe` says how a model is made from a fold's training pages. Everything the data
  chooses is chosen inside the fold: the id/class vocabulary, the trees and the decoder (tuned
  on a quarter of the training sites by a model fitted on the other three quarters, as
  train.py does; on the real selection, every step of steps.STEPS, when `tune` is
  "selection").
- Every test page is extracted by the full inference path (`Extractor.extract`), under its
  set's convention (conventions.py), and scored as `evaluate` scores it.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..core.document.page import Page, build_page
from ..core.document.parse import parse_html
from ..core.extractor import Extractor
from ..core.metadata.title import best_title
from ..core.options import Options
from ..core.scoring.decode import DEFAULT_PARAMS
from ..core.scoring.features import token_features
from ..core.scoring.model import Model
from ..core.selection.steps import Scorer, select
from . import train as training
from .cache import CachedPage, load_or_walk
from .conventions import LABELLED, WIDE, scoring_options, training_labels
from .datasets import DatasetPage, is_validation_site, load_dataset
from .groups import assign_folds, page_group, pages_in_two_sets
from .metrics import f1_from, score_page

#: Catastrophic page: F1 under this.
CATASTROPHIC = 0.3


@dataclass
class Item:
    """One page of the protocol: the dataset page, its cached walk, its site group and fold."""

    dp: DatasetPage
    cp: CachedPage
    group: str
    fold: int = 0  # -1: untouched

    @property
    def dataset(self) -> str:
        return self.dp.dataset


def corpus(
    dataset_dirs: Sequence, folds: int, cache: str | None = None, processes: int = 2, log: Callable = print
) -> list[Item]:
    """The pages of `dataset_dirs` with gold text or snippets, walked (cache.py), grouped and
    dealt to `folds` folds (fold -1: the untouched groups)."""
    pages = [p for d in dataset_dirs for p in load_dataset(d) if p.gold_path or p.with_ or p.without]
    cached = load_or_walk(pages, cache, processes, log)
    pages = [p for p in pages if (p.dataset, p.id) in cached]
    twice = pages_in_two_sets(pages, [cached[(p.dataset, p.id)].digest for p in pages])
    if twice:
        log(f"dropped {len(twice)} pages that are in two sets")
    items = [Item(p, cached[(p.dataset, p.id)], page_group(p)) for i, p in enumerate(pages) if i not in twice]
    fold_of = assign_folds([it.group for it in items], folds)
    for it in items:
        it.fold = fold_of[it.group]
    return items


@dataclass(frozen=True)
class Recipe:
    """How a model is made from training pages."""

    name: str
    sets: tuple[str, ...] = LABELLED  # the sets trained on
    mask_wide: bool = True  # conventions.training_labels on the wide sets
    wide_weight: float = 1.0  # a wide set's page weighs this much
    tune: str = "selection"  # "selection": the decoder tuned on the rendered text
    # of select() (all STEPS, fallbacks too); "short": as train.py
    # (select()'s mask, block texts joined; before the
    # unified selection, the first five steps only);
    # "fixed": `decoder` as given, not tuned
    decoder: dict | None = None
    tune_sets: tuple[str, ...] | None = None  # the sets the decoder is tuned on (None: `sets`)
    train_share: float = 1.0  # learning curve: this share of the training sites
    hgb: dict = field(default_factory=lambda: dict(training.HGB_PARAMS))
    # "balanced": each wide set's boilerplate blocks weighed down so that its content :
    # boilerplate weight ratio is the narrow sets' (the masking's class-prior shift undone)
    wide_negatives: str = "as-is"
    # tune="oof": also a second stage (stacking) over the out-of-fold probabilities' context;
    # the recipe then makes two models, NAME (first stage) and NAME+stack
    stack: bool = False
    # with stack: also a sequence model (core/scoring/sequence.py) over the same inputs, fitted
    # on the out-of-fold probabilities: NAME+seq is it alone in place of the second stage's
    # trees, NAME+seqstack the trees reading its (out-of-fold) probability beside the context
    sequence: bool = False


def _page_data(item: Item, recipe: Recipe) -> training.PageData | None:
    cp = item.cp
    labels = cp.labels
    if recipe.mask_wide:
        labels = training_labels(item.dataset, labels, cp.tags, cp.words, cp.chars, cp.link_chars, cp.flags)
    if not len(labels) or not (labels >= 0).any():
        return None
    weight = recipe.wide_weight if item.dataset in WIDE else 1.0
    return training.PageData(
        item.dp.id,
        item.group,
        cp,  # type: ignore[arg-type]
        cp.gold,
        cp.dense,
        labels,
        cp.with_,
        cp.without,
        weight=weight,
    )


def _fit(data: list[training.PageData], recipe: Recipe):
    from sklearn.ensemble import HistGradientBoostingClassifier

    vocabulary = training.choose_vocabulary(data)
    X, y, w = training.design(data, vocabulary)
    clf = HistGradientBoostingClassifier(random_state=training.SEED, early_stopping=False, **recipe.hgb)
    clf.fit(X, y, sample_weight=w)
    return clf, vocabulary, X


def _probas(clf, vocabulary: list[str], items: list[Item]) -> list[np.ndarray]:
    index = {t: i for i, t in enumerate(vocabulary)}
    return [
        clf.predict_proba(np.hstack([it.cp.dense, token_features(it.cp, index)]))[:, 1]  # type: ignore[arg-type]
        if len(it.cp)
        else np.zeros(0)
        for it in items
    ]


# --- the decoder, tuned on the real selection ---------------------------------------------------

_BASE_OPTIONS = Extractor(model=False).options


def options_for(dataset: str) -> Options:
    return _BASE_OPTIONS.replace(scoring_options(dataset))


def selection_text(
    page, proba: np.ndarray, params: dict, opts: Options, url: str | None, score: Scorer | None = None
) -> str:
    """The text the inference selection (every step of STEPS, the fallbacks included) keeps from
    `proba`; `score`: the model `proba` is from, for the page walked again (the thread re-walk)."""
    if not len(page):
        return ""
    title = best_title(page)
    return select(page, proba, params, opts, title, url=url, score=score).extraction().text


def page_pr(item_dp: DatasetPage, gold: str | None, text: str) -> tuple[float | None, float | None]:
    """(precision-like, recall-like) of one page: shingle P/R with gold, else the share of
    `without` snippets left out and of `with` snippets found."""
    if gold is not None:
        from .metrics import shingle_scores

        return shingle_scores(text, gold)
    from .metrics import snippet_scores

    found, left_out = snippet_scores(text, item_dp.with_, item_dp.without)
    return left_out, found


def set_f1(pairs: list[tuple[float | None, float | None]]) -> float:
    ps = [p for p, _ in pairs if p is not None]
    rs = [r for _, r in pairs if r is not None]
    f1 = f1_from(float(np.mean(ps)) if ps else 1.0, float(np.mean(rs)) if rs else 1.0)
    return f1 or 0.0


def tune_on_selection(
    pages: list, items: list[Item], probas: list[np.ndarray], log: Callable = print, scores: Sequence | None = None
) -> dict:
    """Coordinate search over train.DECODE_GRID (train.tune_decoder's), scoring the text of the
    real selection: the mean over sets of each set's F1 (its convention's options). `scores`:
    per page, the model its probabilities are from (selection_text)."""
    opts = [options_for(it.dataset) for it in items]
    models = scores if scores is not None else [None] * len(items)

    def score(params: dict) -> float:
        by_set: dict[str, list] = {}
        for page, it, proba, o, model in zip(pages, items, probas, opts, models):
            text = selection_text(page, proba, params, o, it.dp.url, model)
            by_set.setdefault(it.dataset, []).append(page_pr(it.dp, it.cp.gold, text))
        return float(np.mean([set_f1(pairs) for pairs in by_set.values()]))

    params = dict(DEFAULT_PARAMS)
    best = score(params)
    for _round in range(2):
        for key, values in training.DECODE_GRID.items():
            for value in values:
                if params.get(key) == value:
                    continue
                trial = {**params, key: value}
                trial_score = score(trial)
                if trial_score > best + 1e-4:
                    best, params = trial_score, trial
        log(f"decoder (selection): round {_round + 1} score {best:.4f} {params}")
    return params


def _walk(item: Item):
    return build_page(parse_html(item.dp.read_html()), base_url=item.dp.url)


#: Inner folds (grouped by site) of a fold's training sites, for out-of-fold probabilities.
INNER_FOLDS = 3
#: The decoder is tuned on at most this many training pages of the tuning sets (walked pages
#: are held in memory for the grid: about 1.3 MB each).
TUNE_MAX_PAGES = 800
#: The decoder grid tuned on out-of-fold probabilities: searched whole (no path through it),
#: the rest of the parameters at the shipped model's values.
OOF_GRID: dict[str, list[float]] = {
    "threshold": [0.35, 0.5, 0.65],
    "min_probability": [0.0, 0.15, 0.3],
    "switch_penalty": [0.5, 2.0],
}
OOF_FIXED = {"size_weight": 0.5, "min_segment_share": 0.05, "max_gap": 12}
#: The second stage's trees: the first stage's, fewer iterations (fewer, denser features).
STACK_HGB = {**training.HGB_PARAMS, "max_iter": 100}


def inner_fold(group: str, k: int = INNER_FOLDS) -> int:
    """A site group's inner fold (sha1: the same on every run)."""
    import hashlib

    return int.from_bytes(hashlib.sha1(("inner:" + group).encode()).digest()[:8], "big") % k


def balance_wide_negatives(data: list[training.PageData], items: list[Item]) -> None:
    """Weigh each wide set's boilerplate blocks so that its content : boilerplate weight ratio is
    the narrow sets' (masking a wide gold's positives leaves its negatives over-represented)."""
    from .conventions import NARROW

    totals: dict[str, list[float]] = {}
    for d, it in zip(data, items):
        w = training.sample_weights(d)
        t = totals.setdefault(it.dataset, [0.0, 0.0])
        t[0] += float(w[d.labels == 1].sum())
        t[1] += float(w[d.labels == 0].sum())
    pos = sum(totals[n][0] for n in NARROW if n in totals)
    neg = sum(totals[n][1] for n in NARROW if n in totals)
    if not pos or not neg:
        return
    target = pos / neg
    for d, it in zip(data, items):
        if it.dataset in WIDE and totals[it.dataset][1] > 0 and totals[it.dataset][0] > 0:
            d.negative_weight = (totals[it.dataset][0] / totals[it.dataset][1]) / target


def _stack_design(dense: list[np.ndarray], probas: list[np.ndarray], structures: list) -> list[np.ndarray]:
    from ..core.scoring.context import context_features

    return [np.hstack([x, context_features(p, s)]) for x, p, s in zip(dense, probas, structures)]


def _stacked_scorer(first: Scorer, clf2) -> Scorer:
    """The probabilities of an inner fold's two stages for a page (as the stacked model gives
    them: the second stage over the block's dense features and the first stage's context)."""
    from ..core.scoring.context import page_structure
    from ..core.scoring.features import dense_features

    def score(page: Page) -> np.ndarray:
        [rows] = _stack_design([dense_features(page)], [first(page)], [page_structure(page)])
        proba: np.ndarray = clf2.predict_proba(rows)[:, 1]
        return proba

    return score


def _fit_rows(X: list[np.ndarray], data: list[training.PageData], params: dict):
    from sklearn.ensemble import HistGradientBoostingClassifier

    Xa = np.vstack(X)
    y = np.concatenate([d.labels for d in data])
    w = np.concatenate([training.sample_weights(d) for d in data]) * 1000
    known = y >= 0
    clf = HistGradientBoostingClassifier(random_state=training.SEED, early_stopping=False, **params)
    clf.fit(Xa[known], y[known], sample_weight=w[known])
    return clf, Xa[known]


def _sequence_models(
    X2: list[np.ndarray],
    oof1: list[np.ndarray],
    data: list[training.PageData],
    inner: np.ndarray,
    n_dense: int,
    log: Callable,
):
    """The sequence model's out-of-fold probabilities (the same inner folds as the first stage)
    appended to the second stage's rows, and the model fitted on every page."""
    from ..core.scoring.model import sequence_logit
    from .sequence import fit as fit_sequence

    logits = [sequence_logit(p) for p in oof1]
    Z = [np.hstack([x[:, :n_dense], lp[:, None], x[:, n_dense:]]) for x, lp in zip(X2, logits)]
    labels = [d.labels for d in data]
    weights = [training.sample_weights(d) for d in data]
    oof: list[np.ndarray] = [np.zeros(0)] * len(X2)
    for k in range(INNER_FOLDS):
        fit_idx = np.flatnonzero(inner != k).tolist()
        part = fit_sequence(
            [Z[i] for i in fit_idx],
            [logits[i] for i in fit_idx],
            [labels[i] for i in fit_idx],
            [weights[i] for i in fit_idx],
            training.SEED + k,
            log,
        )
        for j in np.flatnonzero(inner == k).tolist():
            oof[j] = 1 / (1 + np.exp(-np.clip(part.logits(Z[j], logits[j]), -30, 30)))
    sequence = fit_sequence(Z, logits, labels, weights, training.SEED, log)
    return [np.hstack([x, p[:, None]]) for x, p in zip(X2, oof)], sequence, oof


def tune_grid(
    pages: list, items: list[Item], probas: list[np.ndarray], log: Callable = print, scores: Sequence | None = None
) -> dict:
    """The decoder from OOF_GRID (searched whole), scored as tune_on_selection scores."""
    import itertools

    opts = [options_for(it.dataset) for it in items]
    models = scores if scores is not None else [None] * len(items)
    best, best_params = -1.0, dict(DEFAULT_PARAMS)
    keys = list(OOF_GRID)
    for values in itertools.product(*(OOF_GRID[k] for k in keys)):
        params = {**DEFAULT_PARAMS, **OOF_FIXED, **dict(zip(keys, values))}
        by_set: dict[str, list] = {}
        for page, it, proba, o, model in zip(pages, items, probas, opts, models):
            text = selection_text(page, proba, params, o, it.dp.url, model)
            by_set.setdefault(it.dataset, []).append(page_pr(it.dp, it.cp.gold, text))
        score = float(np.mean([set_f1(pairs) for pairs in by_set.values()]))
        if score > best + 1e-4:
            best, best_params = score, params
    log(f"decoder (grid on out-of-fold probabilities): score {best:.4f} {best_params}")
    return best_params


def make_oof_models(recipe: Recipe, data: list[training.PageData], kept: list[Item], log: Callable) -> dict:
    """Out-of-fold first-stage probabilities for every training page (INNER_FOLDS fits grouped by
    site), the decoder tuned on them through the real selection, the first stage refitted on all;
    with `recipe.stack` also the second stage, fitted on the OOF probabilities' context (its own
    OOF probabilities, from the same inner folds, tune its decoder)."""
    from ..core.scoring.context import CONTEXT_FEATURES, page_structure
    from ..core.scoring.features import dense_feature_names
    from ..core.scoring.model import StackPart

    start = time.time()
    inner = np.array([inner_fold(it.group) for it in kept])
    oof1: list[np.ndarray] = [np.zeros(0)] * len(kept)
    # Each inner fold's first stage, for the pages its out-of-fold probabilities select walked
    # again (the thread re-walk): the decoder is tuned on the selection inference runs.
    scorers1: list[Scorer] = []
    for k in range(INNER_FOLDS):
        fit_idx = np.flatnonzero(inner != k)
        clf, vocabulary, _ = _fit([data[i] for i in fit_idx], recipe)
        scorers1.append(training.scorer(clf, vocabulary))
        held = np.flatnonzero(inner == k).tolist()
        for j, proba in zip(held, _probas(clf, vocabulary, [kept[j] for j in held])):
            oof1[j] = proba
        log(f"{recipe.name}: inner fold {k} fitted on {len(fit_idx)} pages, {time.time() - start:.0f}s")
    tune_sets = recipe.tune_sets or recipe.sets
    in_tune = [it.dataset in tune_sets for it in kept]
    share = min(1.0, TUNE_MAX_PAGES / max(sum(in_tune), 1))
    tuned = [t and (share >= 1 or is_validation_site("tune:" + it.group, share)) for it, t in zip(kept, in_tune)]
    structures: list = []
    tune_pages: dict[int, Page] = {}
    for i, it in enumerate(kept):
        if not (recipe.stack or tuned[i]):
            structures.append(None)
            continue
        page = _walk(it)
        if len(page) != len(it.cp):
            raise AssertionError(f"{it.dp.id}: the walk gives {len(page)} blocks, the cache {len(it.cp)}")
        structures.append(page_structure(page))
        if tuned[i]:
            tune_pages[i] = page
    idx = sorted(tune_pages)
    log(f"{recipe.name}: {len(kept)} pages walked, {len(idx)} for tuning, {time.time() - start:.0f}s")

    def tune_on(oof: list[np.ndarray], scorers: Sequence[Scorer | None]) -> dict:
        """The decoder tuned on `oof`, a page walked again scored by its inner fold's `scorers`."""
        pages, items = [tune_pages[i] for i in idx], [kept[i] for i in idx]
        return tune_grid(pages, items, [oof[i] for i in idx], log, [scorers[inner[i]] for i in idx])

    if recipe.sequence:  # its first stage alone is not kept (below): no decoder to tune
        params1 = dict(DEFAULT_PARAMS)
    else:
        params1 = tune_on(oof1, scorers1)
    clf, vocabulary, X = _fit(data, recipe)
    meta = {"recipe": recipe.name, "training_pages": len(data)}
    model = training.to_model(clf, vocabulary, X, params1, meta)
    out = {recipe.name: model}
    log(f"{recipe.name}: first stage, {time.time() - start:.0f}s")
    if recipe.stack:
        n_dense = len(dense_feature_names())
        X2 = _stack_design([it.cp.dense for it in kept], oof1, structures)

        def second_stage(rows: list[np.ndarray], name: str, sequence=None) -> Model:
            oof2: list[np.ndarray] = [np.zeros(0)] * len(kept)
            scorers2: list[Scorer | None] = []
            for k in range(INNER_FOLDS):
                fit_idx = np.flatnonzero(inner != k)
                clf2, _ = _fit_rows([rows[i] for i in fit_idx], [data[i] for i in fit_idx], STACK_HGB)
                for j in np.flatnonzero(inner == k).tolist():
                    oof2[j] = clf2.predict_proba(rows[j])[:, 1] if len(rows[j]) else np.zeros(0)
                # (a sequence model's inner fits are not kept: no re-walk when tuning with one)
                scorers2.append(None if sequence is not None else _stacked_scorer(scorers1[k], clf2))
            params2 = tune_on(oof2, scorers2)
            clf2, X2_all = _fit_rows(rows, data, STACK_HGB)
            stacked = training.to_model(clf, vocabulary, X, params2, {**meta, "recipe": name})
            trees2 = training.export_trees(clf2)
            stacked.stack = StackPart(list(range(n_dense)), list(CONTEXT_FEATURES), trees2, sequence)
            sample = X2_all[:: max(1, len(X2_all) // 5000)]
            got = 1 / (1 + np.exp(-np.clip(trees2.raw_scores(sample), -30, 30)))
            if not np.allclose(clf2.predict_proba(sample)[:, 1], got, atol=1e-9):
                raise AssertionError("exported second stage differs from scikit-learn")
            log(f"{name}: second stage, decoder {params2}, {time.time() - start:.0f}s")
            return stacked

        out[recipe.name + "+stack"] = second_stage(X2, recipe.name + "+stack")
        if recipe.sequence:
            # the first stage alone is today-oof's (same data, folds and seed): not scored again
            del out[recipe.name]
            X2s, sequence, oof_seq = _sequence_models(X2, oof1, data, inner, n_dense, log)
            params_seq = tune_on(oof_seq, [None] * INNER_FOLDS)  # (its inner fits are not kept)
            alone = training.to_model(clf, vocabulary, X, params_seq, {**meta, "recipe": recipe.name + "+seq"})
            alone.stack = StackPart(list(range(n_dense)), list(CONTEXT_FEATURES), None, sequence)
            out[recipe.name + "+seq"] = alone
            log(f"{recipe.name}+seq: sequence model alone, decoder {params_seq}, {time.time() - start:.0f}s")
            out[recipe.name + "+seqstack"] = second_stage(X2s, recipe.name + "+seqstack", sequence)
    tune_pages.clear()  # the walked pages: about 1.3 MB each
    return out


#: The recipe `scrapy-boilerplate train` follows (train.train_recipe): chosen by the
#: cross-validation (benchmarks/CV.md).
SHIPPED_RECIPE = Recipe("today-oof", sets=("wcxb-dev", "trafilatura-eval"), tune="oof", stack=True)


def _training_data(recipe: Recipe, items: list[Item]) -> tuple[list[training.PageData], list[Item]]:
    """The recipe's training pages among `items` (its sets, its share of sites), labelled, with
    the items they came from; the wide sets' negatives balanced when the recipe says so."""
    items = [it for it in items if it.dataset in recipe.sets]
    if recipe.train_share < 1:
        items = [it for it in items if is_validation_site("share:" + it.group, recipe.train_share)]
    data, kept = [], []
    for it in items:
        d = _page_data(it, recipe)
        if d is not None:
            data.append(d)
            kept.append(it)
    if recipe.wide_negatives == "balanced":
        balance_wide_negatives(data, kept)
    return data, kept


def make_models(recipe: Recipe, items: list[Item], log: Callable = print) -> dict[str, Model]:
    """The recipe's models by name: one, or (tune="oof" with stack) the first stage and the stacked one."""
    if recipe.tune != "oof":
        return {recipe.name: make_model(recipe, items, log)}
    data, kept = _training_data(recipe, items)
    return make_oof_models(recipe, data, kept, log)


def make_model(recipe: Recipe, items: list[Item], log: Callable = print) -> Model:
    """The recipe's model from `items` (a fold's training pages): vocabulary and trees fitted on
    three quarters of the sites, the decoder tuned on the fourth, then all refitted."""
    data, kept = _training_data(recipe, items)
    tune_sets = recipe.tune_sets or recipe.sets
    tune_flags = [is_validation_site("tune:" + it.group, 0.25) for it in kept]
    fit_part = [d for d, t in zip(data, tune_flags) if not t]
    tune_items = [it for it, t in zip(kept, tune_flags) if t and it.dataset in tune_sets]
    start = time.time()
    if recipe.tune == "fixed":
        clf, vocabulary, X = _fit(data, recipe)
        model = training.to_model(
            clf,
            vocabulary,
            X,
            dict(recipe.decoder or DEFAULT_PARAMS),
            {"recipe": recipe.name, "training_pages": len(data)},
        )
        log(f"{recipe.name}: {len(data)} pages, decoder as given, {time.time() - start:.0f}s")
        return model
    clf, vocabulary, _ = _fit(fit_part, recipe)
    log(f"{recipe.name}: fitted on {len(fit_part)} pages in {time.time() - start:.0f}s")
    probas = _probas(clf, vocabulary, tune_items)
    pages = [_walk(it) for it in tune_items]
    log(f"{recipe.name}: {len(pages)} tuning pages walked, {time.time() - start:.0f}s")
    if recipe.tune == "short":
        tune_data = [
            training.PageData(
                it.dp.id, it.group, page, it.cp.gold, it.cp.dense, it.cp.labels, it.cp.with_, it.cp.without
            )
            for it, page in zip(tune_items, pages)
        ]
        params = training.tune_decoder(tune_data, probas, log=lambda *_: None, score=training.scorer(clf, vocabulary))
    else:
        scores = [training.scorer(clf, vocabulary)] * len(tune_items)
        params = tune_on_selection(pages, tune_items, probas, log=lambda *_: None, scores=scores)
    del pages
    log(f"{recipe.name}: decoder tuned, {time.time() - start:.0f}s")
    clf, vocabulary, X = _fit(data, recipe)
    meta = {"recipe": recipe.name, "training_pages": len(data)}
    model = training.to_model(clf, vocabulary, X, params, meta)
    log(f"{recipe.name}: {len(data)} pages, decoder {params}, {time.time() - start:.0f}s")
    return model


# --- scoring ---------------------------------------------------------------------------------


def page_row(item: Item, text: str) -> dict:
    """One page's scores (the unified precision-like / recall-like pair and its F1)."""
    p, r = page_pr(item.dp, item.cp.gold, text)
    row = {
        "set": item.dataset,
        "id": item.dp.id,
        "group": item.group,
        "fold": item.fold,
        "page_type": item.dp.page_type,
        "p": p,
        "r": r,
        "f1": None if r is None and p is None else f1_from(p if p is not None else 0.0, r if r is not None else 1.0),
    }
    if item.cp.gold is not None:
        full = score_page(item.dp, text)
        row["bow_f1"] = full.bow_f1
    return row


def extract_rows(extractor: Extractor | Callable, items: list[Item]) -> list[dict]:
    """Every page of `items` extracted (an Extractor, under each set's convention; or a
    function (html, url) -> text) and scored."""
    rows = []
    for it in items:
        html = it.dp.read_html()
        if isinstance(extractor, Extractor):
            text = extractor.extract(html, url=it.dp.url, **scoring_options(it.dataset)).text
        else:
            text = extractor(html, it.dp.url)
        rows.append(page_row(it, text))
    return rows


#: The items of the running cross-validation: set before the workers fork, so that they
#: inherit them instead of receiving a pickled copy each.
_SHARED: list[Item] = []


def _fold_task(args) -> tuple[int, dict[str, tuple[list[dict], dict]]]:
    recipe, fold, models_dir = args
    items = _SHARED
    train_items = [it for it in items if it.fold not in (fold, -1)]
    test_items = [it for it in items if it.fold == fold]
    start = time.time()
    models = make_models(recipe, train_items, log=lambda m: _stderr(f"fold {fold}: {m}"))
    out = {}
    for name, model in models.items():
        if models_dir is not None:  # kept, so that a later replay can run the fallbacks too
            model.save(Path(models_dir) / f"{name}-fold{fold}.json")
        rows = extract_rows(Extractor(model=model), test_items)
        # The out-of-fold block probabilities (for the error analysis and a second stage).
        index = model.token_index
        for row, it in zip(rows, test_items):
            if len(it.cp):
                X = np.hstack([it.cp.dense, token_features(it.cp, index)])  # type: ignore[arg-type]
                page = _walk(it) if model.stack is not None else None
                row["proba"] = np.round(model.predict_proba(X, page), 4).tolist()
        out[name] = (rows, dict(model.decode))
        _stderr(f"fold {fold}: {name} scored {len(rows)} pages, {time.time() - start:.0f}s in all")
    return fold, out


def _stderr(message: str) -> None:
    import sys

    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def cross_validate(
    recipes: Sequence[Recipe],
    items: list[Item],
    folds: int,
    processes: int = 2,
    log: Callable = print,
    models_dir: Path | None = None,
) -> dict[str, tuple[list[dict], list[dict]]]:
    """Per recipe: the rows of every non-untouched page, each scored by the recipe's model made
    without its fold, and each fold's decoder parameters. All (recipe, fold) tasks share one
    pool of `processes` workers, so that no core waits for another recipe's last fold. With
    `models_dir`, each fold's models are saved there (NAME-foldK.json)."""
    tasks = [(recipe, k, models_dir) for recipe in recipes for k in range(folds)]
    start = time.time()
    _SHARED[:] = items
    if processes > 1:
        with multiprocessing.get_context("fork").Pool(processes, maxtasksperchild=1) as pool:
            results = pool.map(_fold_task, tasks, chunksize=1)
    else:
        results = [_fold_task(t) for t in tasks]
    out: dict[str, tuple[list[dict], list[dict]]] = {}
    for _fold, by_name in results:
        for name, (rows, decoder) in by_name.items():
            all_rows, decoders = out.setdefault(name, ([], []))
            all_rows.extend(rows)
            decoders.append(decoder)
    log(f"{', '.join(r.name for r in recipes)}: {folds}-fold CV in {time.time() - start:.0f}s")
    return out


def _rows_task(args) -> list[dict]:
    make, k, processes = args
    return extract_rows(make(), _SHARED[k::processes])


def _rows_in_parts(task: Callable, args: tuple, items: list[Item], processes: int, order: list[tuple]) -> list[dict]:
    """task((*args, k, processes)) for each of `processes` parts (forked workers that inherit
    `items` as _SHARED), the parts' rows joined in `order` ((set, id) keys)."""
    _SHARED[:] = items
    tasks = [(*args, k, processes) for k in range(processes)]
    if processes > 1:
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            parts = pool.map(task, tasks, chunksize=1)
    else:
        parts = [task(t) for t in tasks]
    rank = {key: n for n, key in enumerate(order)}
    return sorted((row for part in parts for row in part), key=lambda r: rank[(r["set"], r["id"])])


def fixed_rows(make: Callable, items: list[Item], processes: int = 2) -> list[dict]:
    """Rows of `items` scored by one fixed extractor (`make()`: the shipped model, trafilatura)."""
    if processes <= 1:
        return extract_rows(make(), items)
    return _rows_in_parts(_rows_task, (make,), items, processes, [(it.dataset, it.dp.id) for it in items])


def untouched_rows(recipe: Recipe, items: list[Item], log: Callable = print) -> dict[str, list[dict]]:
    """The recipe('s models) trained on every non-untouched page, scored on the untouched ones."""
    models = make_models(recipe, [it for it in items if it.fold != -1], log)
    test = [it for it in items if it.fold == -1]
    return {name: extract_rows(Extractor(model=model), test) for name, model in models.items()}


def _replay_task(args) -> list[dict]:
    rows, decoders, models, k, processes = args
    by_key = {(it.dataset, it.dp.id): it for it in _SHARED}
    extractors: dict[int, Extractor] = {}
    out = []
    for row in rows[k::processes]:
        it = by_key[(row["set"], row["id"])]
        if "proba" not in row:  # a page without blocks: its text was empty, and still is
            out.append(row)
            continue
        fold, decoder = row["fold"], decoders[row["fold"]]
        if models is not None:
            if fold not in extractors:
                extractors[fold] = Extractor(model=replace(models[fold], decode=decoder))
            [new] = extract_rows(extractors[fold], [it])
        else:
            page = _walk(it)
            new = page_row(
                it, selection_text(page, np.asarray(row["proba"]), decoder, options_for(it.dataset), it.dp.url)
            )
        out.append({**new, "proba": row["proba"]})
    return out


def replay_rows(
    rows: list[dict],
    decoders: list[dict],
    items: list[Item],
    processes: int = 2,
    models: Sequence[Model] | None = None,
) -> list[dict]:
    """A stored run's pages scored again with each fold's decoder, through today's selection: a
    change to the decoder or the steps is screened in a minute, without training again. With the
    run's fold `models` (a run keeps them), the whole extraction runs: the replay of unchanged
    code is the stored run. Without them, the stored out-of-fold probabilities go through
    select() without a model to score a page walked again: pages whose text came from the
    thread re-walk are scored without it, so such a replay is compared with a replay of the
    unchanged code, never with the stored run."""
    order = [(r["set"], r["id"]) for r in rows]
    return _rows_in_parts(_replay_task, (rows, decoders, models), items, processes, order)


def with_recipe(recipe: Recipe, **changes) -> Recipe:
    return replace(recipe, **changes)


# --- figures ---------------------------------------------------------------------------------


def _arrays(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    p = np.array([np.nan if r["p"] is None else r["p"] for r in rows], float)
    r = np.array([np.nan if r["r"] is None else r["r"] for r in rows], float)
    return p, r


def _macro_f1(p: np.ndarray, r: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Set F1 (from the mean precision-like and recall-like values) of each resample (rows of idx)."""

    def mean(values: np.ndarray) -> np.ndarray:
        ok = ~np.isnan(values)
        v = np.where(ok, values, 0.0)[idx]
        n = ok[idx].sum(axis=1)
        return np.where(n > 0, v.sum(axis=1) / np.maximum(n, 1), 1.0)

    mp, mr = mean(p), mean(r)
    return np.where(mp + mr > 0, 2 * mp * mr / np.maximum(mp + mr, 1e-12), 0.0)


def summary(rows: list[dict]) -> dict:
    """pages, P, R, F1 (as `evaluate`: F1 of the mean P and R) and catastrophic pages (F1 < .3)."""
    if not rows:
        return {"pages": 0}
    p, r = _arrays(rows)
    f1 = float(_macro_f1(p, r, np.arange(len(rows))[None, :])[0])
    return {
        "pages": len(rows),
        "p": float(np.nanmean(p)) if (~np.isnan(p)).any() else None,
        "r": float(np.nanmean(r)) if (~np.isnan(r)).any() else None,
        "f1": f1,
        "catastrophic": sum(1 for row in rows if row["f1"] is not None and row["f1"] < CATASTROPHIC),
    }


def paired_bootstrap(rows_a: list[dict], rows_b: list[dict], n: int = 1000, seed: int = 0) -> dict:
    """F1(b) - F1(a) on the pages both have, resampled together: the difference, its standard
    error and 95 % interval."""
    key_b = {(row["set"], row["id"]): row for row in rows_b}
    pairs = [(row, key_b[(row["set"], row["id"])]) for row in rows_a if (row["set"], row["id"]) in key_b]
    if not pairs:
        return {"pages": 0}
    pa, ra = _arrays([a for a, _ in pairs])
    pb, rb = _arrays([b for _, b in pairs])
    whole = np.arange(len(pairs))[None, :]
    diff = float(_macro_f1(pb, rb, whole)[0] - _macro_f1(pa, ra, whole)[0])
    idx = np.random.default_rng(seed).integers(0, len(pairs), size=(n, len(pairs)))
    boot = _macro_f1(pb, rb, idx) - _macro_f1(pa, ra, idx)
    low, high = np.percentile(boot, [2.5, 97.5])
    return {"pages": len(pairs), "diff": diff, "se": float(boot.std()), "low": float(low), "high": float(high)}


def slices(rows: list[dict]) -> dict[str, list[dict]]:
    """The report's slices: each set, and each page type of a set that has them."""
    out: dict[str, list[dict]] = {}
    for row in rows:
        out.setdefault(row["set"], []).append(row)
    for row in rows:
        if row["page_type"]:
            out.setdefault(f"{row['set']}/{row['page_type']}", []).append(row)
    order = {name: k for k, name in enumerate(LABELLED)}
    return dict(sorted(out.items(), key=lambda kv: (order.get(kv[0].split("/")[0], 99), kv[0])))
