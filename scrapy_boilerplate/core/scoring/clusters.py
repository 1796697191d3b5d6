"""Model-free block probabilities: CETR clustering (Weninger et al. 2010).

Used when no model can be loaded. Each block becomes a point (smoothed
text-to-tag ratio, smoothed derivative) as in CETR, computed on *net* text
(TextSweeper) so link lists score low; k-means with one centroid fixed at
the origin separates boilerplate (the origin cluster) from content, as in
K-FeatureExtractor (Debnath et al.). The result is turned into soft
probabilities so the same sequence decoder can run on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import ttr

if TYPE_CHECKING:
    from ..document.page import Page


def cluster_probabilities(page: Page, k: int = 3, iterations: int = 20) -> np.ndarray:
    n = len(page)
    if n == 0:
        return np.zeros(0)
    chars = np.asarray(page.chars, float)
    net = np.maximum(chars - np.asarray(page.link_chars, float), 0)
    tags = np.asarray(page.tag_counts, float)
    _, smoothed, derivative = ttr.block_ttr(net, tags)
    points = np.column_stack([smoothed, derivative])
    scale = points.std(axis=0)
    scale[scale == 0] = 1
    points = points / scale
    if n < k:
        return np.where(smoothed > 0, 0.6, 0.1)
    # Deterministic start: the origin plus points spread over the TTR range.
    order = np.argsort(points[:, 0])
    centroids = np.vstack([[0.0, 0.0]] + [points[order[int(q * (n - 1))]] for q in np.linspace(0.5, 1, k - 1)])
    for _ in range(iterations):
        dist = ((points[:, None, :] - centroids[None]) ** 2).sum(axis=2)
        assign = dist.argmin(axis=1)
        for c in range(1, k):  # centroid 0 stays at the origin
            members = points[assign == c]
            if len(members):
                centroids[c] = members.mean(axis=0)
    content = assign != 0
    ld = 1 - net / np.maximum(chars, 1)
    prob = np.where(content, 0.8, 0.15)
    prob = np.where(ld > 0.5, np.minimum(prob, 0.2), prob)
    prob = np.where(chars < 20, np.minimum(prob, 0.45), prob)
    return prob
