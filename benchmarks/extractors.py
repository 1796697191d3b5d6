"""The libraries the report compares, each behind one small adapter.

Every adapter is a factory: it imports its library (an ImportError means "not
installed") and returns a function ``run(html: bytes, url: str | None)``. The
report calls the factory once in the library's own worker process and then
times ``run`` page by page. Factories take keyword options where the report
passes some (our overview detector: which model file).

Extractors return plain text. Each uses its library's recommended main-content
call and gets the page URL where the library takes one. Libraries that want a
``str`` get the bytes decoded by w3lib's ``html_to_unicode`` (what Scrapy's
``response.text`` does); the others do their own encoding detection.

Overview checks return True when they call the page an overview (a page that
leads to other pages rather than holding one text).

Only the standard library is imported here at module level, so a worker's
memory holds the library under test and little else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Run = Callable[[bytes, "str | None"], object]


@dataclass(frozen=True)
class Adapter:
    factory: Callable[[], Run]
    distribution: str  # the PyPI name whose version the report gives
    label: str  # the name shown in tables and the figure


# --- helpers ----------------------------------------------------------------


def decode_html(html: bytes) -> str:
    """HTML bytes as text, as Scrapy's response.text decodes them (BOM, <meta charset>, guess)."""
    from w3lib.encoding import html_to_unicode

    return html_to_unicode(None, html)[1]


# Elements after which an HTML output gets a line break, so its text has one
# block a line like the gold; cells only get a space (compare.py uses it too).
BLOCK_TAGS = {
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "tr",
    "ul",
}
CELL_TAGS = {"td", "th"}


def html_to_text(fragment: str) -> str:
    """Text of an HTML fragment with one block a line."""
    import lxml.html

    root = lxml.html.fromstring(fragment)
    for el in root.iter():
        if not isinstance(el.tag, str):  # comments, processing instructions
            continue
        if el.tag in BLOCK_TAGS:
            el.text = "\n" + (el.text or "")
            el.tail = "\n" + (el.tail or "")
        elif el.tag in CELL_TAGS:
            el.tail = " " + (el.tail or "")
    lines = (" ".join(line.split()) for line in root.text_content().splitlines())
    return "\n".join(line for line in lines if line)


def offline_tldextract() -> None:
    """newspaper4k asks tldextract for domains; by default tldextract first downloads the
    public suffix list. Use the copy it ships instead (no network here)."""
    import tldextract
    from tldextract import tldextract as tld_module

    tld_module.TLD_EXTRACTOR = tldextract.TLDExtract(suffix_list_urls=())


# --- extractors -------------------------------------------------------------


def ours():
    from scrapy_boilerplate import extract

    def run(html, url):
        return extract(html, url=url).text or ""

    return run


def ours_recall():
    """Our extractor with favor="recall" (keeps more)."""
    from scrapy_boilerplate import Extractor

    extractor = Extractor(favor="recall")

    def run(html, url):
        return extractor.extract(html, url=url).text or ""

    return run


def ours_no_model():
    """Our model-free mode (CETR clustering): Extractor(model=False)."""
    from scrapy_boilerplate import Extractor

    extractor = Extractor(model=False)

    def run(html, url):
        return extractor.extract(html, url=url).text or ""

    return run


def ours_pure_python():
    """Our extractor without its compiled modules (their pure-Python twins), as on a machine
    where they could not be built."""
    import os

    os.environ["SCRAPY_BOILERPLATE_PURE_PYTHON"] = "1"  # read when the package is first imported
    from scrapy_boilerplate import extract
    from scrapy_boilerplate.core import speedups

    assert not any(speedups.available().values()), "compiled modules were loaded"

    def run(html, url):
        return extract(html, url=url).text or ""

    return run


def trafilatura():
    import trafilatura

    def run(html, url):
        # As compare.py: plain text, tables kept, comments left out (the gold leaves them out).
        return (
            trafilatura.extract(html, url=url, output_format="txt", include_comments=False, include_tables=True) or ""
        )

    return run


def readability():
    import readability

    def run(html, url):
        return html_to_text(readability.Document(html, url=url).summary())

    return run


def justext():
    import justext

    # The pages' languages are not given (many sets are multilingual), so, as
    # trafilatura does when it calls jusText without a known language, the
    # stop words of all of jusText's languages together.
    stoplist = frozenset(word for language in justext.get_stoplists() for word in justext.get_stoplist(language))

    def run(html, url):
        paragraphs = justext.justext(html, stoplist)
        return "\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return run


def boilerpy3():
    from boilerpy3 import extractors

    extractor = extractors.ArticleExtractor()  # boilerpipe's article extractor

    def run(html, url):
        return extractor.get_content(decode_html(html))

    return run


def goose3():
    from goose3 import Goose

    goose = Goose()  # image fetching is off by default

    def run(html, url):
        return goose.extract(url=url, raw_html=decode_html(html)).cleaned_text or ""

    return run


def newspaper4k():
    offline_tldextract()
    import newspaper

    def run(html, url):
        return newspaper_article(newspaper, html, url).text or ""

    return run


def newspaper_article(newspaper, html: bytes, url: str | None):
    """A parsed newspaper.Article from HTML we already have (input_html: no download)."""
    # fetch_images=False: do not download images to size them; memorize_articles=False:
    # no cache of seen URLs on disk (it would change the result of a second run).
    article = newspaper.Article(url or "", fetch_images=False, memorize_articles=False)
    article.download(input_html=decode_html(html))
    article.parse()
    return article


def resiliparse():
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import detect_encoding
    from resiliparse.parse.html import HTMLTree

    def run(html, url):
        tree = HTMLTree.parse_from_bytes(html, detect_encoding(html))
        return extract_plain_text(tree, main_content=True)

    return run


def html_text():
    import html_text

    def run(html, url):
        return html_text.extract_text(decode_html(html))  # all the page's text: the baseline

    return run


def lxml_parse():
    """Not an extractor: lxml parsing the page, the unit of speed (returns no text)."""
    import lxml.html

    def run(html, url):
        lxml.html.fromstring(html)
        return ""

    return run


EXTRACTORS: dict[str, Adapter] = {
    "ours": Adapter(ours, "scrapy-boilerplate-removal", "scrapy_boilerplate"),
    "ours_recall": Adapter(ours_recall, "scrapy-boilerplate-removal", 'scrapy_boilerplate, favor="recall"'),
    "ours_no_model": Adapter(ours_no_model, "scrapy-boilerplate-removal", "scrapy_boilerplate, model-free"),
    "ours_pure_python": Adapter(ours_pure_python, "scrapy-boilerplate-removal", "scrapy_boilerplate, pure Python"),
    "trafilatura": Adapter(trafilatura, "trafilatura", "trafilatura"),
    "readability": Adapter(readability, "readability-lxml", "readability-lxml"),
    "justext": Adapter(justext, "jusText", "jusText"),
    "boilerpy3": Adapter(boilerpy3, "boilerpy3", "boilerpy3 (ArticleExtractor)"),
    "goose3": Adapter(goose3, "goose3", "goose3"),
    "newspaper4k": Adapter(newspaper4k, "newspaper4k", "newspaper4k"),
    "resiliparse": Adapter(resiliparse, "resiliparse", "resiliparse"),
    "html_text": Adapter(html_text, "html-text", "html-text (all text)"),
}
# Timed on the same pages, never scored.
BASELINE = "lxml"
BASELINE_ADAPTER = Adapter(lxml_parse, "lxml", "lxml parse only")


# --- overview checks --------------------------------------------------------


def ours_overview(model: str | None = None):
    """Our detector with the shipped model, or with a model file (the report trains one on
    the training sites only, so that the validation sites are new to it)."""
    from scrapy_boilerplate import OverviewDetector

    detector = OverviewDetector(model=model)

    def run(html, url):
        verdict = detector.detect(html, url=url)
        return {"overview": verdict.is_overview, "score": verdict.score}

    return run


def readability_overview():
    from trafilatura.readability_lxml import is_probably_readerable

    def run(html, url):
        # Readability.js's isProbablyReaderable, ported in trafilatura: not readerable = overview.
        return not is_probably_readerable(html)

    return run


def newspaper4k_overview():
    """newspaper4k's own article tests, as its Source.build applies them to a site's links:
    is_valid_url (the URL looks like an article's) and, once parsed, is_valid_body (og:type
    article with enough words, or a title, 300 words and 7 sentences). Returns both verdicts
    (True = fails that test); the report derives its rows from them."""
    offline_tldextract()
    import newspaper

    def run(html, url):
        article = newspaper_article(newspaper, html, url)
        return {"url": not article.is_valid_url(), "body": not article.is_valid_body()}

    return run


OVERVIEW_CHECKS: dict[str, Adapter] = {
    "ours": Adapter(ours_overview, "scrapy-boilerplate-removal", "scrapy_boilerplate detect_overview"),
    "readability": Adapter(
        readability_overview, "trafilatura", "not isProbablyReaderable (trafilatura.readability_lxml)"
    ),
    "newspaper4k": Adapter(newspaper4k_overview, "newspaper4k", "newspaper4k"),
}


def adapter(kind: str, name: str) -> Adapter:
    """The adapter of a worker: kind "extract" (or the lxml baseline) or "overview"."""
    if kind == "overview":
        return OVERVIEW_CHECKS[name]
    return BASELINE_ADAPTER if name == BASELINE else EXTRACTORS[name]
