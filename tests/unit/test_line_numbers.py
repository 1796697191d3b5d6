"""Code listings come out without their line numbers, in the text, the Markdown and the HTML.

Each markup of numbered listings seen on real sites is tested: on cut pages of the real blogs of
../shared/sites where their theme uses it (tests/fixtures/real/sites, cut by
tests/support/cut_fixtures.py), on pages made here for the rest (the highlighters' own markup:
Pygments' where it is installed, else the markup as the highlighter writes it). Every line of
the code must come out, in order, as one block: contiguous in the text, one fenced block in the
Markdown, one <pre> in the HTML; numbers that are the content (a listing of numbers, a table of
figures) stay.
"""

from __future__ import annotations

import html as html_lib
import re

import pytest
from conftest import site_page
from lxml import etree
from markdown_it import MarkdownIt

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.selection.line_numbers import find_line_numbers

CODE = '''import os
import sys


def count_lines(path):
    """How many lines the file at path holds."""
    with open(path, encoding="utf-8") as handle:
        return sum(1 for _ in handle)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(name, count_lines(name))'''
LINES = CODE.split("\n")
NUMBERS = range(1, len(LINES) + 1)


def article(listing: str) -> str:
    """A blog post with `listing` between its paragraphs."""
    return f"""<!DOCTYPE html><html lang="en"><head><title>Counting lines in Python</title></head><body>
<nav class="menu"><a href="/">Home</a> <a href="/archive/">Archive</a> <a href="/about/">About</a></nav>
<article class="post"><h1>Counting lines in Python</h1>
<p>Counting the lines of a file is a small task that comes up again and again when you look at logs,
data exports or source trees. Python makes it short, and the way it reads a file keeps the memory flat
even for files of many gigabytes, because the file object yields one line at a time.</p>
<p>The script below takes the paths on its command line and prints each one with the number of lines
it holds. It opens every file as UTF-8 text and counts the lines as it reads them.</p>
{listing}
<p>Run it with a few file names and it prints one line per file. For a quick look at a whole folder,
hand it the shell's glob, and sort the output by its second column to find the longest files first.</p>
<p>The same generator expression works for any iterable: counting the rows of a CSV reader or the
records of a JSON Lines file is the same one line of code.</p>
</article>
<footer><p>Copyright 2024 The Example Blog</p><a href="/feed.xml">Feed</a></footer>
</body></html>"""


def e(text: str) -> str:
    return html_lib.escape(text, quote=False)


def pygments_html(**options: object) -> str:
    pygments = pytest.importorskip("pygments")
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    return str(pygments.highlight(CODE + "\n", PythonLexer(), HtmlFormatter(**options)))


# -- the markups, as each highlighter writes them --


def hexo() -> str:
    """Hexo (NexT and most themes): a table, a gutter cell of numbers beside the code's cell."""
    gutter = "".join(f'<span class="line">{n}</span><br>' for n in NUMBERS)
    code = "".join(f'<span class="line">{e(line)}</span><br>' for line in LINES)
    return (
        '<figure class="highlight python"><table><tr><td class="gutter">'
        f'<pre>{gutter}</pre></td><td class="code"><pre>{code}</pre></td></tr></table></figure>'
    )


def pygments_table() -> str:
    """Pygments' linenos="table": a `linenodiv` cell of numbers beside the code's cell."""
    return pygments_html(linenos="table")


def pygments_inline() -> str:
    """Pygments' linenos="inline": a `linenos` span before each line."""
    return pygments_html(linenos="inline")


def pygments_inline_old() -> str:
    """Pygments before 2.7: a `lineno` span, the number and a space, before each line."""
    width = len(str(len(LINES)))
    lines = "\n".join(f'<span class="lineno">{n:>{width}} </span>{e(line)}' for n, line in zip(NUMBERS, LINES))
    return f'<div class="highlight"><pre>{lines}\n</pre></div>'


def rouge_table() -> str:
    """Rouge's table (kramdown, Jekyll themes such as Chirpy): `rouge-gutter gl` beside `rouge-code`."""
    numbers = "\n".join(map(str, NUMBERS))
    return (
        '<div class="language-python highlighter-rouge"><div class="highlight"><code><table class="rouge-table">'
        f'<tbody><tr><td class="rouge-gutter gl"><pre class="lineno">{numbers}\n</pre></td>'
        f'<td class="rouge-code"><pre>{e(CODE)}\n</pre></td></tr></tbody></table></code></div></div>'
    )


def jekyll_highlight_tag() -> str:
    """Jekyll's {% highlight python linenos %}: Rouge's table inside a <pre>."""
    numbers = "\n".join(map(str, NUMBERS))
    return (
        '<figure class="highlight"><pre><code class="language-python" data-lang="python"><table class="rouge-table">'
        f'<tbody><tr><td class="gutter gl"><pre class="lineno">{numbers}\n</pre></td>'
        f'<td class="code"><pre>{e(CODE)}\n</pre></td></tr></tbody></table></code></pre></figure>'
    )


def rouge_line_table() -> str:
    """Rouge's HTMLLineTable: a row per line, a `rouge-gutter gl` cell of its number in each."""
    rows = "".join(
        f'<tr id="line-{n}" class="lineno"><td class="rouge-gutter gl"><pre>{n}</pre></td>'
        f'<td class="rouge-code"><pre>{e(line)}\n</pre></td></tr>'
        for n, line in zip(NUMBERS, LINES)
    )
    return f'<div class="highlight"><table class="rouge-line-table"><tbody>{rows}</tbody></table></div>'


def chroma_table() -> str:
    """Hugo's Chroma with lineNos=table: a <pre> of `lnt` numbers beside the code's <pre>."""
    numbers = "".join(f'<span class="lnt">{n}\n</span>' for n in NUMBERS)
    code = "".join(f'<span class="line"><span class="cl">{e(line)}\n</span></span>' for line in LINES)
    return (
        '<div class="highlight"><div class="chroma"><table class="lntable"><tr><td class="lntd">'
        f'<pre tabindex="0" class="chroma"><code><span class="lnt">{numbers}</span></code></pre></td>'
        f'<td class="lntd"><pre tabindex="0" class="chroma"><code class="language-python" data-lang="python">{code}'
        "</code></pre></td></tr></table></div></div>"
    )


def hljs_line_numbers() -> str:
    """highlightjs-line-numbers.js: a table of `data-line-number` cells (numbers drawn by the
    style sheet) beside the lines, inside the <pre>."""
    rows = "".join(
        f'<tr><td class="hljs-ln-line hljs-ln-numbers" data-line-number="{n}">'
        f'<div class="hljs-ln-line hljs-ln-n" data-line-number="{n}"></div></td>'
        f'<td class="hljs-ln-line hljs-ln-code" data-line-number="{n}">{e(line) or chr(10)}</td></tr>'
        for n, line in zip(NUMBERS, LINES)
    )
    return f'<pre><code class="hljs python"><table class="hljs-ln"><tbody>{rows}</tbody></table></code></pre>'


def prism_column_of_spans() -> str:
    """VuePress's Prism code blocks: a column of `line-number` spans beside the <pre>."""
    numbers = "".join(f'<span class="line-number">{n}</span><br>' for n in NUMBERS)
    return (
        f'<div class="language-python line-numbers-mode"><pre class="language-python"><code>{e(CODE)}\n</code></pre>'
        f'<div class="line-numbers-wrapper">{numbers}</div></div>'
    )


def prism_line_numbers() -> str:
    """Prism's line-numbers plugin: an empty `line-numbers-rows` span (numbers drawn by the style sheet)."""
    rows = "<span></span>" * len(LINES)
    return (
        f'<pre class="line-numbers language-python"><code class="language-python">{e(CODE)}\n'
        f'<span aria-hidden="true" class="line-numbers-rows">{rows}</span></code></pre>'
    )


def docusaurus() -> str:
    """Docusaurus with showLineNumbers: an empty `codeLineNumber` span before each line (a counter)."""
    lines = "".join(
        '<span class="token-line codeLine_lJS_" style="color:#393A34"><span class="codeLineNumber_Tfdd"></span>'
        f'<span class="codeLineContent_feaV">{e(line)}</span><br></span>'
        for line in LINES
    )
    return (
        '<div class="language-python codeBlockContainer_Ckt0 theme-code-block"><div class="codeBlockContent_biex">'
        '<pre tabindex="0" class="prism-code language-python codeBlock_bY9V thin-scrollbar">'
        f'<code class="codeBlockLines_e6Vv codeBlockLinesWithNumbering_o6Pm">{lines}</code></pre></div></div>'
    )


def mkdocs_material() -> str:
    """MkDocs Material (pymdownx.highlight, linenums): Pygments' table, each number a link to its line."""
    table = pygments_html(linenos="table", anchorlinenos=True, lineanchors="__codelineno-0", wrapcode=True)
    return f'<div class="language-python highlight">{table}</div>'


def mkdocs_material_inline() -> str:
    """MkDocs Material's pymdownx-inline numbers: empty spans, the number in `data-linenos`."""
    lines = "".join(
        f'<span class="linenos" data-linenos="{n:>2} "></span>{e(line)}\n' for n, line in zip(NUMBERS, LINES)
    )
    return f'<div class="language-python highlight"><pre><span></span><code>{lines}</code></pre></div>'


def syntaxhighlighter() -> str:
    """SyntaxHighlighter (WordPress): a gutter cell of number divs beside a cell of line divs."""
    gutter = "".join(f'<div class="line number{n}">{n}</div>' for n in NUMBERS)
    code = "".join(
        f'<div class="line number{n}"><code class="python plain">{e(line) or "&nbsp;"}</code></div>'
        for n, line in zip(NUMBERS, LINES)
    )
    return (
        '<div class="syntaxhighlighter python"><table border="0" cellpadding="0" cellspacing="0"><tbody><tr>'
        f'<td class="gutter">{gutter}</td><td class="code"><div class="container">{code}</div></td>'
        "</tr></tbody></table></div>"
    )


MARKUPS = [
    hexo,
    pygments_table,
    pygments_inline,
    pygments_inline_old,
    rouge_table,
    jekyll_highlight_tag,
    rouge_line_table,
    chroma_table,
    hljs_line_numbers,
    prism_column_of_spans,
    prism_line_numbers,
    docusaurus,
    mkdocs_material,
    mkdocs_material_inline,
    syntaxhighlighter,
]
# Markups whose code is not in a <pre>: the walk reads each line as text (white space collapsed,
# blank lines gone), so only the lines' words can be compared.
NOT_PREFORMATTED = {syntaxhighlighter}


def fenced_blocks(markdown: str) -> list[str]:
    return [t.content.rstrip("\n") for t in MarkdownIt().parse(markdown) if t.type in ("fence", "code_block")]


def html_pres(html: str) -> list[str]:
    root = etree.fromstring(f"<div>{html}</div>", etree.HTMLParser())
    return ["".join(pre.itertext()) for pre in root.iter("pre")]


def assert_listing_whole(extraction, lines: list[str]) -> None:
    """`lines` come out in order and whole, as one block: in the text, one fenced block of the
    Markdown, one <pre> of the HTML; no line number anywhere."""
    code = "\n".join(lines)
    assert code in extraction.text
    assert fenced_blocks(extraction.markdown) == [code]
    assert html_pres(extraction.html) == [code]


def collapsed(lines: list[str]) -> list[str]:
    return [" ".join(line.split()) for line in lines if line.strip()]


@pytest.mark.parametrize("markup", MARKUPS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("favor", ["balanced", "recall"])
def test_a_listing_comes_out_whole_without_its_line_numbers(markup, favor):
    extraction = extract(article(markup()), favor=favor)
    assert_listing_whole(extraction, collapsed(LINES) if markup in NOT_PREFORMATTED else LINES)
    assert "Counting the lines of a file" in extraction.text
    assert extraction.text.endswith("is the same one line of code.")


GUTTERS = [hexo, pygments_table, rouge_table, chroma_table, prism_column_of_spans, mkdocs_material]


@pytest.mark.parametrize("markup", GUTTERS, ids=lambda m: m.__name__)
def test_a_gutter_is_found_whatever_the_model_says(markup):
    page = build_page(parse_html(article(markup())))
    found = find_line_numbers(page)
    assert [page.texts[i].split() for i in found.gutters] == [list(map(str, NUMBERS))]


def test_a_gutter_block_says_why_it_was_dropped():
    blocks = extract(article(hexo()), favor="recall").blocks
    gutter = [b for b in blocks if b.text.split() == list(map(str, NUMBERS))]
    assert [(b.is_content, b.reason) for b in gutter] == [(False, "line_numbers")]
    assert [b.is_content for b in blocks if b.text == CODE] == [True]


# -- numbers that are the content --

OUTPUT = "\n".join(str(n) for n in range(1, 11))


def program_output() -> str:
    """A <pre> of what a loop printed: numbers a line, nothing beside them."""
    return f"<pre><code>{OUTPUT}</code></pre>"


def highlighted_numbers() -> str:
    """A highlighted listing of numbers: an element a number, a number a line."""
    return (
        '<div class="highlight"><pre>'
        + "\n".join(f'<span class="mi">{n}</span>' for n in range(1, 11))
        + "</pre></div>"
    )


def numbered_data() -> str:
    """A highlighted data file whose lines start with a number, then one space, then the rest."""
    rows = ["apple", "banana", "cherry", "damson", "elderberry"]
    body = "\n".join(f'<span class="mi">{n}</span> <span class="n">{fruit}</span>' for n, fruit in enumerate(rows, 1))
    return f'<div class="highlight"><pre>{body}</pre></div>'


def numbers_beside_numbers() -> str:
    """Two cells of numbers side by side (n and n squared): a table of figures, not a gutter."""
    squares = "\n".join(str(n * n) for n in range(1, 11))
    return f"<table><tr><td><pre>{OUTPUT}</pre></td><td><pre>{squares}</pre></td></tr></table>"


def ranking() -> str:
    """A data table whose first column counts its rows."""
    cities = [("Tokyo", "37,400,068"), ("Delhi", "28,514,000"), ("Shanghai", "25,582,000"), ("Sao Paulo", "21,650,000")]
    rows = "".join(
        f"<tr><td>{n}</td><td>{city}</td><td>{people}</td></tr>" for n, (city, people) in enumerate(cities, 1)
    )
    return f"<table><thead><tr><th>Rank</th><th>City</th><th>People</th></tr></thead><tbody>{rows}</tbody></table>"


def pager_after_paragraphs() -> str:
    """A section's paragraphs, then a pager of its pages: not code beside its numbers."""
    pages = " ".join(f'<a href="?page={n}">{n}</a>' for n in (1, 2, 3))
    return (
        '<div class="entry"><p>Install the package with <code>pip install lines</code> first.</p>'
        f'<p>Then run it on a folder.</p><p>It prints one line per file.</p><div class="pages">{pages}</div></div>'
    )


@pytest.mark.parametrize(
    "markup, kept",
    [
        (pager_after_paragraphs, "Then run it on a folder.\nIt prints one line per file."),
        (program_output, OUTPUT),
        (highlighted_numbers, OUTPUT),
        (numbered_data, "1 apple\n2 banana\n3 cherry\n4 damson\n5 elderberry"),
        (numbers_beside_numbers, OUTPUT),
        (ranking, "1 | Tokyo | 37,400,068\n2 | Delhi | 28,514,000\n3 | Shanghai | 25,582,000"),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_numbers_that_are_the_content_stay(markup, kept):
    page = article(markup())
    found = find_line_numbers(build_page(parse_html(page)))
    assert found.gutters == [] and found.listings == []
    assert kept in extract(page, favor="recall").text


# -- the real blogs of ../shared/sites, cut (tests/support/cut_fixtures.py CUT_SITES) --


def hexo_listings(root) -> list[str]:
    lines = lambda td: ("".join(span.itertext()) for span in td.iter("span") if span.get("class") == "line")  # noqa: E731
    return ["\n".join(lines(td)) for td in cells(root, "code")]


def cells(root, cls: str):
    return root.xpath(f"//td[contains(concat(' ', normalize-space(@class), ' '), ' {cls} ')]")


def pre_listings(cls: str):
    return lambda root: ["".join(td.itertext()) for td in cells(root, cls)]


def inline_listings(number_class: str):
    """The <pre>s whose lines start with a `number_class` element, without those elements."""

    def listings(root) -> list[str]:
        out = []
        for pre in root.iter("pre"):
            numbers = [el for el in pre.iter() if el.get("class") == number_class]
            if numbers:
                for el in numbers:
                    el.getparent().remove(el) if not el.tail else (el.__setattr__("text", ""))
                out.append("".join(pre.itertext()))
        return out

    return listings


REAL_LISTINGS = [
    ("binglau7", "2015/12/19/csrf-xsrf-原理与应对策略/index.html", hexo_listings),
    ("alanlang", "archives/59303.html", hexo_listings),
    ("0xbro", "posts/reverse-and-patch-an-easy-apk/index.html", pre_listings("rouge-code")),
    ("arvimal", "posts/2008/02/dns-zone-file-sanity-check/index.html", inline_listings("ln")),
    ("cosmoscalibur", "en/blog/2024/configurar-segundo-teclado-en-linux/index.html", inline_listings("linenos")),
    ("cyrilou", "blog/2012-01-07-navigation-avec-le-clavier-pour-bonjourdubstep-fr/index.html", pre_listings("code")),
]


@pytest.mark.parametrize("site, member, listings", REAL_LISTINGS, ids=[site for site, _, _ in REAL_LISTINGS])
def test_listings_of_real_blogs_come_out_whole_without_line_numbers(site, member, listings):
    page = site_page(site, member)
    if page is None:
        pytest.skip(f"needs ../shared/sites/{site} or its cut page in tests/fixtures/real/sites")
    extraction = extract(page)
    codes = [code.strip("\n") for code in listings(parse_html(page))]
    assert codes
    blocks, pres = fenced_blocks(extraction.markdown), html_pres(extraction.html)
    for code in codes:
        assert code in extraction.text
        assert code in blocks
        assert code in pres
    # nothing but the listings and the prose: no block of numbers
    assert not any(re.fullmatch(r"[\d\s]+", block) for block in blocks)
    assert not re.search(r"^1\n2\n3$", extraction.text, re.M)


def test_a_listing_that_prints_numbers_keeps_them_without_its_gutter():
    """binglau7's post on I/O: a Hexo listing whose program prints 0 to 9, a line each."""
    page = site_page("binglau7", "2016/01/21/IO模式学习/index.html")
    if page is None:
        pytest.skip("needs ../shared/sites/binglau7 or its cut page in tests/fixtures/real/sites")
    text = extract(page).text
    printed = "#result\nbegin\n" + "\n".join(map(str, range(10))) + "\nend"
    assert printed in text
    assert "\n".join(map(str, range(1, 6))) not in text.replace(printed, "")
