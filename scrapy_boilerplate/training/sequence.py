"""Fit the sequence model (core/scoring/sequence.py) in numpy: forward, backward by hand, Adam.

Pages are trained in minibatches; a batch's pages are laid end to end with `WIDTH // 2` empty
rows between them (masked after every layer), so the convolutions never read across pages.
Seeded and single-threaded BLAS: the same data and seed give the same weights.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..core.scoring.sequence import WIDTH, SequencePart, conv, shift

HIDDEN = 16
EPOCHS = 15
BATCH_PAGES = 32
LEARNING_RATE = 0.002
WEIGHT_DECAY = 1e-4


Pages = list[np.ndarray]


def prepare(
    inputs: Pages, first_logits: Pages, labels: Pages, weights: Pages
) -> tuple[Pages, Pages, Pages, Pages, np.ndarray, np.ndarray]:
    """The non-empty pages, their inputs standardised (and the mean and scale, rounded as the
    model file stores them), labels 1.0/0.0 and weights 0 where the label is unknown (-1)."""
    keep = [k for k, z in enumerate(inputs) if len(z)]
    weights = [np.where(labels[k] >= 0, weights[k], 0.0) for k in keep]
    labels = [np.where(labels[k] > 0, 1.0, 0.0) for k in keep]
    inputs = [inputs[k] for k in keep]
    first_logits = [first_logits[k] for k in keep]
    rows = np.vstack(inputs)
    mean = np.round(rows.mean(axis=0), 10)
    scale = rows.std(axis=0)
    scale = np.round(np.where(scale > 1e-6, scale, 1.0), 10)
    del rows
    return [(z - mean) / scale for z in inputs], first_logits, labels, weights, mean, scale


class Adam:
    """Adam over the arrays of `params` (updated in place of the dict's values), with weight
    decay on the `decayed` ones."""

    def __init__(self, params: dict[str, np.ndarray], decayed: tuple[str, ...]) -> None:
        self.params, self.decayed, self.steps = params, decayed, 0
        self.m1 = {k: np.zeros_like(v) for k, v in params.items()}
        self.m2 = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, grads: dict[str, np.ndarray], rate: float) -> None:
        self.steps += 1
        p, m1, m2, t = self.params, self.m1, self.m2, self.steps
        for k, grad in grads.items():
            if k in self.decayed:
                grad = grad + WEIGHT_DECAY * p[k]
            m1[k] = 0.9 * m1[k] + 0.1 * grad
            m2[k] = 0.999 * m2[k] + 0.001 * grad * grad
            p[k] = p[k] - rate * (m1[k] / (1 - 0.9**t)) / (np.sqrt(m2[k] / (1 - 0.999**t)) + 1e-8)


def _batch(
    Z: list[np.ndarray], extra: list[list[np.ndarray]], pad: int
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """Pages end to end with `pad` empty rows before, between and after them."""
    sizes = [len(z) for z in Z]
    total = sum(sizes) + pad * (len(Z) + 1)
    starts = np.empty(len(Z), np.int64)
    pid = np.full(total, -1, np.int64)
    X = np.zeros((total, Z[0].shape[1]))
    cols = [np.zeros(total) for _ in extra]
    at = pad
    for k, z in enumerate(Z):
        starts[k] = at
        X[at : at + len(z)] = z
        for col, values in zip(cols, extra):
            col[at : at + len(z)] = values[k]
        pid[at : at + len(z)] = k
        at += len(z) + pad
    return X, cols, pid, starts, np.asarray(sizes)


def _segment_sums(h: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    bounds = np.empty(2 * len(starts), np.int64)
    bounds[0::2], bounds[1::2] = starts, starts + sizes
    sums: np.ndarray = np.add.reduceat(h, bounds, axis=0)[::2]
    return sums


def _params(part: SequencePart) -> dict[str, np.ndarray]:
    names = ("w0", "b0", "w1", "b1", "w2", "b2", "u", "w3")
    return {**{k: getattr(part, k) for k in names}, "b3": np.array([part.b3]), "skip": np.array([part.skip])}


def _pass(
    p: dict[str, np.ndarray],
    x: np.ndarray,
    lp: np.ndarray,
    y: np.ndarray | None,
    wt: np.ndarray | None,
    pid: np.ndarray,
    starts: np.ndarray,
    sizes: np.ndarray,
    backward: bool = True,
) -> tuple[np.ndarray, float, dict[str, np.ndarray]]:
    """The logits of a batch (sequence.SequencePart.logits on each page at once), the summed
    weighted logistic loss and, with `backward`, its gradients divided by the batch's weight."""
    r = p["w1"].shape[0] // 2
    m = (pid >= 0).astype(float)[:, None]
    h0 = np.tanh(x @ p["w0"] + p["b0"]) * m
    c1 = conv(h0, p["w1"]) + p["b1"]
    h1 = np.maximum(c1, 0.0) * m
    g = _segment_sums(h1, starts, sizes) / sizes[:, None]
    gb = np.where(pid[:, None] >= 0, g[np.maximum(pid, 0)], 0.0)
    c2 = conv(h1, p["w2"]) + gb @ p["u"] + p["b2"]
    h2 = np.maximum(c2, 0.0) * m
    z = h2 @ p["w3"] + p["b3"][0] + p["skip"][0] * lp
    if not backward or y is None or wt is None:
        return z, 0.0, {}
    loss = float((wt * (np.logaddexp(0.0, z) - y * z)).sum())
    dz = wt * (1.0 / (1.0 + np.exp(-np.clip(z, -30, 30))) - y) / wt.sum()
    grads = {"w3": h2.T @ dz, "b3": np.array([dz.sum()]), "skip": np.array([(dz * lp).sum()])}
    dc2 = np.outer(dz, p["w3"]) * (c2 > 0) * m
    grads["w2"] = np.stack([shift(h1, j - r).T @ dc2 for j in range(2 * r + 1)])
    grads["b2"] = dc2.sum(axis=0)
    grads["u"] = gb.T @ dc2
    dh1 = sum(shift(dc2 @ p["w2"][j].T, r - j) for j in range(2 * r + 1))
    dg = _segment_sums(dc2 @ p["u"].T, starts, sizes) / sizes[:, None]
    dh1 = dh1 + np.where(pid[:, None] >= 0, dg[np.maximum(pid, 0)], 0.0)
    dc1 = dh1 * (c1 > 0) * m
    grads["w1"] = np.stack([shift(h0, j - r).T @ dc1 for j in range(2 * r + 1)])
    grads["b1"] = dc1.sum(axis=0)
    dh0 = sum(shift(dc1 @ p["w1"][j].T, r - j) for j in range(2 * r + 1))
    da0 = dh0 * m * (1.0 - h0 * h0)
    grads["w0"] = x.T @ da0
    grads["b0"] = da0.sum(axis=0)
    return z, loss, grads


def _forward(
    part: SequencePart, x: np.ndarray, lp: np.ndarray, pid: np.ndarray, starts: np.ndarray, sizes: np.ndarray
) -> np.ndarray:
    """The logits of a batch of standardised pages laid end to end (_batch)."""
    z: np.ndarray = _pass(_params(part), x, lp, None, None, pid, starts, sizes, backward=False)[0]
    return z


def gradients(
    part: SequencePart,
    inputs: list[np.ndarray],
    first_logits: list[np.ndarray],
    labels: list[np.ndarray],
    weights: list[np.ndarray],
) -> dict[str, np.ndarray]:
    """The gradients of the loss over these pages at `part`'s weights (for the tests)."""
    x, (lp, y, wt), pid, starts, sizes = _batch(
        [(z - part.mean) / part.scale for z in inputs], [first_logits, labels, weights], WIDTH // 2
    )
    return _pass(_params(part), x, lp, y, wt, pid, starts, sizes)[2]


def fit(
    inputs: list[np.ndarray],
    first_logits: list[np.ndarray],
    labels: list[np.ndarray],
    weights: list[np.ndarray],
    seed: int,
    log: Callable[[str], None] = print,
    epochs: int = EPOCHS,
) -> SequencePart:
    """The sequence model fitted on pages (rows in document order; labels 1/0, -1 unknown;
    block weights): weighted logistic loss, Adam, minibatches of pages in a seeded order."""
    Z, first_logits, labels, weights, mean, scale = prepare(inputs, first_logits, labels, weights)
    n_in = Z[0].shape[1]
    rng = np.random.default_rng(seed)
    H, K = HIDDEN, WIDTH
    p = {
        "w0": rng.normal(0, 1 / np.sqrt(n_in), (n_in, H)),
        "b0": np.zeros(H),
        "w1": rng.normal(0, 1 / np.sqrt(K * H), (K, H, H)),
        "b1": np.zeros(H),
        "w2": rng.normal(0, 1 / np.sqrt(K * H), (K, H, H)),
        "b2": np.zeros(H),
        "u": rng.normal(0, 0.1 / np.sqrt(H), (H, H)),
        "w3": rng.normal(0, 0.1 / np.sqrt(H), H),
        "b3": np.zeros(1),
        "skip": np.ones(1),
    }
    adam = Adam(p, ("w0", "w1", "w2", "u", "w3"))
    start = time.time()
    for epoch in range(epochs):
        order = rng.permutation(len(Z))
        total_loss, total_weight = 0.0, 0.0
        for b in range(0, len(order), BATCH_PAGES):
            idx = order[b : b + BATCH_PAGES]
            x, (lp, y, wt), pid, starts, sizes = _batch(
                [Z[i] for i in idx],
                [[first_logits[i] for i in idx], [labels[i] for i in idx], [weights[i] for i in idx]],
                K // 2,
            )
            if wt.sum() <= 0:
                continue
            _, loss, grads = _pass(p, x, lp, y, wt, pid, starts, sizes)
            total_loss += loss
            total_weight += float(wt.sum())
            adam.step(grads, LEARNING_RATE)
        mean_loss = total_loss / max(total_weight, 1e-12)
        log(f"sequence model: epoch {epoch + 1} loss {mean_loss:.4f}, {time.time() - start:.0f}s")
    # rounded as the model file stores them: the model in memory is the one saved
    r = {k: np.round(v, 10) for k, v in p.items()}
    return SequencePart(
        mean=mean,
        scale=scale,
        w0=r["w0"],
        b0=r["b0"],
        w1=r["w1"],
        b1=r["b1"],
        w2=r["w2"],
        b2=r["b2"],
        u=r["u"],
        w3=r["w3"],
        b3=float(r["b3"][0]),
        skip=float(r["skip"][0]),
    )
