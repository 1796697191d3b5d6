"""zyte-common-items' Article, ArticleList and ArticleNavigation, from this extractor.

Registered for every URL (``@handle_urls("")``) at PRIORITY, above web-poet's default 500: above
zyte-spider-templates' heuristic navigation page, which is registered for every URL at 500. Each
field reads the response's one ``PageAnalysis``; docs/zyte.md says where each comes from.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

import attrs
from web_poet import field, handle_urls
from zyte_common_items import (
    ArticleFromList,
    ArticleMetadata,
    Author,
    Breadcrumb,
    Image,
    ProbabilityMetadata,
    ProbabilityRequest,
    Request,
)
from zyte_common_items.pages import ArticleListPage, ArticleNavigationPage, ArticlePage

from ..core.links.pager import PAGE_NUMBER_URL_RE
from ..core.links.roles import CONTENT, NAVIGATION
from ..core.links.urls import url_host
from ..core.render.urls import safe_url
from .analysis import PageAnalysis, followable
from .probabilities import (
    FEED_ENTRY_PROBABILITY,
    FEED_PROBABILITY,
    ITEM_PROBABILITY,
    SUBCATEGORY_PROBABILITY,
    article_probability,
)

#: Above web-poet's default (500), at which zyte-spider-templates registers its heuristics page
#: for every URL: at equal priority the rule registered first would win.
PRIORITY = 600
#: The name a feed's request carries: zyte-spider-templates reads a request whose name starts so
#: as a feed (``is_feed_request``), fetched as it is and not counted as a navigation step.
FEED_REQUEST_NAME = "[heuristics][articleNavigation][feed]"
_SPACE_RE = re.compile(r"\s+")


def _probability(analysis: PageAnalysis) -> float:
    verdict = analysis.verdict
    return article_probability(verdict.is_overview, verdict.score, analysis.detector.cutoff, analysis.presented_as_post)


def _breadcrumbs(analysis: PageAnalysis) -> list[Breadcrumb] | None:
    """The page's JSON-LD BreadcrumbList, as it gives it (no other markup is read); URLs absolute."""
    crumbs = analysis.page.jsonld.get("breadcrumbs")
    if not crumbs:
        return None
    return [Breadcrumb(name=name, url=safe_url(url, analysis.base) if url else None) for name, url in crumbs]


def schema_date(value: str | None) -> str | None:
    """An ISO 8601 date of the extractor as zyte-common-items' schema writes dates
    (``YYYY-MM-DDThh:mm:ssZ``, or with the page's offset): a day alone at midnight UTC."""
    if not value:
        return None
    if len(value) == 10:
        return f"{value}T00:00:00Z"
    return value[:-6] + "Z" if value.endswith("+00:00") else value


@handle_urls("", priority=PRIORITY)
@attrs.define
class BoilerplateArticlePage(ArticlePage):
    """An ``Article``: the main content and the article metadata of the page."""

    analysis: PageAnalysis

    @field
    def headline(self) -> str | None:
        return self.analysis.extraction.title or None

    @field
    def articleBody(self) -> str | None:
        return self.analysis.extraction.text or None

    @field
    def articleBodyHtml(self) -> str | None:
        return self.analysis.extraction.html or None

    @field
    def authors(self) -> list[Author] | None:
        names = self.analysis.extraction.authors
        return [Author(name=name) for name in names] or None

    @field
    def datePublished(self) -> str | None:
        return schema_date(self.analysis.extraction.date_published)

    @field
    def datePublishedRaw(self) -> str | None:
        return self.analysis.extraction.metadata.dates_raw.get("date_published")

    @field
    def dateModified(self) -> str | None:
        return schema_date(self.analysis.extraction.date_modified)

    @field
    def dateModifiedRaw(self) -> str | None:
        return self.analysis.extraction.metadata.dates_raw.get("date_modified")

    @field
    def inLanguage(self) -> str | None:
        return self.analysis.extraction.language

    @field
    def canonicalUrl(self) -> str | None:
        return self.analysis.extraction.metadata.canonical_url

    @field
    def description(self) -> str | None:
        return self.analysis.extraction.metadata.description

    @field
    def mainImage(self) -> Image | None:
        lead = self.analysis.extraction.metadata.image
        return Image(url=lead) if lead else None

    @field
    def images(self) -> list[Image] | None:
        """The lead image, then the content's images, each once."""
        extraction = self.analysis.extraction
        urls = dict.fromkeys(([extraction.metadata.image] if extraction.metadata.image else []) + extraction.images)
        return [Image(url=url) for url in urls] or None

    @field
    def breadcrumbs(self) -> list[Breadcrumb] | None:
        return _breadcrumbs(self.analysis)

    @field
    def metadata(self) -> ArticleMetadata:
        return ArticleMetadata(dateDownloaded=_now(), probability=_probability(self.analysis))


@handle_urls("", priority=PRIORITY)
@attrs.define
class BoilerplateArticleNavigationPage(ArticleNavigationPage):
    """An ``ArticleNavigation``: the page's links to articles (``items``), to other lists
    (``subCategories``: menus, tags, sections, the pager's other pages, the feeds it announces)
    and its next page, by their roles (core/links/roles.py). A feed's entries are its items."""

    analysis: PageAnalysis

    @field
    def categoryName(self) -> str | None:
        analysis = self.analysis
        if not analysis.is_listing:
            return None
        title = analysis.extraction.title or analysis.page.title
        return _SPACE_RE.sub(" ", title).strip() if title else None

    @field
    def items(self) -> list[ProbabilityRequest]:
        """The links to articles: a listing's teasers; any page's links in its text and related
        posts on its own site; and its navigation links that may lead to a post (``may_be_post``:
        on its site, not a tag, category, archive or date list by its URL). Those are in
        ``subCategories`` too: the templates fetch such a page for both items, and its article
        probability decides whether it is one. (The templates fetch a URL once, for the items of
        its first request: a post first linked as a subcategory alone would never be an item.)"""
        analysis = self.analysis
        if analysis.is_feed:
            return [_request(url, "", FEED_ENTRY_PROBABILITY) for url in analysis.feed_entries.urls]
        listing = analysis.is_listing
        host = url_host(analysis.url)
        requests = []
        for url, role in analysis.roles.items():
            if (listing, role) not in ITEM_PROBABILITY or not followable(url):
                continue
            if not (listing and role == CONTENT) and url_host(url) != host:
                continue  # a citation in an article's text, a menu's link to another site
            if role == NAVIGATION and not analysis.may_be_post(url):
                continue
            requests.append(_request(url, analysis.link_texts.get(url, ""), ITEM_PROBABILITY[listing, role]))
        return requests

    @field
    def subCategories(self) -> list[ProbabilityRequest]:
        """The links to more links on the page's own site: its menus', tags' and sections'
        (NAVIGATION), its pager's other pages, the feeds it announces."""
        analysis = self.analysis
        if analysis.is_feed:
            return []
        host = url_host(analysis.url)
        requests = [_request(url, FEED_REQUEST_NAME, FEED_PROBABILITY) for url in analysis.feeds if followable(url)]
        for url, role in analysis.roles.items():
            if (
                role in SUBCATEGORY_PROBABILITY
                and followable(url)
                and url_host(url) == host
                and url != analysis.next_page
            ):
                requests.append(_request(url, analysis.link_texts.get(url, ""), SUBCATEGORY_PROBABILITY[role]))
        return requests

    @field
    def nextPage(self) -> Request | None:
        """A listing's next page (PageAnalysis.next_page); none on an article (its "next" is the
        next post)."""
        url = self.analysis.next_page
        return Request(url=url, name=self.analysis.link_texts.get(url) or None) if url is not None else None

    @field
    def pageNumber(self) -> int | None:
        """The listing's page number: in its URL (``/page/3/``, ``?page=3``), else 1 when it has a
        next page."""
        analysis = self.analysis
        if not analysis.is_listing:
            return None
        found = PAGE_NUMBER_URL_RE.search(analysis.url)
        if found is not None:
            return int(found.group(1))
        return 1 if analysis.next_page is not None else None


@handle_urls("", priority=PRIORITY)
@attrs.define
class BoilerplateArticleListPage(ArticleListPage):
    """An ``ArticleList``: a listing's teasers (none on a page that is not a listing)."""

    analysis: PageAnalysis

    @field
    def canonicalUrl(self) -> str | None:
        return self.analysis.page.canonical_url

    @field
    def articles(self) -> list[ArticleFromList]:
        analysis = self.analysis
        return [
            ArticleFromList(
                url=teaser.url,
                headline=teaser.headline or None,
                articleBody=teaser.text or None,
                datePublished=schema_date(teaser.date),
                datePublishedRaw=teaser.date_raw,
                metadata=ProbabilityMetadata(
                    probability=ITEM_PROBABILITY[True, CONTENT if teaser.url in analysis.content_urls else NAVIGATION]
                ),
            )
            for teaser in analysis.teasers
            if followable(teaser.url)
        ]

    @field
    def breadcrumbs(self) -> list[Breadcrumb] | None:
        return _breadcrumbs(self.analysis)


def _now() -> str:
    """The download time as zyte-common-items writes it (``dateDownloaded``)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _request(url: str, name: str, probability: float) -> ProbabilityRequest:
    return ProbabilityRequest(url=url, name=name or None, metadata=ProbabilityMetadata(probability=probability))
