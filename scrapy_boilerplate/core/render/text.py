"""The kept content as units (blocks, tables, code blocks, images) and as plain text lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

from ..selection.code_blocks import CodeBlock
from ..selection.tables import Table

#: A unit of the kept content, in document order: ("block", block index), ("table", Table),
#: ("code", CodeBlock) or ("image", url, alt).
Unit = (
    tuple[Literal["block"], int]
    | tuple[Literal["table"], Table]
    | tuple[Literal["code"], CodeBlock]
    | tuple[Literal["image"], str, str]
)
#: An image of the content: (block index, url, alt).
ContentImage = tuple[int, str, str]

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..document.page import Page


def content_units(
    page: Page,
    mask: np.ndarray,
    tables: list[Table],
    images: list[ContentImage],
    code_blocks: Sequence[CodeBlock] = (),
) -> list[Unit]:
    """Kept blocks, data tables, code blocks and images in document order: ("block", i),
    ("table", Table), ("code", CodeBlock), ("image", url, alt). `images`: (block index, url,
    alt). A code block is a <pre> of several blocks (a line a <div>), or a listing without its
    line numbers, written as one."""
    units: list[Unit] = []
    unit_at: dict[int, tuple[Literal["table"], Table] | tuple[Literal["code"], CodeBlock]] = {
        t.first: ("table", t) for t in tables
    }
    unit_at.update((c.first, ("code", c)) for c in code_blocks)
    pending_images = list(images)
    skip_to = 0  # past the last table written
    for i in np.flatnonzero(mask).tolist():
        if i < skip_to:
            continue
        unit = unit_at.get(i)
        if unit is not None:
            _add_images(units, pending_images, unit[1].last)
            units.append(unit)
            skip_to = unit[1].last
        else:
            _add_images(units, pending_images, i + 1)
            units.append(("block", i))
    _add_images(units, pending_images, len(mask) + 1)
    return units


def _add_images(units: list[Unit], pending: list[ContentImage], before: int) -> None:
    """Move the images placed before block `before` into `units`."""
    while pending and pending[0][0] < before:
        _, url, alt = pending.pop(0)
        units.append(("image", url, alt))


def units_text(page: Page, units: list[Unit]) -> list[str]:
    """One line per block, one per table row (cells joined by " | ")."""
    from .tables import table_rows_text

    lines: list[str] = []
    for unit in units:
        if unit[0] == "block":
            lines.append(page.texts[unit[1]])
        elif unit[0] == "table":
            lines.extend(table_rows_text(page, unit[1], None))
        elif unit[0] == "code":
            lines.append(unit[1].written(page))
    return lines
