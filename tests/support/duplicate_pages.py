"""Copies of real article pages, as a crawl meets them (duplicate detection's tests and benchmark).

From a page's HTML, its headline and its gold paragraphs (one block a line):

- ``print``: the headline and the paragraphs in another, plain print template;
- ``amp``: the same text in an AMP-like template with its own navigation and related links;
- ``repost``: the original page with an update line before the article and another
  related-links box after it;
- ``wire``: another site's template, the first paragraph replaced by a local intro line;
- ``truncated``: the first half of the paragraphs, with a "read the full story" link.
"""

from __future__ import annotations

import html
import random

import lxml.html

KINDS = ("print", "amp", "repost", "wire", "truncated")

_NAV = ["Home", "News", "Politics", "Business", "Sport", "Culture", "Opinion", "Weather"]
_RELATED = [
    "Council approves new budget after a long night of debate",
    "Five things to know before the weekend storm arrives",
    "Local bakery wins national award for its sourdough",
    "Transport strike: what changes for commuters on Monday",
    "Opinion: our parks need more trees and fewer car parks",
]


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _links(rng: random.Random, heading: str) -> str:
    items = "".join(f'<li><a href="/story/{rng.randrange(10**6)}">{_esc(t)}</a></li>' for t in rng.sample(_RELATED, 4))
    return f'<aside class="related"><h3>{heading}</h3><ul>{items}</ul></aside>'


def _template(title: str, body: str, rng: random.Random, *, amp: bool = False, site: str = "Print") -> str:
    nav = "".join(f'<a href="/{n.lower()}">{n}</a> ' for n in rng.sample(_NAV, 6))
    head = '<html amp lang="en">' if amp else '<html lang="en">'
    return (
        f'<!doctype html>{head}<head><meta charset="utf-8"><title>{_esc(title)} | {site}</title>'
        f'</head><body><header><div class="logo">{site}</div><nav>{nav}</nav></header>'
        f'<main><article><h1>{_esc(title)}</h1><p class="byline">By Staff Reporter</p>{body}'
        f"</article>{_links(rng, 'More from ' + site)}</main>"
        f"<footer><p>Copyright {site} Media. All rights reserved.</p>"
        f'<a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer></body></html>'
    )


def _paragraphs(lines: list[str]) -> str:
    return "".join(f"<p>{_esc(line)}</p>" for line in lines)


def make_copy(kind: str, raw: bytes, title: str, gold_lines: list[str], seed: int = 0) -> str:
    """The copy of `kind` (KINDS) of a page: HTML text (UTF-8, declared)."""
    rng = random.Random(f"{kind}:{seed}")
    if kind == "print":
        return _template(title, _paragraphs(gold_lines), rng, site="Printer-friendly edition")
    if kind == "amp":
        return _template(title, _paragraphs(gold_lines), rng, amp=True, site="News AMP")
    if kind == "wire":
        intro = (
            "A regional wire service distributed this report to member newspapers; "
            "our local desk added context for readers in the valley this morning."
        )
        return _template(title, _paragraphs([intro, *gold_lines[1:]]), rng, site="Valley Herald")
    if kind == "truncated":
        half = gold_lines[: max(1, len(gold_lines) // 2)]
        more = '<p><a href="/full">Read the full story on the original site</a></p>'
        return _template(title, _paragraphs(half) + more, rng, site="Digest")
    if kind == "repost":
        return _repost(raw, gold_lines, rng)
    raise ValueError(f"unknown kind {kind!r}")


def _repost(raw: bytes, gold_lines: list[str], rng: random.Random) -> str:
    """The page itself with an update line before its first paragraph and a related-links box
    after its last (or at the start and end of the body when they are not found)."""
    doc = lxml.html.document_fromstring(raw)
    for meta in doc.xpath("//meta[@charset or translate(@http-equiv, 'CONTENT-TYP', 'content-typ')='content-type']"):
        meta.getparent().remove(meta)
    head = doc.find("head")
    if head is None:
        head = lxml.html.Element("head")
        doc.insert(0, head)
    head.insert(0, lxml.html.fromstring('<meta charset="utf-8">'))
    first = _element_with(doc, gold_lines[0]) if gold_lines else None
    last = _element_with(doc, gold_lines[-1]) if gold_lines else None
    body = doc.find("body")
    if body is None:
        body = doc
    update = lxml.html.fromstring(
        "<p><em>Update: this story was updated with a statement from the city council after publication.</em></p>"
    )
    if first is not None and first.getparent() is not None:
        first.addprevious(update)
    else:
        body.insert(0, update)
    box = lxml.html.fromstring(_links(rng, "Read next"))
    if last is not None and last.getparent() is not None:
        last.addnext(box)
    else:
        body.append(box)
    return lxml.html.tostring(doc, encoding="unicode", method="html", doctype="<!doctype html>")


def _element_with(doc, line: str):
    """The smallest paragraph-like element whose text holds the start of `line`."""
    probe = " ".join(line.split())[:60]
    if len(probe) < 15:
        return None
    for el in doc.iter("p", "li", "div", "blockquote", "h2", "h3"):
        text = " ".join(el.text_content().split())
        if probe in text and len(text) < 3 * max(len(line), 80):
            return el
    return None
