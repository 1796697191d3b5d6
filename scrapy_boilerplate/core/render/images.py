"""The images inside the kept content, as absolute http(s) URLs."""

from __future__ import annotations

import numpy as np

from ..document.page import Page
from .urls import safe_url


def content_images(page: Page, mask: np.ndarray, base: str | None) -> list[tuple[int, str, str]]:
    """(block index, absolute http(s) URL, alt) of the images inside the kept content (from
    the first to the last kept block), each URL once."""
    if not mask.any() or not page.images:
        return []
    first, last = np.flatnonzero(mask)[[0, -1]]
    n = len(mask)
    seen: set[str] = set()
    out: list[tuple[int, str, str]] = []
    for index, src, alt, width, height in page.images:
        if not (first <= index <= last + 1):
            continue
        # Inside the content span, unless it sits in a link block that is not content
        # (a teaser thumbnail between two parts of the body).
        in_teaser = index < n and not mask[index] and page.link_chars[index] >= 0.8 * page.chars[index]
        if in_teaser or _tiny(width) or _tiny(height):
            continue
        absolute = safe_url(src, base)
        if absolute is not None and absolute not in seen:
            seen.add(absolute)
            out.append((index, absolute, alt))
    return out


def _tiny(value: str | None) -> bool:
    try:
        return value is not None and float(str(value).rstrip("px")) <= 2
    except ValueError:
        return False
