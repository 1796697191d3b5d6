"""Extraction: what an extraction gives, its images, Markdown, HTML, blocks and metadata made on
first read."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from .document.page import Page
from .metadata.article import ArticleMetadata, article_metadata
from .render.images import content_images
from .render.markup import MarkupOptions, render_markup
from .render.text import content_units, units_text
from .render.urls import page_base
from .selection.kept import SITE_SELECTOR, STATED_BODY, step_reasons

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .jsondata import JsonObject
    from .links.roles import Link
    from .options import Options
    from .render.text import ContentImage
    from .selection.code_blocks import CodeBlock
    from .selection.kept import Kept
    from .selection.site_rules import RuleSummary
    from .selection.tables import Table

logger = logging.getLogger(__name__)


class ContentSource(NamedTuple):
    """What the images, `markdown` and `html` are made from: the kept blocks, tables and code
    blocks of a page, and the base URL of its links and images."""

    page: Page
    mask: np.ndarray
    tables: list[Table]
    code_blocks: Sequence[CodeBlock]
    base: str | None
    lead: str | None  # the title when it goes first in the Markdown and HTML
    options: MarkupOptions


class BlockSource(NamedTuple):
    """What `blocks` are made from."""

    texts: list[str]
    tags: list[str]
    mask: np.ndarray
    probability: np.ndarray
    history: list[tuple[str, bytes]] | None
    shift: np.ndarray | None


#: What `links` are made from: (page, the kept blocks' mask, the page's URL).
LinkSource = tuple[Page, np.ndarray, "str | None"]


class MetaSource(NamedTuple):
    """What the article metadata is made from (metadata/article.py article_metadata), with the
    extraction's `images`."""

    page: Page
    mask: np.ndarray | None
    title: str | None
    url: str | None
    text: str


@dataclass
class Block:
    text: str
    tag: str
    is_content: bool
    probability: float
    #: The step that decided: "model" (the decoder's Viterbi pass over the model's probabilities),
    #: "body_gap", "data_table", "title_byline"... (selection/steps.py STEPS; the list is in
    #: docs/extraction.md).
    reason: str = ""


@dataclass
class Extraction:
    """The main content of a page; empty strings and lists when nothing was found."""

    text: str = ""
    title: str | None = None
    # Until `images`, `markdown` or `html` is first read: a crawl that stores only the text never
    # pays for them (resolving the images' URLs costs about 1 % of an extraction).
    _content_source: ContentSource | None = field(default=None, repr=False, compare=False)
    _found_images: list[ContentImage] | None = field(default=None, repr=False, compare=False)
    _markup: tuple[str, str] | None = field(default=None, repr=False, compare=False)
    _blocks: list[Block] | None = field(default=None, repr=False, compare=False)
    # Until `blocks` is first read: most callers never read it, and a Block per block of the
    # page costs as much as decoding the page.
    _block_source: BlockSource | None = field(default=None, repr=False, compare=False)
    #: What the site memory did on this page (TemplateEvidence.summary()), when a store was given.
    site_memory: dict[str, str | bool] | None = field(default=None, repr=False, compare=False)
    # What the site selectors did on this page (SiteRule.apply's summary), when a rule applied.
    _site_rule: RuleSummary | None = field(default=None, repr=False, compare=False)
    # Until a metadata field is first read: the article metadata (metadata/article.py) is made
    # then, so a crawl that stores none never pays for it.
    _meta_source: MetaSource | None = field(default=None, repr=False, compare=False)
    _meta: ArticleMetadata | None = field(default=None, repr=False, compare=False)
    # (page, mask, url) until `links` is first read (core/links/roles.py): no cost unless read.
    _link_source: LinkSource | None = field(default=None, repr=False, compare=False)
    _links: list[Link] | None = field(default=None, repr=False, compare=False)

    @property
    def images(self) -> list[str]:
        """The images inside the kept content: absolute http(s) URLs, each once, in page order."""
        return list(dict.fromkeys(url for _, url, _ in self._content_images()))

    def _content_images(self) -> list[ContentImage]:
        if self._found_images is None:
            source = self._content_source
            self._found_images = content_images(source.page, source.mask, source.base) if source else []
        return self._found_images

    @property
    def links(self) -> list[Link]:
        """Every link of the page, ``(url, text, role)``: role one of content, next, navigation,
        related, boilerplate (core/links/roles.py); URLs absolute, as requests normalise them."""
        if self._links is None:
            self._links = _links_of(self._link_source)
            self._link_source = None
        return self._links

    @property
    def metadata(self) -> ArticleMetadata:
        """Authors, dates, language, site name, canonical URL, description and lead image."""
        if self._meta is None:
            self._meta = _metadata_of(self._meta_source, self.images)
            self._meta_source = None
        return self._meta

    @property
    def authors(self) -> list[str]:
        """The article's authors: person names, each once (organisations when it names no person);
        on a forum thread or a Q&A page, the thread's starter (the first post's writer)."""
        return self.metadata.authors

    @property
    def date_published(self) -> str | None:
        """ISO 8601: a date, or a datetime with its offset when the page gives the time."""
        return self.metadata.date_published

    @property
    def date_modified(self) -> str | None:
        """ISO 8601, as date_published: when the page says it was updated."""
        return self.metadata.date_modified

    @property
    def language(self) -> str | None:
        """ISO 639-1, lower case."""
        return self.metadata.language

    @property
    def site_name(self) -> str | None:
        return self.metadata.site_name

    @property
    def canonical_url(self) -> str | None:
        """Absolute http(s)."""
        return self.metadata.canonical_url

    @property
    def description(self) -> str | None:
        return self.metadata.description

    @property
    def image(self) -> str | None:
        """The lead image, absolute http(s)."""
        return self.metadata.image

    @property
    def site_rule(self) -> RuleSummary | None:
        """What the site selectors did on this page, None when none were given:
        ``{"site", "matched", "content": {"selector", "elements", "blocks"} | None,
        "exclude": [{"selector", "elements", "blocks"}...], "forced_out": [block indices]}``
        (block indices into `blocks`; see core/selection/site_rules.py)."""
        return self._site_rule

    @property
    def markdown(self) -> str:
        """The content as Markdown: ## subheadings, numbered and nested lists, pipe tables,
        ``` code, inline code and emphasis; links and images with the options that ask for them."""
        return self._rendered()[0]

    @property
    def html(self) -> str:
        """The content as clean HTML, from a fixed set of tags (h2-h6, p, ul/ol/li, dl, table,
        pre, code, blockquote, em, strong, br; a and img with the options that ask for them)."""
        return self._rendered()[1]

    def _rendered(self) -> tuple[str, str]:
        if self._markup is None:
            self._markup = self._render()
            self._content_source = None  # (the images were found for it)
        return self._markup

    def _render(self) -> tuple[str, str]:
        source = self._content_source
        if source is None:
            return "", ""
        units = content_units(source.page, source.mask, source.tables, self._content_images(), source.code_blocks)
        return render_markup(source.page, units, source.lead, source.options)

    def trim(self, markup: bool = True, metadata: bool = True, images: bool = True) -> Extraction:
        """This extraction, lighter to send to another process: without its blocks, and
        without the Markdown and HTML (`markup` False), the article metadata (`metadata`
        False) or the images (`images` False; the Markdown, HTML and metadata kept still have
        theirs) when the receiver never reads them (pickling would render or make them)."""
        self.blocks = []
        if not markup:
            self._found_images = self._content_images() if images or metadata else []
            self._content_source, self._markup = None, ("", "")
        if not metadata:
            self._meta_source = None
        if self._links is None:
            self._link_source, self._links = None, []  # a crawl reads the roles from the response
        return self

    def __getstate__(self) -> dict[str, object]:
        # The content source holds the parsed tree, which does not pickle: the copy gets the
        # images and the rendered markup instead.
        state = self.__dict__.copy()
        state["_found_images"] = self._content_images()
        if self._markup is None:
            state["_markup"] = self._render()
        state["_content_source"] = None
        state["_meta"], state["_meta_source"] = self.metadata, None
        state["_links"], state["_link_source"] = self.links, None
        return state

    @property
    def blocks(self) -> list[Block]:
        """Every block of the page with its tag, label, probability and the reason of its label."""
        if self._blocks is None:
            self._blocks = []
            if self._block_source is not None:
                texts, tags, mask, proba, history, shift = self._block_source
                reasons = step_reasons(history, shift) if history is not None else [STATED_BODY] * len(texts)
                if self._site_rule is not None and history is not None:
                    _mark_site_rule(reasons, self._site_rule)
                self._blocks = [
                    Block(t, g, m, round(p, 4), r)
                    for t, g, m, p, r in zip(texts, tags, mask.tolist(), proba.tolist(), reasons)
                ]
                self._block_source = None
        return self._blocks

    @blocks.setter
    def blocks(self, value: list[Block]) -> None:
        self._blocks = list(value)
        self._block_source = None

    def _source_page(self) -> Page | None:
        """The walked page this extraction was made from (for the explain page), while the
        extraction still holds it: before its metadata is read."""
        return self._meta_source.page if self._meta_source is not None else None

    def __bool__(self) -> bool:
        return bool(self.text)

    def to_dict(self, include_blocks: bool = False) -> JsonObject:
        out: JsonObject = {
            "title": self.title,
            "text": self.text,
            "markdown": self.markdown,
            "html": self.html,
            "images": list(self.images),
            **self.metadata.to_dict(),
        }
        if include_blocks:
            out["blocks"] = [b.__dict__.copy() for b in self.blocks]
        return out


def _metadata_of(source: MetaSource | None, images: Sequence[str]) -> ArticleMetadata:
    """The article metadata of an extraction's page; empty when there is none, or it failed."""
    if source is None:
        return ArticleMetadata()
    try:
        return article_metadata(*source, images)
    except Exception as exc:  # noqa: BLE001 - the contract: bad input never raises
        logger.warning("metadata extraction failed for %s: %r", source.url or "page", exc)
        return ArticleMetadata()


def _links_of(source: LinkSource | None) -> list[Link]:
    """The roles of the page's links (the overview verdict made now); [] when it failed."""
    if source is None:
        return []
    from .links.roles import page_links
    from .overview.detector import default_detector

    page, mask, url = source
    try:
        verdict = default_detector().detect_page(page, url)
        return page_links(page, url, mask=mask, is_overview=verdict.is_overview)
    except Exception as exc:  # noqa: BLE001 - the contract: bad input never raises
        logger.warning("link roles failed for %s: %r", url or "page", exc)
        return []


def build_extraction(kept: Kept, url: str | None, options: Options) -> Extraction:
    """The extraction of the blocks a selection kept (`kept`) of its page."""
    page, mask, title = kept.page, kept.mask, kept.title
    lead = title if options.include_title and title else None
    if lead and mask.any() and page.texts[int(np.flatnonzero(mask)[0])] == title:
        lead = None  # the title is the first kept block already
    base = page_base(url or page.base_url, page.base_href)
    # (the text has no images: its units are made without them)
    lines = units_text(page, content_units(page, mask, kept.tables, [], kept.code_blocks))
    markup = MarkupOptions(include_links=options.include_links, include_images=options.include_images, base=base)
    # In NFC without soft hyphens: the blocks (hence table rows, a stated body) as the walk
    # made them, the title as best_title made it.
    text = "\n".join([lead, *lines] if lead else lines)
    return Extraction(
        text=text,
        title=title,
        _content_source=ContentSource(page, mask, kept.tables, kept.code_blocks, base, lead, markup),
        _block_source=BlockSource(page.texts, page.tags, mask, kept.probability, kept.history, kept.shift),
        _site_rule=kept.site_rule,
        _meta_source=MetaSource(page, mask, title, url, text),
        _link_source=(page, mask, url),
    )


def empty_extraction(page: Page, title: str | None, url: str | None) -> Extraction:
    """The extraction of a page without blocks: its title, and its metadata when read."""
    return Extraction(title=title, _meta_source=MetaSource(page, None, title, url, ""))


def _mark_site_rule(reasons: list[str], rule: RuleSummary) -> None:
    """A site rule's blocks: the ones it did not allow, whatever decided them (the ones whose
    decision it changed after the steps have its reason from the selection's history)."""
    for i in rule.get("forced_out", ()):
        reasons[i] = SITE_SELECTOR
