"""ArticleSpider: all the articles of some sites, one item each, following links by their role.

    class NewsSpider(ArticleSpider):
        name = "news"
        start_urls = ["https://blog.example.org/"]

    scrapy crawl news -O articles.jsonl        # or: scrapy crawl news -a url=https://other.example/

It stays on the start sites, follows the ``content``, ``next`` and ``navigation`` links of every page
(core/links/roles.py) with priorities by role (next and content first) and a navigation depth
limit counted in ``request.meta`` (not DEPTH_LIMIT), reads the feeds the pages announce and the
sitemaps of robots.txt (``Sitemap:`` lines, else /sitemap.xml) up to caps no real site meets
(crawl/articles/; a stat and one WARNING when one is hit), enables the add-on itself, and
yields one item per article. Whether a page is an article or a listing is the add-on's overview
verdict (OverviewMiddleware: the page, and the role of the link it was reached by); an article is
a page the site presents as a post (reached by a listing's teaser or the site's feed, marked up
as an article, or dated), however short its text.

Its items are ``{"url": ...}`` filled in by MainContentPipeline like any spider's, so every
BOILERPLATE_* field, duplicates and executor setting applies to them; the spider's own defaults
(ARTICLE_ITEM_DEFAULTS, used where neither the project nor the command line sets them) give items
``text``, ``title`` and the article metadata under their own names, and drop later exact copies of
a headline and text (ARTICLE_DUPLICATES_DEFAULTS, unless BOILERPLATE_DUPLICATES is set). See
docs/links.md.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy import Request, Spider, signals
from scrapy.http import HtmlResponse
from scrapy.settings import SETTINGS_PRIORITIES

from . import settings as bp
from .core.links.roles import CONTENT, NAVIGATION, NEXT, page_links, url_roles
from .core.overview.evidence import marked_as_article
from .core.render.urls import page_base
from .crawl.articles.feeds import feed_entry_urls, feed_urls
from .crawl.articles.seen import SeenFile
from .crawl.articles.sitemaps import download_sizes, robots_sitemaps, sitemap_entries
from .crawl.config import crawl_settings
from .crawl.extractions import page_extractions
from .crawl.response_pages import response_page
from .link_roles import PRIORITY_OFFSETS, priority_offsets
from .logformatter import ItemSummaryLogFormatter

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

#: Request.meta key: navigation links followed since the start page (or a feed).
META_NAVIGATION_DEPTH = "boilerplate_navigation_depth"
#: Request.meta key: sitemap indexes followed since robots.txt (a plain int, as all meta here).
META_SITEMAP_DEPTH = "boilerplate_sitemap_depth"
#: Roles whose links the spider follows.
FOLLOWED = (NEXT, CONTENT, NAVIGATION)
#: Priority of the pages a sitemap lists: after every link found on the pages themselves.
SITEMAP_PRIORITY = -20
#: Request.meta key: the request is a listing's teaser or a feed's entry (a plain bool): the page
#: it leads to is presented by its site as a post.
META_TEASED = "boilerplate_teased"
#: The spider's item shape and duplicate check: settings it sets where nothing else does (a
#: project's settings.py, custom_settings, -s all win).
ARTICLE_ITEM_DEFAULTS = {
    bp.TEXT_FIELD: "text",
    bp.TITLE_FIELD: "title",
    bp.METADATA_FIELDS: True,  # authors, date_published... under their own names
}
#: Its duplicate check, where nothing sets BOILERPLATE_DUPLICATES (a crawl that sets it judges
#: as any crawl does): the same article under a second URL ("x/" and "x/index.html" from a
#: sitemap, http and https) is one item. Exact copies only, however short: two posts of a series
#: may share most of their words (near copies at the default threshold), and each is an article;
#: two posts of one text under two headlines are two articles.
ARTICLE_DUPLICATES_DEFAULTS = {
    bp.DUPLICATES: "drop",
    bp.DUPLICATES_THRESHOLD: 1.0,
    bp.DUPLICATES_MIN_WORDS: 0,
    # Posts that are an image and a line of the site's template have one text: the headline tells them.
    bp.DUPLICATES_TITLE: True,
}


class ArticleSpider(Spider):
    """A spider for "all the articles of these sites" (module docstring).

    Spider arguments (``-a name=value``): ``url`` (start URLs, comma-separated; instead of
    ``start_urls``), ``max_navigation_depth`` (navigation links followed in a row, default 2),
    ``feeds`` and ``sitemaps`` (``false`` to leave them out), ``seen`` (a file of the article URLs
    yielded in earlier runs, one per line, appended to: those articles are not fetched again, and a
    listing whose content links are all known does not lead to its next page; a file the crawl
    cannot read or append to stops it at start-up, a write that fails later costs no item).
    """

    name = "articles"
    start_urls: list[str] = []
    max_navigation_depth = 2
    use_feeds = True
    use_sitemaps = True
    #: The file of article URLs yielded in earlier runs (None: every article is yielded).
    seen_file: str | None = None

    @bp.stops_crawl  # a seen file the crawl cannot use: one ERROR line, the crawl stops
    def __init__(
        self,
        *args: Any,
        url: str | None = None,
        max_navigation_depth: Any = None,
        feeds: Any = None,
        sitemaps: Any = None,
        seen: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(*args, **kwargs)
        if seen:
            self.seen_file = seen
        self._seen_log = SeenFile(self.seen_file) if self.seen_file else None
        self.seen: set[str] = self._seen_log.urls if self._seen_log is not None else set()
        if url:
            self.start_urls = [u.strip() for u in url.split(",") if u.strip()]
        if max_navigation_depth is not None:
            self.max_navigation_depth = int(max_navigation_depth)
        if feeds is not None:
            self.use_feeds = bp._boolean("feeds", feeds)
        if sitemaps is not None:
            self.use_sitemaps = bp._boolean("sitemaps", sitemaps)
        # OffsiteMiddleware keeps the crawl on the start sites.
        if not getattr(self, "allowed_domains", None):
            self.allowed_domains = sorted({urlsplit(u).hostname or "" for u in self.start_urls} - {""})
        self._warned: set[str] = set()  # the stats of _notice() logged once

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> ArticleSpider:
        spider: ArticleSpider = super().from_crawler(crawler, *args, **kwargs)
        spider._needs_verdicts(crawler)
        crawler.signals.connect(spider._close_seen, signal=signals.spider_closed)
        return spider

    @bp.stops_crawl
    def _needs_verdicts(self, crawler: Crawler) -> None:
        """The spider tells articles from listings by the add-on's overview verdict: a crawl
        without one (or that drops the listings it follows) stops before it starts."""
        settings = crawl_settings(crawler)
        action = settings.overview_action if settings.enabled else "off"
        if action not in ("follow", "flag"):
            raise bp.SettingError(
                bp.OVERVIEW_ACTION,
                action,
                '"follow" or "flag" for ArticleSpider (it tells articles from listings by the overview '
                "verdict, and follows the links of listings), with BOILERPLATE_ENABLED = True",
            )

    @classmethod
    def update_settings(cls, settings: BaseSettings) -> None:
        super().update_settings(settings)
        from .addon import Addon
        from .pipelines import MainContentPipeline

        # At "spider" priority, as custom_settings: a component dict left at "default" priority is
        # replaced by the runner's own (CrawlerProcess.crawl(crawler) merges its settings in).
        # The pipeline fills the items in, from the extraction the spider awaited.
        for name, component, priority in (("ADDONS", Addon, 0), ("ITEM_PIPELINES", MainContentPipeline, 100)):
            components = dict(settings.getdict(name))
            if not any(_same_component(key, component) for key in components):
                components[component] = priority
            settings.set(name, components, priority="spider")
        # Its items carry whole articles: Scrapy's formatter logs each one whole at DEBUG (the
        # level of `scrapy runspider`). Only where nothing chose a formatter (a project, -s, a
        # subclass's custom_settings all set it above "default"); the same for its item shape.
        defaults = {**ARTICLE_ITEM_DEFAULTS, "LOG_FORMATTER": ItemSummaryLogFormatter}
        if (settings.getpriority(bp.DUPLICATES) or 0) <= SETTINGS_PRIORITIES["default"]:
            defaults.update(ARTICLE_DUPLICATES_DEFAULTS)
        for name, value in defaults.items():
            if (settings.getpriority(name) or 0) <= SETTINGS_PRIORITIES["default"]:
                settings.set(name, value, priority="spider")

    async def start(self) -> AsyncIterator[Any]:
        origins = []
        for url in self.start_urls:
            yield Request(url, self.parse, meta={META_NAVIGATION_DEPTH: 0})
            parts = urlsplit(url)
            origin = f"{parts.scheme}://{parts.netloc}"
            if origin not in origins:
                origins.append(origin)
        if self.use_sitemaps:
            for origin in origins:
                yield Request(
                    origin + "/robots.txt",
                    self.parse_robots,
                    priority=SITEMAP_PRIORITY,
                    meta={"origin": origin},
                    errback=self.no_robots,
                )

    # --- pages ---------------------------------------------------------------------------------

    async def parse(self, response: Response) -> AsyncIterator[Any]:
        if not isinstance(response, HtmlResponse):
            return
        page = response_page(response)
        depth = response.meta.get(META_NAVIGATION_DEPTH, 0)
        # One verdict, the add-on's: OverviewMiddleware judged the page, and the link it was
        # reached by (a listing's next link: a listing; a teaser: an article).
        listing = bp.OVERVIEW_FLAG in response.flags
        roles = url_roles(page_links(page, response.url, is_overview=listing))
        offsets = priority_offsets(roles)
        content = [url for url, role in roles.items() if role == CONTENT]
        if not listing and await self.presented_as_post(response, page):
            self._remember(response.url)
            yield {"url": response.url}  # filled in by MainContentPipeline
        # A listing whose every content link was yielded in an earlier run: its next pages hold
        # older articles, yielded then too.
        known_listing = listing and bool(self.seen) and bool(content) and all(u in self.seen for u in content)
        for url, role in roles.items():
            if role not in FOLLOWED or url in self.seen:
                continue
            if role == NEXT and known_listing:
                continue
            followed_depth = depth + (role == NAVIGATION)
            if followed_depth > self.max_navigation_depth:
                continue
            meta = {bp.META_LINK_ROLE: role, META_NAVIGATION_DEPTH: followed_depth}
            if role == CONTENT and listing:
                meta[META_TEASED] = True
            yield Request(url, self.parse, priority=offsets[url], meta=meta)
        # The start pages' feeds: the site's posts. (A post's own feed holds its comments, a tag
        # page's the posts its page lists, which a blog announces on every tag page.)
        if self.use_feeds and response.meta.get("is_start_request"):
            for url in feed_urls(page, page_base(response.url, page.base_href)):
                yield Request(
                    url, self.parse_feed, priority=PRIORITY_OFFSETS[CONTENT], meta={META_NAVIGATION_DEPTH: depth}
                )

    def _remember(self, url: str) -> None:
        """Appends an article's URL to the seen file: a write that fails costs no item."""
        if self._seen_log is None:
            return
        error = self._seen_log.add(url)
        if error is not None:
            self._notice(
                "boilerplate/seen/write_errors",
                "Could not append %(url)s to the seen file %(path)s (%(error)s): its item goes on, "
                "and a next run fetches its article again",
                url=url,
                path=self._seen_log.path,
                error=error,
            )

    def _close_seen(self) -> None:
        if self._seen_log is not None:
            self._seen_log.close()

    async def presented_as_post(self, response: HtmlResponse, page: Any) -> bool:
        """Whether the site presents a page that is not a listing as a post: reached by a
        listing's teaser or a feed's entry, marked up as an article (og:type, JSON-LD), or dated
        (not an about page, a 404 page). The date is the extraction's, the one the pipeline
        writes (crawl/extractions.py); a page whose extraction failed is yielded (its item goes
        on without content, as any spider's)."""
        if response.meta.get(META_TEASED) or marked_as_article(page):
            return True
        crawler = getattr(self, "crawler", None)
        if crawler is None:
            raise RuntimeError("ArticleSpider needs a crawler (ArticleSpider.from_crawler)")
        extraction = await page_extractions(crawler).of_response(response)
        return extraction is None or bool(extraction.date_published)

    # --- feeds and sitemaps --------------------------------------------------------------------

    def parse_feed(self, response: Response) -> Iterator[Request]:
        depth = response.meta.get(META_NAVIGATION_DEPTH, 0)
        cap = self._caps().feed_max_entries
        entries = feed_entry_urls(response.body, response.url, cap)
        if entries.capped:
            self._notice(
                "boilerplate/feeds/too_many_entries",
                "The feed %(url)s has more than %(cap)d entries (%(setting)s): the rest are not read",
                url=response.url,
                cap=cap,
                setting=bp.FEED_MAX_ENTRIES,
            )
        for url in entries.urls:
            if url in self.seen:
                continue
            yield Request(
                url,
                self.parse,
                priority=PRIORITY_OFFSETS[CONTENT],
                meta={bp.META_LINK_ROLE: CONTENT, META_NAVIGATION_DEPTH: depth, META_TEASED: True},
            )

    def parse_robots(self, response: Response) -> Iterator[Request]:
        cap = self._caps().robots_max_sitemaps
        found = robots_sitemaps(response.body, response.url, cap)
        if found.capped:
            self._notice(
                "boilerplate/sitemaps/too_many_in_robots",
                "%(url)s names more than %(cap)d sitemaps (%(setting)s): the rest are not fetched",
                url=response.url,
                cap=cap,
                setting=bp.ROBOTS_MAX_SITEMAPS,
            )
        for url in found.urls or [response.meta["origin"] + "/sitemap.xml"]:
            yield Request(url, self.parse_sitemap, priority=SITEMAP_PRIORITY, meta={META_SITEMAP_DEPTH: 0})

    def no_robots(self, failure: Any) -> Iterator[Request]:
        origin = failure.request.meta.get("origin")
        if origin:
            yield Request(
                origin + "/sitemap.xml", self.parse_sitemap, priority=SITEMAP_PRIORITY, meta={META_SITEMAP_DEPTH: 0}
            )

    def parse_sitemap(self, response: Response) -> Iterator[Request]:
        caps = self._caps()
        depth = response.meta.get(META_SITEMAP_DEPTH, 0)
        max_size, warn_size = download_sizes(response, self)  # what a gzip file may inflate to
        sitemap = sitemap_entries(response.body, response.url, caps.sitemap_max_urls, max_size)
        if sitemap.too_large:
            self._notice(
                "boilerplate/sitemaps/too_large",
                "The sitemap %(url)s decompresses to more than %(size)d bytes (DOWNLOAD_MAXSIZE): it is ignored",
                url=response.url,
                size=max_size,
            )
            return
        if len(response.body) < warn_size <= sitemap.inflated:
            logger.warning(
                "%(response)s body size after decompression (%(size)d B) is larger than the download "
                "warning size (%(warn)d B).",
                {"response": response, "size": sitemap.inflated, "warn": warn_size},
            )
        if sitemap.kind is None:
            logger.debug("Not a sitemap, or one without entries: %(response)s", {"response": response})
            return
        if sitemap.capped:
            self._notice(
                "boilerplate/sitemaps/too_many_urls",
                "The sitemap %(url)s lists more than %(cap)d URLs (%(setting)s): the rest are not read",
                url=response.url,
                cap=caps.sitemap_max_urls,
                setting=bp.SITEMAP_MAX_URLS,
            )
        index = sitemap.kind == "sitemapindex"
        if index and depth >= caps.sitemap_max_depth:
            self._notice(
                "boilerplate/sitemaps/too_deep",
                "The sitemap index %(url)s is %(depth)d levels below robots.txt (%(setting)s = %(cap)d): "
                "the sitemaps it lists are not fetched",
                url=response.url,
                depth=depth,
                setting=bp.SITEMAP_MAX_DEPTH,
                cap=caps.sitemap_max_depth,
            )
            return
        for loc in sitemap.urls:
            if loc in self.seen:
                continue
            if index:
                yield Request(loc, self.parse_sitemap, priority=SITEMAP_PRIORITY, meta={META_SITEMAP_DEPTH: depth + 1})
            else:
                # Listed pages come after the links of the pages: a sitemap lists every tag page too.
                yield Request(
                    loc, self.parse, priority=SITEMAP_PRIORITY, meta={META_NAVIGATION_DEPTH: self.max_navigation_depth}
                )

    # --- limits ---------------------------------------------------------------------------------

    def _caps(self) -> bp.BoilerplateSettings:
        """The crawl's settings (the caps of feeds and sitemaps); the defaults without a crawler."""
        crawler = getattr(self, "crawler", None)
        return crawl_settings(crawler) if crawler is not None else bp.BoilerplateSettings()

    def _notice(self, stat: str, message: str, **values: Any) -> None:
        """Counts `stat`; logs `message` as a WARNING the first time only (a full disk would repeat
        it for every item, a hostile site for every feed or sitemap), saying where the rest are
        counted."""
        crawler = getattr(self, "crawler", None)
        if crawler is not None and crawler.stats is not None:
            crawler.stats.inc_value(stat)
        if stat not in self._warned:
            self._warned.add(stat)
            logger.warning(message + "; further ones are counted in %(stat)s, not logged", {**values, "stat": stat})


def _same_component(key: Any, component: type) -> bool:
    """Whether a component dict's key (a class or an import path) names `component`."""
    from scrapy.utils.misc import load_object

    try:
        return load_object(key) is component
    except (ImportError, NameError, ValueError, AttributeError):
        return False
