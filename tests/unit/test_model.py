"""The model file format, loading and numpy inference (core/scoring/model.py)."""

import json
import os
import pickle

import numpy as np
import pytest
from conftest import FIXTURE_NAMES, FIXTURES, fixture_bytes
from regenerate_expected import EXPECTED, model_sha256

from scrapy_boilerplate import Extractor, Model, ModelError, load_model
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import to_element
from scrapy_boilerplate.core.scoring.features import dense_columns, dense_feature_names, feature_matrix
from scrapy_boilerplate.training.train import export_trees, to_model


@pytest.fixture(scope="module")
def model() -> Model:
    return load_model()


def fixture_features(model: Model, name: str) -> np.ndarray:
    page = build_page(to_element(fixture_bytes(name)))
    return feature_matrix(page, model.token_index, dense_columns(model.feature_names))


# -- the shipped model ------------------------------------------------------------------------


def test_shipped_model_loads_with_the_current_feature_set(model):
    # its dense columns are the first of today's (columns added since are appended)
    dense = dense_feature_names()
    n_dense = len(model.feature_names) - len(model.vocabulary)
    assert n_dense <= len(dense)
    assert model.feature_names[:n_dense] == dense[:n_dense]
    assert model.feature_names[n_dense:] == [f"tok={t}" for t in model.vocabulary]
    assert len(model.trees.roots) > 0
    assert model.meta.get("sklearn_version")


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_shipped_model_gives_probabilities(model, name):
    X = fixture_features(model, name)
    proba = model.predict_proba(X)
    assert proba.shape == (X.shape[0],)
    assert np.all((proba > 0) & (proba < 1))
    assert proba.max() > 0.9 and proba.min() < 0.1  # it tells content from boilerplate


def test_wrong_number_of_features_is_refused(model):
    with pytest.raises(ModelError):
        model.predict_proba(np.zeros((3, len(model.feature_names) - 1)))


def test_empty_matrix_gives_no_probabilities(model):
    assert model.predict_proba(np.zeros((0, len(model.feature_names)))).shape == (0,)


# -- JSON round trip --------------------------------------------------------------------------


def test_json_round_trip_gives_identical_predictions(model):
    again = Model.from_json(json.loads(json.dumps(model.to_json())))
    assert again.feature_names == model.feature_names
    assert again.vocabulary == model.vocabulary
    assert again.decode == model.decode
    for name in FIXTURE_NAMES:
        X = fixture_features(model, name)
        np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


def test_save_and_load(model, tmp_path):
    path = tmp_path / "model.json"
    model.save(path)
    again = load_model(path)
    X = fixture_features(model, "article_de")
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    assert Extractor(model=str(path)).extract(fixture_bytes("article_de")).text


def test_model_with_another_feature_set_is_refused(model):
    data = model.to_json()
    data["feature_names"] = ["something_else"] + data["feature_names"][1:]
    with pytest.raises(ModelError, match="feature set"):
        Extractor(model=Model.from_json(data))


# -- refusing pickles and damaged files -------------------------------------------------------


class MakesMarker:
    """Unpickling this object creates the directory `path`."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (os.mkdir, (self.path,))


@pytest.mark.parametrize("filename", ["model.pkl", "model.pickle", "model.joblib"])
def test_pickled_model_is_refused_and_never_unpickled(tmp_path, filename):
    marker = tmp_path / "unpickled"
    path = tmp_path / filename
    path.write_bytes(pickle.dumps(MakesMarker(marker)))
    with pytest.raises(ModelError):
        load_model(path)
    with pytest.raises(ModelError):
        Extractor(model=str(path))
    assert not marker.exists()


def test_pickle_bytes_under_a_json_name_raise_model_error(tmp_path):
    marker = tmp_path / "unpickled"
    path = tmp_path / "model.json"
    path.write_bytes(pickle.dumps(MakesMarker(marker)))
    with pytest.raises(ModelError):
        load_model(path)
    assert not marker.exists()


VALID_TREES = {
    "baseline": 0.0,
    "depth": 1,
    "roots": [0],
    "feature": [0, -1, -1],
    "threshold": [0.5, None, None],
    "missing_left": [1, 0, 0],
    "left": [1, 0, 0],
    "right": [2, 0, 0],
    "value": [0.0, -1.0, 1.0],
}


def model_json(**changes) -> dict:
    data = {
        "format": "scrapy-boilerplate-model",
        "format_version": 1,
        "feature_names": ["x"],
        "vocabulary": [],
        "decode": {},
        "meta": {},
        "trees": dict(VALID_TREES),
    }
    data.update(changes)
    return data


def test_a_model_naming_some_dense_columns_gets_those():
    # A model trained before columns were appended names fewer of them (in any case a
    # subset, its tokens after them): the Extractor computes the ones it names, in its order.
    trees = {**VALID_TREES, "feature": [1, -1, -1], "threshold": [0.3, None, None]}  # splits on "ld"
    small = Model.from_json(model_json(feature_names=["lwords", "ld", "tok=post"], vocabulary=["post"], trees=trees))
    extractor = Extractor(model=small)
    page = build_page(to_element(fixture_bytes("article_de")))
    ld = np.asarray(page.link_chars, float) / np.maximum(np.asarray(page.chars, float), 1)
    expected = 1 / (1 + np.exp(np.where(ld <= 0.3, 1.0, -1.0)))
    np.testing.assert_allclose(extractor.block_probabilities(page), expected)
    assert (ld > 0.3).any() and (ld <= 0.3).any()


VALID_LINEAR = {"coef": [2.0], "intercept": -1.0, "weight": 0.25}


def test_linear_part_is_blended_with_the_trees_and_survives_a_round_trip(tmp_path):
    path = tmp_path / "blend.json"
    path.write_text(json.dumps(model_json(format_version=2, linear=VALID_LINEAR)))
    blend = load_model(path)
    x = np.array([0.0, 0.5, 0.7])
    proba = blend.predict_proba(x[:, None])
    trees = 1 / (1 + np.exp([1.0, 1.0, -1.0]))
    linear = 1 / (1 + np.exp(-(2.0 * x - 1.0)))
    np.testing.assert_allclose(proba, 0.75 * trees + 0.25 * linear)
    again = Model.from_json(json.loads(json.dumps(blend.to_json())))
    assert again.to_json()["format_version"] == 2
    np.testing.assert_array_equal(again.predict_proba(x[:, None]), proba)


#: A second stage over column 0 and the first stage's probability ("p"): its tree splits on p.
VALID_STACK = {
    "columns": [0],
    "context": ["p"],
    "trees": {**VALID_TREES, "feature": [1, -1, -1], "value": [0.0, -2.0, 2.0]},
}


def test_second_stage_reads_the_first_stages_probability_and_survives_a_round_trip(tmp_path):
    path = tmp_path / "stacked.json"
    path.write_text(json.dumps(model_json(format_version=3, stack=VALID_STACK)))
    stacked = load_model(path)
    page = build_page(to_element(b"<html><body><p>one</p><p>two two</p><p>three three three</p></body></html>"))
    x = np.array([[0.0], [0.7], [0.2]])
    first = 1 / (1 + np.exp([1.0, -1.0, 1.0]))  # p = .27, .73, .27
    np.testing.assert_allclose(stacked.predict_proba(x), first)  # no page: the first stage alone
    second = stacked.predict_proba(x, page)
    expected = 1 / (1 + np.exp(-np.where(first > 0.5, 2.0, -2.0)))  # the second tree splits p at .5
    np.testing.assert_allclose(second, expected)
    again = Model.from_json(json.loads(json.dumps(stacked.to_json())))
    assert again.to_json()["format_version"] == 3
    np.testing.assert_array_equal(again.predict_proba(x, page), second)


def test_minimal_model_file_works(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(model_json()))
    tiny = load_model(path)
    proba = tiny.predict_proba(np.array([[0.0], [0.5], [0.7]]))
    expected = 1 / (1 + np.exp([1.0, 1.0, -1.0]))  # x <= 0.5 goes left (-1), else right (+1)
    np.testing.assert_allclose(proba, expected)


@pytest.mark.parametrize(
    "content",
    [
        "",
        "not json at all",
        "[1, 2, 3]",
        json.dumps({"format": "some-other-tool", "trees": []}),
        json.dumps(model_json(format_version=4)),
        json.dumps(model_json(format_version=3)),
        json.dumps(model_json(stack=VALID_STACK)),
        json.dumps(model_json(format_version=3, stack={**VALID_STACK, "columns": [1]})),
        json.dumps(model_json(format_version=3, stack={**VALID_STACK, "context": ["not-a-context-feature"]})),
        json.dumps(
            model_json(format_version=3, stack={**VALID_STACK, "trees": {**VALID_TREES, "feature": [2, -1, -1]}})
        ),
        json.dumps({k: v for k, v in model_json().items() if k != "trees"}),
        json.dumps(model_json(trees={**VALID_TREES, "threshold": "abc"})),
        json.dumps(model_json(feature_names=5)),
        json.dumps(model_json()).replace('"format"', '"formt"'),
        json.dumps(model_json(format_version=2)),
        json.dumps(model_json(linear=VALID_LINEAR)),
        json.dumps(model_json(format_version=2, linear={**VALID_LINEAR, "coef": [1.0, 2.0]})),
        json.dumps(model_json(format_version=2, linear={**VALID_LINEAR, "weight": 1.5})),
        json.dumps(model_json(format_version=2, linear={**VALID_LINEAR, "intercept": float("nan")})),
        json.dumps(model_json(format_version=2, linear={"coef": [1.0]})),
    ],
    ids=[
        "empty",
        "text",
        "list",
        "other-format",
        "future-version",
        "v3-without-stack",
        "v1-with-stack",
        "stack-column-out-of-range",
        "stack-unknown-context",
        "stack-tree-feature-out-of-range",
        "no-trees",
        "bad-threshold",
        "bad-feature-names",
        "renamed-key",
        "v2-without-linear",
        "v1-with-linear",
        "linear-wrong-length",
        "linear-weight-above-1",
        "linear-nan",
        "linear-incomplete",
    ],
)
def test_damaged_or_foreign_json_raises_model_error(tmp_path, content):
    path = tmp_path / "model.json"
    path.write_text(content)
    with pytest.raises(ModelError):
        load_model(path)


@pytest.mark.parametrize(
    "trees",
    [
        {**VALID_TREES, "roots": [7]},  # root beyond the node arrays
        {**VALID_TREES, "feature": [0, -1]},  # arrays of different lengths
    ],
    ids=["root-out-of-range", "short-array"],
)
def test_inconsistent_tree_arrays_raise_model_error(tmp_path, trees):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model_json(trees=trees)))
    with pytest.raises(ModelError):
        load_model(path)


def test_missing_model_file_is_an_os_error(tmp_path):
    with pytest.raises(OSError):
        load_model(tmp_path / "nothing-here.json")


# -- numpy evaluation equals scikit-learn -----------------------------------------------------


def test_tree_evaluation_equals_scikit_learn():
    from sklearn.ensemble import HistGradientBoostingClassifier

    # As wide as the dense features, so to_model() accepts it; the label uses a few columns.
    n_features = len(dense_feature_names())
    rng = np.random.default_rng(7)
    X = rng.normal(size=(600, n_features))
    X[:, 3] = rng.integers(0, 4, size=600)  # a few discrete values, like flags and counts
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * X[:, 3] + rng.normal(scale=0.5, size=600)) > 0.7).astype(int)
    clf = HistGradientBoostingClassifier(
        max_iter=25, max_depth=4, max_leaf_nodes=12, early_stopping=False, random_state=0
    )
    clf.fit(X, y)
    trees = export_trees(clf)
    # Rows put exactly on split thresholds check the "x <= threshold goes left" rule.
    is_split = trees.feature >= 0
    split_features, split_thresholds = trees.feature[is_split], trees.threshold[is_split]
    on_threshold = X[: len(split_features)].copy()
    on_threshold[np.arange(len(split_features)), split_features] = split_thresholds
    X_test = np.vstack([rng.normal(size=(400, n_features)), on_threshold, X[:100]])

    model = Model(feature_names=[f"f{i}" for i in range(n_features)], vocabulary=[], trees=trees)
    np.testing.assert_allclose(model.predict_proba(X_test), clf.predict_proba(X_test)[:, 1], atol=1e-9, rtol=0)

    # to_model() runs the same check itself; its model survives a JSON round trip.
    exported = to_model(clf, [], X, {"threshold": 0.5}, {"test": True})
    assert exported.feature_names == dense_feature_names()
    again = Model.from_json(json.loads(json.dumps(exported.to_json())))
    np.testing.assert_allclose(again.predict_proba(X_test), clf.predict_proba(X_test)[:, 1], atol=1e-9, rtol=0)


# -- stored predictions -----------------------------------------------------------------------


def test_stored_predictions():
    """The shipped model gives the same block probabilities as when the JSON was written.

    If this fails after retraining models/default.json, run `python tests/support/regenerate_expected.py`.
    """
    stored = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert stored["model_sha256"] == model_sha256(), (
        "models/default.json changed since tests/fixtures/expected_predictions.json was written: "
        "run python tests/support/regenerate_expected.py"
    )
    assert sorted(stored["pages"]) == sorted(FIXTURE_NAMES)
    extractor = Extractor()
    for name in FIXTURE_NAMES:
        expected = stored["pages"][name]
        page = build_page(to_element(fixture_bytes(name)))
        assert [text[:60] for text in page.texts] == expected["texts"], f"{name}: the blocks changed"
        np.testing.assert_allclose(
            extractor.block_probabilities(page),
            expected["probabilities"],
            atol=1e-6,
            rtol=0,
            err_msg=f"{name}: block probabilities changed",
        )
    assert (FIXTURES / "README.md").is_file()


def test_the_decoder_reads_every_parameter_of_the_model_file(model):
    from scrapy_boilerplate.core.scoring.decode import DEFAULT_DECODER, DecoderParams

    params = DecoderParams.of(model.decode)
    assert model.decode and set(model.decode) <= set(DecoderParams.__dataclass_fields__)
    assert all(getattr(params, name) == value for name, value in model.decode.items())
    # Another model's keys (the overview model's `cutoff`) are not the decoder's.
    assert DecoderParams.of({"cutoff": 0.7}) == DEFAULT_DECODER
    assert DecoderParams.of({"threshold": 0.3, "cutoff": 0.7}).threshold == 0.3
