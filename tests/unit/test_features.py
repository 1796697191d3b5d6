"""The dense feature matrix (core/scoring/features.py): every column under its own name."""

import re

import numpy as np
import pytest
from conftest import load_shared_pages, needs_shared

from scrapy_boilerplate import load_model
from scrapy_boilerplate.core.document.elements import FLAG_NAMES
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.scoring.features import (
    DENSE_COLUMNS,
    DENSE_NAMES,
    dense_columns,
    dense_feature_names,
    dense_features,
    feature_matrix,
)

HTML = """<html><head><title>Otters return upstream</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Otters return upstream</h1>
<p>After twenty years the otters are back in the river, counted by volunteers every spring.</p>
<p>Short one.</p>
<ul><li>A list item with <a href="/x">a link</a></li></ul>
<p>The council says the water is cleaner, and the fish have come back too, says the report.</p></article>
<footer>Footer text 2026</footer></body></html>"""


@pytest.fixture(scope="module")
def page():
    return build_page(parse_html(HTML))


def column(X, name):
    return X[:, DENSE_NAMES.index(name)]


def test_names_come_from_the_column_table_and_are_unique():
    assert dense_feature_names() == DENSE_NAMES == [name for name, _ in DENSE_COLUMNS]
    assert len(set(DENSE_NAMES)) == len(DENSE_NAMES)


def test_the_shipped_model_names_columns_of_this_order():
    # Columns are only ever appended: a model trained before the last ones names the first.
    names = load_model().feature_names
    dense = [name for name in names if not name.startswith("tok=")]
    assert names[: len(dense)] == dense == DENSE_NAMES[: len(dense)]


def test_a_model_gets_the_columns_it_names(page):
    X = dense_features(page)
    assert dense_columns(DENSE_NAMES + ["tok=post"]) is None  # all of them: no selection
    names = ["ld", "lwords", "td", "tok=post", "tok=nav"]
    columns = dense_columns(names)
    assert columns == (DENSE_NAMES.index("ld"), DENSE_NAMES.index("lwords"), DENSE_NAMES.index("td"))
    assert np.array_equal(dense_features(page, columns=columns), X[:, list(columns)])
    both = feature_matrix(page, {"post": 0, "nav": 1}, columns)
    assert both.shape == (len(page), 5) and np.array_equal(both[:, :3], X[:, list(columns)])
    with pytest.raises(ValueError, match="unknown features: no_such_column"):
        dense_columns(["lwords", "no_such_column", "tok=post"])
    with pytest.raises(ValueError):
        dense_columns(["lwords", "tok=post", "ld"])  # a dense name after the tokens


def test_matrix_has_one_column_per_name(page):
    assert dense_features(page).shape == (len(page), len(DENSE_NAMES))


def test_columns_hold_what_their_names_say(page):
    # Recomputed here from the page, by name: a column under another column's name fails.
    X = dense_features(page)
    chars = np.asarray(page.chars, float)
    words = np.maximum(np.asarray(page.words, float), 1)
    ld = np.asarray(page.link_chars, float) / np.maximum(chars, 1)
    lwords = np.log1p(words)
    assert np.array_equal(column(X, "lwords"), lwords)
    assert np.array_equal(column(X, "lchars"), np.log1p(chars))
    assert np.array_equal(column(X, "ld"), ld)
    assert np.array_equal(column(X, "links"), np.log1p(np.asarray(page.links, float)))
    assert np.array_equal(column(X, "depth"), np.asarray(page.depths, float))
    assert np.array_equal(column(X, "rel_pos"), np.arange(len(page)) / (len(page) - 1))
    assert np.array_equal(column(X, "n_blocks"), np.full(len(page), np.log1p(len(page))))
    # neighbours: the previous and next block's values, 0 (link density 1) past the ends
    assert np.array_equal(column(X, "lwords@-1"), np.r_[0.0, lwords[:-1]])
    assert np.array_equal(column(X, "lwords@+2"), np.r_[lwords[2:], 0.0, 0.0])
    assert np.array_equal(column(X, "ld@+1"), np.r_[ld[1:], 1.0])
    assert np.array_equal(column(X, "q_words_prev"), lwords - np.r_[0.0, lwords[:-1]])
    assert np.array_equal(column(X, "q_ld_prev"), ld - np.r_[1.0, ld[:-1]])
    # tags and flags
    assert column(X, "tag=h1").tolist() == [float(t == "h1") for t in page.tags]
    assert column(X, "tag=li").tolist() == [float(t == "li") for t in page.tags]
    for flag in ("nav", "article", "footer", "li", "link", "heading"):
        bit = 1 << FLAG_NAMES.index(flag)
        assert column(X, f"flag={flag}").tolist() == [float(bool(f & bit)) for f in page.flags], flag
    assert column(X, "flag=nav").any() and column(X, "flag=article").any()
    title = [i for i, t in enumerate(page.texts) if t == "Otters return upstream"]
    assert column(X, "is_title")[title].tolist() == [1.0]


@needs_shared("real blocks of many sites")
def test_the_grouped_cue_and_date_patterns_match_what_plain_alternations_match():
    """CUE_START_RE and DATE_RE are written for speed (branches grouped by first character, a
    digit looked ahead); on every block of real pages and on edge cases they match where the plain
    patterns do."""
    from scrapy_boilerplate.core.scoring.features import CUE_START_RE, CUE_START_WORDS, DATE_RE

    plain_cue = re.compile(r"^\W{0,3}(?:" + "|".join(CUE_START_WORDS) + ")", re.IGNORECASE)
    plain_date = re.compile(r"\b(?:19|20)\d\d\b|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b")
    texts = [
        "Read more", "» READ MORE »", "Sſponsored", "ſponsored by", "• Tags : otters", "tags:x", "© 2024",
        "À lire aussi", "à LIRE", "By\tJane", "by", "Photo: AP", "1999", "x2001", "12/3/2024", "1.2.24",
        "2024a", "20244", "on 3-4-56.", "K Kelvin", "İmage", "",
    ]  # fmt: skip
    for p in load_shared_pages("wcxb-dev", 40):
        texts += build_page(parse_html(p.read_html())).texts
    for text in texts:
        assert (CUE_START_RE.match(text) is None) == (plain_cue.match(text) is None), text
        assert (DATE_RE.search(text) is None) == (plain_date.search(text) is None), text


def test_token_features_mark_each_block_s_chain_tokens():
    """One column per vocabulary token, 1 where the token is in the block's id/class chain, also
    written into a view of a wider matrix (as feature_matrix does), whatever was there."""
    from conftest import cut_real_pages

    from scrapy_boilerplate.core.scoring.features import token_features

    vocabulary = load_model().token_index
    checked = 0
    for item in cut_real_pages()[:8]:
        page = build_page(parse_html(item.read_html()))
        expected = np.array([[float(t in set(chain)) for t in vocabulary] for chain in page.tokens])
        expected = expected.reshape(len(page), len(vocabulary))
        np.testing.assert_array_equal(token_features(page, vocabulary), expected, err_msg=item.id)
        wide = np.full((len(page), 3 + len(vocabulary)), 7.0)
        token_features(page, vocabulary, out=wide[:, 3:])
        np.testing.assert_array_equal(wide[:, 3:], expected, err_msg=item.id)
        assert (wide[:, :3] == 7.0).all()
        checked += expected.any()
    assert checked >= 4  # pages whose blocks carry vocabulary tokens


def test_a_date_holds_four_digits_so_texts_with_fewer_are_not_searched():
    """text_stats searches DATE_RE only in texts with four digits or more: no shorter match."""
    import itertools

    from scrapy_boilerplate.core.scoring.features import DATE_RE, text_stats

    pieces = ["1", "9", "20", "0", ".", "/", "-", " ", "x", "٣"]
    few = ["".join(p) for n in range(1, 5) for p in itertools.product(pieces, repeat=n)]
    few = [t for t in few if sum(c.isdecimal() for c in t) < 4]
    assert not [t for t in few if DATE_RE.search(t)]
    texts = ["2024", "on 1.2.24", "x 1999 y", "12-3-2020", "3 comments"]
    found = text_stats(texts, frozenset(), frozenset(), frozenset())[:, 10]
    assert found.tolist() == [1.0, 1.0, 1.0, 1.0, 0.0]
