"""How a model is made from training pages (`Recipe`, `make_models`) and the shipped recipe
(`SHIPPED_RECIPE`): what the cross-validation (cv.py) compares and `scrapy-boilerplate train`
(train_recipe) follows.

Everything the data chooses is chosen from the given pages alone: the id/class vocabulary, the
trees and the decoder (tuned on a quarter of the training sites by a model fitted on the other
three quarters, as train.py does; on the real selection, every step of steps.STEPS, when `tune`
is "selection"; on out-of-fold probabilities when it is "oof", with a second stage over their
context when the recipe stacks).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.document.page import Page, build_page
from ..core.document.parse import parse_html
from ..core.extractor import Extractor
from ..core.jsondata import JsonObject
from ..core.metadata.title import best_title
from ..core.options import Options
from ..core.scoring.decode import DEFAULT_PARAMS
from ..core.scoring.features import token_features
from ..core.scoring.model import Model
from ..core.selection.steps import Scorer, select
from . import train as training
from .cache import CachedPage
from .conventions import LABELLED, NARROW, WIDE, scoring_options, training_labels, unlabelled_code
from .datasets import DatasetPage, is_validation_site
from .metrics import f1_from

if TYPE_CHECKING:
    from sklearn.ensemble import HistGradientBoostingClassifier

    from ..core.scoring.context import Structure
    from ..core.scoring.recurrent import RecurrentPart
    from ..core.scoring.sequence import SequencePart


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
    decoder: JsonObject | None = None
    tune_sets: tuple[str, ...] | None = None  # the sets the decoder is tuned on (None: `sets`)
    train_share: float = 1.0  # learning curve: this share of the training sites
    hgb: JsonObject = field(default_factory=lambda: dict(training.HGB_PARAMS))
    # "balanced": each wide set's boilerplate blocks weighed down so that its content :
    # boilerplate weight ratio is the narrow sets' (the masking's class-prior shift undone)
    wide_negatives: str = "as-is"
    # tune="oof": also a second stage (stacking) over the out-of-fold probabilities' context;
    # the recipe then makes two models, NAME (first stage) and NAME+stack
    stack: bool = False
    # with stack: also a sequence model of this kind over the same inputs ("conv":
    # core/scoring/sequence.py, "gru": core/scoring/recurrent.py; "": none), fitted on the
    # out-of-fold probabilities: NAME+seq is it alone in place of the second stage's trees,
    # NAME+seqstack the trees reading its (out-of-fold) probability beside the context
    sequence: str = ""
    # conventions.unlabelled_code: the listings a gold leaves out inside its content not taught
    mask_code: bool = False


def with_recipe(recipe: Recipe, **changes: Any) -> Recipe:
    return replace(recipe, **changes)


def _page_data(item: Item, recipe: Recipe) -> training.PageData | None:
    cp = item.cp
    labels = cp.labels
    if recipe.mask_wide:
        labels = training_labels(item.dataset, labels, cp.tags, cp.words, cp.chars, cp.link_chars, cp.flags)
    if recipe.mask_code:
        labels = unlabelled_code(labels, cp.flags, cp.texts)
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


def _fit(data: list[training.PageData], recipe: Recipe) -> tuple[HistGradientBoostingClassifier, list[str], np.ndarray]:
    from sklearn.ensemble import HistGradientBoostingClassifier

    vocabulary = training.choose_vocabulary(data)
    X, y, w = training.design(data, vocabulary)
    clf = HistGradientBoostingClassifier(random_state=training.SEED, early_stopping=False, **recipe.hgb)
    clf.fit(X, y, sample_weight=w)
    return clf, vocabulary, X


def _probas(clf: HistGradientBoostingClassifier, vocabulary: list[str], items: list[Item]) -> list[np.ndarray]:
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
    page: Page, proba: np.ndarray, params: JsonObject, opts: Options, url: str | None, score: Scorer | None = None
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


def selection_scorer(
    pages: list[Page],
    items: list[Item],
    probas: list[np.ndarray],
    scores: Sequence[Scorer | None] | None = None,
) -> Callable[[JsonObject], float]:
    """The score tune_on_selection and tune_grid tune on: decoder parameters -> the mean over
    sets of each set's F1 of the selection's text (each set under its convention's options).
    `scores`: per page, what selection_text scores a page walked again with."""
    opts = [options_for(it.dataset) for it in items]
    models = scores if scores is not None else [None] * len(items)

    def score(params: JsonObject) -> float:
        by_set: dict[str, list[tuple[float | None, float | None]]] = {}
        for page, it, proba, o, model in zip(pages, items, probas, opts, models):
            text = selection_text(page, proba, params, o, it.dp.url, model)
            by_set.setdefault(it.dataset, []).append(page_pr(it.dp, it.cp.gold, text))
        return float(np.mean([set_f1(pairs) for pairs in by_set.values()]))

    return score


def tune_on_selection(
    pages: list[Page],
    items: list[Item],
    probas: list[np.ndarray],
    log: Callable[[str], None] = print,
    scores: Sequence[Scorer | None] | None = None,
) -> JsonObject:
    """Coordinate search over train.DECODE_GRID (train.tune_decoder's), scoring the text of the
    real selection (selection_scorer)."""
    score = selection_scorer(pages, items, probas, scores)
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


def walk_item(item: Item) -> Page:
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


def _stacked_scorer(first: Scorer, clf2: Any) -> Scorer:
    """The probabilities of an inner fold's two stages for a page (as the stacked model gives
    them: the second stage over the block's dense features and the first stage's context)."""
    from ..core.scoring.context import page_structure
    from ..core.scoring.features import dense_features

    def score(page: Page) -> np.ndarray:
        [rows] = _stack_design([dense_features(page)], [first(page)], [page_structure(page)])
        proba: np.ndarray = clf2.predict_proba(rows)[:, 1]
        return proba

    return score


def _stack_design(dense: list[np.ndarray], probas: list[np.ndarray], structures: list[Structure]) -> list[np.ndarray]:
    from ..core.scoring.context import context_features

    return [np.hstack([x, context_features(p, s)]) for x, p, s in zip(dense, probas, structures)]


def _fit_rows(
    X: list[np.ndarray], data: list[training.PageData], params: JsonObject
) -> tuple[HistGradientBoostingClassifier, np.ndarray]:
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
    log: Callable[[str], None],
    kind: str,
) -> tuple[list[np.ndarray], SequencePart | RecurrentPart, list[np.ndarray]]:
    """The sequence model's out-of-fold probabilities (the same inner folds as the first stage)
    appended to the second stage's rows, and the model fitted on every page."""
    from ..core.scoring.model import sequence_logit
    from ..core.scoring.recurrent import KIND as GRU
    from ..core.scoring.sequence import KIND as CONV
    from .recurrent import fit as fit_gru
    from .sequence import fit as fit_conv

    fits: dict[str, Callable[..., SequencePart | RecurrentPart]] = {CONV: fit_conv, GRU: fit_gru}
    if kind not in fits:
        raise ValueError(f"a recipe's sequence model is {CONV!r} or {GRU!r}, not {kind!r}")
    fit_sequence = fits[kind]
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
    pages: list[Page],
    items: list[Item],
    probas: list[np.ndarray],
    log: Callable[[str], None] = print,
    scores: Sequence[Scorer | None] | None = None,
) -> JsonObject:
    """The decoder from OOF_GRID (searched whole), scored as tune_on_selection scores."""
    import itertools

    score_of = selection_scorer(pages, items, probas, scores)
    best, best_params = -1.0, dict(DEFAULT_PARAMS)
    keys = list(OOF_GRID)
    for values in itertools.product(*(OOF_GRID[k] for k in keys)):
        params = {**DEFAULT_PARAMS, **OOF_FIXED, **dict(zip(keys, values))}
        score = score_of(params)
        if score > best + 1e-4:
            best, best_params = score, params
    log(f"decoder (grid on out-of-fold probabilities): score {best:.4f} {best_params}")
    return best_params


def make_oof_models(
    recipe: Recipe, data: list[training.PageData], kept: list[Item], log: Callable[[str], None]
) -> JsonObject:
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
    structures: list[Structure | None] = []
    tune_pages: dict[int, Page] = {}
    for i, it in enumerate(kept):
        if not (recipe.stack or tuned[i]):
            structures.append(None)
            continue
        page = walk_item(it)
        if len(page) != len(it.cp):
            raise AssertionError(f"{it.dp.id}: the walk gives {len(page)} blocks, the cache {len(it.cp)}")
        structures.append(page_structure(page))
        if tuned[i]:
            tune_pages[i] = page
    idx = sorted(tune_pages)
    log(f"{recipe.name}: {len(kept)} pages walked, {len(idx)} for tuning, {time.time() - start:.0f}s")

    def tune_on(oof: list[np.ndarray], scorers: Sequence[Scorer | None]) -> JsonObject:
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
        walked = [s for s in structures if s is not None]  # with stack: every page's
        X2 = _stack_design([it.cp.dense for it in kept], oof1, walked)

        def second_stage(
            rows: list[np.ndarray], name: str, sequence: SequencePart | RecurrentPart | None = None
        ) -> Model:
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
            X2s, sequence, oof_seq = _sequence_models(X2, oof1, data, inner, n_dense, log, recipe.sequence)
            params_seq = tune_on(oof_seq, [None] * INNER_FOLDS)  # (its inner fits are not kept)
            alone = training.to_model(clf, vocabulary, X, params_seq, {**meta, "recipe": recipe.name + "+seq"})
            alone.stack = StackPart(list(range(n_dense)), list(CONTEXT_FEATURES), None, sequence)
            out[recipe.name + "+seq"] = alone
            log(f"{recipe.name}+seq: sequence model alone, decoder {params_seq}, {time.time() - start:.0f}s")
            out[recipe.name + "+seqstack"] = second_stage(X2s, recipe.name + "+seqstack", sequence)
    tune_pages.clear()  # the walked pages: about 1.3 MB each
    return out


#: The recipe `scrapy-boilerplate train` follows (train_recipe): chosen by the
#: cross-validation (benchmarks/CV.md). The listings a gold leaves out are not taught
#: (mask_code): the output keeps listings, and the model no longer learns them as boilerplate.
SHIPPED_RECIPE = Recipe("today-code", sets=NARROW, tune="oof", stack=True, mask_code=True)


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


def make_models(recipe: Recipe, items: list[Item], log: Callable[[str], None] = print) -> dict[str, Model]:
    """The recipe's models by name: one, or (tune="oof" with stack) the first stage and the stacked one."""
    if recipe.tune != "oof":
        return {recipe.name: make_model(recipe, items, log)}
    data, kept = _training_data(recipe, items)
    return make_oof_models(recipe, data, kept, log)


def make_model(recipe: Recipe, items: list[Item], log: Callable[[str], None] = print) -> Model:
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
    pages = [walk_item(it) for it in tune_items]
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


def train_recipe(
    pages: list[DatasetPage],
    command: str,
    datasets: list[str],
    log: Callable[[str], None] = print,
    all_sites: bool = False,
) -> Model:
    """The block model as the cross-validation's shipped recipe makes it (SHIPPED_RECIPE,
    make_models): out-of-fold probabilities from inner folds grouped by site,
    the decoder tuned on them through the real selection, the second stage on their context."""
    from .conventions import NARROW
    from .groups import page_group, pages_in_two_sets

    start = time.time()
    walked = training.walk_pages(training.training_pages(pages, datasets, log, all_sites))
    twice = pages_in_two_sets([p for p, _ in walked], [c.digest for _, c in walked])
    items = [Item(p, c, page_group(p)) for k, (p, c) in enumerate(walked) if k not in twice]
    inner = {inner_fold(it.group) for it in items}
    if len(inner) < INNER_FOLDS:
        raise ValueError(
            f"the stacked recipe deals the training sites to {INNER_FOLDS} inner folds and these "
            f"{len({it.group for it in items})} sites fill {len(inner)}: add pages of more sites, "
            "or train with --recipe split"
        )
    names = tuple(sorted({it.dataset for it in items}))
    narrow = tuple(n for n in names if n in NARROW)
    recipe = replace(SHIPPED_RECIPE, sets=names, tune_sets=narrow or None)
    log(f"training pages: {len(items)} of {', '.join(names)} ({len(twice)} in two sets dropped)")
    models = make_models(recipe, items, log)
    model = models[recipe.name + "+stack"] if recipe.stack else models[recipe.name]
    import sklearn

    model.meta = {
        "datasets": datasets,
        "command": command,
        "recipe": recipe.name + ("+stack" if recipe.stack else ""),
        "sklearn_version": sklearn.__version__,
        "training_pages": len(items),
        "hgb_params": training.HGB_PARAMS,
        "stack_hgb_params": STACK_HGB if recipe.stack else None,
        "seed": training.SEED,
        "validation": (
            "none: trained on all sites (--all-sites)"
            if all_sites
            else "sites where is_validation_site(site) is true were held out"
        ),
    }
    log(f"trained in {time.time() - start:.0f}s: {len(model.trees.roots)} trees, decoder {model.decode}")
    return model
