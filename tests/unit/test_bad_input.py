"""Bad input (DESIGN.md, "Bad input"): no exception escapes, the cost stays bounded."""

import json
import logging
import multiprocessing
import queue
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from scrapy_boilerplate import Extraction, extract

ARTICLE = (
    "<p>The committee met on Tuesday to discuss the new budget for the coming year, and after "
    "a long debate it approved most of the proposals put forward by the finance office.</p>"
)


def assert_quick_extraction(html, seconds: float = 2.0) -> Extraction:
    start = time.perf_counter()
    result = extract(html)
    elapsed = time.perf_counter() - start
    assert isinstance(result, Extraction)
    assert isinstance(result.text, str)
    assert elapsed < seconds, f"took {elapsed:.1f} s"
    return result


def _extract_into(results, html):
    results.put(extract(html))


def extract_in_time(html, seconds: float) -> Extraction:
    """extract(html) in a forked child process, failing the test if it runs longer than `seconds`.

    A forked child sees `html` (even an lxml tree) without pickling it, and a runaway extraction
    is stopped instead of holding up the whole suite.
    """
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_extract_into, args=(results, html))
    start = time.perf_counter()
    child.start()
    try:
        result = results.get(timeout=seconds)
    except queue.Empty:  # too slow, or the child died
        child.kill()
        child.join()
        pytest.fail(f"extract() did not return within {seconds} s (child exit code {child.exitcode})")
    child.join()
    assert isinstance(result, Extraction)
    assert time.perf_counter() - start < seconds
    return result


# -- each item of the DESIGN list -------------------------------------------------------------


@pytest.mark.parametrize(
    "html",
    ["", b"", " ", "\n\t  \r\n", b"   \n", "\x00", b"\x00\x00"],
    ids=["empty-str", "empty-bytes", "space", "whitespace", "whitespace-bytes", "nul-str", "nul-bytes"],
)
def test_empty_input_gives_empty_extraction(html):
    result = assert_quick_extraction(html)
    assert result == Extraction()


@pytest.mark.parametrize(
    "html",
    [b"\xef\xbb\xbf", "\ufeff", b"\xff\xfe", b"\xfe\xff"],
    ids=["utf8-bom", "bom-char", "utf16le-bom", "utf16be-bom"],
)
def test_bom_only_gives_empty_extraction(html):
    assert assert_quick_extraction(html).text == ""


def test_random_binary():
    rng = random.Random(1)
    for size in (1, 10, 1000, 100_000):
        assert_quick_extraction(bytes(rng.randrange(256) for _ in range(size)))


def test_json_bytes():
    data = json.dumps({"title": "Not a page", "items": [{"id": i, "html": "<p>x</p>"} for i in range(50)]})
    assert_quick_extraction(data.encode())


def test_xml_document():
    xml = (
        b"<?xml version='1.0' encoding='ISO-8859-1'?><rss version='2.0'><channel>"
        b"<title>Caf\xe9 news</title><item><title>One</title><description>First item</description>"
        b"</item></channel></rss>"
    )
    assert_quick_extraction(xml)
    assert_quick_extraction(xml.decode("latin-1"))


def test_pdf_like_bytes():
    pdf = (
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
        b"2 0 obj\n<< /Length 44 >>\nstream\n\x78\x9c\x00\x01\xff\xfe<p>\x00\nendstream\nendobj\n%%EOF\n"
    )
    assert_quick_extraction(pdf)


def test_mixed_encodings():
    # A UTF-8 page with a paragraph pasted in as cp1252 bytes: no crash, the UTF-8 part survives.
    page = ("<html><head><meta charset='utf-8'></head><body><article>" + ARTICLE * 3).encode("utf-8")
    page += "<p>Déjà vu: naïve façade for €5</p></article></body></html>".encode("cp1252")
    result = assert_quick_extraction(page)
    assert "The committee met on Tuesday" in result.text


@pytest.mark.parametrize("declared", ["utf-8", "shift_jis", "no-such-charset", "utf-16", "utf-32"])
def test_wrong_declared_encoding(declared):
    page = f"<html><head><meta charset='{declared}'></head><body>{ARTICLE * 3}</body></html>"
    result = assert_quick_extraction(page.encode("cp1252"))
    assert "The committee met on Tuesday" in result.text


def test_bom_and_declaration_disagree():
    page = f"<html><head><meta charset='iso-8859-1'></head><body>{ARTICLE * 3}<p>Grüße</p></body></html>"
    result = assert_quick_extraction(b"\xef\xbb\xbf" + page.encode("utf-8"))
    assert "The committee met on Tuesday" in result.text
    assert "\ufeff" not in result.text


def test_nul_bytes_in_the_middle_of_html():
    page = f"<html><body><article>{ARTICLE}\x00{ARTICLE}<p>Null\x00byte inside a word.</p></article></body></html>"
    for html in (page, page.encode("utf-8")):
        result = assert_quick_extraction(html)
        assert "The committee met on Tuesday" in result.text
        assert "\x00" not in result.text


def test_frameset_only():
    html = (
        "<html><head><title>Frames</title></head><frameset cols='25%,75%'>"
        "<frame src='menu.html'><frame src='main.html'><noframes>No frames</noframes></frameset></html>"
    )
    assert_quick_extraction(html)


def test_script_only():
    html = (
        "<html><head><script>var page = '<p>not content</p>';</script></head><body>"
        "<script>document.write('<p>written by script</p>')</script></body></html>"
    )
    result = assert_quick_extraction(html)
    assert "not content" not in result.text and "written by script" not in result.text


def test_very_large_page_is_cut_with_a_log_line(caplog):
    paragraph = (
        "<p>This paragraph is repeated many times to build a very large page for the "
        "size limit test of the extractor.</p>\n"
    )
    html = "<html><body><article>" + paragraph * (20_000_000 // len(paragraph)) + "</article></body></html>"
    assert len(html) > 19_000_000
    with caplog.at_level(logging.WARNING, logger="scrapy_boilerplate"):
        for data in (html, html.encode("utf-8")):
            result = assert_quick_extraction(data, seconds=8)
            assert result.text.startswith("This paragraph is repeated")
    assert any("cut" in record.getMessage() for record in caplog.records)


def test_very_deep_tree_as_string():
    depth = 100_000
    html = "<html><body>" + "<div>" * depth + "<p>Deep text.</p>" + "</div>" * depth + "</body></html>"
    assert_quick_extraction(html, seconds=5)


def test_deep_tree_as_string_keeps_the_shallow_text():
    html = (
        f"<html><body><article>{ARTICLE * 3}</article>"
        + "<div>" * 5000
        + "<p>Deep text.</p>"
        + "</div>" * 5000
        + "</body></html>"
    )
    result = assert_quick_extraction(html, seconds=5)
    assert "The committee met on Tuesday" in result.text


def test_very_deep_lxml_tree_is_walked_without_recursion():
    # 20,000 levels: far beyond Python's recursion limit, so a recursive walk would fail. (lxml
    # itself needs time quadratic in the depth to build such a tree with SubElement: 100,000
    # levels take it about 25 s, which is why the test stops at 20,000.)
    root = etree.Element("html")
    element = etree.SubElement(root, "body")
    for _ in range(20_000):
        element = etree.SubElement(element, "div")
    paragraph = etree.SubElement(element, "p")
    paragraph.text = "The only text of the page sits at the bottom of a very deep tree."
    result = extract_in_time(root, seconds=2)
    assert result.text == paragraph.text


def test_very_wide_tree():
    html = "<html><body>" + "".join(f"<p>Sibling paragraph number {i}.</p>" for i in range(100_000)) + "</body></html>"
    assert_quick_extraction(html, seconds=5)
    assert_quick_extraction(html.encode(), seconds=5)


def test_very_wide_inline_run():
    html = "<html><body><p>" + "<span>word</span> " * 100_000 + "</p></body></html>"
    assert_quick_extraction(html, seconds=5)


@pytest.mark.parametrize(
    "html",
    [
        "<html><body><div><p>Unclosed paragraph <b>bold <i>italic</div></div></div></div>",
        "</div></div></p></span><p>Stray closing tags first.</p>",
        "<p>One<p>Two<p>Three<li>Item<td>Cell</table></html></html><p>after the end",
        "<html><body><a href='x'<p>broken attribute</a><img src=><<<>>></body>",
        "<html><head><title>Unclosed title<body><p>Text</p>",
        "<!-- unclosed comment <p>Hidden?</p>",
        "<![CDATA[ raw <p>cdata</p> ]]>",
        "<html><body><script>never closed <p>text</p>",
        "<?xml version='1.0'?><!DOCTYPE html SYSTEM 'about:legacy-compat'><html xmlns='http://www.w3.org/1999/xhtml'><body><p>XHTML</p></body></html>",
        "<svg><foreignObject><p>inside svg</p></foreignObject></svg><p>outside</p>",
        "<table><tr><td><table><tr><td>nested</td></tr></table></td></tr></table>" * 50,
    ],
)
def test_malformed_markup(html):
    assert_quick_extraction(html)
    assert_quick_extraction(html.encode("utf-8"))


MALFORMED_PARAGRAPHS = [
    "The committee met on Tuesday to discuss the new budget for the coming year, and after a long "
    "debate it approved most of the proposals put forward by the finance office",
    "Several members asked why the cost of repairing the old bridge had doubled since the spring, "
    "and the engineers promised a detailed report before the next meeting",
    "The mayor said that the city would not raise local taxes this year, although the price of "
    "energy and the salaries of the staff have both gone up considerably",
    "A final vote on the library extension was postponed until December, because two members of "
    "the committee were absent and the architects had not yet finished their plans",
]


def test_malformed_article_keeps_its_text():
    # Unclosed <p> and <b>, stray closing tags, an unclosed <div>: the parser has to guess.
    html = (
        "<html><head><title>Council news</title><body><div class='nav'><a href='/'>Home</a> | "
        "<a href='/news'>News</a></span></div></div>"
        "<div class='article'><h1>Budget approved"
        f"<p>{MALFORMED_PARAGRAPHS[0]}.<p>{MALFORMED_PARAGRAPHS[1]}.</div></div></b>"
        f"<p><b>{MALFORMED_PARAGRAPHS[2]}.<p>{MALFORMED_PARAGRAPHS[3]}.</td></tr>"
        "<div class='footer'>Copyright the council</body>"
    )
    result = assert_quick_extraction(html)
    assert sum(paragraph in result.text for paragraph in MALFORMED_PARAGRAPHS) >= 3
    assert "Copyright the council" not in result.text


CJK_PAGE = """<html lang="zh"><head><meta charset="utf-8"><title>社区花园改变城市</title></head><body>
<nav><ul><li><a href="/">首页</a></li><li><a href="/news">新闻</a></li><li><a href="/city">城市</a></li></ul></nav>
<article><h1>社区花园改变城市</h1>
<p>城市社区花园在过去五年里迅速发展，越来越多的居民开始在空地上种植蔬菜和花卉，这不仅改善了社区环境，也让邻居们有了更多交流的机会。</p>
<p>根据市政府公园管理部门的统计，参与社区花园的居民人数已经增加了三倍，一些地区的申请名单甚至需要等待两个种植季节。</p>
<p>专家认为，社区花园还能在炎热的夏天降低街道温度，并在暴雨时吸收雨水，减轻城市排水系统的压力。</p>
</article><footer><p>版权所有 © 2024 城市日报</p></footer></body></html>"""

JAPANESE_PAGE = """<html lang="ja"><head><title>夜行列車の復活</title></head><body>
<div class="menu"><a href="/">ホーム</a> <a href="/travel">旅行</a></div>
<div class="entry-content">
<p>十年前、ヨーロッパの夜行列車は終わりを迎えたように見えました。しかし今日、ハンブルクからウィーンへ、ベルリンからパリへと夜行列車が再び走っています。</p>
<p>需要は事業者の予想を大きく上回っており、週末や休暇の時期には寝台車が数週間前から満席になることも珍しくありません。</p>
</div></body></html>"""

ARABIC_PAGE = """<html lang="ar" dir="rtl"><head><meta charset="utf-8"><title>الحدائق المجتمعية</title></head><body>
<nav><ul><li><a href="/">الرئيسية</a></li><li><a href="/news">أخبار</a></li></ul></nav>
<article><h1>الحدائق المجتمعية تغير المدينة</h1>
<p>شهدت المدينة خلال السنوات الخمس الماضية انتشارا واسعا للحدائق المجتمعية، حيث بدأ السكان بزراعة الخضروات والزهور في الأراضي الفارغة بين المباني.</p>
<p>ويقول المشاركون إن هذه الحدائق لم تحسن البيئة فقط، بل ساعدت الجيران على التعارف وتبادل البذور والوصفات والخبرات الزراعية فيما بينهم.</p>
<p>ويرى خبراء التخطيط العمراني أن الحدائق تساهم أيضا في خفض درجات الحرارة في الشوارع خلال أيام الصيف الحارة وامتصاص مياه الأمطار.</p>
</article><footer><p>جميع الحقوق محفوظة</p></footer></body></html>"""

HEBREW_PAGE = """<html lang="he" dir="rtl"><head><meta charset="windows-1255"><title>גינות קהילתיות</title></head><body>
<nav><a href="/">ראשי</a> <a href="/news">חדשות</a></nav><main>
<p>בחמש השנים האחרונות הפכו גינות קהילתיות לחלק בלתי נפרד מהנוף העירוני, ותושבים רבים החלו לגדל ירקות ופרחים במגרשים ריקים בין הבניינים.</p>
<p>לדברי המשתתפים, הגינות לא רק שיפרו את הסביבה אלא גם עזרו לשכנים להכיר זה את זה ולהחליף זרעים, מתכונים וניסיון בגידול צמחים.</p>
<p>מומחים לתכנון עירוני סבורים כי הגינות מסייעות גם להוריד את הטמפרטורה ברחובות בימי הקיץ החמים ולספוג את מי הגשמים.</p>
</main></body></html>"""


@pytest.mark.parametrize(
    "html, encoding, sentence",
    [
        (CJK_PAGE, "utf-8", "根据市政府公园管理部门的统计"),
        (CJK_PAGE, "gb18030", "根据市政府公园管理部门的统计"),
        (JAPANESE_PAGE, "utf-8", "需要は事業者の予想を大きく上回っており"),
        (ARABIC_PAGE, "utf-8", "ويقول المشاركون إن هذه الحدائق"),
        (HEBREW_PAGE, "cp1255", "לדברי המשתתפים, הגינות"),
    ],
    ids=["chinese", "chinese-gb18030", "japanese", "arabic", "hebrew-cp1255"],
)
def test_cjk_and_right_to_left_articles(html, encoding, sentence):
    if encoding == "gb18030":
        html = html.replace('charset="utf-8"', 'charset="gb2312"')
    for data in (html, html.encode(encoding)):
        result = assert_quick_extraction(data)
        assert sentence in result.text
        assert "الرئيسية" not in result.text and "首页" not in result.text


def test_wrong_type_raises_type_error():
    for value in (12345, None, 3.5, ["<p>x</p>"], {"html": "<p>x</p>"}):
        with pytest.raises(TypeError):
            extract(value)


def test_bytearray_and_memoryview_are_bytes():
    data = f"<html><body>{ARTICLE * 3}</body></html>".encode()
    expected = extract(data)
    assert expected.text
    assert extract(bytearray(data)) == expected
    assert extract(memoryview(data)) == expected


# -- property tests ---------------------------------------------------------------------------

PROPERTY_SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def check_never_raises(html):
    result = extract(html)
    assert isinstance(result, Extraction)
    assert isinstance(result.text, str)
    assert isinstance(result.markdown, str) and isinstance(result.html, str)
    assert isinstance(result.images, list)


@PROPERTY_SETTINGS
@given(st.text())
def test_any_text_never_raises(html):
    check_never_raises(html)


@PROPERTY_SETTINGS
@given(st.binary())
def test_any_bytes_never_raise(html):
    check_never_raises(html)


TAGS = [
    "html",
    "head",
    "body",
    "title",
    "meta",
    "script",
    "style",
    "div",
    "p",
    "span",
    "a",
    "b",
    "br",
    "h1",
    "h2",
    "ul",
    "li",
    "table",
    "tr",
    "td",
    "pre",
    "article",
    "nav",
    "footer",
    "figure",
    "figcaption",
    "img",
    "section",
    "aside",
    "form",
    "iframe",
    "svg",
    "template",
]
ATTRIBUTES = [
    "",
    " class='content'",
    " id='comments'",
    " hidden",
    " aria-hidden='true'",
    " style='display:none'",
    " role='dialog'",
    " href='/x'",
    " src='a.png'",
    " class='cookie-consent'",
    " itemprop='articleBody'",
    " lang='ar'",
    " charset='utf-16'",
    " type='application/ld+json'",
]

tag_soup = st.lists(
    st.one_of(
        st.builds(lambda tag, attr: f"<{tag}{attr}>", st.sampled_from(TAGS), st.sampled_from(ATTRIBUTES)),
        st.builds(lambda tag: f"</{tag}>", st.sampled_from(TAGS)),
        st.sampled_from(
            [
                "<!-- c -->",
                "<!DOCTYPE html>",
                "<![CDATA[x]]>",
                "&amp;",
                "&#0;",
                "&#xD800;",
                "<",
                ">",
                "\x00",
                "\ufeff",
                '{"@type": "Article", "articleBody": "x"}',
                '{"@type": "HowTo", "step": [{"itemListElement": 3}, "x", null]}',
                '{"@type": {"a": 1}, "recipeInstructions": {"text": 5}}',
                '{"@type": "Recipe", "recipeInstructions": "' + "Stir. " * 100 + '"}',
            ]
        ),
        st.text(max_size=40),
    ),
    max_size=60,
).map("".join)


@PROPERTY_SETTINGS
@given(tag_soup)
def test_tag_soup_never_raises(html):
    check_never_raises(html)
    check_never_raises(html.encode("utf-8", "surrogatepass"))


def test_executable_bytes_give_empty_extraction():
    # A real program (ELF, Mach-O or PE): control bytes throughout, not a page (issue 17).
    import sys
    from pathlib import Path

    from scrapy_boilerplate import detect_overview

    program = Path(sys.executable).resolve().read_bytes()[:500_000]
    assert assert_quick_extraction(program) == Extraction()
    assert detect_overview(program).net_text_length == 0


def test_legacy_encodings_are_not_taken_for_binary():
    from scrapy_boilerplate.core.document.parse import looks_binary

    page = "<html><body><p>Grüße aus Köln – “quoted” — ½ € ™</p></body></html>"
    for codec in ("cp1252", "latin-1", "shift_jis", "iso-2022-jp", "gb18030", "koi8-r"):
        data = page.encode(codec, errors="ignore")
        assert not looks_binary(data), codec
    assert not looks_binary(page.encode("utf-16"))
    assert not looks_binary(page.encode("utf-16-le"))  # no BOM: NULs every other byte
    assert not looks_binary(b"<p>a stray NUL\x00 in a page</p>")


@pytest.mark.parametrize(
    "ld",
    [
        '{"@type": "HowTo", "step": [{"itemListElement": 3}, "x", null, [1, 2]]}',
        '{"@type": {"a": 1}, "recipeInstructions": {"text": 5}}',
        '{"@type": ["Recipe"], "recipeInstructions": [{"itemListElement": [{"itemListElement": []}]}]}',
        '{"@type": "Article", "isAccessibleForFree": [], "articleBody": 7}',
        "[" * 5000 + "]" * 5000,
    ],
)
def test_odd_json_ld_bodies_never_raise(ld):
    page = f'<html><head><script type="application/ld+json">{ld}</script></head><body><p>x</p></body></html>'
    assert extract(page).text in ("", "x")


# -- article metadata (issue 19): bad values give None or [], never an exception or garbage ------


def _article(head: str = "", byline: str = "") -> str:
    return (
        f"<html><head><title>A headline</title>{head}</head><body><article><h1>A headline</h1>"
        f"{byline}{ARTICLE * 4}</article></body></html>"
    )


def assert_metadata_quick(html, seconds: float = 2.0):
    start = time.perf_counter()
    result = extract(html, url="https://example.com/news/story")
    meta = result.metadata.to_dict()
    assert time.perf_counter() - start < seconds
    assert isinstance(meta["authors"], list)
    return meta


@pytest.mark.parametrize(
    "script",
    [
        '{"@type": "NewsArticle", "author": ',  # cut off
        '{"@type": "NewsArticle", "author": {"name": {"a": 1}}, "datePublished": 20240315}',
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        '{"@graph": [' + ",".join(['{"@graph": []}'] * 5000) + "]}",
        '{"@type": ["NewsArticle", 3], "author": [null, 1, [], {"@id": 5}], "image": {"url": 7}}',
    ],
)
def test_malformed_json_ld_gives_no_metadata(script):
    meta = assert_metadata_quick(_article(f'<script type="application/ld+json">{script}</script>'))
    assert meta["authors"] == [] and meta["date_published"] is None and meta["image"] is None


@pytest.mark.parametrize(
    "value",
    [
        "0000-00-00",
        "2024-02-31",
        "2999-01-01T00:00:00Z",
        "1970-01-01",
        "99999999999999",
        "yesterday",
        "2024-13-45",
        "-1",
    ],
)
def test_impossible_and_future_dates_are_none(value):
    head = (
        f'<meta property="article:published_time" content="{value}">'
        f'<meta property="article:modified_time" content="{value}">'
        f'<script type="application/ld+json">{{"@type": "Article", "datePublished": "{value}"}}'
        f"</script>"
    )
    meta = assert_metadata_quick(_article(head))
    assert meta["date_published"] is None and meta["date_modified"] is None


def test_five_megabyte_json_ld_is_bounded():
    big = json.dumps({"@type": "NewsArticle", "author": {"name": "Jane Doe"}, "articleBody": "word " * 1_000_000})
    assert len(big) > 5_000_000
    meta = assert_metadata_quick(_article(f'<script type="application/ld+json">{big}</script>'))
    assert meta["authors"] == []  # not parsed at all: over metadata.MAX_JSONLD_CHARS


def test_thousands_of_meta_tags_are_bounded():
    metas = "".join(f'<meta name="x{i}" content="{i}">' for i in range(20_000))
    head = metas + '<meta name="author" content="Jane Doe">'
    meta = assert_metadata_quick(_article(head))
    assert meta["authors"] == []  # beyond metadata.MAX_META names; bounded, not read


@pytest.mark.parametrize(
    "author",
    [
        "<a href='/u/1'>https://example.com/author/jane</a>",
        "https://twitter.com/jane",
        "<script>alert(1)</script>",
        "www.example.com",
        "jane@example.com",
        "By",
        "Name",
        "Sign In",
        "15 March 2024",
        "x" * 5000,
        "<b></b>",
    ],
)
def test_author_fields_holding_urls_or_markup_give_no_author(author):
    escaped = author.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    head = (
        f'<meta name="author" content="{escaped}">'
        f'<script type="application/ld+json">{json.dumps({"@type": "Article", "author": author})}'
        f"</script>"
    )
    meta = assert_metadata_quick(_article(head))
    assert meta["authors"] == []


def test_author_markup_is_stripped_to_the_name():
    head = (
        '<script type="application/ld+json">{"@type": "Article", '
        '"author": "<a href=\\"/jane\\">By Jane Doe</a>"}</script>'
    )
    assert assert_metadata_quick(_article(head))["authors"] == ["Jane Doe"]


def test_metadata_of_bad_input_is_empty():
    for html in ("", b"\x00\xff" * 100, "<html>", "<<<>>>"):
        meta = extract(html).metadata.to_dict()
        assert meta["authors"] == [] and meta["date_published"] is None and meta["canonical_url"] is None
