"""The web-poet page objects (scrapy_boilerplate.poet) on real pages, without a crawl.

The example project's site (always there) and, where ../shared/sites is present, a shared blog's
paginated lists. Skipped, with the reason, without the ``poet`` extra.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("scrapy_poet", reason="the page objects need the 'poet' extra (pip install -e '.[poet]')")
pytest.importorskip("zyte_common_items", reason="the page objects need the 'poet' extra (pip install -e '.[poet]')")

from hypothesis import HealthCheck, given, settings
from parser_inputs import FEED_PIECES, soup
from web_poet import HttpResponse

from scrapy_boilerplate import extract
from scrapy_boilerplate.poet import (
    AnalysisConfig,
    BoilerplateArticleListPage,
    BoilerplateArticleNavigationPage,
    BoilerplateArticlePage,
    PageAnalysis,
)
from scrapy_boilerplate.poet.pages import schema_date
from scrapy_boilerplate.poet.probabilities import DROPPED_BELOW, KEPT_FROM, article_probability

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "example_project" / "site"
SHARED_SITES = ROOT.parent / "shared" / "sites"
BASE = "http://news.example"


def response(path: str, body: bytes | None = None) -> HttpResponse:
    file = SITE / (path.lstrip("/") + ("index.html" if path.endswith("/") else ""))
    return HttpResponse(
        url=BASE + path, body=body if body is not None else file.read_bytes(), headers={"Content-Type": "text/html"}
    )


def item(page_class, resp: HttpResponse, analysis: PageAnalysis | None = None):
    analysis = analysis or PageAnalysis(resp)
    return asyncio.run(page_class(resp, analysis).to_item())


ARTICLE = "/news/council-approves-riverside-park.html"


def test_an_article_s_fields_come_from_the_extraction():
    resp = response(ARTICLE)
    article = item(BoilerplateArticlePage, resp)
    expected = extract(resp.text, url=str(resp.url))
    assert article.url == BASE + ARTICLE
    assert article.articleBody == expected.text and article.articleBody
    assert article.headline == expected.title
    assert "<p>" in article.articleBodyHtml
    assert article.datePublished == schema_date(expected.date_published) and article.datePublished
    assert article.datePublishedRaw  # the page's own string the date was read from
    assert [a.name for a in article.authors or []] == expected.authors
    assert article.inLanguage == expected.language
    assert article.metadata.probability > KEPT_FROM
    assert article.breadcrumbs is None  # the page gives no JSON-LD BreadcrumbList


def test_a_listing_is_an_article_below_the_templates_threshold_and_a_navigation_of_its_teasers():
    resp = response("/news/")
    analysis = PageAnalysis(resp)
    assert item(BoilerplateArticlePage, resp, analysis).metadata.probability < DROPPED_BELOW
    navigation = item(BoilerplateArticleNavigationPage, resp, analysis)
    teased = {BASE + "/news/" + p.name for p in (SITE / "news").glob("*.html") if p.name != "index.html"}
    assert teased <= {request.url for request in navigation.items}
    assert not teased & {request.url for request in navigation.subCategories}
    assert navigation.nextPage is None  # one page, no pager
    listed = item(BoilerplateArticleListPage, resp, analysis)
    assert teased <= {article.url for article in listed.articles}
    assert all(article.headline for article in listed.articles)
    # The section's own teasers are content links; a sidebar's links to another section's posts are
    # listed too, less likely (navigation links that may lead to a post).
    assert {a.url for a in listed.articles if a.metadata.probability > KEPT_FROM} == teased


def test_an_article_has_no_next_page_and_no_teasers():
    resp = response(ARTICLE)
    analysis = PageAnalysis(resp)
    assert item(BoilerplateArticleNavigationPage, resp, analysis).nextPage is None
    assert item(BoilerplateArticleListPage, resp, analysis).articles == []


def test_breadcrumbs_and_lead_image_from_the_page_s_own_markup():
    body = (SITE / ARTICLE.lstrip("/")).read_bytes()
    trail = {
        "@context": "https://schema.org",
        "@type": "BreadcrumbList",
        "itemListElement": [
            {"@type": "ListItem", "position": 2, "name": "News", "item": "/news/"},
            {"@type": "ListItem", "position": 1, "name": "Home", "item": {"@id": BASE + "/", "name": "Home"}},
        ],
    }
    extra = (
        f'<script type="application/ld+json">{json.dumps(trail)}</script>'
        '<meta property="og:image" content="/img/park.jpg">'
    ).encode()
    article = item(BoilerplateArticlePage, response(ARTICLE, body.replace(b"</head>", extra + b"</head>", 1)))
    assert [(c.name, c.url) for c in article.breadcrumbs] == [("Home", BASE + "/"), ("News", BASE + "/news/")]
    assert article.mainImage.url == BASE + "/img/park.jpg"
    assert article.images[0].url == BASE + "/img/park.jpg"


def test_a_feed_s_entries_are_its_items():
    feed = (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>'
        b"<item><title>A</title><link>http://news.example/a.html</link></item>"
        b"<item><title>B</title><link>http://news.example/b.html</link></item></channel></rss>"
    )
    resp = HttpResponse(url=BASE + "/feed.xml", body=feed, headers={"Content-Type": "application/rss+xml"})
    navigation = item(BoilerplateArticleNavigationPage, resp)
    assert [r.url for r in navigation.items] == [BASE + "/a.html", BASE + "/b.html"]
    assert navigation.subCategories == [] and navigation.nextPage is None


def test_a_feed_past_the_cap_is_read_to_the_cap_with_a_warning(caplog):
    from scrapy_boilerplate import Extractor, OverviewDetector

    entries = b"".join(b"<item><link>http://news.example/%d.html</link></item>" % n for n in range(5))
    feed = b'<?xml version="1.0"?><rss version="2.0"><channel>' + entries + b"</channel></rss>"
    resp = HttpResponse(url=BASE + "/feed.xml", body=feed, headers={"Content-Type": "application/rss+xml"})
    config = AnalysisConfig(Extractor(), OverviewDetector(), 3)
    navigation = item(BoilerplateArticleNavigationPage, resp, PageAnalysis(resp, config))
    assert [r.url for r in navigation.items] == [f"{BASE}/{n}.html" for n in range(3)]
    assert "BOILERPLATE_FEED_MAX_ENTRIES" in caplog.text


def test_bytes_that_are_no_html_give_what_extract_gives_not_an_error():
    for body in (b"\x00\xff" * 500, b"", b"<html><body></body></html>", b"<" * 10_000):
        resp = HttpResponse(url=BASE + "/x.html", body=body, headers={"Content-Type": "text/html"})
        article = item(BoilerplateArticlePage, resp)
        assert article.url == BASE + "/x.html"
        assert (article.articleBody or "") == extract(resp.text, url=BASE + "/x.html").text
        assert item(BoilerplateArticleNavigationPage, resp).url == BASE + "/x.html"


#: Pieces of listings and posts: pagers, rel hints, cards, JSON-LD, links of every kind.
PAGE_PIECES = (
    b"<html><head>",
    b'<link rel="next" href="/page/2/">',
    b'<link rel="alternate" type="application/rss+xml" href="/feed.xml">',
    b'<script type="application/ld+json">{"@type": "BreadcrumbList", "itemListElement": [{"position": "x"',
    b'{"@type": "ListItem", "item": {"@id": 3}}]}</script>',
    b'<meta property="og:type" content="article">',
    b"</head><body><main>",
    b'<article class="card"><h2><a href="/2024/03/05/a-post/">A post about the harbour</a></h2>',
    b"<p>March 5, 2024 \xe2\x80\x94 the ferry pier closes for repairs in May.</p></article>",
    b'<nav class="pagination"><a href="/page/2/">2</a><a href="?page=3">Next \xc2\xbb</a>',
    b'<a class="entry-link" href="/posts/x/"></a>',
    b'<a href="javascript:void(0)">x</a><a href="mailto:a@b">m</a><a href="http://[::1">bad</a>',
    b"<footer><a href='/about/'>About</a></footer>",
    b"<aside><ul><li><a href='/tags/x/'>x</a></li></ul></aside>",
    b"</main></body></html>",
    b"<div>" * 3,
    b"</div>",
    b"<",
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(soup(PAGE_PIECES + FEED_PIECES, max_size=60))
def test_no_input_makes_a_page_object_raise(body):
    resp = HttpResponse(url=BASE + "/page/1/", body=body, headers={"Content-Type": "text/html"})
    analysis = PageAnalysis(resp)
    for page_class in (BoilerplateArticlePage, BoilerplateArticleNavigationPage, BoilerplateArticleListPage):
        assert item(page_class, resp, analysis).url == BASE + "/page/1/"


def test_the_settings_in_the_config_are_the_ones_applied():
    from scrapy_boilerplate import Extractor, OverviewDetector

    resp = response(ARTICLE)
    config = AnalysisConfig(Extractor(include_title=True), OverviewDetector(), 100)
    article = item(BoilerplateArticlePage, resp, PageAnalysis(resp, config))
    assert article.articleBody.startswith(article.headline)


def test_article_probability_keeps_the_verdict_on_each_side_of_the_gap():
    cutoff = 0.43
    listing = [article_probability(True, s, cutoff) for s in (0.43, 0.6, 0.9, 1.0)]
    other = [article_probability(False, s, cutoff) for s in (0.0, 0.2, 0.42, 0.8)]
    assert all(p < DROPPED_BELOW for p in listing) and listing == sorted(listing, reverse=True)
    assert all(p > KEPT_FROM for p in other) and other == sorted(other, reverse=True)


@pytest.mark.needs_shared
def test_next_page_on_a_shared_blog_s_paginated_list():
    if not SHARED_SITES.is_dir():
        pytest.skip(f"needs ../shared/sites ({SHARED_SITES})")
    import tarfile

    with tarfile.open(SHARED_SITES / "binglau7" / "site.tar.gz") as tar:
        files = {m.name.removeprefix("./"): tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    base = "http://binglau7.example/"
    last = max(int(name.split("/")[1]) for name in files if name.startswith("page/") and name.endswith("index.html"))
    for number, expected in ((None, 2), (2, 3), (last, None)):
        path = "" if number is None else f"page/{number}/"
        resp = HttpResponse(url=base + path, body=files[path + "index.html"], headers={"Content-Type": "text/html"})
        navigation = item(BoilerplateArticleNavigationPage, resp)
        assert (navigation.nextPage.url if navigation.nextPage else None) == (
            f"{base}page/{expected}/" if expected else None
        ), path
        assert navigation.pageNumber == (number or 1)
        assert len(navigation.items) >= 5


def test_the_core_and_the_add_on_import_none_of_the_poet_packages():
    code = (
        "import sys, scrapy_boilerplate, scrapy_boilerplate.addon, scrapy_boilerplate.pipelines, "
        "scrapy_boilerplate.middlewares, scrapy_boilerplate.spiders, scrapy_boilerplate.cli\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('web_poet', 'scrapy_poet', 'zyte_common_items', 'zyte_spider_templates')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_the_extra_the_import_says_what_to_install():
    code = (
        "import sys; sys.modules['zyte_common_items'] = None\n"
        "try:\n    import scrapy_boilerplate.poet\nexcept ImportError as exc:\n    print(exc)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'scrapy-boilerplate-removal[poet]'" in out.stdout
    assert "zyte_common_items" in out.stdout
