"""A data table in plain text: its caption, then one line per row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..selection.tables import MAX_ROWS, Table

if TYPE_CHECKING:
    from ..document.page import Page


def table_rows_text(page: Page, table: Table, keep: object) -> list[str]:
    """The table in plain text: its caption, then one line per row, cells joined by " | "."""
    lines = [_cell_text(page, node) for node in table.caption]
    for _, _, cells in table.rows[:MAX_ROWS]:
        texts = [t for t in (_cell_text(page, c) for c in cells) if t]
        if texts:
            lines.append(" | ".join(texts))
    return [line for line in lines if line]


def _cell_text(page: Page, node: int) -> str:
    return " ".join(page.texts[page.node_first[node] : page.node_last[node]])
