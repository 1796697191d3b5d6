"""The two fallbacks after the selection: each may replace the extraction with a better one.

They run after the steps (steps.py lists them last in `PIPELINE`), on the finished extraction,
because each compares extracted text: a page that is a thread is selected again with its
comment sections walked; a client-rendered page whose markup holds next to nothing gets the
body its JSON-LD states.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..document.page import Page, build_page
from ..metadata.article import declares_thread
from .kept import Kept
from .stated_body import BODY_FALLBACK_SHARE, body_page, stated_body
from .tables import find_data_tables

if TYPE_CHECKING:
    from ..extraction import Extraction

#: An extraction shorter than this, on a page whose comment sections hold most of its text,
#: is made again with the comment sections walked (forum threads, posts marked up as comments).
THREAD_FALLBACK_CHARS = 500


class Run(Protocol):
    """What a fallback reads of the extraction being made (core/extractor.py gives it)."""

    page: Page

    @property
    def include_comments(self) -> bool: ...

    def select(self, page: Page) -> Extraction:
        """The extraction of `page` with the selection of this run (its probabilities anew)."""

    def extraction(self, kept: Kept) -> Extraction:
        """The extraction of the blocks in `kept`."""


def rewalk_thread(run: Run, result: Extraction) -> Extraction:
    """Next to nothing outside comment sections, or a page that says it is a thread: on a forum
    thread or a page of reader posts, the "comments" are the content. Walked again with them,
    and kept if the model then finds more (comment sections are not forced in)."""
    page = run.page
    if (
        not run.include_comments
        and page.root is not None
        and (len(result.text) < THREAD_FALLBACK_CHARS or declares_thread(page))
    ):
        full = build_page(page.root, include_comments=True, base_url=page.base_url)
        if sum(full.chars) >= 2 * sum(page.chars):
            candidate = run.select(full)
            if len(candidate.text) > len(result.text):
                return candidate
    return result


def use_stated_body(run: Run, result: Extraction) -> Extraction:
    """Next to nothing found in the markup of a page that states its body in JSON-LD (a
    client-rendered page): the stated body is the content. Not where a site rule matched: the
    rule says where the content is in the markup."""
    rule = result.site_rule
    if rule is not None and rule["matched"]:
        return result
    body = stated_body(run.page)
    if body is not None and len(result.text) < BODY_FALLBACK_SHARE * len(body):
        stated = body_page(body, run.page)
        if stated is not None:
            mask = stated.arrays.chars > 0
            # A rule that matched nothing here forced nothing out of the stated body.
            candidate = run.extraction(
                Kept(
                    stated,
                    mask,
                    mask.astype(float),
                    result.title,
                    find_data_tables(stated),
                    site_rule={**rule, "forced_out": []} if rule is not None else None,
                )
            )
            if len(candidate.text) > len(result.text):
                return candidate
    return result
