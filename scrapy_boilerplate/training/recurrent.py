"""Fit the recurrent sequence model (core/scoring/recurrent.py) in numpy: forward, backward
through time by hand, Adam.

Pages are trained in minibatches of pages of about the same length (sorted, then cut), padded
at their ends and laid side by side in time-major arrays; padding is masked, so a state never
reads another page. Seeded and single-threaded BLAS: the same data and seed give the same weights.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..core.scoring.recurrent import RecurrentPart, scan, sigmoid
from .sequence import Adam, prepare

HIDDEN = 16  # the projection's channels
STATE = 16  # each direction's state
EPOCHS = 30
BATCH_PAGES = 32
LEARNING_RATE = 0.005
NAMES = ("w0", "b0", "wf", "uf", "bf", "hf", "wb", "ub", "bb", "hb", "w3", "b3", "skip")
DECAYED = ("w0", "wf", "uf", "wb", "ub", "w3")


def _pad(Z: list[np.ndarray], extra: list[list[np.ndarray]]) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """Pages side by side, time-major: (T, B, columns), each extra column (T, B) and the mask (T, B, 1)."""
    T = max(len(z) for z in Z)
    X = np.zeros((T, len(Z), Z[0].shape[1]))
    cols = [np.zeros((T, len(Z))) for _ in extra]
    mask = np.zeros((T, len(Z), 1))
    for k, z in enumerate(Z):
        X[: len(z), k] = z
        mask[: len(z), k] = 1.0
        for col, values in zip(cols, extra):
            col[: len(z), k] = values[k]
    return X, cols, mask


def _scan_back(
    dout: np.ndarray, cache: dict[str, np.ndarray], U: np.ndarray, mask: np.ndarray, reverse: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """scan's backward pass: from the loss's gradient at each state `dout` (T, B, G), the
    gradients at A (T, B, 3G), at U and at bh."""
    T, B, G = dout.shape
    dA = np.empty((T, B, 3 * G))
    dU = np.zeros_like(U)
    dbh = np.zeros(G)
    carry = np.zeros((B, G))
    for t in range(T) if reverse else range(T - 1, -1, -1):
        r, u, n, hn, prev = (cache[k][t] for k in ("r", "u", "n", "hn", "prev"))
        dh = carry + dout[t]
        dnew = dh * mask[t]
        dn = dnew * (1.0 - u)
        dan = dn * (1.0 - n * n)
        dhn = dan * r
        dA[t, :, :G] = dan * hn * r * (1.0 - r)
        dA[t, :, G : 2 * G] = dnew * (prev - n) * u * (1.0 - u)
        dA[t, :, 2 * G :] = dan
        dhu = np.concatenate([dA[t, :, : 2 * G], dhn], axis=1)
        dU += prev.T @ dhu
        dbh += dhn.sum(axis=0)
        carry = dh - dnew + dnew * u + dhu @ U.T
    return dA, dU, dbh


def _pass(
    p: dict[str, np.ndarray],
    x: np.ndarray,
    lp: np.ndarray,
    y: np.ndarray | None,
    wt: np.ndarray | None,
    mask: np.ndarray,
    backward: bool = True,
) -> tuple[np.ndarray, float, dict[str, np.ndarray]]:
    """The logits of a padded batch (T, B), the summed weighted logistic loss and, with
    `backward`, its gradients divided by the batch's weight."""
    G = p["uf"].shape[0]
    h0 = np.tanh(x @ p["w0"] + p["b0"]) * mask
    fwd, cf = scan(h0 @ p["wf"] + p["bf"], p["uf"], p["hf"], mask, False, keep=backward)
    bwd, cb = scan(h0 @ p["wb"] + p["bb"], p["ub"], p["hb"], mask, True, keep=backward)
    z = fwd @ p["w3"][:G] + bwd @ p["w3"][G:] + p["b3"][0] + p["skip"][0] * lp
    if not backward or y is None or wt is None:
        return z, 0.0, {}
    loss = float((wt * (np.logaddexp(0.0, z) - y * z)).sum())
    dz = wt * (sigmoid(z) - y) / wt.sum()
    grads = {
        "w3": np.concatenate([np.einsum("tb,tbg->g", dz, fwd), np.einsum("tb,tbg->g", dz, bwd)]),
        "b3": np.array([dz.sum()]),
        "skip": np.array([(dz * lp).sum()]),
    }
    dh0 = np.zeros_like(h0)
    flat = h0.reshape(-1, h0.shape[2])
    for d, cache, reverse in (("f", cf, False), ("b", cb, True)):
        w3 = p["w3"][:G] if d == "f" else p["w3"][G:]
        dA, grads["u" + d], grads["h" + d] = _scan_back(dz[:, :, None] * w3, cache, p["u" + d], mask, reverse)
        dA_flat = dA.reshape(-1, dA.shape[2])
        grads["w" + d] = flat.T @ dA_flat
        grads["b" + d] = dA_flat.sum(axis=0)
        dh0 += dA @ p["w" + d].T
    da0 = (dh0 * mask * (1.0 - h0 * h0)).reshape(-1, h0.shape[2])
    grads["w0"] = x.reshape(-1, x.shape[2]).T @ da0
    grads["b0"] = da0.sum(axis=0)
    return z, loss, grads


def _params(part: RecurrentPart) -> dict[str, np.ndarray]:
    return {
        **{k: getattr(part, k) for k in NAMES if k not in ("b3", "skip")},
        "b3": np.array([part.b3]),
        "skip": np.array([part.skip]),
    }


def gradients(
    part: RecurrentPart,
    inputs: list[np.ndarray],
    first_logits: list[np.ndarray],
    labels: list[np.ndarray],
    weights: list[np.ndarray],
) -> dict[str, np.ndarray]:
    """The gradients of the loss over these pages at `part`'s weights (for the tests)."""
    x, (lp, y, wt), mask = _pad([(z - part.mean) / part.scale for z in inputs], [first_logits, labels, weights])
    return _pass(_params(part), x, lp, y, wt, mask)[2]


def batch_logits(part: RecurrentPart, inputs: list[np.ndarray], first_logits: list[np.ndarray]) -> list[np.ndarray]:
    """Each page's logits, the pages scored side by side (as in training; for the tests)."""
    x, (lp,), mask = _pad([(z - part.mean) / part.scale for z in inputs], [first_logits])
    z = _pass(_params(part), x, lp, None, None, mask, backward=False)[0]
    return [z[: len(page), k] for k, page in enumerate(inputs)]


def fit(
    inputs: list[np.ndarray],
    first_logits: list[np.ndarray],
    labels: list[np.ndarray],
    weights: list[np.ndarray],
    seed: int,
    log: Callable[[str], None] = print,
    epochs: int = EPOCHS,
) -> RecurrentPart:
    """The model fitted on pages (rows in document order; labels 1/0, -1 unknown; block
    weights): weighted logistic loss, Adam, minibatches of pages of about the same length in a
    seeded order."""
    Z, first_logits, labels, weights, mean, scale = prepare(inputs, first_logits, labels, weights)
    n_in = Z[0].shape[1]
    rng = np.random.default_rng(seed)
    H, G = HIDDEN, STATE
    p: dict[str, np.ndarray] = {"w0": rng.normal(0, 1 / np.sqrt(n_in), (n_in, H)), "b0": np.zeros(H)}
    for d in "fb":
        p["w" + d] = rng.normal(0, 1 / np.sqrt(H), (H, 3 * G))
        p["u" + d] = rng.normal(0, 1 / np.sqrt(G), (G, 3 * G))
        p["b" + d] = np.zeros(3 * G)
        p["h" + d] = np.zeros(G)
    p.update(w3=rng.normal(0, 0.1 / np.sqrt(2 * G), 2 * G), b3=np.zeros(1), skip=np.ones(1))
    # batches of pages of about the same length, so that little of a batch is padding
    by_length = sorted(range(len(Z)), key=lambda i: (len(Z[i]), rng.random()))
    batches = [by_length[b : b + BATCH_PAGES] for b in range(0, len(by_length), BATCH_PAGES)]
    adam = Adam(p, DECAYED)
    start = time.time()
    for epoch in range(epochs):
        total_loss, total_weight = 0.0, 0.0
        for b in rng.permutation(len(batches)):
            idx = batches[b]
            x, (lp, y, wt), mask = _pad(
                [Z[i] for i in idx],
                [[first_logits[i] for i in idx], [labels[i] for i in idx], [weights[i] for i in idx]],
            )
            if wt.sum() <= 0:
                continue
            _, loss, grads = _pass(p, x, lp, y, wt, mask)
            total_loss += loss
            total_weight += float(wt.sum())
            adam.step(grads, LEARNING_RATE)
        mean_loss = total_loss / max(total_weight, 1e-12)
        log(f"recurrent model: epoch {epoch + 1} loss {mean_loss:.4f}, {time.time() - start:.0f}s")
    # rounded as the model file stores them: the model in memory is the one saved
    r = {k: np.round(v, 10) for k, v in p.items()}
    arrays = {k: r[k] for k in NAMES if k not in ("b3", "skip")}
    return RecurrentPart(mean=mean, scale=scale, **arrays, b3=float(r["b3"][0]), skip=float(r["skip"][0]))
