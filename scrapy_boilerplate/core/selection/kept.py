"""Kept: what a selection kept of a page, from which the extraction is made (extraction.py), and
the reasons of its blocks' decisions read back from the selection's history (`step_reasons`:
steps.py records them, extraction.py reports them, and neither imports the other)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..document.page import Page
    from .code_blocks import CodeBlock
    from .site_rules import RuleSummary
    from .tables import Table


@dataclass(frozen=True)
class Kept:
    """What a selection kept of a page: the extraction is made from it (`build_extraction`)."""

    page: Page
    mask: np.ndarray  # the kept blocks
    probability: np.ndarray  # the blocks' probabilities, as `Block.probability` reports them
    title: str | None  # the page's headline
    tables: list[Table] = field(default_factory=list)
    code_blocks: Sequence[CodeBlock] = ()
    # The mask after each step from the decoder on, with the step's reason (selection/steps.py
    # select); None: the blocks are not a selection's (a stated body: all of them are its).
    history: list[tuple[str, bytes]] | None = None
    shift: np.ndarray | None = None  # how far the site memory moved the probabilities
    site_rule: RuleSummary | None = None  # what the site selectors did (SiteRule.apply's summary)


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
