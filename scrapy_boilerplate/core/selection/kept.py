"""Kept: what a selection kept of a page, from which the extraction is made (extraction.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

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
