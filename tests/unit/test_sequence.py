"""The sequence model over a page's blocks (core/scoring/sequence.py) and its numpy training
loop (training/sequence.py)."""

import json

import numpy as np
import pytest
from test_model import VALID_TREES, model_json

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import to_element
from scrapy_boilerplate.core.scoring.context import CONTEXT_FEATURES
from scrapy_boilerplate.core.scoring.model import Model, ModelError, sequence_logit
from scrapy_boilerplate.core.scoring.sequence import conv, shift
from scrapy_boilerplate.training import sequence as training


def pages(seed=0, sizes=(7, 12, 3, 1, 20)):
    """Pages whose label is whether the block's column 0 plus its two neighbours' is positive:
    context a block-by-block model cannot read."""
    rng = np.random.default_rng(seed)
    out = []
    for n in sizes:
        z = rng.normal(size=(n, 4))
        padded = np.concatenate(([0.0], z[:, 0], [0.0]))
        y = ((padded[:-2] + padded[1:-1] + padded[2:]) > 0).astype(float)
        out.append((z, np.zeros(n), y, np.full(n, 1.0 / n)))
    return out


def test_shift_and_conv_read_the_neighbours_and_zeros_past_the_ends():
    h = np.arange(5.0)[:, None]
    assert shift(h, 1)[:, 0].tolist() == [1, 2, 3, 4, 0]
    assert shift(h, -2)[:, 0].tolist() == [0, 0, 0, 1, 2]
    w = np.array([1.0, 10.0, 100.0]).reshape(3, 1, 1)  # previous, itself, next
    assert conv(h, w)[:, 0].tolist() == [100, 1 + 10 * 1 + 100 * 2 - 1, 1 + 20 + 300, 2 + 30 + 400, 3 + 40]


def test_training_learns_what_the_neighbours_say_and_is_reproducible():
    train = pages(0, sizes=(40,) * 60)
    args = [[p[k] for p in train] for k in range(4)]
    part = training.fit(*args, seed=3, log=lambda _: None, epochs=30)
    again = training.fit(*args, seed=3, log=lambda _: None, epochs=30)
    assert json.dumps(part.to_json()) == json.dumps(again.to_json())
    test = pages(1, sizes=(40,) * 20)
    correct = [((part.logits(z, lp) > 0) == (y > 0)).mean() for z, lp, y, _ in test]
    assert np.mean(correct) > 0.9  # column 0 alone (a block by itself) gives about 0.75


def test_a_batch_of_pages_end_to_end_is_scored_as_each_page_alone():
    # The training loop's padded batch must not let a page's convolutions read its neighbour page.
    data = pages(2)
    part = training.fit(*[[p[k] for p in data] for k in range(4)], seed=1, log=lambda _: None, epochs=2)
    part.b1 = part.b1 + 0.5  # padding rows would show if the mask let them through
    x, (lp,), pid, starts, sizes = training._batch(
        [(z - part.mean) / part.scale for z, *_ in data], [[p[1] for p in data]], 4
    )
    got = training._forward(part, x, lp, pid, starts, sizes)
    for k, (z, first, _, _) in enumerate(data):
        np.testing.assert_allclose(got[starts[k] : starts[k] + sizes[k]], part.logits(z, first), atol=1e-12)


def test_the_gradient_is_the_losss_derivative():
    data = pages(3, sizes=(6, 9, 2))
    args = [[p[k] for p in data] for k in range(4)]
    part = training.fit(*args, seed=2, log=lambda _: None, epochs=1)
    assert_gradients(part, data, ("w0", "b0", "w1", "b1", "w2", "b2", "u", "w3"), training.gradients(part, *args))


def assert_gradients(part, data, names, grads, rng=None):
    """Each of three entries of each array `names` of `part`: its gradient in `grads` is the
    finite difference of the loss over `data` computed by `part.logits`."""

    def loss():
        total = sum((w * (np.logaddexp(0, part.logits(z, lp)) - y * part.logits(z, lp))).sum() for z, lp, y, w in data)
        return total / sum(w.sum() for *_, w in data)

    rng = rng or np.random.default_rng(0)
    for name in names:
        array = getattr(part, name)
        for _ in range(3):
            i = tuple(int(rng.integers(0, s)) for s in array.shape)
            old = array[i]
            array[i] = old + 1e-6
            up = loss()
            array[i] = old - 1e-6
            down = loss()
            array[i] = old
            assert (up - down) / 2e-6 == pytest.approx(grads[name][i], abs=1e-7)


def sequence_json(n_inputs):
    part = training.fit(
        [np.random.default_rng(0).normal(size=(5, n_inputs))],
        [np.zeros(5)],
        [np.array([1, 0, 1, 0, 1])],
        [np.full(5, 0.2)],
        seed=0,
        log=lambda _: None,
        epochs=1,
    )
    return part.to_json()


def test_a_model_with_the_sequence_model_alone_as_its_second_stage_round_trips(tmp_path):
    n_inputs = 1 + 1 + len(CONTEXT_FEATURES)  # column 0, the first stage's logit, the context
    stack = {"columns": [0], "context": list(CONTEXT_FEATURES), "sequence": sequence_json(n_inputs)}
    model = Model.from_json(model_json(format_version=3, stack=stack))
    page = build_page(to_element(b"<html><body><p>one</p><p>two two</p><p>three three three</p></body></html>"))
    x = np.array([[0.0], [0.7], [0.2]])
    second = model.predict_proba(x, page)
    assert second.shape == (3,) and np.isfinite(second).all()
    assert not np.allclose(second, model.predict_proba(x))
    path = tmp_path / "seq.json"
    model.save(path)
    again = Model.from_json(json.loads(path.read_text()))
    np.testing.assert_array_equal(again.predict_proba(x, page), second)


@pytest.mark.parametrize("change", ["no-trees-no-sequence", "wrong-width", "nan", "short-mean"])
def test_a_damaged_sequence_model_is_refused(change):
    n_inputs = 1 + 1 + 1
    seq = sequence_json(n_inputs)
    stack = {"columns": [0], "context": ["p"], "sequence": seq}
    if change == "no-trees-no-sequence":
        del stack["sequence"]
    elif change == "wrong-width":
        seq["w1"] = seq["w1"][:-1]
    elif change == "nan":
        seq["w3"][0] = float("nan")
    else:
        seq["mean"] = seq["mean"][:-1]
    with pytest.raises(ModelError):
        Model.from_json(model_json(format_version=3, stack=stack))


def test_trees_after_the_sequence_model_read_its_probability_last():
    n_inputs = 1 + 1 + 1
    trees = {**VALID_TREES, "feature": [2, -1, -1], "value": [0.0, -2.0, 2.0]}  # splits on the sequence's p
    stack = {"columns": [0], "context": ["p"], "trees": trees, "sequence": sequence_json(n_inputs)}
    model = Model.from_json(model_json(format_version=3, stack=stack))
    page = build_page(to_element(b"<html><body><p>one</p><p>two two</p></body></html>"))
    x = np.array([[0.0], [0.7]])
    first = model.predict_proba(x)
    seq_p = 1 / (
        1
        + np.exp(
            -model.stack.sequence.logits(np.column_stack([x, sequence_logit(first), first]), sequence_logit(first))
        )
    )
    expected = 1 / (1 + np.exp(-np.where(seq_p > 0.5, 2.0, -2.0)))
    np.testing.assert_allclose(model.predict_proba(x, page), expected)
