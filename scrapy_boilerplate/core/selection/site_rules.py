"""Per-site selectors: where a site's content is, and what in it is never content, as CSS.

A :class:`SiteRule` holds a content selector ("article .body") and exclude selectors
(".promo", ".share"). On a page it becomes a per-block mask of the blocks allowed to be
content (:meth:`SiteRule.apply`): the blocks inside the elements the content selector
matches, minus the blocks inside excluded elements. The extractor zeroes the probabilities
of the other blocks before the decoder, so that the model and the selection steps clean up
inside the content, and removes them from the kept blocks after the steps.

The tree is never changed (a caller's ``response.selector`` stays intact) and not walked
again: a matched element is tied to the blocks of the walk through ``Page.node_elements``.
A block-level element that the walk made a node covers exactly its node's blocks. Any
other element (``span``, ``a``, a custom tag: the walk reads them as inline) covers the
blocks between its first and last block-level descendants, and at its edges the blocks of
its block-level parent whose whole text is inside it: granularity is the block, so an
inline element inside a paragraph of other text leaves the paragraph alone.

Selectors are compiled once (cssselect's parser -> an XPath test per compound selector, cached by
selector, held by the rule; css_match.py matches them right to left in a cost bounded by the
elements tested) and a rule pickles as its strings, small, to worker processes. A rule whose
selectors test more than css_match.MAX_WORK elements on a page is skipped on that page (one
WARNING; the summary says `over_budget`): the page gets the model's extraction. So is a rule
whose selectors fail on a page in a way their checks did not foresee (one WARNING a rule, the
summary's `error`): a selector never costs a page its text. The title and the metadata
still come from the whole page (the headline, JSON-LD and <meta> are outside the content
element on most sites); the metadata read from the kept blocks (a byline) follows the mask.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict
from urllib.parse import urlsplit

import numpy as np
from lxml import etree

from ..document.elements import K_IMG, K_INLINE, K_LINK, tag_info
from ..document.words import clean_text
from .css_match import CompiledSelector, OverBudget, new_budget

if TYPE_CHECKING:
    from ..document.page import Page

logger = logging.getLogger(__name__)

#: Matched elements read per selector and page (bounded cost on a page of 100k matches).
MAX_MATCHES = 5000
#: Ancestors looked through for an inline element's block-level parent.
MAX_ANCESTORS = 1000


class SelectorCount(TypedDict):
    """One selector of a rule on a page: the elements it matched, the page's blocks inside them."""

    selector: str
    elements: int
    blocks: int


class RuleSummary(TypedDict):
    """What a site rule did on a page (SiteRule.apply; Extraction.site_rule, the explain page)."""

    site: str | None
    matched: bool
    content: SelectorCount | None
    exclude: list[SelectorCount]
    forced_out: list[int]  # block indices the rule keeps out of the content
    over_budget: bool
    error: str | None  # why its selectors failed on the page (skipped there), else None


@functools.lru_cache(maxsize=512)
def compile_selector(css: str) -> CompiledSelector:
    """A CSS selector compiled once, every part of it checked (css_match.py); ValueError naming
    it when it is not one or uses what is not supported."""
    return CompiledSelector(css)


@dataclass(frozen=True)
class SiteRule:
    """A content selector and exclude selectors (CSS), checked when made.

    ``site``: the host the rule was given for (``site_rules``, BOILERPLATE_SITE_RULES),
    None for selectors given as options.
    """

    content: str | None = None
    exclude: tuple[str, ...] = ()
    site: str | None = None
    # CSS -> its compiled selector; made again when the rule is unpickled (in a worker process).
    _compiled: dict[str, CompiledSelector] = field(init=False, repr=False, compare=False)
    # Whether a failure of its selectors on a page was logged (once a rule, a process).
    _warned: list[bool] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_compiled", {css: compile_selector(css) for css in self.selectors()})
        object.__setattr__(self, "_warned", [False])

    def __reduce__(self) -> tuple[type[SiteRule], tuple[str | None, tuple[str, ...], str | None]]:
        return SiteRule, (self.content, self.exclude, self.site)

    def selectors(self) -> list[str]:
        return ([self.content] if self.content is not None else []) + list(self.exclude)

    def apply(self, page: Page) -> tuple[np.ndarray | None, RuleSummary]:
        """(allowed, summary): the mask of the blocks that may be content (None: the rule
        matched nothing and changes nothing) and what the rule did (`summary` shape below).

        summary = {"site": str | None, "matched": bool,
                   "content": {"selector", "elements", "blocks"} | None,
                   "exclude": [{"selector", "elements", "blocks"}, ...],
                   "forced_out": [block indices the rule keeps out of the content],
                   "over_budget": bool, "error": str | None}
        "elements" counts the elements matched, "blocks" the page's blocks inside them;
        "forced_out" lists every block the rule does not allow (outside the content, inside an
        excluded element), whatever the model scored it: none of them is content.
        "matched" is False when the content selector covers no block (a changed template),
        or, for a rule of exclude selectors only, when none of them covers a block.
        "over_budget": the selectors tested more than css_match.MAX_WORK elements on the page,
        and the rule was skipped there (matched False, nothing kept out; a WARNING).
        "error": the selectors failed on the page (the exception), and the rule was skipped there as
        when over budget (a WARNING the first time for this rule); None when they did not.
        """
        try:
            return self._apply(page)
        except OverBudget as over:
            logger.warning(
                "site rule%s skipped on %s: its selectors %s tested more than %d elements "
                "(the page gets the model's extraction)",
                f" for {self.site}" if self.site else "",
                page.base_url or "a page",
                self._listed(),
                over.args[0],
            )
            return None, self._skipped(over_budget=True)
        except Exception as exc:  # noqa: BLE001 - a selector must never cost a page its text
            # The checks made when the selectors were compiled (css_match._check) refuse what is
            # known to fail; anything else costs the rule on this page, not the page's text.
            error = f"{type(exc).__name__}: {exc}"
            if not self._warned[0]:
                self._warned[0] = True
                logger.warning(
                    "site rule%s skipped on %s: its selectors %s failed there (%s); every page where "
                    "they fail gets the model's extraction (logged once for this rule)",
                    f" for {self.site}" if self.site else "",
                    page.base_url or "a page",
                    self._listed(),
                    error,
                )
            return None, self._skipped(error=error)

    def _listed(self) -> str:
        return ", ".join(repr(css) for css in self.selectors())

    def _skipped(self, over_budget: bool = False, error: str | None = None) -> RuleSummary:
        """The summary of the rule skipped on a page: as if it had matched nothing there."""
        content: SelectorCount | None = None
        if self.content is not None:
            content = {"selector": self.content, "elements": 0, "blocks": 0}
        return {
            "site": self.site,
            "matched": False,
            "content": content,
            "exclude": [{"selector": css, "elements": 0, "blocks": 0} for css in self.exclude],
            "forced_out": [],
            "over_budget": over_budget,
            "error": error,
        }

    def _apply(self, page: Page) -> tuple[np.ndarray | None, RuleSummary]:
        n = len(page)
        spans = _Spans(page)
        allowed: np.ndarray | None = None
        content: SelectorCount | None = None
        if self.content is not None:
            inside, elements = spans.covered(self._compiled[self.content])
            content = {"selector": self.content, "elements": elements, "blocks": int(inside.sum())}
            if inside.any():
                allowed = inside
            else:
                logger.debug(
                    "content selector %r matches no content on %s; ignored", self.content, page.base_url or "the page"
                )
        excluded: list[SelectorCount] = []
        for css in self.exclude:
            inside, elements = spans.covered(self._compiled[css])
            excluded.append({"selector": css, "elements": elements, "blocks": int(inside.sum())})
            if inside.any():
                allowed = (np.ones(n, bool) if allowed is None else allowed) & ~inside
        if self.exclude and not any(e["blocks"] for e in excluded):
            logger.debug("exclude selectors %r match no content on %s", list(self.exclude), page.base_url or "the page")
        matched = bool(content["blocks"]) if content is not None else any(e["blocks"] for e in excluded)
        summary: RuleSummary = {
            "site": self.site,
            "matched": matched,
            "content": content,
            "exclude": excluded,
            "forced_out": np.flatnonzero(~allowed).tolist() if allowed is not None else [],
            "over_budget": False,
            "error": None,
        }
        return allowed, summary


def plain_text_blocks(page: Page, allowed: np.ndarray) -> np.ndarray:
    """The allowed blocks that are not mostly link text (all the allowed ones when every one
    is): the content when a content selector matched and the model kept nothing in it."""
    chars, link_chars = page.arrays.chars, page.arrays.link_chars
    mask = allowed & (link_chars < chars / 2)
    return mask if mask.any() else allowed & (chars > 0)


def make_rule(
    content: str | None = None, exclude: Iterable[str] | str | None = None, site: str | None = None
) -> SiteRule | None:
    """A SiteRule from the options, or None when neither is given; ValueError on a bad selector."""
    if isinstance(exclude, str):
        exclude = (exclude,)
    exclude = tuple(exclude or ())
    for css in exclude:
        if not isinstance(css, str):
            raise ValueError(f"exclude selectors must be strings, not {css!r}")
    if content is not None and not isinstance(content, str):
        raise ValueError(f"the content selector must be a string, not {content!r}")
    if content is None and not exclude:
        return None
    return _cached_rule(content, exclude, site)


@functools.lru_cache(maxsize=256)
def _cached_rule(content: str | None, exclude: tuple[str, ...], site: str | None) -> SiteRule:
    return SiteRule(content, exclude, site)


class SiteRules:
    """Rules by host: {"example.com": {"content": "...", "exclude": ["..."]}}.

    A host's rule also serves its subdomains ("example.com" serves "www.example.com"); the
    longest matching host wins. ValueError naming the host and selector on a bad rule.
    """

    def __init__(self, rules: Mapping[str, Any]) -> None:
        if not isinstance(rules, Mapping):
            raise ValueError(f"site rules must be a dict of host -> rule, not {rules!r}")
        self.rules: dict[str, SiteRule] = {}
        given: dict[str, Any] = {}  # normalised host -> the key it was given as
        for host, spec in rules.items():
            key = host_key(host)
            if key in given:
                raise ValueError(
                    f"site rules: {given[key]!r} and {host!r} are the same host ({key!r}): give one rule per host"
                )
            given[key] = host
            self.rules[key] = _rule_of(key, spec)

    def __bool__(self) -> bool:
        return bool(self.rules)

    def for_url(self, url: str | None) -> SiteRule | None:
        """The rule of the URL's host: its own, else its closest parent domain's; None."""
        if not url or not self.rules:
            return None
        try:
            host = _ascii_host((urlsplit(url).hostname or "").rstrip("."))
        except ValueError:
            return None
        while host:
            rule = self.rules.get(host)
            if rule is not None:
                return rule
            host = host.partition(".")[2]
        return None


#: A host name as a rule's key gives it, once lowercased and in ASCII (IDNA): labels of letters,
#: digits, hyphens (and underscores, seen in real host names) joined by dots.
_HOST = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")


def host_key(host: Any) -> str:
    """A site rule's host as URLs carry it: lowercase, IDNA (punycode: "bücher.de" ->
    "xn--bcher-kva.de", as Scrapy's request URLs have it), without a trailing (or leading) dot.
    ValueError saying why for what can never match a URL's host: a URL, a port, a wildcard,
    an IP address in brackets, spaces."""
    example = "a host name as 'example.com' (its rule serves its subdomains too)"
    if not isinstance(host, str) or not host:
        raise ValueError(f"site rules: {host!r} is not {example}")
    why = (
        "it holds a space"
        if any(c.isspace() for c in host)
        else "it is a URL"
        if "/" in host
        else "it is a wildcard"
        if "*" in host
        else "it is an IP address in brackets"
        if "[" in host or "]" in host
        else "it has a port (a rule serves every port of its host)"
        if ":" in host
        else "it holds a user name"
        if "@" in host
        else None
    )
    if why is None:
        try:
            key = _ascii_host(host.strip(".").lower())
        except ValueError as exc:
            why = f"it is not a valid international domain name ({exc})"
        else:
            if _HOST.fullmatch(key) and len(key) <= 253:
                return key
            why = "it holds characters no host name has"
    raise ValueError(f"site rules: {host!r} is not {example}: {why}")


def _ascii_host(host: str) -> str:
    """`host` in ASCII as Scrapy's URLs carry it (w3lib's safe_url_string uses the same codec)."""
    if host.isascii():
        return host.lower()
    try:
        return host.encode("idna").decode("ascii").lower()
    except UnicodeError as exc:
        raise ValueError(str(exc)) from None


def _rule_of(host: str, spec: Any) -> SiteRule:
    shape = 'a dict {"content": CSS selector, "exclude": [CSS selectors]} (either may be left out)'
    if not isinstance(spec, Mapping) or not spec or set(spec) - {"content", "exclude"}:
        raise ValueError(f"site rule for {host!r} must be {shape}, not {spec!r}")
    exclude = spec.get("exclude") or ()
    if isinstance(exclude, str):
        exclude = (exclude,)
    if not isinstance(exclude, list | tuple) or not all(isinstance(s, str) for s in exclude):
        raise ValueError(f"site rule for {host!r}: 'exclude' must be a list of CSS selectors, not {exclude!r}")
    content = spec.get("content")
    if content is not None and not isinstance(content, str):
        raise ValueError(f"site rule for {host!r}: 'content' must be a CSS selector, not {content!r}")
    try:
        rule = make_rule(content, exclude, host)
    except ValueError as exc:
        raise ValueError(f"site rule for {host!r}: {exc}") from None
    if rule is None:
        raise ValueError(f"site rule for {host!r} must be {shape}, not {spec!r}")
    return rule


class _Spans:
    """The blocks inside matched elements, for one page (see the module docstring)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.node_of = {el: i for i, el in enumerate(page.node_elements)}
        self.first, self.last = page.node_first, page.node_last
        self._by_text: dict[str, list[int]] | None = None
        self.budget = new_budget()  # shared by the rule's selectors on this page

    def covered(self, selector: CompiledSelector) -> tuple[np.ndarray, int]:
        """(mask of the blocks inside the elements `selector` matches, number of elements)."""
        inside = np.zeros(len(self.page), bool)
        root = self.page.root
        if root is None or not len(inside):
            return inside, 0
        elements = selector.select(root, self.budget)
        seen: set[etree._Element] = set()  # elements inside an inline match already read
        for el in elements[:MAX_MATCHES]:
            node = self.node_of.get(el)
            if node is not None:
                inside[self.first[node] : self.last[node]] = True
            elif el not in seen:
                self._inline(el, inside, seen)
        return inside, len(elements)

    def _inline(self, el: etree._Element, inside: np.ndarray, seen: set[etree._Element]) -> None:
        kind = tag_info(el.tag)[0]
        if kind not in (K_INLINE, K_LINK, K_IMG):
            return  # a block-level or skipped element that is no node: skipped by the walk
        lo = hi = -1
        for sub in el.iterdescendants():
            self.budget.spend(1)
            seen.add(sub)
            node = self.node_of.get(sub)
            if node is not None and self.last[node] > self.first[node]:
                lo = self.first[node] if lo < 0 else lo
                hi = max(hi, self.last[node])
        if lo >= 0:
            inside[lo:hi] = True  # all in document order between its block-level descendants
        # At its edges (or all of it, without block-level descendants): the blocks of its
        # block-level parent whose text is its own text's start or end (or all of it).
        parent = self._parent_node(el)
        text = clean_text(" ".join("".join(el.itertext()).split()))
        if parent is None or not text:
            return
        texts, nodes = self.page.texts, self.page.nodes
        if lo < 0:
            for b in self._blocks_by_text().get(text, ()):
                if nodes[b] == parent:
                    inside[b] = True
            return
        if lo > 0 and nodes[lo - 1] == parent and text.startswith(texts[lo - 1]):
            inside[lo - 1] = True
        if hi < len(texts) and nodes[hi] == parent and text.endswith(texts[hi]):
            inside[hi] = True

    def _parent_node(self, el: etree._Element) -> int | None:
        for steps, anc in enumerate(el.iterancestors()):
            self.budget.spend(1)
            node = self.node_of.get(anc)
            if node is not None or steps >= MAX_ANCESTORS:
                return node
        return None

    def _blocks_by_text(self) -> dict[str, list[int]]:
        if self._by_text is None:
            self._by_text = {}
            for b, text in enumerate(self.page.texts):
                self._by_text.setdefault(text, []).append(b)
        return self._by_text
