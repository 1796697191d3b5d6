"""A story's closing credit line right after the kept body is kept (issue 26, item 2)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import real_page, unless_cut

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.options import Options
from scrapy_boilerplate.core.selection.steps import Selection, keep_credit_line

BODY = [
    "The jury took four hours to reach its verdict on Tuesday.",
    "The defendant's lawyers said they would appeal the ruling.",
]


def kept_after(tail: str) -> list:
    """The block texts kept after keep_credit_line, with the body's paragraphs kept before it."""
    paragraphs = "".join(f"<p>{p}</p>" for p in BODY)
    page = build_page(
        parse_html(
            f"<html><body><article>{paragraphs}</article>{tail}"
            "<footer><p>Reporting by our staff, all rights reserved.</p></footer></body></html>"
        )
    )
    s = Selection(page, np.full(len(page), 0.3), None, Options(), None, [])
    s.mask = np.array([text in BODY for text in page.texts])
    keep_credit_line(s)
    return [t for t, m in zip(page.texts, s.mask) if m]


@pytest.mark.parametrize(
    "credit",
    [
        "Additional reporting by Steve Gorman; Editing by Marguerita Choy",
        "(Reporting by Jane Doe in Tunis; Editing by John Roe)",
        "Heba Habib contributed to this report.",
    ],
)
def test_a_credit_line_in_its_own_div_after_the_body_is_kept(credit):
    assert kept_after(f'<div class="attribution"><p>{credit}</p></div>') == [*BODY, credit]


def test_other_lines_after_the_body_stay_out():
    assert kept_after("<div><p>Our Standards: The Thomson Reuters Trust Principles.</p></div>") == BODY
    # A credit line far from the body, or in the footer, is not the story's.
    far = "<div><p>Share this</p><p>Read more</p><p>Reporting by Jane Doe</p></div>"
    assert kept_after(far) == BODY
    assert kept_after("") == BODY


@unless_cut(("trafilatura-eval", "reuters.com.parasite"))
def test_a_real_credit_line():
    # Reuters: "Additional reporting by Steve Gorman; Editing by ..." (p .48) after the last paragraph.
    page = real_page("trafilatura-eval", "reuters.com.parasite")
    assert "Additional reporting by" in extract(page.read_html(), url=page.url).text
