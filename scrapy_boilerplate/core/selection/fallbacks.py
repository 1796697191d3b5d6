"""The two fallbacks at the end of the selection: each may replace what was selected.

They are the last steps of `STEPS` (steps.py `rewalk_thread`, `use_stated_body`) because each
compares extracted text: a page that is a thread is selected again with its comment sections
walked; a client-rendered page whose markup holds next to nothing gets the body its JSON-LD
states. This module says when each is tried and what it tries; the steps decide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..document.page import Page, build_page
from ..metadata.article import declares_thread
from .kept import Kept
from .stated_body import BODY_FALLBACK_SHARE, body_page, stated_body
from .tables import find_data_tables

if TYPE_CHECKING:
    from .site_rules import RuleSummary

#: An extraction shorter than this, on a page whose comment sections hold most of its text,
#: is made again with the comment sections walked (forum threads, posts marked up as comments).
THREAD_FALLBACK_CHARS = 500


def thread_page(page: Page, text_chars: int, include_comments: bool) -> Page | None:
    """`page` walked again with its comment sections, when that may be a thread's content: next
    to nothing (`text_chars` extracted) outside comment sections, or a page that says it is a
    thread, whose comment sections hold at least as much text as the rest. None otherwise."""
    if not include_comments and page.root is not None and (text_chars < THREAD_FALLBACK_CHARS or declares_thread(page)):
        full = build_page(page.root, include_comments=True, base_url=page.base_url)
        if sum(full.chars) >= 2 * sum(page.chars):
            return full
    return None


def stated_kept(page: Page, text_chars: int, rule: RuleSummary | None, title: str | None) -> Kept | None:
    """The body `page` states in its JSON-LD, all of it kept, when next to nothing (`text_chars`)
    was found in its markup. None otherwise, and where a site rule matched: the rule says where
    the content is in the markup."""
    if rule is not None and rule["matched"]:
        return None
    body = stated_body(page)
    if body is None or text_chars >= BODY_FALLBACK_SHARE * len(body):
        return None
    stated = body_page(body, page)
    if stated is None:
        return None
    mask = stated.arrays.chars > 0
    # A rule that matched nothing here forced nothing out of the stated body.
    return Kept(
        stated,
        mask,
        mask.astype(float),
        title,
        find_data_tables(stated),
        site_rule={**rule, "forced_out": []} if rule is not None else None,
    )
