"""Walked pages and their features, cached per feature version, for cross-validation runs.

Walking and featurising the 4,454 labelled pages takes minutes; every fold of every run needs
them, so they are computed once per *feature version* (a digest of the walk's and the
features' source) and kept in a cache folder outside the repository (a pickle: a cache of our
own making, never a model file). A changed walk or feature function is a new version, so a
stale cache is never read.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.document.page import build_page
from ..core.document.parse import parse_html
from ..core.scoring.features import dense_feature_names, dense_features
from .align import block_labels, snippet_labels
from .datasets import DatasetPage

#: The cache folder, unless --cache or SCRAPY_BOILERPLATE_CV_CACHE names another.
DEFAULT_CACHE = Path.home() / ".cache" / "scrapy-boilerplate-cv"
_PACKAGE = Path(__file__).resolve().parent.parent
#: The sources whose change changes blocks or features (compiled twins: the same values).
_VERSIONED = (
    "core/document",
    "core/scoring/features.py",
    "core/scoring/ttr.py",
    "core/scoring/stopwords.py",
    "training/align.py",
    "training/cache.py",
)


def feature_version() -> str:
    """A digest of the walk's, the features' and the alignment's source and the column names."""
    digest = hashlib.sha1("\n".join(dense_feature_names()).encode())
    for name in _VERSIONED:
        path = _PACKAGE / name
        files = sorted(path.glob("*.py")) if path.is_dir() else [path]
        for file in files:
            digest.update(file.read_bytes())
    return digest.hexdigest()[:12]


@dataclass
class CachedPage:
    """What training and the conventions read of one page, without its tree."""

    dataset: str
    id: str
    digest: str  # sha1 of the raw bytes (pages in two sets)
    has_gold: bool
    dense: np.ndarray  # dense_features
    labels: np.ndarray  # 1 content, 0 boilerplate, -1 unknown (align.py)
    texts: list[str]
    tags: list[str]
    tokens: list[tuple[str, ...]]
    chars: np.ndarray
    words: np.ndarray
    link_chars: np.ndarray
    flags: np.ndarray
    with_: tuple[str, ...] = ()
    without: tuple[str, ...] = ()
    gold: str | None = None

    def __len__(self) -> int:  # as a Page: training reads tokens, chars and words by block
        return len(self.texts)


def walk_page(dp: DatasetPage) -> CachedPage | None:
    """Walk, featurise and label one page (None: no blocks, or nothing to label it by)."""
    raw = dp.read_html()
    digest = hashlib.sha1(raw).hexdigest()
    gold = dp.read_gold() if dp.gold_path else None
    has_gold = bool(gold and gold.strip())
    page = build_page(parse_html(raw), base_url=dp.url)
    if not len(page):
        return CachedPage(
            dp.dataset,
            dp.id,
            digest,
            has_gold,
            np.zeros((0, len(dense_feature_names()))),
            np.zeros(0, np.int8),
            [],
            [],
            [],
            np.zeros(0),
            np.zeros(0),
            np.zeros(0),
            np.zeros(0, np.int64),
            tuple(dp.with_),
            tuple(dp.without),
            gold,
        )
    if has_gold:
        labels = block_labels(page.texts, gold or "")
    else:
        labels = snippet_labels(page.texts, dp.with_, dp.without)
    return CachedPage(
        dp.dataset,
        dp.id,
        digest,
        has_gold,
        dense_features(page),
        labels,
        list(page.texts),
        list(page.tags),
        list(page.tokens),
        page.arrays.chars.copy(),
        page.arrays.words.copy(),
        page.arrays.link_chars.copy(),
        np.asarray(page.flags, np.int64),
        tuple(dp.with_),
        tuple(dp.without),
        gold if has_gold else None,
    )


def cache_dir(folder: str | os.PathLike[str] | None = None) -> Path:
    base = Path(folder or os.environ.get("SCRAPY_BOILERPLATE_CV_CACHE") or DEFAULT_CACHE)
    return base / feature_version()


def load_or_walk(
    pages: list[DatasetPage],
    folder: str | os.PathLike[str] | None = None,
    processes: int = 2,
    log: Callable[[str], None] = print,
) -> dict[tuple[str, str], CachedPage]:
    """(dataset, id) -> CachedPage for `pages`, from the cache where it has them, walked
    (with `processes` processes) and cached otherwise; one file per dataset."""
    root = cache_dir(folder)
    root.mkdir(parents=True, exist_ok=True)
    by_set: dict[str, list[DatasetPage]] = {}
    for page in pages:
        by_set.setdefault(page.dataset, []).append(page)
    out: dict[tuple[str, str], CachedPage] = {}
    for name, members in by_set.items():
        file = root / f"{name}.pkl"
        cached: dict[str, CachedPage] = {}
        if file.exists():
            with file.open("rb") as f:
                cached = pickle.load(f)
        missing = [p for p in members if p.id not in cached]
        if missing:
            log(f"walking {len(missing)} pages of {name} (feature version {root.name})")
            if processes > 1:
                import multiprocessing

                with multiprocessing.get_context("fork").Pool(processes) as pool:
                    walked = pool.map(walk_page, missing, chunksize=8)
            else:
                walked = [walk_page(p) for p in missing]
            for p, c in zip(missing, walked):
                if c is not None:
                    cached[p.id] = c
            tmp = file.with_suffix(".tmp")
            with tmp.open("wb") as f:
                pickle.dump(cached, f, protocol=pickle.HIGHEST_PROTOCOL)
            tmp.replace(file)
        for p in members:
            if p.id in cached:
                out[(name, p.id)] = cached[p.id]
    return out
