"""Pathological inputs made to size: what a page (or a feed, a sitemap, a robots.txt) can be made
of to be slow.

Each maker takes a size in bytes and a salt and gives bytes of about that size (a little more:
whole units). The salt goes into the URLs, class names and words that caches keep across pages
(link keys, class cues), so that the inputs of two sizes share none of them and each is measured
as a page never seen before. Numbers that a stage may count up to (a pager's page numbers) grow
with the size, as a page made to be slow would make them.
"""

from __future__ import annotations

from collections.abc import Callable

import hostile_bytes
import hostile_crawl

Maker = Callable[[int, str], bytes]

#: Russian in windows-1251 ("Привет мир"), declared nowhere: the charset guess runs on it.
CP1251_WORDS = "Привет мир, новости дня ".encode("cp1251")
ARTICLE = (
    "The harbour authority said on Tuesday that the old ferry pier will close for repairs in May, after "
    "divers found that two of its wooden piles had rotted through below the waterline. "
)


def _fill(size: int, head: str | bytes, unit: Callable[[int], str | bytes] | None, tail: str | bytes = "") -> bytes:
    """`head`, then unit(0), unit(1)... until `size` bytes (no units: None), then `tail`."""
    encode = lambda s: s if isinstance(s, bytes) else s.encode("utf-8")  # noqa: E731
    parts, total, i = [encode(head)], len(encode(head)) + len(encode(tail)), 0
    while unit is not None and total < size:
        part = encode(unit(i))
        parts.append(part)
        total += len(part)
        i += 1
    parts.append(encode(tail))
    return b"".join(parts)


def _page(
    body_size: int, salt: str, unit: Callable[[int], str] | None, *, head: str = "", before: str = "", after: str = ""
) -> bytes:
    """An HTML page with a short article (so that every stage has something to do) whose body
    holds `before`, unit(0), unit(1)... up to about `body_size` bytes, and `after`."""
    top = (
        f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Pier to close {salt}</title>{head}</head>"
        f"<body><article><h1>Pier to close {salt}</h1><p>{ARTICLE * 3}</p>{before}"
    )
    return _fill(body_size, top, unit, f"{after}<p>{ARTICLE * 2}</p></article></body></html>")


# --- bytes that are not UTF-8 and declare no charset: the charset guess -------------------------
# (and hostile_bytes.GENERATORS, the inputs of the bytes path that once cost time in the square of
# their size: "<" without ">", scripts and comments never ended, stray bytes in UTF-8...)


def lt_undeclared(size: int, salt: str) -> bytes:
    """windows-1251 words around many "<" that open no tag: the detector has words to read."""
    return _fill(size, b"<html><body><p>", lambda i: CP1251_WORDS + b"<")


def tags_undeclared(size: int, salt: str) -> bytes:
    """An ordinary page in windows-1251: many short tags between words."""
    return _fill(size, b"<html><body>", lambda i: b"<p class=x>" + CP1251_WORDS + b"<b>" + CP1251_WORDS + b"</b></p>")


def _sized(make: Callable[[int], bytes]) -> Maker:
    """A maker of hostile_bytes (size only) as a maker here."""

    def maker(size: int, salt: str) -> bytes:
        return make(size)

    maker.__name__ = make.__name__
    maker.__doc__ = make.__doc__
    return maker


# --- pages ------------------------------------------------------------------------------------


def pager_groups(size: int, salt: str) -> bytes:
    """Groups of two numbered links, 1 and a number that grows with the page (up to 99,999)."""
    top = min(99_999, size // 3)
    return _page(
        size, salt, lambda i: f'<div><a href="/{salt}/g{i}/1">1</a> <a href="/{salt}/g{i}/{top}">{top}</a></div>'
    )


def pager_numbers(size: int, salt: str) -> bytes:
    """One pager holding every number, the current page (the middle one) not linked."""
    middle = size // 40

    def unit(i: int) -> str:
        return (
            f"<span>{i + 1}</span> "
            if i + 1 == middle
            else f'<a class="page-numbers" href="/{salt}/page/{i + 1}/">{i + 1}</a> '
        )

    return _page(size, salt, unit, before='<nav class="pagination">', after="</nav>")


def number_text(size: int, salt: str) -> bytes:
    """Paragraphs of numbers: what a pager's text and dates are read from."""
    return _page(size, salt, lambda i: f"<p>{' '.join(str(i * 7 + k) for k in range(20))} 2024-01-{i % 28 + 1:02d}</p>")


def deep_divs(size: int, salt: str) -> bytes:
    """Block elements nested as deep as the parser goes, then siblings (each one deeper)."""
    return _page(size, salt, lambda i: f'<div class="d{i % 7}">{i} words ')


def deep_inline_links(size: int, salt: str) -> bytes:
    """Inline elements nested, each with a link: every link's ancestors are inline."""
    return _page(size, salt, lambda i: f'<span class="s{i % 5}"><a href="/{salt}/n{i}">{i}</a> text ')


def nested_links(size: int, salt: str) -> bytes:
    """Links left open, each in a span: libxml2 nests every link in the one before."""
    return _page(size, salt, lambda i: f'<a href="/{salt}/n{i}"><span class="s{i % 5}">{i} ')


def deep_lists(size: int, salt: str) -> bytes:
    """Lists nested in lists."""
    return _page(size, salt, lambda i: f"<ul><li>item {i} <a href='/{salt}/l{i}'>link</a>")


def long_class(size: int, salt: str) -> bytes:
    """One element whose class holds the whole page: many class names."""
    names = _fill(size, "", lambda i: f"c{salt}-{i}-name ").decode()
    return _page(0, salt, None, before=f'<div class="{names}">A box.</div>')


def long_class_word(size: int, salt: str) -> bytes:
    """One class name as long as the page, of letters and dashes (many tokens, many keys)."""
    name = _fill(size, "", lambda i: "ab-" if i % 3 else "content-").decode()
    return _page(0, salt, None, before=f'<div class="{name}" id="{name}">A box.</div>')


def class_lists(size: int, salt: str) -> bytes:
    """Many elements, each with a class list of forty names."""
    return _page(
        size,
        salt,
        lambda i: f'<div class="{" ".join(f"k{salt}{i}x{k}" for k in range(40))}"><p>Box {i} text.</p></div>',
    )


def long_attributes(size: int, salt: str) -> bytes:
    """A link, an image and a styled box with attributes as long as the page."""
    value = "x" * (size // 4)
    return _page(
        0,
        salt,
        str,
        before=(
            f'<p><a href="/{salt}/{value}" title="{value}">a link</a></p><img src="/{value}.png" alt="{value}">'
            f'<div style="color: red; {"margin: 0; " * (size // 40)}">Styled.</div><p data-x="{value}">Data.</p>'
        ),
    )


def many_links(size: int, salt: str) -> bytes:
    """Paragraphs of links, each to its own URL."""
    return _page(size, salt, lambda i: f'<p>See <a href="/{salt}/story-{i}.html">story number {i}</a> and more.</p>')


def long_href(size: int, salt: str) -> bytes:
    """Links whose URLs are 2 KB each."""
    return _page(size, salt, lambda i: f'<p><a href="/{salt}/{i}/{"segment/" * 250}">a link {i}</a></p>')


def run_of_spaces(size: int, salt: str) -> bytes:
    """Words far apart: whitespace runs of the page's length."""
    return _page(0, salt, None, before="<p>a" + " \n\t" * (size // 3) + "b</p>")


def run_of_entities(size: int, salt: str) -> bytes:
    """Character references, one after another."""
    return _page(0, salt, None, before="<p>" + "&amp;&#x4e2d;" * (size // 13) + "</p>")


def near_identical_cards(size: int, salt: str) -> bytes:
    """Teaser cards from one template: a linked headline and the same teaser text."""
    return _page(
        size,
        salt,
        lambda i: (
            f'<div class="card teaser"><h2><a href="/{salt}/news/story-{i}.html">The pier will close for repairs '
            f"in May, number {i}</a></h2><p>Divers found two rotten piles below the waterline.</p>"
            f'<a href="/{salt}/news/story-{i}.html">Read more</a></div>'
        ),
    )


def near_identical_paragraphs(size: int, salt: str) -> bytes:
    """The same paragraph again and again."""
    return _page(size, salt, lambda i: f"<p>{ARTICLE}</p>")


def feed_announcements(size: int, salt: str) -> bytes:
    """Head <link> elements announcing feeds, each its own."""
    return _page(
        0,
        salt,
        str,
        head="".join(
            f'<link rel="alternate" type="application/rss+xml" href="/{salt}/feed-{i}.xml">' for i in range(size // 70)
        ),
    )


def table_cells(size: int, salt: str) -> bytes:
    """One table of many rows of cells."""
    return _page(
        size,
        salt,
        lambda i: "<tr>" + "".join(f"<td>{i}.{k}</td>" for k in range(8)) + "</tr>",
        before="<table>",
        after="</table>",
    )


def wide_table(size: int, salt: str) -> bytes:
    """One table row as wide as the page."""
    return _page(size, salt, lambda i: f"<td>cell {i}</td>", before="<table><tr>", after="</tr></table>")


def line_breaks(size: int, salt: str) -> bytes:
    """Text lines cut by <br>, single and double."""
    return _page(size, salt, lambda i: f"line {i}<br>" + ("<br>" if i % 3 == 0 else ""), before="<p>", after="</p>")


def headings(size: int, salt: str) -> bytes:
    """Headings, each followed by a short paragraph."""
    return _page(size, salt, lambda i: f"<h2>Heading {i}</h2><p>Some words {i}.</p>")


def jsonld_big(size: int, salt: str) -> bytes:
    """One JSON-LD object with a long body and many keywords and authors."""
    body = ARTICLE * (size // (2 * len(ARTICLE)) + 1)
    keywords = ", ".join(f"k{i}" for i in range(size // 20))
    authors = ",".join(f'{{"@type": "Person", "name": "Author {i}"}}' for i in range(size // 200))
    jsonld = (
        f'{{"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Pier {salt}", '
        f'"articleBody": "{body}", "keywords": "{keywords}", "author": [{authors}], "datePublished": "2024-05-01"}}'
    )
    return _page(0, salt, None, head=f'<script type="application/ld+json">{jsonld}</script>')


def jsonld_many(size: int, salt: str) -> bytes:
    """Many JSON-LD scripts."""
    return _page(
        0,
        salt,
        str,
        head="".join(
            f'<script type="application/ld+json">{{"@type": "Article", "headline": "H{i}", "author": {{"name": "A{i}"}}, '
            f'"datePublished": "2024-01-{i % 28 + 1:02d}"}}</script>'
            for i in range(size // 140)
        ),
    )


def meta_tags(size: int, salt: str) -> bytes:
    """Head <meta> tags: article tags, authors, dates, descriptions."""
    names = ("article:tag", "author", "article:published_time", "description", "og:image", "keywords")
    return _page(
        0,
        salt,
        str,
        head="".join(
            f'<meta property="{names[i % 6]}" name="{names[i % 6]}" content="value {i} 2024-02-{i % 28 + 1:02d}">'
            for i in range(size // 90)
        ),
    )


def bylines(size: int, salt: str) -> bytes:
    """Short blocks that look like bylines and dates."""
    return _page(
        size,
        salt,
        lambda i: (
            f'<p class="byline">By Author Number{i} and Other Person{i}</p><time datetime="2024-03-{i % 28 + 1:02d}">March {i % 28 + 1}, 2024</time>'
        ),
    )


def hidden_boxes(size: int, salt: str) -> bytes:
    """Hidden elements with ids, and controls that open them."""
    return _page(
        size,
        salt,
        lambda i: (
            f'<div id="box{salt}{i}" style="display:none">Hidden {i}</div><button aria-controls="box{salt}{i}">open</button>'
        ),
    )


def code_blocks(size: int, salt: str) -> bytes:
    """Code blocks with many short lines."""
    return _page(size, salt, lambda i: f"<pre><code>x_{i} = {i}\ny = x_{i} + 1\n</code></pre><p>Code {i}.</p>")


PAGES: dict[str, Maker] = {
    maker.__name__: maker
    for maker in (
        pager_groups,
        pager_numbers,
        number_text,
        deep_divs,
        deep_inline_links,
        nested_links,
        deep_lists,
        long_class,
        long_class_word,
        class_lists,
        long_attributes,
        many_links,
        long_href,
        run_of_spaces,
        run_of_entities,
        near_identical_cards,
        near_identical_paragraphs,
        feed_announcements,
        table_cells,
        wide_table,
        line_breaks,
        headings,
        jsonld_big,
        jsonld_many,
        meta_tags,
        bylines,
        hidden_boxes,
        code_blocks,
    )
}
UNDECLARED: dict[str, Maker] = {
    maker.__name__: maker
    for maker in (lt_undeclared, tags_undeclared, *(_sized(make) for make in hostile_bytes.GENERATORS.values()))
}


# --- feeds, sitemaps, robots.txt (hostile_crawl's, sized in bytes; and a few more) ---------------


def rss_items(size: int, salt: str) -> bytes:
    """An RSS feed of many items, each its own URL (about 90 bytes an item)."""
    return hostile_crawl.huge_feed(size // 90, base=f"https://example.org/{salt}")


def atom_entries(size: int, salt: str) -> bytes:
    """An Atom feed of many entries, each with a self link and an alternate one."""
    return _fill(
        size,
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>',
        lambda i: (
            f'<entry><title>Story {i}</title><link rel="self" href="/{salt}/self-{i}"/>'
            f'<link rel="alternate" href="https://example.org/{salt}/story-{i}"/></entry>'
        ),
        "</feed>",
    )


def feed_junk(size: int, salt: str) -> bytes:
    """A feed's root full of empty elements that are no entry."""
    return hostile_crawl.junk_elements(size)


def sitemap_urls(size: int, salt: str) -> bytes:
    """A sitemap of many URLs (about 40 bytes each)."""
    return hostile_crawl.urlset(range(size // 40), base=f"https://example.org/{salt}")


def sitemap_index(size: int, salt: str) -> bytes:
    """A sitemap index of many sitemaps (about 50 bytes each)."""
    return hostile_crawl.sitemap_index(range(size // 50), base=f"https://example.org/{salt}")


def sitemap_relative(size: int, salt: str) -> bytes:
    """A sitemap of relative locations with alternates (urljoin on each)."""
    return _fill(
        size,
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">',
        lambda i: (
            f'<url><loc>/{salt}/p{i}</loc><xhtml:link rel="alternate" hreflang="de" href="/de/{salt}/p{i}"/></url>'
        ),
        "</urlset>",
    )


def robots_sitemaps(size: int, salt: str) -> bytes:
    """A robots.txt of many Sitemap: lines, each its own (about 25 bytes a line)."""
    return hostile_crawl.robots_with_sitemaps(size // 25)


def robots_rules(size: int, salt: str) -> bytes:
    """A robots.txt of many rules and a few sitemaps."""
    return _fill(
        size,
        "Sitemap: /sitemap.xml\n",
        lambda i: f"User-agent: bot{i}\nDisallow: /{salt}/{i}/\nAllow: /{salt}/{i}/public\n\n",
    )


def robots_long_line(size: int, salt: str) -> bytes:
    """A robots.txt of one line as long as the file."""
    return b"Sitemap: https://example.org/" + b"a" * size + b"\n"


FEEDS: dict[str, Maker] = {m.__name__: m for m in (rss_items, atom_entries, feed_junk)}
SITEMAPS: dict[str, Maker] = {m.__name__: m for m in (sitemap_urls, sitemap_index, sitemap_relative)}
ROBOTS: dict[str, Maker] = {m.__name__: m for m in (robots_sitemaps, robots_rules, robots_long_line)}
