"""The compiled walk (core/document/_walk.pyx) against its reference, walk.walk_blocks.

Both must give the same Page, field by field, on real pages, on trees
parsed by others (parsel keeps comments), on odd trees built by hand, and
the same class-name cues on any class string.
"""

import dataclasses
import itertools
import logging
import os
import subprocess
import sys

import pytest
from conftest import FIXTURE_NAMES, cut_real_pages, fixture_bytes, load_shared_pages
from cue_names import COMMENT_NAMES, clear_cue_caches
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lxml import etree
from parsel import Selector

from scrapy_boilerplate.core import speedups
from scrapy_boilerplate.core.document import cue_words
from scrapy_boilerplate.core.document import page as P
from scrapy_boilerplate.core.document.hidden import ToggleTargets, hidden_style
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.document.walk import MAX_BLOCKS, walk_blocks

compiled = P._compiled
compiled_cues = speedups.load("document._cues")  # the compiled twin of cues.py, which the compiled walk calls
needs_compiled = pytest.mark.skipif(
    compiled is None,
    reason="the compiled walk is not built (no C compiler at install time, or SCRAPY_BOILERPLATE_PURE_PYTHON is set)",
)
FIELDS = [f.name for f in dataclasses.fields(P.Page) if f.compare]  # not the walk's inputs


def assert_same_walk(root, include_comments=False, skip_hidden=True):
    # Each walk gets its own ToggleTargets, so both find the document's controlled ids themselves.
    reference, fast = P.Page(opened=ToggleTargets(root)), P.Page(opened=ToggleTargets(root))
    expected = walk_blocks(root, reference, include_comments, skip_hidden)
    got = compiled.walk_blocks(root, fast, include_comments, skip_hidden)
    assert got == expected
    for name in FIELDS:
        assert getattr(fast, name) == getattr(reference, name), f"Page.{name} differs"
    return fast


@needs_compiled
@pytest.mark.parametrize("name", FIXTURE_NAMES)
@pytest.mark.parametrize("include_comments, skip_hidden", [(False, True), (True, False)])
def test_same_page_on_fixtures(name, include_comments, skip_hidden):
    page = assert_same_walk(parse_html(fixture_bytes(name)), include_comments, skip_hidden)
    assert len(page.texts) > 10


@needs_compiled
def test_same_page_on_cut_real_pages():
    for item in cut_real_pages():
        root = parse_html(item.read_html())
        assert_same_walk(root)
        assert_same_walk(root, include_comments=True, skip_hidden=False)


@pytest.mark.needs_shared("60 pages of each set (cut pages: test_same_page_on_cut_real_pages)")
@needs_compiled
@pytest.mark.parametrize("dataset", ["wcxb-dev", "readability", "trafilatura-eval", "overview-dev"])
def test_same_page_on_real_pages(dataset):
    for item in load_shared_pages(dataset, 60):
        root = parse_html(item.read_html())
        if root is not None:
            assert_same_walk(root)
            assert_same_walk(root, include_comments=True, skip_hidden=False)


@needs_compiled
def test_same_page_on_parsel_trees_with_comments():
    # Scrapy's response.selector: lxml.html's parser, comments kept in the tree.
    html = fixture_bytes("article_en").decode("utf-8").replace("</p>", "<!-- c --> tail</p>", 5)
    root = Selector(text=html).root
    assert root.xpath("count(//comment())") >= 5
    assert_same_walk(root)
    assert_same_walk(root.xpath("//body")[0])  # a sub-element as root: its tail is read too


ODD_PAGES = [
    # CDATA, comments and processing instructions between text, entities, namespaces
    b"<?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml'><body><p>a<![CDATA[ b ]]>c"
    b"<!-- x -->d<?pi x?>e &amp; f</p><svg:g xmlns:svg='http://www.w3.org/2000/svg'>s</svg:g>"
    b"<div class='comments'>skipped</div><pre>  x\n  y</pre></body></html>",
    # hidden things, bare attributes, dialogs, React's hidden segments
    b"<div hidden>h</div><div hidden id='S:1'>shown</div><p aria-hidden='true'>no</p>"
    b"<p style='display: none'>no</p><p role='dialog'>no</p><p role='main' itemprop='articleBody'>yes</p>",
    # links, images, line breaks, head metadata and JSON-LD
    b"<html><head><title>T</title><meta property='og:title' content='OG'>"
    b'<script type=\'application/ld+json\'>{"@type": "NewsArticle", "headline": "H"}</script>'
    b"</head><body><p>x<br><br>y<br>z <a href='/a'>link <b>bold</b></a> tail"
    b"<img data-src='/i.png' alt='A' width='2'><a>no href</a></p></body></html>",
    # decomposed letters and soft hyphens (in a link, in <pre>, a block of nothing else): NFC,
    # no soft hyphens, the same character counts
    "<p>Wa\u0308h\xadrend <a href='/x'>gepr\xadu\u0308ft</a> &shy;x</p><pre> Mu\u0308\xadller\n</pre>"
    "<p>\xad</p><p>&shy; &shy;</p><div>e\u0301\u0327t\xe9</div>".encode(),
    # control characters (words.drop_controls): in words, between spaces, alone, in a link, in
    # <pre>; C1 read as windows-1252, U+0085 too
    "<p>he\x02llo \x02 we\x92re \x93x\x94 \x81\x7f</p><p>\x02</p><p><a href='/x'>\x07link\x85</a> \x1b</p>"
    "<pre>\x02 code\x0c\x9f\n</pre><p>\x85 e\u0301\x02</p>".encode(),
]


@needs_compiled
@pytest.mark.parametrize("html", ODD_PAGES)
def test_same_page_on_odd_markup(html):
    for root in (parse_html(html), etree.fromstring(html, etree.XMLParser(recover=True))):
        if root is not None:
            assert_same_walk(root)
            assert_same_walk(root, include_comments=True, skip_hidden=False)


SPACES = " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeff"
fragments = st.lists(
    st.one_of(
        st.text(alphabet=SPACES + "ab é中ŉ\U0001f600\xadu\u0308\x02\x7f\x81\x92", max_size=8),
        st.sampled_from(
            [
                "<a href='x'>",
                "</a>",
                "<p>",
                "</p>",
                "<br>",
                "<pre>",
                "</pre>",
                "<b>",
                "</b>",
                "<li>",
                "<div class='c'>",
                "</div>",
                "<!-- c -->",
                "<span>",
                "</span>",
            ]
        ),
    ),
    max_size=25,
).map("".join)


@needs_compiled
@settings(max_examples=300, deadline=None)
@given(body=fragments)
@example(body="<pre>a<!-- c -->\x1f")  # a comment's whitespace tail inside <pre> is kept as it is
def test_same_page_on_any_whitespace_and_markup(body):
    html = f"<html><body>{body}</body></html>"
    assert_same_walk(parse_html(html))
    assert_same_walk(Selector(text=html).root)


@needs_compiled
def test_same_page_on_built_trees():
    root = etree.Element("div")
    br = etree.SubElement(root, "br")
    etree.SubElement(br, "span").text = "inside a br"  # no parser makes this
    br.tail = "after"
    root.append(etree.Comment("c"))
    root[-1].tail = "comment tail"
    root.append(etree.Entity("nbsp"))
    root[-1].tail = "entity tail"
    root.tail = "root tail"
    assert_same_walk(root)


style_pieces = st.sampled_from(
    [
        "display",
        "DISPLAY",
        "Display",
        "visibility",
        "VisiBility",
        ":",
        " ",
        "\t",
        "\n",
        "\xa0",
        "\u2003",
        "none",
        "NONE",
        "nOne",
        "hidden",
        "HIDDEN",
        "hıdden",
        "diſplay",
        "block",
        "width: 10px",
        ";",
        "no",
        "ne",
        "hid",
        "den",
        "é",
        "height",
        "max-height",
        "line-height",
        "0",
        "0px",
        "overflow",
        "OVERFLOW",
        "opacity",
        "Opacity",
        "opacıty",
        "1",
        "!important",
    ]
)


@needs_compiled
@settings(max_examples=400, deadline=None)
@given(st.lists(style_pieces, max_size=8).map("".join))
def test_same_hidden_elements_for_any_style(style):
    """The compiled walk skips the regexes on styles that cannot hide (no "none", "hidden", "opacity")."""
    root = etree.Element("body")
    shown = etree.SubElement(root, "p")
    shown.text = "visible"
    styled = etree.SubElement(root, "div", style=style)
    styled.text = "styled"
    page = assert_same_walk(root)
    assert ("styled" in page.texts) == (not hidden_style(style))


HIDDEN_CASES = [
    # (markup, read?) with a control on the page that opens #more
    ("<div id='more' hidden><p>TEXT</p></div>", True),
    ("<div id='more' style='display:none'><p>TEXT</p></div>", True),
    ("<div id='more' aria-hidden='true'><p>TEXT</p></div>", True),
    ("<div id='more' role='dialog' aria-modal='true' hidden><p>TEXT</p></div>", False),
    ("<div id='more' role='tooltip'><p>TEXT</p></div>", False),
    ("<div popover><p>TEXT</p></div>", False),  # the popover API: shown over the page
    ("<i-card popover='manual' id='more'><p>TEXT</p></i-card>", False),  # even when a control opens it
    ("<div id='other' hidden><p>TEXT</p></div>", False),
    ("<div hidden><p>TEXT</p></div>", False),
    ("<div role='dialog' aria-modal='false'><p>TEXT</p></div>", True),
    ("<div role='dialog' aria-modal='false' style='display:none'><p>TEXT</p></div>", False),
    ("<div style='height: 0; overflow: hidden'><p>TEXT</p></div>", False),
    ("<div style='max-height:0px;opacity:0'><p>TEXT</p></div>", False),
    ("<div id='more' style='height:0;overflow:hidden'><p>TEXT</p></div>", True),
    ("<div style='opacity: 0'><p>TEXT</p></div>", True),
    ("<div class='faq-answer' style='display: none;'><p>TEXT</p></div>", True),
    ("<div class='Accordion__body' hidden><p>TEXT</p></div>", True),
    ("<div role='tabpanel' hidden><p>TEXT</p></div>", True),
    ("<div class='newsletter-popup' style='display:none'><p>TEXT</p></div>", False),
    ("<div class='answers' hidden><p>TEXT</p></div>", False),
    ("<div style='height: 0'><p>TEXT</p></div>", True),
    ("<div style='line-height: 0; overflow: hidden'><p>TEXT</p></div>", True),
    ("<div style='height: 0.5em; overflow: hidden'><p>TEXT</p></div>", True),
]


def walked_after_text(markup: str):
    """The page of `markup` after a paragraph of visible text, walked by both walks (the same Page)."""
    html = f"<html><body><p>{'Visible words of the page. ' * 12}</p>{markup}</body></html>"
    root = parse_html(html)
    return assert_same_walk(root) if compiled is not None else P.build_page(root)


ANCHOR_CASES = [
    # (markup, the link's text is read?)
    ("<h2 id='q'>Quickstart<a class='headerlink' href='#q'>¶</a></h2>", False),  # Sphinx
    ("<h2 id='e'><a href='#e' class='anchor'>§</a>Examples</h2>", False),  # rustdoc
    ("<h2 id='x'>Setup <a href='#x'> # </a></h2>", False),
    ("<p>See <a href='#x'>the setup</a>.</p>", True),  # a real in-page link
    ("<p>Sources <a href='/notes'>¶</a></p>", True),  # not to its own page
    ("<h2 id='y'>Y<a href='#y'><b>¶</b></a></h2>", True),  # markup inside: left alone
]


@pytest.mark.parametrize("markup, read", ANCHOR_CASES)
def test_heading_anchor_marks_are_not_text(markup, read):
    page = walked_after_text(markup)
    text = " ".join(page.texts)
    link_text = parse_html(markup).xpath("string(//a)").strip()
    assert (link_text in text.split() or link_text in text) == read


SEPARATE_CASES = [
    # (markup, the block's text)
    ("<table><tr><td><code>description</code><code>string</code></td></tr></table>", "description string"),
    ("<p><span><code>U+00DF</code></span><span><code>0x C3 9F</code></span></p>", "U+00DF 0x C3 9F"),
    ("<p>Press <kbd>Ctrl</kbd><kbd>C</kbd></p>", "Press Ctrl C"),
    ("<p><code>a</code><a href='/b'><code>b</code></a></p>", "a b"),
    ("<p><b>W</b>ord and <code>list</code>s</p>", "Word and lists"),  # glued on purpose
    ("<p><em>re</em><code>set</code></p>", "reset"),  # only two code values
    ("<p><code>os.path.</code><code>join</code></p>", "os.path.join"),  # one name (old Sphinx)
    ("<p><code>std::</code><code>vector</code></p>", "std::vector"),
    ("<pre><code>a</code><code>b</code></pre>", "ab"),  # preformatted: as written
    ("<p><code>a</code><code hidden>x</code><code>b</code></p>", "a b"),
    ("<p><code>a</code><span hidden>x</span>b</p>", "ab"),
]


@pytest.mark.parametrize("markup, text", SEPARATE_CASES)
def test_adjacent_code_values_are_separate_words(markup, text):
    page = walked_after_text(markup)
    assert page.texts[-1] == text


CODE_COMMENT_CASES = [
    # (markup, whether "NOTE" is read): a highlighter's comment tokens are code, not a comment section
    ('<pre><code><span class="hljs-comment"># NOTE</span>\ngit init</code></pre>', True),
    ('<pre class="language-js"><span class="token comment">// NOTE</span> x = 1;</pre>', True),
    ('<pre><div class="line comment">NOTE</div><div class="line">x = 1</div></pre>', True),
    ('<div class="comments"><p>NOTE</p></div>', False),
    ('<pre class="comment">NOTE</pre>', False),  # the <pre> itself is the comment box
]


@pytest.mark.parametrize("markup, read", CODE_COMMENT_CASES)
def test_comment_classes_inside_code_are_code(markup, read):
    page = walked_after_text(markup)
    assert any("NOTE" in text for text in page.texts) == read


MATH_CASES = [
    # (markup, the block's text): a formula is part of the text, its TeX annotation is not
    ("<p>When <math><mi>a</mi><mo>≠</mo><mn>0</mn></math>, two roots.</p>", "When a≠0, two roots."),
    (
        "<p>Area <math display='block'><semantics><mrow><mi>π</mi><msup><mi>r</mi><mn>2</mn></msup></mrow>"
        "<annotation encoding='application/x-tex'>\\pi r^2</annotation></semantics></math></p>",
        "Area πr2",
    ),
    ("<p>Hidden <span style='display:none'><math><mi>x</mi></math></span>copy</p>", "Hidden copy"),
    # ruby: the reading above the characters is not part of the text
    (
        "<p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもへの<ruby>虐待<rt>ぎゃくたい</rt></ruby></p>",
        "子どもへの虐待",
    ),
]


@pytest.mark.parametrize("markup, text", MATH_CASES)
def test_formulas_are_text_and_ruby_readings_are_not(markup, text):
    page = walked_after_text(markup)
    assert page.texts[-1] == text


@pytest.mark.parametrize("markup, read", HIDDEN_CASES)
def test_hidden_elements_and_toggle_targets(markup, read):
    """Both walks read a hidden panel that a control opens, and only that."""
    html = (
        f"<html><body><p>{'Visible words of the page. ' * 12}</p>"
        f"<button aria-controls='more'>Read more</button>{markup}</body></html>"
    )
    root = parse_html(html)
    page = assert_same_walk(root) if compiled is not None else P.build_page(root)
    assert ("TEXT" in page.texts) == read


@needs_compiled
def test_same_page_at_the_block_limit(monkeypatch):
    html = "<body>" + "".join(f"<p>block {i}</p><!-- c -->" for i in range(MAX_BLOCKS + 50)) + "</body>"
    root = Selector(text=html).root
    page = assert_same_walk(root)
    assert len(page.texts) == MAX_BLOCKS


@needs_compiled
def test_deep_tree_does_not_recurse():
    root = node = etree.Element("div")
    for _ in range(20_000):  # built by hand: parsers cap the depth far below this
        node = etree.SubElement(node, "div")
    node.text = "deep"
    page = assert_same_walk(root)
    assert page.texts == ["deep"]


# Pieces of names around the cue words: whole words such as "nav", "tags",
# "ad" or "articleBody", words split over two tokens ("read-more"), hyphenated forms
# ("h-entry", "rich-text") and near misses ("navs", "adx", "bad").
CUE_PIECES = [
    "nav",
    "navs",
    "tag",
    "tags",
    "ad",
    "ads",
    "adx",
    "bad",
    "dfp",
    "gpt",
    "cmp",
    "articleBody",
    "entrycontent",
    "entry",
    "h",
    "hentry",
    "rich",
    "text",
    "wp",
    "caption",
    "photo",
    "info",
    "read",
    "more",
    "most",
    "read",
    "you",
    "may",
    "privacy",
    "banner",
    "sign",
    "up",
    "categor",
    "y",
]
cue_names = st.lists(
    st.tuples(st.sampled_from(CUE_PIECES), st.sampled_from(["", "-", "_", "1", "-x-", "Q"])),
    min_size=1,
    max_size=4,
).map(lambda pieces: "".join(piece + sep for piece, sep in pieces))
class_names = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "comment-list",
                "comments",
                "tag-news",
                "post-123",
                "post-12a",
                "PostId-7",
                "read-more",
                "entry-content",
                "menu-item-33",
                "sidebar",
                "ad",
                "nav",
                "x",
            ]
        ),
        st.text(alphabet="abcdeimnortsACM-_0123456789 \t\n\x1cé中", max_size=30),
        cue_names,
    ),
    max_size=6,
).map(" ".join)


# The cues' kernel (document/_cues.py) compiled, and its source run as Python.
python_cues = speedups.source_of(compiled_cues) if compiled_cues is not None else None
needs_compiled_cues = pytest.mark.skipif(
    compiled_cues is None,
    reason="document._cues is not built (no C compiler at install time, or SCRAPY_BOILERPLATE_PURE_PYTHON is set)",
)


def assert_same_unit_cues(units):
    """The compiled unit_cues gives what its source run as Python gives, both starting from empty
    caches."""
    clear_cue_caches()
    expected = [python_cues.unit_cues(unit) for unit in units]
    clear_cue_caches()
    assert [compiled_cues.unit_cues(unit) for unit in units] == expected
    return expected


@needs_compiled_cues
@settings(max_examples=300, deadline=None)
@given(idv=st.one_of(st.none(), class_names), cls=st.one_of(st.none(), class_names))
def test_same_cues_on_any_class_names(idv, cls):
    assert_same_unit_cues((cls or "").split() + ([idv] if idv else []))
    clear_cue_caches()
    expected = python_cues.class_cues(idv, cls)
    clear_cue_caches()
    assert compiled_cues.class_cues(idv, cls) == expected
    assert compiled_cues.class_cues(idv, cls) == expected  # and from its cache


@needs_compiled_cues
def test_same_cues_on_many_class_names():
    cls = " ".join(f"c{i} comment-{i} nav-item" for i in range(20))  # past the 16 names looked at
    clear_cue_caches()
    expected = python_cues.class_cues("main-comments", cls)
    clear_cue_caches()
    assert compiled_cues.class_cues("main-comments", cls) == expected


@needs_compiled_cues
@settings(max_examples=500, deadline=None)
@given(cue_names)
def test_same_cues_on_names_made_of_cue_literals(name):
    assert_same_unit_cues([name, name.upper(), name.replace("-", " ")])


@needs_compiled_cues
def test_same_cues_on_every_cue_word():
    words = [w for ws in cue_words.CUE_WORDS.values() for w in ws.inside + ws.whole] + COMMENT_NAMES
    names = words + [f"x{w}y" for w in words] + [f"{w}-{v}" for w, v in itertools.pairwise(words)]
    assert_same_unit_cues(names + [name.upper() for name in names])


def _assert_same_cues_on_class_names(roots, with_cues: int) -> None:
    units = set()
    for root in (r for r in roots if r is not None):
        for el in root.iter("*"):
            units.update((el.get("class") or "").split())
            if el.get("id"):
                units.add(el.get("id"))
    expected = assert_same_unit_cues(sorted(units))
    assert sum(bool(cue[0]) for cue in expected) > with_cues  # names with cues were among them


@needs_compiled_cues
def test_same_cues_on_fixture_class_names():
    _assert_same_cues_on_class_names([parse_html(fixture_bytes(name)) for name in FIXTURE_NAMES], 10)


@needs_compiled_cues
def test_same_cues_on_cut_real_pages_class_names():
    _assert_same_cues_on_class_names([parse_html(item.read_html()) for item in cut_real_pages()], 30)


@pytest.mark.needs_shared("80 pages' class names (cut pages: the test above)")
@needs_compiled_cues
def test_same_cues_on_real_class_names():
    roots = [parse_html(item.read_html()) for item in load_shared_pages("wcxb-dev", 80)]
    _assert_same_cues_on_class_names(roots, 50)


def test_pure_python_switch():
    code = (
        "from scrapy_boilerplate.core.document import page; from scrapy_boilerplate.core.scoring import model; "
        "from scrapy_boilerplate.core import speedups; print(page._compiled, speedups.is_compiled(model._model))"
    )
    env = {**os.environ, speedups.PURE_PYTHON_ENV: "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["None", "False"]


def test_a_broken_compiled_module_falls_back(monkeypatch, caplog):
    def broken(name):
        raise AssertionError("built against another version")

    monkeypatch.setattr(speedups.importlib, "import_module", broken)
    monkeypatch.delenv(speedups.PURE_PYTHON_ENV, raising=False)
    with caplog.at_level(logging.WARNING, logger=speedups.logger.name):
        assert speedups.load("document._walk") is None
    assert "failed to load; using its pure-Python twin" in caplog.text


class _WrongWalk:
    """A compiled walk that disagrees with the Python one (as one built for another lxml might)."""

    @staticmethod
    def walk_blocks(root, page, include_comments, skip_hidden):
        result = walk_blocks(root, page, include_comments, skip_hidden)
        page.texts[0] += "!"
        return result


class _BrokenWalk:
    @staticmethod
    def walk_blocks(root, page, include_comments, skip_hidden):
        raise SystemError("bad struct layout")


@pytest.mark.parametrize("fake, message", [(_WrongWalk, "gives another page"), (_BrokenWalk, "failed its check")])
def test_a_compiled_walk_that_disagrees_is_not_used(fake, message, caplog):
    with caplog.at_level(logging.WARNING, logger=P.logger.name):
        assert P._checked_walk(fake) is None
    assert message in caplog.text


@needs_compiled
def test_the_built_walk_passes_its_check():
    assert P._checked_walk(compiled) is compiled
