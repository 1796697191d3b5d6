"""The block model as plain JSON, evaluated with numpy.

A model file holds a gradient-boosted tree ensemble (exported from
scikit-learn's HistGradientBoostingClassifier at training time) as flat
arrays, optionally a linear part blended with it (format version 2; the
overview model has one), the feature names it expects, the id/class token
vocabulary, the decoding parameters and where it came from (training sets,
command, scikit-learn version). Loading it needs only ``json`` and numpy: no pickle,
so it loads and predicts the same under any scikit-learn version, or none.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import speedups
from .context import CONTEXT_FEATURES, Structure, context_features, page_structure
from .recurrent import KIND as GRU
from .recurrent import RecurrentPart
from .sequence import KIND as CONV
from .sequence import SequencePart

if TYPE_CHECKING:
    import os

    from ..document.page import Page
    from ..jsondata import JsonObject
    from . import _model

if not TYPE_CHECKING:
    _model = speedups.kernels(__name__)  # compiled, or the same source run as Python

FORMAT = "scrapy-boilerplate-model"
FORMAT_VERSION = 1  # trees only
LINEAR_FORMAT_VERSION = 2  # trees blended with a linear part: older readers must refuse it
STACK_FORMAT_VERSION = 3  # trees and a second stage over the first's context: older readers refuse it


class ModelError(ValueError):
    """A model file that cannot be used (wrong format, version or features)."""

    _boilerplate_reported = False  # set once a crawl logged it (settings.py)


@dataclass
class TreeEnsemble:
    """Trees packed into flat arrays: node i of every tree lives at offset[t] + i."""

    feature: np.ndarray  # int, -1 for leaves
    threshold: np.ndarray  # float; go left when x <= threshold
    missing_left: np.ndarray  # bool; NaN goes left
    left: np.ndarray  # absolute node index
    right: np.ndarray
    value: np.ndarray  # leaf value (raw score contribution)
    roots: np.ndarray  # absolute index of each tree's root
    baseline: float
    depth: int

    def __post_init__(self) -> None:
        self._compile()

    def _compile(self) -> None:
        """Re-lay the nodes so a node's right child directly follows its left child.

        Then one step of the walk is ``node = child[node] + (x > threshold[node])``
        for all (row, tree) pairs at once; leaves point to themselves with an
        infinite threshold, so finished walks stay put.
        """
        n_total = len(self.feature)
        feat: list[int] = []
        thr: list[float] = []
        child: list[int] = []
        val: list[float] = []
        roots = []
        steps = 0  # the deepest leaf: walks need this many steps, whatever `depth` says
        for root in self.roots.tolist():
            new_index = {root: len(feat)}
            order = [root]
            level = {root: 0}
            feat.append(0)
            thr.append(np.inf)
            child.append(0)
            val.append(0.0)
            k = 0
            while k < len(order):
                old = order[k]
                me = new_index[old]
                steps = max(steps, level[old])
                if self.feature[old] < 0 or not (0 <= self.left[old] < n_total):
                    child[me] = me
                    val[me] = float(self.value[old])
                else:
                    feat[me] = int(self.feature[old])
                    thr[me] = float(self.threshold[old])
                    child[me] = len(feat)
                    for c in (int(self.left[old]), int(self.right[old])):
                        if c in new_index:
                            raise ValueError("a tree node is reached twice (the tree has a cycle)")
                        new_index[c] = len(feat)
                        level[c] = level[old] + 1
                        order.append(c)
                        feat.append(0)
                        thr.append(np.inf)
                        child.append(0)
                        val.append(0.0)
                k += 1
            roots.append(new_index[root])
        self._feat = np.asarray(feat, np.intp)
        self._thr = np.asarray(thr, float)
        self._child = np.asarray(child, np.intp)
        self._val = np.asarray(val, float)
        self._roots = np.asarray(roots, np.intp)
        self._steps = steps

    def raw_scores(self, X: np.ndarray) -> np.ndarray:
        """Sum of leaf values over all trees. Features must be finite (NaN goes left)."""
        n = X.shape[0]
        if n == 0 or len(self._roots) == 0:
            return np.full(n, self.baseline)
        return _model._raw_scores(
            np.ascontiguousarray(X, dtype=float),
            self._feat,
            self._thr,
            self._child,
            self._val,
            self._roots,
            self.baseline,
            self._steps,
        )

    def raw_scores_numpy(self, X: np.ndarray) -> np.ndarray:
        """`raw_scores` in numpy alone, compiled or not (what the Python code runs)."""
        return _model.raw_scores_numpy(
            X, self._feat, self._thr, self._child, self._val, self._roots, self.baseline, self._steps
        )

    def to_json(self) -> JsonObject:
        return {
            "baseline": self.baseline,
            "depth": self.depth,
            "roots": self.roots.tolist(),
            "feature": self.feature.tolist(),
            "threshold": [None if not np.isfinite(t) else float(t) for t in self.threshold],
            "missing_left": self.missing_left.astype(int).tolist(),
            "left": self.left.tolist(),
            "right": self.right.tolist(),
            "value": self.value.tolist(),
        }

    @classmethod
    def from_json(cls, data: JsonObject) -> TreeEnsemble:
        threshold = np.array([np.inf if t is None else t for t in data["threshold"]], float)
        n = len(threshold)
        arrays = [data[k] for k in ("feature", "missing_left", "left", "right", "value")]
        if any(len(a) != n for a in arrays):
            raise ValueError("tree arrays differ in length")
        for key in ("left", "right", "roots"):
            values = np.asarray(data[key], np.int64)
            if len(values) and (values.min() < 0 or values.max() >= n):
                raise ValueError(f"tree '{key}' index out of range")
        if int(data["depth"]) < 0 or int(data["depth"]) > 64:
            raise ValueError("tree depth out of range")
        return cls(
            feature=np.asarray(data["feature"], np.int64),
            threshold=threshold,
            missing_left=np.asarray(data["missing_left"], bool),
            left=np.asarray(data["left"], np.int64),
            right=np.asarray(data["right"], np.int64),
            value=np.asarray(data["value"], float),
            roots=np.asarray(data["roots"], np.int64),
            baseline=float(data["baseline"]),
            depth=int(data["depth"]),
        )


@dataclass
class LinearPart:
    """A logistic model blended with the trees: p = (1 - weight) p_trees + weight p_linear."""

    coef: np.ndarray  # one weight per feature, on the raw features (any scaling folded in)
    intercept: float
    weight: float  # 0..1

    def to_json(self) -> JsonObject:
        return {"coef": self.coef.tolist(), "intercept": self.intercept, "weight": self.weight}

    @classmethod
    def from_json(cls, data: JsonObject, n_features: int) -> LinearPart:
        coef = np.asarray(data["coef"], float)
        intercept, weight = float(data["intercept"]), float(data["weight"])
        if coef.shape != (n_features,):
            raise ValueError(f"linear part has {coef.size} weights for {n_features} features")
        if not (np.isfinite(coef).all() and np.isfinite(intercept) and 0.0 <= weight <= 1.0):
            raise ValueError("linear part holds a non-finite number or a weight outside 0..1")
        return cls(coef, intercept, weight)


#: The sequence models a second stage may hold, by the `kind` its file gives.
SEQUENCE_KINDS: dict[str, type[SequencePart] | type[RecurrentPart]] = {CONV: SequencePart, GRU: RecurrentPart}


@dataclass
class StackPart:
    """The second stage (stacking, core/scoring/context.py): a tree ensemble over some of the
    first stage's columns (`columns`, indices into its feature row) followed by the block's
    context features (`context`, names of context.CONTEXT_FEATURES, in that order). With a
    `sequence` model (sequence.py or recurrent.py: it reads the same columns, the first stage's
    logit and the context), its probability is the trees' last input; without `trees`, it is the output."""

    columns: list[int]
    context: list[str]
    trees: TreeEnsemble | None
    sequence: SequencePart | RecurrentPart | None = None

    @cached_property
    def own_columns(self) -> slice | list[int]:
        """`columns` as an index into the first stage's rows: a slice when they are its first
        columns in order (a copy of a block of memory, not a gather). Worked out once."""
        if self.columns == list(range(len(self.columns))):
            return slice(0, len(self.columns))
        return self.columns

    def to_json(self) -> JsonObject:
        data: JsonObject = {"columns": list(self.columns), "context": list(self.context)}
        if self.trees is not None:
            data["trees"] = self.trees.to_json()
        if self.sequence is not None:
            data["sequence"] = self.sequence.to_json()
        return data

    @classmethod
    def from_json(cls, data: JsonObject, n_features: int) -> StackPart:
        columns = [int(c) for c in data["columns"]]
        context = list(data["context"])
        if any(not 0 <= c < n_features for c in columns):
            raise ValueError("second stage reads a column the first stage does not have")
        if context != list(CONTEXT_FEATURES[: len(context)]):
            raise ValueError(f"second stage's context features {context} are not this version's")
        sequence = None
        if "sequence" in data:
            kind = data["sequence"].get("kind", CONV)  # files before the GRU name none
            if kind not in SEQUENCE_KINDS:
                raise ValueError(f"second stage's sequence model is of an unknown kind {kind!r}")
            sequence = SEQUENCE_KINDS[kind].from_json(data["sequence"], len(columns) + 1 + len(context))
        trees = TreeEnsemble.from_json(data["trees"]) if "trees" in data else None
        if trees is None and sequence is None:
            raise ValueError("second stage has neither trees nor a sequence model")
        n_inputs = len(columns) + len(context) + (sequence is not None)
        if trees is not None and max(trees.feature.tolist(), default=-1) >= n_inputs:
            raise ValueError("a second-stage tree uses a feature the model does not name")
        return cls(columns, context, trees, sequence)


def sequence_logit(proba: np.ndarray) -> np.ndarray:
    """The first stage's probability as the sequence model reads it: a logit, kept finite."""
    p = np.clip(proba, 1e-6, 1 - 1e-6)
    logit: np.ndarray = np.log(p / (1 - p))
    return logit


def _sigmoid(raw: np.ndarray) -> np.ndarray:
    proba: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(raw, -30, 30)))
    return proba


@dataclass
class Model:
    feature_names: list[str]
    vocabulary: list[str]  # id/class tokens, in feature order after the dense ones
    trees: TreeEnsemble
    decode: JsonObject = field(default_factory=dict)  # decoding parameters (threshold, transitions...)
    meta: JsonObject = field(default_factory=dict)  # provenance: datasets, command, sklearn version...
    linear: LinearPart | None = None
    stack: StackPart | None = None

    @property
    def token_index(self) -> dict[str, int]:
        cached: dict[str, int] | None = getattr(self, "_token_index", None)
        if cached is None:
            cached = self._token_index = {t: i for i, t in enumerate(self.vocabulary)}
        return cached

    def predict_proba(self, X: np.ndarray, page: Page | None = None) -> np.ndarray:
        """Probability that each block (row) is main content: the first stage's, then, when the
        model has a second stage and `page` (the blocks' page) is given, the second stage's."""
        if X.shape[1] != len(self.feature_names):
            raise ModelError(f"model expects {len(self.feature_names)} features, got {X.shape[1]}")
        proba = _sigmoid(self.trees.raw_scores(X))
        if self.linear is not None:
            w = self.linear.weight
            proba = (1.0 - w) * proba + w * _sigmoid(X @ self.linear.coef + self.linear.intercept)
        if self.stack is not None and page is not None and len(proba):
            proba = self.second_stage(X, proba, page_structure(page))
        return proba

    def second_stage(self, X: np.ndarray, proba: np.ndarray, structure: Structure) -> np.ndarray:
        """The second stage's probabilities from the first stage's row `X` and `proba`."""
        stack = self.stack
        assert stack is not None
        if stack.sequence is None:
            assert stack.trees is not None
            # the trees' row: the first stage's columns, then the context (all of it: the trees
            # read a model's first len(stack.context) columns of it, by position)
            k = len(stack.columns)
            rows = np.empty((len(proba), k + len(CONTEXT_FEATURES)))
            rows[:, :k] = X[:, stack.own_columns]
            context_features(proba, structure, out=rows[:, k:])
            return _sigmoid(stack.trees.raw_scores(rows))
        context = context_features(proba, structure)[:, : len(stack.context)]
        own = X[:, stack.columns]
        first_logit = sequence_logit(proba)
        seq = _sigmoid(stack.sequence.logits(np.hstack([own, first_logit[:, None], context]), first_logit))
        if stack.trees is None:
            return seq
        return _sigmoid(stack.trees.raw_scores(np.hstack([own, context, seq[:, None]])))

    def to_json(self) -> JsonObject:
        version = FORMAT_VERSION if self.linear is None else LINEAR_FORMAT_VERSION
        if self.stack is not None:
            version = STACK_FORMAT_VERSION
        data: JsonObject = {
            "format": FORMAT,
            "format_version": version,
            "feature_names": self.feature_names,
            "vocabulary": self.vocabulary,
            "decode": self.decode,
            "meta": self.meta,
            "trees": self.trees.to_json(),
        }
        if self.linear is not None:
            data["linear"] = self.linear.to_json()
        if self.stack is not None:
            data["stack"] = self.stack.to_json()
        return data

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(json.dumps(self.to_json(), separators=(",", ":")) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: JsonObject) -> Model:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ModelError("not a scrapy-boilerplate model file")
        version = data.get("format_version")
        if version not in (FORMAT_VERSION, LINEAR_FORMAT_VERSION, STACK_FORMAT_VERSION):
            raise ModelError(
                f"model format version {version} is not supported "
                f"(this version reads {FORMAT_VERSION}, {LINEAR_FORMAT_VERSION} and {STACK_FORMAT_VERSION})"
            )
        if (version == STACK_FORMAT_VERSION) != ("stack" in data):
            raise ModelError(
                f"model format version {version} {'needs' if version == STACK_FORMAT_VERSION else 'has no'} "
                "a second stage"
            )
        if version != STACK_FORMAT_VERSION and (version == LINEAR_FORMAT_VERSION) != ("linear" in data):
            raise ModelError(
                f"model format version {version} "
                f"{'needs' if version == LINEAR_FORMAT_VERSION else 'has no'} a linear part"
            )
        try:
            if max(data["trees"]["feature"], default=-1) >= len(data["feature_names"]):
                raise ValueError("a tree uses a feature the model does not name")
            return cls(
                feature_names=list(data["feature_names"]),
                vocabulary=list(data["vocabulary"]),
                trees=TreeEnsemble.from_json(data["trees"]),
                decode=dict(data.get("decode") or {}),
                meta=dict(data.get("meta") or {}),
                linear=(LinearPart.from_json(data["linear"], len(data["feature_names"])) if "linear" in data else None),
                stack=(StackPart.from_json(data["stack"], len(data["feature_names"])) if "stack" in data else None),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ModelError(f"model file is damaged: {exc}") from exc


def load_model(path: str | os.PathLike[str] | None = None) -> Model:
    """Load a model from a JSON path, or the shipped default model when path is None.

    Pickle files are refused: a model is data, never code.
    """
    if path is None:
        text = resources.files("scrapy_boilerplate").joinpath("models/default.json").read_text("utf-8")
        source = "the default model"
    else:
        path = Path(path)
        if path.suffix in (".pkl", ".pickle", ".joblib"):
            raise ModelError(f"{path}: pickled models are not loaded; use a JSON model file")
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError as exc:
            raise ModelError(f"{path} is not a JSON model file: {exc}") from exc
        source = str(path)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ModelError(f"{source} is not valid JSON: {exc}") from exc
    return Model.from_json(data)
