"""Crawls of a small blog for BOILERPLATE_LINKS, one per mode, printed as JSON.

    python tests/support/links_crawl.py BASE_URL '["off", "prioritize", "focus"]'

Each crawl is a follow-everything CrawlSpider (``Rule(LinkExtractor(), follow=True)``) with the
add-on and CONCURRENT_REQUESTS = 1, so the order of the fetches is the scheduler's. Output per
mode: the URLs fetched in order, the link role each request carried in meta, and the stats.
"""

from __future__ import annotations

import json
import sys

from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

from scrapy_boilerplate import settings as bp

FEED_LINK = '<link rel="alternate" type="application/rss+xml" href="/feed.xml">'


def page(title: str, body: str, head: str = "") -> bytes:
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title>{FEED_LINK}{head}</head><body>{body}</body></html>"
    ).encode()


MENU = '<header><nav><a href="/">Home</a> <a href="/about/">About</a></nav></header>'
FOOTER = (
    '<footer><a href="/privacy/">Privacy policy</a> <a href="/login/">Log in</a> <a href="/feed.xml">RSS</a></footer>'
)
TEXT = (
    "This is the text of the article, long enough to be a paragraph of its own, with a few "
    "sentences that say something about the subject of the post and then some more. "
) * 4


PLACES = (
    "harbour",
    "old mill",
    "library",
    "market hall",
    "ferry pier",
    "orchard",
    "station",
    "museum",
    "weir",
    "bakery",
)
PEOPLE = ("mayor", "harbour master", "librarian", "baker", "ferry captain", "gardener", "teacher", "miller")


def story_text(n: int) -> str:
    """Story n's own paragraph: every story says something else (ten copies of one paragraph would
    be near-duplicates, and the duplicates filter would keep one item of the ten)."""
    place, other = PLACES[n % len(PLACES)], PLACES[(3 * n + 1) % len(PLACES)]
    who, whom = PEOPLE[n % len(PEOPLE)], PEOPLE[(5 * n + 2) % len(PEOPLE)]
    if n > 10:  # the feed's and the sitemap's own stories: not a variation of stories 1 and 2
        return (
            f"Post {n} follows a walk along the river, from the {place} past the {other}, on a cold "
            f"morning in {('March', 'April')[n % 2]}. A {who} we met on the bridge pointed at the swans and "
            f"explained why they stay all winter: somebody feeds them bread at noon. We counted {n + 20} "
            f"of them, then lost count near the locks, where a {whom} was painting the railings green."
        )
    return (
        f"Story {n} of this blog is about the {place} and the people who work there. The {who} told us "
        f"how the {place} began {n + 3} years ago, when the town bought it from the {whom}. Since then "
        f"it has changed hands {n} times, and each owner left something behind: a bench, a sign, a "
        f"door painted blue. Next month the {place} opens its doors to visitors from the {other}, and "
        f"the {whom} hopes that {10 * n + 40} people will come on the first day."
    )


def card(n: int) -> str:
    return (
        f'<article class="post"><h2><a href="/posts/story-number-{n}/">The story number {n} of this blog</a>'
        f'</h2><p>The teaser of story {n}.</p><a href="/tags/t{n}/">tag {n}</a></article>'
    )


def listing(numbers: range, next_page: str | None) -> str:
    pager = f'<div class="pagination"><a href="{next_page}">Older posts</a></div>' if next_page else ""
    return MENU + "<main>" + "".join(card(n) for n in numbers) + "</main>" + pager + FOOTER


def article(n: int) -> str:
    return (
        MENU + f"<article><h1>The story number {n} of this blog</h1><p>{story_text(n)}</p>"
        f'<div class="share"><a href="/share?story={n}">Share</a></div></article>'
        f'<div class="related-posts"><h3>Related</h3><a href="/extra/related-{n}/">A related story {n}'
        "</a></div>" + FOOTER
    )


def routes() -> dict:
    site = {
        "/": page("Blog", listing(range(1, 6), "/page/2/")),
        "/page/2/": page("Blog, page 2", listing(range(6, 11), None)),
        "/about/": page("About", MENU + "<main><p>About this blog and its author.</p></main>" + FOOTER),
        "/privacy/": page("Privacy", MENU + "<main><p>We keep no data.</p></main>" + FOOTER),
        "/login/": page("Log in", MENU + "<form>Log in</form>" + FOOTER),
    }
    # Reached only by the feed, and only by the sitemap (robots.txt's Sitemap: line).
    site["/posts/feed-only/"] = page("Feed only", article(11))
    # (It says it is an article: ArticleSpider wants that of a page no content link led to.)
    site["/posts/sitemap-only/"] = page("Sitemap only", article(12), '<meta property="og:type" content="article">')
    site["/feed.xml"] = (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title>'
        b"<item><title>Feed only</title><link>/posts/feed-only/</link></item>"
        b"<item><title>1</title><link>/posts/story-number-1/</link></item></channel></rss>",
        {"Content-Type": "application/rss+xml"},
    )
    site["/robots.txt"] = (b"User-agent: *\nSitemap: /sitemap.xml\n", {"Content-Type": "text/plain"})
    site["/sitemap.xml"] = (
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc>/posts/sitemap-only/</loc></url><url><loc>/about/</loc></url></urlset>",
        {"Content-Type": "application/xml"},
    )
    for n in range(1, 11):
        site[f"/posts/story-number-{n}/"] = page(f"Story {n}", article(n))
        site[f"/tags/t{n}/"] = page(f"Tag {n}", listing(range(n, n + 1), None))
        site[f"/share?story={n}"] = page("Share", "<p>Shared.</p>")
        site[f"/extra/related-{n}/"] = page(f"Related {n}", MENU + f"<p>{TEXT}</p>" + FOOTER)
    return site


class BlogSpider(CrawlSpider):
    name = "blog"
    rules = (Rule(LinkExtractor(), callback="parse_page", follow=True),)

    def __init__(self, base_url: str, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [base_url]
        self.fetched: list = []
        self.roles: dict = {}

    def parse_start_url(self, response):
        return self.parse_page(response)

    def parse_page(self, response):
        self.fetched.append(response.url)
        # The first fetch's: Scrapy's dupefilter does not record start requests (dont_filter), so a
        # link back to the start page fetches it again.
        self.roles.setdefault(response.url, response.request.meta.get(bp.META_LINK_ROLE))
        yield {"url": response.url}


def main(base_url: str, modes: list) -> dict:
    process = CrawlerProcess({"LOG_LEVEL": "WARNING", "TELNETCONSOLE_ENABLED": False, "REMOTE_CONTROL_ENABLED": False})
    crawlers = {}
    for mode in modes:
        spidercls = type(
            f"{mode}_spider",
            (BlogSpider,),
            {
                "custom_settings": {
                    "ADDONS": {"scrapy_boilerplate.Addon": 0},
                    "BOILERPLATE_LINKS": mode,
                    "CONCURRENT_REQUESTS": 1,
                }
            },
        )
        crawlers[mode] = crawler = process.create_crawler(spidercls)
        process.crawl(crawler, base_url=base_url)
    process.start()
    return {
        mode: {"fetched": c.spider.fetched, "roles": c.spider.roles, "stats": c.stats.get_stats()}
        for mode, c in crawlers.items()
    }


if __name__ == "__main__":
    json.dump(main(sys.argv[1], json.loads(sys.argv[2])), sys.stdout, default=str)
