"""A page builder's text widgets around the kept content are one article (core/selection/widgets.py)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import real_page, shared_unless_cut

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.selection.widgets import keep_text_widget_runs
from scrapy_boilerplate.training.metrics import score_page


def widget(number: int, inner: str, kind: str = "elementor-widget-text-editor", extra: str = "") -> str:
    """One Elementor widget as the builder writes it: numbered classes, several wrappers."""
    return (
        f'<section class="elementor-section elementor-element-{number}a"><div class="elementor-column">'
        f'<div class="elementor-element elementor-element-{number}f elementor-widget {kind} {extra}">'
        f'<div class="elementor-widget-container"><div class="elementor-text-editor">{inner}'
        f"</div></div></div></div></section>"
    )


BUILT_POST = (
    '<html><body><nav><a href="/">Home</a></nav><div class="elementor elementor-42">'
    + widget(1, "<p>The first paragraph of the post, which the model is sure of.</p>")
    + widget(2, "<h2>A subheading</h2>", kind="elementor-widget-heading")
    + widget(
        3,
        "<p>Earcuff: Zoeca</p><p>Second piece of the post, in a widget of its own.</p>"
        '<p><a href="/shop">Shop the look</a></p><p>Advertisement</p>',
    )
    + widget(4, "<p>A related story, in a box of its own kind.</p>", extra="related-box")
    + widget(5, "<p>Text after the related box.</p>")
    + '</div><footer><div class="elementor-widget-text-editor"><p>Footer text in a text widget.</p>'
    "</div></footer></body></html>"
)


def built_post():
    page = build_page(parse_html(BUILT_POST))
    texts = page.texts
    proba = np.full(len(texts), 0.3)
    proba[texts.index("Advertisement")] = 0.02  # the model is sure of this one
    mask = np.zeros(len(texts), bool)
    mask[texts.index("The first paragraph of the post, which the model is sure of.")] = True
    return page, proba, mask


def test_the_text_widgets_after_a_kept_one_are_kept_up_to_a_widget_of_another_kind():
    page, proba, mask = built_post()
    keep_text_widget_runs(page, mask, proba)
    kept = [text for text, keep in zip(page.texts, mask) if keep]
    assert kept == [
        "The first paragraph of the post, which the model is sure of.",
        "A subheading",
        "Earcuff: Zoeca",
        "Second piece of the post, in a widget of its own.",
    ]


def test_pages_without_a_kept_text_widget_are_left_alone():
    page, proba, mask = built_post()
    mask[:] = False
    mask[page.texts.index("Home")] = True
    keep_text_widget_runs(page, mask, proba)
    assert [text for text, keep in zip(page.texts, mask) if keep] == ["Home"]
    plain = build_page(parse_html("<html><body><article><p>One paragraph.</p><p>Two.</p></article></body></html>"))
    mask = np.array([True, False])
    keep_text_widget_runs(plain, mask, np.array([0.9, 0.3]))
    assert mask.tolist() == [True, False]


@pytest.mark.parametrize(
    "name, page_id",
    [
        shared_unless_cut("trafilatura-eval", page_id)
        for page_id in ("novalanalove.com.ear-candy", "otto.de.twoforfashion")
    ],
)
def test_real_posts_built_of_widgets(name, page_id):
    page = real_page(name, page_id)
    score = score_page(page, extract(page.read_html(), url=page.url).text)
    assert score.with_share == 1.0, score  # the widgets' lines are kept
    if page_id != "novalanalove.com.ear-candy":
        # novalanalove: the stacked model keeps the next post's teaser after the body (p .75), a
        # teaser, not a widget, question
        assert score.without_share == 1.0, score
