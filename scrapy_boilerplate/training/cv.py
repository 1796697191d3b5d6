"""Cross-validation grouped by site over all labelled sets: the protocol every model change is
judged by (docs/training.md, "Cross-validation").

- Groups: groups.py (registered domain across sets; pages in two sets dropped).
- 15 % of the groups are untouched (assign_folds: -1), reported once, at the end; the other
  groups are dealt to 3 folds (screening) or 5 (the figure of record).
- A `Recipe` (recipes.py) says how a model is made from a fold's training pages: everything the
  data chooses is chosen inside the fold.
- Every test page is extracted by the full inference path (`Extractor.extract`), under its
  set's convention (conventions.py), and scored as `evaluate` scores it.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..core.extractor import Extractor
from ..core.jsondata import JsonObject
from ..core.scoring.features import token_features
from ..core.scoring.model import Model
from .cache import load_or_walk
from .conventions import LABELLED, scoring_options
from .datasets import load_dataset
from .groups import assign_folds, page_group, pages_in_two_sets
from .metrics import f1_from, score_page
from .recipes import Item, Recipe, make_models, options_for, page_pr, selection_text, walk_item

#: A function (html, url) -> text: another extractor scored as ours is.
TextOf = Callable[[bytes, str | None], str]
#: Catastrophic page: F1 under this.
CATASTROPHIC = 0.3


def corpus(
    dataset_dirs: Sequence[str | Path],
    folds: int,
    cache: str | None = None,
    processes: int = 2,
    log: Callable[[str], None] = print,
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


# --- scoring ---------------------------------------------------------------------------------


def page_row(item: Item, text: str) -> JsonObject:
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


def extract_rows(extractor: Extractor | TextOf, items: list[Item]) -> list[JsonObject]:
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


def _fold_task(args: tuple[Recipe, int, Path | None]) -> tuple[int, dict[str, tuple[list[JsonObject], JsonObject]]]:
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
                page = walk_item(it) if model.stack is not None else None
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
    log: Callable[[str], None] = print,
    models_dir: Path | None = None,
) -> dict[str, tuple[list[JsonObject], list[JsonObject]]]:
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
    out: dict[str, tuple[list[JsonObject], list[JsonObject]]] = {}
    for _fold, by_name in results:
        for name, (rows, decoder) in by_name.items():
            all_rows, decoders = out.setdefault(name, ([], []))
            all_rows.extend(rows)
            decoders.append(decoder)
    log(f"{', '.join(r.name for r in recipes)}: {folds}-fold CV in {time.time() - start:.0f}s")
    return out


def _rows_task(args: tuple[Callable[[], Extractor | TextOf], int, int]) -> list[JsonObject]:
    make, k, processes = args
    return extract_rows(make(), _SHARED[k::processes])


def _rows_in_parts(
    task: Callable[[Any], list[JsonObject]],
    args: tuple[object, ...],
    items: list[Item],
    processes: int,
    order: list[tuple[str, str]],
) -> list[JsonObject]:
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


def fixed_rows(make: Callable[[], Extractor | TextOf], items: list[Item], processes: int = 2) -> list[JsonObject]:
    """Rows of `items` scored by one fixed extractor (`make()`: the shipped model, trafilatura)."""
    if processes <= 1:
        return extract_rows(make(), items)
    return _rows_in_parts(_rows_task, (make,), items, processes, [(it.dataset, it.dp.id) for it in items])


def untouched_rows(
    recipe: Recipe, items: list[Item], log: Callable[[str], None] = print
) -> dict[str, list[JsonObject]]:
    """The recipe('s models) trained on every non-untouched page, scored on the untouched ones."""
    models = make_models(recipe, [it for it in items if it.fold != -1], log)
    test = [it for it in items if it.fold == -1]
    return {name: extract_rows(Extractor(model=model), test) for name, model in models.items()}


def _replay_task(
    args: tuple[list[JsonObject], list[JsonObject], Sequence[Model] | None, int, int],
) -> list[JsonObject]:
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
            page = walk_item(it)
            new = page_row(
                it, selection_text(page, np.asarray(row["proba"]), decoder, options_for(it.dataset), it.dp.url)
            )
        out.append({**new, "proba": row["proba"]})
    return out


def replay_rows(
    rows: list[JsonObject],
    decoders: list[JsonObject],
    items: list[Item],
    processes: int = 2,
    models: Sequence[Model] | None = None,
) -> list[JsonObject]:
    """A stored run's pages scored again with each fold's decoder, through today's selection: a
    change to the decoder or the steps is screened in a minute, without training again. With the
    run's fold `models` (a run keeps them), the whole extraction runs: the replay of unchanged
    code is the stored run. Without them, the stored out-of-fold probabilities go through
    select() without a model to score a page walked again: pages whose text came from the
    thread re-walk are scored without it, so such a replay is compared with a replay of the
    unchanged code, never with the stored run."""
    order = [(r["set"], r["id"]) for r in rows]
    return _rows_in_parts(_replay_task, (rows, decoders, models), items, processes, order)


# --- figures ---------------------------------------------------------------------------------


def _arrays(rows: list[JsonObject]) -> tuple[np.ndarray, np.ndarray]:
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


def summary(rows: list[JsonObject]) -> JsonObject:
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


def paired_bootstrap(rows_a: list[JsonObject], rows_b: list[JsonObject], n: int = 1000, seed: int = 0) -> JsonObject:
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


def slices(rows: list[JsonObject]) -> dict[str, list[JsonObject]]:
    """The report's slices: each set, and each page type of a set that has them."""
    out: dict[str, list[JsonObject]] = {}
    for row in rows:
        out.setdefault(row["set"], []).append(row)
    for row in rows:
        if row["page_type"]:
            out.setdefault(f"{row['set']}/{row['page_type']}", []).append(row)
    order = {name: k for k, name in enumerate(LABELLED)}
    return dict(sorted(out.items(), key=lambda kv: (order.get(kv[0].split("/")[0], 99), kv[0])))
