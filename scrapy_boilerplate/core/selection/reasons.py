"""The reasons a block's decision is given (`Block.reason`, the explain page), read back from
the selection's history: shared by selection/steps.py, which records them, and extraction.py,
which reports them (a module of its own, so that neither imports the other)."""

from __future__ import annotations

import numpy as np

#: Reasons given by more than one entry, or read elsewhere by name.
SITE_MEMORY, SITE_SELECTOR, STATED_BODY = "site_memory", "site_selector", "stated_body"


def step_reasons(history: list[tuple[str, bytes]], shift: np.ndarray | None = None) -> list[str]:
    """Per block, the reason of the step that last changed its decision (`select`'s history: the
    masks after the decoder's Viterbi pass and each step after it): the decoder's ("model") for a
    block no later step changed, SITE_MEMORY for one of those whose probability the site memory
    moved (`shift`, adjusted minus raw) the way it was decided."""
    steps, n = len(history), len(history[0][1]) if history else 0
    if not n:
        return []
    rows = np.frombuffer(b"".join(mask for _, mask in history), dtype=bool).reshape(steps, n)
    changed = rows[1:] != rows[:-1]  # row k: the step of row k + 1 changed the block
    last = np.where(changed.any(axis=0), steps - 1 - np.argmax(changed[::-1], axis=0), 0)
    names = [reason for reason, _ in history]
    reasons = [names[k] for k in last.tolist()]
    if shift is not None:
        kept = rows[-1]
        toward = ((shift > 0) & kept) | ((shift < 0) & ~kept)
        for i in np.flatnonzero(toward & (last == 0)).tolist():
            reasons[i] = SITE_MEMORY
    return reasons
