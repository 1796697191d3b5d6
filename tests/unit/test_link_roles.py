"""Link roles (core/links/roles.py) and `Extraction.links`, on made pages and on real blogs."""

from __future__ import annotations

import pytest
from conftest import needs_shared, site_labels, site_page, site_pages_are_copied
from scrapy.http import HtmlResponse

from scrapy_boilerplate import extract
from scrapy_boilerplate.core.document.page import build_page
from scrapy_boilerplate.core.document.parse import parse_html
from scrapy_boilerplate.core.links.anchors import LINK_CONTENT, MAX_INLINE_ANCESTORS, PAGE_SPARE_CONTENT, page_anchors
from scrapy_boilerplate.core.links.pager import own_pager
from scrapy_boilerplate.core.links.roles import ROLES, page_links, url_roles
from scrapy_boilerplate.core.links.urls import link_key
from scrapy_boilerplate.core.overview.link_evidence import leads_elsewhere

LISTING = """<html><head><title>Blog</title><link rel="next" href="/page/2/"></head><body>
<header><nav><a href="/">Home</a> <a href="/about/">About</a> <a href="/posts/">Posts</a></nav></header>
<main>
<article class="post"><h2><a href="/2020/01/first-long-article/">The first long article of the blog</a></h2>
<p>The teaser of the first article, a sentence or two of its opening text.</p>
<a href="/2020/01/first-long-article/">Read more</a> <a href="/tags/python/">python</a></article>
<article class="post"><h2><a href="/2020/01/second-long-article/">The second long article of the blog</a></h2>
<p>The teaser of the second article, a sentence or two of its opening text.</p>
<a href="/2020/01/second-long-article/">Read more</a> <a href="/tags/web/">web</a></article>
<article class="post"><h2><a href="/2020/01/third-long-article/">The third long article of the blog</a></h2>
<p>The teaser of the third article, a sentence or two of its opening text.</p>
<a href="/2020/01/third-long-article/#comments">3 comments</a></article>
</main>
<div class="pagination"><span class="current">1</span> <a href="/page/2/">2</a> <a href="/page/3/">3</a>
<a href="/page/2/">Older posts &raquo;</a></div>
<footer><a href="/privacy/">Privacy policy</a> <a href="/feed.xml">RSS</a> <a href="mailto:me@example.org">Mail</a>
<a href="javascript:void(0)">Top</a> <a href="https://twitter.com/intent/tweet?url=x">Tweet</a></footer>
</body></html>"""

ARTICLE = """<html><head><title>An article</title></head><body>
<nav class="menu"><a href="/">Home</a> <a href="/category/news/">News</a></nav>
<article><h1>An article</h1>
<p>The first paragraph of the article, long enough to be its text, with <a href="/2019/05/older-story/">a link
to an older story</a> in the middle of the sentence, and more text after it so that it is a paragraph.</p>
<p>The second paragraph of the article goes on for a while as well, saying more things about the topic at hand,
so that the extraction keeps the article's text and nothing else of the page.</p>
<p class="tags"><a href="/tags/a/" rel="tag">a</a> <a href="/tags/b/" rel="tag">b</a></p>
<div class="share"><a href="https://example.org/share?u=1">Share</a></div>
</article>
<div class="related-posts"><h3>Related</h3><ul><li><a href="/2018/01/related-one/">A related story one</a></li>
<li><a href="/2018/02/related-two/">A related story two</a></li></ul></div>
<div id="comments"><a href="/an-article/?replytocom=5">Reply</a></div>
<footer><a href="/impressum/">Impressum</a></footer></body></html>"""


def roles_by_text(links):
    return {(link.text, link.url): link.role for link in links}


def test_listing_roles():
    links = extract(LISTING, url="https://blog.example.org/").links
    roles = roles_by_text(links)
    base = "https://blog.example.org"
    assert roles["The first long article of the blog", f"{base}/2020/01/first-long-article/"] == "content"
    assert roles["Read more", f"{base}/2020/01/first-long-article/"] == "content"
    assert roles["3 comments", f"{base}/2020/01/third-long-article/"] == "content"  # fragment dropped
    assert roles["python", f"{base}/tags/python/"] == "navigation"
    assert roles["About", f"{base}/about/"] == "navigation"
    assert roles["Home", f"{base}/"] == "boilerplate"  # the page itself
    assert roles["2", f"{base}/page/2/"] == "next"
    assert roles["3", f"{base}/page/3/"] == "navigation"
    assert roles["Older posts »", f"{base}/page/2/"] == "next"
    assert roles["", f"{base}/page/2/"] == "next"  # the head's rel=next
    for text in ("Privacy policy", "RSS", "Mail", "Top", "Tweet"):
        assert next(link.role for link in links if link.text == text) == "boilerplate", text
    assert {link.role for link in links} <= set(ROLES)


def test_article_roles():
    links = extract(ARTICLE, url="https://blog.example.org/an-article/").links
    roles = {link.text: link.role for link in links}
    assert roles["a link to an older story"] == "content"
    assert roles["a"] == roles["b"] == "navigation"
    assert roles["News"] == "navigation"
    assert roles["A related story one"] == roles["A related story two"] == "related"
    assert roles["Share"] == "boilerplate"
    assert roles["Reply"] == "boilerplate"
    assert roles["Impressum"] == "boilerplate"


def test_urls_as_requests_have_them():
    # <base href>, safe_url_string's escaping, no fragment: the URL a Scrapy request for the link has.
    html = (
        '<html><head><base href="https://other.example/dir/"></head><body><p>Some text of the page'
        ' <a href="a b.html#part">spaced</a> <a href="/ü?q=ä">accents</a></p></body></html>'
    )
    links = extract(html, url="https://example.org/page").links
    assert [link.url for link in links] == [
        "https://other.example/dir/a%20b.html",
        "https://other.example/%C3%BC?q=%C3%A4",
    ]
    from scrapy import Request

    for link in links:
        assert Request(link.url).url == link.url
    assert link_key("#top", "https://example.org/p") == "https://example.org/p"
    assert link_key("mailto:x@example.org", "https://example.org/") is None


def test_next_without_url_patterns():
    # An icon link after "1 / 8" (Hugo's Blackburn theme): no words, no rel, no number.
    html = (
        "<html><body><main>"
        + "".join(
            f'<article><h2><a href="/post-{i}/">A long enough title number {i}</a></h2><p>Teaser {i}.</p></article>'
            for i in range(5)
        )
        + '</main><nav class="pagination"><span>1 / 8</span> <a href="/page/2/">'
        '<i class="fa fa-chevron-right"></i></a></nav></body></html>'
    )
    page = build_page(parse_html(html), base_url="https://example.org/")
    links = page_links(page, "https://example.org/", url_patterns=False)
    assert [link.role for link in links if link.url.endswith("/page/2/")] == ["next"]
    # A numbered pager on page 3: the 4 is next, by the unlinked current number.
    pager = (
        '<div class="pager"><a href="/list?pg=2">2</a> <span>3</span> <a href="/list?pg=4">4</a> '
        '<a href="/list?pg=5">5</a></div>'
    )
    page = build_page(
        parse_html(html.replace('<nav class="pagination">', pager + "<nav>")), base_url="https://example.org/list?pg=3"
    )
    roles = {link.url: link.role for link in page_links(page, url_patterns=False)}
    assert roles["https://example.org/list?pg=4"] == "next"
    assert roles["https://example.org/list?pg=2"] == roles["https://example.org/list?pg=5"] == "navigation"


def test_url_roles_take_the_most_useful_role():
    links = extract(LISTING, url="https://blog.example.org/").links
    roles = url_roles(links)
    assert roles["https://blog.example.org/page/2/"] == "next"
    # The pager's other pages are requested as next pages (their first sighting is page 1's pager).
    assert roles["https://blog.example.org/page/3/"] == "next"
    assert roles["https://blog.example.org/tags/python/"] == "navigation"
    assert roles["https://blog.example.org/2020/01/third-long-article/"] == "content"


def test_links_cost_nothing_unless_read_and_bad_input():
    result = extract(LISTING, url="https://blog.example.org/")
    assert result._links is None and result._link_source is not None
    assert extract("").links == []
    assert extract(b"\xff\xfe\x00garbage").links == []
    # Pickled (to another process): the roles go with it when they were read.
    import pickle

    read = extract(ARTICLE, url="https://blog.example.org/an-article/")
    expected = read.links
    assert pickle.loads(pickle.dumps(read)).links == expected


def listing(site: str, member: str, *values):
    """pytest.param(site, member, *values), marked needs_shared unless tests/fixtures/real has the page."""
    return pytest.param(site, member, *values, marks=() if site_pages_are_copied(site, member) else (needs_shared,))


@pytest.mark.parametrize(
    ("site", "member", "url", "next_url"),
    [
        # Jekyll's Hyde: whole posts on the home page, "Older" to page 2.
        listing("indiantinker", "index.html", "http://rohitg.in/", "http://rohitg.in/page2"),
        # Pelican: "»" to index2.html.
        listing("matael", "index.html", "http://blog.matael.org/", "http://blog.matael.org/index2.html"),
        # Wintersmith: "weiter »".
        listing("flauschiversum", "index.html", "http://localhost:8080/", "http://localhost:8080/page/2/"),
    ],
)
def test_real_listings(site, member, url, next_url):
    html, labels = site_page(site, member), site_labels(site)
    if html is None or labels is None:
        pytest.skip(f"../shared/sites/{site} not found")
    page = build_page(parse_html(html), base_url=url)
    links = page_links(page, url, is_overview=True, url_patterns=False)
    assert next_url in {link.url for link in links if link.role == "next"}
    content = [link.url for link in links if link.role == "content" and link.url.startswith(url)]
    assert content
    # Every own content link of the listing leads to an article (labels by file path).
    for target in content:
        path = target[len(url) :].split("?")[0]
        file = path if path.endswith(".html") else (path + "/index.html").lstrip("/").replace("//", "/")
        assert labels.get(file) == "article", target


def post(site: str, member: str, url: str, next_post: str):
    """pytest.param of a real post and the URL of the post its theme links as the next one."""
    return pytest.param(
        site, member, url, next_post, marks=() if site_pages_are_copied(site, member) else (needs_shared,)
    )


@pytest.mark.parametrize(
    ("site", "member", "url", "next_post"),
    [
        # Minimal Mistakes: "Previous" / "Next" in a <nav class="pagination"> under each post.
        post(
            "bruce30262",
            "0ctf-2015-quals-babypolyquine/index.html",
            "https://bruce30262.github.io/0ctf-2015-quals-babypolyquine/",
            "https://bruce30262.github.io/0ctf-2015-quals-geo-newbie/",
        ),
        # WordPress (Thematic): <link rel="next"> in the head and "Next post »" links.
        post(
            "mylittlepwnage",
            "2009/01/06/wordpress-its-a-hack-and-a-half/index.html",
            "http://blog.mylittlepwnage.com/2009/01/06/wordpress-its-a-hack-and-a-half/",
            "http://blog.mylittlepwnage.com/2009/01/07/quake-live/index.html",
        ),
        # MkDocs Material: the footer's next page, and <link rel="next"> in the head.
        post(
            "rfernandezdo",
            "blog/2023/10/17/hello-world-from-mkdocs-material/index.html",
            "https://rfernandezdo.github.io/blog/2023/10/17/hello-world-from-mkdocs-material/",
            "https://rfernandezdo.github.io/blog/2023/10/18/"
            "create-a-blog-with-mkdocsmkdocs-material-mkdocs-rss-plugin-and-github-pages/",
        ),
        # Mainroad: "次の投稿 »" and the next post's title.
        post(
            "soudegesu",
            "aws/amazonlinux2-docker/index.html",
            "https://www.soudegesu.com/aws/amazonlinux2-docker/",
            "https://www.soudegesu.com/java/build-docker-image-with-jib/",
        ),
    ],
)
def test_the_next_post_of_a_real_theme_is_not_a_next_page(site, member, url, next_post):
    # A crawl reads a page reached by a next link as a listing's page: a post taken so is lost.
    html = site_page(site, member)
    if html is None:
        pytest.skip(f"../shared/sites/{site} not found")
    links = page_links(build_page(parse_html(html), base_url=url), url, is_overview=False)
    assert [link for link in links if link.role == "next"] == []
    assert url_roles(links)[next_post] == "navigation"


def test_next_post_of_an_article_is_not_a_next_page():
    html = ARTICLE.replace(
        "<footer>",
        '<nav class="post-navigation"><a rel="next" href="/newer-story/">Next: '
        'a newer story</a></nav><div class="pagination"><a class="pagination-item older" '
        'href="/an-article/2/">Older</a></div><footer>',
    )
    page = build_page(parse_html(html), base_url="https://blog.example.org/an-article/")
    roles = {link.text: link.role for link in page_links(page, is_overview=False)}
    assert roles["Next: a newer story"] == "navigation"
    assert roles["Older"] == "next"  # the article's own second page


@pytest.mark.parametrize(
    ("links", "leads"),
    [
        ('<a href="/">Home</a> <a href="/index.html">Home</a> <a href="#top">Top</a> <a href="/a/b/#x">1</a>', False),
        ('<a href="/feed.xml">RSS</a> <a href="/privacy/">Privacy</a> <a href="mailto:me@x.org">Mail</a>', False),
        ('<a href="https://elsewhere.example.com/a/">Elsewhere</a> <a href="//cdn.example.net/x/">CDN</a>', False),
        ('<a href="/">Home</a> <a href="/tags/wool/">wool</a>', True),  # a tag page is a page of the site
        ('<a href="https://www.blog.example.org/c/">Another post</a>', True),  # "www." is the same host
        ('<a href="../c/">Another post</a>', True),
    ],
)
def test_leads_elsewhere(links, leads):
    html = f"<html><body><article><h1>A post</h1><p>{links}</p></article></body></html>"
    page = build_page(parse_html(html), base_url="https://blog.example.org/a/b/")
    assert leads_elsewhere(page) is leads
    assert leads_elsewhere(build_page(parse_html(html))) is None  # no URL: no host to tell


@pytest.mark.parametrize(
    "post_nav",
    [
        # A theme's links to the previous and next post, named as a pager's items.
        '<nav class="post-navigation"><a class="pagination-item newer" href="/newer-story/">Newer</a> '
        '<a class="pagination-item older" href="/older-story/">Older</a></nav>',
        '<div class="post-navigation"><ul><li class="pagination-item"><a href="/newer-story/">Newer</a></li>'
        '<li class="pagination-item"><a href="/older-story/">Older</a></li></ul></div>',
        '<section class="post-nav"><div><div><span class="pagination-item"><a href="/older-story/">Older</a>'
        "</span></div></div></section>",
    ],
)
def test_a_pager_item_in_a_post_navigation_leads_to_the_next_post(post_nav):
    html = ARTICLE.replace("<footer>", post_nav + "<footer>")
    url = "https://blog.example.org/an-article/"
    page = build_page(parse_html(html), base_url=url)
    roles = {link.text: link.role for link in page_links(page, is_overview=False)}
    assert roles["Older"] == "navigation"  # another post, not a next page of this one
    assert not own_pager(page, url)
    root = build_page(parse_html(html), base_url="https://blog.example.org/")
    assert not own_pager(root, "https://blog.example.org/")  # so no listing's pager on the home URL


def test_the_url_caches_are_bounded_by_their_characters():
    """A site's long links (100 KB hrefs) must not grow a crawl's memory without end: the link
    keys and kinds kept across pages hold at most 2 x MAX_CHARS characters each, whatever their
    count (BoundedCache: two generations)."""
    import tracemalloc

    from scrapy_boilerplate.core.links import urls

    tail = "x" * 10_000
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for n in range(1_500):  # 15 MB of distinct hrefs, each kept with its key
        key = urls.link_key(f"/p/{n}/{tail}", "https://blog.example.org/")
        assert key is not None
        urls.url_kind(key)
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert kept < 2 * 2 * urls.MAX_CHARS + 2_000_000, kept


def test_links_nested_in_each_other_read_a_share_of_their_content():
    # libxml2 nests a link left open in the next one: 1,000 such links each read all the links
    # after them (6.7 s in page_anchors for a 64 KB page). A link left open around a whole page
    # still reads all of it, as before (the page's spare); links nested deep, their share each.
    whole = "<p>" + " ".join(f"<b>word {k}</b>" for k in range(1000)) + "</p>"
    page = build_page(parse_html(f'<html><body><div><a href="/all/">{whole}</div></body></html>'))
    (around,) = page_anchors(page, "https://blog.example/")
    assert around.text == " ".join(f"word {k}" for k in range(1000))
    n = 600
    nested = "".join(f'<a href="/n{k}/"><span>{k} ' for k in range(n))
    body = f"<html><body><div>{nested}</div></body></html>".encode()
    # Scrapy's tree: 2,048 levels deep (ours stops at 256)
    page = build_page(HtmlResponse("https://blog.example/", body=body, encoding="utf-8").selector.root)
    anchors = page_anchors(page, "https://blog.example/")
    assert len(anchors) == n
    read = sum(len(a.text.split()) for a in anchors)  # a piece of text a number here
    assert read <= n * LINK_CONTENT + PAGE_SPARE_CONTENT < n * (n + 1) // 2
    assert anchors[0].text.startswith("0 1 2") and anchors[-1].text == str(n - 1)


def test_a_link_takes_the_cues_of_its_nearest_inline_ancestors():
    # The nearest MAX_INLINE_ANCESTORS give their class names, the block-level node above all of
    # them is still found (each element on the way looked up once a page).
    depth = 120
    html = '<html><body><div class="sidebar"><p>' + "".join(f'<span class="k{k}">' for k in range(depth))
    html += '<a href="/deep/">deep</a>' + "</span>" * depth + "</p></div></body></html>"
    page = build_page(parse_html(html), base_url="https://blog.example/")
    (deep,) = page_anchors(page, "https://blog.example/")
    assert f"k{depth - 1}" in deep.tokens and f"k{depth - MAX_INLINE_ANCESTORS}" in deep.tokens
    assert f"k{depth - MAX_INLINE_ANCESTORS - 1}" not in deep.tokens and "k0" not in deep.tokens
    assert page.node_tags[deep.node] == "p" and deep.block >= 0


@pytest.mark.parametrize(
    ("href", "base"),
    [
        ("a", "https://x.org/b/c"),
        ("../a/", "https://x.org/b/c/"),
        ("../../../a", "https://x.org/b/"),
        ("./", "https://x.org/b/c"),
        ("..", "https://x.org/b/c/d"),
        ("a/./b/../c", "http://x.org:8080/"),
        ("/a/../b", "https://x.org/q/"),
        ("a//b", "https://x.org/"),
        ("/a//b", "https://x.org/"),
        ("a", "https://x.org"),
        ("b", "https://x.org//a/c"),
        ("tag/x/", "https://x.org/post/?page=2"),
        ("tag/x/#top", "https://x.org/post/"),
        ("t%C3%A9/", "https://x.org/post/"),
        ("té/", "https://x.org/post/"),
    ],
)
def test_a_plain_relative_link_is_joined_as_urljoin_and_safe_url_string_join_it(href, base):
    # The fast join of plain relative paths (core/links/urls.py) gives what the general way gives;
    # checked on every link of the twenty shared sites and four datasets (204,536 joined fast).
    from w3lib.url import safe_url_string

    from scrapy_boilerplate.core.render.urls import safe_url

    assert link_key(href, base) == safe_url_string(safe_url(href, base), encoding="utf-8").split("#")[0]


@pytest.mark.parametrize(
    ("site", "member", "url", "next_url"),
    [
        listing(
            "stefanscherer",
            "page/2/index.html",
            "https://stefanscherer.github.io/page/2/",
            "https://stefanscherer.github.io/page/3/",
        ),
        # A tag page of one post: its one "»" and the post's title lead to the post.
        listing("stefanscherer", "tag/ci/index.html", "https://stefanscherer.github.io/tag/ci/", None),
    ],
)
def test_a_teasers_arrow_is_no_next_page(site, member, url, next_url):
    # Casper puts a "»" under each teaser: taken for the list's next page, a crawl reads the
    # posts as pages of the listing.
    html, labels = site_page(site, member), site_labels(site)
    if html is None or labels is None:
        pytest.skip(f"../shared/sites/{site} not found")
    links = page_links(build_page(parse_html(html), base_url=url), url, is_overview=True)
    assert {link.url for link in links if link.role == "next"} == ({next_url} if next_url else set())
    arrows = [link for link in links if link.text.strip() == "»"]
    assert arrows and all(labels[link.url.split(".io/", 1)[1] + "index.html"] == "article" for link in arrows)


def test_a_crowd_of_navigation_links_comes_after_a_link_of_its_own_shape():
    # Mainroad's home page: a cloud of 100+ tag and category links, and the English edition's
    # home in the menu, all navigation. The edition leads to half of the site's articles, a tag
    # to a few already seen: a crawl fetches the edition first, every navigation link still
    # before related and boilerplate ones.
    from scrapy_boilerplate.link_roles import PRIORITY_OFFSETS, priority_offsets

    html = site_page("soudegesu", "index.html")
    if html is None:
        pytest.skip("../shared/sites/soudegesu not found")
    url = "https://www.soudegesu.com/"
    roles = url_roles(page_links(build_page(parse_html(html), base_url=url), url, is_overview=True))
    offsets = priority_offsets(roles)
    tags = [u for u in roles if "/tags/" in u or "/categories/" in u]
    assert len(tags) > 100 and {roles[u] for u in tags} == {"navigation"}
    assert roles[url + "en/"] == "navigation"
    assert offsets[url + "en/"] > max(offsets[u] for u in tags)
    navigation = [offsets[u] for u, role in roles.items() if role == "navigation"]
    assert min(navigation) > PRIORITY_OFFSETS["related"]
    assert all(offsets[u] == PRIORITY_OFFSETS[role] for u, role in roles.items() if role != "navigation")


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        # Date archives list posts: a monthly archives widget in a sidebar is no teaser.
        ("http://blog.mylittlepwnage.com/2009/11/index.html", "listing"),
        ("https://b.example/2009/", "listing"),
        ("https://b.example/en/2009/04/page/2/", "listing"),
        ("https://b.example/2009/11/22/a-post/", "plain"),
        ("https://b.example/2009/11/a-post.html", "plain"),
        ("https://b.example/2009-in-review/", "plain"),
        # A post's number under "archives" (WordPress, Hexo's abbrlink) is the post, not the archive.
        ("https://alanlang.github.io/archives/59303.html", "plain"),
        ("https://alanlang.github.io/archives/7b152142.html", "plain"),
        ("https://b.example/archives/", "listing"),
        ("https://b.example/archives/2019/", "listing"),
        ("https://b.example/archives/page/2/", "listing"),
        ("https://b.example/tags/python/", "listing"),
    ],
)
def test_what_a_url_says_of_its_page(url, kind):
    from scrapy_boilerplate.core.links import urls

    assert urls.url_kind(url) == {"listing": urls.LISTING_URL, "plain": urls.PLAIN_URL}[kind]


def test_a_monthly_archives_widget_is_no_content_of_a_listing():
    # WordPress (Thematic): the sidebar's "April 2010", "November 2009"... on every page, taken for
    # a listing's teasers: 480 of the 487 content links of the sites' list pages that led to lists.
    url = "http://blog.mylittlepwnage.com/2009/01/"
    html = site_page("mylittlepwnage", "2009/01/index.html")
    if html is None:
        pytest.skip("../shared/sites/mylittlepwnage not found")
    links = page_links(build_page(parse_html(html), base_url=url), url, is_overview=True)
    months = [link for link in links if link.text.strip() in ("April 2010", "November 2009", "January 2009")]
    assert months and {link.role for link in months} == {"navigation"}
    assert any(link.role == "content" and "/2009/01/" in link.url for link in links)
