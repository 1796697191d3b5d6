"""One analysis of one response, shared by the page objects scrapy-poet builds for it.

``PageAnalysis`` is a web-poet dependency: a callback that asks for an ``Article`` and an
``ArticleNavigation`` of the same response gets both page objects built on one instance, so the
page is parsed once and walked once, and its extraction, overview verdict and link roles are each
worked out once, when first read.
"""

from __future__ import annotations

import logging
import re
from functools import cached_property
from typing import TYPE_CHECKING

import attrs
from web_poet import HttpResponse, Injectable

from ..core.document.page import Page, build_page
from ..core.document.parse import to_element
from ..core.extractor import Extraction
from ..core.links.anchors import Anchor, page_anchors
from ..core.links.pager import own_pager
from ..core.links.roles import CONTENT, NAVIGATION, NEXT, OUTSIDE, Link, head_hints, page_links, url_roles
from ..core.links.teasers import Teaser, page_teasers
from ..core.links.urls import PLAIN_URL, Shape, url_host, url_kind, url_shape
from ..core.overview.detector import OverviewVerdict
from ..core.overview.evidence import marked_as_article
from ..core.render.urls import page_base
from ..crawl.articles.feeds import FeedEntries, feed_entry_urls, feed_urls
from .config import AnalysisConfig

if TYPE_CHECKING:
    from ..core.overview.detector import OverviewDetector

logger = logging.getLogger(__name__)

# An RSS, RDF or Atom document: its root element within the first bytes.
_FEED_RE = re.compile(rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*|<\?[^>]*>\s*)*<(?:rss|feed|rdf:RDF)\b", re.S)
_FEED_HEAD = 1024


@attrs.define
class PageAnalysis(Injectable):
    """The walk, extraction, overview verdict, link roles and teasers of one response."""

    response: HttpResponse
    #: The crawler's (scrapy_boilerplate.poet.ConfigProvider), else the defaults.
    config: AnalysisConfig | None = None

    @property
    def settings(self) -> AnalysisConfig:
        return self.config if self.config is not None else AnalysisConfig.default()

    @property
    def detector(self) -> OverviewDetector:
        return self.settings.detector

    @cached_property
    def url(self) -> str:
        return str(self.response.url)

    @cached_property
    def base(self) -> str | None:
        """What the page's relative links are resolved against (its <base href>, else its URL)."""
        return page_base(self.url, self.page.base_href)

    @cached_property
    def is_feed(self) -> bool:
        """Whether the response is an RSS, RDF or Atom feed (by its first bytes, whatever its headers say)."""
        return bool(_FEED_RE.match(bytes(self.response.body[:_FEED_HEAD])))

    @cached_property
    def page(self) -> Page:
        """The walked page (comments skipped, as overview detection and the link roles read it)."""
        if self.is_feed:
            return build_page(None, base_url=self.url)
        try:
            return build_page(to_element(self.response.text), base_url=self.url)
        except Exception as exc:  # noqa: BLE001 - a page that cannot be read is an empty page, not a crash
            logger.warning("could not read %s: %r", self.url, exc)
            return build_page(None, base_url=self.url)

    @cached_property
    def extraction(self) -> Extraction:
        """The main content, as ``extract(response.text, url=url)`` with the crawler's settings."""
        return self.settings.extractor.extract_page(self.page, self.url)  # walks again if it keeps comments

    @cached_property
    def verdict(self) -> OverviewVerdict:
        try:
            return self.detector.detect_page(self.page, self.url)
        except Exception as exc:  # noqa: BLE001 - a page's failure must not cost its item
            logger.warning("overview detection failed for %s: %r", self.url, exc)
            return OverviewVerdict(False, 0, self.detector.threshold, 0.0, f"not judged ({exc!r})")

    @property
    def is_listing(self) -> bool:
        return self.verdict.is_overview

    @cached_property
    def links(self) -> list[Link]:
        """Every link of the page with its role (core/links/roles.py), the page judged as the verdict says."""
        try:
            return page_links(self.page, self.url, is_overview=self.is_listing)
        except Exception as exc:  # noqa: BLE001 - a page's failure must not cost its item
            logger.warning("link roles failed for %s: %r", self.url, exc)
            return []

    @cached_property
    def roles(self) -> dict[str, str]:
        """URL -> the most useful role among the page's links to it (roles.py ``url_roles``)."""
        return url_roles(self.links)

    @cached_property
    def link_texts(self) -> dict[str, str]:
        """URL -> the text of the page's first link to it that has one (a teaser's headline comes
        before its "Read more")."""
        texts: dict[str, str] = {}
        for link in self.links:
            if link.text and link.url not in texts:
                texts[link.url] = link.text
        return texts

    @cached_property
    def content_urls(self) -> set[str]:
        """The URLs of the page's content links."""
        return {link.url for link in self.links if link.role == CONTENT}

    @cached_property
    def body_links(self) -> set[str]:
        """The URLs the page links to from outside its menus, header, footer and sidebars."""
        return {a.key for a in self._anchors if a.key is not None and not a.flags & OUTSIDE}

    @cached_property
    def next_page(self) -> str | None:
        """The next page of a listing: its first next link on its own site that its head's
        ``<link rel=next>`` does not name, else the one it names if the page has a pager of its
        own. (MkDocs and Sphinx name the next page in the site's order so, under every page.)"""
        if not self.is_listing or self.page.root is None:
            return None
        host = url_host(self.url)
        head_next, _ = head_hints(self.page.root, self.base)
        candidates = [
            link.url for link in self.links if link.role == NEXT and followable(link.url) and url_host(link.url) == host
        ]
        for url in candidates:
            if url not in head_next:
                return url
        if candidates and own_pager(self.page, self.url):
            return candidates[0]
        return None

    @property
    def _anchors(self) -> list[Anchor]:
        return page_anchors(self.page, self.base)

    @cached_property
    def teased(self) -> set[str]:
        """The URLs of the posts the page shows: its content links, and its navigation links to
        its site that may lead to a post and stand in its body or have the shape of its posts (a
        covered card's empty link, a short tag page's list, a sidebar's recent posts)."""
        return self.content_urls | {
            link.url
            for link in self.links
            if link.role == NAVIGATION
            and self.may_be_post(link.url)
            and (link.url in self.body_links or url_shape(link.url) in self.post_shapes)
        }

    def may_be_post(self, url: str) -> bool:
        """Whether a link may lead to a post of the page's site: on its host, and not a tag,
        category, archive, date list, file or legal page by its URL."""
        return url_kind(url) == PLAIN_URL and url_host(url) == url_host(self.url)

    @cached_property
    def presented_as_post(self) -> bool:
        """Whether the page presents itself as a post: marked up as an article (og:type, JSON-LD)
        or dated (ArticleSpider's test, less the link the page was reached by)."""
        return marked_as_article(self.page) or bool(self.extraction.date_published)

    @cached_property
    def post_shapes(self) -> set[Shape]:
        """The URL shapes (core/links/urls.py ``url_shape``) of this site's posts as the page shows
        them: its teasers' on a listing, its own on any other page."""
        urls = self.content_urls if self.is_listing else {self.url}
        return {shape for shape in map(url_shape, urls) if shape is not None}

    @cached_property
    def teasers(self) -> list[Teaser]:
        return page_teasers(self.page, self.url, self.teased) if self.is_listing else []

    @cached_property
    def feeds(self) -> list[str]:
        """The feeds the page announces (``<link rel=alternate type=application/rss+xml>``)."""
        return feed_urls(self.page, self.base)

    @cached_property
    def feed_entries(self) -> FeedEntries:
        """The entry links of a feed (none for a page that is not one)."""
        if not self.is_feed:
            return FeedEntries([], capped=False)
        cap = self.settings.feed_max_entries
        entries = feed_entry_urls(bytes(self.response.body), self.url, cap)
        if entries.capped:
            logger.warning(
                "The feed %s has more than %d entries (BOILERPLATE_FEED_MAX_ENTRIES): the rest are not read",
                self.url,
                cap,
            )
        return entries


def followable(url: str) -> bool:
    """An http(s) URL (the roles keep ``mailto:`` and ``javascript:`` links as written)."""
    return url.startswith(("http://", "https://"))
