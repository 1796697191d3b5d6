"""Extractor -> Extraction: the public face of the core, and its stages in order.

1. document/: parse the input (to_element) and walk the tree once (build_page) -> Page;
2. scoring/: the blocks' probabilities (features and the model; CETR clusters without one);
3. site_memory/: with a store, the site's template evidence moves them;
4. metadata/title.py: the headline; selection/: `select` runs the one ordered list of what
   decides a block, selection/steps.py STEPS: the site memory's and the site rules' moves of the
   probabilities, the decoder's steps, the steps that correct one kind of mistake each, the site
   rules' last word and the two fallbacks (a thread walked again with its comment sections, the
   body a page states in its JSON-LD) -> the kept blocks;
5. render/ (extraction.py): the text now; Markdown, HTML and the article metadata when first read.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .document.page import Page, build_page
from .document.parse import to_element, to_element_type_error
from .extraction import Extraction as Extraction  # re-exported: scrapy_boilerplate.core.extractor.Extraction
from .metadata.title import best_title
from .options import Favor, Options, selector_tuple
from .scoring.clusters import cluster_probabilities
from .scoring.features import dense_columns, feature_matrix
from .scoring.model import Model, ModelError, load_model
from .selection.site_rules import SiteRule, SiteRules, make_rule
from .selection.steps import select

if TYPE_CHECKING:
    import os
    from collections.abc import Iterable, Mapping

    from typing_extensions import Unpack

    from .options import OptionArgs
    from .site_memory.templates import TemplateEvidence, TemplateStore

logger = logging.getLogger(__name__)


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

    def __init__(
        self,
        model: Model | str | os.PathLike[str] | Literal[False] | None = None,
        *,
        include_title: bool = False,
        include_captions: bool = False,
        include_comments: bool = False,
        include_links: bool = False,
        include_images: bool = False,
        favor: Favor = "balanced",
        templates: TemplateStore | None = None,
        content_selector: str | None = None,
        exclude_selectors: Iterable[str] | None = None,
        site_rules: Mapping[str, Any] | None = None,
    ) -> None:
        self.options = Options(
            include_title=include_title,
            include_captions=include_captions,
            include_comments=include_comments,
            include_links=include_links,
            include_images=include_images,
            favor=favor,
            content_selector=content_selector,
            exclude_selectors=selector_tuple(exclude_selectors),
        )
        # Checked now: a bad selector is the caller's mistake, not a page's.
        self.rule = make_rule(self.options.content_selector, self.options.exclude_selectors)
        self.site_rules = SiteRules(site_rules) if site_rules else None
        self.model = self._load(model)
        # the dense columns the model was trained on (None: all, in order)
        self._columns = dense_columns(self.model.feature_names) if self.model is not None else None
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
        try:
            # a model names the dense columns it was trained on: all of today's, or the ones
            # there were when it was trained (columns are only ever appended)
            dense_columns(loaded.feature_names)
        except ValueError as exc:
            from .overview.detector import is_overview_model

            if is_overview_model(loaded):
                raise ModelError(
                    "this is an overview model (for 'overview --model' and "
                    "BOILERPLATE_OVERVIEW_MODEL), not a block model: give a block model "
                    "made by 'scrapy-boilerplate train', or none for the shipped one"
                ) from None
            raise ModelError(
                f"the model was trained with another feature set ({exc}); retrain it with 'scrapy-boilerplate train'"
            ) from None
        return loaded

    def extract(
        self,
        html: Any,
        url: str | None = None,
        *,
        templates: TemplateStore | None = None,
        **options: Unpack[OptionArgs],
    ) -> Extraction:
        """Main content of `html` (str, bytes, parsel Selector or lxml element). Never raises on str/bytes.

        `templates`: a site-memory store (`MemoryTemplateStore`, `RedisTemplateStore`): its
        evidence for the URL's site is used, and the page is recorded into it.
        `content_selector`, `exclude_selectors`: as on `Extractor`, for this call.
        """
        opts = self.options.replace(options)
        rule = self._rule(opts, url)
        if not isinstance(html, str | bytes | bytearray | memoryview) and to_element_type_error(html):
            raise TypeError(
                f"extract() takes str, bytes, a parsel Selector or an lxml element, not {type(html).__name__}"
            )
        try:
            root = to_element(html)
        except Exception:  # bad input must give an empty result, not a crash
            logger.debug("cannot parse input for %s", url, exc_info=True)
            return Extraction()
        try:
            page = build_page(root, include_comments=opts.include_comments, base_url=url)
            return self._extract_page(page, url, opts, templates, rule)
        except Exception as exc:  # the contract: bad input never raises
            logger.warning(
                "extraction failed for %s: %r", url or "page", exc, exc_info=logger.isEnabledFor(logging.DEBUG)
            )
            return Extraction()

    def extract_page(
        self,
        page: Page,
        url: str | None = None,
        *,
        templates: TemplateStore | None = None,
        **options: Unpack[OptionArgs],
    ) -> Extraction:
        """Main content of an already walked page (`core.document.page.build_page`).

        Lets a caller that walked the tree once for overview detection reuse
        the walk. A page walked without its comment sections (as overview
        detection walks it) is walked again when this extraction keeps them.
        """
        opts = self.options.replace(options)
        rule = self._rule(opts, url)
        try:
            if opts.include_comments and not page.include_comments and page.root is not None:
                page = build_page(page.root, include_comments=True, base_url=url)
            return self._extract_page(page, url, opts, templates, rule)
        except Exception as exc:  # noqa: BLE001 - same contract as extract()
            logger.warning("extraction failed for %s: %r", url or "page", exc)
            return Extraction()

    def _rule(self, opts: Options, url: str | None) -> SiteRule | None:
        """The selectors of this call: its own, else the constructor's, else the URL's site rule."""
        content, exclude = opts.content_selector, opts.exclude_selectors
        if content == self.options.content_selector and exclude == self.options.exclude_selectors:
            rule = self.rule
        else:
            rule = make_rule(content, exclude)
        if rule is None and self.site_rules is not None:
            return self.site_rules.for_url(url)
        return rule

    def block_probabilities(self, page: Page) -> np.ndarray:
        if self.model is None:
            return cluster_probabilities(page)
        X = feature_matrix(page, self.model.token_index, self._columns)
        proba: np.ndarray = self.model.predict_proba(X, page)
        return proba

    def _extract_page(
        self,
        page: Page,
        url: str | None,
        opts: Options,
        templates: TemplateStore | None = None,
        rule: SiteRule | None = None,
    ) -> Extraction:
        store = self.templates if templates is None else templates
        proba = self.block_probabilities(page) if len(page) else np.zeros(0)
        evidence = None
        if store is not None and len(page):
            # Site memory (site_memory/templates.py): the model's probabilities first, so that the
            # store records where the content is; then the site's evidence moves them (a step).
            evidence = _template_evidence(store, page, url, proba)
        params = self.model.decode if self.model is not None else None
        title = best_title(page)
        s = select(
            page, proba, params, opts, title, evidence=evidence, rule=rule, url=url, score=self.block_probabilities
        )
        result = s.extraction()
        if evidence is not None:
            result.site_memory = evidence.summary()
        return result


def _template_evidence(
    templates: TemplateStore, page: Page, url: str | None, proba: np.ndarray
) -> TemplateEvidence | None:
    """The site memory's evidence for `page` (recording it), or None: no store, or it failed."""
    try:
        return templates.evidence(page, url, proba)
    except Exception as exc:  # noqa: BLE001 - a store's failure must not cost the page
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


def extract(
    html: Any, url: str | None = None, *, templates: TemplateStore | None = None, **options: Unpack[OptionArgs]
) -> Extraction:
    """Main content of a page with the shared default extractor (see `Extractor`)."""
    return default_extractor().extract(html, url=url, templates=templates, **options)
