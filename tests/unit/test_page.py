"""Unit tests of the page walk (core/document/page.py, parse.py, walk.py, metadata.py): parsing, pre-cleaning,
blocks, nodes, metadata, encodings."""

import lxml.html
import pytest
from conftest import FIXTURE_NAMES, fixture_bytes
from lxml import etree
from parsel import Selector

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html, sniff_encoding, to_element, to_unicode
from scrapy_boilerplate.core.document.words import count_words

# Enough visible text that the page is not treated as "everything hidden, show it all".
LONG_PARAGRAPH = "<p>" + "This visible paragraph is long enough to be the real content. " * 5 + "</p>"


def blocks(html, **options) -> list[str]:
    return build_page(to_element(html), **options).texts


def page_of(html, **options):
    return build_page(to_element(html), **options)


# -- input types ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_every_input_type_gives_the_same_blocks(name):
    data = fixture_bytes(name)
    text = data.decode("utf-8")
    expected = blocks(data)
    assert len(expected) > 10
    assert blocks(text) == expected
    assert blocks(Selector(text=text)) == expected
    assert blocks(lxml.html.document_fromstring(text)) == expected
    assert blocks(etree.HTML(data)) == expected


def test_html_comment_inside_text_does_not_cut_it():
    # Scrapy's response.selector keeps HTML comments in its tree; the text after one belongs
    # to the same paragraph and must not be lost.
    html = "<html><body><p>Before the comment <!-- ad slot --> and after the comment.</p></body></html>"
    assert blocks(html) == ["Before the comment and after the comment."]
    assert blocks(Selector(text=html)) == ["Before the comment and after the comment."]
    assert blocks(lxml.html.document_fromstring(html)) == ["Before the comment and after the comment."]


@pytest.mark.parametrize(
    "make_tree",
    [
        lambda text: Selector(text=text).root,
        lambda text: lxml.html.document_fromstring(text),
    ],
    ids=["parsel", "lxml.html"],
)
def test_given_tree_is_not_mutated(make_tree):
    text = fixture_bytes("article_en").decode("utf-8")
    root = make_tree(text)
    before = etree.tostring(root)
    build_page(root)
    build_page(root, include_comments=True)
    assert etree.tostring(root) == before
    assert b"cookie-consent" in before and b"<script" in before  # nothing was cleaned away


def test_parse_html_gives_none_for_nothing():
    assert parse_html("") is None
    assert parse_html(b"  \n\t ") is None
    assert build_page(None).texts == []


def test_wrong_type_raises_type_error():
    with pytest.raises(TypeError):
        parse_html(12345)


# -- pre-cleaning -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hidden",
    [
        "<script>var secret = 'SECRET';</script>",
        "<style>.SECRET { color: red }</style>",
        "<noscript><p>SECRET</p></noscript>",
        "<template><p>SECRET</p></template>",
        "<div hidden>SECRET</div>",
        "<div aria-hidden='true'><p>SECRET</p></div>",
        "<div style='color: red; display: none'>SECRET</div>",
        "<div style='visibility:hidden'>SECRET</div>",
        "<div role='dialog'><p>SECRET</p></div>",
        "<div role='alertdialog'>SECRET</div>",
        "<dialog open><p>SECRET</p></dialog>",
    ],
)
def test_unreadable_content_is_in_no_block(hidden):
    html = f"<html><body>{LONG_PARAGRAPH}{hidden}<p>Closing words.</p></body></html>"
    texts = blocks(html)
    assert "Closing words." in texts
    assert not any("SECRET" in t for t in texts)


def test_aria_hidden_false_is_visible():
    html = f"<html><body>{LONG_PARAGRAPH}<div aria-hidden='false'>Shown text</div></body></html>"
    assert "Shown text" in blocks(html)


def test_react_streaming_segment_is_not_hidden():
    html = f"<html><body>{LONG_PARAGRAPH}<div hidden id='S:0'>Streamed text</div></body></html>"
    assert "Streamed text" in blocks(html)


def test_page_that_is_nearly_all_hidden_is_read_anyway():
    html = "<html><body><div hidden><p>Revealed by a script later.</p></div></body></html>"
    assert blocks(html) == ["Revealed by a script later."]


COMMENTS_PAGE = f"""<html><body><article>{LONG_PARAGRAPH}</article>
<section id="comments"><p>First reader comment.</p></section>
<div class="comment-list"><p>Second reader comment.</p></div>
<div id="disqus_thread"><p>Third reader comment.</p></div>
</body></html>"""


def test_comment_sections_are_skipped_by_default():
    texts = blocks(COMMENTS_PAGE)
    assert len(texts) == 1
    assert not any("comment" in t for t in texts)


def test_comment_sections_are_kept_on_request():
    texts = blocks(COMMENTS_PAGE, include_comments=True)
    assert texts[1:] == ["First reader comment.", "Second reader comment.", "Third reader comment."]


def test_a_body_with_a_comment_class_is_not_skipped():
    html = f"<html><body class='comments-open'>{LONG_PARAGRAPH}</body></html>"
    assert len(blocks(html)) == 1


# -- blocks -----------------------------------------------------------------------------------


def test_inline_tags_do_not_split_a_block():
    html = (
        "<html><body><p>Some <b>bold</b>, <i>italic</i>, <a href='/x'>linked</a> and "
        "<span class='x'>spanned</span> <em>words</em>.</p></body></html>"
    )
    assert blocks(html) == ["Some bold, italic, linked and spanned words."]


def test_block_tags_split_blocks():
    html = (
        "<html><body><div>Before<p>Inside</p>After</div><ul><li>One</li><li>Two</li></ul>"
        "<h2>Heading</h2><blockquote>Quote</blockquote><table><tr><td>Cell</td></tr></table>"
        "</body></html>"
    )
    page = page_of(html)
    assert page.texts == ["Before", "Inside", "After", "One", "Two", "Heading", "Quote", "Cell"]
    assert page.tags == ["div", "p", "div", "li", "li", "h2", "blockquote", "td"]


def test_link_characters_and_links_are_counted():
    html = (
        "<html><body><p>Read <a href='/a'>this link</a> and <a href='/b'>that</a> now.</p>"
        "<p>An <a name='anchor'>anchor without href</a> is no link.</p></body></html>"
    )
    page = page_of(html)
    assert page.texts[0] == "Read this link and that now."
    assert page.link_chars[0] == len("this link") + len("that")
    assert page.links[0] == 2
    assert page.chars[0] == len(page.texts[0])
    assert page.link_chars[1] == 0 and page.links[1] == 0


def test_link_only_block_is_all_link():
    page = page_of("<html><body><ul><li><a href='/x'>Home page</a></li></ul></body></html>")
    assert page.link_chars == page.chars == [len("Home page")]


def test_double_br_splits_a_block_single_br_does_not():
    page = page_of("<html><body><p>line one<br>line two<br><br>second paragraph</p></body></html>")
    assert page.texts == ["line one line two", "second paragraph"]


def test_pre_keeps_whitespace():
    code = "def answer():\n    if True:\n        return 42"
    page = page_of(f"<html><body><pre>{code}\n</pre><p>a   spaced\n  paragraph</p></body></html>")
    assert page.texts == [code, "a spaced paragraph"]
    assert page.tags[0] == "pre"


def test_whitespace_is_normalised_outside_pre():
    assert blocks("<html><body><p>\n  many \t\n spaces   here \n</p></body></html>") == ["many spaces here"]


def test_images_are_recorded_with_their_block_position():
    page = page_of(
        "<html><body><p>First</p><img src='a.jpg' alt='A'><p>Second</p><img data-src='lazy.png'></body></html>"
    )
    assert [(index, src, alt) for index, src, alt, *_ in page.images] == [(1, "a.jpg", "A"), (2, "lazy.png", "")]


# -- metadata ---------------------------------------------------------------------------------


def test_title_og_and_jsonld_are_read():
    html = """<html lang="en-GB"><head><title>  The   Page Title | Site </title>
    <meta property="og:title" content="The OG Title">
    <meta name="description" content="A short description.">
    <script type="application/ld+json">
    {"@context": "https://schema.org", "@type": "NewsArticle", "headline": "The LD Headline",
     "articleBody": "The full body of the article from JSON-LD."}
    </script></head><body><p>Text</p></body></html>"""
    page = page_of(html)
    assert page.title == "The Page Title | Site"
    assert page.og["title"] == "The OG Title"
    assert page.og["description"] == "A short description."
    assert page.jsonld["headline"] == "The LD Headline"
    assert page.jsonld["articleBody"] == "The full body of the article from JSON-LD."
    assert page.jsonld["type"] == "NewsArticle"
    assert page.main_title == "The OG Title"


def test_page_language_is_read():
    page = page_of("<html lang='de-AT'><body><p>Servus</p></body></html>")
    assert page.lang == "de-AT"


def test_jsonld_graph_is_searched_and_site_types_are_not_the_type():
    html = """<html><head><script type="application/ld+json">
    {"@graph": [{"@type": "WebSite", "name": "Site"},
                {"@type": "BlogPosting", "headline": "Graph headline", "articleBody": "Graph body."}]}
    </script></head><body><p>Text</p></body></html>"""
    page = page_of(html)
    assert page.jsonld["type"] == "BlogPosting"
    assert page.jsonld["headline"] == "Graph headline"
    assert page.jsonld["articleBody"] == "Graph body."


def test_broken_jsonld_is_ignored():
    html = (
        '<html><head><script type=\'application/ld+json\'>{"@type": "Article", broken'
        "</script></head><body><p>Text</p></body></html>"
    )
    page = page_of(html)
    assert page.jsonld == {}
    assert page.texts == ["Text"]


def test_jsonld_fixture():
    page = page_of(fixture_bytes("article_jsonld"))
    assert page.jsonld["type"] == "NewsArticle"
    assert page.jsonld["headline"] == "Five Tips for Better Sourdough at Home"
    assert page.jsonld["articleBody"].startswith("A good sourdough loaf starts")
    assert page.main_title == "Five Tips for Better Sourdough at Home"


def test_main_title_falls_back_to_title_tag():
    page = page_of("<html><head><title>Only a title</title></head><body><p>x</p></body></html>")
    assert page.main_title == "Only a title"


# -- encodings --------------------------------------------------------------------------------

WORDS = "Café “quoted” — naïve façade costs €5"


def test_cp1252_bytes_with_meta_charset():
    data = f'<html><head><meta charset="windows-1252"></head><body><p>{WORDS}</p></body></html>'.encode("cp1252")
    assert sniff_encoding(data) == "cp1252"
    assert blocks(data) == [WORDS]


def test_latin1_declaration_is_read_as_cp1252():
    data = (
        f"<html><head><meta http-equiv='Content-Type' content='text/html; charset=iso-8859-1'>"
        f"</head><body><p>{WORDS}</p></body></html>"
    ).encode("cp1252")
    assert blocks(data) == [WORDS]


def test_utf8_with_bom():
    data = b"\xef\xbb\xbf" + f"<html><body><p>{WORDS}</p></body></html>".encode()
    assert sniff_encoding(data) == "utf-8"
    assert blocks(data) == [WORDS]


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be"])
def test_utf16_with_bom(codec):
    text = f"<html><body><p>{WORDS} 日本語</p></body></html>"
    data = ("\ufeff" + text).encode("utf-16-be") if codec == "utf-16-be" else text.encode("utf-16")
    assert blocks(data) == [f"{WORDS} 日本語"]


def test_utf8_page_with_stale_latin1_meta_is_utf8():
    data = f'<html><head><meta charset="iso-8859-1"></head><body><p>{WORDS} 東京</p></body></html>'.encode()
    assert sniff_encoding(data) == "utf-8"
    assert blocks(data) == [f"{WORDS} 東京"]


def test_utf8_cut_mid_character_is_still_utf8():
    data = "<p>Grüße aus Köln ü".encode()[:-1]
    assert sniff_encoding(data) == "utf-8"
    assert to_unicode(data).startswith("<p>Grüße aus Köln")


def test_other_legacy_encoding_from_meta():
    text = "Привет, мир! Это проверка кодировки."
    data = f"<html><head><meta charset='koi8-r'></head><body><p>{text}</p></body></html>".encode("koi8-r")
    assert blocks(data) == [text]


def test_unknown_charset_name_falls_back():
    data = "<html><head><meta charset='no-such-codec'></head><body><p>caf\xe9</p></body></html>".encode("cp1252")
    assert blocks(data) == ["café"]


def test_xml_declaration_in_str_input():
    assert blocks("<?xml version='1.0' encoding='utf-8'?><html><body><p>Grüße</p></body></html>") == ["Grüße"]


# -- text statistics --------------------------------------------------------------------------


def test_cjk_words_are_counted_without_spaces():
    assert count_words("我们今天去公园散步然后一起吃饭") > 1
    assert count_words("今日は公園を散歩してから一緒にご飯を食べました") > 1
    assert count_words("two words") == 2


def test_cjk_block_word_count():
    page = page_of("<html><body><p>城市社区花园在过去五年里迅速发展，越来越多的居民开始种植蔬菜。</p></body></html>")
    assert page.words[0] > 10


# -- node table -------------------------------------------------------------------------------

MALFORMED = (
    "<html><body><div><p>Unclosed <b>bold <i>italic</div></div></div>"
    "<table><tr><td>cell<td>cell two</table><ul><li>one<li>two</ul></body></html>"
)


@pytest.mark.parametrize("source", FIXTURE_NAMES + ["malformed"])
def test_node_table_is_consistent(source):
    page = page_of(MALFORMED if source == "malformed" else fixture_bytes(source))
    n_nodes, n_blocks = len(page.node_tags), len(page.texts)
    assert n_nodes > 0 and n_blocks > 0
    for column in (
        page.node_parents,
        page.node_depths,
        page.node_first,
        page.node_last,
        page.node_chars,
        page.node_link_chars,
        page.node_tag_counts,
        page.node_flags,
    ):
        assert len(column) == n_nodes
    for column in (
        page.tags,
        page.nodes,
        page.depths,
        page.chars,
        page.words,
        page.link_chars,
        page.links,
        page.tag_counts,
        page.flags,
        page.tokens,
    ):
        assert len(column) == n_blocks
    for node in range(n_nodes):
        first, last = page.node_first[node], page.node_last[node]
        assert 0 <= first <= last <= n_blocks
        assert page.node_chars[node] == sum(page.chars[first:last])
        assert 0 <= page.node_link_chars[node] <= page.node_chars[node]
        parent = page.node_parents[node]
        if parent >= 0:
            assert parent < node  # pre-order: parents come first
            assert page.node_first[parent] <= first and last <= page.node_last[parent]
            assert page.node_depths[node] == page.node_depths[parent] + 1
            assert page.node_tag_counts[parent] > page.node_tag_counts[node]
    for block, owner in enumerate(page.nodes):
        if owner >= 0:
            assert page.node_first[owner] <= block < page.node_last[owner]
            assert page.tags[block] == page.node_tags[owner]
    # Sibling nodes do not overlap.
    for a in range(n_nodes):
        for b in range(a + 1, n_nodes):
            if page.node_parents[a] == page.node_parents[b] and page.node_first[b] < page.node_last[b]:
                assert page.node_last[a] <= page.node_first[b] or page.node_last[b] <= page.node_first[a]
    assert all(0 <= lc <= c for lc, c in zip(page.link_chars, page.chars))


# -- the typed columns ------------------------------------------------------------------------


def test_every_numeric_column_has_its_array_of_the_same_values():
    # page.arrays.<column> is page.<column> as a read-only numpy array, made once; counts are
    # float64, indices and flag bits int64 (the dtypes the stages read them with).
    import numpy as np

    from scrapy_boilerplate.core.document.page import _ARRAY_COLUMNS, Page

    page = page_of(
        "<html><body><nav><a href='/'>Home</a></nav><h2>Title</h2>"
        + LONG_PARAGRAPH
        + "<ul><li>x</li></ul></body></html>"
    )
    numeric = [f for f in Page.__dataclass_fields__ if f in _ARRAY_COLUMNS]
    assert sorted(numeric) == sorted(_ARRAY_COLUMNS)  # every array is a column of the page
    for name in _ARRAY_COLUMNS:
        values = getattr(page.arrays, name)
        assert values.tolist() == getattr(page, name), name
        assert values.dtype in (np.float64, np.int64), name
        assert not values.flags.writeable
        assert getattr(page.arrays, name) is values  # made once
    assert page.arrays.chars.dtype == np.float64 and page.arrays.flags.dtype == np.int64
    assert page.arrays.node_first.dtype == np.int64 and page.arrays.node_chars.dtype == np.float64
    every_list = {f for f, v in vars(page).items() if isinstance(v, list) and v and isinstance(v[0], int)}
    assert every_list <= set(_ARRAY_COLUMNS)  # no numeric column without its array


def test_tag_positions_find_blocks_and_nodes_by_tag():
    page = page_of(
        "<html><body><h2>One</h2><p>text</p><h2>Two</h2><figure><figcaption>c</figcaption></figure></body></html>"
    )
    assert [page.texts[i] for i in page.tag_positions("h2")] == ["One", "Two"]
    assert [page.node_tags[i] for i in page.node_tag_positions("figcaption")] == ["figcaption"]
    assert list(page.tag_positions("table")) == []
