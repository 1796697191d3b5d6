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
from typing import TYPE_CHECKING

import numpy as np

from ..document.elements import FLAG, HEADING_TAGS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..document.page import Page

CELL_TAGS = frozenset(("td", "th"))
#: A table this many blocks or fewer from the kept content is next to it.
NEAR_BLOCKS = 3
# Where a table is not content, however close to it: navigation, asides, footers, related boxes.
OFF_CONTENT = FLAG["nav"] | FLAG["aside"] | FLAG["footer"] | FLAG["related"] | FLAG["negative"]
ROW_GROUP_TAGS = frozenset(("thead", "tbody", "tfoot"))
# Block-level elements in a cell that make the table a layout: a data table never holds
# them. Headings, lists, quotes and code can be a cell's data (a recipe's course, a list
# of features): only many such cells tell (below). A single paragraph or division tells
# nothing: content systems wrap data cells in them too; a long cell of two paragraphs or
# more is a page region.
LAYOUT_TAGS = frozenset(("section", "article", "form", "table", "header", "footer", "nav", "aside", "main"))
STRUCTURE_TAGS = frozenset(("ul", "ol", "dl", "blockquote", "pre", "figure")) | HEADING_TAGS
PARAGRAPH_TAGS = frozenset(("p",))
#: A cell of several paragraphs and at least this many characters is a page region.
LONG_CELL_CHARS = 300
#: Layout grids leave most cells empty (spacers, form controls); data tables fill theirs.
MAX_EMPTY_CELLS = 0.5
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

    node: int  # the table's node
    first: int  # its blocks: [first, last)
    last: int
    caption: list[int] = field(default_factory=list)  # nodes of its caption(s)
    rows: list[tuple[int, bool, list[int]]] = field(default_factory=list)  # (row node, in thead, [cell nodes])


def find_data_tables(page: Page) -> list[Table]:
    """The page's data tables, in document order. A table holding another table lays
    out the page; the tables inside it are judged on their own."""
    tags, parents = page.node_tags, page.node_parents
    if "table" not in tags:
        return []
    tables: dict[int, Table] = {}
    layout: set[int] = set()
    # The nearest table (and row) of each node, in one pass: nodes are in document order.
    table_of = [-1] * len(tags)
    row_of = [-1] * len(tags)
    structured_cells: dict[int, set[int]] = {}
    paragraphs: dict[int, int] = {}  # cell -> paragraphs in it
    long_cells: dict[int, list[int]] = {}  # table -> its cells of two paragraphs or more
    heading_cells: set[int] = set()
    for node, tag in enumerate(tags):
        parent = parents[node]
        table_of[node] = table_of[parent] if parent >= 0 else -1
        row_of[node] = row_of[parent] if parent >= 0 else -1
        if tag == "table":
            if table_of[node] >= 0:
                layout.add(table_of[node])  # a table in a table: the outer one lays out
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
            cell = _cell_of(node, parents, tags)
            structured_cells.setdefault(table, set()).add(cell)
            if tag in HEADING_TAGS:
                heading_cells.add(cell)
        elif tag in PARAGRAPH_TAGS and row_of[node] >= 0:
            cell = _cell_of(node, parents, tags)
            paragraphs[cell] = paragraphs.get(cell, 0) + 1
            if paragraphs[cell] == 2:
                long_cells.setdefault(table, []).append(cell)
    for table, cells in long_cells.items():
        if any(page.node_chars[c] >= LONG_CELL_CHARS or c in heading_cells for c in cells):
            layout.add(table)  # a cell of paragraphs, long or under a heading: a page region
    return [
        t
        for node, t in tables.items()
        if node not in layout and _is_data_table(page, t, len(structured_cells.get(node, ())))
    ]


def _cell_of(node: int, parents: list[int], tags: list[str]) -> int:
    while node >= 0 and tags[node] not in CELL_TAGS:
        node = parents[node]
    return node


def _is_data_table(page: Page, table: Table, structured: int) -> bool:
    rows = [cells for _, _, cells in table.rows if cells]
    if len(rows) < 2 or max(len(cells) for cells in rows) < 2:
        return False  # one row or one column: a layout box, or a list
    element = page.node_elements[table.node] if page.node_elements else None
    if element is not None and (element.get("role") or "").strip().lower() in ("presentation", "none"):
        return False
    cells = [c for row in rows for c in row]
    if structured > MAX_STRUCTURED_CELLS * len(cells):
        return False
    chars = sum(page.node_chars[c] for c in cells)
    if chars == 0 or chars / len(cells) > MAX_MEAN_CELL_CHARS:
        return False
    return sum(page.node_chars[c] == 0 for c in cells) <= MAX_EMPTY_CELLS * len(cells)


def decide_tables(
    tables: Sequence[Table],
    mask: np.ndarray,
    proba: np.ndarray,
    page: Page,
    threshold: float = 0.5,
    kept_share: float = 0.25,
) -> None:
    """One decision per data table: all its blocks content or none (in place).

    A table is content when the model kept a good part of its text (cells dropped one by
    one are the block model's blind spot, not a verdict on the table), when its text is
    likely content on average, when it sits inside the kept content, or when it is right
    next to it (within NEAR_BLOCKS) and is neither mostly links nor in a navigation,
    aside, footer or related box."""
    if not tables:
        return
    chars = page.arrays.chars
    links = page.arrays.link_chars
    kept = np.flatnonzero(mask)
    for table in tables:
        a, b = table.first, table.last
        weight = chars[a:b].sum()
        if a >= b or weight == 0:
            continue
        likely = (chars[a:b] * proba[a:b]).sum() / weight
        share = chars[a:b][mask[a:b]].sum() / weight
        before = kept[kept < a]
        after = kept[kept >= b]
        near = (before.size and a - before[-1] - 1 <= NEAR_BLOCKS) or (after.size and after[0] - b <= NEAR_BLOCKS)
        plain = links[a:b].sum() < 0.5 * weight and not page.node_flags[table.node] & OFF_CONTENT
        inside = before.size > 0 and after.size > 0
        mask[a:b] = likely >= threshold or share >= kept_share or inside or bool(near and plain)
