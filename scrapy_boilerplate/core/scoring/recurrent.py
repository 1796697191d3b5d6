"""A bidirectional GRU over a page's blocks in document order (BoilerNet's model, issue 49).

The other sequence model (sequence.py) reads a fixed window of neighbours through two
convolutions. This one carries a state along the whole page, both ways: each block's row (the
same inputs: its dense features, the first stage's logit and its context features,
standardised) is projected to a few channels, a GRU runs over them from the top and another
from the bottom, and the two states at a block give its logit, added to the first stage's
(the model learns a correction, and starts from the first stage).

The cost is linear in the blocks, but it is a loop over them: `scan` is the one loop, shared by
inference (one page) and the numpy training (training/recurrent.py: many pages at once, padded).

The weights are plain arrays in the model file's JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..jsondata import JsonObject

#: The model file's name for this kind of sequence model.
KIND = "gru"


def sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(x, -30, 30)))
    return out


def scan(
    A: np.ndarray, U: np.ndarray, bh: np.ndarray, mask: np.ndarray, reverse: bool, keep: bool = False
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A GRU's states over time-major inputs: `A` (T, B, 3G) holds the input's share of the reset,
    update and candidate gates (biases included), `U` (G, 3G) the state's, `bh` (G) the
    candidate's state bias; `mask` (T, B, 1) is 0 on padding, where the state stays as it was
    (0 before a page starts). With `keep`, also what the backward pass needs."""
    T, B, G3 = A.shape
    G = G3 // 3
    h = np.zeros((B, G))
    out = np.empty((T, B, G))
    cache = {k: np.empty((T, B, G)) for k in ("r", "u", "n", "hn", "prev")} if keep else {}
    for t in range(T - 1, -1, -1) if reverse else range(T):
        hu = h @ U
        r = sigmoid(A[t, :, :G] + hu[:, :G])
        u = sigmoid(A[t, :, G : 2 * G] + hu[:, G : 2 * G])
        hn = hu[:, 2 * G :] + bh
        n = np.tanh(A[t, :, 2 * G :] + r * hn)
        if keep:
            cache["r"][t], cache["u"][t], cache["n"][t], cache["hn"][t], cache["prev"][t] = r, u, n, hn, h
        h = h + mask[t] * ((n + u * (h - n)) - h)
        out[t] = h
    return out, cache


@dataclass
class RecurrentPart:
    """The weights: projection (w0, b0); the forward GRU (wf: input to gates, uf: state to gates,
    bf: gate biases, hf: candidate's state bias) and the backward one (wb, ub, bb, hb); the
    output (w3 over both states, b3) and the first stage's logit's weight (skip), with the
    inputs' standardisation (mean, scale)."""

    mean: np.ndarray
    scale: np.ndarray
    w0: np.ndarray
    b0: np.ndarray
    wf: np.ndarray
    uf: np.ndarray
    bf: np.ndarray
    hf: np.ndarray
    wb: np.ndarray
    ub: np.ndarray
    bb: np.ndarray
    hb: np.ndarray
    w3: np.ndarray
    b3: float
    skip: float

    NAMES = ("mean", "scale", "w0", "b0", "wf", "uf", "bf", "hf", "wb", "ub", "bb", "hb", "w3")

    def logits(self, Z: np.ndarray, first_logit: np.ndarray) -> np.ndarray:
        """One logit per row of `Z` (one page's blocks in order: the model's input columns)."""
        if not len(Z):
            return np.zeros(0)
        x = (Z - self.mean) / self.scale
        h0 = np.tanh(x @ self.w0 + self.b0)[:, None, :]
        ones = np.ones((len(Z), 1, 1))
        fwd, _ = scan(h0 @ self.wf + self.bf, self.uf, self.hf, ones, reverse=False)
        bwd, _ = scan(h0 @ self.wb + self.bb, self.ub, self.hb, ones, reverse=True)
        G = self.uf.shape[0]
        out: np.ndarray = fwd[:, 0] @ self.w3[:G] + bwd[:, 0] @ self.w3[G:] + self.b3 + self.skip * first_logit
        return out

    def to_json(self) -> JsonObject:
        data: JsonObject = {name: np.round(getattr(self, name), 10).tolist() for name in self.NAMES}
        data["kind"] = KIND
        data["b3"] = float(self.b3)
        data["skip"] = float(self.skip)
        return data

    @classmethod
    def from_json(cls, data: JsonObject, n_inputs: int) -> RecurrentPart:
        arrays = {name: np.asarray(data[name], float) for name in cls.NAMES}
        H = arrays["b0"].shape[0]
        G = arrays["hf"].shape[0]
        shapes = {"mean": (n_inputs,), "scale": (n_inputs,), "w0": (n_inputs, H), "b0": (H,), "w3": (2 * G,)}
        for d in "fb":
            shapes.update({"w" + d: (H, 3 * G), "u" + d: (G, 3 * G), "b" + d: (3 * G,), "h" + d: (G,)})
        for name, shape in shapes.items():
            if arrays[name].shape != shape:
                raise ValueError(f"sequence model's '{name}' has shape {arrays[name].shape}, not {shape}")
            if not np.isfinite(arrays[name]).all():
                raise ValueError(f"sequence model's '{name}' holds a non-finite number")
        if (arrays["scale"] <= 0).any():
            raise ValueError("sequence model's scales must be positive")
        return cls(**arrays, b3=float(data["b3"]), skip=float(data["skip"]))
