"""Extractor -> Extraction: the public face of the core."""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass, field

import numpy as np

from .article_meta import ArticleMetadata, article_metadata, declares_thread
from .cards import keep_card_groups
from .decode import FAVOR_SHIFT
from .features import dense_feature_names, feature_matrix
from .jsonld_body import BODY_FALLBACK_SHARE, body_page, stated_body
from .model import Model, ModelError, load_model
from .page import Page, build_page
from .parse import to_element, to_element_type_error
from .render import Options, content_units, render_markup, units_text
from .selection import (drop_field_dumps, drop_renderings, drop_trailing_teasers, find_code_blocks,
                        keep_listing_captions, select_blocks)
from .tables import decide_tables, find_data_tables
from .unsupervised import cluster_probabilities
from .urls import page_base, safe_url
from .widgets import keep_text_widget_runs

logger = logging.getLogger(__name__)

# "By Jane Doe", "Von Max Muster · 3. März": a byline word, then capitalised names, then the end
# or a separator (a date may follow). "By contrast, ..." or "By 2030 ..." are not bylines.
BYLINE_RE = re.compile(
    r"^(?i:by|von|par|por|di|door|av|af|przez|od)\s+(?:[A-ZÀ-ÖØ-Þ][\w'’.-]*\s*){1,4}"
    r"(?:$|[·|•,–—/-]|\band\b|\bund\b|\bet\b|\by\b)"
)
#: An extraction shorter than this, on a page whose comment sections hold most of its text,
#: is made again with the comment sections walked (forum threads, posts marked up as comments).
THREAD_FALLBACK_CHARS = 500
#: Between the headline and the site's name in a <title> or og:title.
TITLE_SEPARATORS_RE = re.compile(r" [|\-–—·:]{1,2} ")


@dataclass
class Block:
    text: str
    tag: str
    is_content: bool
    probability: float


@dataclass
class Extraction:
    """The main content of a page; empty strings and lists when nothing was found."""

    text: str = ""
    title: str | None = None
    images: list = field(default_factory=list)
    # (page, kept units, the title when it goes first, options) until `markdown` or `html` is
    # first read: a crawl that stores only the text never pays for them.
    _markup_source: tuple | None = field(default=None, repr=False, compare=False)
    _markup: tuple | None = field(default=None, repr=False, compare=False)
    _blocks: list | None = field(default=None, repr=False, compare=False)
    # (texts, tags, mask, probabilities) until `blocks` is first read: most callers never
    # read it, and a Block per block of the page costs as much as decoding the page.
    _block_source: tuple | None = field(default=None, repr=False, compare=False)
    # What the site memory did on this page (TemplateEvidence.summary()), when a store was given.
    _site_memory: dict | None = field(default=None, repr=False, compare=False)
    # (page, mask, title, url, text, images) until a metadata field is first read: the article
    # metadata (article_meta.py) is made then, so a crawl that stores none never pays for it.
    _meta_source: tuple | None = field(default=None, repr=False, compare=False)
    _meta: ArticleMetadata | None = field(default=None, repr=False, compare=False)

    @property
    def metadata(self) -> ArticleMetadata:
        """Authors, dates, language, site name, canonical URL, description and lead image."""
        if self._meta is None:
            self._meta = _metadata_of(self._meta_source)
            self._meta_source = None
        return self._meta

    @property
    def authors(self) -> list:
        """The article's authors: person names, each once (organisations when it names no person)."""
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
    def markdown(self) -> str:
        """The content as Markdown: ## subheadings, numbered and nested lists, pipe tables,
        ``` code, inline code and emphasis; links and images with the options that ask for them."""
        return self._rendered()[0]

    @property
    def html(self) -> str:
        """The content as clean HTML, from a fixed set of tags (h2-h6, p, ul/ol/li, dl, table,
        pre, code, blockquote, em, strong, br; a and img with the options that ask for them)."""
        return self._rendered()[1]

    def _rendered(self) -> tuple:
        if self._markup is None:
            self._markup = render_markup(*self._markup_source) if self._markup_source else ("", "")
            self._markup_source = None
        return self._markup

    def __getstate__(self) -> dict:
        # The markup source holds the parsed tree, which does not pickle: the copy gets the
        # rendered markup instead.
        state = self.__dict__.copy()
        if self._markup is None and self._markup_source is not None:
            state["_markup"] = render_markup(*self._markup_source)
        state["_markup_source"] = None
        state["_meta"], state["_meta_source"] = self.metadata, None
        return state

    @property
    def blocks(self) -> list:
        """Every block of the page with its tag, label and probability (for debugging)."""
        if self._blocks is None:
            self._blocks = []
            if self._block_source is not None:
                texts, tags, mask, proba = self._block_source
                self._blocks = [Block(t, g, m, round(p, 4)) for t, g, m, p in
                                zip(texts, tags, mask.tolist(), proba.tolist())]
                self._block_source = None
        return self._blocks

    @blocks.setter
    def blocks(self, value: list) -> None:
        self._blocks = list(value)
        self._block_source = None

    def __bool__(self) -> bool:
        return bool(self.text)

    def to_dict(self, include_blocks: bool = False) -> dict:
        out = {"title": self.title, "text": self.text, "markdown": self.markdown,
               "html": self.html, "images": list(self.images), **self.metadata.to_dict()}
        if include_blocks:
            out["blocks"] = [b.__dict__.copy() for b in self.blocks]
        return out


class Extractor:
    """Holds a loaded model and options; `extract()` is safe to call from several threads.

    ``model``: a :class:`Model`, a path to a JSON model file, ``None`` for the
    shipped default, or ``False`` for the model-free CETR clustering mode.
    ``templates``: a site-memory store used by every call that does not name one.
    """

    def __init__(self, model=None, *, include_title: bool = False, include_captions: bool = False,
                 include_comments: bool = False, include_links: bool = False,
                 include_images: bool = False, favor: str = "balanced", templates=None):
        if favor not in FAVOR_SHIFT:
            raise ValueError(f"favor must be one of {sorted(FAVOR_SHIFT)}, not {favor!r}")
        self.options = {"include_title": include_title, "include_captions": include_captions,
                        "include_comments": include_comments, "include_links": include_links,
                        "include_images": include_images, "favor": favor}
        self.model = self._load(model)
        self.templates = templates

    @staticmethod
    def _load(model) -> Model | None:
        if model is False:
            return None
        if isinstance(model, Model):
            loaded = model
        else:
            try:
                loaded = load_model(model)
            except (OSError, ModelError) as exc:
                if model is not None:
                    raise
                logger.warning("cannot load the default model (%s); using model-free extraction", exc)
                return None
        dense = dense_feature_names()
        if loaded.feature_names[:len(dense)] != dense:
            from .overview import is_overview_model

            if is_overview_model(loaded):
                raise ModelError("this is an overview model (for 'overview --model' and "
                                 "BOILERPLATE_OVERVIEW_MODEL), not a block model: give a block model "
                                 "made by 'scrapy-boilerplate train', or none for the shipped one")
            raise ModelError("the model was trained with another feature set; retrain it with "
                             "'scrapy-boilerplate train'")
        return loaded

    def extract(self, html, url: str | None = None, *, templates=None, **options) -> Extraction:
        """Main content of `html` (str, bytes, parsel Selector or lxml element). Never raises on str/bytes.

        `templates`: a site-memory store (`MemoryTemplateStore`, `RedisTemplateStore`): its
        evidence for the URL's site is used, and the page is recorded into it.
        """
        opts = self._options(options)
        if not isinstance(html, str | bytes | bytearray | memoryview) and to_element_type_error(html):
            raise TypeError(f"extract() takes str, bytes, a parsel Selector or an lxml element, "
                            f"not {type(html).__name__}")
        try:
            root = to_element(html)
        except Exception:   # noqa: BLE001 - bad input must give an empty result, not a crash
            logger.debug("cannot parse input for %s", url, exc_info=True)
            return Extraction()
        try:
            page = build_page(root, include_comments=opts["include_comments"], base_url=url)
            return self._extract_page(page, url, opts, templates)
        except Exception as exc:   # noqa: BLE001 - the contract: bad input never raises
            logger.warning("extraction failed for %s: %r", url or "page", exc, exc_info=logger.isEnabledFor(logging.DEBUG))
            return Extraction()

    def extract_page(self, page: Page, url: str | None = None, *, templates=None,
                     **options) -> Extraction:
        """Main content of an already walked page (`core.page.build_page`).

        Lets a caller that walked the tree once for overview detection reuse
        the walk. The page must have been built with the same
        `include_comments` setting as this extraction uses.
        """
        opts = self._options(options)
        try:
            return self._extract_page(page, url, opts, templates)
        except Exception as exc:   # noqa: BLE001 - same contract as extract()
            logger.warning("extraction failed for %s: %r", url or "page", exc)
            return Extraction()

    def _options(self, options: dict) -> dict:
        opts = {**self.options, **options}
        unknown = set(opts) - set(self.options)
        if unknown:
            raise TypeError(f"unknown option(s): {', '.join(sorted(unknown))}")
        if opts["favor"] not in FAVOR_SHIFT:
            raise ValueError(f"favor must be one of {sorted(FAVOR_SHIFT)}, not {opts['favor']!r}")
        return opts

    def block_probabilities(self, page: Page) -> np.ndarray:
        if self.model is None:
            return cluster_probabilities(page)
        X = feature_matrix(page, self.model.token_index)
        return self.model.predict_proba(X)

    def _extract_page(self, page: Page, url, opts, templates=None) -> Extraction:
        store = self.templates if templates is None else templates
        if store is None or not len(page):
            return self._page_result(page, url, opts, None)
        # Site memory (core/templates.py): the model's probabilities first, so that the store
        # records where the content is; then the site's evidence moves them.
        proba = self.block_probabilities(page)
        evidence = _template_evidence(store, page, url, proba)
        result = self._page_result(page, url, opts, evidence, proba)
        if evidence is not None:
            result._site_memory = evidence.summary()
        return result

    def _page_result(self, page: Page, url, opts, evidence, proba=None) -> Extraction:
        result = self._select(page, url, opts, evidence, proba)
        if (not opts["include_comments"] and page.root is not None
                and (len(result.text) < THREAD_FALLBACK_CHARS or declares_thread(page))):
            # Next to nothing outside comment sections, or a page that says it is a thread:
            # on a forum thread or a page of reader posts, the "comments" are the content.
            # Walked again with them, and kept if the model then finds more (comment sections
            # are not forced in).
            full = build_page(page.root, include_comments=True, base_url=page.base_url)
            if sum(full.chars) >= 2 * sum(page.chars):
                candidate = self._select(full, url, opts, evidence)
                if len(candidate.text) > len(result.text):
                    result = candidate
        body = stated_body(page)
        if body is not None and len(result.text) < BODY_FALLBACK_SHARE * len(body):
            # Next to nothing found in the markup of a page that states its body in JSON-LD
            # (a client-rendered page): the stated body is the content.
            stated = body_page(body, page)
            if stated is not None:
                mask = stated.array("chars") > 0
                candidate = _render(stated, mask, mask.astype(float), find_data_tables(stated),
                                    result.title, url, opts)
                if len(candidate.text) > len(result.text):
                    return candidate
        return result

    def _select(self, page: Page, url, opts, evidence=None, proba=None) -> Extraction:
        title = _best_title(page)
        if not len(page):
            return Extraction(title=title, _meta_source=(page, None, title, url, "", ()))
        if proba is None:
            proba = self.block_probabilities(page)
        if evidence is not None:
            # Site memory (core/templates.py): blocks repeated across the site's pages.
            proba = evidence.adjust(page, proba)
        params = self.model.decode if self.model is not None else None
        tables = find_data_tables(page)
        mask = select_blocks(page, proba, params, opts, tables)
        if opts.get("favor") != "precision":
            # Like the decoder's closing-line and mid-body rules, a rule for recall.
            keep_text_widget_runs(page, mask, proba)
        # The headline is not main content (it is `title`; include_title puts it first),
        # and neither is a byline ("By Jane Doe · 2 March 2026"): no gold set keeps them.
        for i in np.flatnonzero(mask):
            if page.tags[i] == "h1" and page.texts[i] in (title, page.main_title):
                mask[i] = False
            elif page.chars[i] < 80 and BYLINE_RE.match(page.texts[i]):
                mask[i] = False
        drop_renderings(page, mask)
        drop_field_dumps(page, mask)
        # Cards first: a related-posts run after an article must not come back as a card group.
        keep_card_groups(page, mask)
        drop_trailing_teasers(page, mask)
        decide_tables(tables, mask, proba, page)
        # A code block whose highlighter puts each line in a <div> is many short blocks that
        # the model drops one by one, like table cells: one decision, as for a table.
        code_blocks = find_code_blocks(page, tables)
        decide_tables(code_blocks, mask, proba, page)
        if not opts.get("include_captions"):
            keep_listing_captions(page, mask)
        return _render(page, mask, proba, tables, title, url, opts, code_blocks)


def _metadata_of(source: tuple | None) -> ArticleMetadata:
    """The article metadata of an extraction's page; empty when there is none, or it failed."""
    if source is None:
        return ArticleMetadata()
    try:
        return article_metadata(*source)
    except Exception as exc:   # noqa: BLE001 - the contract: bad input never raises
        logger.warning("metadata extraction failed for %s: %r", source[3] or "page", exc)
        return ArticleMetadata()


def _template_evidence(templates, page: Page, url, proba):
    """The site memory's evidence for `page` (recording it), or None: no store, or it failed."""
    try:
        return templates.evidence(page, url, proba)
    except Exception as exc:   # noqa: BLE001 - a store's failure must not cost the page
        logger.warning("template store failed for %s: %r", url or "page", exc)
        from .templates import TemplateEvidence, site_key

        site = site_key(url or page.base_url)
        return TemplateEvidence(site, 0, None) if site is not None else None


def _best_title(page: Page) -> str | None:
    """The page headline: an h1 matching the metadata title, else the metadata title."""
    meta = page.main_title
    meta_words = set(meta.lower().split()) if meta else set()
    # The <title> as well: a JSON-LD "headline" can be a description (Wikipedia's is
    # "constitutional monarchy in Oceania" for "New Zealand").
    title_words = set(page.title.lower().split()) if page.title and page.title != meta else set()
    # The site's name: what follows the headline in a "Headline | Site" title, or og:site_name.
    site_names = {part.strip().lower() for part in TITLE_SEPARATORS_RE.split(meta)[1:]} if meta else set()
    if page.og.get("site_name"):
        site_names.add(page.og["site_name"].lower())
    for text, tag in zip(page.texts, page.tags):
        # An h1 without a letter is a counter or a score (a vote count in an h1), not a headline;
        # an h1 that holds the site's name is its logo.
        if (tag == "h1" and len(text) < 300 and any(ch.isalpha() for ch in text)
                and text.lower() not in site_names):
            words = set(text.lower().split())
            if not meta_words or len(words & meta_words) >= 0.5 * len(words):
                return text
            if meta is page.jsonld.get("headline") and len(words & title_words) >= 0.5 * len(words):
                return text
    if meta:
        # "Headline | Site name": keep the headline part.
        for sep in (" | ", " - ", " – ", " — ", " :: "):
            if sep in meta:
                head = meta.split(sep)[0].strip()
                if len(head) > 15:
                    return head
    return meta


def _render(page: Page, mask, proba, tables, title, url, opts, code_blocks=()) -> Extraction:
    lead = title if opts["include_title"] and title else None
    if lead and mask.any() and page.texts[int(np.flatnonzero(mask)[0])] == title:
        lead = None   # the title is the first kept block already
    base = page_base(url or page.base_url, page.base_href)
    images = _content_images(page, mask, base)
    units = content_units(page, mask, tables, images, code_blocks)
    lines = units_text(page, units)
    options = Options(include_links=opts["include_links"], include_images=opts["include_images"], base=base)
    text = "\n".join([lead, *lines] if lead else lines)
    image_urls = list(dict.fromkeys(url for _, url, _ in images))
    return Extraction(
        text=text,
        title=title,
        images=image_urls,
        _markup_source=(page, units, lead, options),
        _block_source=(page.texts, page.tags, mask, proba),
        _meta_source=(page, mask, title, url, text, image_urls),
    )


def _content_images(page: Page, mask, base: str | None) -> list[tuple[int, str, str]]:
    """(block index, absolute http(s) URL, alt) of the images inside the kept content (from
    the first to the last kept block), each URL once."""
    if not mask.any() or not page.images:
        return []
    first, last = np.flatnonzero(mask)[[0, -1]]
    n = len(mask)
    seen, out = set(), []
    for index, src, alt, width, height in page.images:
        if not (first <= index <= last + 1):
            continue
        # Inside the content span, unless it sits in a link block that is not content
        # (a teaser thumbnail between two parts of the body).
        in_teaser = index < n and not mask[index] and page.link_chars[index] >= 0.8 * page.chars[index]
        if in_teaser or _tiny(width) or _tiny(height):
            continue
        absolute = safe_url(src, base)
        if absolute is not None and absolute not in seen:
            seen.add(absolute)
            out.append((index, absolute, alt))
    return out


def _tiny(value) -> bool:
    try:
        return value is not None and float(str(value).rstrip("px")) <= 2
    except ValueError:
        return False


_default_lock = threading.Lock()
_default: Extractor | None = None


def default_extractor() -> Extractor:
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Extractor()
    return _default


def extract(html, url: str | None = None, *, templates=None, **options) -> Extraction:
    """Main content of a page with the shared default extractor (see `Extractor`)."""
    return default_extractor().extract(html, url=url, templates=templates, **options)
