"""Code blocks: a <pre> of several blocks (a line a <div>), decided and written as one unit."""

from __future__ import annotations

from ..document.page import Page
from .tables import Table


def find_code_blocks(page: Page, tables: list[Table]) -> list[Table]:
    """The outermost <pre> elements of more than one block, outside the data tables."""
    if "pre" not in page.node_tags:
        return []
    taken = [(t.first, t.last) for t in tables]
    units: list[Table] = []
    end = -1
    for node, tag in enumerate(page.node_tags):
        if tag != "pre":
            continue
        first, last = page.node_first[node], page.node_last[node]
        if last - first > 1 and first >= end and not any(a <= first < b for a, b in taken):
            units.append(Table(node, first, last))
            end = last
    return units
