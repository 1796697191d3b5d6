"""Class/id cues (core/document/cue_words.py, cues.py): the word lists and what they mark.

The expected cues below were recorded with the regex cue patterns these word
lists replaced, and must not change unless a vocabulary is changed on purpose
(compound comment-section names were added since).
"""

import pytest
from cue_names import COMMENT_NAMES, clear_cue_caches

from scrapy_boilerplate.core.document import cue_words, cues
from scrapy_boilerplate.core.document.elements import FLAG


def flag_names(bits: int) -> list:
    return sorted(name for name, bit in FLAG.items() if bits & bit)


@pytest.mark.parametrize(
    "name, expected, comment",
    [
        ("entry-content", ["body_prop", "positive"], False),
        ("hentry", ["positive"], False),
        ("h-entry", ["positive"], False),
        ("read-more", ["related"], False),
        ("ReadMore", ["related"], False),
        ("nav", ["negative"], False),
        ("navigation", [], False),  # "nav" is a whole word: not in "navigation"
        ("main-nav", ["negative", "positive"], False),
        ("canvas", [], False),
        ("tags", ["negative"], False),
        ("tag", ["negative"], False),
        ("post-tags", ["negative", "positive"], False),
        ("taglist", ["negative"], False),
        ("wp-caption", ["caption"], False),
        ("photo-info", ["caption"], False),  # adjacent tokens joined: "photoinfo"
        ("ads", ["ad"], False),
        ("ad", ["ad"], False),
        ("head", [], False),
        ("header", ["negative"], False),
        ("top-ad", ["ad"], False),
        ("adslot", ["ad"], False),
        ("dfp-slot", ["ad"], False),
        ("cmp", ["cookie"], False),
        ("cmp-banner", ["cookie", "negative"], False),
        ("cookie-notice", ["cookie"], False),
        ("articleBody", ["body_prop", "positive"], False),
        ("article_body", ["body_prop", "positive"], False),
        ("post-body-text", ["body_prop", "positive"], False),
        ("story-body", ["body_prop", "positive"], False),
        ("comments", ["comment"], True),
        ("comments-area", ["comment"], True),
        ("comment_section", ["comment"], True),
        ("comment-list", ["comment"], True),
        ("disqus_thread", ["comment"], True),
        ("respond", ["comment"], True),
        ("comment-respond", ["comment"], True),
        ("replies", ["comment"], True),
        ("comment-count", [], False),
        ("commentary", [], False),
        ("tag-creditshelf", [], False),  # the post's own taxonomy, not the template's
        ("category-comments", [], False),
        ("post-90871", [], False),
        ("postid-12", [], False),
        ("page-id-3", [], False),
        ("post-", ["positive"], False),
        ("Post-12", [], False),
        ("sidebar-left", ["negative"], False),
        ("social-share", ["share"], False),
        ("also-read", ["related"], False),
        ("newsletter-signup", ["negative", "newsletter"], False),
        ("subtitle", ["title_like"], False),
        ("xyzzy", [], False),
        ("elementor-widget", ["negative"], False),
        ("dateline", ["meta"], False),
        ("site-title", ["title_like"], False),
        ("footer-menu", ["negative"], False),
        ("TALKBACK", ["comment"], True),
        ("comments list", ["comment"], True),  # an id with a space: each part is looked at
        # Compound names with a "comment(s)" part name comment sections too...
        ("article_comments", ["comment", "positive"], True),
        ("comment-box", ["comment"], True),
        ("comment-215101", ["comment"], True),
        ("comments-disclosure", ["comment"], True),
        ("epoch-comment-content", ["comment", "positive"], True),
        # ... unless a later part makes them a link, a counter or a state.
        ("post-comments-link", ["positive"], False),
        ("comments-open", [], False),
        ("comment-count-bubble", [], False),
    ],
)
def test_unit_cues(name, expected, comment):
    clear_cue_caches()
    bits, _tokens, is_comment = cues.unit_cues(name)
    assert (flag_names(bits), is_comment) == (expected, comment)


def test_cue_words_are_letters_and_name_flags():
    # Keys are runs of a-z: a word with anything else could never match.
    assert set(cue_words.CUE_WORDS) <= set(FLAG)
    for words in cue_words.CUE_WORDS.values():
        for word in words.inside + words.whole:
            assert word.isascii() and word.isalpha() and word.islower(), word


@pytest.mark.parametrize("category", list(cue_words.CUE_WORDS))
def test_every_cue_word_marks_its_category(category):
    words = cue_words.CUE_WORDS[category]
    for word in words.inside + words.whole:
        assert cue_words.key_bits(word) & FLAG[category], word
    for word in words.inside:
        assert cue_words.key_bits("xx" + word + "yy") & FLAG[category], word


# The comment-section names: the listed ones and names with a comment(s) part.
def test_comment_words_find_every_comment_section_name():
    # The compiled kernel tests these first: each comment-section name must hold one.
    for name in COMMENT_NAMES:
        assert any(word in name for word in cue_words.COMMENT_WORDS), name
        assert cues.unit_cues(name)[2], name


def test_class_cues_combine_names_and_id():
    bits, tokens, comment = cues.class_cues("comments", "entry-content sidebar")
    assert flag_names(bits) == ["body_prop", "comment", "negative", "positive"]
    assert tokens == ("entry", "content", "sidebar", "comments") and comment
