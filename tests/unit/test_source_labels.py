"""A link card's or standfirst box's source label is not content (issue 26, item 5)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import real_page, unless_cut

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.options import Options
from scrapy_boilerplate.core.selection.steps import Selection, drop_card_sources

TEASER = "The new plan would bring stability for the troubled nation, officials said on Monday."
BODY = "".join(
    f"<p>Paragraph {i} of the story tells how the council met on Tuesday to discuss the budget, "
    "the roads and the schools of the town, and what the mayor said about it afterwards.</p>"
    for i in range(6)
)


def kept_after(box: str, url: str = "https://example.com/news/plan", head: str = "") -> list:
    """The block texts kept by drop_card_sources when everything was kept before it."""
    page = build_page(
        parse_html(
            f"<html><head>{head}</head><body><article><p>Opening paragraph of the post, "
            f"long enough to be text.</p>{box}<p>Closing paragraph of the post.</p>"
            "</article></body></html>"
        ),
        base_url=url,
    )
    s = Selection(page, np.full(len(page), 0.5), None, Options(), None, [])
    s.mask = np.ones(len(page), bool)
    drop_card_sources(s)
    return [t for t, m in zip(page.texts, s.mask) if m]


CARD = (
    '<div class="card"><a href="https://time.com/6123/plan/"><h3>What the plan means</h3></a>'
    f'<p>{TEASER}</p><div class="source">{{label}}</div></div>'
)


@pytest.mark.parametrize("label", ["Time", "www.time.com", "time.com", "TIME"])
def test_a_cards_source_label_goes(label):
    kept = kept_after(CARD.format(label=label))
    assert TEASER in kept and label not in kept


def test_the_outlets_name_spelt_as_its_host_goes():
    card = CARD.replace("https://time.com", "https://www.businessinsider.com").format(label="Business Insider")
    assert "Business Insider" not in kept_after(card)


def test_a_standfirst_box_ending_with_the_sites_own_name():
    box = f'<div class="standfirst"><p>{TEASER}</p><span class="source">Time</span></div>'
    assert "Time" not in kept_after(box, url="https://time.com/6123/plan/")
    head = '<meta property="og:site_name" content="The Daily Planet">'
    box = f'<div class="standfirst"><p>{TEASER}</p><p>The Daily Planet</p></div>'
    assert "The Daily Planet" not in kept_after(box, url="https://dailyplanet.example/x", head=head)


def test_names_that_are_content_stay():
    # A label naming no site of the box's links (a quote's author), a card linking the page's own
    # site, a heading, a label that is not the box's last line, a box without a teaser.
    assert "Carey Cranston" in kept_after(CARD.format(label="Carey Cranston"))
    own = CARD.replace("https://time.com", "https://example.com").format(label="Time")
    assert "Time" in kept_after(own)
    assert "Time" in kept_after(CARD.replace('<div class="source">{label}</div>', "<h3>Time</h3>"))
    assert "Time" in kept_after(CARD.format(label="Time").replace("</div></div>", "</div><p>More words.</p></div>"))
    assert "Time" in kept_after('<div><a href="https://time.com/x">Read</a> <div>Time</div></div>')
    big = CARD.format(label="Time").replace(f"<p>{TEASER}</p>", f"<p>{TEASER}</p>" * 12)
    assert "Time" in kept_after(big)


def test_on_a_whole_page():
    card = CARD.format(label="Time")
    html = f"<html><body><article><h1>The plan</h1>{BODY[:400]}{card}{BODY}</article></body></html>"
    text = extract(html, url="https://example.com/x/plan").text
    assert TEASER in text and "\nTime\n" not in text


@unless_cut(("wcxb-dev", "0522"))
def test_a_real_link_card():
    # A forum post's unfurled link: headline, teaser, then "www.businessinsider.com" (p .48), which
    # the decoder kept between the teaser and the post's quoted text; the gold leaves it out.
    page = real_page("wcxb-dev", "0522")
    text = extract(page.read_html(), url=page.url).text
    assert "household items like skincare devices" in text
    assert "www.businessinsider.com" not in text
