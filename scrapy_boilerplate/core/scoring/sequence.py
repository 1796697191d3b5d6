"""A small sequence model over a page's blocks in document order (BoilerNet's idea, issue 49).

The first stage scores blocks one by one; the context features (context.py) summarise their
surroundings by hand. This model reads the same inputs as a sequence: each block's row (its
dense features, the first stage's logit and its context features, standardised) is projected
to a few channels, then two 1-D convolutions over the document order (each `WIDTH` blocks
wide, so a block sees `2 * (WIDTH // 2)` blocks either side) and the page's mean activation
(what the whole page looks like) give one logit per block, added to the first stage's logit
(the model learns a correction, and starts from the first stage).

A convolution rather than a recurrent network: the same reach over neighbours for the pages
that matter (a run of content is tens of blocks), the page's mean for the rest, and a forward
pass that is a handful of matrix products per page, with no loop over the blocks in Python
(inference and the numpy training loop alike; training/sequence.py).

The weights are plain arrays in the model file's JSON.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..jsondata import JsonObject

#: The model file's name for this kind of sequence model (files that name none are of it).
KIND = "conv"
#: Blocks each convolution reads (odd: the block in the middle).
WIDTH = 9


def shift(h: np.ndarray, s: int) -> np.ndarray:
    """Rows moved so that row i holds h[i + s] (zeros past the ends)."""
    if s == 0:
        return h
    out = np.zeros_like(h)
    if s > 0:
        out[:-s] = h[s:]
    else:
        out[-s:] = h[:s]
    return out


def conv(h: np.ndarray, w: np.ndarray) -> np.ndarray:
    """A 1-D convolution over rows: sum over offsets j of h[i + j - r] @ w[j]."""
    r = w.shape[0] // 2
    out: np.ndarray = h @ w[r]
    for j in range(w.shape[0]):
        if j != r:
            out += shift(h, j - r) @ w[j]
    return out


@dataclass
class SequencePart:
    """The weights: projection (w0, b0), two convolutions (w1, b1; w2, b2, u: the page's mean
    activation's weights), the output (w3, b3) and the first stage's logit's weight (skip), with
    the inputs' standardisation (mean, scale)."""

    mean: np.ndarray
    scale: np.ndarray
    w0: np.ndarray
    b0: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    u: np.ndarray
    w3: np.ndarray
    b3: float
    skip: float

    NAMES = ("mean", "scale", "w0", "b0", "w1", "b1", "w2", "b2", "u", "w3")

    def logits(self, Z: np.ndarray, first_logit: np.ndarray) -> np.ndarray:
        """One logit per row of `Z` (one page's blocks in order: the model's input columns)."""
        if not len(Z):
            return np.zeros(0)
        x = (Z - self.mean) / self.scale
        h0 = np.tanh(x @ self.w0 + self.b0)
        h1 = np.maximum(conv(h0, self.w1) + self.b1, 0.0)
        g = h1.mean(axis=0)
        h2 = np.maximum(conv(h1, self.w2) + (g @ self.u + self.b2), 0.0)
        out: np.ndarray = h2 @ self.w3 + self.b3 + self.skip * first_logit
        return out

    def to_json(self) -> JsonObject:
        data: JsonObject = {name: np.round(getattr(self, name), 10).tolist() for name in self.NAMES}
        data["b3"] = float(self.b3)
        data["skip"] = float(self.skip)
        return data

    @classmethod
    def from_json(cls, data: JsonObject, n_inputs: int) -> SequencePart:
        arrays = {name: np.asarray(data[name], float) for name in cls.NAMES}
        hidden = arrays["b0"].shape[0]
        shapes = {
            "mean": (n_inputs,),
            "scale": (n_inputs,),
            "w0": (n_inputs, hidden),
            "b0": (hidden,),
            "w1": (arrays["w1"].shape[0], hidden, hidden),
            "b1": (hidden,),
            "w2": (arrays["w2"].shape[0], hidden, hidden),
            "b2": (hidden,),
            "u": (hidden, hidden),
            "w3": (hidden,),
        }
        for name, shape in shapes.items():
            if arrays[name].shape != shape:
                raise ValueError(f"sequence model's '{name}' has shape {arrays[name].shape}, not {shape}")
            if not np.isfinite(arrays[name]).all():
                raise ValueError(f"sequence model's '{name}' holds a non-finite number")
        if arrays["w1"].shape[0] % 2 == 0 or arrays["w2"].shape[0] % 2 == 0 or (arrays["scale"] <= 0).any():
            raise ValueError("sequence model's convolution widths must be odd and its scales positive")
        return cls(**arrays, b3=float(data["b3"]), skip=float(data["skip"]))
