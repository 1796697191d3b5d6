"""The recurrent sequence model over a page's blocks (core/scoring/recurrent.py: a bidirectional
GRU) and its numpy training loop (training/recurrent.py)."""

import json

import numpy as np
import pytest
from test_model import model_json
from test_sequence import assert_gradients, pages

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import to_element
from scrapy_boilerplate.core.scoring.context import CONTEXT_FEATURES
from scrapy_boilerplate.core.scoring.model import Model, ModelError
from scrapy_boilerplate.core.scoring.recurrent import RecurrentPart
from scrapy_boilerplate.training import recurrent as training


def far_pages(seed, sizes):
    """Pages whose label is whether the page's first block's column 0 is positive: context
    only a state carried down the page reads (a window of neighbours does not reach it)."""
    rng = np.random.default_rng(seed)
    out = []
    for n in sizes:
        z = rng.normal(size=(n, 3))
        y = np.full(n, float(z[0, 0] > 0))
        out.append((z, np.zeros(n), y, np.full(n, 1.0 / n)))
    return out


def args_of(data):
    return [[p[k] for p in data] for k in range(4)]


def test_training_learns_what_the_neighbours_say_and_is_reproducible():
    train = args_of(pages(0, sizes=(40,) * 60))
    part = training.fit(*train, seed=3, log=lambda _: None, epochs=120)
    short = [training.fit(*train, seed=3, log=lambda _: None, epochs=3) for _ in range(2)]
    assert json.dumps(short[0].to_json()) == json.dumps(short[1].to_json())
    assert json.dumps(short[0].to_json()) != json.dumps(part.to_json())  # the epochs count
    correct = [((part.logits(z, lp) > 0) == (y > 0)).mean() for z, lp, y, _ in pages(1, sizes=(40,) * 20)]
    assert np.mean(correct) > 0.9  # column 0 alone (a block by itself) gives about 0.75


def test_the_state_carries_the_top_of_the_page_to_its_bottom():
    part = training.fit(*args_of(far_pages(0, (30,) * 80)), seed=0, log=lambda _: None, epochs=100)
    test = far_pages(1, (30,) * 30)
    last = [(part.logits(z, lp)[-1] > 0) == (y[-1] > 0) for z, lp, y, _ in test]
    assert np.mean(last) > 0.85  # a guess gives 0.5


def test_pages_side_by_side_in_a_batch_are_scored_as_each_page_alone():
    # padding (shorter pages end early) must not reach the backward GRU's state
    data = pages(2)
    part = training.fit(*args_of(data), seed=1, log=lambda _: None, epochs=2)
    part.bb = part.bb + 0.5  # a state moved by padding rows would show
    got = training.batch_logits(part, [p[0] for p in data], [p[1] for p in data])
    for (z, first, _, _), logits in zip(data, got):
        np.testing.assert_allclose(logits, part.logits(z, first), atol=1e-12)


def test_the_gradient_is_the_losss_derivative():
    data = pages(3, sizes=(6, 9, 2))
    args = args_of(data)
    part = training.fit(*args, seed=2, log=lambda _: None, epochs=1)
    rng = np.random.default_rng(0)
    for name in training.NAMES[:-2]:  # nudged away from the start, where some gradients vanish
        setattr(part, name, getattr(part, name) + rng.normal(0, 0.3, getattr(part, name).shape))
    assert_gradients(part, data, training.NAMES[:-2], training.gradients(part, *args), rng)


def recurrent_json(n_inputs):
    rng = np.random.default_rng(0)
    part = training.fit(
        [rng.normal(size=(5, n_inputs))],
        [np.zeros(5)],
        [np.array([1, 0, 1, 0, 1])],
        [np.full(5, 0.2)],
        0,
        lambda _: None,
        1,
    )
    return part.to_json()


def test_a_model_with_the_gru_as_its_second_stage_round_trips(tmp_path):
    n_inputs = 1 + 1 + len(CONTEXT_FEATURES)  # column 0, the first stage's logit, the context
    stack = {"columns": [0], "context": list(CONTEXT_FEATURES), "sequence": recurrent_json(n_inputs)}
    model = Model.from_json(model_json(format_version=3, stack=stack))
    assert isinstance(model.stack.sequence, RecurrentPart)
    page = build_page(to_element(b"<html><body><p>one</p><p>two two</p><p>three three three</p></body></html>"))
    x = np.array([[0.0], [0.7], [0.2]])
    second = model.predict_proba(x, page)
    assert second.shape == (3,) and np.isfinite(second).all()
    assert not np.allclose(second, model.predict_proba(x))
    path = tmp_path / "gru.json"
    model.save(path)
    again = Model.from_json(json.loads(path.read_text()))
    np.testing.assert_array_equal(again.predict_proba(x, page), second)


@pytest.mark.parametrize("change", ["state-size", "nan", "short-mean", "zero-scale", "unknown-kind"])
def test_a_damaged_gru_is_refused(change):
    seq = recurrent_json(3)
    if change == "state-size":
        seq["ub"] = seq["ub"][:-1]
    elif change == "nan":
        seq["w3"][0] = float("nan")
    elif change == "short-mean":
        seq["mean"] = seq["mean"][:-1]
    elif change == "zero-scale":
        seq["scale"][1] = 0.0
    else:
        seq["kind"] = "lstm"
    with pytest.raises(ModelError, match="unknown kind 'lstm'" if change == "unknown-kind" else None):
        Model.from_json(model_json(format_version=3, stack={"columns": [0], "context": ["p"], "sequence": seq}))


def test_a_recipe_names_its_sequence_model_by_the_kind_the_model_file_gives():
    from scrapy_boilerplate.core.scoring.model import SEQUENCE_KINDS
    from scrapy_boilerplate.training import recipes

    assert set(SEQUENCE_KINDS) == {"conv", "gru"}
    with pytest.raises(ValueError, match="not 'lstm'"):
        recipes._sequence_models([], [], [], np.zeros(0), 0, lambda _: None, "lstm")
