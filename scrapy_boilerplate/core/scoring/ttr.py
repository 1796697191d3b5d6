"""Text-to-tag ratios: CETR per block and TextSweeper's node ratio.

CETR (Weninger et al. 2010) measures, per line of source, characters over
tags; smoothing with a Gaussian removes single-line spikes, and the absolute
forward difference marks the edges of content regions. We compute it per
block instead of per source line (blocks are what we classify, and minified
pages have no useful lines).

TextSweeper (Lang et al.) uses *net* text (text minus link text) over the
tag count plus the node level, and keeps every node within a tolerance of
the best ratio; the net text length of that region tells overview pages
(lists of teasers: mostly link text) from articles.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from .. import speedups

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..document.page import Page
    from . import _ttr

if not TYPE_CHECKING:
    _ttr = speedups.kernels(__name__)  # compiled, or the same source run as Python


@cache
def gaussian_kernel(sigma: float) -> np.ndarray:
    """The normalised kernel (cached: a handful of sigmas, used for every page; read-only)."""
    radius = max(1, int(round(3 * sigma)))  # noqa: RUF046 - a numpy float's round() may be a float
    x = np.arange(-radius, radius + 1, dtype=float)
    k: np.ndarray = np.exp(-(x * x) / (2 * sigma * sigma))
    k = k / k.sum()
    k.flags.writeable = False
    return k


def smooth(values: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian smoothing in document order; edges are normalised, not zero-padded."""
    n = len(values)
    if n == 0:
        return np.zeros(0)
    k = gaussian_kernel(sigma)
    num = np.convolve(values, k, mode="same")
    den = np.convolve(np.ones(n), k, mode="same")
    if len(k) > n:  # np.convolve "same" returns max(n, len(k)) items
        off = (len(k) - n) // 2
        num, den = num[off : off + n], den[off : off + n]
    return num / den


def forward_difference(values: np.ndarray, alpha: int = 3) -> np.ndarray:
    """CETR's G_k = |mean(values[k+1..k+alpha]) - values[k]| (zero at the end)."""
    n = len(values)
    out = np.zeros(n)
    if n < 2:
        return out
    csum = np.concatenate(([0.0], np.cumsum(values)))
    idx = np.arange(n)
    hi = np.minimum(idx + alpha, n - 1)
    count = hi - idx
    has = count > 0
    means = (csum[hi + 1] - csum[idx + 1])[has] / count[has]
    out[has] = np.abs(means - values[has])
    return out


def block_ttr(
    chars: np.ndarray, tag_counts: np.ndarray, sigma: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-block text-to-tag ratio, its smoothed form and CETR's derivative."""
    ttr = chars / np.maximum(tag_counts, 1)
    smoothed = smooth(ttr, sigma)
    return ttr, smoothed, smooth(forward_difference(smoothed), sigma)


def node_ratios(
    node_chars: ArrayLike, node_link_chars: ArrayLike, node_tag_counts: ArrayLike, node_depths: ArrayLike
) -> np.ndarray:
    """TextSweeper's ratio per node: net text length / (tag count + node level)."""
    net = np.asarray(node_chars, float) - np.asarray(node_link_chars, float)
    ratios: np.ndarray = np.maximum(net, 0) / (np.asarray(node_tag_counts, float) + np.asarray(node_depths, float))
    return ratios


def best_region(page: Page, tolerance: float = 0.9) -> tuple[int, int]:
    """TextSweeper's region: the common ancestor of all nodes within `tolerance` of the best ratio.

    Returns (node index or -1, net text length of that node's blocks).
    Only nodes with a little net text take part, so a tiny lone paragraph
    (very high ratio, one tag) cannot win on its own.
    """
    return _ttr._best_region(
        page.node_chars,
        page.node_link_chars,
        page.node_tag_counts,
        page.node_depths,
        page.node_parents,
        page.chars,
        page.link_chars,
        tolerance,
    )
