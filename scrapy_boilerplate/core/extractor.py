"""Extractor -> Extraction: the public face of the core, and its stages in order.

1. document/: parse the input (to_element) and walk the tree once (build_page) -> Page;
2. scoring/: the blocks' probabilities (features and the model; CETR clusters without one);
3. site_memory/: with a store, the site's template evidence moves them;
4. metadata/title.py: the headline; selection/: the decoder, then the selection steps
   (selection/steps.py, in order) -> the kept blocks;
5. render/ (extraction.py): the text now; Markdown, HTML and the article metadata when first read.

Two fallbacks redo 4-5: a page that is a thread is walked again with its comment sections,
and a client-rendered page whose markup holds next to nothing gets the body its JSON-LD states.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .document.page import Page, build_page
from .document.parse import to_element, to_element_type_error
from .extraction import Extraction, build_extraction
from .metadata.article import declares_thread
from .metadata.title import best_title
from .scoring.clusters import cluster_probabilities
from .scoring.decode import FAVOR_SHIFT
from .scoring.features import dense_feature_names, feature_matrix
from .scoring.model import Model, ModelError, load_model
from .selection.site_rules import SiteRule, SiteRules, make_rule, plain_text_blocks
from .selection.stated_body import BODY_FALLBACK_SHARE, body_page, stated_body
from .selection.steps import select
from .selection.tables import find_data_tables

if TYPE_CHECKING:
    import os
    from collections.abc import Iterable, Mapping

    from .site_memory.templates import TemplateEvidence, TemplateStore

logger = logging.getLogger(__name__)


#: An extraction shorter than this, on a page whose comment sections hold most of its text,
#: is made again with the comment sections walked (forum threads, posts marked up as comments).
THREAD_FALLBACK_CHARS = 500


class Extractor:
    """Holds a loaded model and options; `extract()` is safe to call from several threads.

    ``model``: a :class:`Model`, a path to a JSON model file, ``None`` for the
    shipped default, or ``False`` for the model-free CETR clustering mode.
    ``templates``: a site-memory store used by every call that does not name one.
    ``content_selector`` / ``exclude_selectors``: CSS selectors of where the content is and of
    what is never content (selection/site_rules.py), for every call that does not name its own.
    ``site_rules``: such selectors by host, ``{"example.com": {"content": ..., "exclude": [...]}}``,
    used for the URLs of that host and its subdomains when a call gives no selectors.
    A bad selector raises ValueError naming it.
    """

    def __init__(self, model: Model | str | os.PathLike[str] | Literal[False] | None = None, *,
                 include_title: bool = False, include_captions: bool = False,
                 include_comments: bool = False, include_links: bool = False,
                 include_images: bool = False, favor: str = "balanced",
                 templates: TemplateStore | None = None, content_selector: str | None = None,
                 exclude_selectors: Iterable[str] | None = None,
                 site_rules: Mapping[str, Any] | None = None) -> None:
        if favor not in FAVOR_SHIFT:
            raise ValueError(f"favor must be one of {sorted(FAVOR_SHIFT)}, not {favor!r}")
        self.options = {"include_title": include_title, "include_captions": include_captions,
                        "include_comments": include_comments, "include_links": include_links,
                        "include_images": include_images, "favor": favor,
                        "content_selector": content_selector, "exclude_selectors": exclude_selectors}
        # Checked now: a bad selector is the caller's mistake, not a page's.
        self.rule = make_rule(content_selector, exclude_selectors)
        self.site_rules = SiteRules(site_rules) if site_rules else None
        self.model = self._load(model)
        self.templates = templates

    @staticmethod
    def _load(model: Model | str | os.PathLike[str] | Literal[False] | None) -> Model | None:
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
            from .overview.detector import is_overview_model

            if is_overview_model(loaded):
                raise ModelError("this is an overview model (for 'overview --model' and "
                                 "BOILERPLATE_OVERVIEW_MODEL), not a block model: give a block model "
                                 "made by 'scrapy-boilerplate train', or none for the shipped one")
            raise ModelError("the model was trained with another feature set; retrain it with "
                             "'scrapy-boilerplate train'")
        return loaded

    def extract(self, html: Any, url: str | None = None, *, templates: TemplateStore | None = None,
                **options: Any) -> Extraction:
        """Main content of `html` (str, bytes, parsel Selector or lxml element). Never raises on str/bytes.

        `templates`: a site-memory store (`MemoryTemplateStore`, `RedisTemplateStore`): its
        evidence for the URL's site is used, and the page is recorded into it.
        `content_selector`, `exclude_selectors`: as on `Extractor`, for this call.
        """
        opts = self._options(options)
        rule = self._rule(opts, url)
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
            return self._extract_page(page, url, opts, templates, rule)
        except Exception as exc:   # noqa: BLE001 - the contract: bad input never raises
            logger.warning("extraction failed for %s: %r", url or "page", exc,
                           exc_info=logger.isEnabledFor(logging.DEBUG))
            return Extraction()

    def extract_page(self, page: Page, url: str | None = None, *, templates: TemplateStore | None = None,
                     **options: Any) -> Extraction:
        """Main content of an already walked page (`core.document.page.build_page`).

        Lets a caller that walked the tree once for overview detection reuse
        the walk. The page must have been built with the same
        `include_comments` setting as this extraction uses.
        """
        opts = self._options(options)
        rule = self._rule(opts, url)
        try:
            return self._extract_page(page, url, opts, templates, rule)
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

    def _rule(self, opts: dict, url: str | None) -> SiteRule | None:
        """The selectors of this call: its own, else the constructor's, else the URL's site rule."""
        content, exclude = opts["content_selector"], opts["exclude_selectors"]
        if content is self.options["content_selector"] and exclude is self.options["exclude_selectors"]:
            rule = self.rule
        else:
            rule = make_rule(content, exclude)
        if rule is None and self.site_rules is not None:
            return self.site_rules.for_url(url)
        return rule

    def block_probabilities(self, page: Page) -> np.ndarray:
        if self.model is None:
            return cluster_probabilities(page)
        X = feature_matrix(page, self.model.token_index)
        return self.model.predict_proba(X)

    def _extract_page(self, page: Page, url: str | None, opts: dict,
                      templates: TemplateStore | None = None, rule: SiteRule | None = None) -> Extraction:
        store = self.templates if templates is None else templates
        if store is None or not len(page):
            return self._page_result(page, url, opts, None, rule=rule)
        # Site memory (site_memory/templates.py): the model's probabilities first, so that the store
        # records where the content is; then the site's evidence moves them.
        proba = self.block_probabilities(page)
        evidence = _template_evidence(store, page, url, proba)
        result = self._page_result(page, url, opts, evidence, proba, rule)
        if evidence is not None:
            result._site_memory = evidence.summary()
        return result

    def _page_result(self, page: Page, url: str | None, opts: dict, evidence: TemplateEvidence | None,
                     proba: np.ndarray | None = None, rule: SiteRule | None = None) -> Extraction:
        result = self._select(page, url, opts, evidence, proba, rule)
        if (not opts["include_comments"] and page.root is not None
                and (len(result.text) < THREAD_FALLBACK_CHARS or declares_thread(page))):
            # Next to nothing outside comment sections, or a page that says it is a thread:
            # on a forum thread or a page of reader posts, the "comments" are the content.
            # Walked again with them, and kept if the model then finds more (comment sections
            # are not forced in).
            full = build_page(page.root, include_comments=True, base_url=page.base_url)
            if sum(full.chars) >= 2 * sum(page.chars):
                candidate = self._select(full, url, opts, evidence, rule=rule)
                if len(candidate.text) > len(result.text):
                    result = candidate
        if result._site_rule is not None and result._site_rule["matched"]:
            return result   # the rule says where the content is in the markup: no stated body
        body = stated_body(page)
        if body is not None and len(result.text) < BODY_FALLBACK_SHARE * len(body):
            # Next to nothing found in the markup of a page that states its body in JSON-LD
            # (a client-rendered page): the stated body is the content.
            stated = body_page(body, page)
            if stated is not None:
                mask = stated.array("chars") > 0
                candidate = build_extraction(stated, mask, mask.astype(float), find_data_tables(stated),
                                             result.title, url, opts)
                if len(candidate.text) > len(result.text):
                    if result._site_rule is not None:   # a rule that matched nothing here
                        candidate._site_rule = {**result._site_rule, "forced_out": []}
                    return candidate
        return result

    def _select(self, page: Page, url: str | None, opts: dict, evidence: TemplateEvidence | None = None,
                proba: np.ndarray | None = None, rule: SiteRule | None = None) -> Extraction:
        title = best_title(page)
        if not len(page):
            return Extraction(title=title, _meta_source=(page, None, title, url, "", ()))
        if proba is None:
            proba = self.block_probabilities(page)
        shift = None
        if evidence is not None:
            # Site memory (site_memory/templates.py): blocks repeated across the site's pages.
            adjusted = evidence.adjust(page, proba)
            if adjusted is not proba:
                shift, proba = adjusted - proba, adjusted
        params = self.model.decode if self.model is not None else None
        if rule is None:
            kept = select(page, proba, params, opts, title)
            return build_extraction(page, kept.mask, proba, kept.tables, title, url, opts, kept.code_blocks,
                                    kept.history, shift)
        # Site selectors (selection/site_rules.py): the blocks outside the content or inside an
        # excluded element are out before the decoder (which then cleans inside the content) and
        # after the steps (which may add whole tables or sections back).
        allowed, summary = rule.apply(page)
        if allowed is None:
            kept = select(page, proba, params, opts, title)
        else:
            kept = select(page, np.where(allowed, proba, 0.0), params, opts, title)
            kept.mask &= allowed
            if not kept.mask.any() and summary["content"] and summary["content"]["blocks"]:
                # The model keeps nothing where the caller says the content is: the caller wins.
                kept.mask = plain_text_blocks(page, allowed)
        result = build_extraction(page, kept.mask, proba, kept.tables, title, url, opts, kept.code_blocks,
                                  kept.history, shift)
        result._site_rule = summary
        return result


def _template_evidence(templates: TemplateStore, page: Page, url: str | None,
                       proba: np.ndarray) -> TemplateEvidence | None:
    """The site memory's evidence for `page` (recording it), or None: no store, or it failed."""
    try:
        return templates.evidence(page, url, proba)
    except Exception as exc:   # noqa: BLE001 - a store's failure must not cost the page
        logger.warning("template store failed for %s: %r", url or "page", exc)
        from .site_memory.templates import TemplateEvidence, site_key

        site = site_key(url or page.base_url)
        return TemplateEvidence(site, 0, None) if site is not None else None


_default_lock = threading.Lock()
_default: Extractor | None = None


def default_extractor() -> Extractor:
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Extractor()
    return _default


def extract(html: Any, url: str | None = None, *, templates: TemplateStore | None = None,
            **options: Any) -> Extraction:
    """Main content of a page with the shared default extractor (see `Extractor`)."""
    return default_extractor().extract(html, url=url, templates=templates, **options)
