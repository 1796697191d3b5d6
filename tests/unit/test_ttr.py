"""Text-to-tag ratios (core/scoring/ttr.py): smoothing, CETR's derivative, TextSweeper's region."""

import numpy as np
import pytest
from conftest import fixture_bytes

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import to_element
from scrapy_boilerplate.core.scoring import ttr


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("n", [1, 2, 3, 7, 50])
def test_smoothing_preserves_a_constant_signal(n, sigma):
    values = np.full(n, 4.2)
    smoothed = ttr.smooth(values, sigma)
    assert smoothed.shape == (n,)
    np.testing.assert_allclose(smoothed, values)


def test_smoothing_of_nothing():
    assert ttr.smooth(np.zeros(0), 1.0).shape == (0,)


def test_smoothing_spreads_a_spike_and_keeps_its_mass_inside():
    values = np.zeros(21)
    values[10] = 1.0
    smoothed = ttr.smooth(values, 1.0)
    assert smoothed.argmax() == 10
    assert smoothed[10] < 1.0
    assert smoothed[9] == pytest.approx(smoothed[11]) and smoothed[9] > 0
    assert smoothed.sum() == pytest.approx(1.0)


def test_gaussian_kernel_is_normalised_and_symmetric():
    kernel = ttr.gaussian_kernel(2.0)
    assert kernel.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(kernel, kernel[::-1])
    assert len(kernel) == 2 * 6 + 1


def test_forward_difference_on_a_step():
    values = np.array([0, 0, 0, 0, 1, 1, 1, 1], float)
    diff = ttr.forward_difference(values, alpha=3)
    # |mean of the next three - current|: rises towards the step, zero on flat parts and at the end.
    np.testing.assert_allclose(diff, [0, 1 / 3, 2 / 3, 1, 0, 0, 0, 0])


def test_forward_difference_short_inputs():
    assert ttr.forward_difference(np.array([5.0])).tolist() == [0.0]
    assert ttr.forward_difference(np.array([1.0, 3.0]), alpha=3).tolist() == [2.0, 0.0]


def test_block_ttr_shapes_and_values():
    chars = np.array([100, 10, 300, 0], float)
    tags = np.array([4, 10, 0, 2], float)
    raw, smoothed, derivative = ttr.block_ttr(chars, tags)
    assert raw.shape == smoothed.shape == derivative.shape == (4,)
    np.testing.assert_allclose(raw, [25, 1, 300, 0])  # tag count 0 counts as 1
    assert np.all(derivative >= 0)


def test_node_ratios_use_net_text():
    ratios = ttr.node_ratios([100, 100], [0, 100], [3, 3], [2, 2])
    np.testing.assert_allclose(ratios, [20.0, 0.0])


def test_best_region_of_a_fixture_holds_the_article():
    page = build_page(to_element(fixture_bytes("article_en")))
    region, net = ttr.best_region(page)
    assert region >= 0
    inside = page.texts[page.node_first[region] : page.node_last[region]]
    for start in (
        "When the old parking lot",
        "The Fenwick garden is one",
        "Gardeners say the benefits",
        "Not every project has been",
        "Water is the other recurring",
        "Urban planners who study",
    ):
        assert any(t.startswith(start) for t in inside), start
    # The region is the article's container, not the whole page.
    assert not any(t.startswith("Copyright 2024") for t in inside)
    assert not any(t == "Home" for t in inside)
    assert net > 1500


def test_best_region_of_an_empty_page():
    assert ttr.best_region(build_page(None)) == (-1, 0)
    page = build_page(to_element("<html><body><ul><li><a href='/a'>Only links here</a></li></ul></body></html>"))
    assert ttr.best_region(page) == (-1, 0)
