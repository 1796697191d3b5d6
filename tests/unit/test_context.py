"""The second stage's context features (core/scoring/context.py)."""

import numpy as np
import pytest

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import to_element
from scrapy_boilerplate.core.scoring.context import CONTEXT_FEATURES, context_features, page_structure

PAGE = b"""<html><body>
<div class="nav"><a href="/a">Home</a> <a href="/b">News</a></div>
<div class="story">
<p>First paragraph of the story with quite a few words in it.</p>
<p>Second paragraph of the story, again with several words.</p>
<p class="promo"><a href="/c">READ THIS OTHER STORY</a></p>
<p>Third paragraph of the story closes the article here.</p>
</div>
<div class="side"><p class="promo"><a href="/d">More</a></p></div>
</body></html>"""


@pytest.fixture
def page():
    return build_page(to_element(PAGE))


def column(name):
    return CONTEXT_FEATURES.index(name)


def test_context_of_a_link_line_between_paragraphs(page):
    texts = page.texts
    story = [i for i, t in enumerate(texts) if "paragraph" in t]
    promo = texts.index("READ THIS OTHER STORY")
    proba = np.full(len(texts), 0.1)
    proba[story] = 0.9
    proba[promo] = 0.4
    X = context_features(proba, page_structure(page))
    assert X.shape == (len(texts), len(CONTEXT_FEATURES))
    assert np.isfinite(X).all()
    assert X[promo, column("p")] == pytest.approx(0.4)
    assert X[promo, column("p@-1")] == pytest.approx(0.9)
    assert X[promo, column("p@+1")] == pytest.approx(0.9)
    # its container is the story: its highest probability is .9, most of its words are likely content
    assert X[promo, column("par_max")] == pytest.approx(0.9)
    assert X[promo, column("par_hi_share")] > 0.8
    # inside the span of the longest likely run? No: the run is broken by the promo, the longest
    # part is the first two paragraphs, and the promo comes right after it
    assert X[promo, column("run_inside")] == 0
    assert X[promo, column("run_after")] == pytest.approx(np.log1p(1))
    # the paragraphs' siblings of the same tag and class path are the other paragraphs; the
    # promo has none (its class differs), nor has the side promo (its container's differs)
    assert X[story[0], column("sib_mean")] == pytest.approx(0.9)
    assert X[promo, column("sib_mean")] == -1.0
    assert X[texts.index("More"), column("sib_mean")] == -1.0
    # the first block has no block before it
    assert X[0, column("p@-1")] == -1.0


def test_span_maximum_equals_a_loop(page):
    rng = np.random.default_rng(0)
    proba = rng.random(len(page.texts))
    s = page_structure(page)
    X = context_features(proba, s)
    loop = [proba[a:b].max() for a, b in zip(s.parent_first, s.parent_last)]
    np.testing.assert_allclose(X[:, column("par_max")], loop)


def test_empty_page_has_no_rows():
    page = build_page(to_element(b"<html><body></body></html>"))
    assert context_features(np.zeros(0), page_structure(page)).shape == (0, len(CONTEXT_FEATURES))
