"""Line numbers of code listings: a column of consecutive numbers beside the code is not text.

Highlighters number a listing's lines in many markups: a cell or a <pre> of numbers beside the
code's cell (Hexo, Pygments' and Rouge's tables, Hugo's Chroma), a number cell in every row of
a table of lines (Rouge's line table), a column of elements beside the lines (line-number
plugins), or an element holding its line's number at the start of every line (Pygments' and
Chroma's inline numbers). The walk reads the numbers as text, and the block model, which sees a
short block beside a listing it keeps, keeps them too: a reader got "1\\n2\\n3\\n..." before
every listing, or "1import os".

They are told by their shape, whatever their classes:

- a *gutter*: blocks whose texts are only integers counting up by one, that an element holds
  and nothing else, beside the code: the element's parent holds the gutter and the code (one
  element, or the parent's own text) and nothing more; the code's lines are as many as the
  numbers or a few fewer (its blank lines at either end are not a block's text, nor are the
  empty lines of a listing made of a block a line); and the code is code (inside a <pre>, or an
  element holding <code>; a gutter of one or two numbers only beside a <pre>). The gutter's
  blocks are dropped; a code of several blocks is written as one code block. A table of lines
  gives a gutter a row (the rows of blank lines have no code beside): its rows are one listing.
- a *table of lines numbered by the style sheet*: a table inside a <pre> whose rows are each led
  by an empty cell that carries the row's number, counting up by one, in an attribute
  (highlight.js' line numbers): written as the listing it is, a row a line, not as a data table.
- *inline numbers*: a <pre> of one block, each line of which starts with an element that holds
  only that line's number (counting up by one), glued to the code (the space between them is
  the style sheet's): the block is written without them.

Numbers that are the content stay: a listing of numbers (nothing beside it, or numbers beside
numbers), a table of figures (its numbers are one a row, beside text that is not code), a
numbered list, a <pre> of lines that start with a number the author typed ("1 apple": no
element of its own, or one space between it and the rest on every line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np
from lxml import etree

from ..document.elements import FLAG, K_BLOCK, K_BR, K_PRE, K_SKIP, TAG_INFO, tag_info
from ..document.words import clean_text
from ..render.segments import walk_skips
from .code_blocks import CodeBlock
from .tables import CELL_TAGS, ROW_GROUP_TAGS

if TYPE_CHECKING:
    from ..document.page import Page

PRE = FLAG["pre"]
#: The code beside a gutter of N numbers has at least this share of N lines.
MIN_LINES_SHARE = 0.6
#: A gutter of this many numbers or more may stand beside code that is not in a <pre>.
MIN_COLUMN = 3
#: Blocks of at most this many characters may be one number of a column (line 999,999).
MAX_NUMBER_CHARS = 6
#: Blocks of more numbers than this are not looked at outside a <pre>.
MAX_COUNT = 10_000
# The characters of the numbers 1 to n with one separator between two, by n (from two numbers).
_CHARS_FROM_ONE = np.cumsum([0] + [len(str(n)) + 1 for n in range(1, MAX_COUNT + 1)]) - 1
_CHARS_FROM_ONE[:2] = -1
# The code beside numbers holds something that is not a number: else it is a table of figures.
_NOT_A_FIGURE = re.compile(r"[^\d\s.,%+\-]")
# The first two lines of a block whose lines may start with their numbers.
_LINE_START = re.compile(r"\s*(\d{1,6})")


@dataclass
class LineNumbers:
    """What the line numbers of a page's listings change: the gutters' blocks, dropped; the
    listings written as one code block (their texts without the numbers)."""

    gutters: list[int] = field(default_factory=list)
    listings: list[CodeBlock] = field(default_factory=list)


def find_line_numbers(page: Page) -> LineNumbers:
    """The gutters and inline line numbers of the page's listings (the module docstring)."""
    found = LineNumbers()
    if not page.node_elements:
        return found
    has_pre = "pre" in page.node_tags
    pre_blocks = list(page.tag_positions("pre")) if has_pre else []
    runs = _number_runs(page, has_pre, pre_blocks)
    if runs:
        _find_gutters(page, runs, found)
    if has_pre and "table" in page.node_tags:
        _find_tables_of_lines(page, found)
    gutters = set(found.gutters)
    for i in pre_blocks:
        if i not in gutters and _may_start_with_numbers(page.texts[i]):
            text = _without_inline_numbers(page, i)
            if text is not None:
                found.listings.append(CodeBlock(page.nodes[i], i, i + 1, text=text))
    found.listings.sort(key=lambda c: c.first)
    return found


def with_listings(page: Page, code_blocks: list[CodeBlock], found: LineNumbers) -> list[CodeBlock]:
    """The code blocks of a page with its listings: a code block a listing overlaps is the
    listing's; one that holds a gutter (a <pre> around the table of a gutter and its code) is
    written without it, from its first block that is not a number."""
    taken = [(c.first, c.last) for c in found.listings]
    gutters = set(found.gutters)
    units = list(found.listings)
    for c in code_blocks:
        if any(a < c.last and c.first < b for a, b in taken):
            continue
        if gutters.isdisjoint(range(c.first, c.last)):
            units.append(c)
            continue
        code = [i for i in range(c.first, c.last) if i not in gutters]
        if code:
            units.append(CodeBlock(c.node, code[0], c.last, text="\n".join(page.texts[i] for i in code)))
    return sorted(units, key=lambda c: c.first)


# -- gutters --

#: A run of blocks whose texts are integers counting up by one: (first block, end, first number, count).
Run = tuple[int, int, int, int]


def _numbers(text: str) -> tuple[int, int] | None:
    """(first, count) when `text` is integers separated by white space, each one more than the
    one before; None otherwise."""
    parts = text.split()
    if not parts or len(parts[0]) > MAX_NUMBER_CHARS or not (parts[0].isascii() and parts[0].isdecimal()):
        return None
    start = int(parts[0])
    for k in range(1, len(parts)):
        if parts[k] != str(start + k):
            return None
    return start, len(parts)


def _number_runs(page: Page, has_pre: bool, pre_blocks: list[int]) -> list[Run]:
    """Runs of consecutive blocks whose texts count up by one: a block of numbers (in a <pre>,
    or "1 2 3" from numbers a line each beside one), or a column of blocks of one number each
    (at least MIN_COLUMN of them)."""
    runs: list[Run] = []
    texts = page.texts
    chars = page.arrays.chars
    candidates = pre_blocks
    if has_pre:
        # Outside a <pre>, only numbers from 1 are looked at: a block of them has the characters
        # of the numbers and one separator between two (read from the columns, not the texts).
        from_one = np.flatnonzero(chars == _CHARS_FROM_ONE.take(page.arrays.words.astype(np.intp), mode="clip"))
        candidates = sorted(set(from_one.tolist()).union(pre_blocks))
    for i in candidates:
        text = texts[i]
        if text[:1].isdigit() or text[:1].isspace():
            numbers = _numbers(text)
            if numbers is not None:
                runs.append((i, i + 1, *numbers))
    if len(chars) >= MIN_COLUMN:
        short = chars <= MAX_NUMBER_CHARS
        # the blocks that start MIN_COLUMN short blocks in a row: the only places a column may be
        starts = short[: len(short) - MIN_COLUMN + 1].copy()
        for k in range(1, MIN_COLUMN):
            starts &= short[k : len(short) - MIN_COLUMN + 1 + k]
        end = 0
        for i in np.flatnonzero(starts).tolist():
            if i < end or not (texts[i].isascii() and texts[i].isdecimal()):
                continue
            start = int(texts[i])
            j = i + 1
            while j < len(texts) and texts[j] == str(start + j - i):
                j += 1
            end = j
            if j - i >= MIN_COLUMN:
                runs.append((i, j, start, j - i))
    # A block of a few numbers may also start a column: the first run found of the two.
    kept: list[Run] = []
    for run in sorted(runs):
        if not kept or run[0] >= kept[-1][1]:
            kept.append(run)
    return kept


def _find_gutters(page: Page, runs: list[Run], found: LineNumbers) -> None:
    """The runs that are gutters beside code. A table of lines (a number cell in every row)
    gives a run a row, the rows of blank lines without code beside: one listing of them all."""
    first, last, parents = page.node_first, page.node_last, page.node_parents
    # (run, the element holding the gutter and its code, the code's blocks or None)
    items: list[tuple[Run, int, tuple[int, int] | None]] = []
    for run in runs:
        a, b, _, _ = run
        gutter = _holder(page, a, b)
        parent = parents[gutter] if gutter >= 0 else -1
        if parent < 0:
            continue
        # The parent holds the gutter and the code, nothing else: the code is on one side.
        before, after = (first[parent], a), (b, last[parent])
        if before[0] < before[1] and after[0] < after[1]:
            # A row holding its number alone (a blank line of a table of lines) is a listing's
            # only beside other rows of it.
            items.append((run, gutter, None))
            continue
        code = after if after[0] < after[1] else before if before[0] < before[1] else None
        if code is None or _one_element(page, parent, code):
            items.append((run, parent, code))
    k = 0
    while k < len(items):
        chain = [items[k]]
        while k + 1 < len(items):
            (run, parent, code), (nxt, nxt_parent, _) = chain[-1], items[k + 1]
            end = max(run[1], code[1]) if code else run[1]
            if parents[nxt_parent] != parents[parent] or nxt[2] != run[2] + run[3] or nxt[0] != end:
                break
            chain.append(items[k + 1])
            k += 1
        k += 1
        rows = [(run, code) for run, _, code in chain]
        if not all(code is None or _is_code_beside(page, run, parent, code) for run, parent, code in chain):
            continue
        if not any(code for _, code in rows) or (len(rows) > 1 and not _aligned(page, rows)):
            continue
        gutters = [i for run, _ in rows for i in range(run[0], run[1])]
        found.gutters.extend(gutters)
        code_blocks = [i for _, code in rows if code for i in range(*code)]
        if len(rows) > 1 or len(code_blocks) > 1:
            text = "\n".join("\n".join(page.texts[i] for i in range(*code)) if code else "" for _, code in rows)
            end = max(max(run[1], code[1]) if code else run[1] for run, code in rows)
            holder = parents[chain[0][1]] if len(rows) > 1 else chain[0][1]
            found.listings.append(CodeBlock(holder, min(code_blocks), end, text=text.strip("\n")))


def _aligned(page: Page, rows: list[tuple[Run, tuple[int, int] | None]]) -> bool:
    """The rows of a table of lines: a line of code in most of them (blank lines have none)."""
    lines = sum(page.texts[i].count("\n") + 1 for _, code in rows if code for i in range(*code))
    numbers = sum(run[3] for run, _ in rows)
    return MIN_LINES_SHARE * numbers <= lines <= numbers


def _holder(page: Page, a: int, b: int) -> int:
    """The outermost node whose blocks are exactly [a, b), or -1 when none holds them alone."""
    first, last, parents = page.node_first, page.node_last, page.node_parents
    node = page.nodes[a]
    while node >= 0 and not (first[node] <= a and last[node] >= b):
        node = parents[node]
    if node < 0 or first[node] != a or last[node] != b:
        return -1
    while parents[node] >= 0 and first[parents[node]] == a and last[parents[node]] == b:
        node = parents[node]
    return node


def _one_element(page: Page, parent: int, code: tuple[int, int]) -> bool:
    """The blocks `code` are one element's, the gutter's sibling (a cell, a <pre>), or the
    parent's own text: not the paragraphs of a section whose last child is a pager."""
    holder = _holder(page, *code)
    if holder >= 0 and page.node_parents[holder] == parent:
        return True
    return all(page.nodes[i] == parent for i in range(*code))


def _is_code_beside(page: Page, run: Run, parent: int, code: tuple[int, int]) -> bool:
    """The blocks `code` are a listing whose lines the run numbers."""
    count = run[3]
    texts = page.texts
    lines = sum(texts[i].count("\n") + 1 for i in range(*code))
    if not (lines <= count and lines >= MIN_LINES_SHARE * count):
        return False
    in_pre = all(page.flags[i] & PRE for i in range(*code))
    if not in_pre:
        if count < MIN_COLUMN:
            return False
        element = page.node_elements[parent]
        if next(element.iter("code"), None) is None:
            return False
    return any(_NOT_A_FIGURE.search(texts[i]) for i in range(*code))


# -- tables of lines numbered by the style sheet --


def _find_tables_of_lines(page: Page, found: LineNumbers) -> None:
    """Tables of code whose rows are its lines, each led by an empty cell that carries the
    line's number in an attribute (highlight.js' `data-line-number`; the style sheet draws
    it): written as the listing they are, a row a line, blank lines kept."""
    tags, first, last = page.node_tags, page.node_first, page.node_last
    taken = [(c.first, c.last) for c in found.listings]
    for table in page.node_tag_positions("table"):
        if not page.node_flags[table] & PRE:
            continue  # the code of a table of lines is in a <pre>
        lead = _lead_cell(page, table + 1, table)
        names = _number_attributes(page.node_elements[lead]) if lead >= 0 else {}
        if not names or any(a <= first[table] < b for a, b in taken):
            continue
        rows = [n for n in range(table + 1, _subtree_end(page, table)) if tags[n] == "tr" and _row_of(page, n) == table]
        for k, row in enumerate(rows):
            cell = _lead_cell(page, row, table)
            numbers = _number_attributes(page.node_elements[cell]) if cell >= 0 else {}
            names = {name: start for name, start in names.items() if numbers.get(name) == start + k}
            if not names:
                break
        if not names or len(rows) < 2 or first[rows[0]] == last[table]:
            continue
        text = "\n".join(" ".join(page.texts[first[row] : last[row]]) for row in rows).strip("\n")
        found.listings.append(CodeBlock(table, first[table], last[table], text=text))


def _subtree_end(page: Page, node: int) -> int:
    """One past the last node inside `node`."""
    depths = page.node_depths
    end = node + 1
    while end < len(depths) and depths[end] > depths[node]:
        end += 1
    return end


def _row_of(page: Page, row: int) -> int:
    """The table a <tr> is a row of (through a row group), or -1."""
    parent = page.node_parents[row]
    if parent >= 0 and page.node_tags[parent] in ROW_GROUP_TAGS:
        parent = page.node_parents[parent]
    return parent if parent >= 0 and page.node_tags[parent] == "table" else -1


def _lead_cell(page: Page, row: int, table: int) -> int:
    """The first cell of row `row` (or of the table's first row, from its row group) when it
    holds no text, else -1."""
    tags, parents = page.node_tags, page.node_parents
    if row < len(tags) and tags[row] in ROW_GROUP_TAGS and parents[row] == table:
        row += 1
    if row + 1 >= len(tags) or tags[row] != "tr" or tags[row + 1] not in CELL_TAGS or parents[row + 1] != row:
        return -1
    cell = row + 1
    return cell if page.node_first[cell] == page.node_last[cell] else -1


def _number_attributes(element: etree._Element) -> dict[str, int]:
    """The attributes of `element` whose values are integers, by name."""
    return {
        str(name): int(value)
        for name, value in element.items()
        if value.isascii() and value.isdecimal() and len(value) <= MAX_NUMBER_CHARS
    }


# -- inline numbers --


def _may_start_with_numbers(text: str) -> bool:
    """Whether the first two lines of a block start with two numbers counting up (or its only
    line with a number): cheap, before the tree is read."""
    m = _LINE_START.match(text)
    if m is None:
        return False
    newline = text.find("\n")
    if newline < 0:
        return True
    second = _LINE_START.match(text, newline + 1)
    return second is not None and int(second.group(1)) == int(m.group(1)) + 1


def _without_inline_numbers(page: Page, block: int) -> str | None:
    """The text of the <pre> block `block` without the element at the start of each line that
    holds its number; None when its lines are not numbered so (or its text cannot be read
    back exactly as the walk read it)."""
    node = page.nodes[block]
    if node < 0 or page.node_first[node] != block or page.node_last[node] != block + 1:
        return None
    root = page.node_elements[node]
    full: list[str] = []  # the text as the walk reads it
    bare: list[str] = []  # the same without the numbers
    line_open = False  # text written on the current line
    number: etree._Element | None = None  # the number element being read
    expected = -1
    ends: list[tuple[int, bool]] = []  # per number: where it ends in the text, ends in white space
    length = 0

    def add(text: str | None) -> None:
        nonlocal line_open, length
        if not text or (not full and text.isspace()):
            return  # the walk drops white space before a block's first text
        full.append(text)
        length += len(text)
        if number is None:
            bare.append(text)
        newline = text.rfind("\n")
        line_open = newline < len(text) - 1 if newline >= 0 else line_open or bool(text)

    walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    for event, el in walker:
        if event in ("comment", "pi"):
            add(el.tail)
            continue
        if event == "end":
            if el is number:
                ends.append((length, full[-1][-1:].isspace() if full else False))
                number = None
            if el is not root:
                add(el.tail)
            continue
        if el is root:
            add(el.text)
            continue
        kind = (TAG_INFO.get(cast(str, el.tag)) or tag_info(el.tag))[0]
        if kind == K_SKIP or walk_skips(page, el):
            walker.skip_subtree()
            continue
        if kind in (K_BLOCK, K_PRE):
            return None  # another block's text: not a <pre> of one block
        if kind == K_BR:
            add("\n")
            walker.skip_subtree()
            continue
        if number is None and not line_open:
            raw = "".join(el.itertext())
            value = raw.strip()
            if "\n" not in raw and value.isascii() and value.isdecimal() and len(value) <= MAX_NUMBER_CHARS:
                if expected >= 0 and int(value) != expected:
                    return None
                number, expected = el, int(value) + 1
        add(el.text)
    text = "".join(full).strip("\n")
    if not text.isascii():
        text = clean_text(text)
    if not ends or text != page.texts[block] or len(ends) != text.count("\n") + 1:
        return None
    whole = "".join(full)
    rests = [whole[end : end + 2] for end, _ in ends]
    # "1 apple" on every line: the author's numbers; a number glued to its code, or set off by
    # white space of its own or by an indentation, is the highlighter's.
    if not any(spaced for _, spaced in ends) and all(
        rest[:1] in ("", "\n") or (rest[:1] == " " and rest[1:2] not in ("", " ", "\t", "\n")) for rest in rests
    ):
        return None
    bare_text = "".join(bare).strip("\n")
    if not bare_text.strip():
        return None
    return clean_text(bare_text)
