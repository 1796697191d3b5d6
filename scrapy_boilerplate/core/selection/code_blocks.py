"""Code blocks: a <pre> of several blocks (a line a <div>), decided and written as one unit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .tables import Table

if TYPE_CHECKING:
    from ..document.page import Page


@dataclass
class CodeBlock(Table):
    """A code block: its blocks [first, last), written as one. `text`: what is written when it
    is not their texts, one a line (a listing without its line numbers, line_numbers.py)."""

    text: str | None = None

    def written(self, page: Page) -> str:
        """The code as the outputs write it."""
        return self.text if self.text is not None else "\n".join(page.texts[self.first : self.last])


def find_code_blocks(page: Page, tables: list[Table]) -> list[CodeBlock]:
    """The outermost <pre> elements of more than one block, outside the data tables."""
    if "pre" not in page.node_tags:
        return []
    taken = [(t.first, t.last) for t in tables]
    units: list[CodeBlock] = []
    end = -1
    for node, tag in enumerate(page.node_tags):
        if tag != "pre":
            continue
        first, last = page.node_first[node], page.node_last[node]
        if last - first > 1 and first >= end and not any(a <= first < b for a, b in taken):
            units.append(CodeBlock(node, first, last))
            end = last
    return units
