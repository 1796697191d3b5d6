"""Structure in the outputs: data tables as units, lists, inline markup, links and images
on request, and safe output. Rendering is tested on every block of a page (the model's
choice aside, see `render_all`); the model's own decisions on tables are tested on real
pages in tests/unit/test_tables.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from lxml import etree
from markdown_it import MarkdownIt

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.extraction import build_extraction as _render
from scrapy_boilerplate.core.options import Options
from scrapy_boilerplate.core.selection.kept import Kept
from scrapy_boilerplate.core.selection.tables import find_data_tables

URL = "https://news.example.com/2024/03/story.html"
ALLOWED = {
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "blockquote",
    "pre",
    "code",
    "em",
    "strong",
    "br",
    "a",
    "img",
    "table",
    "caption",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
}
ALLOWED_ATTRS = {
    "a": {"href"},
    "img": {"src", "alt"},
    "ol": {"start"},
    "th": {"colspan", "rowspan"},
    "td": {"colspan", "rowspan"},
}


def render_all(body: str, url: str | None = URL, head: str = "", **options):
    """The Extraction of a page with every block kept (tables found as in extract())."""
    page = build_page(parse_html(f"<html><head>{head}</head><body>{body}</body></html>"), base_url=url)
    mask = np.ones(len(page), bool)
    return _render(Kept(page, mask, np.ones(len(page)), None, find_data_tables(page)), url, Options(**options))


def markdown_html(markdown: str) -> str:
    """What a CommonMark renderer with GitHub tables makes of `markdown`."""
    return MarkdownIt("commonmark").enable("table").render(markdown)


def parsed(html: str):
    return etree.fromstring(f"<div>{html}</div>", etree.HTMLParser()).find(".//div")


BUDGET = """<p>The council published its budget for the coming year.</p>
<table><caption>Budget 2025</caption>
<thead><tr><th>Item</th><th>Cost</th><th>Change</th></tr></thead>
<tbody><tr><td>Bridge repairs</td><td>0.5m</td><td>+10%</td></tr>
<tr><td>Road | resurfacing</td><td>1.2m</td><td>-3%</td></tr>
<tr><td>Parks</td><td>0.3m</td><td>0%</td></tr>
<tr><td>Libraries</td><td>0.7m</td><td>+2%</td></tr>
<tr><td colspan="2">Total</td><td>2.7m</td></tr></tbody></table>
<p>The vote is next week.</p>"""


def test_a_data_table_is_one_row_per_line_in_text():
    result = render_all(BUDGET)
    lines = result.text.splitlines()
    assert "Item | Cost | Change" in lines
    assert "Bridge repairs | 0.5m | +10%" in lines
    assert "Total | 2.7m" in lines
    assert lines.index("Budget 2025") == lines.index("Item | Cost | Change") - 1


def test_a_data_table_is_a_pipe_table_in_markdown_that_renders():
    md = render_all(BUDGET).markdown
    assert "| Item | Cost | Change |" in md
    assert "| Road \\| resurfacing | 1.2m | -3% |" in md  # a pipe in a cell is escaped
    assert "| Total |  | 2.7m |" in md  # colspan: the cell, then an empty one
    table = parsed(markdown_html(md)).find(".//table")
    rows = [[cell.text or "" for cell in tr] for tr in table.iter("tr")]
    assert rows[0] == ["Item", "Cost", "Change"]
    assert rows[2] == ["Road | resurfacing", "1.2m", "-3%"]
    assert len(rows) == 6 and all(len(row) == 3 for row in rows)


def test_a_data_table_keeps_its_structure_in_html():
    root = parsed(render_all(BUDGET).html)
    table = root.find("table")
    assert table.findtext("caption") == "Budget 2025"
    assert [th.text for th in table.find("thead").iter("th")] == ["Item", "Cost", "Change"]
    body_rows = table.find("tbody").findall("tr")
    assert [td.text for td in body_rows[0]] == ["Bridge repairs", "0.5m", "+10%"]
    assert body_rows[-1][0].get("colspan") == "2" and len(body_rows[-1]) == 2


def test_rowspan_repeats_the_cell_below_in_markdown():
    body = """<table><tr><th>Region</th><th>City</th><th>People</th></tr>
    <tr><td rowspan="2">North</td><td>Aton</td><td>120</td></tr><tr><td>Beton</td><td>80</td></tr>
    <tr><td>South</td><td>Ceton</td><td>60</td></tr></table>"""
    result = render_all(body)
    assert "| North | Beton | 80 |" in result.markdown
    rows = parsed(result.html).find("table").findall(".//tr")
    assert rows[1][0].get("rowspan") == "2" and [td.text for td in rows[2]] == ["Beton", "80"]


def test_a_table_without_header_cells_uses_its_first_row_as_markdown_header():
    body = "<table><tr><td>Weight</td><td>1.2 kg</td></tr><tr><td>Colour</td><td>red</td></tr></table>"
    result = render_all(body)
    assert result.text.splitlines() == ["Weight | 1.2 kg", "Colour | red"]
    table = parsed(markdown_html(result.markdown)).find(".//table")
    assert [c.text for c in table.iter("th", "td")] == ["Weight", "1.2 kg", "Colour", "red"]
    assert parsed(result.html).find(".//thead") is None


LAYOUT = """<table role="presentation"><tr><td><h2>Our story</h2><p>We have baked bread in the old
town since 1921, when the first oven was built of bricks from the river bank by two brothers.</p>
<p>The ovens still burn wood every morning, and the first loaves are out at five, before the
market opens and the town wakes up.</p></td><td><p>Opening hours are on the door.</p></td></tr>
<tr><td>A</td><td>B</td></tr></table>"""


@pytest.mark.parametrize(
    "body",
    [
        LAYOUT,
        LAYOUT.replace(' role="presentation"', ""),  # a cell of several paragraphs: laid out, not data
        "<table><tr><td>One cell</td><td>Two cell</td></tr></table>",  # a single row
        "<table><tr><td>Only</td></tr><tr><td>one column</td></tr></table>",
        "<table><tr><td>Name</td><td></td><td></td></tr><tr><td></td><td><b>Title</b></td><td></td></tr>"
        "<tr><td></td><td></td><td>x</td></tr></table>",  # mostly empty cells: a spacer grid
        "<table><tr><td><table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table></td>"
        "<td>x</td></tr><tr><td>y</td><td>z</td></tr></table>",  # the outer one holds a table
    ],
)
def test_layout_tables_are_walked_into_not_rendered_as_tables(body):
    page = build_page(parse_html(f"<html><body>{body}</body></html>"))
    tables = find_data_tables(page)
    outer = next(n for n, tag in enumerate(page.node_tags) if tag == "table")
    assert outer not in [t.node for t in tables]
    md = render_all(body).markdown
    if "<table><tr><td><table>" not in body:
        assert "|" not in md


def test_ordered_and_nested_lists():
    body = """<ol start="3"><li>Preheat the oven.</li><li>Mix the flour
    <ul><li>with salt</li><li>with <code>yeast</code></li></ul></li><li>Bake.</li></ol>
    <ul><li>Plain item</li></ul>
    <dl><dt>Proof</dt><dd>Let the dough rise.</dd></dl>"""
    result = render_all(body)
    md = result.markdown
    assert "3. Preheat the oven.\n4. Mix the flour\n   - with salt\n   - with `yeast`\n5. Bake." in md
    assert "- Plain item" in md
    rendered = parsed(markdown_html(md))
    ol = rendered.find("ol")
    assert ol.get("start") == "3" and len(ol.findall("li")) == 3
    assert ol.findall("li")[1].find("ul") is not None  # nested, not flattened
    root = parsed(result.html)
    assert root.find("ol").get("start") == "3"
    assert [li.text.strip() for li in root.find("ol").findall("li")] == ["Preheat the oven.", "Mix the flour", "Bake."]
    assert root.find("ol").findall("li")[1].find("ul/li[2]/code").text == "yeast"
    assert root.find("dl/dt").text == "Proof" and root.find("dl/dd").text == "Let the dough rise."


def test_each_ordered_list_numbers_its_own_items_and_indenting_stops_at_eight_levels():
    # Each list's numbers count its own items from its start, however deep it sits in others.
    body = (
        '<ol start="5"><li>a<ol><li>b<ol start="2"><li>c</li><li>d</li></ol></li><li>e</li></ol></li>'
        "<li>f</li></ol><ul><li>g<ul><li>h</li></ul></li></ul><ol><li>i</li></ol>"
    )
    result = render_all(body)
    assert result.markdown == "5. a\n   1. b\n      2. c\n      3. d\n   2. e\n6. f\n\n- g\n  - h\n\n1. i"
    assert result.html == (
        '<ol start="5"><li>a\n<ol><li>b\n<ol start="2"><li>c</li>\n<li>d</li></ol></li>\n<li>e</li></ol></li>\n'
        "<li>f</li></ol>\n<ul><li>g\n<ul><li>h</li></ul></li></ul>\n<ol><li>i</li></ol>"
    )
    # Fourteen lists deep: the outermost eight are written as lists, the deeper items as paragraphs.
    deep = render_all("".join(f'<ol start="{k}"><li>level {k}' for k in range(1, 15)) + "</li></ol>" * 14)
    assert deep.markdown.split("\n")[7] == " " * 21 + "8. level 8"
    assert deep.markdown.endswith("\n\n" + " " * 24 + "level 14")
    assert deep.html.count("<ol") == 8 and deep.html.count("</ol>") == 8
    assert deep.html.endswith("<p>level 14</p>" + "</li></ol>" * 8)


def test_inline_code_emphasis_and_line_breaks():
    body = """<p>Call <code>load()</code><code>now</code> with <em>care</em> and <strong>speed</strong>.</p>
    <p>Roses are red,<br>violets are blue.</p><pre>for x in y:\n    print(x)</pre>"""
    result = render_all(body)
    md = result.markdown
    # Two code spans in a row are kept apart: glued, they would read as one.
    assert "Call `load()` `now` with *care* and **speed**." in md
    assert "Roses are red,\\\nviolets are blue." in md
    assert "```\nfor x in y:\n    print(x)\n```" in md
    html = markdown_html(md)
    assert "<code>load()</code> <code>now</code>" in html and "<br />" in html
    assert "<em>care</em>" in result.html and "Roses are red,<br>violets are blue." in result.html


def test_links_and_images_only_on_request_and_absolute():
    body = """<p>Read <a href="/report.pdf">the report</a> or <a href="javascript:alert(1)">this</a>.</p>
    <figure><img src="/img/park.jpg" alt="The park"></figure><p>After the image.</p>"""
    plain = render_all(body)
    assert "[" not in plain.markdown and "<a " not in plain.html and "<img" not in plain.html
    assert plain.images == ["https://news.example.com/img/park.jpg"]
    rich = render_all(body, include_links=True, include_images=True)
    assert "[the report](https://news.example.com/report.pdf)" in rich.markdown
    assert "javascript" not in rich.markdown and "javascript" not in rich.html
    assert "![The park](https://news.example.com/img/park.jpg)" in rich.markdown
    md_lines = rich.markdown.split("\n\n")
    assert md_lines.index("![The park](https://news.example.com/img/park.jpg)") == 1  # in place
    assert '<img src="https://news.example.com/img/park.jpg" alt="The park">' in rich.html
    based = render_all(body, url=None, head='<base href="https://cdn.example/">', include_links=True)
    assert "(https://cdn.example/report.pdf)" in based.markdown
    relative = render_all(body, url=None, include_links=True)
    assert "](" not in relative.markdown and relative.images == []


HOSTILE = """<p onclick="steal()" style="color:red">Text with &lt;script&gt;alert(1)&lt;/script&gt; and
&lt;img src=x onerror=alert(2)&gt; escaped in the page, [a](javascript:alert(3)) and
<a href="javascript:alert(4)">a js link</a>, <a href=" JaVa&#x09;ScRiPt:alert(5)">another</a>,
<a href="data:text/html,hi">data</a>, <a href="//evil.example/x">protocol-relative</a>.</p>
<script>alert(6)</script><style>p{}</style><iframe src="https://evil.example"></iframe>
<svg><script>alert(7)</script><text>svg text</text></svg>
<p># not a heading<br>- not a list<br>1. not a list either<br>&gt; not a quote<br>*not emphasis* _nor this_</p>
<img src="javascript:alert(8)" alt="x"><img src="data:image/png;base64,AAAA" alt="y">
<img src="https://ok.example/a.png" onerror="alert(9)" alt="ok">"""


def test_hostile_pages_give_safe_html_and_markdown():
    result = render_all(HOSTILE, include_links=True, include_images=True)
    root = parsed(result.html)
    for el in root.iter():
        if el is root:
            continue
        assert el.tag in ALLOWED, el.tag
        assert set(el.attrib) <= ALLOWED_ATTRS.get(el.tag, set()), (el.tag, el.attrib)
        for name in ("href", "src"):
            if el.get(name) is not None:
                assert el.get(name).startswith(("http://", "https://")), el.get(name)
    assert result.images == ["https://ok.example/a.png"]
    assert "alert(6)" not in result.text and "svg text" not in result.text
    md_html = markdown_html(result.markdown)
    md_root = parsed(md_html)
    assert {el.tag for el in md_root.iter()} <= ALLOWED | {"div", "hr"}
    assert (
        "<script" not in md_html
        and "<img src=x" not in md_html
        and "onerror" not in md_html.replace("onerror=alert(2)", "")
    )
    for el in md_root.iter("a", "img"):
        assert (el.get("href") or el.get("src")).startswith("https://"), etree.tostring(el)
    # The escaped text reads as written, and line starts are not markup.
    text = " ".join(md_root.itertext())
    assert "<script>alert(1)</script>" in text and "[a](javascript:alert(3))" in text
    assert md_root.find(".//h1") is None and md_root.find(".//ul") is None and md_root.find(".//ol") is None
    assert md_root.find(".//blockquote") is None and md_root.find(".//em") is None
    assert "# not a heading" in text and "*not emphasis*" in text and "_nor this_" in text


def test_markup_survives_pickling_as_strings():
    import pickle

    result = render_all(BUDGET)
    copy = pickle.loads(pickle.dumps(result))
    assert (copy.markdown, copy.html) == (result.markdown, result.html)


def test_extract_keeps_a_table_inside_an_article_whole():
    """Through the model: a short table between long paragraphs is one decision."""
    story = " ".join(f"Sentence {i} of the council story explains where the money goes and why." for i in range(12))
    html = f"""<html><head><title>Budget</title></head><body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
    <article><h1>Budget</h1><p>{story}</p>{BUDGET}<p>{story}</p></article>
    <footer><a href="/about">About</a> <a href="/contact">Contact</a></footer></body></html>"""
    result = extract(html, url=URL)
    for row in (
        "Item | Cost | Change",
        "Bridge repairs | 0.5m | +10%",
        "Parks | 0.3m | 0%",
        "Libraries | 0.7m | +2%",
        "Total | 2.7m",
    ):
        assert row in result.text.splitlines()
    assert "| Parks | 0.3m | 0% |" in result.markdown
