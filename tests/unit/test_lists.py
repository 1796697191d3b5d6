"""Lists as one unit (issue 26): the dropped items between two kept items of a list of alike items
are kept, a list of links and a list of long items (posts) stay item by item (item 1); definition
lists dropped whole between kept blocks are kept when likely content (item 2)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import real_page, shared_unless_cut, unless_cut

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.selection.lists import fill_definition_list_gaps, fill_list_gaps

ITEMS = [
    "Preheat the oven",
    "Grease the tin",
    "Sift the flour",
    "Beat the eggs",
    "Melt the butter",
    "Fold in the sugar",
    "Pour the batter",
    "Bake for an hour",
    "Let it cool",
    "Dust with sugar",
]


def kept_after(list_html: str, kept: tuple) -> list:
    """The block texts kept after the list rule, the blocks holding one of `kept` kept before it."""
    html = (
        f"<html><body><article><p>The recipe, step by step, as my grandmother made it.</p>"
        f"{list_html}<p>Serve it warm, with cream.</p></article></body></html>"
    )
    page = build_page(parse_html(html))
    mask = np.array([any(k == text for k in kept) for text in page.texts])
    fill_list_gaps(page, mask)
    return [t for t, m in zip(page.texts, mask) if m]


def test_a_list_cut_in_the_middle_is_kept_whole_between_its_kept_items():
    items = "".join(f"<li>{item}</li>" for item in ITEMS)
    kept = kept_after(f"<ol>{items}</ol>", (*ITEMS[:3], *ITEMS[8:]))
    assert kept == ITEMS  # items 4-8 filled in; nothing outside the list added


def test_items_outside_the_kept_ones_stay_out():
    items = "".join(f"<li>{item}</li>" for item in ITEMS)
    assert kept_after(f"<ul>{items}</ul>", (ITEMS[2], ITEMS[5])) == ITEMS[2:6]
    assert kept_after(f"<ul>{items}</ul>", (ITEMS[2],)) == [ITEMS[2]]  # one kept item: no gap


def test_a_list_of_links_stays_a_judgement_of_its_own():
    items = "".join(f'<li><a href="/deal/{i}">{item}</a></li>' for i, item in enumerate(ITEMS))
    kept = (*ITEMS[:3], *ITEMS[8:])
    assert kept_after(f"<ul>{items}</ul>", kept) == list(kept)


def test_a_list_of_long_items_is_not_one_unit():
    posts = [
        f"Post {i}: " + " ".join(["I tried the new firmware on my router and the connection drops stopped."] * 4)
        for i in range(5)
    ]
    items = "".join(f"<li>{post}</li>" for post in posts)
    kept = (posts[0], posts[4])
    assert kept_after(f"<ul>{items}</ul>", kept) == list(kept)


def test_an_item_much_longer_than_the_kept_ones_is_not_alike():
    odd = "A long aside about ovens, " * 8
    items = "".join(f"<li>{item}</li>" for item in (*ITEMS[:3], odd, *ITEMS[3:5]))
    kept = (*ITEMS[:3], *ITEMS[3:5])
    assert kept_after(f"<ul>{items}</ul>", kept) == list(kept)


@pytest.mark.parametrize(
    ("name", "page_id", "items"),
    [
        # A backpacking checklist's hygiene items: "First-aid kit" to "Eye drops" at p .09-.64 between
        # kept items ("Toilet paper ...", "Body Glide ...").
        shared_unless_cut("wcxb-dev", "4695", ("Band-aids", "Gauze pads", "Neosporin", "Toothpaste", "Eye drops")),
        # Another checklist: "Digging trowel" to "Nail clipper" (p .46-.76), and "Base layers"
        # (p .44) in the clothing list, between kept items.
        shared_unless_cut("wcxb-dev", "4698", ("Digging trowel", "Menstrual products", "Nail clipper", "Base layers")),
    ],
)
def test_real_lists_cut_in_the_middle(name, page_id, items):
    page = real_page(name, page_id)
    text = extract(page.read_html(), url=page.url).text
    assert all(item in text for item in items)


def dl_kept(dl_html: str, proba: float) -> list:
    """The block texts kept after the definition-list rule, with the two paragraphs around the
    list kept and the list's blocks at `proba`."""
    before = "The grill reaches 800 degrees in ten minutes and sears a steak in two."
    after = "In the box: the grill, a pizza stone, a steak rack and a drip tray."
    page = build_page(
        parse_html(f"<html><body><article><p>{before}</p>{dl_html}<p>{after}</p></article></body></html>")
    )
    mask = np.array([text in (before, after) for text in page.texts])
    proba_ = np.where(mask, 0.95, proba)
    fill_definition_list_gaps(page, mask, proba_)
    return [t for t, m in zip(page.texts, mask) if m]


PROS_CONS = (
    "<dl><dt>Pros</dt><dd>Low price</dd><dd>Well made</dd><dd>Perfect steaks</dd></dl>"
    "<dl><dt>Cons</dt><dd>Hot only in the middle</dd></dl>"
)


def test_pros_and_cons_between_two_kept_sections_are_kept():
    assert "Low price" in dl_kept(PROS_CONS, 0.45) and "Hot only in the middle" in dl_kept(PROS_CONS, 0.45)


def test_an_unlikely_definition_list_between_posts_stays_out():
    box = "<dl><dt>Joined</dt><dd>Jan 5, 2020</dd><dt>Messages</dt><dd>1,253</dd></dl>"
    assert len(dl_kept(box, 0.15)) == 2


def test_a_definition_list_of_links_stays_out():
    cards = "".join(
        f'<dl><dt>Service {i}</dt><dd><a href="/s/{i}">Learn more about service {i}</a></dd></dl>' for i in range(3)
    )
    assert len(dl_kept(cards, 0.45)) == 2


def test_a_gap_that_is_not_all_definition_lists_is_left_to_the_decoder():
    assert len(dl_kept(PROS_CONS + "<div>Play video</div>", 0.45)) == 2


@unless_cut(("trafilatura-eval", "chip.de.beef"))
def test_real_pros_and_cons_between_two_kept_sections():
    # chip.de's Beef Maker review: "Vorteile" / "Nachteile" (p .41-.68, 7 blocks) between "Fazit"
    # and the technical data.
    page = real_page("trafilatura-eval", "chip.de.beef")
    text = extract(page.read_html(), url=page.url).text
    assert "Niedriger Preis" in text and "Starke Hitze nur in der Mitte" in text
