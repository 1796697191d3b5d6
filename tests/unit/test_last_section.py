"""A last section cut off behind a heading the model scores low (issue 26, item 2)."""

from __future__ import annotations

import numpy as np
from conftest import real_page, unless_cut

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.selection.sections import keep_last_section

BODY = [
    "Cloud computing offers almost unlimited resources to process large volumes of data.",
    "It also lets a team try a new service for a few days without buying any hardware for it.",
]
ITEMS = [
    "Compute: virtual machines in predefined or custom sizes for every workload",
    "Storage: one place for objects of any size, replicated across regions",
]
CLOSING = "The list of available services is long, and it keeps growing every month."


def kept_after(heading: str, items=ITEMS, closing=CLOSING, proba=0.6, heading_proba=0.3) -> list:
    """The block texts kept after keep_last_section, the body kept before it; the section's blocks
    at `proba`, its heading at `heading_proba`, the footer at .05."""
    lis = "".join(f"<li>{item}</li>" for item in items)
    html = (
        f"<html><body><article>{''.join(f'<p>{p}</p>' for p in BODY)}{heading}<ul>{lis}</ul>"
        f"<p>{closing}</p></article><footer><p>Terms of use</p></footer></body></html>"
    )
    page = build_page(parse_html(html))
    mask = np.array([text in BODY for text in page.texts])
    probabilities = np.where(mask, 0.95, proba)
    probabilities[len(BODY)] = heading_proba
    probabilities[-1] = 0.05
    keep_last_section(page, mask, probabilities)
    return [t for t, m in zip(page.texts, mask) if m]


def test_a_last_section_under_a_div_heading_is_kept_with_its_items_and_closing_paragraph():
    kept = kept_after('<div class="section-title">Related products and services</div>')
    assert kept == [*BODY, "Related products and services", *ITEMS, CLOSING]


def test_what_the_model_does_not_lean_to_stays_out():
    heading = '<div class="section-title">Related products and services</div>'
    assert kept_after(heading, proba=0.4) == BODY  # the section is unlikely content
    assert kept_after(heading, heading_proba=0.1) == BODY  # the heading is sure boilerplate
    assert kept_after(heading, items=["Start free"], closing="Sign up today") == BODY  # a call to action
    # A sentence is not a heading; a real heading tag is left to the decoder's own heading rules
    # (measured: keeping h1-h6 sections too cost as many pages as it gained).
    assert kept_after("<p>We also liked the following ones, which you may know already.</p>") == BODY
    assert kept_after("<h2>Related products and services</h2>") == BODY


@unless_cut(("wcxb-dev", "0005"))
def test_a_real_last_section_under_a_div_heading():
    # Google Cloud's "What is cloud computing": "Related products and services" (a div in an h2,
    # p .39), then two paragraphs (p .75, .61) cut after the last kept paragraph.
    page = real_page("wcxb-dev", "0005")
    text = extract(page.read_html(), url=page.url).text
    assert "Google Cloud is a suite of cloud computing services" in text
