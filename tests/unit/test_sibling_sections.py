"""A document's sections beside the kept ones are kept, each decided as a unit (issue 26, item 6)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import real_page, shared_unless_cut

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.options import Options
from scrapy_boilerplate.core.selection.steps import Selection, keep_document_sections

TEXT = (
    "The option {} changes how the command records the state of the tree, and the "
    "paragraphs of this section say when to use it and what it costs. "
) * 3


def paragraph(name: str) -> str:
    return "<p>" + TEXT.replace("{}", name) + "</p>"


def section(name: str, tag: str = "div", heading: str = "<h2>{}</h2>") -> str:
    return f'<{tag} class="sect">{heading.format(name)}{paragraph(name)}{paragraph(name)}</{tag}>'


def selected(body: str, probability: dict, kept: set, opts: dict | None = None) -> list:
    """Headings of the sections kept after keep_document_sections: `probability` maps a section
    name to its blocks' probability (default .1), `kept` names the sections the decoder kept."""
    page = build_page(parse_html(f"<html><body>{body}</body></html>"))
    names = []
    name = None
    for text, tag in zip(page.texts, page.tags):
        if tag in ("h2", "h3"):
            name = text
        names.append(name)
    proba = np.array([probability.get(n, 0.1) for n in names])
    s = Selection(page, proba, None, Options(**(opts or {})), None, [])
    s.mask = np.array([n in kept for n in names])
    keep_document_sections(s)
    return sorted({n for n, m in zip(names, s.mask) if m and n})


MANUAL = "".join(section(n) for n in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "HOOKS", "FILES", "GIT"))


def test_the_sections_around_the_kept_ones_are_kept():
    probability = {
        "NAME": 0.45,
        "SYNOPSIS": 0.4,
        "DESCRIPTION": 0.9,
        "OPTIONS": 0.9,
        "HOOKS": 0.3,
        "FILES": 0.25,
        "GIT": 0.05,
    }
    kept = selected(MANUAL, probability, {"DESCRIPTION", "OPTIONS"})
    # GIT scores under .2 on average: the run after the kept sections stops there.
    assert kept == ["DESCRIPTION", "FILES", "HOOKS", "NAME", "OPTIONS", "SYNOPSIS"]


def test_a_run_stops_at_the_first_section_that_is_not_content():
    probability = {"DESCRIPTION": 0.9, "OPTIONS": 0.9, "HOOKS": 0.1, "FILES": 0.6, "GIT": 0.6}
    assert selected(MANUAL, probability, {"DESCRIPTION", "OPTIONS"}) == ["DESCRIPTION", "OPTIONS"]


def test_one_kept_section_or_precision_leaves_the_group_to_the_model():
    probability = {"DESCRIPTION": 0.9, "OPTIONS": 0.4, "HOOKS": 0.4}
    assert selected(MANUAL, probability, {"DESCRIPTION"}) == ["DESCRIPTION"]
    both = {"DESCRIPTION", "OPTIONS"}
    assert selected(MANUAL, probability, both, {"favor": "precision"}) == ["DESCRIPTION", "OPTIONS"]


def test_posts_with_linked_titles_are_not_sections():
    posts = "".join(section(n, heading='<h2><a href="/blog/{0}">{0}</a></h2>') for n in "ABCD")
    probability = {"A": 0.9, "B": 0.9, "C": 0.5, "D": 0.5}
    assert selected(posts, probability, {"A", "B"}) == ["A", "B"]
    # A heading's own anchor link is still a section's heading.
    anchored = "".join(section(n, heading='<h2><a href="#{0}">{0}</a></h2>') for n in "ABCD")
    assert selected(anchored, probability, {"A", "B"}) == ["A", "B", "C", "D"]


def test_sections_after_a_table_of_contents():
    intro = f"<div class='intro'>{paragraph('intro')}</div>"
    toc = "<nav><h2>In this article</h2><ul><li>Constructor</li><li>Properties</li><li>Events</li></ul></nav>"
    body = intro + toc + "".join(section(n, "section") for n in ("Constructor", "Properties", "Events"))
    probability = {"Constructor": 0.3, "Properties": 0.4, "Events": 0.3}
    page_names = selected(body, probability, {None})
    assert page_names == ["Constructor", "Events", "Properties"]
    # Text that is not navigation between them: the group is not the kept content's continuation.
    other = (
        intro + "<div><h3>Newsletter</h3><p>Sign up for our newsletter today.</p></div>" + body[len(intro) + len(toc) :]
    )
    assert selected(other, probability, {None}) == []


@pytest.mark.parametrize(
    ("name", "page_id", "present"),
    [
        # git-commit's man page: the sections after EXAMPLES scored .2-.5 block by block (the stacked
        # model keeps COMMIT INFORMATION's paragraphs itself but drops its heading at .52, and the
        # SYNOPSIS heading at .57 before its first kept block; the NAME section before it is kept).
        shared_unless_cut(
            "wcxb-dev",
            "0689",
            ["Author and committer information", "HOOKS", "This command can run commit-msg", "git-commit - Record"],
        ),
        # MDN's WebSocket: the introduction, the "In this article" aside, then the reference sections.
        shared_unless_cut(
            "wcxb-dev",
            "2993",
            ["Instance properties", "The number of bytes of queued data.", "Fired when a connection"],
        ),
    ],
)
def test_real_reference_pages(name, page_id, present):
    page = real_page(name, page_id)
    text = extract(page.read_html(), url=page.url).text
    for words in present:
        assert words in text
