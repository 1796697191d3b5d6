"""The kept content as Markdown and HTML.

The decision is per block; the outputs are built from *units* in document
order (text.py): a block, a data table (whole, see selection/tables.py) or an
image. ``text`` comes from the blocks' own texts and is built at once (text.py).
Markdown and HTML are built when first read: they read the inline markup of
each kept block back from the tree (segments.py), number ordered lists, indent
nested ones, and render data tables as tables.

Safe output: the HTML is written here, tag by tag, from a fixed set of tags
and attributes (no script, style, iframe, svg, event handler or style
attribute can get through: none is ever written), every text and attribute
value escaped, every URL absolute http(s) (urls.py). Markdown escapes what a
renderer would read as markup: ``<``, ``>``, ``&`` before an entity, brackets,
emphasis characters, backticks, and list, heading, quote and table markers
at the start of a line.
"""

from __future__ import annotations

import dataclasses
import html as html_lib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..document.elements import FLAG, HEADING_TAGS
from ..document.words import clean_text
from ..selection.tables import MAX_COLSPAN, MAX_ROWS, MAX_ROWSPAN, Table
from .segments import SegmentReader
from .urls import safe_url

if TYPE_CHECKING:
    from lxml import etree

    from ..document.page import Page
    from .segments import Token
    from .text import Unit

LIST_TAGS = frozenset(("ul", "ol", "menu"))
DEF_TAGS = frozenset(("dt", "dd"))
QUOTE = FLAG["blockquote"]
IN_LIST = FLAG["li"]
MAX_LIST_DEPTH = 8
MD_BREAK = "\\\n"  # a hard line break in Markdown: a backslash at the end of the line
_HTML_TAG = {"code": "code", "em": "em", "strong": "strong"}


@dataclass
class MarkupOptions:
    """What the Markdown and HTML hold besides the text (from the extraction's `Options`)."""

    include_links: bool = False
    include_images: bool = False
    base: str | None = None  # what relative URLs are resolved against (urls.page_base)


def render_markup(page: Page, units: list[Unit], lead: str | None, options: MarkupOptions) -> tuple[str, str]:
    """(Markdown, HTML) of `units`, with `lead` (the title) first when given."""
    renderer = _Renderer(page, options)
    if lead:
        renderer.md_blocks.append(("", "# " + escape_markdown(" ".join(lead.split()), line_start=False)))
        renderer.html_parts.append(f"<h1>{html_lib.escape(lead, quote=False)}</h1>")
    for unit in units:
        if unit[0] == "block":
            renderer.block(unit[1])
        elif unit[0] == "table":
            renderer.table(unit[1])
        elif unit[0] == "code":
            code = unit[1]
            if code.last - code.first == 1:
                renderer.block(code.first, code.written(page))  # one <pre>: in its lists and quotes
            else:
                renderer.code(code.written(page))
        elif options.include_images:
            renderer.image(unit[1], unit[2])
    # Inline markup is read back from the tree: NFC and no soft hyphens here, as in the blocks.
    return clean_text(renderer.markdown()), clean_text(renderer.html())


@dataclass(frozen=True, slots=True)
class Level:
    """A list around a block."""

    list_node: int
    list_tag: str
    item: int  # the node of the list's item that holds the block


@dataclass(frozen=True, slots=True)
class Cell:
    """A table cell as the grid holds it."""

    md: str
    html: str
    header: bool
    colspan: int
    rowspan: int
    copy: bool  # a copy of a spanning cell (or a gap): in the Markdown only


#: An empty place of the grid (after a colspan, or a row shorter than the others).
_GAP = Cell("", "", False, 1, 1, True)


class _Frame:
    """An open inline element of a segment: its kind and href, and the Markdown, HTML and
    plain-text pieces written inside it so far."""

    __slots__ = ("kind", "href", "md", "html", "plain")

    def __init__(self, kind: str, href: str | None) -> None:
        self.kind, self.href = kind, href
        self.md: list[str] = []
        self.html: list[str] = []
        self.plain: list[str] = []


class _Renderer:
    def __init__(self, page: Page, options: MarkupOptions) -> None:
        self.page = page
        self.options = options
        self.segments = SegmentReader(page)
        self.base = options.base
        # Markdown: (join key, text) per block: consecutive items of one list (same key)
        # are joined by one newline, everything else by a blank line.
        self.md_blocks: list[tuple[str, str]] = []
        self.html_parts: list[str] = []
        self.open_html: list[tuple[int, str]] = []  # open lists and items: (node, closing tag)
        self.open_nodes: dict[int, int] = {}  # node -> how often it is in open_html (a page's lists may be deep)
        self.items_started: set[int] = set()  # li/dt/dd nodes whose marker was written
        self.ordinals: dict[int, dict[int, int]] = {}  # ordered list node -> {item node: number}
        self.items_of: dict[int, list[int]] | None = None  # node -> its li children (_ordinal)
        self.levels_of: dict[int, list[Level]] = {}  # node -> its lists (_list_levels)
        self.outer: dict[tuple[int, int], tuple[Level, ...]] = {}  # (node, item below) -> its lists

    # -- blocks --

    def block(self, i: int, code: str | None = None) -> None:
        """Block `i`; `code`: the text of a <pre> block as written (without its line numbers)."""
        page = self.page
        tag = page.tags[i]
        levels = self._list_levels(page.nodes[i])
        self._close_html_outside(levels)
        if tag == "pre" or code is not None:
            md, inner = _code_block(page.texts[i] if code is None else code)
        else:
            tokens = self.segments.tokens(i)
            if tokens is None:
                md = escape_markdown(page.texts[i])
                inner = html_lib.escape(page.texts[i], quote=False)
            else:
                md, inner = self._inline(tokens)
            if not md:
                return
            if tag in HEADING_TAGS and not levels:
                level = max(2, int(tag[1]))
                md = f"{'#' * level} {md}"
                inner = f"<h{level}>{inner}</h{level}>"
            elif not levels or self._continues_item(levels):
                inner = f"<p>{inner}</p>"
        if page.flags[i] & QUOTE:
            md = "\n".join("> " + line if line else ">" for line in md.split("\n"))
            inner = f"<blockquote>{inner}</blockquote>"
        key = ""
        if levels:
            md, inner, tight = self._in_lists(levels, md, inner)
            key = str(levels[0].list_node) if tight else ""
        self.md_blocks.append((key, md))
        self.html_parts.append(inner)

    def _list_levels(self, node: int) -> list[Level]:
        """The lists around `node`, outermost first."""
        if node < 0 or (not (self.page.node_flags[node] & IN_LIST) and self.page.node_tags[node] not in DEF_TAGS):
            return []
        levels = self.levels_of.get(node)
        if levels is None:
            levels = self.levels_of[node] = self._find_list_levels(node)
        return levels

    def _find_list_levels(self, node: int) -> list[Level]:
        """The lists whose items hold `node`, found going up to the root (a table starts afresh),
        outermost first, the first MAX_LIST_DEPTH of them. Each (node, item) on the way is worked
        out once a page (`outer`): a block in lists nested deep reads no more than one in a list."""
        tags, parents, outer = self.page.node_tags, self.page.node_parents, self.outer
        # Up to a node already known (or the root, or a table): (node, the item that holds the
        # block below it, -1 for none)...
        path: list[tuple[int, int]] = []
        item = -1
        known: tuple[Level, ...] = ()
        while node >= 0:
            tag = tags[node]
            if tag == "li" or tag in DEF_TAGS:
                item = node
            found = outer.get((node, item))
            if found is not None:
                known = found
                break
            if tag == "table":
                outer[(node, item)] = ()
                break
            path.append((node, item))
            if (tag in LIST_TAGS or tag == "dl") and item >= 0:
                item = -1
            node = parents[node]
        # ...then down again, each one's lists those of the one above and its own.
        for node, item in reversed(path):
            tag = tags[node]
            if (tag in LIST_TAGS or tag == "dl") and item >= 0 and len(known) < MAX_LIST_DEPTH:
                known = (*known, Level(node, tag, item))
            outer[(node, item)] = known
        return list(known)

    def _continues_item(self, levels: list[Level]) -> bool:
        return levels[-1].item in self.items_started

    def _in_lists(self, levels: list[Level], md: str, inner: str) -> tuple[str, str, bool]:
        """The block inside its lists: markers for the items it starts (an item with no
        text of its own gets an empty marker line), indentation for the rest; the HTML
        lists and items opened as needed. `tight`: the block starts an item."""
        indent = ""
        head_lines: list[str] = []
        html_open: list[str] = []
        tight = False
        for depth, level in enumerate(levels):
            list_node, list_tag, item = level.list_node, level.list_tag, level.item
            item_tag = self.page.node_tags[item] if self.page.node_tags[item] in DEF_TAGS else "li"
            marker = self._marker(list_tag, list_node, item, item_tag)
            if not self.open_nodes.get(list_node):
                html_tag = {"ol": "ol", "dl": "dl"}.get(list_tag, "ul")
                start = self._ordinal(list_node, item) if html_tag == "ol" else 1
                html_open.append(f'<{html_tag} start="{start}">' if start != 1 else f"<{html_tag}>")
                self._open(list_node, f"</{html_tag}>")
            if item not in self.items_started:
                self.items_started.add(item)
                while self.open_html and self.open_html[-1][0] != list_node:
                    html_open.append(self._close())  # the list's previous item
                html_open.append(f"<{item_tag}>")
                self._open(item, f"</{item_tag}>")
                if depth == len(levels) - 1:
                    lines = md.split("\n")
                    md = "\n".join(
                        [indent + marker + lines[0]] + [indent + " " * len(marker) + line for line in lines[1:]]
                    )
                    tight = True
                    return "\n".join(head_lines + [md]), "".join(html_open) + inner, True
                head_lines.append(indent + marker.rstrip())
            indent += " " * len(marker)
        md = "\n".join(indent + line for line in md.split("\n"))
        return "\n".join(head_lines + [md]), "".join(html_open) + inner, tight or bool(head_lines)

    def _marker(self, list_tag: str, list_node: int, item: int, item_tag: str) -> str:
        if list_tag == "ol":
            return f"{self._ordinal(list_node, item)}. "
        if item_tag == "dd":
            return ": "
        if item_tag == "dt":
            return ""
        return "- "

    def _ordinal(self, list_node: int, item: int) -> int:
        """The number of `item` in the ordered list `list_node` (its start attribute honoured)."""
        numbers = self.ordinals.get(list_node)
        if numbers is None:
            page = self.page
            start = 1
            element = page.node_elements[list_node] if page.node_elements else None
            if element is not None:
                try:
                    start = int((element.get("start") or "1").strip())
                except ValueError:
                    start = 1
            if self.items_of is None:
                # Every node's li children, in one pass: lists nested deep would each scan
                # their whole subtree again.
                self.items_of = {}
                for node, (tag, parent) in enumerate(zip(page.node_tags, page.node_parents)):
                    if tag == "li":
                        self.items_of.setdefault(parent, []).append(node)
            items = self.items_of.get(list_node, ())
            numbers = self.ordinals[list_node] = {node: start + k for k, node in enumerate(items)}
        return numbers.get(item, 1)

    def _open(self, node: int, closing: str) -> None:
        """An HTML list or item opened (`closing`: its end tag)."""
        self.open_html.append((node, closing))
        self.open_nodes[node] = self.open_nodes.get(node, 0) + 1

    def _close(self) -> str:
        """The end tag of the innermost open list or item, closed."""
        node, closing = self.open_html.pop()
        self.open_nodes[node] -= 1
        return closing

    def _close_html_outside(self, levels: list[Level]) -> None:
        """Close the open HTML lists and items that `levels` is not inside."""
        keep = {level.list_node for level in levels} | {level.item for level in levels}
        closings = []
        while self.open_html and self.open_html[-1][0] not in keep:
            closings.append(self._close())
        if not closings:
            return
        if self.html_parts:
            self.html_parts[-1] += "".join(closings)
        else:
            self.html_parts.append("".join(closings))

    # -- tables, code blocks and images --

    def code(self, text: str) -> None:
        self._close_html_outside([])
        md, html = _code_block(text)
        self.md_blocks.append(("", md))
        self.html_parts.append(html)

    def table(self, table: Table) -> None:
        self._close_html_outside([])
        grid, header_rows = self._grid(table)
        if not grid:
            return
        width = max(len(row) for row in grid)
        captions = [self._cell(c) for c in table.caption]
        md_lines = [" ".join(md for md, _ in captions if md) + "\n"] if any(md for md, _ in captions) else []
        md_lines.append(_md_row([c.md for c in grid[0]], width))
        md_lines.append("|" + "|".join([" --- "] * width) + "|")
        md_lines.extend(_md_row([c.md for c in row], width) for row in grid[1:])
        self.md_blocks.append(("", "\n".join(md_lines)))

        parts = ["<table>"]
        if any(html for _, html in captions):
            parts.append(f"<caption>{' '.join(html for _, html in captions if html)}</caption>")
        if header_rows:
            parts.append("<thead>")
            parts.extend(_html_row(row, "th") for row in grid[:header_rows])
            parts.append("</thead>")
        parts.append("<tbody>")
        parts.extend(_html_row(row, None) for row in grid[header_rows:])
        parts.append("</tbody></table>")
        self.html_parts.append("".join(parts))

    def _grid(self, table: Table) -> tuple[list[list[Cell]], int]:
        """Rows of cells, spans filled for Markdown: a colspan leaves empty cells after its cell,
        a rowspan repeats its cell below (the HTML writes the originals with their spans)."""
        page = self.page
        grid: list[list[Cell]] = []
        carried: dict[int, tuple[Cell, int]] = {}  # column -> (cell, rows it still covers)
        header_rows = 0

        def place_carried(row: list[Cell], until: int) -> None:
            while len(row) < until:
                column = len(row)
                if column in carried:
                    cell, rows = carried[column]
                    row.append(dataclasses.replace(cell, copy=True))
                    if rows - 1 <= 0:
                        del carried[column]
                    else:
                        carried[column] = (cell, rows - 1)
                else:
                    row.append(_GAP)  # nothing there

        for _, in_head, cells in table.rows[:MAX_ROWS]:
            if not cells:
                continue
            row: list[Cell] = []
            for node in cells:
                while len(row) in carried:
                    place_carried(row, len(row) + 1)
                element = page.node_elements[node] if page.node_elements else None
                colspan = _span(element, "colspan", MAX_COLSPAN)
                rowspan = _span(element, "rowspan", MAX_ROWSPAN)
                md, html = self._cell(node)
                header = page.node_tags[node] == "th"
                cell = Cell(md, html, header, colspan, rowspan, False)
                if rowspan > 1:
                    carried[len(row)] = (cell, rowspan - 1)
                row.append(cell)
                row.extend(Cell("", "", header, 1, 1, True) for _ in range(colspan - 1))
            if carried:
                place_carried(row, max(carried) + 1)
            is_header = in_head or all(c.header for c in row if not c.copy)
            if is_header and header_rows == len(grid):
                header_rows += 1
            grid.append(row)
        return grid, header_rows

    def _cell(self, node: int) -> tuple[str, str]:
        """A cell's (or caption's) content: its blocks' inline markup, joined."""
        page = self.page
        md, html = [], []
        for i in range(page.node_first[node], page.node_last[node]):
            tokens = self.segments.tokens(i)
            if tokens is None:
                md.append(escape_markdown(page.texts[i], line_start=False))
                html.append(html_lib.escape(page.texts[i], quote=False))
            else:
                m, h = self._inline(tokens, line_start=False)
                md.append(m.replace(MD_BREAK, " "))
                html.append(h)
        return " ".join(p for p in md if p), "<br>".join(p for p in html if p)

    def image(self, url: str, alt: str) -> None:
        self._close_html_outside([])
        alt = " ".join(alt.split())
        self.md_blocks.append(("", f"![{escape_markdown(alt, line_start=False)}]({_md_url(url)})"))
        self.html_parts.append(f'<p><img src="{html_lib.escape(url)}" alt="{html_lib.escape(alt)}"></p>')

    # -- inline markup --

    def _inline(self, tokens: list[Token], line_start: bool = True) -> tuple[str, str]:
        """(Markdown, HTML) of a segment's tokens, without recursion (nesting can be deep)."""
        if all(
            token[0] == "text" or (token[0] != "br" and token[1] == "link" and not self.options.include_links)
            for token in tokens
        ):
            # No markup to keep (most paragraphs): the text alone.
            text = " ".join("".join(token[1] for token in tokens if token[0] == "text").split())
            return escape_markdown(text, line_start=line_start), html_lib.escape(text, quote=False)
        # One frame per open inline element; the first is the block.
        stack: list[_Frame] = [_Frame("", None)]
        in_code = 0
        at_line_start = line_start  # the block's own text is at the start of a line
        for token in tokens:
            frame = stack[-1]
            if token[0] == "text":
                raw = token[1]
                text = " ".join(raw.split())
                if not text:
                    if raw:
                        frame.md.append(" ")
                        frame.html.append(" ")
                        frame.plain.append(" ")
                    continue
                text = (" " if raw[0].isspace() else "") + text + (" " if raw[-1].isspace() else "")
                if in_code:
                    frame.md.append(text)
                else:
                    start = at_line_start and len(stack) == 1
                    frame.md.append(escape_markdown(text, line_start=start))
                frame.html.append(html_lib.escape(text, quote=False))
                frame.plain.append(text)
                at_line_start = False
            elif token[0] == "br":
                frame.md.append(" " if in_code else MD_BREAK)
                frame.html.append(" " if in_code else "<br>")
                frame.plain.append(" ")
                at_line_start = line_start and len(stack) == 1 and not in_code
            elif token[0] == "open":
                if token[1] == "code":
                    in_code += 1
                stack.append(_Frame(token[1], token[2]))
            elif token[0] == "close" and len(stack) > 1 and stack[-1].kind == token[1]:
                if token[1] == "code":
                    in_code -= 1
                self._close_frame(stack, in_code)
                at_line_start = False
        while len(stack) > 1:  # a segment cut inside an inline element
            if stack[-1].kind == "code":
                in_code -= 1
            self._close_frame(stack, in_code)
        lines = (" ".join(line.split(" ")).strip() for line in "".join(stack[0].md).split(MD_BREAK))
        md = MD_BREAK.join(" ".join(line.split()) for line in lines if line)
        parts = (" ".join(part.split()) for part in "".join(stack[0].html).split("<br>"))
        html = "<br>".join(part for part in parts if part)
        return md, html

    def _close_frame(self, stack: list[_Frame], in_code: int) -> None:
        """Pop the innermost inline element and write it into its parent."""
        frame = stack.pop()
        kind, href = frame.kind, frame.href
        parent = stack[-1]
        md, html, plain = "".join(frame.md), "".join(frame.html), "".join(frame.plain)
        lead = " " if md[:1] == " " else ""
        trail = " " if md[-1:] == " " else ""
        core, html_core = md.strip(), html.strip()
        if core and not in_code:
            if kind == "code":
                raw = " ".join(plain.split())
                ticks = "`" * (_longest_run(raw, "`") + 1)
                pad = " " if raw.startswith("`") or raw.endswith("`") else ""
                core = f"{ticks}{pad}{raw}{pad}{ticks}"
                if parent.md and parent.md[-1].endswith("`") and not lead:
                    lead = " "  # two code spans in a row would read as one
                html_core = f"<code>{html_core}</code>"
            elif kind == "em":
                core, html_core = f"*{core}*", f"<em>{html_core}</em>"
            elif kind == "strong":
                core, html_core = f"**{core}**", f"<strong>{html_core}</strong>"
            elif kind == "link" and self.options.include_links:
                url = safe_url(href, self.base)
                if url is not None:
                    core = f"[{core}]({_md_url(url)})"
                    html_core = f'<a href="{html_lib.escape(url)}">{html_core}</a>'
        elif core and kind != "link":
            html_core = f"<{_HTML_TAG[kind]}>{html_core}</{_HTML_TAG[kind]}>"  # inside code
        parent.md.append(lead + core + trail)
        parent.html.append((" " if html[:1].isspace() else "") + html_core + (" " if html[-1:].isspace() else ""))
        parent.plain.append(plain)

    # -- output --

    def markdown(self) -> str:
        out: list[str] = []
        previous_key = None
        for key, md in self.md_blocks:
            if out:
                out.append("\n" if key and key == previous_key else "\n\n")
            out.append(md)
            previous_key = key
        return "".join(out).strip()

    def html(self) -> str:
        self._close_html_outside([])
        return "\n".join(part for part in self.html_parts if part)


_MD_INLINE = re.compile(r"([\\`*\[\]])|(?<!\w)_|_(?!\w)|<|>|&(?=#?\w+;)")
_MD_LINE_START = re.compile(r"^(\s*)([#>+\-=|~]|\d{1,9}(?=[.)](?:\s|$)))")
_MD_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
_LINE_START_CHARS = frozenset("#>+-=|~0123456789")
_MD_SPECIAL = frozenset("\\`*[]_<>&")


def escape_markdown(text: str, line_start: bool = True) -> str:
    """`text` with what a Markdown renderer would read as markup escaped."""
    out = text if _MD_SPECIAL.isdisjoint(text) else _MD_INLINE.sub(_escape_inline, text)
    if line_start:
        if "\n" in out:
            out = "\n".join(_MD_LINE_START.sub(_escape_line_start, line) for line in out.split("\n"))
        elif out[:1] in _LINE_START_CHARS or out[:1].isspace():
            out = _MD_LINE_START.sub(_escape_line_start, out)
    return out


def _escape_inline(match: re.Match[str]) -> str:
    return _MD_ENTITIES.get(match.group(0)) or "\\" + match.group(0)


def _escape_line_start(match: re.Match[str]) -> str:
    marker: str = match.group(2)
    lead: str = match.group(1)
    if marker.isdigit():
        return lead + marker + "\\"  # "1." -> "1\." (the dot follows)
    return lead + "\\" + marker


def _md_url(url: str) -> str:
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


def _md_row(cells: list[str], width: int) -> str:
    cells = [c.replace("|", "\\|") for c in cells] + [""] * (width - len(cells))
    return "| " + " | ".join(cells) + " |"


def _html_row(row: list[Cell], force_tag: str | None) -> str:
    parts = ["<tr>"]
    for cell in row:
        if cell.copy:
            continue
        tag = force_tag or ("th" if cell.header else "td")
        colspan, rowspan = cell.colspan, cell.rowspan
        attrs = (f' colspan="{colspan}"' if colspan > 1 else "") + (f' rowspan="{rowspan}"' if rowspan > 1 else "")
        parts.append(f"<{tag}{attrs}>{cell.html}</{tag}>")
    parts.append("</tr>")
    return "".join(parts)


def _span(element: etree._Element | None, name: str, limit: int) -> int:
    if element is None:
        return 1
    try:
        return max(1, min(limit, int((element.get(name) or "1").strip())))
    except ValueError:
        return 1


def _code_block(text: str) -> tuple[str, str]:
    """(Markdown, HTML) of preformatted text: a fence longer than any backtick run in it."""
    fence = "`" * max(3, _longest_run(text, "`") + 1)
    return f"{fence}\n{text}\n{fence}", f"<pre><code>{html_lib.escape(text, quote=False)}</code></pre>"


def _longest_run(text: str, char: str) -> int:
    runs = re.findall(re.escape(char) + "+", text)
    return max(map(len, runs), default=0)


__all__ = ["MarkupOptions", "escape_markdown", "render_markup"]
