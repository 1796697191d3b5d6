"""What a page's own links say of its type (core/overview/link_evidence.py), on real pages."""

from __future__ import annotations

import math

import pytest
from conftest import needs_shared, site_labels, site_page, site_pages_are_copied

from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.links.urls import folder_of, url_shape
from scrapy_boilerplate.core.overview.evidence import FEATURE_NAMES, page_evidence
from scrapy_boilerplate.core.overview.link_evidence import LINK_FEATURES, link_evidence


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("https://x.org/posts/a-post/", "https://x.org/posts/another-one/", True),
        ("https://x.org/tags/python/", "https://x.org/tags/rust/", True),
        ("https://x.org/2009/01/07/slug/", "https://x.org/2010/12/24/other/", True),
        ("https://x.org/2009/04/", "https://x.org/2009/01/07/slug/", False),
        ("https://x.org/tags/python/", "https://x.org/posts/a-post/", False),
        ("https://x.org/a/index.html", "https://x.org/b/", True),
        ("https://x.org/story.html", "https://x.org/story/", False),
        ("https://x.org/list/?page=2", "https://x.org/list/", False),
    ],
)
def test_url_shape(a, b, same):
    assert (url_shape(a) == url_shape(b)) is same


@pytest.mark.parametrize(
    ("url", "folder"),
    [
        ("https://x.org/2009/04/", "/2009/04/"),
        ("https://x.org/2009/04/index.html", "/2009/04/"),
        ("https://x.org/story.html", "/story.html/"),
        ("https://x.org", "/"),
        ("http://[bad", None),
    ],
)
def test_folder_of(url, folder):
    assert folder_of(url) == folder


def test_a_bad_url_has_no_shape():
    assert url_shape("http://[bad") is None


def page(site: str, member: str, url: str, label: str):
    """pytest.param of a real page of a shared site with its URL and its label in site.json."""
    copied = site_pages_are_copied(site, member)
    return pytest.param(site, member, url, label, marks=() if copied else (needs_shared,), id=f"{site}/{member}")


PAGES = [
    # Listings: a home page of whole posts (Jekyll's Hyde), its page 2, a Pelican home of teasers,
    # a WordPress monthly archive of whole posts and a tag page of one post.
    page("indiantinker", "index.html", "http://rohitg.in/", "overview"),
    page("indiantinker", "page2/index.html", "http://rohitg.in/page2/", "overview"),
    page("matael", "index.html", "http://blog.matael.org/", "overview"),
    page("mylittlepwnage", "2009/01/index.html", "http://blog.mylittlepwnage.com/2009/01/", "overview"),
    page("mylittlepwnage", "tag/quake-live/index.html", "http://blog.mylittlepwnage.com/tag/quake-live/", "overview"),
    # PaperMod: each teaser's title is no link; an empty link covers the card.
    page("chicks", "tags/art/index.html", "https://www.chicks.net/tags/art/", "overview"),
    # Posts, with their previous and next posts linked under them, and related-post cards.
    page(
        "mylittlepwnage",
        "2009/01/06/wordpress-its-a-hack-and-a-half/index.html",
        "http://blog.mylittlepwnage.com/2009/01/06/wordpress-its-a-hack-and-a-half/",
        "article",
    ),
    page(
        "bruce30262",
        "0ctf-2015-quals-babypolyquine/index.html",
        "https://bruce30262.github.io/0ctf-2015-quals-babypolyquine/",
        "article",
    ),
    page(
        "soudegesu",
        "aws/amazonlinux2-docker/index.html",
        "https://www.soudegesu.com/aws/amazonlinux2-docker/",
        "article",
    ),
    page(
        "rfernandezdo",
        "blog/2023/10/17/hello-world-from-mkdocs-material/index.html",
        "https://rfernandezdo.github.io/blog/2023/10/17/hello-world-from-mkdocs-material/",
        "article",
    ),
]


@pytest.mark.parametrize(("site", "member", "url", "label"), PAGES)
def test_a_listings_headings_lead_elsewhere_a_posts_do_not(site, member, url, label):
    html, labels = site_page(site, member), site_labels(site)
    if html is None or labels is None:
        pytest.skip(f"../shared/sites/{site} not found")
    assert labels[member] == label
    values = link_evidence(build_page(parse_html(html), base_url=url), url)
    headings = round(math.expm1(values["heading_targets"]))
    same_shape = round(math.expm1(values["heading_same_shape"]))
    if label == "overview":
        # Its first heading links to a page it lists, none of the same shape as its own URL.
        assert values["first_heading_elsewhere"] == 1.0
        assert headings >= 1 and same_shape == 0
        assert values["linked_section_share"] > 0.2
    else:
        # A post's headings link nowhere, or to posts like itself (related cards, next post).
        assert values["first_heading_elsewhere"] == 0.0
        assert same_shape == headings
        assert values["heading_descendants"] == 0.0


def test_an_archive_of_whole_posts_counts_them():
    # A WordPress monthly archive shows whole posts, each under its linked title (net text
    # 3,500-24,000 characters: no text length tells it from a post).
    member = "2009/01/index.html"
    html = site_page("mylittlepwnage", member)
    if html is None:
        pytest.skip("../shared/sites/mylittlepwnage not found")
    url = "http://blog.mylittlepwnage.com/2009/01/"
    values = link_evidence(build_page(parse_html(html), base_url=url), url)
    assert values["whole_posts"] >= 3
    # The posts lie under the archive's own path.
    assert values["heading_descendants"] == values["heading_targets"] > 0


def test_without_a_url_the_links_say_nothing():
    html = site_page("matael", "index.html")
    if html is None:
        pytest.skip("../shared/sites/matael not found")
    assert set(link_evidence(build_page(parse_html(html)), None).values()) == {0.0}


def test_the_overview_evidence_ends_with_the_link_evidence():
    html = site_page("matael", "index.html")
    if html is None:
        pytest.skip("../shared/sites/matael not found")
    url = "http://blog.matael.org/"
    evidence = page_evidence(build_page(parse_html(html), base_url=url), url)
    assert FEATURE_NAMES[-len(LINK_FEATURES) :] == LINK_FEATURES
    assert set(evidence) == set(FEATURE_NAMES)


@pytest.mark.parametrize(
    ("url", "listing", "item"),
    [
        # WordPress's numeric permalinks and Hexo's abbrlink: a post's number under "archives".
        ("https://alanlang.github.io/archives/11242.html", 0.0, 1.0),
        ("https://wp.example/archives/123", 0.0, 1.0),
        ("https://wp.example/archives/", 1.0, 0.0),
        ("https://wp.example/archives/2019/", 1.0, 0.0),
        ("https://wp.example/tags/python/", 1.0, 0.0),
    ],
)
def test_a_posts_number_under_archives_is_an_item_url(url, listing, item):
    from scrapy_boilerplate.core.overview.evidence import url_features

    values = url_features(url)
    assert (values["url_listing"], values["url_item"]) == (listing, item)


@pytest.mark.parametrize("url", ["http://rohitg.in/page2/", "http://rohitg.in/page2/index.html"])
def test_a_numbered_page_is_one_under_its_index_html_too(url):
    # Jekyll's Hyde: whole posts on numbered home pages, a pager of their own. A sitemap or a link
    # may name the page by its file: the sign holds for both URLs.
    from scrapy_boilerplate.core.overview.detector import paged_listing

    html = site_page("indiantinker", "page2/index.html")
    if html is None:
        pytest.skip("../shared/sites/indiantinker not found")
    assert paged_listing(build_page(parse_html(html), base_url=url), url)
