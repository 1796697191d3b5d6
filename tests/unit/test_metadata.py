"""Article metadata (core/metadata/article.py, issue 19): sources, priorities, and real pages."""

import gzip
import json
import sys
from pathlib import Path

import pytest
from conftest import SHARED, needs_shared, real_page, shared_unless_cut

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.metadata.authors import clean_authors
from scrapy_boilerplate.core.metadata.dates import normalize_date, url_date
from scrapy_boilerplate.core.metadata.language import language_code

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from metadata_eval import author_set, metadata_half, norm

BODY = (
    "<p>The committee met on Tuesday to discuss the new budget for the coming year, and after a "
    "long debate it approved most of the proposals put forward by the finance office.</p>"
) * 4


def page(head="", top="", lang="en", body=BODY, after=""):
    return (
        f'<html lang="{lang}"><head><title>Budget approved | The Daily</title>{head}</head><body>'
        f'<nav><a href="/">Home</a></nav><article><h1>Budget approved</h1>{top}{body}</article>'
        f"{after}</body></html>"
    )


def test_json_ld_graph_with_author_reference():
    ld = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "name": "The Daily"},
            {"@type": "Person", "@id": "https://d.example/#/person/1", "name": "Jane Doe"},
            {
                "@type": "NewsArticle",
                "author": {"@id": "https://d.example/#/person/1"},
                "datePublished": "2024-03-15T09:30:00+01:00",
                "dateModified": "2024-03-16",
                "image": [{"@type": "ImageObject", "url": "/img/lead.jpg"}],
                "inLanguage": "en-GB",
            },
        ],
    }
    result = extract(
        page(
            f'<script type="application/ld+json">{json.dumps(ld)}</script><meta name="author" content="Someone Else">'
        ),
        "https://d.example/news/x",
    )
    assert result.authors == ["Jane Doe"]  # JSON-LD wins over <meta name=author>
    assert result.date_published == "2024-03-15T09:30:00+01:00"
    assert result.date_modified == "2024-03-16"
    assert result.site_name == "The Daily"
    assert result.image == "https://d.example/img/lead.jpg"
    assert result.title == "Budget approved"


def test_organisation_only_when_no_person_is_named():
    ld = {"@type": "Article", "author": [{"@type": "Organization", "name": "Daily Staff"}]}
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    signed = '<div class="meta">By Daily Staff</div>'
    assert extract(page(script, top=signed)).authors == ["Daily Staff"]
    assert extract(page(script + '<meta name="author" content="Jane Doe">', top=signed)).authors == ["Jane Doe"]


def test_organisation_author_only_when_the_page_shows_it():
    # A JSON-LD Organization as author that is the site itself (the publisher's name, or the
    # host's) is the publisher unless the page signs with it near the headline.
    ld = {
        "@type": "TechArticle",
        "author": {"@type": "Organization", "name": "Docker Inc"},
        "publisher": {"@type": "Organization", "name": "Docker Inc"},
    }
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    assert extract(page(script)).authors == []
    shown = "<p>Posted By</p><p>Docker Inc</p><p>Jan 13, 2025</p>"
    assert extract(page(script, top=shown)).authors == ["Docker Inc"]
    ld = {"@type": "Article", "author": {"@type": "Organization", "name": "Kansas Legal Services"}}
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    assert extract(page(script), "https://www.kansaslegalservices.org/page/785").authors == []
    assert extract(page(script), "https://news.example/page/785").authors == ["Kansas Legal Services"]
    # An organisation other than the site, stated as the author, is kept.
    ld = {
        "@type": "Article",
        "author": {"@type": "Organization", "name": "Contributors to Wikimedia projects"},
        "publisher": {"@type": "Organization", "name": "Wikimedia Foundation, Inc."},
    }
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    assert extract(page(script)).authors == ["Contributors to Wikimedia projects"]
    # A string author (not typed as an organisation) is taken as stated.
    ld = {"@type": "Article", "author": "Docker Inc"}
    assert extract(page(f'<script type="application/ld+json">{json.dumps(ld)}</script>')).authors == ["Docker Inc"]


def test_teaser_bylines_on_a_listing_are_not_the_pages():
    cards = "".join(
        f'<h3><a href="/s/{n}">Story number {n} about the budget</a></h3>'
        f'<div class="byline">By Reporter {chr(65 + n)}</div>'
        f"<p>{'The committee met and talked about the budget at length. ' * 3}</p>"
        for n in range(4)
    )
    listing = f"<html><head><title>News</title></head><body><main><h1>News</h1>{cards}</main></body></html>"
    assert extract(listing).authors == []
    # An unlinked standfirst between the headline and the byline is no teaser.
    standfirst = '<h2>What the committee decided, and why</h2><div class="byline">By Jane Doe</div>'
    assert extract(page(top=standfirst)).authors == ["Jane Doe"]


def test_a_product_or_a_listing_has_no_author():
    author = '<meta name="author" content="Ridge">'
    assert extract(page(author + '<meta property="og:type" content="product">')).authors == []
    ld = {"@type": "ItemList", "itemListElement": [{"@type": "ListItem", "position": 1, "url": "/a"}]}
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    assert extract(page(author + script)).authors == []
    # og:type article wins over a list of related links in JSON-LD (a news story).
    assert extract(page(author + script + '<meta property="og:type" content="article">')).authors == ["Ridge"]
    assert extract(page(author)).authors == ["Ridge"]


def test_a_site_credit_in_the_footer_is_no_author():
    credit = (
        '<footer id="footer"><p itemscope itemtype="http://schema.org/CreativeWork">Site designed '
        'and developed by <span itemprop="creator">Social Ink</span></p></footer>'
    )
    assert extract(page(after=credit)).authors == []
    # An article's own footer may hold its byline.
    signed = (
        '<footer class="article-footer"><span itemprop="author" itemscope '
        'itemtype="https://schema.org/Person"><meta itemprop="name" content="Tony Roe"></span></footer>'
    )
    assert extract(page(body=BODY + signed)).authors == ["Tony Roe"]


def test_a_headline_in_an_author_wrapper_is_no_byline():
    top = (
        '<div class="post author-jane"><h2>Committee and council sign a budget partnership</h2>'
        '</div><h4 class="author-box">Lance Ryan (Content Manager)</h4>'
    )
    assert extract(page(top=top)).authors == ["Lance Ryan (Content Manager)"]


def test_open_graph_dublin_core_and_canonical():
    head = (
        '<meta property="og:site_name" content="The Daily"><meta name="DC.creator" '
        'content="Doe, Jane; John Roe"><meta name="dc.date" content="2023-11-02">'
        '<meta property="og:image" content="//cdn.example/a.png">'
        '<meta name="description" content="A &amp;amp; B"><link rel="canonical" href="/news/budget">'
    )
    result = extract(page(head), "https://d.example/news/budget?utm=1")
    assert result.date_published == "2023-11-02"
    assert result.canonical_url == "https://d.example/news/budget"
    assert result.image == "https://cdn.example/a.png"
    assert result.site_name == "The Daily"
    assert result.description == "A & B"


def test_byline_and_dates_near_the_headline_not_in_the_sidebar():
    top = (
        '<div class="byline">By <a rel="author" href="/u/jane">Jane Doe</a></div>'
        '<p class="meta">March 15, 2024 · Updated <time datetime="2024-03-18">March 18</time></p>'
    )
    sidebar = ('<aside><div class="byline">By Sidebar Person</div><time datetime="2020-01-01">Jan 1</time></aside>') * 3
    result = extract(page(top=top, after=sidebar), "https://d.example/news/budget")
    assert result.authors == ["Jane Doe"]
    assert result.date_modified == "2024-03-18"
    if normalize_date("March 15, 2024"):  # text dates need htmldate ([metadata])
        assert result.date_published == "2024-03-15"


def test_url_date_is_the_last_resort():
    assert extract(page(), "https://d.example/2024/03/15/budget/").date_published == "2024-03-15"
    assert extract(page(), "https://d.example/news/budget").date_published is None


def test_nothing_is_guessed():
    result = extract("<html><body><p>" + "Plain text without any metadata at all. " * 3 + "</p></body></html>")
    assert result.authors == [] and result.date_published is None and result.date_modified is None
    assert result.site_name is None and result.canonical_url is None and result.image is None


def test_to_dict_carries_the_metadata():
    out = extract(page(top='<p class="byline">By Jane Doe</p>')).to_dict()
    assert out["authors"] == ["Jane Doe"] and out["language"] == "en"
    assert {"date_published", "date_modified", "site_name", "canonical_url", "description", "image"} <= set(out)


def test_language_declared_and_contradicted():
    assert extract(page(lang="en-US")).language == "en"
    hungarian = (
        "<p>A bizottság kedden ülésezett, hogy megvitassa a jövő évi költségvetést, és hosszú "
        "vita után elfogadta a pénzügyi hivatal javaslatainak többségét.</p>"
    ) * 4
    pytest.importorskip("py3langid")
    assert extract(page(lang="en", body=hungarian)).language == "hu"  # the text says otherwise
    assert extract(page(lang="", body=hungarian)).language == "hu"  # declares none


@pytest.mark.parametrize(
    "value, expected",
    [
        ("2024-03-15", "2024-03-15"),
        ("2024-03-15T10:20:30Z", "2024-03-15T10:20:30+00:00"),
        ("2024-03-15T00:00:00", "2024-03-15"),
        ("20240315", "2024-03-15"),
        (1710498600, "2024-03-15T10:30:00+00:00"),
        ("0000-00-00", None),
        ("2024-02-30", None),
        ("3024-01-01", None),
        ("1990-05-05", None),
        ("", None),
    ],
)
def test_normalize_date(value, expected):
    assert normalize_date(value) == expected


def test_url_date_shapes():
    assert url_date("https://x.example/2024/03/15/a") == "2024-03-15"
    assert url_date("https://x.example/blog/2024-3-5-title") == "2024-03-05"
    assert url_date("https://x.example/p/20240315/") == "2024-03-15"
    assert url_date("https://x.example/p/12345678/") is None


@pytest.mark.parametrize(
    "raw, expected",
    [
        (["By Jane Doe and John Roe | Staff Writer"], ["Jane Doe", "John Roe"]),
        (["Jane Doe, MD, PhD"], ["Jane Doe"]),
        (["Jane Doe", "jane doe"], ["Jane Doe"]),
        (["Written By", "5 mins read"], []),
        (["https://example.com/jane", "@jane", "Admin"], []),
        (["Maria &amp; Katerina"], ["Maria", "Katerina"]),
        # ", and" ends a list, and the outlet after the last name is no name (seen on cnn.com)
        (
            ["By Dana Ford, James Corey, Chien-Ming Wang, and Tom Watkins, CNN"],
            ["Dana Ford", "James Corey", "Chien-Ming Wang", "Tom Watkins"],
        ),
        (["Jane Doe and John Roe, Reuters"], ["Jane Doe", "John Roe"]),
        (["Jane Doe, John Roe, & Max Mustermann"], ["Jane Doe", "John Roe", "Max Mustermann"]),
    ],
)
def test_clean_authors(raw, expected):
    assert clean_authors(raw) == expected


def test_a_page_dated_only_by_its_update():
    # "Updated August 14, 2025" under the headline, and no publication date in <meta>: the page
    # dates itself by the update. With article:published_time in <meta>, that stays the date.
    top = '<p class="meta">Updated <time datetime="2025-08-14">August 14, 2025</time></p>'
    ld = '<script type="application/ld+json">{"@type": "Article", "datePublished": "2025-05-19"}</script>'
    result = extract(page(ld, top=top))
    assert (result.date_published, result.date_modified) == ("2025-08-14", "2025-08-14")
    stated = extract(page(ld + '<meta property="article:published_time" content="2025-05-19">', top=top))
    assert (stated.date_published, stated.date_modified) == ("2025-05-19", "2025-08-14")
    # Only a dateModified anywhere: that is the page's date.
    only = '<script type="application/ld+json">{"@type": "Article", "dateModified": "2025-07-09"}</script>'
    assert extract(page(only)).date_published == "2025-07-09"


def test_time_in_an_updated_block_and_forum_activity_lines():
    top = (
        '<div class="dateblock dateblock-updated"><span><time datetime="2022-11-11">Nov 11</time>'
        '</span></div><p class="meta">1.9K views 11 replies last post by Sam '
        '<time datetime="2024-01-18">Jan 18, 2024</time></p>'
    )
    result = extract(page('<meta name="date" content="2022-11-09">', top=top))
    assert result.date_published == "2022-11-09" and result.date_modified == "2022-11-11"


def test_utc_stamp_takes_the_local_day():
    # 02:41 UTC on the 19th is the evening of the 18th where the site is: its URL says so, or its
    # metadata gives the same instant with the site's offset.
    head = '<meta property="article:published_time" content="2025-12-19T02:41:41+00:00">'
    assert extract(page(head), "https://b.example/2025/12/18/post/").date_published == "2025-12-18"
    assert extract(page(head), "https://b.example/post/").date_published == "2025-12-19T02:41:41+00:00"
    ld = '<script type="application/ld+json">{"@type": "Article", "dateCreated": "2017-02-24T01:18:13Z"}</script>'
    local = '<meta property="article:published_time" content="2017-02-23T17:18:13-08:00">'
    assert extract(page(ld + local)).date_published == "2017-02-23T17:18:13-08:00"


def test_json_ld_wrapped_in_cdata():
    ld = (
        '<script type="application/ld+json">//<![CDATA[\n{"@type": "NewsArticle", "datePublished": '
        '"2013-09-11T10:00:00-04:00", "author": {"@type": "Person", "name": "Mama Robotnik"}}\n//]]></script>'
    )
    result = extract(page(ld))
    assert result.date_published == "2013-09-11T10:00:00-04:00" and result.authors == ["Mama Robotnik"]


def test_date_line_anywhere_when_nothing_else_dates_the_page():
    pytest.importorskip("htmldate")
    after = (
        '<aside><a href="/other">March 3, 2021</a><div class="review">Reviewed on May 1, 2022</div>'
        '</aside><p class="post-date">April 8, 2024</p>'
    )
    long_body = BODY * 3  # the aside is beyond the byline window
    assert extract(page(after=after, body=long_body)).date_published == "2024-04-08"
    assert extract(page(body=long_body)).date_published is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Page last modified Jan. 17, 2025 @ 01:39 PM EST", "2025-01-17"),
        ("Sept. 3, 2024", "2024-09-03"),
        ("Published Dec. 9, 2025 · 5 min read", "2025-12-09"),
        ("Mar. 2024", None),
    ],
)
def test_a_month_abbreviated_with_a_full_stop(text, expected):
    pytest.importorskip("htmldate")
    assert normalize_date(text) == expected


def test_no_date_from_a_listings_teasers():
    pytest.importorskip("htmldate")
    cards = "".join(
        f'<h3><a href="/s/{n}">Story number {n} about the budget</a></h3>'
        f'<div class="meta">By Reporter {chr(65 + n)} \u2022 Dec. {n + 1}, 2025</div>'
        f"<p>{'The committee met and talked about the budget at length. ' * 3}</p>"
        for n in range(6)
    )
    listing = f"<html><head><title>News</title></head><body><main><h1>News</h1>{cards}</main></body></html>"
    result = extract(listing)
    assert result.date_published is None and result.authors == []
    # The same date line under an article's own headline dates it.
    assert extract(page(top='<div class="meta">By Jane Doe \u2022 Dec. 1, 2025</div>')).date_published == "2025-12-01"


def test_no_date_line_from_a_product_page():
    pytest.importorskip("htmldate")
    after = '<p class="sold">Sold out since Dec. 1, 2025</p>'
    head = '<meta property="og:type" content="product">'
    assert extract(page(head=head, after=after, body=BODY * 3)).date_published is None
    assert extract(page(after=after, body=BODY * 3)).date_published == "2025-12-01"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2.3.10 no changes", None),
        ("Cooling Test: Strong 9.5/10", None),
        ("February 2026", None),
        ("Thu, 09/25/2025 - 11:38", "2025-09-25"),
        ("03/04/2025 x", "2025-04-03"),
        ("13/04/2025", "2025-04-13"),
    ],
)
def test_text_is_a_date_only_when_it_reads_as_one(text, expected):
    if normalize_date("March 15, 2024") is None and expected == "2025-04-03":
        expected = None  # ambiguous day and month: left to htmldate, when installed
    assert normalize_date(text) == expected


def test_date_inside_furniture():
    pytest.importorskip("htmldate")
    assert normalize_date("#1 · Jan 15, 2024") == "2024-01-15"
    assert normalize_date("Dec 17, 2025Julian K. Arni") == "2025-12-17"
    assert normalize_date("2023 Jan 7") == "2023-01-07"


def test_forum_thread_starter_from_microdata_and_header():
    posts = "".join(
        f'<article itemscope itemtype="https://schema.org/Comment"><div itemprop="author" itemscope '
        f'itemtype="https://schema.org/Person"><a itemprop="name">{name}</a> Member Joined 2021</div>'
        f'<meta itemprop="datePublished" content="2024-01-{day}T21:50:50-05:00"><p>{BODY}</p></article>'
        for name, day in (("sanmartinwatch", 14), ("replier", 18))
    )
    review = '<div itemscope itemtype="https://schema.org/Review"><span itemprop="author">Rev Iewer</span></div>'
    thread = f"<html><head><title>Thread</title></head><body>{review}<h1>What next in 2024?</h1>{posts}</body></html>"
    result = extract(thread)
    assert result.authors == ["sanmartinwatch"] and result.date_published == "2024-01-14T21:50:50-05:00"
    # A thread's later page: its header names the starter, the first post there is a reply.
    header = '<ul><li class="thread-meta">Thread starter felixen</li></ul>'
    assert extract(thread.replace("<h1>", header + "<h1>")).authors == ["felixen"]


def test_sentences_starting_by_are_no_bylines():
    top = "<p>By using VS Code, you agree to its license and privacy statement.</p>"
    assert extract(page(top=top)).authors == []
    assert extract(page(top='<p class="meta">by jsteinhardt</p>')).authors == ["jsteinhardt"]


def test_signature_at_the_end_only_on_a_dated_page():
    after = '<div class="author-box">Jordanna Campbell</div>'
    dated = '<meta property="article:published_time" content="2025-01-21">'
    long_body = BODY * 3  # the box is beyond the byline window
    assert extract(page(dated, after=after, body=long_body)).authors == ["Jordanna Campbell"]
    assert extract(page(after=after, body=long_body)).authors == []


def test_headline_without_the_logo_text_in_the_same_h1():
    """<h1><span>Headline</span><a href="/">Site</a></h1> walks to "HeadlineSite": the site's
    name (the <title>'s last part, or og:site_name) is cut where it is glued to the headline."""
    head = "<title>Council approves the new budget » Local » The Daily Courier</title>"
    glued = (
        "<html><head>" + head + "</head><body><h1><span>Council approves the new budget</span>"
        "<a href='/'>The Daily Courier</a></h1>" + BODY + "</body></html>"
    )
    assert extract(glued).title == "Council approves the new budget"
    site_first = glued.replace(
        "<span>Council approves the new budget</span><a href='/'>The Daily Courier</a>",
        "<a href='/'>The Daily Courier</a><span>Council approves the new budget</span>",
    )
    assert extract(site_first).title == "Council approves the new budget"  # "CourierCouncil"
    og = glued.replace("</title>", "</title><meta property='og:site_name' content='The Daily Courier'>")
    assert extract(og).title == "Council approves the new budget"
    # a headline that ends in the site's name after a space, or whose subtitle is a part of the
    # <title>: kept whole
    for h1, title in [
        ("Why we moved to Python", "Why we moved to Python | Python"),
        ("Budget approved – what it means for you", "Budget approved – what it means for you | The Daily"),
    ]:
        html = f"<html><head><title>{title}</title></head><body><h1>{h1}</h1>{BODY}</body></html>"
        assert extract(html).title == h1


@pytest.mark.parametrize("logo", ['id="website-logo"', 'class="site-logo"', 'class="logo"'])
def test_a_logo_h1_is_passed_over_for_the_page_title_h1(logo):
    html = (
        f"<html><head><title>Weather Watch: Storm hits the coast tonight</title></head><body>"
        f"<header><h1 {logo}><a href='/'>Weather Watch</a></h1></header><main>"
        f"<h1 id='page-title'>Storm hits the coast tonight</h1>{BODY}</main></body></html>"
    )
    assert extract(html).title == "Storm hits the coast tonight"
    only_logo = html.replace("<h1 id='page-title'>Storm hits the coast tonight</h1>", "")
    assert extract(only_logo).title == "Weather Watch"  # no other h1: as before


def test_a_blogs_name_in_the_h1_is_not_the_posts_headline():
    ld = {"@type": "BlogPosting", "headline": "Minecraft 1.8 - The Bountiful Update"}
    head = (
        "<title>Minecraft 1.8 - The Bountiful Update - Minecraft Update News</title>"
        '<meta property="og:title" content="Minecraft 1.8 - The Bountiful Update">'
        f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    )
    html = f"<html><head>{head}</head><body><h1>Minecraft News</h1>{BODY}</body></html>"
    assert extract(html).title == "Minecraft 1.8 - The Bountiful Update"
    # Without the JSON-LD headline to confirm the metadata title, a short h1 sharing half its
    # words with it stays the headline (a shop's "Climbing Shoes" for "Climbing Shoes: Rock ...").
    plain = html.replace(f'<script type="application/ld+json">{json.dumps(ld)}</script>', "")
    assert extract(plain).title == "Minecraft News"


def test_a_headline_after_the_sites_name_in_the_title_is_no_site_name():
    # "Site | Headline": the <title>'s first part names the host, so the longer part after it
    # is the headline, and the h1 that shows it is the page's title (not a logo h1 that says
    # the site's name).
    html = (
        "<html><head><title>Courier Press | Council approves the new budget</title></head><body>"
        f"<h1>Council approves the new budget</h1>{BODY}</body></html>"
    )
    assert extract(html, url="https://www.courierpress.example/news/budget").title == "Council approves the new budget"
    # elsewhere (the first part does not name the host) the part after the separator is the site's
    # name, and an h1 that says it is its logo: the <title> is cut as before
    elsewhere = extract(html, url="https://www.example.org/news/budget").title
    assert elsewhere == "Courier Press | Council approves the new budget"
    # a shorter part after the site's name is no headline ("The Barn Swallow - Shop")
    shop = html.replace("Council approves the new budget</title>", "Shop</title>").replace(
        "<h1>Council approves the new budget</h1>", "<h1>Shop</h1>"
    )
    assert extract(shop, url="https://www.courierpress.example/").title == "Courier Press | Shop"
    # a generic label of the host ("blog" of blog.example.org) does not name the site
    blog = html.replace("Courier Press |", "The Blog |").replace("Courier Press", "The Blog")
    assert extract(blog, url="https://blog.example.org/budget").title == "The Blog | Council approves the new budget"


def test_a_headline_in_a_script_without_spaces_is_found_at_the_start_of_the_title():
    # Words cannot be matched in Japanese or Chinese: an h1 that starts the <title>, before a
    # separator and a shorter rest (the site's name), is its headline.
    headline = "情報セキュリティに関する注意喚起について"
    html = f"<html><head><title>{headline}：情報処理機構</title></head><body><h1>{headline}</h1>{BODY}</body></html>"
    assert extract(html).title == headline
    # a short h1 at the start of a long <title> is the site's name ("てくろぐ｜..."): not taken
    site = f"<html><head><title>情報機構｜{headline}</title></head><body><h1>情報機構</h1>{BODY}</body></html>"
    assert extract(site).title == f"情報機構｜{headline}"


@needs_shared
@pytest.mark.parametrize(
    "dataset, page_id, title",
    [
        # "Site | Headline" titles (the rules half of wcxb-dev, and mercury)
        ("wcxb-dev", "0171", "State of SEO in 2026: Trends and Predictions"),  # "Leadfeeder | ..."
        ("wcxb-dev", "4027", "Impact of Climate Change on Global Agricultural Yields"),  # "NASA SVS | ..."
        ("mercury", "www.oreilly.co.jp", "Head First はじめてのプログラミング"),  # "O'Reilly Japan - ..."
        # a Japanese headline before its site's name
        ("mercury", "www.ipa.go.jp", "ゴールデンウィークにおける情報セキュリティに関する注意喚起"),
        # unchanged: the site's name first and the headline after it, shorter (wcxb-dev's gold)
        ("wcxb-dev", "4850", "The Barn Swallow"),
        ("wcxb-dev", "2900", "The Go Blog"),
    ],
)
def test_real_pages_headline_after_the_sites_name(dataset, page_id, title):
    page = real_page(dataset, page_id)
    assert extract(page.read_html(), url=page.url).title == title


@pytest.mark.parametrize(
    "meta, expected",
    [
        ('<meta name="article_date_original" content="Tuesday, March 3, 2015">', "2015-03-03"),
        ('<meta name="parsely-pub-date" content="2014-12-30T07:00:00+00:00">', "2014-12-30T07:00:00+00:00"),
        (
            '<meta name=\'parsely-page\' content=\'{"title": "Budget approved", "pub_date": '
            '"2014-12-30T07:00:00+00:00", "section": "Local"}\'>',
            "2014-12-30T07:00:00+00:00",
        ),
        ('<meta name="published" content="2021-02-16">', "2021-02-16"),
        # "published-date" before the "published-time" a CMS stamps when it last republished
        (
            '<meta name="published-time" content="2026-03-09T08:45:32Z">'
            '<meta name="published-date" content="2021-02-16">',
            "2021-02-16",
        ),
        ('<meta name="published_at" content="2021-02-16">', "2021-02-16"),
        # any other name saying "published date" ("w-published-date")
        ('<meta name="w-published-date" content="2025-05-27T06:03:43.274Z">', "2025-05-27T06:03:43+00:00"),
        ('<meta name="x-publisher" content="2021-02-16">', None),
    ],
)
def test_publication_date_from_more_meta_names(meta, expected):
    assert extract(page(head=meta)).date_published == expected


def test_a_signed_listicle_keeps_its_author_despite_an_item_list():
    # Issue 37: a JSON-LD ItemList and no article object, but "By Adam Roberts" under the
    # headline: a listicle, signed. A product with a "By" line stays unsigned (its brand).
    items = {"@type": "ItemList", "itemListElement": [{"@type": "ListItem", "position": 1, "name": "Book"}]}
    script = f'<script type="application/ld+json">{json.dumps(items)}</script>'
    assert extract(page(script, top='<p class="byline">By Adam Roberts</p>')).authors == ["Adam Roberts"]
    assert extract(page(script)).authors == []
    product = {"@type": "Product", "name": "Almond cookies"}
    script = f'<script type="application/ld+json">{json.dumps(product)}</script>'
    assert extract(page(script, top='<p class="byline">By Almondina</p>')).authors == []


def test_a_shown_name_wins_over_a_login():
    ld = {"@type": "Article", "author": {"@type": "Person", "name": "jrobison"}}
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    assert extract(page(script, top='<p class="byline">By John Robison</p>')).authors == ["John Robison"]
    assert extract(page(script)).authors == ["jrobison"]  # nothing shown: the login is all there is
    ld = {"@type": "Article", "author": {"@type": "Person", "name": "Jane Doe"}}
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    assert extract(page(script, top='<p class="byline">By J. D.</p>')).authors == ["Jane Doe"]


def nested(html):
    """`html` deep in wrappers: its block's outermost class words are theirs, not its own."""
    wrappers = ("shell", "frame", "panel", "inner", "column")
    return "".join(f'<div class="{w}">' for w in wrappers) + html + "</div>" * len(wrappers)


def test_a_bare_name_in_an_author_box_and_a_rel_author_link_are_bylines():
    assert extract(
        page(
            top=nested(
                '<div class="author-info"><span>Denise Everheart</span></div><div class="date">August 23, 2023</div>'
            )
        )
    ).authors == ["Denise Everheart"]
    assert extract(
        page(
            top=nested(
                '<address><div class="dcr-16bbvim"><a rel="author" href="/profile/ar">Adam Roberts</a></div></address>'
            )
        )
    ).authors == ["Adam Roberts"]
    # an author's description is no name
    assert (
        extract(
            page(top=nested('<div class="author-description">Licensed Q Arabica Grader, M.A. Journalism</div>'))
        ).authors
        == []
    )


def test_a_profile_url_as_meta_author_gives_way_to_the_byline():
    head = '<meta name="author" content="https://news.example/profile/adam-roberts">'
    assert extract(page(head, top='<div class="byline">By Adam Roberts</div>')).authors == ["Adam Roberts"]


def test_categories_are_not_authors():
    top = (
        '<ul class="post-byline"><li><a class="tag" href="https://b.example/blog/tag/personal-finance">'
        "Personal finance</a></li></ul><p>January 27, 2025</p>"
    )
    assert extract(page(top=top)).authors == []
    top = '<div class="byline"><a rel="category tag" href="/c/business">Business</a>, <a rel="tag" href="/c/tech">tech</a></div>'
    assert extract(page(top=top)).authors == []
    top = '<div class="byline">By <a href="/author/jane-doe">Jane Doe</a></div>'
    assert extract(page(top=top)).authors == ["Jane Doe"]


def test_a_job_title_after_the_bylines_name_is_cut():
    top = "<p>by Daniel Burstein, Senior Director, Content &amp; Marketing, MarketingSherpa</p>"
    assert extract(page(top=top)).authors == ["Daniel Burstein"]
    assert extract(page(top="<p>By Jane Doe, John Roe and Ann Poe</p>")).authors == ["Jane Doe", "John Roe", "Ann Poe"]


def test_every_citation_author():
    metas = "".join(
        f'<meta name="citation_author" content="{n}">' for n in ("Aditya Mahindru", "Pradeep Patil", "Varun Agrawal")
    )
    assert extract(page(metas)).authors == ["Aditya Mahindru", "Pradeep Patil", "Varun Agrawal"]
    metas = "".join(f'<meta name="citation_author" content="{n}">' for n in ("Roy, Aniruddha", "Patel, Jyoti"))
    assert extract(page(metas)).authors == ["Aniruddha Roy", "Jyoti Patel"]
    # one tag holding two names is not "Last, First"
    assert extract(page('<meta name="citation_author" content="Jane Doe, John Roe">')).authors == [
        "Jane Doe",
        "John Roe",
    ]


def test_a_byline_as_a_label_and_a_name_or_after_a_date():
    assert extract(
        page(top="<p>Last updated</p><div>Aug 04, 2025</div><p>Written by</p><p>Edzel Tabing</p>")
    ).authors == ["Edzel Tabing"]
    assert extract(page(top="<div>Written by:Elise Nass</div>")).authors == ["Elise Nass"]
    assert extract(page(top="<div>September 1st, 2023 By Emily Norwood</div>")).authors == ["Emily Norwood"]
    # a label with no name after it, and a date line with no byline, sign nothing
    assert extract(page(top="<p>Written by</p><p>the team behind the budget report, in 2024</p>")).authors == []
    assert extract(page(top="<div>Published August 7, 2023 by the committee</div>")).authors == []


@pytest.mark.parametrize(
    "line, starter",
    [
        ("Post by changingtimes » Sat Feb 24, 2024 12:41 pm", "changingtimes"),
        ("Discussion in 'Hosting Advice' started by pelex, May 26, 2025.", "pelex"),
        ("Thread starter felixen", "felixen"),
    ],
)
def test_a_forum_threads_starter_from_its_first_posts_header(line, starter):
    assert extract(page(top=f"<div>{line}</div>")).authors == [starter]


# (dataset, page id, field, expected value) on real pages.
REAL_PAGES = [
    ("wcxb-dev", "0513", "authors", ["felixen"]),  # XenForo, a later page: header
    ("wcxb-dev", "0501", "authors", ["DaleJack"]),  # Discourse: microdata
    ("wcxb-dev", "0538", "date_published", "2024-02-24"),  # phpBB: "Post by ... » Sat Feb 24"
    ("wcxb-dev", "0538", "title", "Investment Strategy Review Request, 2024 Version"),  # not the logo h1
    ("wcxb-dev", "0020", "date_published", "2025-02-22"),  # "Last Updated: 2025-02-22" only
    ("wcxb-dev", "0479", "date_published", "2025-12-18"),  # UTC stamp, the URL's day
    ("wcxb-dev", "0177", "authors", []),  # "By following the tips below..."
    ("readability", "lazy-image-2", "date_published", "2013-09-11T10:00:00-04:00"),  # CDATA JSON-LD
    # the logo link's text glued to the headline in one h1 ("...de la InfantaUltima Hora Mallorca")
    (
        "overview-dev",
        "AndyTheFac-6f99d27ea7",
        "title",
        "Anticorrupción decidirá en Madrid si recurre la imputación de la Infanta",
    ),
    # "A, B, C, and D, CNN": no "and Tom Watkins", no CNN
    (
        "overview-dev",
        "AndyTheFac-e29c0609ed",
        "authors",
        ["Dana A. Ford", "James S.A. Corey", "Chien-Ming Wang", "Tom Watkins"],
    ),
    # h1.logo ("The Barn Swallow") before h1.page-title ("Shop", which the <title> "The Barn
    # Swallow - Shop" names as the site): the <title>'s headline part, as the gold
    ("wcxb-dev", "4850", "title", "The Barn Swallow"),
    # the site itself as the JSON-LD Organization author, not shown (docs.docker.com): none
    ("wcxb-dev", "2867", "authors", []),
    # an organisation other than the publisher (Wikimedia Foundation) is kept as stated
    ("readability", "wikipedia-2", "authors", ["Contributors to Wikimedia projects"]),
    # ... and one the page shows under the headline: kept
    ("wcxb-dev", "0055", "authors", ["Supermove"]),
    # listing pages: the first teaser's byline after its linked title is not the page's
    ("wcxb-dev", "0956", "authors", []),
    ("wcxb-dev", "2934", "authors", []),
    # a teaser's h1 in an "author-..." wrapper is no byline
    ("wcxb-dev", "0147", "authors", []),
    # an h4 standfirst, then "By The Currency editors" (an h4 too): the byline
    ("wcxb-dev", "0146", "authors", ["The Currency editors"]),
    # a product (og:type product) and listings (JSON-LD ItemList, CollectionPage): no author
    ("wcxb-dev", "0587", "authors", []),
    ("wcxb-dev", "2971", "authors", []),
    ("wcxb-dev", "2970", "authors", []),
    # dates in <meta> names read now: "published-date", "published", "w-published-date"
    ("wcxb-dev", "4512", "date_published", "2021-02-16"),
    ("wcxb-dev", "0244", "date_published", "2025-07-17"),
    ("wcxb-dev", "0237", "date_published", "2025-05-27"),
    # "Page last modified Jan. 17, 2025", "Dec. 9, 2025" under the headline
    # a web agency's credit in the site footer's microdata; an article footer's byline
    ("wcxb-dev", "0211", "authors", []),
    ("wcxb-dev", "4596", "authors", ["The Diggs Team"]),
    # a blog's name in the only h1, the post's headline in og:title and the JSON-LD headline
    ("readability", "tumblr", "title", "Minecraft 1.8 - The Bountiful Update"),
    ("wcxb-dev", "0179", "date_published", "2025-01-17"),
    ("wcxb-dev", "0199", "date_published", "2025-12-09"),
    # a listing's teasers and a product page's lines date neither page
    ("wcxb-dev", "0956", "date_published", None),
    ("wcxb-dev", "0767", "date_published", None),
    # issue 37, pages of the rules half (benchmarks/metadata_eval.py's metadata_half):
    # every citation_author (PMC); arXiv's "Roy, Aniruddha" read as "Aniruddha Roy"
    ("wcxb-dev", "4055", "authors", ["Aditya Mahindru", "Pradeep Patil", "Varun Agrawal"]),
    (
        "wcxb-dev",
        "4063",
        "authors",
        ["Md Najmul Hossain", "Jaeeun Lee", "Hongseok Choi", "Yi-Sub Kwak", "Jongnam Kim"],
    ),
    ("wcxb-dev", "0380", "authors", ["Aniruddha Roy", "Jyoti Patel", "Aman Chadha", "Vinija Jain", "Amitava Das"]),
    # the shown name, not the login in JSON-LD and <meta> ("andrew.keaveney", "KatieS")
    ("wcxb-dev", "0195", "authors", ["Denise Everheart"]),
    ("wcxb-dev", "0331", "authors", ["Aoife O'Riordan"]),
    # ...but on a forum the user name is the name ("Silver Partner" beside it is a rank)
    ("wcxb-dev", "0546", "authors", ["ron1cne"]),
    # a profile URL as article:author; the Guardian's rel=author byline (a listicle)
    ("wcxb-dev", "4370", "authors", ["Adam Roberts"]),
    # a tag's link in the byline's row is a topic
    ("wcxb-dev", "4880", "authors", []),
    # "by Daniel Burstein, Senior Director, Content & Marketing, ..."
    ("wcxb-dev", "0327", "authors", ["Daniel Burstein"]),
    # "Text by Hunter Dukes" in an author block
    ("wcxb-dev", "0463", "authors", ["Hunter Dukes"]),
    # thread starters: phpBB "Post by changingtimes »", XenForo "started by pelex,"
    ("wcxb-dev", "0538", "authors", ["changingtimes"]),
    ("wcxb-dev", "0517", "authors", ["pelex"]),
    # "Written by" / "Edzel Tabing"; "Written by:Elise Nass"; "September 1st, 2023 By Emily Norwood"
    ("wcxb-dev", "0058", "authors", ["Edzel Tabing"]),
    ("wcxb-dev", "0322", "authors", ["Elise Nass"]),
    ("wcxb-dev", "0245", "authors", ["Emily Norwood"]),
    ("wcxb-dev", "0145", "authors", ["Nicole Burke"]),
    # issue 37, second round (rules half): the element holding the byline's name: a link to
    # the author's page, "author"/"author-name" classes, hCard, a name then a date
    ("wcxb-dev", "1396", "authors", ["Chris Toy"]),
    ("wcxb-dev", "4823", "authors", ["Will Judd"]),
    ("wcxb-dev", "4146", "authors", ["Trevor Jones"]),
    ("wcxb-dev", "2862", "authors", ["Andrew Gerrand"]),
    ("wcxb-dev", "4041", "authors", ["the Lavazza Team"]),
    ("wcxb-dev", "4413", "authors", ["EDB Team"]),
    ("wcxb-dev", "0503", "authors", ["raoul"]),  # itemprop=author's itemprop=name
    # ...signed at the end or in a side column (page_byline); a list's cards sign nothing
    ("wcxb-dev", "4243", "authors", ["Podium Staff"]),
    ("wcxb-dev", "4372", "authors", ["Andrew Liptak"]),
    ("wcxb-dev", "2916", "authors", []),
    ("wcxb-dev", "4891", "authors", []),
    # no byline: "--reset-author" (git's docs), rustdoc's "fn" is_ok
    ("wcxb-dev", "0689", "authors", []),
    ("wcxb-dev", "2861", "authors", []),
    # "Chris McNamara ⋅ Founder", "by Meaghan Weeden ● December 23, 2025" (and the site's
    # own name "One Tree Planted" as <meta name=author> gives way to it), "USA TODAY"
    ("wcxb-dev", "4677", "authors", ["Chris McNamara"]),
    ("wcxb-dev", "4614", "authors", ["Meaghan Weeden"]),
    ("wcxb-dev", "0106", "authors", ["Brian Truitt"]),
    ("wcxb-dev", "4487", "authors", ["Lance Ryan (Content Manager)"]),
    # a blog's front page: each teaser a BlogPosting item with its author; a listing's
    # byline under its first item's subheading
    ("wcxb-dev", "2903", "authors", []),
    ("wcxb-dev", "0470", "authors", []),
]


@pytest.mark.parametrize("dataset, page_id, field, expected", [shared_unless_cut(*case) for case in REAL_PAGES])
def test_real_pages(dataset, page_id, field, expected):
    pytest.importorskip("htmldate")
    page = real_page(dataset, page_id)
    result = extract(page.read_html(), page.url)
    value = getattr(result, field)
    if field.startswith("date_") and value and len(expected) == 10:
        value = value[:10]  # a day expected: by day, as the benchmark scores dates
    assert value == expected


def test_language_code():
    assert [language_code(v) for v in ("en-US", "EN_gb", "deu", "x-default", "", None)] == [
        "en",
        "en",
        "de",
        None,
        None,
        None,
    ]


@needs_shared("a quality floor over the reported half of the set")
def test_real_pages_of_the_reported_half():
    """wcxb-dev pages of the reported half (benchmarks/metadata_eval.py's metadata_half: sites
    whose pages no rule was written from since issue 37), scored as that script scores them.
    Measured after issue 37: title 0.770, authors 0.735, dates 0.884, authors on 5% of the
    pages without one (before it: authors 0.711, 4%); after its second round: authors 0.786,
    authors on 6% of the pages without one."""
    folder = SHARED / "wcxb-dev"
    if not (folder / "pages.jsonl").is_file():
        pytest.skip(f"{folder} not found")
    records = [json.loads(line) for line in (folder / "pages.jsonl").open(encoding="utf-8")]
    held_out = [r for r in records if metadata_half(r) == "reported"]
    score = {"title": [0, 0], "authors": [0, 0], "date": [0, 0], "invented": [0, 0]}
    for record in held_out:
        result = extract(gzip.decompress((folder / record["html"]).read_bytes()), record.get("url"))
        score["title"][0] += norm(result.title) == norm(record["title"])
        score["title"][1] += 1
        key = "authors" if record.get("author") else "invented"
        score[key][0] += (
            author_set(result.authors) == author_set(record["author"]) if record.get("author") else bool(result.authors)
        )
        score[key][1] += 1
        if record.get("publish_date"):
            score["date"][0] += (result.date_published or "")[:10] == record["publish_date"]
            score["date"][1] += 1
    share = {k: hits / n for k, (hits, n) in score.items()}
    assert share["title"] >= 0.75 and share["authors"] >= 0.72, share
    assert share["date"] >= (0.86 if normalize_date("March 15, 2024") else 0.55), share
    assert share["invented"] <= 0.07, share


def test_a_byline_is_marked_by_its_own_wrappers_classes_not_the_outermost_ones():
    """A block's class words run from its own element outwards (at most 12): the byline's
    own "byline" class marks it however deep it sits; a wrapper of the whole page whose class
    says "author" (an author's archive, a theme's "single-author" layout) marks no line."""
    top = nested('<div class="post-byline">Jane Doe · March 3, 2024</div>')
    assert extract(page(top=top)).authors == ["Jane Doe"]
    layout = (
        '<html lang="en"><head><title>Budget approved | The Daily</title></head><body>'
        '<div class="single-author layout"><div class="site"><article><h1>Budget approved</h1>'
        f"<p>The council votes again</p>{BODY}</article></div></div></body></html>"
    )
    assert extract(layout).authors == []


def test_the_element_that_holds_a_bylines_name():
    """A byline block's name in an element of its own: a class that says so ("author",
    "author-name", hCard's "fn" in a "vcard"), `itemprop=author` (its itemprop=name), or a link
    to the author's page; without the job title, the "By" glued to it, or the date beside it."""
    cases = [
        (
            '<div class="byline"><span class="by">by</span> <span class="author"><a href="/authors/will-judd">'
            'Will Judd</a></span> <span class="job_title">Former Deputy Tech Editor</span></div>',
            ["Will Judd"],
        ),
        (
            '<div class="entry-meta"><span class="posted-by"><span class="meta-label">By</span><span class="author '
            'vcard"><a class="url fn n" href="/about/">Trevor Jones</a></span></span></div>',
            ["Trevor Jones"],
        ),
        (
            '<div class="post-info-2"><a href="/authors/chris-toy" class="info-link">Chris Toy</a>'
            "<div>•</div><div>March 17, 2025</div></div>",
            ["Chris Toy"],
        ),
        ('<p class="author">Andrew Gerrand<br>4 August 2010</p>', ["Andrew Gerrand"]),
        ("<p>by Meaghan Weeden ● December 23, 2025 ● 6 min read</p>", ["Meaghan Weeden"]),
        (
            '<div class="post-meta"><span itemprop="author" itemscope itemtype="https://schema.org/Person">'
            '<a href="/u/raoul"><span itemprop="name">raoul</span></a> (raoul)</span> May 3, 2024</div>',
            ["raoul"],
        ),
        # no names: a function's name in code documentation, a shop's line in an Amazon "bylineInfo"
        ('<div class="method"><a class="fn" href="#method.is_ok">is_ok</a></div>', []),
        ('<div id="bylineInfo_feature_div"><a id="bylineInfo" href="/stores/acme">Visit the Acme Store</a></div>', []),
    ]
    for top, expected in cases:
        assert extract(page(top=nested(top))).authors == expected, top


def test_the_sites_own_name_as_author_gives_way_to_the_byline():
    head = '<meta name="author" content="The Daily"><meta property="og:site_name" content="The Daily">'
    assert extract(page(head, top='<p class="byline">By Jane Doe</p>')).authors == ["Jane Doe"]
    assert extract(page(head)).authors == ["The Daily"]
    # another organisation or a person in the metadata stays
    other = '<meta name="author" content="Reuters"><meta property="og:site_name" content="The Daily">'
    assert extract(page(other, top='<p class="byline">By Jane Doe</p>')).authors == ["Reuters"]


def test_no_page_byline_from_a_list_of_cards_or_an_about_box():
    dated = '<meta property="article:published_time" content="2025-01-21">'
    cards = "".join(
        f'<div class="card"><p class="card-author-name">{name}</p><p class="card-date">Mar 11, 2024</p></div>'
        for name in ("Ann Lee", "Bo Chan", "Cy Dorn")
    )
    assert extract(page(dated, after=cards, body=BODY * 3)).authors == []
    about = '<div class="authorandmore"><h1>About Our Expert</h1><p>Jane has tested mice for years.</p></div>'
    assert extract(page(dated, after=about, body=BODY * 3)).authors == []
    one = '<div class="card"><p class="card-author-name">Ann Lee</p></div>'
    assert extract(page(dated, after=one, body=BODY * 3)).authors == ["Ann Lee"]


def test_no_author_from_a_listings_teasers_in_microdata_or_under_a_subheading():
    teasers = "".join(
        f'<div itemscope itemtype="https://schema.org/BlogPosting"><h2><a href="/p/{n}">Post {n} on the budget'
        f' and the council</a></h2><span itemprop="author" itemscope itemtype="https://schema.org/Person">'
        f'<span itemprop="name">Writer {chr(65 + n)}</span></span><p>{BODY}</p></div>'
        for n in range(3)
    )
    front = f"<html><head><title>Blog</title></head><body><main><h1>Blog</h1>{teasers}</main></body></html>"
    assert extract(front).authors == []
    # one article item: its author
    one = teasers.split("</div>", 1)[0] + "</div>"
    assert extract(page(top=one)).authors == ["Writer A"]
    # a listing's first item, a byline under its (unlinked) subheading, then a linked teaser
    items = (
        "<p>Here are some books, papers and films we found useful.</p><h4>The House of Modernity</h4>"
        "<p>By Vanessa Andreotti, the Collective</p><p>A story told in the story-telling tradition.</p>"
        f'<h4><a href="/b">One Hundred Artists and their Ideas</a></h4><p>Edited by Hans Obrist</p>{BODY}'
    )
    library = f"<html><head><title>Library</title></head><body><main><h1>Library</h1>{items}</main></body></html>"
    assert extract(library).authors == []
