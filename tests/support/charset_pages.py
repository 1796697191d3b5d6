"""Pages for the Unicode and charset tests (issue 34, items 2 and 11): JSON-LD with lone UTF-16
surrogates, and a Chinese article in GB18030 that declares its charset nowhere."""

from __future__ import annotations

import json

PARAGRAPH = "The harbour board agreed on Monday to rebuild the old pier before the summer season begins."
ZH_SENTENCE = "市政府周一宣布，将在今年夏天之前重建老码头，并为附近的居民提供新的公共交通服务。"
ZH_TITLE = "老码头重建计划公布"


def surrogate_page() -> str:
    """An article whose JSON-LD writes lone surrogates (escaped, as json.dumps writes them) in its
    author, publisher, description, image, URL and dates."""
    ld = (
        '{"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Pier \\udfff plan",'
        ' "author": {"@type": "Person", "name": "Bob \\udfff"},'
        ' "publisher": {"@type": "Organization", "name": "Harbour \\ud800Post"},'
        ' "description": "The pier plan \\ud83d", "image": "https://example.com/a\\udfff.jpg",'
        ' "url": "https://example.com/pier\\udfff", "datePublished": "2024-03-15\\udfff",'
        ' "inLanguage": "en\\udfff"}'
    )
    json.loads(ld)  # valid JSON: what a page can hold
    site = '{"@type": "WebSite", "name": "Harbour \\udc00 Post"}'
    body = "".join(f"<p>{PARAGRAPH} Part {i}.</p>" for i in range(6))
    return (
        f'<html><head><title>Pier plan</title><script type="application/ld+json">{ld}</script>'
        f'<script type="application/ld+json">{site}</script></head>'
        f"<body><article><h1>Pier plan</h1>{body}</article></body></html>"
    )


def chinese_page(declaration: str = "") -> str:
    """A Chinese article; `declaration` goes into its <head> (none by default)."""
    body = "".join(f"<p>{ZH_SENTENCE}第{i}段。</p>" for i in range(8))
    return (
        f"<html><head>{declaration}<title>{ZH_TITLE}</title></head><body><article><h1>{ZH_TITLE}</h1>"
        f"{body}</article></body></html>"
    )


RU_SENTENCE = "Городской совет в понедельник решил восстановить старый причал до начала летнего сезона."
RU_TITLE = "Старый причал"
#: An inline script long enough that Scrapy 2.19's own guess (charset-normalizer on the whole body)
#: reads the KOI8-R page below as mac-iceland.
SCRIPT = "<script>" + "var a = 1; function f(x) { return x * 2; }\n" * 500 + "</script>"


def russian_page() -> str:
    """A Russian article with a long inline script; declares no charset."""
    body = "".join(f"<p>{RU_SENTENCE} {i}</p>" for i in range(8))
    return (
        f"<html><head><title>{RU_TITLE}</title>{SCRIPT}</head><body><article><h1>{RU_TITLE}</h1>"
        f"{body}</article></body></html>"
    )
