"""Data tables: found in the walk's nodes, decided as one unit, rendered row by row.

A data table (rows of short cells: prices, results, specifications) is main
content or not as a whole; the block model, which sees each cell alone, drops
short cells one by one. Layout tables (pages laid out in table cells, a form
in a grid) are not data: the walk's blocks inside them are decided and
rendered as everywhere else, never as a table.

What tells them apart is the table's own evidence: ``role=presentation``, a
table nested in a cell, cells holding paragraphs, headings or long text, a
single row or a single column mark a layout table; ``th`` cells, a
``caption`` or ``thead``, and rows of similar width mark a data table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

CELL_TAGS = frozenset(("td", "th"))
ROW_GROUP_TAGS = frozenset(("thead", "tbody", "tfoot"))
# Block-level elements in a cell that make the table a layout: a data table never holds
# them. Lists, quotes and code can be a cell's data: only many such cells tell (below).
# Paragraphs and divisions tell nothing: content systems wrap data cells in them too.
LAYOUT_TAGS = frozenset(("section", "article", "h1", "h2", "h3", "h4", "h5", "h6", "form", "table",
                         "header", "footer", "nav", "aside", "main"))
STRUCTURE_TAGS = frozenset(("ul", "ol", "dl", "blockquote", "pre", "figure"))
#: Cells longer than this on average are prose, not data.
MAX_MEAN_CELL_CHARS = 160
#: A data table has at most this share of its cells holding block-level structure.
MAX_STRUCTURED_CELLS = 0.25
#: Spans are capped (HTML allows 1000 columns and 65534 rows): bounded output.
MAX_COLSPAN = 20
MAX_ROWSPAN = 50
MAX_ROWS = 2000


@dataclass
class Table:
    """A data table found in a page's nodes."""

    node: int                   # the table's node
    first: int                  # its blocks: [first, last)
    last: int
    caption: list = field(default_factory=list)   # nodes of its caption(s)
    rows: list = field(default_factory=list)      # [(row node, in thead, [cell nodes])]


def find_data_tables(page) -> list[Table]:
    """The page's data tables, in document order. A table holding another table lays
    out the page; the tables inside it are judged on their own."""
    tags, parents = page.node_tags, page.node_parents
    tables: dict[int, Table] = {}
    layout: set[int] = set()
    # The nearest table (and row) of each node, in one pass: nodes are in document order.
    table_of = [-1] * len(tags)
    row_of = [-1] * len(tags)
    structured_cells: dict[int, set] = {}
    for node, tag in enumerate(tags):
        parent = parents[node]
        table_of[node] = table_of[parent] if parent >= 0 else -1
        row_of[node] = row_of[parent] if parent >= 0 else -1
        if tag == "table":
            if table_of[node] >= 0:
                layout.add(table_of[node])   # a table in a table: the outer one lays out
            table_of[node] = node
            row_of[node] = -1
            tables[node] = Table(node, page.node_first[node], page.node_last[node])
            continue
        table = table_of[node]
        if table < 0:
            continue
        if tag == "tr" and row_of[node] < 0:
            in_head = parent >= 0 and tags[parent] == "thead"
            tables[table].rows.append((node, in_head, []))
            row_of[node] = node
        elif tag in CELL_TAGS and parent >= 0 and tags[parent] == "tr" and row_of[node] == parent:
            tables[table].rows[-1][2].append(node)
        elif tag == "caption" and parent == table:
            tables[table].caption.append(node)
        elif tag in LAYOUT_TAGS:
            layout.add(table)
        elif tag in STRUCTURE_TAGS and row_of[node] >= 0:
            structured_cells.setdefault(table, set()).add(_cell_of(node, parents, tags))
    return [t for node, t in tables.items()
            if node not in layout and _is_data_table(page, t, len(structured_cells.get(node, ())))]


def _cell_of(node: int, parents: list, tags: list) -> int:
    while node >= 0 and tags[node] not in CELL_TAGS:
        node = parents[node]
    return node


def _is_data_table(page, table: Table, structured: int) -> bool:
    rows = [cells for _, _, cells in table.rows if cells]
    if len(rows) < 2 or max(len(cells) for cells in rows) < 2:
        return False   # one row or one column: a layout box, or a list
    element = page.node_elements[table.node] if page.node_elements else None
    if element is not None and (element.get("role") or "").strip().lower() in ("presentation", "none"):
        return False
    cells = [c for row in rows for c in row]
    if structured > MAX_STRUCTURED_CELLS * len(cells):
        return False
    chars = sum(page.node_chars[c] for c in cells)
    if chars == 0 or chars / len(cells) > MAX_MEAN_CELL_CHARS:
        return False
    return True


def decide_tables(tables: list[Table], mask: np.ndarray, proba: np.ndarray, page,
                  threshold: float = 0.5, kept_share: float = 0.25) -> None:
    """One decision per data table: all its blocks content or none (in place).

    A table is content when the model kept a good part of its text (cells dropped one by
    one are the block model's blind spot, not a verdict on the table), when its text is
    likely content on average, or when it sits inside the kept content."""
    if not tables:
        return
    chars = np.asarray(page.chars, float)
    kept = np.flatnonzero(mask)
    for table in tables:
        a, b = table.first, table.last
        weight = chars[a:b].sum()
        if a >= b or weight == 0:
            continue
        likely = (chars[a:b] * proba[a:b]).sum() / weight
        share = chars[a:b][mask[a:b]].sum() / weight
        inside = kept.size > 0 and kept[0] < a and kept[-1] >= b
        mask[a:b] = likely >= threshold or share >= kept_share or bool(inside)


def table_rows_text(page, table: Table, keep) -> list[str]:
    """The table in plain text: its caption, then one line per row, cells joined by " | "."""
    lines = [_cell_text(page, node) for node in table.caption]
    for _, _, cells in table.rows[:MAX_ROWS]:
        texts = [t for t in (_cell_text(page, c) for c in cells) if t]
        if texts:
            lines.append(" | ".join(texts))
    return [line for line in lines if line]


def _cell_text(page, node: int) -> str:
    return " ".join(page.texts[page.node_first[node]:page.node_last[node]])
