"""The entries of a feed or a sitemap, read from its bytes one at a time in bounded memory.

A feed or a sitemap comes from the web: it may be huge, junk, or made to be slow. The reader feeds
lxml's pull parser a chunk at a time (recovering from errors, no entities resolved, no network, no
huge-tree limits lifted), hands out each element of the asked-for names at its end, with its
children, and after each chunk drops the elements that have ended, but for the children of an
asked-for element still open. Python sees the asked-for elements alone (lxml filters the events),
so the work is linear in the bytes read and most of it is lxml's; the memory is a chunk's
elements and the largest entry (within lxml's depth limit, 256 levels); and a reader that stops
early stops the parse there too.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from lxml import etree

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

#: Bytes fed to the parser at a time.
CHUNK = 64 * 1024


def chunks(body: bytes, size: int = CHUNK) -> Iterator[bytes]:
    """`body` in pieces of `size` bytes."""
    for start in range(0, len(body), size):
        yield body[start : start + size]


def localname(tag: object) -> str:
    """An element's name without its namespace; "" for what is not an element (an entity)."""
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def ended(pieces: Iterable[bytes], names: frozenset[str]) -> Iterator[etree._Element]:
    """Each element named in `names` (local names), at its end, in document order of the ends.

    Its children are there to read; what lies outside the named elements, and deeper than their
    children, is dropped once it has ended. What does not parse ends the reading quietly (with
    what came before it). Exceptions of `pieces` (a decompression limit) pass through.
    """
    pieces = iter(pieces)
    first = next(pieces, b"")
    # Events for the named elements only (Python sees no other element); and the root's start,
    # whose name the first bytes tell, so that the tree can be pruned from the start.
    watched = set(names) | {name for name in [_root_name(first)] if name}
    parser = etree.XMLPullParser(
        events=("start", "end"),
        tag=[f"{{*}}{name}" for name in sorted(watched)],
        recover=True,
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        collect_ids=False,
    )
    root: etree._Element | None = None
    try:
        for piece in itertools.chain([first], pieces):
            parser.feed(piece)
            for event, element in parser.read_events():
                if root is None:
                    root = element.getroottree().getroot()
                if event == "end" and localname(element.tag) in names:
                    yield element
            if root is not None:
                _prune(root, names)
        parser.close()
    except etree.LxmlError:
        return
    for event, element in parser.read_events():
        if event == "end" and localname(element.tag) in names:
            yield element


def _root_name(start: bytes) -> str | None:
    """The local name of the first element the bytes open (past a declaration, comments, a
    DOCTYPE), if they tell it; a wrong guess costs events, not results."""
    match = _FIRST_ELEMENT.search(start)
    return match.group(1).decode("ascii").rpartition(":")[2] if match else None


_FIRST_ELEMENT = re.compile(rb"<([A-Za-z_][A-Za-z0-9_.:-]*)")


def _prune(root: etree._Element, names: frozenset[str]) -> None:
    """Drops every element that has ended and been read: down the path of the elements still open
    (each one the last child of the one before), all the children before the open one, except
    those of a named element (its reader looks at them when it ends)."""
    node = root
    while len(node):
        if localname(node.tag) not in names:
            del node[:-1]  # in C: the children before the last, which have ended
        node = node[-1]
